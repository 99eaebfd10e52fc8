"""The pass manager: runs a named pipeline of passes, checks the IR between them, reports and dumps.

A pass is a plain function ``fn(module_or_function) -> bool`` (whether it changed the IR), named
by a ``Pass``. ``PassManager(passes, ...).run(module)`` runs them in order on the module, in place,
and returns one ``PassReport`` per pass: its name and position, whether it changed the IR, the op
count before and after (``support.count_ops``: a fused kernel counts as one op) and its wall time.

Options (all off by default, so compiling pays for none of them):

- ``verify_each``: verify the input, then the IR after every pass. A failure raises
  ``PassVerifyError`` naming the pass, with the verifier's message and the ops from ten before to
  ten after the bad one (``>>`` marks it). ``None`` reads ``GRAPHCELL_VERIFY`` (``1`` turns it on);
  graphcell's debug mode and the tests pass ``True``.
- ``roundtrip_each``: after every pass also check that the printed text parses back and prints
  identically (the text format is the debugging and export interface, so a pass must not make IR
  the parser cannot read).
- ``dump_dir``: write ``00_<input_name>.gcir`` (the input), then ``NN_<pass>.gcir`` after every pass
  that changed the IR, ``NN`` being the pass's position in the pipeline (``04_cse.gcir``), and
  ``consts.npz`` when the module has a constant table. graphcell passes ``save_graphs_path``; give
  each compiled graph its own directory, since files of passes that changed nothing this time are
  not removed.
- ``print_after``: pass names (or ``"all"``) after which the IR is printed to ``stream`` (stderr by
  default), changed or not. ``None`` reads ``GRAPHCELL_PRINT_AFTER`` (``cse,fuse`` or ``all``).

A pass that raises is reported as ``PassError`` naming the pass (the original is the cause).

Example::

    >>> from graphcell_ir.text import parse_module
    >>> from graphcell_ir.passes.pipelines import resolve
    >>> m = parse_module('''func @f(%x: f32[3]) -> f32[3] {
    ...   %0 = neg(%x) : f32[3]
    ...   %1 = neg(%0) : f32[3]
    ...   return %1
    ... }
    ... ''')
    >>> [str(r).split()[1:4] for r in PassManager(resolve(["simplify", "dce"])).run(m)]
    [['simplify', 'changed', '2'], ['dce', 'unchanged', '0']]
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Collection, Sequence, TextIO

import numpy as np

from graphcell_ir import switches
from graphcell_ir.errors import IRVerifyError, PassError, PassVerifyError
from graphcell_ir.ir.core import Function, Module
from graphcell_ir.passes.support import count_ops

VERIFY_ENV = "GRAPHCELL_VERIFY"
PRINT_AFTER_ENV = "GRAPHCELL_PRINT_AFTER"
# (graphcell_ir/switches.py declares both)


@dataclass(frozen=True)
class Pass:
    """A named IR-to-IR function: ``fn(module_or_function) -> bool`` says whether it changed
    anything. Its docstring states what it requires and guarantees."""

    name: str
    fn: Callable[[Module | Function], bool]

    def __call__(self, target: Module | Function) -> bool:
        return bool(self.fn(target))


@dataclass(frozen=True)
class PassReport:
    """What one pass did; ``removed`` is how many ops it took away (negative if it added)."""

    name: str
    position: int
    changed: bool
    ops_before: int
    ops_after: int
    seconds: float
    dump: Path | None = None

    @property
    def removed(self) -> int:
        return self.ops_before - self.ops_after

    def __str__(self) -> str:
        state = "changed" if self.changed else "unchanged"
        return (f"{self.position:02d} {self.name:<12} {state:<9} {self.ops_before:>5} -> "
                f"{self.ops_after:<5} ops {self.seconds * 1e3:8.2f} ms")


def format_reports(reports: Sequence[PassReport]) -> str:
    """A table of reports, one line per pass, and the total time."""
    total = sum(r.seconds for r in reports)
    return "\n".join([*map(str, reports), f"   total {total * 1e3:.2f} ms"])


class PassReports(tuple):
    """The reports of one pipeline run: a tuple of :class:`PassReport` that prints as a table.

    >>> r = PassReports([PassReport("cse", 1, True, 10, 8, 0.001)])
    >>> r[0].removed
    2
    >>> print(r)
    01 cse          changed      10 -> 8     ops     1.00 ms
       total 1.00 ms
    """

    def __str__(self) -> str:
        return format_reports(self)

    __repr__ = __str__


@dataclass(frozen=True)
class PassManager:
    """Runs ``passes`` in order; see the module docstring for the options."""

    passes: Sequence[Pass]
    verify_each: bool | None = None
    roundtrip_each: bool = False
    dump_dir: str | Path | None = None
    input_name: str = "frontend"
    dump_locs: str = "user"
    print_after: Collection[str] | None = None
    stream: TextIO | None = field(default=None, compare=False)

    def run(self, module: Module,
            observe: Callable[[PassReport, Module], None] | None = None) -> list[PassReport]:
        """Run the pipeline on ``module`` in place. ``observe(report, module)`` is called after
        each pass (tests interpret the IR there to find the first pass that changed a result)."""
        verify_each = switches.on(VERIFY_ENV) if self.verify_each is None else self.verify_each
        print_after = _print_after_names(self.print_after)
        dump_dir = Path(self.dump_dir) if self.dump_dir is not None else None
        if verify_each:
            _check(module, None, 0, len(self.passes), self.roundtrip_each)
        if dump_dir is not None:
            self._dump(module, dump_dir, f"00_{self.input_name}.gcir")
        reports = []
        after = count_ops(module)   # a pass's count after is the next one's before
        for position, p in enumerate(self.passes, start=1):
            before = after
            start = time.perf_counter()
            changed = _run_one(p, module)
            seconds = time.perf_counter() - start
            if verify_each:
                _check(module, p.name, position, len(self.passes), self.roundtrip_each)
            dump = None
            if changed and dump_dir is not None:
                dump = self._dump(module, dump_dir, f"{position:02d}_{p.name}.gcir")
            after = count_ops(module)
            report = PassReport(p.name, position, changed, before, after, seconds, dump)
            reports.append(report)
            if p.name in print_after or "all" in print_after:
                self._print(module, report)
            if observe is not None:
                observe(report, module)
        if dump_dir is not None and module.consts:
            np.savez(dump_dir / "consts.npz", **module.consts)
        return reports

    def _dump(self, module: Module, dump_dir: Path, name: str) -> Path:
        from graphcell_ir.text.printer import print_module
        dump_dir.mkdir(parents=True, exist_ok=True)
        path = dump_dir / name
        path.write_text(print_module(module, locs=self.dump_locs))
        return path

    def _print(self, module: Module, report: PassReport) -> None:
        from graphcell_ir.text.printer import print_module
        stream = self.stream if self.stream is not None else sys.stderr
        state = "changed" if report.changed else "unchanged"
        stream.write(f"// ----- IR after {report.name} (pass {report.position} of "
                     f"{len(self.passes)}, {state}) -----\n")
        stream.write(print_module(module))
        stream.flush()


def _run_one(p: Pass, module: Module) -> bool:
    try:
        return p(module)
    except PassError:
        raise
    except Exception as e:  # a pass that crashes is a compiler bug: say which pass it was
        raise PassError(f"pass '{p.name}' failed: {type(e).__name__}: {e}", p.name) from e


def _check(module: Module, pass_name: str | None, position: int, total: int,
           roundtrip: bool) -> None:
    from graphcell_ir.ir.verify import verify
    where = (f"after pass '{pass_name}' (pass {position} of {total})" if pass_name is not None
             else "in the input to the pass pipeline")
    try:
        verify(module)
    except IRVerifyError as e:
        raise PassVerifyError(f"invalid IR {where}: {e}", pass_name, e.op, e.function) from None
    if roundtrip:
        problem = _roundtrip_problem(module)
        if problem:
            raise PassVerifyError(f"the IR {where} does not round-trip through text: {problem}",
                                  pass_name)


def _roundtrip_problem(module: Module) -> str | None:
    from graphcell_ir.text import parse_module, print_module
    text = print_module(module, locs="full")
    try:
        again = print_module(parse_module(text, consts=module.consts), locs="full")
    except Exception as e:  # the report is the point: what failed, and on which text
        return f"parsing the printed IR failed: {e}\n{text}"
    if again != text:
        return f"printed\n{text}\nbut reads back as\n{again}"
    return None


def _print_after_names(names: Collection[str] | None) -> frozenset[str]:
    if names is None:
        names = switches.words(PRINT_AFTER_ENV)
    return frozenset(n.strip() for n in names if n.strip())

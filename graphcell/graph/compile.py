"""Compiling one call: the frontend with graphcell's resolver, the passes, guards, an executable.

``compile_call(fn, self_obj, args)`` is the whole bridge of DESIGN §2 up to running: the input
signature becomes the frontend's argument specs, the frontend parses ``fn`` (``construct``, a
``@jit`` function) into IR while :class:`GraphResolver` classifies the objects it meets and the
:class:`ReadRecorder` notes which attributes of which cells it reads, the pass pipeline
optimises the IR, and the result is a :class:`Compiled`: the program, its executable, and the
guards that say when it is stale.

Nothing here changes a Parameter or a cache: a compile that fails raises and leaves no trace.
Errors in the user's program (``GraphSyntaxError`` and the rest of the ``GraphCompileError``
family) are raised without the compiler's frames, so the user sees the message — their file,
line and a caret — and not a traceback through the frontend.
"""
from __future__ import annotations

import os
import threading
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

from graphcell import context
from graphcell.graph import warn
from graphcell.graph.entry import Entry
from graphcell.graph.errors import without_frames
from graphcell.graph.executor import Executable, Program
from graphcell.graph.gc_pause import collector_paused
from graphcell.graph.guards import Guards
from graphcell.graph.lowered import Lowered
from graphcell.graph.reads import ReadRecorder
from graphcell.graph.resolver import GraphResolver
from graphcell.graph.signature import arg_specs, describe_spec
from graphcell.nn.cell import Cell
from graphcell.runtime import hooks
from graphcell_ir.backend import report
from graphcell_ir.errors import GraphCompileError
from graphcell_ir.frontend import Limits, compile_function
from graphcell_ir.frontend import compile_call as compile_entry
from graphcell_ir.frontend.grads import prune

__all__ = ["Compiled", "compile_call"]

_WARNINGS_LOCK = threading.RLock()
"""Held while a frontend runs inside ``warnings.catch_warnings``, which swaps process-wide state:
two compiles in it at once, in two threads, left the process's warnings captured by a dead
recorder for good. The frontends of concurrent compiles take turns; passes, kernel compiles and
runs still overlap. Reentrant: a frontend may compile another function."""


@dataclass
class Compiled:
    """One compiled version of a staged function."""

    program: Program
    executable: Executable
    guards: Guards
    params: tuple
    param_sig: tuple      # ((shape, dtype), ...) of ``params`` when compiled
    signature: str        # "x f32[2,3], n 3": the inputs, for messages
    # the arrays of ``params`` known to fit ``param_sig``: those a call checked, then those it
    # left (its write-back keeps the compiled types); one identity test each skips the check
    seen: list = field(default_factory=list)

    def __post_init__(self):
        if len(self.seen) != len(self.params):
            self.seen = [None] * len(self.params)

    def lowered(self) -> Lowered:
        return Lowered(self.program, self.signature)


def compile_call(fn: Callable | Entry, self_obj: Any, args: tuple, kwargs: dict | None = None,
                 *, name: str, arg_names: tuple[str, ...] = (),
                 jit_level: str | None = None) -> Compiled:
    """Compile ``fn`` (bound to ``self_obj`` when not None) for the call's ``args`` and keyword
    ``kwargs`` (keyword-only parameters); an :class:`Entry` is compiled as the call of its target
    (``self_obj``: the cell whose attributes the cache guards).

    The compile is one compile-report session (``graphcell_ir.backend.report``): it ends after
    the executable's first run, which compiles the kernels."""
    session = report.begin(name, on=bool(context.get_context("compile_report")))
    try:
        with collector_paused():
            compiled = _compile(fn, self_obj, args, dict(kwargs or {}), name, arg_names,
                                jit_level)
    except BaseException:
        session.end()
        raise
    session.suspend()
    compiled.executable.session = session
    return compiled


def _compile(fn, self_obj, args, kwargs, name, arg_names, jit_level) -> Compiled:
    from graphcell_ir.backend.executable import compiling_soon
    compiling_soon()   # a new cache: the compile worker starts beside the front end
    specs = arg_specs(args)
    kwarg_specs = dict(zip(kwargs, arg_specs(tuple(kwargs.values()))))
    signature = ", ".join([f"{n} {describe_spec(s)}" if n else describe_spec(s)
                           for n, s in zip(_names(arg_names, len(specs)), specs)]
                          + [f"{k}={describe_spec(s)}" for k, s in kwarg_specs.items()])
    recorder = ReadRecorder()
    resolver = GraphResolver(watch=recorder.watch, root=self_obj)
    try:
        if isinstance(self_obj, Cell):
            recorder.watch(self_obj)
        with _WARNINGS_LOCK, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _timed_frontend(fn, self_obj, specs, kwarg_specs, resolver, name, arg_names)
    except GraphCompileError as e:
        raise without_frames(e) from e.__cause__
    finally:
        recorder.close()
    for w in caught:  # given once per message, at the user's call (not once per compile)
        warn.once_per_message(str(w.message), w.category)
    program = _program(result)
    _optimize(program, name, jit_level)
    prune(program.module, program.function)  # callees the inline pass left without a call
    cells = _cells(self_obj, resolver)
    guards = Guards(cells, {id(c): recorder.names(c) for c in cells}, hooked=cells,
                    versions=((hooks.PARAMETER_HOOKS, "Parameter hooks"),))
    params = program.params
    param_sig = tuple((p._data.shape, p._data.dtype) for p in params)
    return Compiled(program, Executable(program), guards, params, param_sig, signature)


def _names(arg_names, n: int) -> list[str]:
    names = list(arg_names)[:n]
    return names + [""] * (n - len(names))


def _cells(self_obj, resolver: GraphResolver) -> list:
    cells = [self_obj] if isinstance(self_obj, Cell) else []
    cells += [c for c in resolver.cells if c is not self_obj]
    return cells


# --- the frontend and the passes -----------------------------------------------------------------

def _frontend(fn, self_obj, specs, kwarg_specs, resolver, name, arg_names):
    if isinstance(fn, Entry):
        return compile_entry(fn.target, specs, resolver, name=name, kwarg_specs=kwarg_specs,
                             arg_names=fn.arg_names or arg_names, limits=limits())
    return compile_function(fn, self_obj, specs, resolver, name=name, kwarg_specs=kwarg_specs,
                            limits=limits())


def limits() -> Limits:
    """The frontend's limits from the context (``max_call_depth``, ``max_unroll``)."""
    return Limits(call_depth=context.get_context("max_call_depth"),
                  unroll=context.get_context("max_unroll"))


def _timed_frontend(fn, self_obj, specs, kwarg_specs, resolver, name, arg_names):
    """The frontend, reported as ``frontend`` (without the ``autodiff`` phases it ran)."""
    with report.timed("frontend", name):
        return _frontend(fn, self_obj, specs, kwarg_specs, resolver, name, arg_names)


def _program(result) -> Program:
    """The frontend's ``CompiledFrontend`` as a :class:`Program`: the tensor leaves of the
    arguments come first (depth first, as ``signature.flatten`` collects them), then one ``param``
    argument per Parameter; the results are the returned leaves, then the mutated Parameters."""
    keys = tuple(result.param_keys)
    inputs = tuple(range(len(result.input_paths))) + keys
    return Program(result.module, result.function, inputs, keys, tuple(result.mutated_keys),
                   result.output, result.num_user_results, attr_writes=result.attr_writes)


def _optimize(program: Program, name: str, jit_level: str | None) -> None:
    """Run the pass pipeline on the program's module, in place (DESIGN §7)."""
    pipeline = _pipeline(jit_level)
    if pipeline is None:
        return
    from graphcell_ir.passes.manager import PassManager
    dump = None
    if context.get_context("save_graphs"):
        dump = os.path.join(context.get_context("save_graphs_path"), _safe(name))
    locs = context.get_context("save_graphs_locs")
    program.pass_reports = tuple(PassManager(pipeline, dump_dir=dump, dump_locs=locs)
                                 .run(program.module))
    for r in program.pass_reports:
        report.phase(f"pass {r.name}", r.seconds, f"{-r.removed:+d} ops" if r.changed else "")
    if dump is not None:
        _dump_views(program.function, dump, context.get_context("save_graphs") >= 3)


def _dump_views(fn, dump: str, pictures: bool) -> None:
    """Beside the .gcir of each pass: ``summary.txt`` and ``graph.dot`` of the optimised function,
    and at level 3 ``graph.svg`` (Graphviz's dot when on PATH, else matplotlib; a note in
    ``graph.svg.txt`` says why when neither is installed)."""
    from graphcell_ir.errors import GraphvizError
    from graphcell_ir.ir.export import to_dot, to_svg
    from graphcell_ir.text.summary import summarize
    with open(os.path.join(dump, "summary.txt"), "w", encoding="utf-8") as f:
        f.write(str(summarize(fn)) + "\n")
    with open(os.path.join(dump, "graph.dot"), "w", encoding="utf-8") as f:
        f.write(to_dot(fn))
    if pictures:
        try:
            svg, name = to_svg(fn), "graph.svg"
        except GraphvizError as e:
            svg, name = str(e) + "\n", "graph.svg.txt"
        with open(os.path.join(dump, name), "w", encoding="utf-8") as f:
            f.write(svg)


def _pipeline(jit_level: str | None):
    level = context.get_context("jit_level") if jit_level is None else jit_level
    if level == "O0":
        return None
    from graphcell_ir.passes.pipelines import DEFAULT, resolve
    return resolve(DEFAULT)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)

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
from dataclasses import dataclass
from typing import Any, Callable

from graphcell import context
from graphcell.graph import warn
from graphcell.graph.errors import without_frames
from graphcell.graph.executor import Executable, Program
from graphcell.graph.guards import Guards
from graphcell.graph.lowered import Lowered
from graphcell.graph.reads import ReadRecorder
from graphcell.graph.resolver import GraphResolver
from graphcell.graph.signature import arg_specs, describe_spec
from graphcell.nn.cell import Cell
from graphcell_ir.backend import report
from graphcell_ir.errors import GraphCompileError
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

    def lowered(self) -> Lowered:
        return Lowered(self.program, self.signature)


def compile_call(fn: Callable, self_obj: Any, args: tuple, *, name: str,
                 arg_names: tuple[str, ...] = (), jit_level: str | None = None) -> Compiled:
    """Compile ``fn`` (bound to ``self_obj`` when not None) for the call's ``args``.

    The compile is one compile-report session (``graphcell_ir.backend.report``): it ends after
    the executable's first run, which compiles the kernels."""
    session = report.begin(name, on=bool(context.get_context("compile_report")))
    try:
        compiled = _compile(fn, self_obj, args, name, arg_names, jit_level)
    except BaseException:
        session.end()
        raise
    session.suspend()
    compiled.executable.session = session
    return compiled


def _compile(fn, self_obj, args, name, arg_names, jit_level) -> Compiled:
    specs = arg_specs(args)
    signature = ", ".join(f"{n} {describe_spec(s)}" if n else describe_spec(s)
                          for n, s in zip(_names(arg_names, len(specs)), specs))
    recorder = ReadRecorder()
    resolver = GraphResolver(watch=recorder.watch, root=self_obj)
    try:
        if isinstance(self_obj, Cell):
            recorder.watch(self_obj)
        with _WARNINGS_LOCK, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _timed_frontend(fn, self_obj, specs, resolver, name)
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
    guards = Guards(cells, {id(c): recorder.names(c) for c in cells}, hooked=cells)
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

def _frontend(fn, self_obj, specs, resolver, name):
    try:
        from graphcell_ir.frontend import compile_function
    except ImportError:
        raise NotImplementedError("graph mode needs graphcell_ir's frontend "
                                  "(graphcell_ir.frontend.compile_function), which is not "
                                  "installed yet") from None
    return compile_function(fn, self_obj, specs, resolver, name=name)


def _timed_frontend(fn, self_obj, specs, resolver, name):
    """The frontend, reported as ``frontend`` (without the ``autodiff`` phases it ran)."""
    with report.timed("frontend", name):
        return _frontend(fn, self_obj, specs, resolver, name)


def _program(result) -> Program:
    """The frontend's ``CompiledFrontend`` as a :class:`Program`: the tensor leaves of the
    arguments come first (depth first, as ``signature.flatten`` collects them), then one ``param``
    argument per Parameter; the results are the returned leaves, then the mutated Parameters."""
    keys = tuple(result.param_keys)
    inputs = tuple(range(len(result.input_paths))) + keys
    return Program(result.module, result.function, inputs, keys, tuple(result.mutated_keys),
                   result.output, result.num_user_results)


def _optimize(program: Program, name: str, jit_level: str | None) -> None:
    """Run the pass pipeline on the program's module, in place (DESIGN §7)."""
    pipeline = _pipeline(jit_level)
    if pipeline is None:
        return
    from graphcell_ir.passes.manager import PassManager
    dump = None
    if context.get_context("save_graphs"):
        dump = os.path.join(context.get_context("save_graphs_path"), _safe(name))
    program.pass_reports = tuple(PassManager(pipeline, dump_dir=dump).run(program.module))
    for r in program.pass_reports:
        report.phase(f"pass {r.name}", r.seconds, f"{-r.removed:+d} ops" if r.changed else "")


def _pipeline(jit_level: str | None):
    level = context.get_context("jit_level") if jit_level is None else jit_level
    if level == "O0":
        return None
    from graphcell_ir.passes.pipelines import DEFAULT, resolve
    return resolve(DEFAULT)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)

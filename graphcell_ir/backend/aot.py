"""Ahead of time: the native objects of a module, for an artifact.

:func:`native_objects` finds every kernel the executable of a module runs and every
convolution/pooling loop its ops call, and emits each by the one route of :mod:`.objects`
(object store, else the code generator) as a pointer entry (``native/abi.py``) for the export
target:

- kernels (fused groups, lone elementwise ops, broadcast operands read by index): the executable
  of every function is built with a recorder in place of linked kernels, which asks for exactly
  the kernels the executable runs and compiles nothing; each is emitted for its operands' IR
  dtypes, its shapes constants of the code;
- loops: each convolution/pooling op of the module runs once on zeros through a recording loops
  namespace (``native.LoopRecorder``), and each (loop, argument kinds) called is emitted, and
  each hand-written kernel asked for (the direct convolutions', ``codegen/direct_conv.py``,
  ``direct_filter.py``: the runner asks its loops namespace for them), so that a loaded
  artifact whose function has no native step compiles none of them either;
- the native step's (``step/``): each function that has a step has it built once, recording the
  kernels and loops it calls (a loaded step calls the artifact's code only): its kernels are
  shape-generic entries (the arrays' dimensions as arguments, as in-process), stored beside the
  runner's fixed-shape ones.

What has no native code (a scalar operand, a function the generator refuses) is listed with the
reason: the artifact's loader compiles it.

Example::

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module("func @f(%x: f32[4]) -> f32[4] {\\n  %0 = relu(%x) : f32[4]\\n"
    ...                  "  %1 = mul(%0, %x) : f32[4]\\n  return %1\\n}\\n")
    >>> from graphcell_ir.passes.manager import PassManager
    >>> from graphcell_ir.passes.pipelines import DEFAULT, resolve
    >>> _ = PassManager(resolve(DEFAULT)).run(m)
    >>> found = native_objects(m)
    >>> for kind, obj in found.objects:   # the runner's entry, then the step's
    ...     print(kind, obj.args)
    kernel (('float32', (4,)), ('float32', (4,)))
    kernel (('array', 'float32', 1), ('array', 'float32', 1))
    >>> found.skipped
    []
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from graphcell_ir.backend import loops, nnkernels, objects
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.native import LoopRecorder, NativeError, abi
from graphcell_ir.ir.walk import walk

log = logging.getLogger("graphcell.backend")


@dataclass
class Emitted:
    """What :func:`native_objects` found: ``objects`` as ``(kind, NativeObject)`` (kind
    ``"kernel"`` or ``"loop"``), ``skipped`` as ``{"key", "ops", "reason"}`` records, and the
    hash of the loops' source the loops were emitted from."""

    objects: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    loops_source: str = ""

    def skip(self, key: str, ops: list, reason: str) -> None:
        if all(s["key"] != key or s["reason"] != reason for s in self.skipped):
            self.skipped.append({"key": key, "ops": ops, "reason": reason})


def native_objects(module) -> Emitted:
    """Every kernel and loop of ``module`` (the IR exactly as a loader will read it), emitted
    (see the module docstring)."""
    out = Emitted()
    for ks in _kernels(module):
        try:
            out.objects.append(("kernel", objects.emit_kernel(ks, ks.in_dtypes)))
        except NativeError as e:
            out.skip(ks.key, list(ks.ops), str(e))
    text = loops.source()
    out.loops_source = abi.source_hash(text)
    have = {obj.id for _, obj in out.objects}
    for kind, obj in _step_objects(module):   # those the runner does not call already
        if obj.id not in have:
            have.add(obj.id)
            out.objects.append((kind, obj))
    calls, written = _loop_calls(module)
    for name, kinds in calls:
        key = abi.loop_key(out.loops_source, name)
        if kinds is None:
            out.skip(key, [name], "an argument is neither a C-ordered array nor an int/float "
                                  "scalar")
            continue
        try:
            out.objects.append(("loop", objects.emit_loop(text, name, kinds)))
        except NativeError as e:
            out.skip(key, [name], str(e))
    for written_module, name, dtype in written:   # the step's may hold them already
        try:
            obj = objects.emit_loop(written_module.SOURCE, name,
                                    written_module.kinds(name, dtype))
        except NativeError as e:
            out.skip(abi.loop_key(abi.source_hash(written_module.SOURCE), name), [name], str(e))
            continue
        if obj.id not in have:
            have.add(obj.id)
            out.objects.append(("loop", obj))
    return out


def _step_objects(module) -> list:
    """``(kind, NativeObject)`` of every kernel and loop the native step of each function of
    ``module`` calls (``step/code.py``: the step is built once here, recording them), so that a
    loaded step finds them in the artifact: it may call kernels the runner does not (small lone
    ops, shape-generic entries, groups reading a broadcast operand whole) and its loops (softmax
    family, batch norm, layout transposes). Built twice: as it is, and with its Parameters
    donated, as the loader's executable gives a train step's (``graph/executor._donated``):
    an update written in place is a kernel of its own (``lower_fused(in_place=)``)."""
    from graphcell_ir.backend.lower import Unsupported
    from graphcell_ir.backend.step import emit
    from graphcell_ir.backend.step.code import RecordingCode
    from graphcell_ir.ops.effects import assign
    found = []
    for fn in module:
        if emit.unsupported(fn, segments=True) is not None:
            continue
        params = tuple(i for i, a in enumerate(fn.args) if a.param and any(
            u.opdef is assign and u.operands[0] is a for u in a.uses))   # those it updates
        for donated in ((), params) if params else ((),):
            code = RecordingCode()
            try:   # ops run in Python between native segments call no object of the step's
                emit.build(fn, host=_host_not_recorded, code=code, donated=donated)
            except Unsupported as e:   # no step here, none at load: the runner's kernels do
                log.info("native step of @%s not exported: %s", fn.name, e)
                break
            except Exception as e:     # a bug of the emitter: the export goes on without it
                log.warning("native step of @%s not exported: %s: %s", fn.name,
                            type(e).__name__, e)
                break
            found += code.objects
    return found


def _host_not_recorded(op):
    """The callable of an op a recorded step would run in Python: that step is never run (the
    loader's executable gives its own callables, whose loops the artifact holds:
    ``_loop_calls``)."""
    return _never_run


def _kernels(module) -> list:
    """The kernel sources the executable of ``module`` runs (see the module docstring)."""
    recorder = _KernelRecorder()
    for fn in module:
        compile_executable(module, fn, jit=True, native=recorder)
    return list(recorder.seen.values())


class _KernelRecorder:
    """Stands for linked kernels while an executable is built: records each kernel asked for
    and gives it a placeholder (the executable is thrown away, never run)."""

    def __init__(self):
        self.seen: dict = {}

    def lookup(self, ks):
        self.seen.setdefault((ks.key, ks.in_dtypes, ks.in_shapes), ks)
        return _never_run


def _never_run(*args):
    raise AssertionError("the export's recording executable ran")


def _loop_calls(module) -> tuple[list, list]:
    """(loop name, kinds) of every loop the convolution/pooling ops of ``module`` call, and
    (module, function, dtype) of every hand-written kernel they ask for (the direct
    convolutions': ``codegen/direct_conv.py``, ``direct_filter.py``), found by running each op
    once on zeros (see the module docstring)."""
    ops = [op for op in walk(module) if op.opdef in nnkernels.KERNELS]
    if not ops:
        return [], []
    recorder = LoopRecorder(loops.namespace(jit=True))
    for op in ops:
        args = [np.zeros(v.type.shape, v.type.dtype.np_dtype) for v in op.operands]
        try:
            with np.errstate(all="ignore"):
                nnkernels.KERNELS[op.opdef](recorder, *args, **dict(op.attrs))
        except Exception as e:   # it will fail at run time too; nothing to emit for it
            log.info("native loops: %s did not run on zeros (%s)", op.opdef.name, e)
    return (sorted(recorder.seen, key=repr),
            sorted(recorder.written, key=lambda w: (w[0].__name__, *w[1:])))

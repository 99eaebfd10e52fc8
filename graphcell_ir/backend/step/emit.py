"""The native step: a whole fixed-shape function as one call into machine code.

``build(fn)`` plans the function's buffers (:mod:`.plan`), then emits with llvmlite one function
that receives the arguments and the fresh output arrays (numpy objects: it reads their data
pointers, and checks each argument's rank, dimensions, dtype and C order, answering
:data:`~graphcell_ir.backend.native.abi.MISMATCH` without running otherwise) and calls, in
program order, through their addresses:

- each fused group's and lone elementwise/reduction op's kernel, by its pointer entry
  (``native/abi.py``: data pointers and dimensions, one object per source as the runner's),
  after filling a reduction's accumulator; a lone op's literal operands are constants of its
  source, and a ``broadcast_to`` read only by fused groups is read by index by their kernels;
- BLAS's GEMM for ``matmul`` (:mod:`.blas`; transposes are flags), one per matrix for stacks
  with equal batch dimensions, or the GEMV, dot, SYRK or loop numpy's ``matmul`` takes for
  the product's shape (:mod:`.route`);
- ``nn_loops``' loops for the softmax family, ``one_hot`` and training-mode ``batch_norm``
  (:mod:`.nnops`; blocks on the native pool), a strided-copy loop per permutation for
  ``transpose`` (:mod:`.layout`);
- convolutions, their gradients and max pools (:mod:`.window`: ``nn_loops``' im2col/col2im/
  pooling loops and one GEMM per sample, blocks of samples on the native pool);
- basic ``getitem``/``setitem`` (a strided-copy loop per rank, :mod:`.layout`);
- a copy for an ``assign`` whose value others still hold.

Updates of the arguments the caller donates (``build``'s ``donated``: graphcell's executor gives
the arrays of the Parameters it writes back) are written into the argument's own bytes where
:mod:`.donate` allows it; such a call returns that argument as the new value. The first segment
then also checks that each such argument is writeable and overlaps no other argument (else the
call is declined: the Python runner writes fresh arrays).

Every kernel and loop comes from ``build``'s ``code`` (:mod:`.code`): emitted and linked here,
recorded by an export, or an artifact's own linked objects at load (nothing compiled then).

Intermediates live in one arena the step owns (allocated once); returned values are written
straight into new arrays, so the caller never holds memory the next call overwrites.

An op with no native lowering here that Python can run (:func:`hostable`; ``build``'s ``host``
gives its callable, the runner's) splits the step into **native segments**: one native
function per stretch of lowered ops, the op run in Python between them (:class:`HostOps`),
reading the arena as numpy views and leaving its results in a per-call host table the next
segments read pointers from (a random op too: the caller restores the generator when the step
declines a call after it drew). A function with control flow, external ops, or (without
``host``) a random op or an op with no lowering has no native step:
:class:`~graphcell_ir.backend.lower.Unsupported` says which op, and the executable keeps its
Python runner. Example::

    >>> from graphcell_ir.text import parse_module
    >>> fn = parse_module('''
    ... func @f(%x: f32[2,3], %w: f32[4,3]) -> f32[2,4] {
    ...   %h = matmul(%x, %w) {transpose_b=true} : f32[2,4]
    ...   %r = relu(%h) : f32[2,4]
    ...   return %r
    ... }''')["f"]
    >>> step = build(fn)
    >>> x, w = np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)
    >>> step([x, w])[0].tolist()
    [[3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0]]
"""
from __future__ import annotations

import ctypes
import itertools
import math
import threading

import numpy as np

from graphcell_ir import switches
from graphcell_ir.backend import codegen, objects
from graphcell_ir.backend.codegen.release import release
from graphcell_ir.backend.lower import Unsupported, lower_fused, lower_single
from graphcell_ir.backend.native import abi
from graphcell_ir.backend.native import pool as native_pool
from graphcell_ir.backend.step import blas, layout, memory, nnops, route, window
from graphcell_ir.backend.step.donate import check_apart, updates_in_place
from graphcell_ir.backend.step.code import CalleeFailed, ProcessCode, switching_often
from graphcell_ir.backend.step.plan import PlanError, nbytes, plan_function
from graphcell_ir.backend.step.task import Task, call_gemm
from graphcell_ir.ir.core import Function, Literal, Op, Value
from graphcell_ir.ir.structural import CONST, FUSED, const_array
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops import conv as C
from graphcell_ir.ops.contraction import matmul
from graphcell_ir.ops.effects import assign, depend
from graphcell_ir.ops.elementwise import fill
from graphcell_ir.ops.layout import broadcast_to, getitem, reshape, setitem, transpose
from graphcell_ir.ops.registry import Kind, Trait

__all__ = ["build", "NativeStep"]

SMALL_KERNEL = 512
"""Element-ops (the call's elements times its group's ops) up to which a kernel call gets its
kernel compiled without LLVM's optimisation (:func:`unoptimized`): such a kernel compiles in
~1 ms instead of 7-15 (LeNet5's bias-gradient add, its loss's mean division and the step
counter: ~35 ms of W5's cold compile), and runs at ~1 ns an element-op instead of ~0.05-0.1,
so at most ~0.5 us a call (the batch-1 MLP's steady step: ~1 us more in 47; with 1024 elements
whatever the ops, 6 us more). The same source called on more gets the optimised object too."""
_IDS = itertools.count()


class NativeStep:
    """A linked native step: ``step(args)`` -> the function's results, or None when an
    argument is not what it was compiled for (the caller then runs its other runner). Its
    arena is one per step: calls from several threads take turns (the native call releases the
    GIL, so other work goes on meanwhile).

    ``parts``: what a call runs, in order — native segments (``cfunc(k, args..., new arrays...,
    host table)`` runs segment ``k``) and :class:`HostOps` between them (``host_ops`` names
    their ops); a step with no host op is one native call."""

    def __init__(self, cfunc, parts, outputs, results, keep, n_ops: int, text: str = "",
                 n_hosts: int = 0, host_ops: tuple = ()):
        self.cfunc, self.parts, self.outputs, self.results, self.keep = \
            cfunc, parts, outputs, results, keep
        self.whole = len(parts) == 1   # one native call: no host table
        self.n_ops = n_ops    # the ops it runs natively (what a report says)
        self.text = text      # its LLVM IR (save_graphs dumps it)
        self.n_hosts = n_hosts
        self.host_ops = host_ops
        self.lock = threading.Lock()

    def __call__(self, args):
        for a in args:
            if a.__class__ is not np.ndarray:
                return None
        outs = [None if o is None else np.empty(*o) for o in self.outputs]
        with self.lock:
            if self.whole:
                if self.cfunc(0, *args, *outs, None):
                    return None
            else:
                hosts = np.empty(self.n_hosts, object)
                for part in self.parts:
                    if part.__class__ is HostOps:
                        if part(args, outs, hosts):
                            return None
                    elif self.cfunc(part, *args, *outs, hosts):
                        return None
        return [pick(args, outs) for pick in self.results]

    def __repr__(self) -> str:
        return (f"<NativeStep: {self.n_ops} ops, {len(self.outputs)} new arrays, "
                f"{len(self.host_ops)} ops in Python>")


class HostOps:
    """Ops a native step runs in Python between two native segments (:func:`build`'s ``host``
    gives their callables, the runner's). Each reads its operands where the plan put them (the
    arena's bytes as arrays, the arguments, the new arrays, earlier host results) and leaves
    its results for the next segments in the host table (or the new arrays, when they are
    returned): ``ops`` is ``[(callable, operand getters, result setters)]``. A call answers 0,
    or 1 when an op raised (the caller then runs the Python runner, which reports the error)."""

    def __init__(self):
        self.ops: list = []
        self.names: list[str] = []

    def __call__(self, args, outs, hosts) -> int:
        try:
            for fn, getters, setters in self.ops:
                res = fn(*[get(args, outs, hosts) for get in getters])
                if len(setters) == 1:
                    res = (res,)
                for put, r in zip(setters, res):
                    put(outs, hosts, r)
        except Exception:
            return 1
        return 0


def build(fn: Function, host=None, code=None, donated=()) -> NativeStep:
    """The native step of ``fn`` (see the module docstring); Unsupported says why there is none.

    ``host(op)``: the callable that runs ``op`` in Python (the runner's), for the ops the step
    has no lowering for: the step then runs as native segments with those ops between them.
    Without it such an op means no step. ``code``: where the kernels and loops it calls come
    from (:mod:`.code`; by default emitted and linked here, ``code.ProcessCode``; an
    artifact's own linked objects at load, ``code.LinkedCode``). ``donated``: the indices of
    the arguments whose arrays the step may overwrite with their updates (:mod:`.donate`)."""
    why = objects.usable()
    if why is not None or not codegen.available():
        raise Unsupported(why or "this llvmlite cannot run the code generator")
    for a in fn.args:
        if not isinstance(a.type, TensorType) or 0 in a.type.shape:
            raise Unsupported(f"argument of type {a.type}")
    donated = {fn.args[i] for i in donated}
    code = code or ProcessCode()
    code.start()   # the compile lanes (the worker starts at the first object to compile)
    with switching_often():
        return _built(fn, host, code, donated)


def _built(fn: Function, host, code, donated: set) -> NativeStep:
    after = -1   # the last op that may decline the call: nothing written in place before it
    while True:
        into = updates_in_place(fn, donated, after=after, views=_view_of) if donated else {}
        try:
            plan = plan_function(fn, views=_view_of, into=into, in_place=_in_place)
            return _Emitter(fn, plan, code, host, into).run()
        except PlanError as e:
            code.cancel()
            raise Unsupported(str(e)) from None
        except _DeclinesAfterWrite as e:   # (rare: a host op after an update) fewer in place
            after = e.index
        except CalleeFailed:   # (rare) emitted again: the callee now refused where it is asked
            pass
        except BaseException:
            code.cancel()
            raise


class _DeclinesAfterWrite(Exception):
    """An op that may decline the call (run in Python, a label check) comes after an update
    written in place: ``index`` is its place in the body."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


def unoptimized(ks) -> bool:
    """Whether a call of kernel ``ks`` (lowered for this call's shapes) takes the kernel compiled
    without LLVM's passes and at the code generator's level 0: at most :data:`SMALL_KERNEL`
    element-ops, and no float reduction along the innermost loop — the optimised code sums
    that in vector lanes (``codegen.lowering._accumulates``), the unoptimised one element by
    element, and the step gives the Python runner's bits, whose kernels are optimised. Anything
    else is computed the same way by both: LLVM's passes keep IEEE results without fast-math
    flags.

    >>> from types import SimpleNamespace as K
    >>> from graphcell_ir.backend.lower import Output
    >>> f32 = np.dtype(np.float32)
    >>> add = Output((32, 10), f32, (32, 10), f32)
    >>> unoptimized(K(in_shapes=((32, 10),), outputs=(add,), ops=("add",)))
    True
    >>> unoptimized(K(in_shapes=((32, 10),), outputs=(add,), ops=("add", "mul")))
    False
    >>> sum_rows = Output((32, 1), np.dtype(np.float64), (32,), f32, fill=0)
    >>> unoptimized(K(in_shapes=((32, 10),), outputs=(sum_rows,), ops=("reduce_sum",)))
    False
    """
    sizes = [int(np.prod(s)) for s in ks.in_shapes if s is not None]
    sizes += [int(np.prod(o.shape)) for o in ks.outputs]
    if max(sizes, default=0) * max(len(ks.ops), 1) > SMALL_KERNEL:
        return False
    return not any(o.fill is not None and np.dtype(o.dtype).kind == "f" and o.shape[-1:] == (1,)
                   for o in ks.outputs)


def kernel_refusal(ks) -> str | None:
    """Why the step cannot call kernel ``ks`` (lowered for fixed shapes), or None. The Python
    runner asks it too: a lone reduction runs as this kernel in both, or in neither (its
    numpy reference sums in another order and gives other bits)."""
    if abi.kernel_kinds(ks) is None:
        return "a scalar operand or a dtype native code lacks"
    for o in ks.outputs:
        if np.dtype(o.dtype) != np.dtype(o.result_dtype) and \
                not np.dtype(o.dtype).kind == np.dtype(o.result_dtype).kind == "f" or \
                o.count and np.dtype(o.dtype).kind != "f":
            return "an output finished after the kernel (a dtype change other than between " \
                   "floats, an integer mean)"
    if any(o.partial_axis is not None for o in ks.outputs):   # folded after, in Python
        return "a whole-array reduction split into partials"
    return None


def hostable(op: Op) -> bool:
    """Whether ``op`` may run in Python between native segments: a primitive with a reference,
    of tensor results, acting on nothing outside the program (a call that fails half-way is
    rerun by the Python runner: a callback would run twice). A random op may: the caller
    restores the generator's state before such a rerun (``executable._runner``)."""
    d = op.opdef
    return (not op.regions and d.ref is not None and not d.has(Trait.EXTERNAL)
            and d not in (CONST, FUSED)
            and all(isinstance(r.type, TensorType) for r in op.results))


_WINDOW_OPS = {C.conv2d: window.conv2d, C.conv2d_backprop_filter: window.conv2d_backprop_filter,
               C.conv2d_backprop_input: window.conv2d_backprop_input,
               C.max_pool2d: window.max_pool2d, C.max_pool2d_grad: window.max_pool2d_grad}
"""The convolution and pooling ops :mod:`.window` emits (host ops where it declines)."""

_LOWERED = frozenset({CONST, reshape, depend, assign, FUSED, matmul, broadcast_to, transpose,
                      getitem, setitem, *_WINDOW_OPS, *nnops.OPS})
"""The ops the step lowers besides lone elementwise and reduction ops (``_Emitter.op``)."""


def unsupported(fn: Function, segments: bool = False) -> str | None:
    """Why ``fn`` surely has no native step (an op the step has no lowering for — with
    ``segments``, one that cannot run in Python between segments either —, control flow, an
    argument that is not a tensor), or None when :func:`build` may succeed — a cheap scan
    before anything is compiled."""
    for a in fn.args:
        if not isinstance(a.type, TensorType) or 0 in a.type.shape:
            return f"argument of type {a.type}"
    native = 0
    for op in fn.body:
        d = op.opdef
        if op.is_terminator:
            break
        if d.has(Trait.EXTERNAL) or d.has(Trait.RANDOM) and not segments:
            return f"{d.name} draws random numbers or acts outside the program"
        if op.regions and d is not FUSED:
            return f"{d.name} has regions: control flow has no static plan"
        if d in _LOWERED or d.kind in (Kind.ELEMENTWISE, Kind.REDUCTION):
            native += d not in (CONST, reshape, depend)
        elif not (segments and hostable(op)):
            return f"{d.name} has no native lowering in the step"
    return None if native else "no op would run natively"


def _view_of(op: Op) -> int | None:
    """The operand whose buffer ``op``'s result is (a reshape of C-ordered memory, ``depend``'s
    value, ``assign``'s new value when only the assign holds it and a kernel wrote it, a
    ``broadcast_to`` its readers' kernels do by index)."""
    if op.opdef in (reshape, depend) or _by_index(op):
        return 0
    if op.opdef is assign:
        value = op.operands[1]
        producer = getattr(value, "op", None)
        if (producer is not None and value.uses == {op: 1} and value.type == op.results[0].type
                and producer.opdef not in (CONST, reshape, depend, assign)):
            return 1
    return None


def _in_place(op: Op, i: int) -> bool:
    """Whether ``op`` may write its result into operand ``i``'s buffer when that dies at ``op``
    (the plan's ``in_place``): a lowered ``setitem``'s ``x`` (:func:`.layout.setitem_in_place`)."""
    return layout.setitem_in_place(op, i, _view_of)


def _by_index(op: Op) -> bool:
    """Whether ``op`` is a ``broadcast_to`` read only by fused groups: their kernels read its
    operand by broadcasting index arithmetic (as the runner's do), so it is never materialised
    (a 1M-element gradient of a global average pool). The plan sees its result as a view of the
    operand, which so lives until the last reader."""
    if op.opdef is not broadcast_to:
        return False
    (x,), (r,) = op.operands, op.results
    return (not isinstance(x, Literal) and isinstance(x.type, TensorType)
            and x.type.dtype == r.type.dtype and bool(r.uses)
            and all(u.opdef is FUSED and u.parent is op.parent for u in r.uses))


def _broadcast_source(v: Value):
    """The operand of the ``broadcast_to`` defining ``v`` when its readers broadcast it by
    index (:func:`_by_index`), else None."""
    producer = getattr(v, "op", None)
    return producer.operands[0] if producer is not None and _by_index(producer) else None


class _Emitter:
    def __init__(self, fn: Function, plan, code, host=None, into=None):
        import llvmlite.ir as ir
        self.ir, self.fn, self.plan, self.code, self.host = ir, fn, plan, code, host
        self.into = into or {}   # value -> the argument it is written into (donate.py)
        position = {op: n for n, op in enumerate(fn.body)}
        self.first_write = min((position[v.op] for v in self.into if v.op in position),
                               default=len(position))
        self.at = 0   # the index of the op being emitted
        self.ptr, self.i8, self.i32, self.i64 = ir.PointerType(), ir.IntType(8), ir.IntType(32), \
            ir.IntType(64)
        self.keep: list = []   # what the code points at: the arena, constants, linked kernels
        self.arena = _aligned_bytes(plan.size)
        self.keep.append(self.arena)
        self.escaping = [v for v in _ordered(fn, plan.escaping) if plan.root.get(v, v) is v]
        self.out_index = {v: j for j, v in enumerate(self.escaping)}
        self.arg_index = {a: i for i, a in enumerate(fn.args)}
        self.host_slot: dict[Value, int] = {}   # a host op's result -> its slot in the host table
        self.const_address: dict[Value, int] = {}
        self.parts: list = []      # each native segment's index, or HostOps
        self.starts: list = []     # each native segment's first block
        self.data: dict[Value, object] = {}   # root -> its data pointer in the segment's code
        self.consts: dict[Value, np.ndarray] = {}
        self.columns: dict = {}    # (value, window) -> its im2col scratch's address (window.py)
        self.shared, self.scratch_used = None, 0   # the ops' scratch buffer (:meth:`scratch`)
        self.n_ops = 0
        # one function for every segment: int32 step(i64 segment, args..., outs..., hosts),
        # whose entry jumps to the segment asked for (one module to compile and link)
        n = len(fn.args) + len(self.escaping) + 1
        self.module = ir.Module(f"step_{fn.name}")
        self.symbol = f"graphcell_kernel_step{next(_IDS)}_{id(self):x}"
        self.entry = ir.Function(self.module,
                                 ir.FunctionType(self.i32, [self.i64] + [self.ptr] * n),
                                 self.symbol)
        self.which, self.objects = self.entry.args[0], self.entry.args[1:]
        self.dispatch = self.entry.append_basic_block("dispatch")
        self.segment()

    def segment(self) -> None:
        """Start a native segment: the code from a new block of the step function on; it
        reads every data pointer afresh (another segment's are not in scope)."""
        block = self.entry.append_basic_block(f"segment{len(self.starts)}")
        self.b = self.ir.IRBuilder(block)
        self.data = {}
        self.parts.append(len(self.starts))
        self.starts.append(block)

    def end_segment(self) -> None:
        """Return OK from the current segment; one that does nothing (but the first, which
        checks the arguments) is not called."""
        block = self.starts[-1]
        if len(self.starts) > 1 and self.b.block is block and not block.instructions:
            self.parts.pop()
        self.b.ret(self.i32(abi.OK))

    # -- the whole function --
    def run(self) -> NativeStep:
        layout = abi.array_layout()
        if layout is None:
            raise Unsupported("numpy's array struct is not the expected one")
        self.layout = layout
        self.guard(layout)
        host_ops, reasons = [], []
        for self.at, op in enumerate(self.fn.body):
            if op.is_terminator:
                break
            if isinstance(self.parts[-1], HostOps):
                self.segment()
            n_ops = self.n_ops
            self.scratch_used = 0   # what the op asks for starts at the shared scratch's start
            try:
                self.op(op)
            except Unsupported as e:
                if self.host is None or not hostable(op):
                    raise
                self.n_ops = n_ops
                self.host_op(op)
                host_ops.append(op.opdef.name)
                reasons.append(str(e))
        if not self.n_ops:
            raise Unsupported(f"no op runs natively (in Python: {'; '.join(reasons)})")
        if not isinstance(self.parts[-1], HostOps):
            self.end_segment()
        d = self.ir.IRBuilder(self.dispatch)
        switch = d.switch(self.which, self.starts[0])
        for k, block in enumerate(self.starts):
            switch.add_case(self.i64(k), block)
        text = str(self.module)
        cfunc = self.link(text)
        outputs = [None if v in self.host_slot else (v.type.shape, v.type.dtype.np_dtype)
                   for v in self.escaping]
        results = [self.result(v) for v in self.fn.body.terminator.operands]
        return NativeStep(cfunc, self.parts, outputs, results, self.keep, self.n_ops, text,
                          n_hosts=len(self.host_slot), host_ops=tuple(host_ops))

    def link(self, text: str):
        """The step's LLVM IR compiled (on a compile lane, while its callees may still
        compile), linked against its callees once they are (``code.bind()``: CalleeFailed
        when one failed), as a ctypes function."""
        from graphcell_ir.backend.native.linking import linker
        compiling = self.code.step_object(text)   # on a compile lane, while the callees are
        release(self.module)   # its cycles freed now, not by the collector after the compile
        callees = self.code.bind()
        data = compiling.result()
        try:
            tracker = linker().link_code(data, [self.symbol], imports=callees)
            address = tracker[self.symbol]
        except RuntimeError as e:
            raise Unsupported(f"the step did not link: {e}") from None
        self.keep.append(tracker)
        return ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64,
                                *[ctypes.py_object] * len(self.objects))(address)

    def guard(self, layout) -> None:
        """Check every argument (rank, dimensions, dtype, C order): the first segment returns
        MISMATCH, having run nothing, when one is not what the step was compiled for. One call
        of the module's :meth:`shape_check` per argument: inline, the checks were a third of
        ResNet-18's step module (4,000 of 12,500 lines of IR to build, print, parse and emit)."""
        b, i1, i32 = self.b, self.ir.IntType(1), self.i32
        shapes = [a.type.shape for a in self.fn.args]
        starts = np.cumsum([0] + [len(s) for s in shapes])
        dims = np.array([d for s in shapes for d in s] or [0], np.int64)
        self.keep.append(dims)
        check = self.shape_check(layout)
        ok = i1(1)
        for arg, a, at in zip(self.objects, self.fn.args, starts):
            want = self.address(dims.ctypes.data + 8 * int(at))
            ok = b.and_(ok, b.call(check, [arg, i32(a.type.ndim),
                                           i32(a.type.dtype.np_dtype.num), want]))
        body = self.entry.append_basic_block("body")
        bad = self.entry.append_basic_block("mismatch")
        b.cbranch(ok, body, bad)
        b.position_at_end(bad)
        b.ret(i32(abi.MISMATCH))
        b.position_at_end(body)
        check_apart(self, layout, bad)

    def branch_unless(self, cond, bad) -> None:
        """Go on if ``cond``, else to block ``bad``."""
        good = self.entry.append_basic_block("ok")
        self.b.cbranch(cond, good, bad)
        self.b.position_at_end(good)

    def shape_check(self, layout):
        """The module's ``i1 gc.step.shape_check(ptr array, i32 ndim, i32 type_num, ptr dims)``:
        ``abi.array_check`` (rank, dtype, C order), then the array's ``ndim`` dimensions against
        the ``dims`` expected (read only when the rank is right)."""
        ir, i1, i32, i64, ptr = self.ir, self.ir.IntType(1), self.i32, self.i64, self.ptr
        fn = ir.Function(self.module, ir.FunctionType(i1, [ptr, i32, i32, ptr]),
                         "gc.step.shape_check")
        fn.linkage = "internal"
        array, ndim, type_num, want = fn.args
        entry = fn.append_basic_block("entry")
        head, body, same, fail = (fn.append_basic_block(n)
                                  for n in ("head", "body", "same", "fail"))
        b = ir.IRBuilder(entry)
        dims = b.load(b.gep(array, [i64(layout.dims)], source_etype=self.i8), typ=ptr)
        b.cbranch(b.call(abi.array_check(self.module, layout), [array, ndim, type_num]), head,
                  fail)
        b.position_at_end(head)
        j = b.phi(i64)
        j.add_incoming(i64(0), entry)
        b.cbranch(b.icmp_signed("<", j, b.sext(ndim, i64)), body, same)
        b.position_at_end(body)
        got = b.load(b.gep(dims, [j], source_etype=i64), typ=i64)
        expected = b.load(b.gep(want, [j], source_etype=i64), typ=i64)
        j.add_incoming(b.add(j, i64(1)), body)
        b.cbranch(b.icmp_signed("==", got, expected), head, fail)
        b.position_at_end(same)
        b.ret(i1(1))
        b.position_at_end(fail)
        b.ret(i1(0))
        return fn

    def field(self, base, offset: int, typ):
        b = self.b
        return b.load(b.gep(base, [self.i64(offset)], source_etype=self.i8), typ=typ)

    def result(self, v: Value):
        """How to pick returned value ``v`` from the arguments and the new arrays."""
        if isinstance(v, Literal):
            raise Unsupported("a literal result")
        root, shape = self.plan.root.get(v, v), v.type.shape
        if root in self.out_index:
            j = self.out_index[root]
            return (lambda args, outs: outs[j]) if root.type.shape == shape else \
                (lambda args, outs: outs[j].reshape(shape))
        if root in self.consts:
            view = self.consts[root].reshape(shape).view()
            view.setflags(write=False)
            return lambda args, outs: view
        i = self.fn.args.index(root)
        return (lambda args, outs: args[i]) if root.type.shape == shape else \
            (lambda args, outs: args[i].reshape(shape))

    # -- pointers --
    def pointer(self, v: Value):
        """``v``'s data pointer in the current segment: read from its numpy object (an
        argument, a new array, a host op's result in the host table) once per segment, where
        first asked (the emitted code is straight-line: that point dominates every later use);
        a constant's or an arena buffer's address."""
        root = self.plan.root.get(v, v)
        if root in self.data:
            return self.data[root]
        layout, n_args = self.layout, len(self.fn.args)
        if root in self.arg_index or root in self.out_index:
            at = self.arg_index[root] if root in self.arg_index else \
                n_args + self.out_index[root]
            self.data[root] = self.field(self.objects[at], layout.data, self.ptr)
            return self.data[root]
        if root in self.host_slot:
            table = self.field(self.objects[-1], layout.data, self.ptr)
            obj = self.b.load(self.b.gep(table, [self.i64(self.host_slot[root])],
                                         source_etype=self.ptr), typ=self.ptr)
            self.data[root] = self.field(obj, layout.data, self.ptr)
            return self.data[root]
        if root in self.const_address:
            return self.address(self.const_address[root])
        if root in self.plan.offset or v in self.plan.offset:
            offset = self.plan.offset.get(root, self.plan.offset.get(v))
            return self.address(self.arena.ctypes.data + offset)
        raise Unsupported(f"no buffer for a value of type {v.type}")   # a bug of the plan

    def address(self, address: int):
        """A fixed address as a pointer: a constant expression, not an instruction (ResNet-18's
        step had ~1,300 of them to build, print, parse and select)."""
        return self.i64(address).inttoptr(self.ptr)

    def callee(self, symbol: str, ftype):
        """The function ``symbol`` of ``code`` (a kernel's or loop's entry), declared in the
        step's module: its link binds it to the address (:meth:`link`)."""
        fn = self.module.globals.get(symbol)
        return fn if fn is not None else self.ir.Function(self.module, ftype, symbol)

    # -- ops run in Python between segments --
    def host_op(self, op: Op) -> None:
        """Run ``op`` in Python (``self.host(op)``) between native segments: end the current
        segment (or add to the Python ops already between two), and have the next read its
        results from the host table (or the new arrays, when returned)."""
        self.may_decline()
        if not isinstance(self.parts[-1], HostOps):
            self.end_segment()   # (an empty one is dropped: the Python ops before go on)
        if not isinstance(self.parts[-1], HostOps):
            self.parts.append(HostOps())
        hosts = self.parts[-1]
        getters = [self.getter(v) for v in op.operands]
        setters = []
        for r in op.results:
            if self.plan.root.get(r, r) is not r:   # a view's result: never a host op's
                raise Unsupported(f"{op.opdef.name}: a result sharing another's buffer")
            shape, dtype = r.type.shape, r.type.dtype.np_dtype
            if r in self.out_index:
                setters.append(_setter(shape, dtype, self.arena, outs=self.out_index[r]))
            else:
                self.host_slot[r] = len(self.host_slot)
                setters.append(_setter(shape, dtype, self.arena, hosts=self.host_slot[r]))
            if r in self.out_index:
                self.host_slot[r] = None   # returned: written to the new arrays' list
        hosts.ops.append((self.host(op), getters, setters))
        hosts.names.append(op.opdef.name)

    def getter(self, v: Value):
        """``(args, outs, hosts) -> v's array`` (a literal's value) for a host op's operand."""
        if isinstance(v, Literal):
            value = v.value
            return lambda args, outs, hosts: value
        root, shape = self.plan.root.get(v, v), v.type.shape
        if root in self.host_slot and self.host_slot[root] is not None:
            k = self.host_slot[root]
            return (lambda args, outs, hosts: hosts[k]) if root.type.shape == shape else \
                (lambda args, outs, hosts: hosts[k].reshape(shape))
        if root in self.out_index:
            j = self.out_index[root]
            return (lambda args, outs, hosts: outs[j]) if root.type.shape == shape else \
                (lambda args, outs, hosts: outs[j].reshape(shape))
        if root in self.arg_index:
            i = self.arg_index[root]
            return (lambda args, outs, hosts: args[i]) if root.type.shape == shape else \
                (lambda args, outs, hosts: args[i].reshape(shape))
        if root in self.consts:
            view = self.consts[root].reshape(shape).view()
        else:
            offset = self.plan.offset[root]
            view = self.arena[offset:offset + nbytes(v)].view(v.type.dtype.np_dtype) \
                .reshape(shape)
        view.setflags(write=False)
        return lambda args, outs, hosts: view

    # -- ops --
    def op(self, op: Op) -> None:
        d = op.opdef
        if d.has(Trait.RANDOM) or d.has(Trait.EXTERNAL):
            raise Unsupported(f"{d.name} draws random numbers or acts outside the program")
        if d is CONST:
            arr = const_array(op)
            if arr is None:
                raise Unsupported(f"constant {op.attrs.get('ref')} is not loaded")
            arr = np.ascontiguousarray(arr)
            self.keep.append(arr)
            self.consts[op.results[0]] = arr
            self.const_address[op.results[0]] = arr.ctypes.data if arr.size else 0
            return
        self.n_ops += 1
        if d in (reshape, depend):
            return   # the plan gave the result its operand's buffer
        if d is assign:
            value, (r,) = op.operands[1], op.results
            if isinstance(value, Literal) or value.type != r.type:
                raise Unsupported(f"assign of a {getattr(value, 'type', value)} value to a "
                                  f"{r.type} variable (a conversion)")
            if not self.plan.shares(r, value):
                self.copy(value, r)
            return
        if d is FUSED:
            return self.fused(op)
        if d is matmul:
            return self.gemm(op)
        if d is transpose:
            return self.transpose(op)
        if d in (getitem, setitem):
            return layout.indexing(self, op)
        if d in _WINDOW_OPS:
            return _WINDOW_OPS[d](self, op)
        if d in nnops.OPS:
            return nnops.OPS[d](self, op)
        if d is broadcast_to:
            if _by_index(op):
                return   # its readers' kernels broadcast the operand
            return self.broadcast(op)
        if d is fill and layout.written_over(self.plan, op.results[0]):
            return   # setitems into its buffer write every element before anything reads it
        if d.kind in (Kind.ELEMENTWISE, Kind.REDUCTION) and not op.regions:
            return self.kernel(op, lower_single(op, inline_literals=True,
                                                    literal_operands=True))
        raise Unsupported(f"{d.name} has no native lowering in the step")

    def fused(self, op: Op) -> None:
        """A fused group's kernel, reading the operands of the ``broadcast_to`` ops it is fed
        by index (:func:`_by_index`); a group that cannot do so gets them materialised into
        scratch arrays of the step's first."""
        sources = {i: _broadcast_source(v) for i, v in enumerate(op.operands)}
        sources = {i: x for i, x in sources.items() if x is not None}
        # results written into an operand's own buffer (an update in place): the kernel
        # stores them through that operand, and skips what leaves it as it was
        in_place = {j: i for j, r in enumerate(op.results) if r in self.into
                    for i, v in enumerate(op.operands) if v is self.into[r]}
        if sources:
            try:
                return self.kernel(op, lower_fused(op, {i: x.type.shape
                                                        for i, x in sources.items()},
                                                   literal_operands=True, in_place=in_place))
            except Unsupported:
                pass
        inputs = {}
        for i, x in sources.items():
            v = op.operands[i]
            scratch = memory.empty(v.type.shape, v.type.dtype.np_dtype)
            self.keep.append(scratch)
            inputs[i] = self.address(scratch.ctypes.data)
            self.broadcast_into(x, v, inputs[i])
        return self.kernel(op, lower_fused(op, literal_operands=True, in_place=in_place),
                           inputs)

    def kernel(self, op: Op, ks, inputs: dict | None = None) -> None:
        """Call the kernel's pointer entry (fixed shapes): operands (``inputs``: operand index
        -> a pointer in place of the operand's buffer), constants, outputs."""
        why = kernel_refusal(ks)
        if why is not None:
            raise Unsupported(f"{op.opdef.name}: {why}")
        operands = [v for v in op.operands if not isinstance(v, Literal)]   # literals: inline
        # shape-generic (dimensions as arguments): one object for every shape of a source, as
        # the runner's kernels, so a cold compile compiles no more of them
        tracker, symbol = self.code.kernel(ks, optimize=not unoptimized(ks))
        shapes = [shape for _, shape in abi.signature(ks, ks.in_dtypes)]
        self.keep.append(tracker)
        written = [self.accumulator(o, r) for o, r in zip(ks.outputs, op.results)]
        for o, w in zip(ks.outputs, written):
            if o.fill is not None:
                self.fill_at(w, o.fill, np.dtype(o.dtype), int(np.prod(o.shape)))
        args = [(inputs or {}).get(i) or self.pointer(v) for i, v in enumerate(operands)]
        for c in ks.consts:
            c = np.ascontiguousarray(c)
            self.keep.append(c)
            args.append(self.address(c.ctypes.data))
        args += written
        args = [a for p, shape in zip(args, shapes) for a in [p, *map(self.i64, shape)]]
        null = self.ir.Constant(self.ptr, None)
        ftype = self.ir.FunctionType(self.i32, [a.type for a in [null, null, *args]])
        status = self.b.call(self.callee(symbol, ftype), [null, null, *args])
        self.fail_unless_ok(status)
        for o, r, w in zip(ks.outputs, op.results, written):
            if o.count or np.dtype(o.dtype) != np.dtype(o.result_dtype):
                self.finish(w, np.dtype(o.dtype), r, o.count)

    def accumulator(self, o, r: Value):
        """Where the kernel writes output ``o`` of result ``r``: the result's buffer, or a
        scratch array of the step's when the output is finished after (as ``Kernel`` does:
        a mean's division, a float64 sum rounded to the result's dtype)."""
        if not o.count and np.dtype(o.dtype) == np.dtype(o.result_dtype):
            return self.pointer(r)
        scratch = memory.empty(o.shape, o.dtype)
        self.keep.append(scratch)
        return self.address(scratch.ctypes.data)

    def finish(self, acc, acc_dtype: np.dtype, r: Value, count: int) -> None:
        """r = (acc / count).astype(r's dtype), element by element (``kernels._finish``)."""
        src_t = self.element_type(acc_dtype)
        dst_t = self.element_type(r.type.dtype.np_dtype)
        dst, b = self.pointer(r), self.b

        def one(i):
            v = b.load(b.gep(acc, [i], source_etype=src_t), typ=src_t)
            if count:
                v = b.fdiv(v, src_t(float(count)))
            if src_t != dst_t:
                v = b.fptrunc(v, dst_t) if acc_dtype.itemsize > r.type.dtype.np_dtype.itemsize \
                    else b.fpext(v, dst_t)
            b.store(v, b.gep(dst, [i], source_etype=dst_t))
        self.loop(r.type.size, one)

    def may_decline(self) -> None:
        """The op being emitted may decline the call (it runs in Python, or checks labels):
        no update may have been written in place before it (the caller would rerun the call
        from the updated values), so the step is planned again with fewer in place."""
        if self.at >= self.first_write:
            raise _DeclinesAfterWrite(self.at)

    def fail_unless_ok(self, status) -> None:
        """Return ``status`` from the step unless a kernel or loop ran (the code generator's
        entries always say so; numba's, in old artifacts, answer "returned None")."""
        b = self.b
        bad = self.entry.append_basic_block("failed")
        good = self.entry.append_basic_block("next")
        ran = b.or_(b.icmp_signed("==", status, self.i32(abi.OK)),
                    b.icmp_signed("==", status, self.i32(abi.NUMBA_NONE)))
        b.cbranch(ran, good, bad)
        b.position_at_end(bad)
        b.ret(status)
        b.position_at_end(good)

    def gemm(self, op: Op) -> None:
        x, y = op.operands
        (r,) = op.results
        dtype = r.type.dtype.np_dtype
        if x.type.ndim == y.type.ndim == r.type.ndim > 2 and \
                x.type.shape[:-2] == y.type.shape[:-2] == r.type.shape[:-2]:
            return self.batched_gemm(op)
        if not (x.type.ndim == y.type.ndim == 2 and x.type.dtype == y.type.dtype == r.type.dtype):
            raise Unsupported("matmul of other than two matrices, or stacks of them with the "
                              "same batch dimensions, of one dtype")
        if blas.gemm(dtype.name) is None:
            raise Unsupported(f"no BLAS GEMM for {dtype}")
        ta, tb = bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b"))
        m, n = r.type.shape
        k = x.type.shape[0] if ta else x.type.shape[1]
        if 0 in (m, n, k):
            raise Unsupported("matmul with an empty dimension")
        self.gemm_on(dtype, ta, tb, m, n, k, self.pointer(x), x.type.shape[1], self.pointer(y),
                     y.type.shape[1], self.pointer(r), same=self.plan.shares(x, y))

    def gemm_on(self, dtype, ta: bool, tb: bool, m: int, n: int, k: int, a, lda: int, b,
                ldb: int, c, same: bool = False) -> None:
        """``c (m, n) = op(a) @ op(b)`` on pointers (``lda``/``ldb``: the row lengths of the
        untransposed operands; ``same``: ``a`` and ``b`` are one buffer), split as
        ``nnkernels.matmul`` splits it, each block the routine numpy's ``matmul`` takes for it
        (:mod:`.route`): the runner's bits."""
        item = dtype.itemsize
        count, by_rows = _gemm_blocks(m, n, k)
        if count == 1:
            call_gemm(self, self.b, dtype, ta, tb, m, n, k, a, lda, b, ldb, c, n, same=same)
            return
        extent = m if by_rows else n
        shapes = {(size, n) if by_rows else (m, size)
                  for size in (extent // count, -(-extent // count))}
        kinds = {route.choose(bm, k, bn, route.strides(lda, ta), route.strides(ldb, tb),
                              (n, 1)).kind for bm, bn in shapes}
        if len(kinds) > 1:   # blocks of 1 and 2 rows, say: numpy would dot one, GEMV the other
            raise Unsupported(f"a {m}x{k}x{n} product in {count} blocks numpy runs "
                              f"differently ({sorted(kinds)})")
        block_shape = max(shapes)
        # the blocks run on the native kernel pool, each a single-threaded BLAS call (the
        # tuner holds OpenBLAS on one thread for the step's call): nnkernels.matmul's policy
        task = Task(self, "gemm", [a, b, c])
        a0, b0, c0 = task.bases
        t, extent = task.t, m if by_rows else n

        def block(blk):
            lo = t.sdiv(t.mul(blk, self.i64(extent)), self.i64(count))
            size = t.sub(t.sdiv(t.mul(t.add(blk, self.i64(1)), self.i64(extent)),
                               self.i64(count)), lo)
            if by_rows:   # rows lo.. of op(A) and of C: rows of A, or its columns if transposed
                task.gemm(dtype, ta, tb, size, n, k, task.at(a0, lo if ta else t.mul(
                    lo, self.i64(lda)), item), lda, b0, ldb, task.at(c0, t.mul(
                        lo, self.i64(n)), item), n, shape=block_shape)
            else:         # columns lo.. of op(B) and of C: columns of B, or its rows if transposed
                task.gemm(dtype, ta, tb, m, size, k, a0, lda, task.at(b0, t.mul(
                    lo, self.i64(ldb)) if tb else lo, item), ldb, task.at(c0, lo, item), n,
                    shape=block_shape)
        task.each(task.first, task.last, block)
        task.run(count, max(m * n * k, native_pool.MIN_WORK))

    def batched_gemm(self, op: Op) -> None:
        """A stack of products with the same batch dimensions (attention's scores): one
        single-threaded GEMM per matrix of the stack (or the routine numpy's ``matmul`` takes
        for its shape: :mod:`.route`), the stack's matrices shared out on the native pool."""
        x, y = op.operands
        (r,) = op.results
        dtype = r.type.dtype.np_dtype
        if x.type.dtype != y.type.dtype or x.type.dtype != r.type.dtype or \
                blas.gemm(dtype.name) is None:
            raise Unsupported(f"batched matmul of {x.type} and {y.type}: no BLAS GEMM")
        ta, tb = bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b"))
        (m, n), (xr, xc), (yr, yc) = r.type.shape[-2:], x.type.shape[-2:], y.type.shape[-2:]
        k = xr if ta else xc
        batch = int(np.prod(r.type.shape[:-2]))
        if 0 in (m, n, k, batch):
            raise Unsupported("matmul with an empty dimension")
        task = Task(self, "bgemm", [self.pointer(x), self.pointer(y), self.pointer(r)])
        item, t, same = dtype.itemsize, task.t, self.plan.shares(x, y)

        def matrix(s):
            xs, ys, rs = (task.at(base, t.mul(s, self.i64(size)), item)
                          for base, size in zip(task.bases, (xr * xc, yr * yc, m * n)))
            call_gemm(self, t, dtype, ta, tb, m, n, k, xs, xc, ys, yc, rs, n, same=same)
        task.each(task.first, task.last, matrix)
        task.run(batch, batch * m * n * k)   # small: serial

    # -- the softmax family and one_hot (the loops of nn_loops.py, and inline loops) --
    def nn_loop(self, name: str, arrays, source: str | None = None) -> None:
        """Call loop ``name`` of ``nn_loops`` (or of ``source``) on ``arrays``: (value, the
        shape it is seen as), or (a pointer, its dtype, its shape), or a Python float/int (a
        float64/int64 scalar argument)."""
        args = []
        for a in arrays:
            if isinstance(a, (int, float)):
                args.append(a)
            elif len(a) == 2:
                args.append((self.pointer(a[0]), a[0].type.dtype.np_dtype, a[1]))
            else:
                args.append(a)
        symbol = self.loop_symbol(name, args, source)
        null = self.ir.Constant(self.ptr, None)
        values = self.loop_args(args)
        ftype = self.ir.FunctionType(self.i32, [a.type for a in [null, null, *values]])
        status = self.b.call(self.callee(symbol, ftype), [null, null, *values])
        self.fail_unless_ok(status)

    def loop_symbol(self, name: str, args, source: str | None = None) -> str:
        """The symbol of loop ``name``'s pointer entry for ``args`` (see :meth:`nn_loop`,
        :meth:`callee`)."""
        from graphcell_ir.backend import loops
        kinds = [("scalar", "float64") if isinstance(a, float) else ("scalar", "int64")
                 if isinstance(a, int) else ("array", np.dtype(a[1]).name, len(a[2]))
                 for a in args]
        tracker, symbol = self.code.loop(source or loops.source(), name, kinds)
        self.keep.append(tracker)
        return symbol

    def loop_args(self, args) -> list:
        out = []
        for a in args:
            if isinstance(a, float):
                out.append(self.ir.DoubleType()(a))
            elif isinstance(a, int):
                out.append(self.i64(a))
            else:
                out += [a[0]] + [d if not isinstance(d, int) else self.i64(d) for d in a[2]]
        return out

    def pooled_loop(self, name: str, args, bases: list, count: int, work: int,
                    blocked) -> None:
        """Run loop ``name`` over blocks ``[first, last)`` of ``range(count)`` on the native
        pool (its own threshold on ``work`` decides whether they run in parallel, as for the
        GEMM blocks): ``blocked(t, first, last, pointers)`` gives a block's arguments (IR values
        of the task's builder ``t``; ``pointers``: ``bases``, read from the task's context),
        ``args`` the kinds it is compiled for (:meth:`nn_loop`'s forms)."""
        task = Task(self, name, bases)
        task.loop(name, args, blocked(task.t, task.first, task.last, task.bases))
        task.run(count, work)

    def parallel_for(self, task, ctx, count: int, work: int) -> None:
        """Call ``task(ctx, lo, hi)`` over ``range(count)`` on the native pool
        (``graphcell_parallel_for``: serially when ``work`` is below its threshold)."""
        ir, i64 = self.ir, self.i64
        pfor = self.callee(self.code.parallel_for(),
                           ir.FunctionType(ir.VoidType(), [self.ptr, self.ptr, i64, i64]))
        self.b.call(pfor, [task, ctx, i64(count), i64(work)])

    def element_type(self, dtype: np.dtype):
        """The LLVM type of an array element of ``dtype``."""
        if dtype.kind == "f":
            return {4: self.ir.FloatType(), 8: self.ir.DoubleType()}[dtype.itemsize]
        return self.ir.IntType(8 * dtype.itemsize)

    def scratch(self, shape: tuple, dtype) -> object:
        """A pointer to a scratch array for the op being emitted, which nothing reads after
        it: every op's scratch starts at the start of one shared buffer (the ops run one after
        another), so a step touches the pages of its largest op's scratch, not of all of them
        (ResNet-18's convolutions and pools: ~170 MB of page faults in the first call, and
        pages cold in the caches in every later one). A request the buffer cannot hold starts
        a bigger one; the op's earlier scratch stays where it is."""
        size = -(-math.prod(shape) * np.dtype(dtype).itemsize // 64) * 64
        if self.shared is None or self.scratch_used + size > self.shared.size:
            self.shared = _aligned_bytes(max(size, 2 * (0 if self.shared is None
                                                        else self.shared.size)))
            self.keep.append(self.shared)
            self.scratch_used = 0
        at = self.shared.ctypes.data + self.scratch_used
        self.scratch_used += size
        return self.address(at)

    def transpose(self, op: Op) -> None:
        """``transpose``: a strided copy (:func:`.layout.transpose_source`), or a plain copy
        when the permutation keeps the order."""
        (x,), (r,) = op.operands, op.results
        n = x.type.ndim
        perm = op.attrs.get("perm")
        perm = tuple(reversed(range(n))) if perm is None else tuple(p % n for p in perm) \
            if n else ()
        if sorted(perm) != list(range(n)) or x.type.dtype != r.type.dtype or \
                x.type.dtype.np_dtype.kind not in "fiu":
            raise Unsupported(f"transpose of {x.type} by {perm}")
        if perm == tuple(range(n)):
            return self.copy(x, r)
        self.nn_loop("transpose", [(x, x.type.shape), (r, r.type.shape)],
                     layout.transpose_source(perm))

    def broadcast(self, op: Op) -> None:
        """``broadcast_to``: each element of the result reads the operand's element at its
        index, with the broadcast axes' index 0 (an inline loop: in a train step it broadcasts
        the loss's sensitivity, a handful of elements; big broadcasts are fused into kernels)."""
        (x,), (r,) = op.operands, op.results
        if isinstance(x, Literal) or x.type.dtype != r.type.dtype:
            raise Unsupported("broadcast_to of a literal or to another dtype")
        self.broadcast_into(x, r, self.pointer(r))

    def broadcast_into(self, x: Value, r: Value, dst) -> None:
        """``dst`` (of ``r``'s type) = ``x`` broadcast to ``r``'s shape."""
        src_shape = (1,) * (r.type.ndim - x.type.ndim) + tuple(x.type.shape)
        typ = self.element_type(r.type.dtype.np_dtype)
        src, b, i64 = self.pointer(x), self.b, self.i64
        out_strides = [int(np.prod(r.type.shape[d + 1:], dtype=np.int64))
                       for d in range(r.type.ndim)]
        in_strides = [int(np.prod(src_shape[d + 1:], dtype=np.int64)) for d in range(r.type.ndim)]

        def element(i):
            at = i64(0)
            for d, n in enumerate(r.type.shape):
                if src_shape[d] != 1:
                    index = b.urem(b.udiv(i, i64(out_strides[d])), i64(n))
                    at = b.add(at, b.mul(index, i64(in_strides[d])))
            value = b.load(b.gep(src, [at], source_etype=typ), typ=typ)
            b.store(value, b.gep(dst, [i], source_etype=typ))
        self.loop(r.type.size, element)

    # -- small loops --
    def loop(self, count: int, body) -> None:
        """``for i in range(count): body(i)``, emitted inline."""
        b, i64 = self.b, self.i64
        head = self.entry.append_basic_block("loop")
        step = self.entry.append_basic_block("loop.body")
        done = self.entry.append_basic_block("loop.end")
        start = b.block
        b.branch(head)
        b.position_at_end(head)
        i = b.phi(i64)
        i.add_incoming(i64(0), start)
        b.cbranch(b.icmp_signed("<", i, i64(count)), step, done)
        b.position_at_end(step)
        body(i)
        i.add_incoming(b.add(i, i64(1)), b.block)
        b.branch(head)
        b.position_at_end(done)

    def constant(self, typ, value):
        return typ(float(value)) if isinstance(typ, (self.ir.FloatType, self.ir.DoubleType)) \
            else typ(int(value))

    def fill(self, v: Value, value) -> None:
        self.fill_at(self.pointer(v), value, v.type.dtype.np_dtype, v.type.size)

    def fill_at(self, base, value, dtype: np.dtype, count: int) -> None:
        typ = self.element_type(dtype)
        const = self.constant(typ, value)
        self.loop(count, lambda i: self.b.store(const, self.b.gep(base, [i], source_etype=typ)))

    def zero(self, base, size: int) -> None:
        """``size`` bytes at ``base`` = 0, by LLVM's memset."""
        memset = self.module.declare_intrinsic("llvm.memset", [self.ptr, self.i64])
        self.b.call(memset, [base, self.i8(0), self.i64(size), self.ir.IntType(1)(0)])

    def copy(self, src: Value, dst: Value) -> None:
        """dst = src, by LLVM's memcpy (the step is not optimised: a loop would stay a loop)."""
        memcpy = self.module.declare_intrinsic("llvm.memcpy", [self.ptr, self.ptr, self.i64])
        self.b.call(memcpy, [self.pointer(dst), self.pointer(src),
                             self.i64(src.type.size * src.type.dtype.np_dtype.itemsize),
                             self.ir.IntType(1)(0)])


def _setter(shape: tuple, dtype: np.dtype, arena: np.ndarray, outs: int | None = None,
            hosts: int | None = None):
    """``(outs, hosts, array) -> None``: a host op's result, as a C-ordered array of its type,
    into the new arrays' list (a returned value) or the host table. A view of the arena (a
    reference returning a view of its operand: squeeze) is copied: the plan reuses a dead
    operand's bytes while the result lives on, and the caller must never hold arena bytes."""
    def conform(res):
        res = np.asarray(res, dtype)
        if not res.flags.c_contiguous or (not res.flags.owndata
                                          and np.may_share_memory(res, arena)):
            res = np.array(res, order="C")
        return res if res.shape == shape else res.reshape(shape)
    if outs is not None:
        def put(o, h, res):
            o[outs] = conform(res)
    else:
        def put(o, h, res):
            h[hosts] = conform(res)
    return put


def _gemm_blocks(m: int, n: int, k: int) -> tuple[int, bool]:
    """``nnkernels.gemm_blocks`` (the runner's split), or one block when
    ``GRAPHCELL_BLAS_THREADS=0`` leaves BLAS alone."""
    from graphcell_ir.backend import nnkernels
    if switches.number("GRAPHCELL_BLAS_THREADS") == 0:
        return 1, True
    return nnkernels.gemm_blocks(m, n, k)


def _aligned_bytes(size: int) -> np.ndarray:
    """``size`` bytes starting at a multiple of 64 (the plan's offsets keep that alignment)."""
    raw = memory.empty((size + 64,), np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + size]


def _ordered(fn: Function, values) -> list:
    """``values`` in program order (the new arrays' order is the step's argument order)."""
    values, out = set(values), []
    for op in fn.body:
        out += [r for r in op.results if r in values]
    return out

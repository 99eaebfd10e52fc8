"""The native step: a whole fixed-shape function as one call into machine code.

``build(fn)`` plans the function's buffers (:mod:`.plan`), then emits with llvmlite one function
that receives the arguments and the fresh output arrays (numpy objects: it reads their data
pointers, and checks each argument's rank, dimensions, dtype and C order, answering
:data:`~graphcell_ir.backend.native.abi.MISMATCH` without running otherwise) and calls, in
program order, through their addresses:

- each fused group's and lone elementwise/reduction op's kernel, by its pointer entry
  (``native/abi.py``: data pointers only, the shapes are constants of its code), after filling
  a reduction's accumulator;
- BLAS's GEMM for ``matmul`` (:mod:`.blas`; transposes are flags);
- a copy loop for an ``assign`` whose value others still hold.

Intermediates live in one arena the step owns (allocated once); returned values are written
straight into new arrays, so the caller never holds memory the next call overwrites. A function
with anything else (control flow, random or external ops, an op with no native lowering here)
has no native step: :class:`~graphcell_ir.backend.lower.Unsupported` says which op, and the
executable keeps its Python runner. Example::

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
import threading

import numpy as np

from graphcell_ir import switches
from graphcell_ir.backend import codegen, objects
from graphcell_ir.backend.lower import Unsupported, lower_fused, lower_single
from graphcell_ir.backend.native import abi
from graphcell_ir.backend.native import pool as native_pool
from graphcell_ir.backend.native.store import NativeObject
from graphcell_ir.backend.native.target import host_target
from graphcell_ir.backend.step import blas
from graphcell_ir.backend.step.code import ProcessCode
from graphcell_ir.backend.step.plan import PlanError, plan_function
from graphcell_ir.ir.core import Function, Literal, Op, Value
from graphcell_ir.ir.structural import CONST, FUSED, const_array
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops import nn as N
from graphcell_ir.ops.contraction import matmul
from graphcell_ir.ops.effects import assign, depend
from graphcell_ir.ops.layout import broadcast_to, reshape
from graphcell_ir.ops.registry import Kind, Trait

__all__ = ["build", "NativeStep"]

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112   # CBLAS's enums
BAD_LABEL = 1
"""What the step returns, having written nothing the caller sees, for a label out of range: the
Python runner then runs the call and the reference raises its error."""
_IDS = itertools.count()


class NativeStep:
    """A linked native step: ``step(args)`` -> the function's results, or None when an
    argument is not what it was compiled for (the caller then runs its other runner). Its
    arena is one per step: calls from several threads take turns (the native call releases the
    GIL, so other work goes on meanwhile)."""

    def __init__(self, cfunc, outputs, results, keep, n_ops: int, text: str = ""):
        self.cfunc, self.outputs, self.results, self.keep = cfunc, outputs, results, keep
        self.n_ops = n_ops    # the ops it runs (what a report says)
        self.text = text      # its LLVM IR (save_graphs dumps it)
        self.lock = threading.Lock()

    def __call__(self, args):
        for a in args:
            if a.__class__ is not np.ndarray:
                return None
        outs = [np.empty(shape, dtype) for shape, dtype in self.outputs]
        with self.lock:
            if self.cfunc(*args, *outs):
                return None
        return [pick(args, outs) for pick in self.results]

    def __repr__(self) -> str:
        return f"<NativeStep: {self.n_ops} ops, {len(self.outputs)} new arrays>"


def build(fn: Function, code=None) -> NativeStep:
    """The native step of ``fn`` (see the module docstring); Unsupported says why there is none.
    ``code``: where the kernels and loops it calls come from (:mod:`.code`; by default emitted
    and linked here, ``code.ProcessCode``)."""
    why = objects.usable()
    if why is not None or not codegen.available():
        raise Unsupported(why or "this llvmlite cannot run the code generator")
    for a in fn.args:
        if not isinstance(a.type, TensorType) or 0 in a.type.shape:
            raise Unsupported(f"argument of type {a.type}")
    try:
        plan = plan_function(fn, views=_view_of)
    except PlanError as e:
        raise Unsupported(str(e)) from None
    return _Emitter(fn, plan, code or ProcessCode()).run()


_LOWERED = frozenset({CONST, reshape, depend, assign, FUSED, matmul, N.softmax,
                      N.sparse_softmax_cross_entropy, N.one_hot, broadcast_to})
"""The ops the step lowers besides lone elementwise and reduction ops (``_Emitter.op``)."""


def unsupported(fn: Function) -> str | None:
    """Why ``fn`` surely has no native step (an op the step has no lowering for, control flow,
    an argument that is not a tensor), or None when :func:`build` may succeed — a cheap scan
    before anything is compiled."""
    for a in fn.args:
        if not isinstance(a.type, TensorType) or 0 in a.type.shape:
            return f"argument of type {a.type}"
    for op in fn.body:
        d = op.opdef
        if op.is_terminator:
            break
        if d.has(Trait.RANDOM) or d.has(Trait.EXTERNAL):
            return f"{d.name} draws random numbers or acts outside the program"
        if op.regions and d is not FUSED:
            return f"{d.name} has regions: control flow has no static plan"
        if d not in _LOWERED and d.kind not in (Kind.ELEMENTWISE, Kind.REDUCTION):
            return f"{d.name} has no native lowering in the step"
    return None


def _view_of(op: Op) -> int | None:
    """The operand whose buffer ``op``'s result is (a reshape of C-ordered memory, ``depend``'s
    value, ``assign``'s new value when only the assign holds it and a kernel wrote it)."""
    if op.opdef in (reshape, depend):
        return 0
    if op.opdef is assign:
        value = op.operands[1]
        producer = getattr(value, "op", None)
        if (producer is not None and value.uses == {op: 1} and value.type == op.results[0].type
                and producer.opdef not in (CONST, reshape, depend, assign)):
            return 1
    return None


class _Emitter:
    def __init__(self, fn: Function, plan, code):
        import llvmlite.ir as ir
        self.ir, self.fn, self.plan, self.code = ir, fn, plan, code
        self.ptr, self.i8, self.i32, self.i64 = ir.PointerType(), ir.IntType(8), ir.IntType(32), \
            ir.IntType(64)
        self.keep: list = []   # what the code points at: the arena, constants, linked kernels
        self.arena = _aligned_bytes(plan.size)
        self.keep.append(self.arena)
        self.escaping = [v for v in _ordered(fn, plan.escaping) if plan.root.get(v, v) is v]
        self.out_index = {v: j for j, v in enumerate(self.escaping)}
        self.module = ir.Module(f"step_{fn.name}")
        self.symbol = f"graphcell_kernel_step{next(_IDS)}_{id(self):x}"
        n = len(fn.args) + len(self.escaping)
        self.entry = ir.Function(self.module, ir.FunctionType(self.i32, [self.ptr] * n),
                                 self.symbol)
        self.b = ir.IRBuilder(self.entry.append_basic_block("entry"))
        self.data: dict[Value, object] = {}   # root -> its data pointer in the code
        self.consts: dict[Value, np.ndarray] = {}
        self.n_ops = 0

    # -- the whole function --
    def run(self) -> NativeStep:
        from graphcell_ir.backend.native.linking import linker
        layout = abi.array_layout()
        if layout is None:
            raise Unsupported("numpy's array struct is not the expected one")
        self.guard(layout)
        for op in self.fn.body:
            if op.is_terminator:
                break
            self.op(op)
        self.b.ret(self.i32(abi.OK))
        text = str(self.module)
        # LLVM's fast instruction selection (level 0): a sixth of the code generator's time on
        # this straight-line code, the same step time (MLP64B1, MLP256: within noise)
        data, needs = codegen.object_code(text, host_target(), optimize=False, level=0)
        obj = NativeObject("step", self.symbol[len("graphcell_kernel_"):], (), data,
                           host_target(), needs)
        try:
            tracker, address = linker().link_one(obj)
        except RuntimeError as e:
            raise Unsupported(f"the step did not link: {e}") from None
        self.keep.append(tracker)
        cfunc = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.py_object] * len(self.entry.args))(
            address)
        outputs = [(v.type.shape, v.type.dtype.np_dtype) for v in self.escaping]
        results = [self.result(v) for v in self.fn.body.terminator.operands]
        return NativeStep(cfunc, outputs, results, self.keep, self.n_ops, text)

    def guard(self, layout) -> None:
        """Check every argument (rank, dimensions, dtype, C order) and read the data pointers
        of the arguments and of the new output arrays."""
        b, i1, i32, i64 = self.b, self.ir.IntType(1), self.i32, self.i64

        def field(base, offset: int, typ):
            return b.load(b.gep(base, [i64(offset)], source_etype=self.i8), typ=typ)

        ok = i1(1)
        for arg, a in zip(self.entry.args, self.fn.args):
            t = a.type
            ok = b.and_(ok, b.icmp_signed("==", field(arg, layout.nd, i32), i32(t.ndim)))
            flags = field(arg, layout.flags, i32)
            ok = b.and_(ok, b.icmp_unsigned("!=", b.and_(flags, i32(1)), i32(0)))
            type_num = field(field(arg, layout.descr, self.ptr), layout.type_num, i32)
            ok = b.and_(ok, b.icmp_signed("==", type_num, i32(t.dtype.np_dtype.num)))
        run = self.entry.append_basic_block("shapes")
        bad = self.entry.append_basic_block("mismatch")
        b.cbranch(ok, run, bad)   # the ranks are right: the dimensions can be read
        b.position_at_end(bad)
        b.ret(i32(abi.MISMATCH))
        b.position_at_end(run)
        ok = i1(1)
        for arg, a in zip(self.entry.args, self.fn.args):
            dims = field(arg, layout.dims, self.ptr)
            for j, d in enumerate(a.type.shape):
                got = b.load(b.gep(dims, [i64(j)], source_etype=i64), typ=i64)
                ok = b.and_(ok, b.icmp_signed("==", got, i64(d)))
        body = self.entry.append_basic_block("body")
        b.cbranch(ok, body, bad)
        b.position_at_end(body)
        n = len(self.fn.args)
        for arg, a in zip(self.entry.args, self.fn.args):
            self.data[a] = field(arg, layout.data, self.ptr)
        for j, v in enumerate(self.escaping):
            self.data[v] = field(self.entry.args[n + j], layout.data, self.ptr)

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
        root = self.plan.root.get(v, v)
        if root in self.data:
            return self.data[root]
        if root in self.plan.offset or v in self.plan.offset:
            offset = self.plan.offset.get(root, self.plan.offset.get(v))
            return self.address(self.arena.ctypes.data + offset)
        raise Unsupported(f"no buffer for a value of type {v.type}")   # a bug of the plan

    def address(self, address: int):
        return self.b.inttoptr(self.i64(address), self.ptr)

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
            self.data[op.results[0]] = self.address(arr.ctypes.data) if arr.size else \
                self.address(0)
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
            return self.kernel(op, lower_fused(op))
        if d is matmul:
            return self.gemm(op)
        if d is N.softmax:
            return self.softmax(op)
        if d is N.sparse_softmax_cross_entropy:
            return self.sparse_cross_entropy(op)
        if d is N.one_hot:
            return self.one_hot(op)
        if d is broadcast_to:
            return self.broadcast(op)
        if d.kind in (Kind.ELEMENTWISE, Kind.REDUCTION) and not op.regions:
            return self.kernel(op, lower_single(op))
        raise Unsupported(f"{d.name} has no native lowering in the step")

    def kernel(self, op: Op, ks) -> None:
        """Call the kernel's pointer entry (fixed shapes): operands, constants, outputs."""
        if abi.kernel_kinds(ks) is None:
            raise Unsupported(f"{op.opdef.name}: a scalar operand or a dtype native code lacks")
        for o in ks.outputs:
            if np.dtype(o.dtype) != np.dtype(o.result_dtype) and \
                    not np.dtype(o.dtype).kind == np.dtype(o.result_dtype).kind == "f" or \
                    o.count and np.dtype(o.dtype).kind != "f":
                raise Unsupported(f"{op.opdef.name}: an output finished after the kernel "
                                  f"(a dtype change other than between floats, an integer mean)")
        operands = list(op.operands)
        if any(isinstance(v, Literal) for v in operands):
            raise Unsupported(f"{op.opdef.name}: a literal operand")
        tracker, address = self.code.kernel(ks)
        self.keep.append(tracker)
        written = [self.accumulator(o, r) for o, r in zip(ks.outputs, op.results)]
        for o, w in zip(ks.outputs, written):
            if o.fill is not None:
                self.fill_at(w, o.fill, np.dtype(o.dtype), int(np.prod(o.shape)))
        args = [self.pointer(v) for v in operands]
        for c in ks.consts:
            c = np.ascontiguousarray(c)
            self.keep.append(c)
            args.append(self.address(c.ctypes.data))
        args += written
        null = self.ir.Constant(self.ptr, None)
        ftype = self.ir.FunctionType(self.i32, [self.ptr] * (len(args) + 2))
        status = self.b.call(self.b.inttoptr(self.i64(address), self.ir.PointerType(ftype)),
                             [null, null, *args])
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
        scratch = np.empty(o.shape, o.dtype)
        self.keep.append(scratch)
        return self.address(scratch.ctypes.data)

    def finish(self, acc, acc_dtype: np.dtype, r: Value, count: int) -> None:
        """r = (acc / count).astype(r's dtype), element by element (``kernels._finish``)."""
        src_t = _element_type(self.ir, acc_dtype)
        dst_t = _element_type(self.ir, r.type.dtype.np_dtype)
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

    def fail_unless_ok(self, status) -> None:
        b = self.b
        bad = self.entry.append_basic_block("failed")
        good = self.entry.append_basic_block("next")
        b.cbranch(b.icmp_signed("==", status, self.i32(abi.OK)), good, bad)
        b.position_at_end(bad)
        b.ret(status)
        b.position_at_end(good)

    def gemm(self, op: Op) -> None:
        x, y = op.operands
        (r,) = op.results
        dtype = r.type.dtype.np_dtype
        if not (x.type.ndim == y.type.ndim == 2 and x.type.dtype == y.type.dtype == r.type.dtype):
            raise Unsupported("matmul of other than two matrices of one dtype")
        found = blas.gemm(dtype.name)
        if found is None:
            raise Unsupported(f"no BLAS GEMM for {dtype}")
        address, bits = found
        ta, tb = bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b"))
        m, n = r.type.shape
        k = x.type.shape[0] if ta else x.type.shape[1]
        if 0 in (m, n, k):
            raise Unsupported("matmul with an empty dimension")
        ir, i32, b = self.ir, self.i32, self.b
        it = ir.IntType(bits)
        real = ir.FloatType() if dtype == np.float32 else ir.DoubleType()
        ftype = ir.FunctionType(ir.VoidType(), [i32, i32, i32, it, it, it, real, self.ptr, it,
                                                self.ptr, it, real, self.ptr, it])
        fn = b.inttoptr(self.i64(address), ir.PointerType(ftype))

        def fn_in(builder):
            return builder.inttoptr(self.i64(address), ir.PointerType(ftype))
        lda, ldb, item = x.type.shape[1], y.type.shape[1], dtype.itemsize
        count, by_rows = _gemm_blocks(m, n, k)
        if count == 1:
            b.call(fn, [i32(ROW_MAJOR), i32(TRANS if ta else NO_TRANS),
                        i32(TRANS if tb else NO_TRANS), it(m), it(n), it(k), real(1.0),
                        self.pointer(x), it(lda), self.pointer(y), it(ldb), real(0.0),
                        self.pointer(r), it(n)])
            return
        # the blocks run on the native kernel pool, each a single-threaded BLAS call (the
        # tuner holds OpenBLAS on one thread for the step's call): nnkernels.matmul's policy
        ctx = b.alloca(self.ptr, size=self.i64(3), name="gemm.ctx")
        for j, v in enumerate((x, y, r)):
            b.store(self.pointer(v), b.gep(ctx, [self.i64(j)], source_etype=self.ptr))
        task = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [self.ptr, self.i64,
                                                                       self.i64]),
                           f"gemm{self.n_ops}.blocks")
        task.linkage = "internal"
        t = ir.IRBuilder(task.append_basic_block("entry"))
        tctx, first, last = task.args
        a0, b0, c0 = (t.load(t.gep(tctx, [self.i64(j)], source_etype=self.ptr), typ=self.ptr)
                      for j in range(3))
        extent = m if by_rows else n
        head, body, done = (task.append_basic_block(name) for name in ("head", "body", "end"))
        entry = t.block
        t.branch(head)
        t.position_at_end(head)
        blk = t.phi(self.i64)
        blk.add_incoming(first, entry)
        t.cbranch(t.icmp_signed("<", blk, last), body, done)
        t.position_at_end(body)
        lo = t.sdiv(t.mul(blk, self.i64(extent)), self.i64(count))
        nxt = t.add(blk, self.i64(1))
        size = t.sub(t.sdiv(t.mul(nxt, self.i64(extent)), self.i64(count)), lo)

        def at(base, elements):
            return t.gep(base, [t.mul(elements, self.i64(item))], source_etype=self.i8)
        if by_rows:   # rows lo.. of op(A) and of C: rows of A, or its columns when transposed
            a_at = at(a0, lo if ta else t.mul(lo, self.i64(lda)))
            ptrs = (a_at, b0, at(c0, t.mul(lo, self.i64(n))))
            dims = [t.trunc(size, it) if bits < 64 else size, it(n)]
        else:         # columns lo.. of op(B) and of C: columns of B, or its rows when transposed
            b_at = at(b0, t.mul(lo, self.i64(ldb)) if tb else lo)
            ptrs = (a0, b_at, at(c0, lo))
            dims = [it(m), t.trunc(size, it) if bits < 64 else size]
        t.call(fn_in(t), [i32(ROW_MAJOR), i32(TRANS if ta else NO_TRANS),
                          i32(TRANS if tb else NO_TRANS), dims[0], dims[1], it(k), real(1.0),
                          ptrs[0], it(lda), ptrs[1], it(ldb), real(0.0), ptrs[2], it(n)])
        blk.add_incoming(nxt, t.block)
        t.branch(head)
        t.position_at_end(done)
        t.ret_void()
        pool = native_pool.started()
        pfor = b.inttoptr(self.i64(pool.address), ir.PointerType(ir.FunctionType(
            ir.VoidType(), [self.ptr, self.ptr, self.i64, self.i64])))
        b.call(pfor, [task, ctx, self.i64(count), self.i64(max(m * n * k, native_pool.MIN_WORK))])

    # -- the softmax family and one_hot (the loops of nn_loops.py, and inline loops) --
    def nn_loop(self, name: str, arrays) -> None:
        """Call loop ``name`` of ``nn_loops`` on ``arrays``: (value, the shape it is seen as)."""
        from graphcell_ir.backend import loops
        kinds = [("array", v.type.dtype.np_dtype.name, len(shape)) for v, shape in arrays]
        tracker, address = self.code.loop(loops.source(), name, kinds)
        self.keep.append(tracker)
        args, null = [], self.ir.Constant(self.ptr, None)
        for v, shape in arrays:
            args += [self.pointer(v)] + [self.i64(d) for d in shape]
        ftype = self.ir.FunctionType(self.i32, [a.type for a in [null, null, *args]])
        status = self.b.call(self.b.inttoptr(self.i64(address), self.ir.PointerType(ftype)),
                             [null, null, *args])
        self.fail_unless_ok(status)

    def rows(self, x: Value) -> tuple:
        k = x.type.shape[-1] if x.type.ndim else 0
        if x.type.dtype.np_dtype.kind != "f" or k == 0:
            raise Unsupported(f"softmax-family op on {x.type}")
        return (x.type.size // k, k)

    def softmax(self, op: Op) -> None:
        (x,), (r,) = op.operands, op.results
        axis = op.attrs.get("axis")
        if axis is None or len(axis) != 1 or axis[0] not in (-1, x.type.ndim - 1):
            raise Unsupported("softmax over another axis than the last")
        self.nn_loop("softmax_rows", [(x, self.rows(x)), (r, self.rows(x))])

    def sparse_cross_entropy(self, op: Op) -> None:
        (x, labels), (r,) = op.operands, op.results
        shape = self.rows(x)
        if labels.type.dtype.np_dtype not in (np.dtype(np.int32), np.dtype(np.int64)) or \
                labels.type.size != shape[0] or r.type.size != shape[0]:
            raise Unsupported(f"sparse_softmax_cross_entropy of {x.type} and {labels.type}")
        self.labels_in_range(labels, shape[1])   # a bad label: the reference raises its error
        self.nn_loop("sparse_softmax_cross_entropy_rows",
                     [(x, shape), (labels, (shape[0],)), (r, (shape[0],))])

    def labels_in_range(self, labels: Value, n: int) -> None:
        """Return BAD_LABEL from the step when a label is outside [0, n) (negative labels,
        compared unsigned, are huge)."""
        typ = _element_type(self.ir, labels.type.dtype.np_dtype)
        base, b = self.pointer(labels), self.b

        def check(i):
            v = b.load(b.gep(base, [i], source_etype=typ), typ=typ)
            bad = self.entry.append_basic_block("bad_label")
            good = self.entry.append_basic_block("label_ok")
            b.cbranch(b.icmp_unsigned("<", v, typ(n)), good, bad)
            b.position_at_end(bad)
            b.ret(self.i32(BAD_LABEL))
            b.position_at_end(good)
        self.loop(labels.type.size, check)

    def one_hot(self, op: Op) -> None:
        (idx,), (r,) = op.operands, op.results
        depth, axis = op.attrs["depth"], op.attrs.get("axis", -1)
        if axis not in (-1, idx.type.ndim) or idx.type.dtype.np_dtype.kind not in "iu" or \
                r.type.dtype.np_dtype.kind not in "fiu":
            raise Unsupported("one_hot other than along a new last axis, of integer indices")
        self.fill(r, op.attrs.get("off_value", 0.0))
        typ = _element_type(self.ir, idx.type.dtype.np_dtype)
        out_t = _element_type(self.ir, r.type.dtype.np_dtype)
        on = self.constant(out_t, op.attrs.get("on_value", 1.0))
        src, dst, b, i64 = self.pointer(idx), self.pointer(r), self.b, self.i64

        def hot(i):
            v = b.sext(b.load(b.gep(src, [i], source_etype=typ), typ=typ), i64) \
                if typ.width < 64 else b.load(b.gep(src, [i], source_etype=typ), typ=typ)
            put = self.entry.append_basic_block("hot")
            skip = self.entry.append_basic_block("cold")
            b.cbranch(b.icmp_unsigned("<", v, i64(depth)), put, skip)   # out of range: all off
            b.position_at_end(put)
            b.store(on, b.gep(dst, [b.add(b.mul(i, i64(depth)), v)], source_etype=out_t))
            b.branch(skip)
            b.position_at_end(skip)
        self.loop(idx.type.size, hot)

    def broadcast(self, op: Op) -> None:
        """``broadcast_to``: each element of the result reads the operand's element at its
        index, with the broadcast axes' index 0 (an inline loop: in a train step it broadcasts
        the loss's sensitivity, a handful of elements; big broadcasts are fused into kernels)."""
        (x,), (r,) = op.operands, op.results
        if isinstance(x, Literal) or x.type.dtype != r.type.dtype:
            raise Unsupported("broadcast_to of a literal or to another dtype")
        src_shape = (1,) * (r.type.ndim - x.type.ndim) + tuple(x.type.shape)
        typ = _element_type(self.ir, r.type.dtype.np_dtype)
        src, dst, b, i64 = self.pointer(x), self.pointer(r), self.b, self.i64
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
        typ = _element_type(self.ir, dtype)
        const = self.constant(typ, value)
        self.loop(count, lambda i: self.b.store(const, self.b.gep(base, [i], source_etype=typ)))

    def copy(self, src: Value, dst: Value) -> None:
        """dst = src, by LLVM's memcpy (the step is not optimised: a loop would stay a loop)."""
        memcpy = self.module.declare_intrinsic("llvm.memcpy", [self.ptr, self.ptr, self.i64])
        self.b.call(memcpy, [self.pointer(dst), self.pointer(src),
                             self.i64(src.type.size * src.type.dtype.np_dtype.itemsize),
                             self.ir.IntType(1)(0)])


def _gemm_blocks(m: int, n: int, k: int) -> tuple[int, bool]:
    """``nnkernels.gemm_blocks`` (the runner's split), or one block when
    ``GRAPHCELL_BLAS_THREADS=0`` leaves BLAS alone."""
    from graphcell_ir.backend import nnkernels
    if switches.number("GRAPHCELL_BLAS_THREADS") == 0:
        return 1, True
    return nnkernels.gemm_blocks(m, n, k)


def _element_type(ir, dtype: np.dtype):
    if dtype.kind == "f":
        return {4: ir.FloatType(), 8: ir.DoubleType()}[dtype.itemsize]
    return ir.IntType(8 * dtype.itemsize)


def _aligned_bytes(size: int) -> np.ndarray:
    """``size`` bytes starting at a multiple of 64 (the plan's offsets keep that alignment)."""
    raw = np.empty(size + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + size]


def _ordered(fn: Function, values) -> list:
    """``values`` in program order (the new arrays' order is the step's argument order)."""
    values, out = set(values), []
    for op in fn.body:
        out += [r for r in op.results if r in values]
    return out

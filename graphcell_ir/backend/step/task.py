"""A task of the native step: ``void task(ctx, first, last)``, run over ``range(count)`` by the
native kernel pool (``graphcell_parallel_for``), reading its pointers from a context the step
fills. The GEMM blocks, stacks of products, blocked nn loops and the window ops (convolutions,
pooling: :mod:`.window`) are each one task."""
from __future__ import annotations

import numpy as np

from graphcell_ir.backend.lower import Unsupported
from graphcell_ir.backend.step import blas, route


class Task:
    """A task of emitter ``e``: ``self.t`` builds its body, ``self.bases`` are the pointers
    read from its context, ``self.first``/``self.last`` the range the pool gives it."""

    def __init__(self, e, name: str, bases: list):
        ir, i64 = e.ir, e.i64
        self.e, self.ir, self.i64 = e, ir, i64
        self.ctx = e.b.alloca(e.ptr, size=i64(len(bases)), name=f"{name}.ctx")
        for j, p in enumerate(bases):
            e.b.store(p, e.b.gep(self.ctx, [i64(j)], source_etype=e.ptr))
        self.fn = ir.Function(e.module, ir.FunctionType(ir.VoidType(), [e.ptr, i64, i64]),
                              f"{name}{e.n_ops}.task")
        self.fn.linkage = "internal"
        self.t = ir.IRBuilder(self.fn.append_basic_block("entry"))
        tctx, self.first, self.last = self.fn.args
        self.bases = [self.t.load(self.t.gep(tctx, [i64(j)], source_etype=e.ptr), typ=e.ptr)
                      for j in range(len(bases))]

    def value(self, v):
        """``v`` as an i64 value of the task (an int becomes a constant)."""
        return self.i64(v) if isinstance(v, int) else v

    def at(self, base, elements, item: int):
        """``base`` + ``elements`` items (an i64 value or int) of ``item`` bytes."""
        t = self.t
        return t.gep(base, [t.mul(self.value(elements), self.i64(item))],
                     source_etype=self.e.i8)

    def each(self, lo, hi, body) -> None:
        """``for s in range(lo, hi): body(s)`` in the task."""
        each(self.t, self.value(lo), self.value(hi), body)

    def loop(self, name: str, kinds: list, values: list, source: str | None = None) -> None:
        """Call loop ``name`` (compiled for ``kinds``, :meth:`_Emitter.nn_loop`'s forms) on
        ``values`` (IR values: pointers and dimensions, scalars)."""
        ir, e = self.ir, self.e
        symbol = e.loop_symbol(name, kinds, source)
        null = ir.Constant(e.ptr, None)
        ftype = ir.FunctionType(e.i32, [v.type for v in [null, null, *values]])
        self.t.call(e.callee(symbol, ftype), [null, null, *values])

    def zero(self, base, size: int) -> None:
        """``size`` bytes at ``base`` = 0 in the task, by LLVM's memset."""
        e = self.e
        memset = e.module.declare_intrinsic("llvm.memset", [e.ptr, self.i64])
        self.t.call(memset, [base, e.i8(0), self.i64(size), self.ir.IntType(1)(0)])

    def gemm(self, dtype, ta: bool, tb: bool, m, n, k: int, a, lda: int, b, ldb: int,
             c, ldc: int, shape: tuple[int, int] | None = None) -> None:
        """``c = op(a) @ op(b)`` in the task (:func:`call_gemm`)."""
        call_gemm(self.e, self.t, dtype, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, shape=shape)

    def run(self, count: int, work: int) -> None:
        """Finish the task and call it over ``range(count)`` on the pool (serially below the
        pool's own threshold on ``work``)."""
        self.t.ret_void()
        self.e.parallel_for(self.fn, self.ctx, count, work)


def each(t, lo, hi, body) -> None:
    """``for s in range(lo, hi): body(s)`` (i64 values) emitted by builder ``t``."""
    fn, i64 = t.function, lo.type
    head, step, done = (fn.append_basic_block(n) for n in ("each", "each.body", "each.end"))
    start = t.block
    t.branch(head)
    t.position_at_end(head)
    s = t.phi(i64)
    s.add_incoming(lo, start)
    t.cbranch(t.icmp_signed("<", s, hi), step, done)
    t.position_at_end(step)
    body(s)
    s.add_incoming(t.add(s, i64(1)), t.block)
    t.branch(head)
    t.position_at_end(done)


def call_gemm(e, t, dtype, ta: bool, tb: bool, m, n, k: int, a, lda: int, b, ldb: int, c,
              ldc: int, *, same: bool = False, shape: tuple[int, int] | None = None) -> None:
    """``c = op(a) @ op(b)`` emitted by builder ``t`` of emitter ``e`` as numpy's ``matmul``
    computes it (:mod:`.route`: a GEMM, or the GEMV, dot, SYRK or loop numpy takes for these
    shapes), so the runner's ``np.matmul`` and the step agree bit for bit; BLAS single-threaded
    under the step's tuner. ``m`` and ``n`` are ints or i64 values (a block of a product:
    ``shape`` then gives the static ``(m, n)`` the route is chosen for); ``lda``/``ldb``/``ldc``
    are the row lengths of the row-major buffers; ``same``: ``a`` and ``b`` are one buffer."""
    shape = shape or (m, n)
    r = route.choose(shape[0], k, shape[1], route.strides(lda, ta), route.strides(ldb, tb),
                     (ldc, 1), same)
    ir, i32 = e.ir, e.i32
    kind = "gemm" if r.kind == "loop" else r.kind
    address, bits = blas.routine(kind, dtype.name)
    it = ir.IntType(bits)
    real = ir.FloatType() if dtype == np.float32 else ir.DoubleType()

    def integer(v):
        if isinstance(v, int):
            return it(v)
        return t.trunc(v, it) if bits < 64 else v

    def call(ret, *args):
        ftype = ir.FunctionType(ret, [a.type for a in args])
        return t.call(t.inttoptr(e.i64(address), ir.PointerType(ftype)), list(args))
    if r.kind == "gemm":
        call(ir.VoidType(), i32(route.ROW_MAJOR), i32(r.transa), i32(r.transb), integer(m),
             integer(n), it(k), real(1.0), a, it(r.lda), b, it(r.ldb), real(0.0), c, it(r.ldc))
    elif r.kind == "gemv":
        matrix, x, rows = (a, b, m) if r.matrix == "a" else (b, a, n)
        call(ir.VoidType(), i32(r.order), i32(route.TRANS), it(k), integer(rows), real(1.0),
             matrix, it(r.lda), x, it(r.incx), real(0.0), c, it(r.incy))
    elif r.kind == "dot":
        # numpy adds BLAS's dot to a float64 0.0 (a -0.0 dot is stored as +0.0)
        d = call(real, it(k), a, it(r.inca), b, it(r.incb))
        wide = ir.DoubleType()
        total = t.fadd(wide(0.0), d if real == wide else t.fpext(d, wide))
        t.store(total if real == wide else t.fptrunc(total, real), c)
    elif r.kind == "syrk":
        call(ir.VoidType(), i32(route.ROW_MAJOR), i32(route.UPPER), i32(r.trans), integer(n),
             it(k), real(1.0), a, it(r.lda), real(0.0), c, it(r.ldc))
        _lower_from_upper(e, t, real, c, n, ldc)
    else:
        _numpy_loop(e, t, dtype, m, n, k, a, route.strides(lda, ta), b, route.strides(ldb, tb),
                    c, ldc, shape)


def _element(e, t, base, index, real):
    return t.gep(base, [index], source_etype=real)


def loop_source(a: tuple[int, int], b: tuple[int, int], ldc: int) -> str:
    """numpy's non-BLAS matmul loop for a product of one term (``k == 1``: an outer product,
    the weight gradient of a batch-1 network) as source for the code generator (compiled
    optimised, as the ``nn_loops``; the strides written in): numpy's ``c[i, j] = 0.0``, then
    ``c[i, j] += a[i, 0] * b[0, j]`` is ``0.0 + a[i] * b[j]`` (the product rounded, no fused
    multiply-add; the ``0.0`` makes a ``-0.0`` product ``+0.0``), ``j`` the inner loop.

    >>> print(loop_source((1, 1), (1, 1), 8), end="")
    def numpy_matmul(a, b, c, m, n):
        for i in range(m):
            x = a[i * 1]
            for j in range(n):
                c[i * 8 + j] = 0.0 + x * b[j * 1]
    """
    return (f"def numpy_matmul(a, b, c, m, n):\n    for i in range(m):\n"
            f"        x = a[i * {a[0]}]\n        for j in range(n):\n"
            f"            c[i * {ldc} + j] = 0.0 + x * b[j * {b[1]}]\n")


def _numpy_loop(e, t, dtype, m, n, k: int, a, sa, b, sb, c, ldc: int,
                shape: tuple[int, int]) -> None:
    """Call :func:`loop_source`'s loop from builder ``t`` (``m``, ``n``: ints or i64 values;
    ``shape``: their static values, the largest they take, for the arrays' extents). numpy's
    loop over more terms (operands with strides BLAS cannot take, which the step's row-major
    buffers never have) is refused."""
    if k != 1:
        raise Unsupported(f"a product numpy runs by its own loop over {k} terms")
    ir, i64 = e.ir, e.i64
    value = lambda v: i64(v) if isinstance(v, int) else v   # noqa: E731
    sm, sn = shape
    extents = [(sm - 1) * abs(sa[0]) + 1, (sn - 1) * abs(sb[1]) + 1, (sm - 1) * ldc + sn]
    kinds = [(None, dtype, (size,)) for size in extents] + [0, 0]   # emit.nn_loop's forms
    symbol = e.loop_symbol("numpy_matmul", kinds, loop_source(sa, sb, ldc))
    values = [a, i64(extents[0]), b, i64(extents[1]), c, i64(extents[2]), value(m), value(n)]
    null = ir.Constant(e.ptr, None)
    ftype = ir.FunctionType(e.i32, [v.type for v in [null, null, *values]])
    t.call(e.callee(symbol, ftype), [null, null, *values])


def _lower_from_upper(e, t, real, c, n, ldc: int) -> None:
    """``c[j, i] = c[i, j]`` for ``j > i``: numpy's copy after SYRK, which fills the upper
    triangle only."""
    i64 = e.i64

    def row(i):
        def column(j):
            v = t.load(_element(e, t, c, t.add(t.mul(i, i64(ldc)), j), real), typ=real)
            t.store(v, _element(e, t, c, t.add(t.mul(j, i64(ldc)), i), real))
        each(t, t.add(i, i64(1)), i64(n), column)
    each(t, i64(0), i64(n), row)

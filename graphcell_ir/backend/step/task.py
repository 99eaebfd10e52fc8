"""A task of the native step: ``void task(ctx, first, last)``, run over ``range(count)`` by the
native kernel pool (``graphcell_parallel_for``), reading its pointers from a context the step
fills. The GEMM blocks, stacks of products, blocked nn loops and the window ops (convolutions,
pooling: :mod:`.window`) are each one task."""
from __future__ import annotations

import numpy as np

from graphcell_ir.backend.step import blas
from graphcell_ir.backend.step.blas import NO_TRANS, ROW_MAJOR, TRANS


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
        t, i64 = self.t, self.i64
        head, step, done = (self.fn.append_basic_block(n) for n in ("each", "each.body",
                                                                     "each.end"))
        start = t.block
        t.branch(head)
        t.position_at_end(head)
        s = t.phi(i64)
        s.add_incoming(self.value(lo), start)
        t.cbranch(t.icmp_signed("<", s, self.value(hi)), step, done)
        t.position_at_end(step)
        body(s)
        s.add_incoming(t.add(s, i64(1)), t.block)
        t.branch(head)
        t.position_at_end(done)

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
             c, ldc: int) -> None:
        """``c = op(a) @ op(b)`` in the task (:func:`call_gemm`)."""
        call_gemm(self.e, self.t, dtype, ta, tb, m, n, k, a, lda, b, ldb, c, ldc)

    def run(self, count: int, work: int) -> None:
        """Finish the task and call it over ``range(count)`` on the pool (serially below the
        pool's own threshold on ``work``)."""
        self.t.ret_void()
        self.e.parallel_for(self.fn, self.ctx, count, work)


def call_gemm(e, t, dtype, ta: bool, tb: bool, m, n, k: int, a, lda: int, b, ldb: int, c,
              ldc: int) -> None:
    """``c = op(a) @ op(b)`` by one CBLAS call (row-major; single-threaded under the step's
    tuner) emitted by builder ``t`` of emitter ``e``; ``m`` and ``n`` are ints or i64
    values."""
    ir, i32 = e.ir, e.i32
    address, bits = blas.gemm(dtype.name)
    it = ir.IntType(bits)
    real = ir.FloatType() if dtype == np.float32 else ir.DoubleType()

    def integer(v):
        if isinstance(v, int):
            return it(v)
        return t.trunc(v, it) if bits < 64 else v
    t.call(t.inttoptr(e.i64(address), ir.PointerType(e.gemm_type(it, real))),
           [i32(ROW_MAJOR), i32(TRANS if ta else NO_TRANS), i32(TRANS if tb else NO_TRANS),
            integer(m), integer(n), it(k), real(1.0), a, it(lda), b, it(ldb), real(0.0), c,
            it(ldc)])

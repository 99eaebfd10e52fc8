"""The direct filter gradient kernel: a stride-1 convolution's filter gradient of one sample,
written as LLVM IR with explicit vectors on ``direct_conv``'s builder.

``filter_direct(xp, dyp, dw, c, wp, oh, ow, kh, kw)``, one sample:

- ``xp`` (1-D): the sample's C image planes zero-padded to ``hp x wp`` (``hp = oh + kh - 1``)
  and laid end to end, then at least 2 elements: ``direct_conv``'s ``pad_image(x, xp, pt, pl,
  hp, wp)`` into ``direct_conv.image_size(c, hp, wp)`` elements;
- ``dyp`` (1-D): the sample's O planes of ``dy`` padded to the image's width, zeros in the
  ``wp - ow`` junk columns: ``pad_image(dy, dyp, 0, 0, oh, wp)``;
- ``dw`` (2-D, ``(O, C*KH*KW)``): the sample's gradient.

``dw[o, (c*kh + i)*kw + j] = sum over q < m = (oh - 1)*wp + ow of dyp[o*oh*wp + q] *
xp[c*hp*wp + i*wp + j + q]``: in the padded planes window offset ``(i, j)`` is the constant
shift ``i*wp + j``, so each weight is one dot product along contiguous positions (a junk
column adds ``dy``'s zeros). Per block of :data:`OUT_TILE` output channels by 3 offsets of a
kernel row, 24 vector accumulators of ``W`` lanes: per vector step 3 unaligned loads of the
image, 8 of ``dy`` and 24 fused multiply-adds; the last vector masked (masked loads of zeros:
nothing read past a plane's positions). Each accumulator is then folded to a scalar by a fixed
tree of halves (the same bits every call, whatever the threads). Blocks past the last channel
repeat it, offsets past the kernel row read the image's next elements: neither is stored. A sum
that is not finite is taken again over the real positions only, in order (one scalar loop, one
call site): a junk position's 0 times an infinite image value is NaN where the reference has no
such product.

Why explicit vectors: the same loop in the code generator's subset (a loop whose sums LLVM's
loop vectoriser put in vector lanes) took 140-167 ms of LLVM, the longest object of a LeNet
step's cold compile; this one takes ~37 ms and runs 1.2-1.4x faster (docs/decisions.md,
fdv24).

Example::

    >>> import llvmlite.ir as ir
    >>> module = ir.Module()
    >>> fn = function(module, NAME, kinds(NAME, "float32"))
    >>> "llvm.fma.v" in str(module) and "llvm.masked.load.v" in str(module)
    True
"""
from __future__ import annotations

from pathlib import Path

import llvmlite.ir as ir

from graphcell_ir.backend.codegen import direct_conv as D
from graphcell_ir.backend.lower import Unsupported

SOURCE = Path(__file__).read_text() + D.SOURCE
"""This module's text and its builder's: the "source" the object store and the step name the
kernel by (a change to either changes its key)."""
NAME = "filter_direct"
OFFSETS = 3
"""Offsets of a kernel row per block (with :data:`direct_conv.OUT_TILE` channels: 24 sums)."""
ARRAYS, SCALARS = (1, 1, 2), 6

_I32, _I64, _PTR, _VOID = D._I32, D._I64, D._PTR, D._VOID


def kinds(name: str, dtype: str) -> tuple:
    """The argument kinds of :data:`NAME` for a float dtype (its one signature)."""
    return tuple(("array", dtype, d) for d in ARRAYS) + (("scalar", "int64"),) * SCALARS


def function(module: ir.Module, name: str, kinds) -> ir.Function:
    """The implementation of :data:`NAME` for argument ``kinds`` in ``module`` (internal;
    arrays as data pointer and dimensions), the target's lanes per vector
    (``direct_conv.shape_of_tile``); Unsupported for other names or kinds."""
    dtypes = {k[1] for k in kinds if k[0] == "array"}
    shape = [(k[0], k[2] if k[0] == "array" else k[1]) for k in kinds]
    if name != NAME:
        raise Unsupported(f"no function {name!r} in the direct filter gradient's module")
    if shape != [("array", d) for d in ARRAYS] + [("scalar", "int64")] * SCALARS or \
            len(dtypes) != 1 or not dtypes <= {"float32", "float64"}:
        raise Unsupported(f"{name} takes arrays of {ARRAYS} dimensions of one float dtype and "
                          f"{SCALARS} int64, not {kinds}")
    dtype = dtypes.pop()
    lanes = D.shape_of_tile(dtype, D._features())[0]
    return _FilterBuilder(module, dtype, lanes, 1).build_filter()


class _FilterBuilder(D._Builder):
    """One ``filter_direct`` for a dtype and ``lanes`` per vector."""

    def build_filter(self) -> ir.Function:
        params = [_PTR, _I64, _PTR, _I64, _PTR, _I64, _I64] + [_I64] * SCALARS
        fn = ir.Function(self.m, ir.FunctionType(_VOID, params),
                         f"gc.{NAME}.{len(self.m.functions)}")
        fn.linkage = "internal"
        xp, _, dyp, _, dw, o, ckk, c, wp, oh, ow, kh, kw = fn.args
        for a in (xp, dyp, dw):
            a.add_attribute("noalias")
        self.fn = fn
        b = self.b = ir.IRBuilder(fn.append_basic_block("entry"))
        self.accs = [[b.alloca(self.vt, name=f"acc{t}_{s}") for s in range(OFFSETS)]
                     for t in range(D.OUT_TILE)]
        self.counters = [b.alloca(_I64, name=f"i{k}") for k in range(8)]
        self.total = b.alloca(self.ft, name="total")
        self.spill = b.alloca(self.vt, size=_I64(D.OUT_TILE * OFFSETS), name="sums")
        self.lane_ids = ir.Constant(ir.VectorType(_I64, self.lanes),
                                    [_I64(k) for k in range(self.lanes)])
        m = b.add(b.mul(b.sub(oh, _I64(1)), wp), ow)   # positions up to the last output
        full = b.sub(m, b.srem(m, _I64(self.lanes)))    # those of whole vectors
        plane, dplane = b.mul(b.add(oh, b.sub(kh, _I64(1))), wp), b.mul(oh, wp)
        taps = b.mul(kh, kw)
        last = b.sub(o, _I64(1))

        def block(o0):
            rows = []
            for t in range(D.OUT_TILE):
                ot = b.add(o0, _I64(t))
                rows.append(b.mul(b.select(b.icmp_signed("<", ot, o), ot, last), dplane))

            def channel(ci):
                def kernel_row(i):
                    def offsets(j):
                        at = b.add(b.add(b.mul(ci, plane), b.mul(i, wp)), j)
                        k = b.add(b.add(b.mul(ci, taps), b.mul(i, kw)), j)
                        self._sums(xp, dyp, rows, at, full, m)
                        self._store(xp, dyp, dw, o, ckk, o0, k, b.sub(kw, j), at, dplane,
                                    wp, ow, m)
                    self._loop(self.counters[3], _I64(0), kw, OFFSETS, offsets)
                self._loop(self.counters[2], _I64(0), kh, 1, kernel_row)
            self._loop(self.counters[1], _I64(0), c, 1, channel)
        self._loop(self.counters[0], _I64(0), o, D.OUT_TILE, block)
        b.ret_void()
        return fn

    def _sums(self, xp, dyp, rows, at, full, m) -> None:
        """The 24 accumulators of the block at image offset ``at``: whole vectors up to
        ``full``, then one masked vector up to ``m`` if any positions are left."""
        b = self.b
        zero = ir.Constant(self.vt, None)
        for tile in self.accs:
            for acc in tile:
                b.store(zero, acc)
        self._loop(self.counters[4], _I64(0), full, self.lanes,
                   lambda q: self._step(xp, dyp, rows, at, q, None))
        with b.if_then(b.icmp_signed("<", full, m)):
            mask = b.icmp_signed("<", self.lane_ids, self._splat(b.sub(m, full), _I64))
            self._step(xp, dyp, rows, at, full, mask)

    def _step(self, xp, dyp, rows, at, q, mask) -> None:
        """One vector step at position ``q``: 3 image vectors, 8 of ``dy``, 24 FMAs (``mask``:
        the lanes to load, zeros elsewhere; None: all)."""
        b = self.b
        fma = self._intrinsic(f"llvm.fma.v{self.lanes}f{self.item * 8}", self.vt,
                              [self.vt, self.vt, self.vt])
        base = b.add(at, q)
        xs = [self._vector(xp, b.add(base, _I64(s)), mask) for s in range(OFFSETS)]
        for row, tile in zip(rows, self.accs):
            yv = self._vector(dyp, b.add(row, q), mask)
            for acc, xv in zip(tile, xs):
                b.store(b.call(fma, [yv, xv, b.load(acc)]), acc)

    def _vector(self, src, at, mask):
        if mask is not None:
            return self._masked_load(src, at, mask)
        return self.b.load(self.b.gep(src, [at], source_etype=self.ft), typ=self.vt,
                           align=self.item)

    def _fold(self, v):
        """The lanes of ``v`` summed by a fixed tree of halves (lane k + lane k + n/2, ...)."""
        b, n = self.b, self.lanes
        while n > 1:
            h = n // 2
            lo = b.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, h), list(range(h))))
            hi = b.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, h),
                                                    list(range(h, n))))
            v, n = b.fadd(lo, hi), h
        return b.extract_element(v, _I32(0))

    def _store(self, xp, dyp, dw, o, ckk, o0, k, left, at, dplane, wp, ow, m) -> None:
        """``dw[o0 + t, k + s]`` = accumulator ``(t, s)`` folded, for the channels below ``o``
        and the ``left`` offsets of the kernel row that exist; a sum that is not finite taken
        again over the real output columns only (``q % wp < ow``), in order, one product and
        one add at a time. The accumulators go through a stack array so that the fold and the
        fix-up are emitted once, not 24 times (LLVM's time is the code's size)."""
        b = self.b
        for t, tile in enumerate(self.accs):
            for s, acc in enumerate(tile):
                b.store(b.load(acc), b.gep(self.spill, [_I64(t * OFFSETS + s)],
                                           source_etype=self.vt))
        stop_o = b.select(b.icmp_signed("<", b.add(o0, _I64(D.OUT_TILE)), o),
                          b.add(o0, _I64(D.OUT_TILE)), o)
        stop_s = b.select(b.icmp_signed("<", left, _I64(OFFSETS)), left, _I64(OFFSETS))

        def channel(ot):
            def offset(s):
                slot = b.add(b.mul(b.sub(ot, o0), _I64(OFFSETS)), s)
                vector = b.load(b.gep(self.spill, [slot], source_etype=self.vt), typ=self.vt)
                value = self._fold(vector)
                where = b.gep(dw, [b.add(b.mul(ot, ckk), b.add(k, s))], source_etype=self.ft)
                b.store(value, where)
                with b.if_then(b.fcmp_unordered("!=", b.fsub(value, value),
                                                ir.Constant(self.ft, 0.0)), likely=False):
                    b.store(ir.Constant(self.ft, 0.0), self.total)
                    drow, xat = b.mul(ot, dplane), b.add(at, s)

                    def position(q):
                        with b.if_then(b.icmp_signed("<", b.srem(q, wp), ow)):
                            d = b.load(b.gep(dyp, [b.add(drow, q)], source_etype=self.ft),
                                       typ=self.ft)
                            x = b.load(b.gep(xp, [b.add(xat, q)], source_etype=self.ft),
                                       typ=self.ft)
                            b.store(b.fadd(b.load(self.total), b.fmul(d, x)), self.total)
                    self._loop(self.counters[7], _I64(0), m, 1, position)
                    b.store(b.load(self.total), where)
            self._loop(self.counters[6], _I64(0), stop_s, 1, offset)
        self._loop(self.counters[5], o0, stop_o, 1, channel)

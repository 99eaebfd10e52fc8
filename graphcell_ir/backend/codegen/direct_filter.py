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

``filter_lanes(xp, dyt, dw, c, wp, oh, ow, kh, kw)``, one sample, the output channels in the
vector lanes (no horizontal sums), for many output channels (``nnkernels.channels_in_lanes``):

- ``xp``: as above;
- ``dyt`` (2-D, ``(OH*OW, O)``): the sample's ``dy`` as positions x channels (``swap_last``);
- ``dw`` (2-D, ``(C*KH*KW, O)``): the sample's gradient, output channels innermost.

``dw[k, o] = sum over the output positions (r, v) in order of xp[c*hp*wp + i*wp + j + r*wp + v]
* dyt[r*ow + v, o]`` for ``k = (c*kh + i)*kw + j``, one fused multiply-add each from +0.0: the
reference's products in row order, no junk column (so no fix-up). A register tile of ``P`` taps
(12 with 32 vector registers, 6 with 16) by 2 vectors of ``W`` output channels: per position 2
masked vector loads of ``dyt`` (lanes past ``O`` read nothing) and ``P`` broadcasts of the image
for ``2P`` FMAs, into accumulators that are the gradient itself (one masked store each per
tile, no fold). Taps past the last repeat it and are not stored. Against ``filter_direct``'s 11
loads per 24 FMAs and 24 folds a block: 1.2x on a ResNet block's sample, near the core's FMA
peak; with few output channels most lanes would be empty (docs/decisions.md, dwt24).

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
    >>> lanes = function(module, LANES, kinds(LANES, "float64"))
    >>> "llvm.masked.store.v" in str(module)
    True
"""
from __future__ import annotations

from pathlib import Path

import llvmlite.ir as ir

from graphcell_ir.backend.codegen import direct_conv as D

SOURCE = Path(__file__).read_text() + D.SOURCE
"""This module's text and its builder's: the "source" the object store and the step name the
kernel by (a change to either changes its key)."""
NAME = "filter_direct"
LANES = "filter_lanes"
OFFSETS = 3
"""Offsets of a kernel row per block (with :data:`direct_conv.OUT_TILE` channels: 24 sums)."""
SCALARS = 6
_ARRAYS = {NAME: (1, 1, 2), LANES: (1, 2, 2)}
"""Each function's array ranks (both take :data:`SCALARS` int64)."""
TAPS_PER_TILE = {True: 12, False: 6}
"""``filter_lanes``' taps per register tile: with 32 vector registers (AVX-512) or 16."""

_I32, _I64, _PTR, _VOID = D._I32, D._I64, D._PTR, D._VOID


def kinds(name: str, dtype: str) -> tuple:
    """The argument kinds of function ``name`` (:data:`NAME`, :data:`LANES`) for a float dtype
    (its one signature)."""
    return tuple(("array", dtype, d) for d in _ARRAYS[name]) + (("scalar", "int64"),) * SCALARS


def function(module: ir.Module, name: str, kinds) -> ir.Function:
    """The implementation of :data:`NAME` for argument ``kinds`` in ``module`` (internal;
    arrays as data pointer and dimensions), the target's lanes per vector
    (``direct_conv.shape_of_tile``); Unsupported for other names or kinds."""
    signatures = {n: (arrays, SCALARS) for n, arrays in _ARRAYS.items()}
    dtype = D.checked_dtype(name, kinds, signatures, "the direct filter gradient's module")
    lanes, q = D.shape_of_tile(dtype, D._features())
    if name == NAME:
        return _FilterBuilder(module, dtype, lanes, 1).build_filter()
    return _LanesBuilder(module, dtype, lanes, q).build()


class _FilterBuilder(D._Builder):
    """One ``filter_direct`` for a dtype and ``lanes`` per vector."""

    def build_filter(self) -> ir.Function:
        params = [_PTR, _I64, _PTR, _I64, _PTR, _I64, _I64] + [_I64] * SCALARS
        xp, _, dyp, _, dw, o, ckk, c, wp, oh, ow, kh, kw = self._begin(NAME, params)
        b = self.b
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
        return self.fn

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


class _LanesBuilder(D._Builder):
    """One ``filter_lanes`` for a dtype, ``lanes`` per vector (``q`` > 1: 32 vector
    registers)."""

    VECTORS = 2

    def build(self) -> ir.Function:
        params = [_PTR, _I64, _PTR, _I64, _I64, _PTR, _I64, _I64] + [_I64] * SCALARS
        xp, _, dyt, _, _, dw, ckk, o, c, wp, oh, ow, kh, kw = self._begin(LANES, params)
        b = self.b
        taps_per_tile = TAPS_PER_TILE[self.q > 1]
        self.accs = [[b.alloca(self.vt, name=f"acc{p}_{v}") for v in range(self.VECTORS)]
                     for p in range(taps_per_tile)]
        self.counters = [b.alloca(_I64, name=f"i{k}") for k in range(6)]
        self.spill = b.alloca(self.vt, size=_I64(taps_per_tile * self.VECTORS), name="sums")
        self.lane_ids = ir.Constant(ir.VectorType(_I64, self.lanes),
                                    [_I64(k) for k in range(self.lanes)])
        plane, taps = b.mul(b.add(oh, b.sub(kh, _I64(1))), wp), b.mul(kh, kw)
        last = b.sub(ckk, _I64(1))
        all_o = self._splat(o, _I64)

        def channel_group(o0):
            starts = [b.add(o0, _I64(v * self.lanes)) for v in range(self.VECTORS)]
            masks = [b.icmp_signed("<", b.add(self.lane_ids, self._splat(s, _I64)), all_o)
                     for s in starts]

            def tap_tile(k0):
                shifts = []
                for p in range(taps_per_tile):   # tap k's shift c*hp*wp + i*wp + j
                    kp = b.add(k0, _I64(p))
                    k = b.select(b.icmp_signed("<", kp, ckk), kp, last)
                    ci, rest = b.sdiv(k, taps), b.srem(k, taps)
                    shifts.append(b.add(b.add(b.mul(ci, plane), b.mul(b.sdiv(rest, kw), wp)),
                                        b.srem(rest, kw)))
                self._sums(xp, dyt, shifts, starts, masks, o, wp, oh, ow)
                self._store(dw, ckk, o, k0, starts, masks)
            self._loop(self.counters[1], _I64(0), ckk, taps_per_tile, tap_tile)
        self._loop(self.counters[0], _I64(0), o, self.lanes * self.VECTORS, channel_group)
        b.ret_void()
        return self.fn

    def _sums(self, xp, dyt, shifts, starts, masks, o, wp, oh, ow) -> None:
        """The tile's accumulators along the output positions ``(r, v)`` in order: per position
        the vectors of ``dyt`` at ``starts`` (masked: lanes past ``o`` read nothing) and each
        tap's image value at ``shift + r*wp + v``."""
        b = self.b
        zero = ir.Constant(self.vt, None)
        for tile in self.accs:
            for acc in tile:
                b.store(zero, acc)
        fma = self._intrinsic(f"llvm.fma.v{self.lanes}f{self.item * 8}", self.vt,
                              [self.vt, self.vt, self.vt])

        def row(r):
            xrow, drow = b.mul(r, wp), b.mul(r, ow)

            def position(v):
                at = b.mul(b.add(drow, v), o)
                ys = [self._masked_load(dyt, b.add(at, s), mask)
                      for s, mask in zip(starts, masks)]
                q = b.add(xrow, v)
                for shift, tile in zip(shifts, self.accs):
                    x = b.load(b.gep(xp, [b.add(shift, q)], source_etype=self.ft), typ=self.ft)
                    xv = self._splat(x, self.ft)
                    for acc, yv in zip(tile, ys):
                        b.store(b.call(fma, [xv, yv, b.load(acc)]), acc)
            self._loop(self.counters[3], _I64(0), ow, 1, position)
        self._loop(self.counters[2], _I64(0), oh, 1, row)

    def _store(self, dw, ckk, o, k0, starts, masks) -> None:
        """``dw[k0 + p, start + lane]`` = accumulator ``(p, v)`` for the taps below ``ckk`` and
        the lanes of ``masks``. The accumulators go through a stack array so that the store is
        emitted once per vector, not ``2P`` times (LLVM's time is the code's size)."""
        b = self.b
        for p, tile in enumerate(self.accs):
            for v, acc in enumerate(tile):
                b.store(b.load(acc), b.gep(self.spill, [_I64(p * self.VECTORS + v)],
                                           source_etype=self.vt))
        store = self._intrinsic(f"llvm.masked.store.v{self.lanes}f{self.item * 8}.p0", _VOID,
                                [self.vt, _PTR, _I32, self.mt])
        count = _I64(len(self.accs))
        stop = b.select(b.icmp_signed("<", b.add(k0, count), ckk), count, b.sub(ckk, k0))

        def tap(p):
            row = b.mul(b.add(k0, p), o)
            for v, (start, mask) in enumerate(zip(starts, masks)):
                slot = b.add(b.mul(p, _I64(self.VECTORS)), _I64(v))
                value = b.load(b.gep(self.spill, [slot], source_etype=self.vt), typ=self.vt)
                b.call(store, [value, b.gep(dw, [b.add(row, start)], source_etype=self.ft),
                               _I32(self.item), mask])
        self._loop(self.counters[4], _I64(0), stop, 1, tap)

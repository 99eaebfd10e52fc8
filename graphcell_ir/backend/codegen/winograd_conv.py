"""The Winograd convolution kernel: a 3x3, stride-1 convolution of one zero-padded sample by
F(2x2, 3x3) (Lavin and Gray, 2016: 16 multiplies per 2x2 outputs and channel pair, not 36),
written as LLVM IR with explicit vectors on ``direct_conv``'s builder (its loops, masks, splats).

``conv_winograd(xp, u, w, y, work, hp, wp)``, one sample:

- ``xp`` (1-D): the sample's C planes zero-padded to ``hp x wp`` by ``direct_conv``'s
  ``pad_image``, ``(hp, wp) = padded_size(OH, OW)``: whole 2x2 output tiles, each reading the
  4x4 inputs from row and column ``2 * its index`` (an odd size's last tile reads a row or
  column of zeros), followed by the tail of :func:`image_size` (the last tiles' vectors read
  past the planes into lanes that are never stored);
- ``u`` (3-D, ``(16, OPAD, C)``): the transformed filter ``G w[o, c] G^T`` (4x4, its 16
  elements outermost, output channels zero-padded to a multiple of ``direct_conv.OUT_TILE``):
  :func:`filter_matrix` times the filter (one BLAS product);
- ``w`` (1-D): the filter itself, C-ordered ``(O, C, 3, 3)``: the direct sums of the outputs
  the transforms make NaN (below);
- ``y`` (3-D, ``(O, OH, OW)``): the sample's NCHW output;
- ``work`` (1-D, at least :func:`work_size` elements): one band's input and product tiles.

A tile row's tiles are cut into vectors of ``W`` lanes (a slot: ``W`` neighbouring tiles),
:data:`BAND` slots at a time. Per band: every channel's input tiles ``V = B^T d B`` (the
image rows' even and odd columns deinterleaved by shuffles; 16 vectors per channel and slot),
then per element ``e`` of the 16 the products ``M[e] = sum over c of U[e, o, c] * V[e, c]``
(register tiles of ``OUT_TILE`` output channels by ``Q`` slots as ``conv_direct``'s: one fused
multiply-add per channel, in channel order from +0.0), then each output channel's 2x2 tiles
``A^T M A`` interleaved back into two rows (masked stores: no junk columns or rows). ``W``
and ``Q`` are :func:`shape_of_band`'s.

The rounding is not the direct kernel's: the transforms' additions come before and after the
products (the error is a small multiple of the direct kernel's; the tests compare with the
references' tolerances). Outputs the transforms make NaN are the direct kernel's: they subtract
inputs, so an infinite input alone made the outputs of the tiles that read it NaN (``inf -
inf``) where the direct sum, the reference and MindSpore keep ``±inf`` (and inputs near the
largest float overflow in them). So while the output transform stores a slot's tiles it ORs
an unordered compare of their outputs into a lane mask (two compares and two ORs per channel:
~0.6% more instructions, no measurable time), and a slot with a flagged tile calls a cold,
scalar function (:meth:`_Builder._build_repair`) that recomputes each NaN output of those
tiles exactly as ``conv_direct`` sums it (over c, i, j from +0.0, one fused multiply-add
each, from the padded image and ``w``: its bits). A NaN input still gives NaN (the direct sum
does too; the repair stops at the first channel that makes its sum NaN). An output the
transforms made ``±inf`` by overflow where the direct sum is finite is not repaired (only NaN
is flagged).

Example::

    >>> import llvmlite.ir as ir
    >>> module = ir.Module()
    >>> fn = function(module, NAME, kinds(NAME, "float32"))
    >>> "llvm.fma.v" in str(module), padded_size(32, 31)
    (True, (34, 34))
"""
from __future__ import annotations

from pathlib import Path

import llvmlite.ir as ir
import numpy as np

from graphcell_ir.backend.codegen import direct_conv as D

SOURCE = Path(__file__).read_text() + D.SOURCE
"""This module's text and the builder's it extends: the kernel's key in the object store."""
NAME = "conv_winograd"
PIPELINE = True
"""``codegen.pipeline``: O2, not the short pipeline of the other hand-written kernels: a
ResNet block's forward ran 1.49-1.50 ms with it against 1.53-1.55 (one core, three pairs), and
only RESBLOCK-sized layers compile this object."""
ELEMENTS = 16
"""Elements of a transformed 4x4 tile."""
BAND = 4
"""Slots of tiles a band transforms, multiplies and transforms back while its tiles are in
the caches (a multiple of every target's ``Q``, :func:`shape_of_band`)."""
LANES = 16
"""The widest vector's lanes (16 float32): the buffers are sized for it whatever the target."""

_I1, _I32, _I64, _PTR, _VOID = D._I1, D._I32, D._I64, D._PTR, D._VOID
_SIGNATURES = {NAME: ((1, 3, 1, 3, 1), 2)}
"""The function's array ranks and int64 scalars."""


def kinds(name: str, dtype: str) -> tuple:
    """The argument kinds of :data:`NAME` for a float dtype (its one signature)."""
    arrays, scalars = _SIGNATURES[name]
    return tuple(("array", dtype, d) for d in arrays) + (("scalar", "int64"),) * scalars


def shape_of_band(dtype: str, features: str) -> tuple[int, int]:
    """``(W, Q)``: lanes of a vector and slots of a register tile for ``dtype`` on a target
    with LLVM features ``features``: ``direct_conv``'s lanes; 2 slots (16 accumulators) with
    AVX-512's 32 registers, else 1. Two slots by 8 channels keep the FMAs busy (2 loads and 8
    broadcasts per 16 FMAs) and divide a band of 4: no second, shorter tile for a band's last
    slot (3 slots ran as fast and took 15-20 ms more of LLVM in every cold compile)."""
    lanes, q = D.shape_of_tile(dtype, features)
    return lanes, min(q, 2)


def filter_matrix(dtype) -> np.ndarray:
    """The (16, 9) matrix ``T`` with ``u[:, o, c] = T @ w[o, c].ravel()``: ``G w G^T`` of a
    3x3 filter ``w`` (G's rows (1, 0, 0), (1/2, 1/2, 1/2), (1/2, -1/2, 1/2), (0, 0, 1)), its
    16 elements in row order; entries 0, +-1/4, +-1/2 and 1, exact in any float. The whole
    transform is then one product ``T @ w.reshape(O*C, 9).T`` (in the runner's ``np.matmul``
    and the step's same BLAS call), not a loop of its own: that loop's object took ~25 ms of
    every cold compile that convolves on this kernel."""
    g = np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]])
    return np.kron(g, g).astype(dtype)


def padded_size(oh: int, ow: int) -> tuple[int, int]:
    """``(hp, wp)``: the padded planes of an ``oh x ow`` output: whole 2x2 tiles of 4x4 inputs
    (an odd size's last tile reads a row or column of zeros)."""
    return 2 * -(-oh // 2) + 2, 2 * -(-ow // 2) + 2


def image_size(c: int, hp: int, wp: int) -> int:
    """Elements of a sample's padded image: its planes and a tail the last tiles' vectors read
    (two vectors and two columns from a row's start)."""
    return c * hp * wp + 2 * LANES + 2


def work_size(c: int, opad: int) -> int:
    """Elements of ``work`` for ``c`` input and ``opad`` (padded) output channels: a band's
    input and product tiles, a vector more per element (each element's stream starts in another
    cache set: 16 streams a whole multiple of 4 KiB apart thrashed L1, 1.3x slower), and room
    to align them to a cache line (a vector store then never splits one)."""
    return ELEMENTS * ((c + opad) * BAND * LANES + 2 * LANES) + LANES


def function(module: ir.Module, name: str, kinds) -> ir.Function:
    """The implementation of :data:`NAME` for argument ``kinds`` in ``module`` (internal;
    arrays as data pointer and dimensions); Unsupported for other kinds."""
    dtype = D.checked_dtype(name, kinds, _SIGNATURES, "the Winograd convolution's module")
    lanes, q = shape_of_band(dtype, D._features())
    return _Builder(module, dtype, lanes, q).build_winograd()


class _Builder(D._Builder):
    """One ``conv_winograd`` for a dtype, ``lanes`` per vector and ``q`` slots per register
    tile."""

    def build_winograd(self) -> ir.Function:
        """The kernel: bands of :data:`BAND` slots over the sample's slots (the last band
        shorter). ``work`` holds, from its first cache line, the band's input tiles ``V[e, r,
        c]`` and then its products ``M[e, r, o]`` (slot ``r`` of the band), each element a
        vector further than the last one's end."""
        self.repair = self._build_repair()
        params = [_PTR, _I64, _PTR, _I64, _I64, _I64, _PTR, _I64, _PTR, _I64, _I64, _I64, _PTR,
                  _I64, _I64, _I64]
        (xp, _, u, _, opad, c, w, _, y, o, oh, ow, work, _, hp, wp) = self._begin(NAME, params)
        b, lanes = self.b, self.lanes
        self.spoiled = b.alloca(self.mt, name="spoiled")
        self.accs = [[b.alloca(self.vt, name=f"acc{t}_{r}") for r in range(self.q)]
                     for t in range(D.OUT_TILE)]
        self.counters = [b.alloca(_I64, name=f"i{k}") for k in range(5)]
        self.lane_ids = ir.Constant(ir.VectorType(_I64, lanes), [_I64(k) for k in range(lanes)])
        tiles = b.sdiv(b.sub(wp, _I64(2)), _I64(2))   # of a tile row
        nv = b.sdiv(b.add(tiles, _I64(lanes - 1)), _I64(lanes))   # slots of a tile row
        slots = b.mul(b.sdiv(b.sub(hp, _I64(2)), _I64(2)), nv)
        work = b.inttoptr(b.and_(b.add(b.ptrtoint(work, _I64), _I64(63)), _I64(-64)), _PTR)
        ve = b.add(b.mul(c, _I64(BAND * lanes)), _I64(lanes))
        g = dict(xp=xp, u=u, w=w, y=y, o=o, oh=oh, ow=ow, c=c, opad=opad, wp=wp, nv=nv,
                 plane=b.mul(hp, wp), v=work,
                 m=b.gep(work, [b.mul(_I64(ELEMENTS), ve)], source_etype=self.ft),
                 ve=ve, me=b.add(b.mul(opad, _I64(BAND * lanes)), _I64(lanes)))

        def band(s0):
            rest = b.sub(slots, s0)
            nb = b.select(b.icmp_signed("<", rest, _I64(BAND)), rest, _I64(BAND))
            self._inputs(s0, nb, g)
            self._products(nb, g)
            self._outputs(s0, nb, g)
        self._loop(self.counters[0], _I64(0), slots, BAND, band)
        b.ret_void()
        return self.fn

    def _slot(self, s, g):
        """(first image row, first column) of slot ``s``'s tiles (row 2*a, column 2*lanes*k)."""
        b = self.b
        trow = b.sdiv(s, g["nv"])
        col = b.mul(b.sub(s, b.mul(trow, g["nv"])), _I64(2 * self.lanes))
        return b.mul(trow, _I64(2)), col

    def _vload(self, base, at):
        """The vector at element ``at`` of ``base``."""
        return self.b.load(self.b.gep(base, [at], source_etype=self.ft), typ=self.vt,
                           align=self.item)

    def _vstore(self, value, base, at):
        """``base[at:at + lanes] = value``."""
        self.b.store(value, self.b.gep(base, [at], source_etype=self.ft), align=self.item)

    def _inputs(self, s0, nb, g) -> None:
        """``V[e, r, ci] = (B^T d B)[e]`` of channel ci's tiles in slot ``s0 + r``, ``r <
        nb``: each of the tiles' four image rows as its columns ``2t + j`` (``j < 4``, lane
        ``t``), two shuffles of two loads per pair of ``j``."""
        b, lanes = self.b, self.lanes
        even = ir.Constant(ir.VectorType(_I32, lanes), [2 * k for k in range(lanes)])
        odd = ir.Constant(ir.VectorType(_I32, lanes), [2 * k + 1 for k in range(lanes)])

        def slot(r):
            row, col = self._slot(b.add(s0, r), g)
            read = b.add(b.mul(row, g["wp"]), col)

            def channel(ci):
                base = b.add(b.mul(ci, g["plane"]), read)
                d = []
                for i in range(4):
                    at = b.add(base, b.mul(_I64(i), g["wp"]))
                    lo0 = self._vload(g["xp"], at)
                    hi0 = self._vload(g["xp"], b.add(at, _I64(lanes)))
                    lo2 = self._vload(g["xp"], b.add(at, _I64(2)))
                    hi2 = self._vload(g["xp"], b.add(at, _I64(lanes + 2)))
                    d.append([b.shuffle_vector(lo0, hi0, even), b.shuffle_vector(lo0, hi0, odd),
                              b.shuffle_vector(lo2, hi2, even), b.shuffle_vector(lo2, hi2, odd)])
                t = [[b.fsub(d[0][j], d[2][j]) for j in range(4)],
                     [b.fadd(d[1][j], d[2][j]) for j in range(4)],
                     [b.fsub(d[2][j], d[1][j]) for j in range(4)],
                     [b.fsub(d[1][j], d[3][j]) for j in range(4)]]
                v = [[b.fsub(t[i][0], t[i][2]), b.fadd(t[i][1], t[i][2]),
                      b.fsub(t[i][2], t[i][1]), b.fsub(t[i][1], t[i][3])] for i in range(4)]
                at = b.mul(b.add(b.mul(r, g["c"]), ci), _I64(lanes))
                for e in range(ELEMENTS):
                    self._vstore(v[e // 4][e % 4], g["v"], b.add(b.mul(_I64(e), g["ve"]), at))
            self._loop(self.counters[2], _I64(0), g["c"], 1, channel)
        self._loop(self.counters[1], _I64(0), nb, 1, slot)

    def _products(self, nb, g) -> None:
        """``M[e, r, o] = sum over ci of U[e, o, ci] * V[e, r, ci]``: per element, register
        tiles of ``OUT_TILE`` channels by ``q`` slots. A short band's last tile may take a slot
        past ``nb``: it reads and writes the band's buffers there (an earlier band's tiles, or
        the work's first contents), and no output is ever taken from it."""
        b, q = self.b, self.q

        def element(e):
            self._loop(self.counters[2], _I64(0), nb, q, lambda r0: self._tiles(e, r0, q, g))
        self._loop(self.counters[1], _I64(0), _I64(ELEMENTS), 1, element)

    def _tiles(self, e, r0, q, g) -> None:
        """Element ``e``'s products of slots ``r0:r0+q`` for every tile of output channels."""
        b, lanes = self.b, self.lanes
        fma = self._intrinsic(f"llvm.fma.v{lanes}f{self.item * 8}", self.vt,
                              [self.vt, self.vt, self.vt])
        zero = ir.Constant(self.vt, None)
        accs = [tile[:q] for tile in self.accs]

        def out_tile(o0):
            for tile in accs:
                for acc in tile:
                    b.store(zero, acc)

            def channel(ci):
                vat = b.add(b.mul(e, g["ve"]), b.mul(b.add(b.mul(r0, g["c"]), ci), _I64(lanes)))
                xs = [self._vload(g["v"], b.add(vat, b.mul(_I64(r * lanes), g["c"])))
                      for r in range(q)]
                urow = b.add(b.mul(b.add(b.mul(e, g["opad"]), o0), g["c"]), ci)
                for t in range(D.OUT_TILE):
                    at = b.add(urow, b.mul(_I64(t), g["c"]))
                    w = b.load(b.gep(g["u"], [at], source_etype=self.ft), typ=self.ft)
                    wv = self._splat(w, self.ft)
                    for acc, xv in zip(accs[t], xs):
                        b.store(b.call(fma, [wv, xv, b.load(acc)]), acc)
            self._loop(self.counters[4], _I64(0), g["c"], 1, channel)
            for t in range(D.OUT_TILE):
                mat = b.add(b.mul(e, g["me"]),
                            b.mul(b.add(b.mul(r0, g["opad"]), b.add(o0, _I64(t))), _I64(lanes)))
                for r in range(q):
                    self._vstore(b.load(accs[t][r]), g["m"],
                                 b.add(mat, b.mul(_I64(r * lanes), g["opad"])))
        self._loop(self.counters[3], _I64(0), g["opad"], D.OUT_TILE, out_tile)

    def _outputs(self, s0, nb, g) -> None:
        """y's 2x2 tiles (A^T m A) of each output channel at slot ``s0 + r``: two rows of each,
        their even and odd columns interleaved, masked at the right and bottom edges."""
        b, lanes = self.b, self.lanes
        store = self._intrinsic(f"llvm.masked.store.v{lanes}f{self.item * 8}.p0", _VOID,
                                [self.vt, _PTR, _I32, self.mt])
        halves = [ir.Constant(ir.VectorType(_I32, lanes),
                              [h * lanes // 2 + k // 2 + (lanes if k % 2 else 0)
                               for k in range(lanes)]) for h in (0, 1)]
        out_plane = b.mul(g["oh"], g["ow"])

        def slot(r):
            row0, col0 = self._slot(b.add(s0, r), g)
            b.store(ir.Constant(self.mt, None), self.spoiled)
            masks = []
            for i in range(2):
                ok = b.icmp_signed("<", b.add(row0, _I64(i)), g["oh"])
                for h in range(2):
                    left = b.select(ok, b.sub(g["ow"], b.add(col0, _I64(h * lanes))), _I64(0))
                    masks.append(b.icmp_signed("<", self.lane_ids, self._splat(left, _I64)))
            first = b.add(b.mul(row0, g["ow"]), col0)

            def channel(oi):
                at = b.mul(b.add(b.mul(r, g["opad"]), oi), _I64(lanes))
                m = [self._vload(g["m"], b.add(b.mul(_I64(e), g["me"]), at))
                     for e in range(ELEMENTS)]
                m = [m[4 * i:4 * i + 4] for i in range(4)]
                s = [[b.fadd(b.fadd(m[0][j], m[1][j]), m[2][j]) for j in range(4)],
                     [b.fsub(b.fsub(m[1][j], m[2][j]), m[3][j]) for j in range(4)]]
                yv = [[b.fadd(b.fadd(s[i][0], s[i][1]), s[i][2]),
                       b.fsub(b.fsub(s[i][1], s[i][2]), s[i][3])] for i in range(2)]
                nan = b.or_(b.fcmp_unordered("uno", yv[0][0], yv[0][1]),
                            b.fcmp_unordered("uno", yv[1][0], yv[1][1]))
                b.store(b.or_(b.load(self.spoiled), nan), self.spoiled)
                base = b.add(b.mul(oi, out_plane), first)
                for i in range(2):
                    for h in range(2):
                        vec = b.shuffle_vector(yv[i][0], yv[i][1], halves[h])
                        at = b.add(base, b.add(b.mul(_I64(i), g["ow"]), _I64(h * lanes)))
                        where = b.gep(g["y"], [at], source_etype=self.ft)
                        b.call(store, [vec, where, _I32(self.item), masks[2 * i + h]])
            self._loop(self.counters[2], _I64(0), g["o"], 1, channel)
            self._repair_slot(row0, col0, g)
        self._loop(self.counters[1], _I64(0), nb, 1, slot)

    def _repair_slot(self, row0, col0, g) -> None:
        """After a slot's outputs: when a tile of it (a lane whose first column is an output)
        stored a NaN in any channel, :meth:`_build_repair`'s function on those tiles (a branch
        taken only then: the flags cost two compares and two ORs per channel)."""
        b, lanes = self.b, self.lanes
        tiles = b.sdiv(b.add(b.sub(g["ow"], col0), _I64(1)), _I64(2))   # of this slot, whole
        real = b.icmp_signed("<", self.lane_ids, self._splat(tiles, _I64))
        flagged = b.bitcast(b.and_(b.load(self.spoiled), real), ir.IntType(lanes))
        with b.if_then(b.icmp_unsigned("!=", flagged, ir.Constant(ir.IntType(lanes), 0)),
                       likely=False):
            b.call(self.repair, [g["xp"], g["w"], g["y"], g["c"], g["o"], g["oh"], g["ow"],
                                 g["wp"], g["plane"], row0, col0, b.zext(flagged, _I64)])

    def _build_repair(self) -> ir.Function:
        """``repair(xp, w, y, c, o, oh, ow, wp, plane, row0, col0, tiles)``: every NaN output of
        the slot's tiles whose lane bit is set in ``tiles`` (the 2x2 outputs from row ``row0``,
        column ``col0 + 2 * lane``, every output channel) recomputed as ``conv_direct`` sums it:
        over c, i, j in that order, one fused multiply-add each from +0.0, of ``w[o, c, i, j] *
        xp[c, row + i, column + j]`` (so its bits), stopped at the first channel after which the
        sum is NaN (it stays NaN). Why: F(2x2, 3x3)'s transforms subtract inputs, so an infinite
        input gives ``inf - inf`` where the direct sum keeps ``+-inf`` (MindSpore's result);
        such outputs are rare, so a cold, scalar function of its own keeps the kernel's loops
        as they were, and LLVM does not optimise it (``optnone``): optimised it added ~18 ms to
        the object's ~68 of every cold compile that takes the kernel, unoptimised ~5 (a
        batch all NaN then takes 12.5 ms a RESBLOCK forward on one core instead of 5.3; ~1.9
        without non-finite values either way)."""
        params = [_PTR, _PTR, _PTR] + [_I64] * 9
        xp, w, y, c, o, oh, ow, wp, plane, row0, col0, tiles = self._begin(
            f"{NAME}_repair", params)
        fn = self.fn
        fn.attributes.add("noinline")
        fn.attributes.add("cold")
        fn.attributes.add("optnone")
        b = self.b
        fma = self._intrinsic(f"llvm.fma.f{self.item * 8}", self.ft, [self.ft] * 3)
        counters = [b.alloca(_I64, name=f"r{k}") for k in range(4)]
        acc = b.alloca(self.ft, name="sum")

        def output(oi, oy, ox):
            at = b.gep(y, [b.add(b.mul(b.add(b.mul(oi, oh), oy), ow), ox)],
                       source_etype=self.ft)
            old = b.load(at, typ=self.ft)
            with b.if_then(b.fcmp_unordered("uno", old, old), likely=False):
                b.store(ir.Constant(self.ft, 0.0), acc)
                self._channels_while_not_nan(c, counters[3], acc, lambda ci: [
                    (b.gep(w, [b.add(b.mul(b.add(b.mul(oi, c), ci), _I64(9)), _I64(3 * i + j))],
                           source_etype=self.ft),
                     b.gep(xp, [b.add(b.add(b.mul(ci, plane), b.mul(b.add(oy, _I64(i)), wp)),
                                      b.add(ox, _I64(j)))], source_etype=self.ft))
                    for i in range(3) for j in range(3)], fma)
                b.store(b.load(acc), at)

        def lane(t):
            bit = b.and_(b.lshr(tiles, t), _I64(1))
            with b.if_then(b.icmp_unsigned("!=", bit, _I64(0))):
                def channel(oi):
                    def position(k):   # output (k // 2, k % 2) of the tile: one copy of the code
                        oy = b.add(row0, b.lshr(k, _I64(1)))
                        ox = b.add(col0, b.add(b.mul(t, _I64(2)), b.and_(k, _I64(1))))
                        inside = b.and_(b.icmp_signed("<", oy, oh), b.icmp_signed("<", ox, ow))
                        with b.if_then(inside):
                            output(oi, oy, ox)
                    self._loop(counters[2], _I64(0), _I64(4), 1, position)
                self._loop(counters[1], _I64(0), o, 1, channel)
        self._loop(counters[0], _I64(0), _I64(self.lanes), 1, lane)
        b.ret_void()
        return fn

    def _channels_while_not_nan(self, c, counter, acc, taps, fma) -> None:
        """``for ci in range(c)``, while ``acc`` is not NaN: ``acc = fma(*w, *x, acc)`` for each
        ``(w, x)`` pointer pair of ``taps(ci)`` in order."""
        b = self.b
        b.store(_I64(0), counter)
        head, body, done = (self.fn.append_basic_block(n) for n in ("rhead", "rbody", "rdone"))
        b.branch(head)
        b.position_at_end(head)
        ci, total = b.load(counter), b.load(acc)
        b.cbranch(b.and_(b.icmp_signed("<", ci, c), b.fcmp_ordered("ord", total, total)),
                  body, done)
        b.position_at_end(body)
        total = b.load(acc)
        for wp_, xp_ in taps(ci):
            total = b.call(fma, [b.load(wp_, typ=self.ft), b.load(xp_, typ=self.ft), total])
        b.store(total, acc)
        b.store(b.add(ci, _I64(1), flags=["nsw"]), counter)
        b.branch(head)
        b.position_at_end(done)

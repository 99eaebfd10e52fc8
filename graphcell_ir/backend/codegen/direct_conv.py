"""The direct convolution kernel: a stride-1 convolution of one zero-padded sample, written as
LLVM IR with explicit vectors (the code generator's subset has none, and LLVM's loop vectoriser
does not register-block a convolution).

``conv_direct(xp, wt, y, c, hp, wp, kh, kw)``, one sample:

- ``xp`` (1-D): the sample's C planes, each zero-padded to ``hp x wp`` and laid end to end,
  followed by at least :data:`TAIL` elements (the last vectors of the last rows read past the
  planes into lanes that are never stored): what ``pad_image(x, xp, pt, pl, hp, wp)`` of this
  module writes from a sample ``x`` (C, H, W) with ``pt``/``pl`` rows/columns of zeros
  above/left, zeros after the planes;
- ``wt`` (2-D, ``(C*KH*KW, OPAD)``): the filter with the output channels innermost, zero-padded
  to a multiple of :data:`OUT_TILE` columns (``nn_loops.filter_taps``);
- ``y`` (3-D, ``(O, OH, OW)``): the sample's NCHW output, ``OH = hp - kh + 1``,
  ``OW = wp - kw + 1``.

``y[o, r, v] = sum over c, i, j (in that order, one fused multiply-add each, from +0.0) of
wt[(c*kh + i)*kw + j, o] * xp[c*hp*wp + (r + i)*wp + v + j]``: in the padded planes window offset
``(i, j)`` is the constant offset ``i*wp + j`` of a flat position, so a vector of outputs along
a row is one unaligned load per offset. The outputs are split into vectors of ``W`` lanes along
each row (the last one masked: no junk columns), and a tile of :data:`OUT_TILE` output channels
by ``Q`` such vectors stays in registers across the whole (c, i, j) loop: per offset ``Q``
loads, ``OUT_TILE`` broadcasts of the filter and ``OUT_TILE * Q`` FMAs. ``W`` and ``Q`` come
from the target's features (:func:`shape_of_tile`): AVX-512 has 32 vector registers (8 x 3
accumulators), AVX/AVX2 and SSE 16 (8 x 1). Any x86-64 runs the code (LLVM splits a vector wider
than the target's), only slower.

:func:`function` builds it into an llvmlite module the way the code generator's
``ModuleLowering.function`` builds a source function: an internal implementation taking each
array as its data pointer and dimensions, behind the entries of ``native/abi.py``
(``codegen.lower_module`` asks this module when it is given :data:`SOURCE`).

Example::

    >>> import llvmlite.ir as ir
    >>> module = ir.Module()
    >>> fn = function(module, NAME, kinds(NAME, "float32"))
    >>> "llvm.fma.v" in str(module) and "llvm.masked.store.v" in str(module)
    True
    >>> shape_of_tile("float32", "+avx,+avx2,-avx512f"), padded_outputs(33)
    ((8, 1), 40)
"""
from __future__ import annotations

import functools
from pathlib import Path

import llvmlite.ir as ir

from graphcell_ir.backend.lower import Unsupported

SOURCE = Path(__file__).read_text()
"""This module's text: the "source" the object store and the step name the kernel by (a change
to the kernel changes its key)."""
NAME = "conv_direct"
PAD = "pad_image"
OUT_TILE = 8
"""Output channels per register tile, whatever the target (the caller pads the filter's columns
to a multiple of it)."""
TAIL = 16
"""Elements the padded image holds past its planes: the widest vector (16 float32 lanes)."""
READ_AHEAD, WRITE_AHEAD = 8192, 4096
"""Bytes ahead of a row's vector at which ``pad_image`` prefetches the image it reads and the
padded image it writes: from memory, the hardware's prefetcher alone left it at half numpy's
copy (docs/decisions.md, pad25). Prefetches do not fault, so past the arrays' ends is safe."""

_I1, _I32, _I64, _PTR, _VOID = ir.IntType(1), ir.IntType(32), ir.IntType(64), \
    ir.PointerType(), ir.VoidType()


def kinds(name: str, dtype: str) -> tuple:
    """The argument kinds of function ``name`` (:data:`NAME`, :data:`PAD`) for a float dtype
    (its one signature)."""
    arrays, scalars = _SIGNATURES[name]
    return tuple(("array", dtype, d) for d in arrays) + (("scalar", "int64"),) * scalars


def padded_outputs(o: int) -> int:
    """The filter's columns for ``o`` output channels: a multiple of :data:`OUT_TILE`."""
    return -(-o // OUT_TILE) * OUT_TILE


def image_size(c: int, hp: int, wp: int) -> int:
    """Elements of a sample's padded image: its C planes and the :data:`TAIL`."""
    return c * hp * wp + TAIL


def shape_of_tile(dtype: str, features: str) -> tuple[int, int]:
    """``(W, Q)``: lanes of a vector and vectors of a tile for ``dtype`` on a target with LLVM
    features ``features`` (``+avx512f,...``)."""
    have = {f[1:] for f in features.split(",") if f.startswith("+")}
    bits = 512 if "avx512f" in have else 256 if "avx" in have else 128
    lanes = bits // (32 if dtype == "float32" else 64)
    return lanes, 3 if bits == 512 else 1


def _features() -> str:
    from graphcell_ir.backend.native.target import emit_target
    return emit_target().features


def checked_dtype(name: str, kinds, signatures: dict, module: str) -> str:
    """The one float dtype of argument ``kinds`` when they are what ``signatures[name]``
    (``(array ranks, int64 scalars)``) says function ``name`` takes; Unsupported naming
    ``module`` (the hand-written kernels' modules check their calls alike)."""
    if name not in signatures:
        raise Unsupported(f"no function {name!r} in {module}")
    dtypes = {k[1] for k in kinds if k[0] == "array"}
    shape = [(k[0], k[2] if k[0] == "array" else k[1]) for k in kinds]
    arrays, scalars = signatures[name]
    if shape != [("array", d) for d in arrays] + [("scalar", "int64")] * scalars or \
            len(dtypes) != 1 or not dtypes <= {"float32", "float64"}:
        raise Unsupported(f"{name} takes arrays of {arrays} dimensions of one float dtype and "
                          f"{scalars} int64, not {kinds}")
    return dtypes.pop()


def function(module: ir.Module, name: str, kinds) -> ir.Function:
    """The implementation of kernel ``name`` for argument ``kinds`` in ``module`` (internal;
    arrays as data pointer and dimensions); Unsupported for other kinds."""
    dtype = checked_dtype(name, kinds, _SIGNATURES, "the direct convolution's module")
    lanes, q = shape_of_tile(dtype, _features())
    builder = _Builder(module, dtype, lanes, q)
    return builder.build() if name == NAME else builder.build_pad()


_SIGNATURES = {NAME: ((1, 2, 3), 5), PAD: ((3, 1), 4)}
"""Each function's array ranks and int64 scalars."""


class _Builder:
    """One ``conv_direct`` for a dtype, ``lanes`` per vector and ``q`` vectors per tile."""

    def __init__(self, module: ir.Module, dtype: str, lanes: int, q: int):
        self.m, self.lanes, self.q = module, lanes, q
        self.ft = ir.FloatType() if dtype == "float32" else ir.DoubleType()
        self.item = 4 if dtype == "float32" else 8
        self.vt = ir.VectorType(self.ft, lanes)
        self.mt = ir.VectorType(_I1, lanes)

    def _begin(self, name: str, params: list) -> list:
        """A new internal function ``gc.<name>.<n>`` taking ``params`` (its pointers noalias:
        the arrays a kernel is handed never overlap), ``self.b`` at its entry; its arguments."""
        fn = self.fn = ir.Function(self.m, ir.FunctionType(_VOID, params),
                                   f"gc.{name}.{len(self.m.functions)}")
        fn.linkage = "internal"
        for arg, typ in zip(fn.args, params):
            if typ is _PTR:
                arg.add_attribute("noalias")
        self.b = ir.IRBuilder(fn.append_basic_block("entry"))
        return fn.args

    def _intrinsic(self, name: str, ret, args) -> ir.Function:
        if name in self.m.globals:
            return self.m.globals[name]
        return ir.Function(self.m, ir.FunctionType(ret, args), name)

    def build(self) -> ir.Function:
        params = [_PTR, _I64, _PTR, _I64, _I64, _PTR, _I64, _I64, _I64] + [_I64] * 5
        xp, _, wt, _, opad, y, o, oh, ow, c, hp, wp, kh, kw = self._begin(NAME, params)
        b = self.b
        lanes, q = self.lanes, self.q
        self.accs = [[b.alloca(self.vt, name=f"acc{t}_{r}") for r in range(q)]
                     for t in range(OUT_TILE)]
        self.counters = [b.alloca(_I64, name=f"i{k}") for k in range(6)]
        nv = b.sdiv(b.add(ow, _I64(lanes - 1)), _I64(lanes))   # vectors per output row
        slots = b.mul(oh, nv)
        plane, out_plane = b.mul(hp, wp), b.mul(oh, ow)
        taps = b.mul(kh, kw)
        lane_ids = ir.Constant(ir.VectorType(_I64, lanes), [_I64(k) for k in range(lanes)])

        def out_tile(o0):
            def slot_group(s0):
                self._tile(xp, wt, y, opad, o, o0, s0, nv, slots, plane, out_plane, c, wp,
                           kh, kw, taps, ow, lane_ids)
            self._loop(self.counters[1], _I64(0), slots, q, slot_group)
        self._loop(self.counters[0], _I64(0), o, OUT_TILE, out_tile)
        b.ret_void()
        return self.fn

    def build_pad(self) -> ir.Function:
        """``pad_image(x, xp, pt, pl, hp, wp)``: ``xp[(c*hp + pt + y)*wp + pl + v] = x[c, y,
        v]``, zeros around and after the planes. Written in address order as the image's rows,
        each followed by the zeros up to the next row (the right and left padding between two
        rows of a plane; between planes the rows below and above too; after the last, the
        rest of the image): per row its whole vectors by unmasked loads and stores and masked
        ones only for a partial last vector and the zeros. Masked stores everywhere made the
        former version 1.8x numpy's copy with its source in the caches and 3.5x from memory (a
        ResNet block's 32 planes of 32x32, docs/decisions.md, pad25)."""
        params = [_PTR, _I64, _I64, _I64, _PTR, _I64] + [_I64] * 4
        x, c, h, wd, xp, size, pt, pl, hp, wp = self._begin(PAD, params)
        b = self.b
        self.counters = [b.alloca(_I64, name=f"i{k}") for k in range(3)]
        self.lane_ids = ir.Constant(ir.VectorType(_I64, self.lanes),
                                    [_I64(k) for k in range(self.lanes)])
        zero = ir.Constant(self.vt, None)
        whole = b.mul(b.sdiv(wd, _I64(self.lanes)), _I64(self.lanes))   # a row's whole vectors
        between = b.sub(wp, wd)                                          # right + left padding
        across = b.add(between, b.mul(b.sub(hp, h), wp))                 # and below + above
        first = b.add(b.mul(pt, wp), pl)
        empty = b.icmp_signed("==", b.mul(c, h), _I64(0))
        self._span(xp, _I64(0), b.select(empty, size, first), lambda k, m: zero)

        def plane(ci):
            self._loop(self.counters[2], _I64(0), h, 1, lambda y: row(ci, y))

        def row(ci, y):   # row y of plane ci, then the zeros up to the next row
            src = b.mul(b.add(b.mul(ci, h), y), wd)
            at = b.add(b.mul(b.add(b.add(b.mul(ci, hp), pt), y), wp), pl)
            self._run_on(xp, at, whole,
                         lambda k: self._prefetched(x, b.add(src, k), xp, b.add(at, k)))
            rest = b.sub(wd, whole)   # fewer than a vector: at most one masked piece
            with b.if_then(b.icmp_signed(">", rest, _I64(0))):
                self._piece(xp, b.add(at, whole), rest,
                            lambda m: self._masked_load(x, b.add(src, whole), m))
            end = b.add(at, wd)
            last_row = b.icmp_signed("==", y, b.sub(h, _I64(1)))
            last = b.and_(last_row, b.icmp_signed("==", ci, b.sub(c, _I64(1))))
            gap = b.select(last, b.sub(size, end), b.select(last_row, across, between))
            self._span(xp, end, gap, lambda k, m: zero)
        self._loop(self.counters[0], _I64(0), c, 1, plane)
        b.ret_void()
        return self.fn

    def _run_on(self, dst, start, count, value) -> None:
        """``dst[start + k] = value(k)[lane]`` for ``k < count``, a multiple of the lanes, a
        whole vector at a time."""
        self._loop(self.counters[1], _I64(0), count, self.lanes,
                   lambda k: self._store(value(k), self.b.add(start, k), dst))

    def _prefetched(self, src, at, dst, to):
        """The vector at ``src[at]``, prefetching :data:`READ_AHEAD` bytes ahead of it in
        ``src`` and :data:`WRITE_AHEAD` bytes ahead of ``dst[to]`` (for writing)."""
        b = self.b
        fetch = self._intrinsic("llvm.prefetch.p0", _VOID, [_PTR, _I32, _I32, _I32])
        for array, k, ahead, write in ((src, at, READ_AHEAD, 0), (dst, to, WRITE_AHEAD, 1)):
            ahead = b.gep(array, [b.add(k, _I64(ahead // self.item))], source_etype=self.ft)
            b.call(fetch, [ahead, _I32(write), _I32(3), _I32(1)])
        return self._load(src, at)

    def _load(self, src, at):
        """The vector at ``src[at]`` (unaligned)."""
        return self.b.load(self.b.gep(src, [at], source_etype=self.ft), typ=self.vt,
                           align=self.item)

    def _store(self, value, at, dst) -> None:
        """``dst[at:at + lanes] = value`` (unaligned)."""
        p = self.b.gep(dst, [at], source_etype=self.ft)
        self.b.store(value, p, align=self.item)

    def _span(self, dst, start, count, value) -> None:
        """``dst[start + k] = value(k, mask)[lane]`` for ``k < count``, a vector at a time
        (the last one masked)."""
        b = self.b
        self._loop(self.counters[1], _I64(0), count, self.lanes,
                   lambda k: self._piece(dst, b.add(start, k), b.sub(count, k),
                                         lambda m: value(k, m)))

    def _piece(self, dst, at, left, value) -> None:
        """``dst[at + lane] = value(mask)[lane]`` for the lanes below ``left``."""
        b = self.b
        store = self._intrinsic(f"llvm.masked.store.v{self.lanes}f{self.item * 8}.p0", _VOID,
                                [self.vt, _PTR, _I32, self.mt])
        mask = b.icmp_signed("<", self.lane_ids, self._splat(left, _I64))
        b.call(store, [value(mask), b.gep(dst, [at], source_etype=self.ft), _I32(self.item),
                       mask])

    def _masked_load(self, src, at, mask):
        load = self._intrinsic(f"llvm.masked.load.v{self.lanes}f{self.item * 8}.p0", self.vt,
                               [_PTR, _I32, self.mt, self.vt])
        return self.b.call(load, [self.b.gep(src, [at], source_etype=self.ft), _I32(self.item),
                                  mask, ir.Constant(self.vt, None)])

    def _loop(self, counter, start, stop, step: int, body) -> None:
        """``for k in range(start, stop, step): body(k)`` (counter in an alloca: mem2reg)."""
        b = self.b
        b.store(start, counter)
        head, loop, done = (self.fn.append_basic_block(n) for n in ("head", "body", "done"))
        b.branch(head)
        b.position_at_end(head)
        k = b.load(counter)
        b.cbranch(b.icmp_signed("<", k, stop), loop, done)
        b.position_at_end(loop)
        body(k)
        b.store(b.add(b.load(counter), _I64(step), flags=["nsw"]), counter)
        b.branch(head)
        b.position_at_end(done)

    def _tile(self, xp, wt, y, opad, o, o0, s0, nv, slots, plane, out_plane, c, wp, kh, kw,
              taps, ow, lane_ids) -> None:
        """Output channels ``o0:o0+OUT_TILE`` at the ``q`` vector slots from ``s0``: each slot
        is vector ``k`` of row ``r`` (``s = r*nv + k``); a slot past the last reads the image's
        first vector and stores nothing."""
        b, lanes = self.b, self.lanes
        zero = ir.Constant(self.vt, None)
        reads, outs, masks = [], [], []
        for r in range(self.q):
            s = b.add(s0, _I64(r))
            real = b.icmp_signed("<", s, slots)
            row = b.sdiv(s, nv)
            col = b.mul(b.sub(s, b.mul(row, nv)), _I64(lanes))
            reads.append(b.select(real, b.add(b.mul(row, wp), col), _I64(0)))
            outs.append(b.add(b.mul(row, ow), col))
            left = b.select(real, b.sub(ow, col), _I64(0))   # lanes of this row left
            masks.append(b.icmp_signed("<", lane_ids, self._splat(left, _I64)))
        for tile in self.accs:
            for acc in tile:
                b.store(zero, acc)
        fma = self._intrinsic(f"llvm.fma.v{lanes}f{self.item * 8}", self.vt,
                              [self.vt, self.vt, self.vt])

        def channel(ci):
            def kernel_row(i):
                base = b.add(b.mul(ci, plane), b.mul(i, wp))
                tap0 = b.mul(b.add(b.mul(ci, kh), i), kw)

                def offset(j):
                    at = b.add(base, j)
                    xs = [b.load(b.gep(xp, [b.add(at, rd)], source_etype=self.ft),
                                 typ=self.vt, align=self.item) for rd in reads]
                    wrow = b.add(b.mul(b.add(tap0, j), opad), o0)
                    for t in range(OUT_TILE):
                        w = b.load(b.gep(wt, [b.add(wrow, _I64(t))], source_etype=self.ft),
                                   typ=self.ft)
                        wv = self._splat(w, self.ft)
                        for acc, xv in zip(self.accs[t], xs):
                            b.store(b.call(fma, [wv, xv, b.load(acc)]), acc)
                self._loop(self.counters[4], _I64(0), kw, 1, offset)
            self._loop(self.counters[3], _I64(0), kh, 1, kernel_row)
        self._loop(self.counters[2], _I64(0), c, 1, channel)
        store = self._intrinsic(f"llvm.masked.store.v{lanes}f{self.item * 8}.p0", _VOID,
                                [self.vt, _PTR, _I32, self.mt])
        for t in range(OUT_TILE):
            ot = b.add(o0, _I64(t))
            with b.if_then(b.icmp_signed("<", ot, o)):
                base = b.mul(ot, out_plane)
                for acc, at, mask in zip(self.accs[t], outs, masks):
                    where = b.gep(y, [b.add(base, at)], source_etype=self.ft)
                    b.call(store, [b.load(acc), where, _I32(self.item), mask])

    def _splat(self, value, typ):
        """``value`` in every lane."""
        b = self.b
        vt = ir.VectorType(typ, self.lanes)
        one = b.insert_element(ir.Constant(vt, None), value, _I32(0))
        return b.shuffle_vector(one, ir.Constant(vt, None),
                                ir.Constant(ir.VectorType(_I32, self.lanes), [0] * self.lanes))

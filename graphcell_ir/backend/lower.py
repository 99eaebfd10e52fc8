"""Lowering a ``fused`` op to readable Python kernel source (DESIGN §7, STYLE §9.8).

A fused group has one iteration shape (its *domain*, see ``passes.fuse``). The kernel is a loop
nest over that domain; every operand is read with broadcasting index arithmetic (an axis where the
operand has extent 1 is indexed with ``0``), every op of the body becomes one line built from its
registry template (``OpDef.kernel``: ``"{x} + {y}"``, ``"math.exp({x})"``), its value cast to the
op's result dtype so float32 kernels stay float32, and every output is stored once its value is
computed. Each load, op and store sits in the loop of the innermost axis it depends on (before
the loops inside it): batch norm's per-channel ``sqrt`` and divisions run once per channel, not
per element. A reduction accumulates (in the innermost loop) into a keep-dims accumulator array
with its template (``"{acc} + {x}"``), starting from its identity; a group may hold several
reductions of the same axes (``passes.fuse``), one accumulator each; the caller finishes them
(mean's division, the final dtype and shape). Example of what comes out for ``tanh(x * a)`` on
``f32[4,8]``, ``f32[8]``::

    def kernel(x0, x1, out0):
        for i0 in range(x0.shape[0]):
            for i1 in range(x0.shape[1]):
                x0_1 = x0[i0, i1]
                x1_1 = x1[0, i1]
                v2 = float32(x0_1 * x1_1)  # mul
                v3 = float32(min(max((lambda a: ...)(...))))  # tanh (an arithmetic template)
                out0[i0, i1] = v3

When every array spans the whole domain (no broadcasting, no reduction) the nest is collapsed
into one flat loop. A one-element value (Adam's beta powers, a ``momentum > 0`` flag next to
a weight's update) does not depend on the loop indices: it is loaded, computed and stored once
before the loops, not by every iteration on every thread of a parallel loop (a data race, the
same value written concurrently); an output broadcast along a parallel loop's axis otherwise
is stored at that axis's index 0 only.

Loop bounds are read at run time from arrays that span each axis, so the source (the cache key)
holds the broadcasting pattern but not the sizes: a network's optimizer updates, one per
parameter shape, share one compiled kernel.

The source never mentions a location, so it is also the cache key: two structurally equal
groups share one kernel (names are numbered, never the program's: two parameters' updates
differ only in their names).

The loops run in memory order (:func:`loop_nest`): the innermost loop is the last, contiguous
axis whether a reduction keeps or reduces it, so a bias gradient (a sum over axis 0 of a
(128, 1024) array) adds each row into a row of accumulators held in cache, not one column at
a time with 4 KiB strides. A group of :data:`PARALLEL_MIN` elements or more gets a ``prange``
outer loop over an axis every reduction keeps, the first one: itself when nothing before it is
longer than 1, else (from :data:`PARALLEL_MIN_TILED` elements) its tiles (:data:`TILE`,
:data:`MIN_TILES`) with the loops in memory order inside each tile. The code generator runs it
on the native thread pool (whose own threshold applies to each call's sizes). A reduction that
keeps no axis longer than 1 is split into tiles of the first axis (partial results per tile).

**Accumulation order.** Each accumulator element is folded in the order of the reduced axes
(row-major, the domain's order) and by one thread (parallel loops split kept axes only): the
same bits on every call and for any thread count or tile size. A parallel whole-array
reduction (no axis to keep) folds one partial result per tile (the tiles a function of the
shapes), and the caller folds the partials in tile order (``kernels._finish``): the same bits
for any thread count, not the serial nest's. A float64 sum or product whose innermost loop is
reduced is folded in the code's vector lanes, combined in a fixed order at the loop's end
(``codegen.lowering._accumulates``): the compiled code's order, again the same on every call
and thread count.

:func:`lower_fused` raises :class:`Unsupported` (with the reason) for what it cannot lower; the
executable then runs that group with the reference implementations.
"""
from __future__ import annotations

import hashlib
import functools
import io
import re
import tokenize
from dataclasses import dataclass, field

import numpy as np

from graphcell_ir.ir.core import BlockArg, Literal, Op, OpResult, Value
from graphcell_ir.ir.structural import CONST, YIELD, const_array
from graphcell_ir.ir.types import ScalarType, TensorType
from graphcell_ir.ops import reduction as R
from graphcell_ir.ops.registry import Kind
from graphcell_ir.ops.shape_rules import normalize_axes

PARALLEL_MIN = 1 << 18
"""Domains with at least this many elements get a ``prange`` outer loop when they have an axis
to split (the native pool's own threshold, ``native/pool.MIN_WORK``, decides each call: sizes
are read at run time). Memory-bound groups included: W1's 1M-element SGD update ``p - lr * g``
took 0.13 ms on one thread and 0.09 ms on two (best of 30 interleaved calls at load 2.7); at
load 3.5 some rounds' medians on two were 0.6 ms (calls waiting for a descheduled worker before
the pool backs off to serial calls). ``tools/bench_kernels.py --shapes`` measures it."""

TILE = 1 << 14
"""Elements of the contiguous run a tile of a parallel loop over a kept axis (one that is not
the domain's first: see :func:`loop_nest`) spans at most: that axis's indices per tile times the
elements of the axes inside it. Batch-norm's statistics of a (32, 32, 32, 32) NCHW array read
4 channels' 16 KiB rows per batch index and tile (a channel's 4 KiB rows one at a time ran 15%
slower on one thread: a jump every page), a bias gradient's accumulators stay a row in L1/L2."""
MIN_TILES = 8
"""...and an axis of at least this many indices has at least this many tiles (the pool's
chunks on 2 threads)."""
PARALLEL_MIN_TILED = 1 << 20
"""Domains from which a nest that needs tiles is parallel: not below the native pool's
run-time threshold (``native/pool.MIN_WORK``, where it runs the loop on the caller), as tiles
run serially were slower than the plain nest (the (64, 8, 768) bias gradient in 8 tiles of 96
columns: 0.068-0.074 ms against 0.053 ms, interleaved)."""

LOWEST, HIGHEST = "lowest", "highest"
_IDENTITY = {R.reduce_sum: 0, R.reduce_mean: 0, R.reduce_prod: 1, R.reduce_any: False,
             R.reduce_all: True, R.reduce_max: LOWEST, R.reduce_min: HIGHEST}
"""Where each reduction's accumulator starts (the templates only say how it folds)."""
_COMBINE = {R.reduce_sum: "add", R.reduce_mean: "add", R.reduce_prod: "multiply",
            R.reduce_any: "logical_or", R.reduce_all: "logical_and", R.reduce_max: "maximum",
            R.reduce_min: "minimum"}
"""How each reduction folds two partial results (numpy's ufunc; maximum/minimum propagate NaN
as the kernels' max/min do)."""
_MEANS = frozenset({R.reduce_mean})
"""Reductions whose sum is divided by the number of elements reduced."""
_NAN_PROPAGATING = frozenset({R.reduce_sum, R.reduce_mean, R.reduce_prod})
"""Float reductions whose arithmetic itself propagates a NaN (IEEE ``+``/``*``): they need no
NaN test per element, which kept the loop branchy (no vector stores of the other outputs)."""


class Unsupported(Exception):
    """The group cannot be lowered (or the code generator cannot compile a source); ``str()``
    says why."""


HEADER = '''"""A graphcell kernel (generated from a fused group; see graphcell_ir.backend.lower)."""
import math

import numpy as np
from numpy import bool_, float16, float32, float64, int8, int16, int32, int64, uint8

from graphcell_ir.backend.fma import fma

prange = range  # numba's prange when numba compiles it

'''
"""What a kernel's module has before its function: the names its source uses."""


@dataclass(frozen=True)
class Output:
    """How the caller allocates and finishes one kernel output.

    ``shape``/``dtype``: the array the kernel writes (the domain-rank shape, keep-dims for a
    reduction); ``result_shape``/``result_dtype``: what the fused op yields. ``fill``: the
    accumulator's start value (None for an elementwise output); ``count``: the mean's divisor;
    ``partial_axis``: where a split reduction keeps one partial per block (:func:`loop_nest`),
    which the caller folds with ``numpy.<combine>.accumulate`` in block order before the rest.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    result_shape: tuple[int, ...]
    result_dtype: np.dtype
    fill: object = None
    count: int = 0
    partial_axis: int | None = None   # the axis of per-block partials (a split whole reduction)
    combine: str = ""                 # the numpy ufunc folding them, in block order


@dataclass(frozen=True)
class KernelSource:
    """A lowered group: the source of ``def kernel(inputs..., consts..., outputs...)``."""

    source: str
    in_shapes: tuple          # per operand: the domain-rank shape to reshape to, or None (scalar)
    consts: tuple             # arrays passed after the operands (reshaped already)
    outputs: tuple[Output, ...]
    parallel: bool
    ops: tuple[str, ...] = field(default=())   # names of the body's ops (for reports)
    in_dtypes: tuple = field(default=())       # per operand: its IR dtype name, None for a scalar
    #                                            (the kinds its native code is compiled for)

    @property
    def key(self) -> str:
        """The content hash naming the kernel (its source determines it completely)."""
        return hashlib.sha256(self.source.encode()).hexdigest()[:24]

    @property
    def module_text(self) -> str:
        """The kernel's whole module: :data:`HEADER`, then the source (what is compiled, and
        what runs as Python when the JIT is off)."""
        return HEADER + self.source


# --- the entry point -----------------------------------------------------------------------------

def lower_fused(op: Op, shapes: dict[int, tuple] | None = None,
                literal_operands: bool = False,
                in_place: dict[int, int] | None = None) -> KernelSource:
    """The kernel source for fused op ``op``; :class:`Unsupported` when it cannot be lowered.

    ``shapes``: operand index -> the shape the caller passes instead (one that broadcasts to the
    operand's: the kernel broadcasts it by its index arithmetic, so a ``broadcast_to`` feeding
    the group need not be materialised). ``literal_operands``: the group's literals are
    one-element constant arrays passed after the operands (``consts``) instead of constants of
    the source, so groups that differ only in a literal share one kernel — for the native
    step's shape-generic kernels, where a batch-norm gradient's count (``x / 128`` in one
    stage, ``x / 512`` in the next) would otherwise make a kernel per stage.

    ``in_place``: result index -> the operand index whose buffer the caller passes for that
    result too (the native step's updates in place, ``step/donate.py``): the kernel stores
    the result through the operand's parameter (its output parameter is left unused), and
    when a one-element boolean chooses between values (``select(momentum > 0, v, accum)``)
    the loops are written twice, for either value of it (:func:`_switch`), so that a
    result which is then the operand's own element costs neither its load nor its store
    (SGD's accum and stat at momentum 0: 3 arrays streamed instead of 7)."""
    return _Lowering(list(op.regions[0].block), list(op.operands), list(op.regions[0].block.args),
                     shapes=shapes, literal_operands=literal_operands,
                     in_place=in_place).run()


def lower_single(op: Op, inline_literals: bool = False,
                 literal_operands: bool = False) -> KernelSource:
    """A lone elementwise or reduction op as a one-op kernel. Its literal operands are scalar
    parameters (one kernel for every value), or with ``inline_literals`` constants of its
    source, cast to the op's dtype as in a fused group (the native step's kernels take arrays
    only) — or one-element constant arrays with ``literal_operands`` (:func:`lower_fused`)."""
    operands = [v for v in op.operands if not (inline_literals and isinstance(v, Literal))]
    return _Lowering([op], operands, operands, single=True,
                     literal_operands=literal_operands).run()


# --- the lowering ----------------------------------------------------------------------------------

def _switch(nest: list[str], name: str) -> list[str]:
    """The loop nest ``nest`` (lines of the function's body) written twice under ``if name:``,
    with ``name`` replaced by ``True`` in the first copy and ``False`` in the second: LLVM then
    folds the selects it decides and drops the loads nobody reads any more, and a store of an
    array's own element back into it (an in-place result left as it was). Both copies end
    the function, so a parallel loop in either is still the function's last statement."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    return ([f"    if {name}:"] + ["    " + word.sub("True", line) for line in nest]
            + ["    else:"] + ["    " + word.sub("False", line) for line in nest])


_NAME = re.compile(r"[^0-9a-zA-Z_]")


def _dtype_name(d: np.dtype) -> str:
    return "bool_" if d == np.bool_ else d.name


def _np_dtype(v: Value) -> np.dtype:
    return v.type.dtype.np_dtype


class _Lowering:
    def __init__(self, body: list[Op], operands: list[Value], args: list[Value], single=False,
                 shapes: dict[int, tuple] | None = None, literal_operands: bool = False,
                 in_place: dict[int, int] | None = None):
        self.literal_operands = literal_operands
        self.in_place = in_place or {}   # output index -> the operand index it is written into
        self.literal_consts: list = []   # (parameter, one-element array) per literal, if so
        self.rank = 1
        self.ops = [o for o in body if o.opdef is not YIELD]
        term = body[-1] if body and body[-1].opdef is YIELD else None
        self.yields = list(term.operands) if term is not None else \
            [r for o in self.ops for r in o.results]
        self.operands, self.args, self.single = operands, args, single
        self.arg_shapes = {args[i]: tuple(sh) for i, sh in (shapes or {}).items()}
        self.names: dict[Value, str] = {}
        self.used: set[str] = {"kernel", "math", "np", "prange"}
        self.lines: list[str] = []
        self.pre: list[str] = []

    def fresh(self, hint: str | None, default: str) -> str:
        base = _NAME.sub("_", hint or "") or default
        if base[0].isdigit():
            base = "_" + base
        name, n = base, 1
        while name in self.used:
            name, n = f"{base}_{n}", n + 1
        self.used.add(name)
        return name

    def shape_of(self, arg: Value) -> tuple:
        return self.arg_shapes.get(arg, arg.type.shape)

    # -- checks and the domain --
    def domain(self) -> tuple[int, ...]:
        shapes = []
        for o in self.ops:
            if o.opdef is CONST:
                continue
            if o.opdef.kernel is None or o.opdef.kind not in (Kind.ELEMENTWISE, Kind.REDUCTION):
                raise Unsupported(f"{o.opdef.name} has no kernel template")
            if o.opdef.kind is Kind.REDUCTION:
                if o.opdef not in _IDENTITY:
                    raise Unsupported(f"{o.opdef.name}: no known identity for its accumulator")
                shapes.append(o.operands[0].type.shape)
            else:
                shapes.extend(r.type.shape for r in o.results)
        if not shapes:
            raise Unsupported("no elementwise op or reduction in the group")
        dom = tuple(int(s) for s in np.broadcast_shapes(*shapes))
        if 0 in dom:
            raise Unsupported("an empty domain")
        return dom

    def run(self) -> KernelSource:
        for v in list(self.operands) + self.yields:
            if not isinstance(v.type, (TensorType, ScalarType)) and not isinstance(v, Literal):
                raise Unsupported(f"a value of type {v.type}")
        dom = self.domain()
        n = len(dom) or 1
        dom = dom or (1,)
        reductions = [o for o in self.ops if o.opdef.kind is Kind.REDUCTION]
        for o in reductions:
            if _pad(o.operands[0].type.shape, n) != dom:
                raise Unsupported("a reduction whose input is broadcast over the domain")
        pad = lambda s: _pad(s, n)  # noqa: E731
        const_ops = [o for o in self.ops if o.opdef is CONST]
        arrays = [pad(self.shape_of(v)) for v in self.args if isinstance(v.type, TensorType)]
        arrays += [pad(o.results[0].type.shape) for o in const_ops]
        arrays += [pad(v.type.shape) for v in self.yields if isinstance(v.type, TensorType)]
        flat = not reductions and all(s == dom or all(e == 1 for e in s) for s in arrays)
        self.axis_of = {k: k for k in range(n)}   # a domain axis -> the kernel's loop axis
        if flat:
            size = int(np.prod(dom))
            pad = lambda s, n=n, full=dom: (size,) if _pad(s, n) == full else (1,)  # noqa: E731
            dom, n = (size,), 1
        else:
            sums = {o.results[0] for o in reductions}
            spans = [pad(self.shape_of(v)) for v in self.args if isinstance(v.type, TensorType)]
            spans += [pad(o.results[0].type.shape) for o in const_ops]
            spans += [pad(v.type.shape) for v in self.yields
                      if isinstance(v.type, TensorType) and v not in sums]
            reduced = [set(self.domain_axes(o, n)) for o in reductions]
            groups = merged_axes(dom, spans, reduced)
            # a whole-array reduction keeps its tiles of the first axis (its partials' bits)
            if len(groups) < n and not loop_nest(dom, reduced).partial:
                self.axis_of = {k: g for g, ks in enumerate(groups) for k in ks}
                pad = lambda s, n=n, groups=groups: _merge(_pad(s, n), groups)  # noqa: E731
                dom, n = _merge(dom, groups), len(groups)
        self.merge = pad
        self.rank = n
        nest = loop_nest(dom, [set(self.reduced_axes(o, n)) for o in reductions])
        size = int(np.prod(dom))
        parallel = size >= (PARALLEL_MIN_TILED if nest.tiled else PARALLEL_MIN) and \
            nest.parallel is not None
        self.tiles = None   # (axis, tile extent's local, tile index's local, tiles) when tiled
        if parallel and nest.tiled:
            p = nest.parallel
            inner = int(np.prod(dom[p + 1:]))
            self.tiles = (p, self.fresh("tile", "tile"), self.fresh(f"t{p}", "t"),
                          -(-dom[p] // _tile(dom[p], inner)))
        self.partial = self.tiles[0] if parallel and nest.partial else None
        idx = lambda s: ", ".join(f"i{k}" if s[k] == dom[k] else "0" for k in range(n))  # noqa: E731
        # One-element values do not depend on the loop indices: they are loaded, computed and
        # stored once before the loops (else every iteration, on every thread, writes them)
        once = (lambda s: all(e == 1 for e in s)) if int(np.prod(dom)) > 1 else \
            (lambda s: False)  # noqa: E731 (a one-element domain: one iteration anyway)
        first = ", ".join("0" for _ in range(n))   # a one-element value's index, outside the loops
        before = {"loads": [], "body": [], "stores": []}   # the lines run once, before the loops

        # Everything else is computed in the loop of the innermost axis it depends on: a
        # per-channel value of batch norm's gradient (sqrt, division) once per channel, not
        # once per element (the same expressions: the same bits; and less code for LLVM to
        # vectorise). at[d]: the lines inside the d-th loop, before the loop inside it.
        order = self.emitted_order(nest, parallel)
        pos = {k: d + 1 for d, k in enumerate(order)}
        depth = lambda s: max((pos[k] for k in range(n) if s[k] == dom[k]),  # noqa: E731
                              default=0)
        at = {part: [[] for _ in range(n + 1)] for part in ("loads", "body", "stores")}
        level: dict[Value, int] = {}

        params, in_shapes = [], []
        loads = at["loads"]
        for operand, arg in zip(self.operands, self.args):
            p = self.fresh(f"x{len(params)}", "x")
            params.append(p)
            if isinstance(arg.type, TensorType):
                shape = pad(self.shape_of(arg))
                in_shapes.append(shape)
                self.names[arg] = self.fresh(p + "_1", "x")
                if once(shape):
                    before["loads"].append(f"{self.names[arg]} = {p}[{first}]")
                else:
                    level[arg] = depth(shape)
                    loads[level[arg]].append(f"{self.names[arg]} = {p}[{idx(shape)}]")
            else:
                in_shapes.append(None)
                self.names[arg] = p
        consts = []
        for o in const_ops:
            arr = const_array(o)
            p = self.fresh(f"c{len(consts)}", "c")
            params.append(p)
            shape = pad(arr.shape)
            consts.append(np.ascontiguousarray(arr).reshape(shape))
            self.names[o.results[0]] = self.fresh(p + "_1", "c")
            if once(shape):
                before["loads"].append(f"{self.names[o.results[0]]} = {p}[{first}]")
            else:
                level[o.results[0]] = depth(shape)
                loads[level[o.results[0]]].append(
                    f"{self.names[o.results[0]]} = {p}[{idx(shape)}]")

        body, accs = at["body"], {}
        for o in self.ops:
            if o.opdef is CONST:
                continue
            if o.opdef.kind is Kind.REDUCTION:   # accumulates once per element of its input
                p = self.fresh(f"acc{len(accs)}", "acc")
                accs[o.results[0]] = (p, self.reduction(o, p, n, body[n]))
            else:
                invariant = all(isinstance(r.type, TensorType) and once(pad(r.type.shape))
                                for r in o.results)
                d = max((level.get(v, 0) for v in o.operands), default=0)
                (before["body"] if invariant or d == 0 else body[d]).append(self.elementwise(o))
                level.update((r, 0 if invariant else d) for r in o.results)
        outputs, stores = [], at["stores"]
        for v in self.yields:
            if v in accs:
                outputs.append(accs.pop(v))
                continue
            if not isinstance(v.type, TensorType):
                raise Unsupported("a scalar output")
            p = self.fresh(f"out{len(outputs)}", "out")
            shape = pad(v.type.shape)
            value = self.value(v, _np_dtype(v))   # once: a literal's value adds a parameter
            into = self.in_place.get(len(outputs))
            target = params[into] if into is not None and \
                in_shapes[into] == shape and _np_dtype(self.args[into]) == _np_dtype(v) and \
                not once(shape) else p
            store = f"{target}[{idx(shape)}] = {value}"
            if once(shape):
                before["stores"].append(f"{p}[{first}] = {value}")
            elif parallel and shape[nest.parallel] < dom[nest.parallel]:
                # broadcast along the parallel axis: written at its index 0 only, by one
                # thread (the serial axes' rewrites of it are that thread's, in order)
                stores[n] += [f"if i{nest.parallel} == 0:", f"    {store}"]
            else:
                stores[max(level.get(v, 0), depth(shape))].append(store)
            outputs.append((p, Output(shape, _np_dtype(v), v.type.shape, _np_dtype(v))))
        if accs:
            raise Unsupported("a reduction whose result is not an output")
        for p, arr in self.literal_consts:   # after the const ops' arrays: consts in order
            params.append(p)
            consts.append(arr)
        lines = [f"def kernel({', '.join(params + [p for p, _ in outputs])}):"]
        lines += [f"    {line}" for line in self.pre + before["loads"] + before["body"]
                  + before["stores"]]
        # Extents are read at run time from an array spanning each axis, so the source (the
        # cache key) holds the broadcasting pattern but not the sizes.
        arrays_by_name = [(p, sh) for p, sh in zip(params, in_shapes) if sh is not None]
        arrays_by_name += [(p, c.shape) for p, c in zip(params[len(in_shapes):], consts)]
        arrays_by_name += [(p, out.shape) for p, out in outputs]
        bounds = [_extent(arrays_by_name, dom, k) for k in range(n)]
        inside = [at["loads"][d] + at["body"][d] + at["stores"][d] for d in range(n + 1)]
        assert not inside[0], "a value that depends on no loop is computed before them"
        nest_lines = self.loops(nest, bounds, parallel, inside[1:])
        switch = self.switch(once) if self.in_place and not reductions else None
        lines += _switch(nest_lines, switch) if switch is not None else nest_lines
        in_dtypes = tuple(_np_dtype(a).name if isinstance(a.type, TensorType) else None
                          for a in self.args)
        return KernelSource("\n".join(lines) + "\n", tuple(in_shapes), tuple(consts),
                            tuple(out for _, out in outputs), parallel,
                            tuple(o.opdef.name for o in self.ops), in_dtypes=in_dtypes)

    def switch(self, once) -> str | None:
        """The name of the first one-element boolean a ``select`` in the loops chooses by (a
        value computed or loaded once, before them), or None."""
        for o in self.ops:
            if o.opdef.name == "select" and o.operands[0] in self.names and \
                    isinstance(o.operands[0].type, TensorType) and \
                    _np_dtype(o.operands[0]) == np.bool_ and \
                    once(self.merge(o.operands[0].type.shape)) and \
                    not once(self.merge(o.results[0].type.shape)):
                return self.names[o.operands[0]]
        return None

    def emitted_order(self, nest: LoopNest, parallel: bool) -> tuple[int, ...]:
        """The axes of :meth:`loops`' ``for`` lines, outermost first."""
        p = nest.parallel if parallel else None
        if p is not None and not nest.tiled:   # nothing before it is longer than 1: moving
            return (p,) + tuple(k for k in nest.order if k != p)   # it out is free
        return nest.order

    def loops(self, nest: LoopNest, bounds: list, parallel: bool,
              inside: list[list[str]]) -> list[str]:
        """The loops of ``nest`` (indented as in the function), ``inside[d]`` in the d-th one
        before the loop inside it: serial loops in memory order; when ``parallel``, a
        ``prange`` over the parallel axis, or over its tiles (a local first computes the tile's
        extent of that axis from the extents inside it)."""
        lines, indent = [], "    "
        p = nest.parallel if parallel else None
        order = self.emitted_order(nest, parallel)
        if p is not None and nest.tiled:
            _, tile, t, _ = self.tiles
            inner = [b for b in bounds[p + 1:] if b != "1"]
            per = f"{TILE} // ({' * '.join(inner)})" if inner else str(TILE)
            share = f"({bounds[p]} + {MIN_TILES - 1}) // {MIN_TILES}"
            lines += [f"{indent}{tile} = max(1, min({per}, {share}))",
                      f"{indent}for {t} in prange(({bounds[p]} + {tile} - 1) // {tile}):"]
            indent += "    "
        for k, lines_in in zip(order, inside):
            if k == p and nest.tiled:
                rng = f"range({t} * {tile}, min({t} * {tile} + {tile}, {bounds[k]}))"
            else:
                rng = f"{'prange' if k == p else 'range'}({bounds[k]})"
            lines.append(f"{indent}for i{k} in {rng}:")
            indent += "    "
            lines += [indent + line for line in lines_in]
        return lines

    # -- one op each --
    def value(self, v: Value, want: np.dtype | None) -> str:
        """The expression for operand ``v``; a literal is cast to ``want`` once, up front."""
        if isinstance(v, Literal):
            if v.value is None:
                raise Unsupported("a None literal")
            d = want if want is not None else _np_dtype(v)
            if isinstance(v.value, float) and d.kind in "iub":
                d = np.dtype(np.float64)
            name = self.fresh(f"k{len(self.pre)}", "k")
            if self.literal_operands:   # read once, before the loops
                p = self.fresh(f"lit{len(self.literal_consts)}", "lit")
                with np.errstate(all="ignore"):   # converted as the source's cast would
                    value = np.asarray(v.value).astype(d).reshape((1,) * self.rank)
                self.literal_consts.append((p, value))
                self.pre.append(f"{name} = {p}[{', '.join(['0'] * self.rank)}]")
            else:
                self.pre.append(f"{name} = {_dtype_name(d)}({_literal(v.value)})")
            return name
        if v not in self.names:
            raise Unsupported("an operand defined outside the group")
        return self.names[v]

    def operand_dtype(self, o: Op) -> np.dtype | None:
        """The dtype literals of ``o`` take: its tensor operands' (MindSpore's weak scalars),
        not counting boolean ones when the result is not boolean — a condition or mask says
        nothing of the values' type (``select(c, 1, 2)`` is int64, not ``bool(1), bool(2)``)."""
        values_only = _np_dtype(o.results[0]) != np.bool_ if o.results else False
        ds = [_np_dtype(v) for v in o.operands if not isinstance(v, Literal)
              and not (values_only and _np_dtype(v) == np.bool_)]
        return np.result_type(*ds) if ds else None

    def elementwise(self, o: Op) -> str:
        if len(o.results) != 1:
            raise Unsupported(f"{o.opdef.name} has {len(o.results)} results")
        want = self.operand_dtype(o) or _np_dtype(o.results[0])
        names = [n.lstrip("*") for n in o.opdef.operands]
        if o.opdef.variadic or len(names) != len(o.operands):
            raise Unsupported(f"{o.opdef.name}: variadic operands")
        values = {n: self.value(v, want) for n, v in zip(names, o.operands)}
        attrs = {k: _literal(v) for k, v in o.attrs.items() if isinstance(v, (bool, int, float))}
        r = o.results[0]
        float32 = want == np.float32 and _np_dtype(r) == np.float32
        expr = o.opdef.template(float32).format(**values, **attrs)
        if float32:
            expr = _literals_as(expr, "float32")
        self.names[r] = self.fresh(None, f"v{len(self.names)}")
        return f"{self.names[r]} = {_dtype_name(_np_dtype(r))}({expr})  # {o.opdef.name}"

    def domain_axes(self, o: Op, n: int) -> tuple[int, ...]:
        """The axes of the (rank ``n``) domain reduction ``o`` reduces."""
        x = o.operands[0].type.shape
        off = n - len(x)
        return tuple(a + off for a in normalize_axes(o.attrs["axis"], len(x))) if x else ()

    def reduced_axes(self, o: Op, n: int) -> tuple[int, ...]:
        """The kernel's loop axes (of ``n``, the domain's merged: :func:`merged_axes`) that
        reduction ``o`` reduces."""
        return tuple(sorted({self.axis_of[k] for k in self.domain_axes(o, len(self.axis_of))}))

    def reduction(self, o: Op, acc: str, n: int, body: list[str]) -> Output:
        x = o.operands[0]
        if x not in self.names:
            raise Unsupported("a reduction of a literal")
        red = set(self.reduced_axes(o, n))
        shape = tuple(1 if k in red else s for k, s in enumerate(self.merge(x.type.shape)))
        index = ["0" if k in red else f"i{k}" for k in range(n)]
        if self.partial is not None:   # one partial per tile of the split axis
            axis, _, t, tiles = self.tiles
            shape = shape[:axis] + (tiles,) + shape[axis + 1:]
            index[axis] = t
        cell = f"{acc}[{', '.join(index)}]"
        r_dtype = _np_dtype(o.results[0])
        acc_dtype = np.dtype(np.float64 if r_dtype.kind == "f" else
                            np.bool_ if r_dtype.kind == "b" else np.int64)
        if o.opdef in _MEANS and r_dtype.kind != "f":
            acc_dtype = np.dtype(np.int64)
        xv = self.names[x]
        step = o.opdef.kernel.format(acc=cell, x=xv)
        if acc_dtype.kind == "f" and o.opdef not in _NAN_PROPAGATING:
            # numpy propagates NaN through every float reduction; max/min would drop it
            body.append(f"{cell} = {xv} if {xv} != {xv} else ({step} if {cell} == {cell} "
                        f"else {cell})  # {o.opdef.name}")
        else:
            body.append(f"{cell} = {step}  # {o.opdef.name}")
        rank = len(self.axis_of)
        count = int(np.prod([x.type.shape[k - (rank - len(x.type.shape))]
                             for k in self.domain_axes(o, rank)])) if o.opdef in _MEANS else 0
        return Output(shape, acc_dtype, o.results[0].type.shape, r_dtype,
                      _identity(o.opdef, acc_dtype), count, self.partial,
                      _COMBINE[o.opdef] if self.partial is not None else "")


@dataclass(frozen=True)
class LoopNest:
    """How a kernel's loops run: ``order``, the axes outermost first (memory order), and
    ``parallel``, the axis a parallel kernel's ``prange`` runs over (None: it cannot), over
    tiles of it when ``tiled`` (an axis before it is longer than 1), or, when ``partial``, over
    tiles of an axis every reduction reduces, each tile folding its own partial results."""

    order: tuple[int, ...]
    parallel: int | None = None
    tiled: bool = False
    partial: bool = False   # the parallel axis is reduced: one partial result per tile


def loop_nest(dom: tuple, reduced: list) -> LoopNest:
    """The loop nest of a domain ``dom`` whose reductions reduce the axes of ``reduced`` (a set
    each): the loops in memory order (a kernel's arrays are C-ordered: ``kernels`` copies
    others, so the axes' order is the memory's), so that the innermost runs over the last
    (contiguous) axis whether it is kept or reduced and a kept inner axis's accumulators form a
    row; the
    parallel loop over the first axis of extent > 1 that every reduction keeps (its iterations
    write disjoint elements and accumulators: each accumulator's summands keep their order, the
    serial nest's bits), over tiles of it when an axis before it is longer than 1 (the reduced
    rows of a bias gradient, batch-norm's N before C).

    >>> loop_nest((128, 1024), [{0}])                 # a bias gradient: tiles of the columns
    LoopNest(order=(0, 1), parallel=1, tiled=True, partial=False)
    >>> loop_nest((32, 16, 8, 8), [{0, 2, 3}])        # batch-norm statistics: C in tiles
    LoopNest(order=(0, 1, 2, 3), parallel=1, tiled=True, partial=False)
    >>> loop_nest((1, 64, 256), [{2}])                # LayerNorm rows: the rows in parallel
    LoopNest(order=(0, 1, 2), parallel=1, tiled=False, partial=False)

    A domain with no such axis (a whole-array reduction) splits its first axis longer than 1
    into tiles when every reduction reduces it: each tile folds a partial result per reduction,
    which the caller folds in tile order (the tiles are a function of the shapes only, so the
    bits are the same for any number of threads — but not the serial nest's).

    >>> loop_nest((4, 5), [{0, 1}])                   # a whole-array reduction: partials
    LoopNest(order=(0, 1), parallel=0, tiled=True, partial=True)
    >>> loop_nest((4, 5), [{0}, {1}])                 # no axis kept or reduced by both
    LoopNest(order=(0, 1), parallel=None, tiled=False, partial=False)
    """
    order = tuple(range(len(dom)))
    kept = [k for k in order if dom[k] > 1 and not any(k in r for r in reduced)]
    if not kept:
        first = next((k for k in order if dom[k] > 1), None)
        if reduced and first is not None and all(first in r for r in reduced):
            return LoopNest(order, first, True, True)
        return LoopNest(order)
    p = kept[0]
    return LoopNest(order, p, any(dom[k] > 1 for k in range(p)))


def merged_axes(dom: tuple, arrays: list, reduced: list) -> list[tuple[int, ...]]:
    """The domain's axes in groups of neighbours that one loop can run over as one axis: every
    array spans both or neither (C order: a group is then one contiguous run), and every
    reduction reduces both or neither. A reduction's inner loop then runs over a whole group
    (batch-norm's statistics over (N, C, H, W): H*W = 1024 elements per accumulator row, not
    32, so the vector lanes are combined once per channel plane instead of once per image row;
    the loops still visit the elements in the same order).

    >>> merged_axes((32, 16, 8, 8), [(1, 16, 1, 1), (32, 16, 8, 8)], [{0, 2, 3}])
    [(0,), (1,), (2, 3)]
    >>> merged_axes((4, 5, 6), [(4, 5, 6), (4, 1, 6)], [{2}])
    [(0,), (1,), (2,)]
    """
    def joins(k: int) -> bool:
        if dom[k] == 1 or dom[k + 1] == 1:
            return False
        return all((s[k] == 1) == (s[k + 1] == 1) for s in arrays) and \
            all((k in r) == (k + 1 in r) for r in reduced)
    groups = [[0]]
    for k in range(1, len(dom)):
        if joins(k - 1):
            groups[-1].append(k)
        else:
            groups.append([k])
    return [tuple(g) for g in groups]


def _merge(shape: tuple, groups: list) -> tuple:
    return tuple(int(np.prod([shape[k] for k in g])) for g in groups)


def _tile(extent: int, inner: int) -> int:
    """A tile's indices of an axis of ``extent`` with ``inner`` elements inside it: what the
    kernel computes at run time (:meth:`_Lowering.loops`), here for the partials' count."""
    return max(1, min(TILE // inner, (extent + MIN_TILES - 1) // MIN_TILES))


def _extent(arrays: list, dom: tuple, k: int) -> str:
    """The loop bound of axis ``k``: ``1``, or the extent of an array that spans the axis."""
    if dom[k] == 1:
        return "1"
    for name, shape in arrays:
        if shape[k] == dom[k]:
            return f"{name}.shape[{k}]"
    return str(dom[k])


@functools.lru_cache(maxsize=1024)
def _literals_as(expr: str, dtype: str) -> str:
    """``expr`` with every float literal wrapped in ``dtype(...)``: a template's constants take
    the op's dtype, as Python scalars do in numpy (a float32 template stays float32, and twice as
    wide in SIMD, instead of widening to float64 at its first literal). Remembered: the
    tokenizer took ~10 ms of ResNet-18's train step's 177 lowerings, whose 611 elementwise
    expressions are mostly the same few (the same op on the same kernel's names).

    >>> _literals_as("0.5 * (x + 1.0) + 2", "float32")
    'float32(0.5) * (x + float32(1.0)) + 2'
    """
    out, last = [], 0
    for tok in tokenize.generate_tokens(io.StringIO(expr).readline):
        if tok.type == tokenize.NUMBER and re.fullmatch(r"[0-9.]+(e[-+]?[0-9]+)?", tok.string,
                                                        re.I) and re.search(r"[.eE]", tok.string):
            start, end = tok.start[1], tok.end[1]
            out += [expr[last:start], f"{dtype}({tok.string})"]
            last = end
    return "".join(out) + expr[last:]


def _pad(shape: tuple[int, ...], n: int) -> tuple[int, ...]:
    return (1,) * (n - len(shape)) + tuple(shape)


def _literal(v) -> str:
    if isinstance(v, float) and not np.isfinite(v):
        return f"float({str(v)!r})"
    return repr(v)


def _identity(opdef, dtype: np.dtype):
    ident = _IDENTITY[opdef]
    if ident in (LOWEST, HIGHEST):
        if dtype.kind == "f":
            return -np.inf if ident == LOWEST else np.inf
        info = np.iinfo(dtype)
        return info.min if ident == LOWEST else info.max
    return ident

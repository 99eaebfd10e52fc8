"""One sample row per registry entry: how to draw valid inputs, which dtypes, which bad inputs
must be rejected, tolerances, and known failures — all as data (STYLE.md §9.9).

A row's ``make(g, dtype)`` returns ``(operands, attrs)`` for one example: ``g`` is a :class:`Gen`
(hypothesis draws for shapes and choices, a seeded numpy generator for values, so examples are
cheap and deterministic). The meta-tests in ``test_registry.py`` and ``test_grads.py`` read only
this table and the registry; a new op without a row fails ``test_every_op_has_a_row``.

``xfail`` maps a test name (``infer_ref``, ``bad``, ``kernel``, ``kernel_specials``,
``kernel_points``, ``reduce_kernel``, ``grad``, ``grad_types``, ``grad2``) to the reason it is
known to fail; the tests turn it into a strict xfail, so a fixed op fails until its entry goes.

``tests/graphcell/test_registry_grads_pynative.py`` draws its inputs from this table too.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable

import hypothesis.extra.numpy as hnp
import numpy as np
from hypothesis import strategies as st

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import NONE, ScalarType, TensorType, dtype_from_short, to_dtype
from graphcell_ir.ops.layout import index_shape

FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
NUMERIC = FLOATS + INTS


class Gen:
    """Draws one example: structure through hypothesis (so it is explored and shrunk), values
    from a numpy generator seeded by one draw (fast for whole arrays)."""

    def __init__(self, data):
        self._draw = data.draw
        self.rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))

    def draw(self, strategy):
        return self._draw(strategy)

    def int(self, lo: int, hi: int) -> int:
        return self._draw(st.integers(lo, hi))

    def pick(self, options):
        return self._draw(st.sampled_from(list(options)))

    def flag(self) -> bool:
        return self._draw(st.booleans())

    def shape(self, min_dims=0, max_dims=3, min_side=1, max_side=4) -> tuple[int, ...]:
        return self._draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims,
                                           min_side=min_side, max_side=max_side))

    def array(self, shape, dtype, lo=-3.0, hi=3.0, signed=False, integral=False) -> np.ndarray:
        """Values in [lo, hi] (``signed``: in ±[lo, hi]); ``integral`` floats have integer values."""
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            return np.asarray(self.rng.random(shape) < 0.5)
        if dtype.kind in "iu":
            v = self.rng.integers(int(np.ceil(lo)), int(np.floor(hi)) + 1, size=shape)
        elif integral:
            v = self.rng.integers(int(np.ceil(lo)), int(np.floor(hi)) + 1, size=shape).astype(float)
        else:
            v = self.rng.uniform(lo, hi, size=shape)
        if signed:
            v = v * self.rng.choice([-1, 1], size=shape)
        return np.asarray(v).astype(dtype)

    def scalar_like(self, dtype, lo=-3.0, hi=3.0, signed=False):
        """A Python scalar of dtype's kind (weakly typed in graphcell)."""
        v = self.array((), dtype, lo, hi, signed)
        return bool(v) if v.dtype == np.bool_ else int(v) if v.dtype.kind in "iu" else float(v)


def T(spec: str):
    """A type from its IR spelling: ``T("f32[2,3]")`` is a tensor, ``T("i64")`` a Python scalar."""
    m = re.fullmatch(r"(\w+)(?:\[([\d,]*)\])?", spec)
    dtype = dtype_from_short(m.group(1))
    if m.group(2) is None:
        return ScalarType(dtype)
    return TensorType(dtype, tuple(int(s) for s in m.group(2).split(",") if s))


@dataclass(frozen=True)
class Bad:
    """Operand types and attrs that ``infer_types`` must reject with ``error``."""

    types: tuple
    attrs: dict = field(default_factory=dict)
    error: type = ShapeError


@dataclass(frozen=True)
class Sample:
    make: Callable[[Gen, str], tuple[tuple, dict]]
    dtypes: tuple[str, ...] = FLOATS
    bad: tuple[Bad, ...] = ()
    diff: tuple[int, ...] | None = None      # operands the grad check perturbs (None: float ones)
    grad_attrs: dict = field(default_factory=dict)  # attrs forced in the float64 grad check
    rtol: float = 1e-5                        # gradient check tolerances
    atol: float = 1e-7
    specials: bool = False                    # kernel check also at NaN, ±Inf, ±0
    points: dict[str, tuple[tuple, ...]] = field(default_factory=dict)  # dtype -> listed kernel points
    xfail: dict[str, str] = field(default_factory=dict)


# --- row builders -----------------------------------------------------------------------------

def unary(lo=-3.0, hi=3.0, dtypes=NUMERIC, signed=False, specials=True, **kw) -> Sample:
    def make(g, dt):
        return (g.array(g.shape(), dt, lo, hi, signed),), {}
    bad = kw.pop("bad", (Bad((NONE,), error=OpTypeError),))  # not a tensor
    return Sample(make, dtypes, bad=bad, specials=specials, **kw)


def binary(x=(-3.0, 3.0), y=(-3.0, 3.0), dtypes=NUMERIC, signed_y=False, integral=False,
           scalars=True, **kw) -> Sample:
    """Two broadcasting operands (sometimes a Python scalar on one side)."""
    def make(g, dt):
        sx, sy = g.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3)).input_shapes
        a = g.array(sx, dt, *x, integral=integral)
        b = g.array(sy, dt, *y, signed=signed_y, integral=integral)
        side = g.int(0, 3) if scalars else 0
        if side == 1:
            a = g.scalar_like(dt, *x)
        elif side == 2:
            b = g.scalar_like(dt, *y, signed=signed_y)
        return (a, b), {}
    bad = (Bad((T("f32[2,3]"), T("f32[4]"))),)
    return Sample(make, dtypes, bad=kw.pop("bad", bad), **kw)


def reduction(dtypes=NUMERIC, lo=-3.0, hi=3.0, **kw) -> Sample:
    def make(g, dt):
        shape = g.shape(1, 3)
        axes = g.draw(st.lists(st.integers(-len(shape), len(shape) - 1), max_size=len(shape),
                               unique_by=lambda a: a % len(shape)))
        axis = None if g.flag() else tuple(axes)
        return (g.array(shape, dt, lo, hi),), {"axis": axis, "keep_dims": g.flag()}
    bad = (Bad((T("f32[2,3]"),), {"axis": (2,)}), Bad((T("f32[2,3]"),), {"axis": (0, -2)}))
    return Sample(make, dtypes, bad=bad, **kw)


def _nchw(g, dt, lo=-3.0, hi=3.0, min_hw=1):
    shape = (g.int(1, 2), g.int(1, 3), g.int(min_hw, min_hw + 3), g.int(min_hw, min_hw + 3))
    return g.array(shape, dt, lo, hi)


# --- rows for the elementwise family ----------------------------------------------------------

# floor(x / y) is not floor division: 1.0 // 0.1 is 9.0, and int64 quotients lose digits in floats
_DIVMOD_POINTS = {"float64": ((1.0, 0.1), (-7.5, 2.0), (7.5, -2.0), (3.0, math.inf), (-3.0, math.inf)),
                  "float32": ((1.0, 0.1), (-7.5, 2.0)),
                  "int64": ((2**62 + 1, 3), (-(2**62) - 1, 7), (-7, 2), (7, -2))}
_LOGIC = binary(dtypes=("bool",) + NUMERIC, scalars=False)

_rows: dict[str, Sample] = {
    "add": binary(), "sub": binary(), "mul": binary(),
    "div": binary(y=(0.5, 3.0), signed_y=True),
    "floor_div": binary(y=(0.5, 3.0), signed_y=True, points=_DIVMOD_POINTS),
    "mod": binary(y=(0.5, 3.0), signed_y=True, points=_DIVMOD_POINTS),
    "pow": binary(x=(0.5, 2.0), y=(0.0, 3.0)),
    "maximum": binary(), "minimum": binary(),
    **{name: binary(integral=True) for name in ("equal", "not_equal", "less", "less_equal",
                                                "greater", "greater_equal")},
    "logical_and": _LOGIC, "logical_or": _LOGIC,
    "logical_not": unary(dtypes=("bool",) + NUMERIC),
    "isnan": unary(dtypes=FLOATS),
    "neg": unary(), "abs": unary(), "sign": unary(), "floor": unary(), "square": unary(),
    "exp": unary(), "log": unary(0.1, 4.0), "sqrt": unary(0.1, 4.0), "sin": unary(), "cos": unary(),
    "tanh": unary(), "sigmoid": unary(), "relu": unary(), "erf": unary(dtypes=FLOATS),
}


def _select(g, dt):
    sc, sx, sy = g.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3)).input_shapes
    return (g.array(sc, "bool"), g.array(sx, dt), g.array(sy, dt)), {}


def _cast(g, dt):
    return (g.array(g.shape(), dt),), {"dtype": to_dtype(g.pick(NUMERIC + ("bool",)))}


def _fill(g, dt):
    value = g.scalar_like(dt)
    return (), {"dtype": to_dtype(dt), "shape": g.shape(), "value": value}


_rows |= {
    "select": Sample(_select, NUMERIC, bad=(Bad((T("f32[2]"), T("f32[2]"), T("f32[2]")), error=OpTypeError),
                                            Bad((T("bool[3]"), T("f32[2]"), T("f32[2]"))))),
    "cast": Sample(_cast, NUMERIC + ("bool",), grad_attrs={"dtype": to_dtype("float64")},
                   bad=(Bad((T("f32[2]"),), {"dtype": "f99"}, OpTypeError),)),
    "fill": Sample(_fill, NUMERIC, bad=(Bad((), {"dtype": to_dtype("f32"), "shape": (2, -1), "value": 0}),)),
}

# --- reductions, contraction ------------------------------------------------------------------

_rows |= {
    "reduce_sum": reduction(), "reduce_mean": reduction(FLOATS, xfail={
        "reduce_kernel": "the template '{acc} + {x}' is the sum: the division by the element count "
                         "is not in the registry, so the backend must know it for reduce_mean"}), "reduce_max": reduction(),
    "reduce_min": reduction(), "reduce_prod": reduction(lo=0.5, hi=1.5),
    "reduce_any": reduction(("bool",) + NUMERIC), "reduce_all": reduction(("bool",) + NUMERIC),
}


def _matmul(g, dt):
    m, k, n = g.int(1, 3), g.int(1, 3), g.int(1, 3)
    ta, tb = g.flag(), g.flag()
    batch = g.pick([(), (), (2,)])
    xs = batch + ((k, m) if ta else (m, k))
    ys = batch + ((n, k) if tb else (k, n))
    if not batch and g.int(0, 3) == 0:  # a vector on one side
        if g.flag():
            xs, ta = (k,), False
        else:
            ys, tb = (k,), False
    return (g.array(xs, dt), g.array(ys, dt)), {"transpose_a": ta, "transpose_b": tb}


_rows["matmul"] = Sample(_matmul, NUMERIC, bad=(Bad((T("f32[2,3]"), T("f32[4,2]"))),
                                                Bad((T("f32[2,3]"), T("f64[3,2]")), error=OpTypeError)))

# --- layout -----------------------------------------------------------------------------------


def _reshape(g, dt):
    shape = g.shape(0, 3)
    size = int(np.prod(shape))
    target = g.pick([(size,), (-1,), (1, size), (size, -1), shape[::-1]])
    return (g.array(shape, dt),), {"shape": target}


def _transpose(g, dt):
    shape = g.shape(0, 4)
    perm = None if g.int(0, 3) == 0 else tuple(g.draw(st.permutations(range(len(shape)))))
    return (g.array(shape, dt),), {"perm": perm}


def _broadcast_to(g, dt):
    shape = g.shape(0, 3, max_side=2)
    lead = g.shape(0, 2, max_side=3)
    target = lead + tuple(g.int(1, 3) if s == 1 else s for s in shape)
    return (g.array(shape, dt),), {"shape": target}


def _expand_dims(g, dt):
    shape = g.shape(0, 3)
    return (g.array(shape, dt),), {"axis": g.int(-len(shape) - 1, len(shape))}


def _squeeze(g, dt):
    shape = g.shape(0, 4, max_side=2)
    ones = [i for i, s in enumerate(shape) if s == 1]
    axis = None if g.flag() else tuple(g.draw(st.lists(st.sampled_from(ones), unique=True))) if ones else None
    return (g.array(shape, dt),), {"axis": axis}


_KEYS = [(0,), (slice(None),), (slice(1, None),), (Ellipsis, None), (slice(None, None, -1), 1),
         (-1, slice(0, 2)), (None, 1, Ellipsis)]


def _getitem(g, dt):
    return (g.array(g.shape(2, 3, min_side=2), dt),), {"key": g.pick(_KEYS)}


def _setitem(g, dt):
    x = g.array(g.shape(2, 3, min_side=2), dt)
    key = g.pick(_KEYS)
    vshape = index_shape(x.shape, key)
    vshape = vshape[g.int(0, len(vshape)):]  # broadcast from a trailing part
    return (x, g.array(vshape, dt)), {"key": key}


def _take(g, dt, unique=False):
    shape = g.shape(1, 3, min_side=2)
    axis = g.int(-len(shape), len(shape) - 1)
    n = shape[axis]
    if unique:
        idx = g.rng.permutation(n)[:g.int(1, n)]
    else:
        idx = g.rng.integers(-n, n, size=g.shape(0, 2))
    return g.array(shape, dt), np.asarray(idx, g.pick(INTS)), {"axis": axis}


def _take_row(g, dt):
    x, idx, attrs = _take(g, dt)
    return (x, idx), attrs


def _scatter(unique):
    def make(g, dt):
        x, idx, attrs = _take(g, dt, unique)
        a = attrs["axis"] % x.ndim
        upd = x.shape[:a] + idx.shape + x.shape[a + 1:]
        return (x, idx, g.array(upd, dt)), attrs
    return make


def _concat(g, dt):
    shape = g.shape(1, 3)
    axis = g.int(-len(shape), len(shape) - 1)
    xs = []
    for _ in range(g.int(1, 3)):
        s = list(shape)
        s[axis] = g.int(0, 3)
        xs.append(g.array(tuple(s), dt))
    return tuple(xs), {"axis": axis}


_BAD_IDX = (Bad((T("f32[2,3]"), T("f32[2]")), error=OpTypeError),)
_rows |= {
    "reshape": Sample(_reshape, NUMERIC + ("bool",), bad=(Bad((T("f32[2,3]"),), {"shape": (4,)}),)),
    "transpose": Sample(_transpose, NUMERIC, bad=(Bad((T("f32[2,3]"),), {"perm": (0, 0)}),)),
    "broadcast_to": Sample(_broadcast_to, NUMERIC, bad=(Bad((T("f32[2,3]"),), {"shape": (3, 3)}),)),
    "expand_dims": Sample(_expand_dims, NUMERIC, bad=(Bad((T("f32[2]"),), {"axis": 3}),)),
    "squeeze": Sample(_squeeze, NUMERIC, bad=(Bad((T("f32[2,1]"),), {"axis": (0,)}),)),
    "getitem": Sample(_getitem, NUMERIC, bad=(Bad((T("f32[2,3]"),), {"key": (5,)}),)),
    "setitem": Sample(_setitem, NUMERIC, bad=(Bad((T("f32[2,3]"), T("f32[4]")), {"key": (0,)}),)),
    "take": Sample(_take_row, NUMERIC, diff=(0,), bad=_BAD_IDX),
    "scatter_add": Sample(_scatter(False), NUMERIC, diff=(0, 2),
                          bad=(Bad((T("f32[4,3]"), T("i32[2]"), T("f32[3,3]")), {"axis": 0}),)),
    "scatter_update": Sample(_scatter(True), NUMERIC, diff=(0, 2),
                             bad=(Bad((T("f32[4,3]"), T("i32[2]"), T("f32[3,3]")), {"axis": 0}),)),
    "concat": Sample(_concat, NUMERIC, bad=(Bad((T("f32[2,3]"), T("f32[2,4]")), {"axis": 0}),)),
}

# --- nn ---------------------------------------------------------------------------------------


def _softmax(g, dt):
    shape = g.shape(1, 3)
    axes = tuple(g.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=2,
                                 unique_by=lambda a: a % len(shape))))
    return (g.array(shape, dt, -5, 5),), {"axis": axes}


def _log_softmax(g, dt):
    shape = g.shape(1, 3)
    return (g.array(shape, dt, -5, 5),), {"axis": g.int(-len(shape), len(shape) - 1)}


def _sce(g, dt):
    shape = g.shape(1, 3)
    return (g.array(shape, dt, -5, 5), g.array(shape, dt, 0, 1)), {}


def _sparse_sce(g, dt):
    shape = g.shape(1, 3)
    return (g.array(shape, dt, -5, 5), g.array(shape[:-1], g.pick(INTS), 0, shape[-1] - 1)), {}


def _one_hot(g, dt):
    depth = g.int(0, 4)
    idx = g.array(g.shape(0, 2), dt, -1, depth)  # -1 and depth are out of range: all-off rows
    return (idx,), {"depth": depth, "on_value": g.pick([1.0, 2, -1.5]), "off_value": g.pick([0.0, 3]),
                    "axis": g.int(-idx.ndim - 1, idx.ndim), "dtype": to_dtype(g.pick(NUMERIC))}


def _arg(g, dt):
    shape = g.shape(1, 3)
    return (g.array(shape, dt, integral=True),), {"axis": g.int(-len(shape), len(shape) - 1),
                                                  "output_type": to_dtype(g.pick(INTS))}


def _bias_add(g, dt):
    shape = g.shape(2, 4)
    fmt = g.pick(["NCHW", "NHWC"])
    c = shape[-1] if fmt == "NHWC" else shape[1]
    return (g.array(shape, dt), g.array((c,), dt)), {"data_format": fmt}


def _pad(g, dt):
    shape = g.shape(0, 3)
    pads = []
    for s in shape:
        before = g.int(-min(s, 1), 2)
        pads += [before, g.int(-min(s - max(-before, 0), 1), 2)]
    return (g.array(shape, dt),), {"paddings": tuple(pads), "value": g.pick([0, 1.5, -2])}


def _batch_norm(g, dt):
    shape = g.pick([(g.int(2, 3), g.int(1, 3)), (g.int(1, 2), g.int(1, 3), g.int(1, 3), g.int(2, 3))])
    c = shape[1]
    pdt = dt if dt == "float64" else g.pick([dt, "float64"])  # statistics may be wider than x
    params = (g.array((c,), pdt, 0.5, 2.0), g.array((c,), pdt), g.array((c,), pdt), g.array((c,), pdt, 0.5, 2.0))
    attrs = {"is_training": g.flag(), "epsilon": g.pick([1e-5, 1e-3]), "momentum": g.pick([0.1, 0.5])}
    return (g.array(shape, dt), *params), attrs


def _dropout(g, dt):
    return (g.array(g.shape(), dt),), {"keep_prob": g.pick([0.3, 0.8, 1.0])}


def _dropout2d(g, dt):
    return (_nchw(g, dt),), {"keep_prob": g.pick([0.0, 0.5, 1.0])}


_BN_BAD = (Bad((T("f32[2,3]"), T("f32[2]"), T("f32[3]"), T("f32[3]"), T("f32[3]"))),
           Bad((T("i32[2,3]"), T("f32[3]"), T("f32[3]"), T("f32[3]"), T("f32[3]")), error=OpTypeError),
           Bad((T("f32[1,3]"), T("f32[3]"), T("f32[3]"), T("f32[3]"), T("f32[3]")), {"is_training": True}),
           Bad((T("f32[2,3]"), T("f32[3]"), T("f32[3]"), T("f32[3]"), T("f32[3]")), {"data_format": "NHWC"},
               OpTypeError))
_rows |= {
    "softmax": Sample(_softmax, bad=(Bad((T("i32[2]"),), {"axis": (-1,)}, OpTypeError),
                                     Bad((T("f32[2]"),), {"axis": (1,)}))),
    "log_softmax": Sample(_log_softmax, bad=(Bad((T("f32[2]"),), {"axis": 1}),)),
    "softmax_cross_entropy": Sample(_sce, bad=(Bad((T("f32[3,4]"), T("f32[3,5]"))),
                                               Bad((T("f32[3,4]"), T("i32[3]")), error=OpTypeError))),
    "sparse_softmax_cross_entropy": Sample(_sparse_sce, diff=(0,),
                                           bad=(Bad((T("f32[3,4]"), T("f32[3]")), error=OpTypeError),
                                                Bad((T("f32[3,4]"), T("i32[2]"))),
                                                Bad((T("f32[3,4]"), T("i32[3,4]"))))),
    "one_hot": Sample(_one_hot, INTS, bad=(Bad((T("f32[3]"),), {"depth": 2}, OpTypeError),
                                           Bad((T("i32[3]"),), {"depth": 2, "axis": 3}))),
    "argmax": Sample(_arg, NUMERIC, bad=(Bad((T("f32[3]"),), {"axis": 1}),
                                         Bad((T("f32[3]"),), {"output_type": to_dtype("f32")}, OpTypeError))),
    "argmin": Sample(_arg, NUMERIC, bad=(Bad((T("f32[]"),)),)),
    "bias_add": Sample(_bias_add, NUMERIC, bad=(Bad((T("f32[2,3]"), T("f32[2]"))),
                                                Bad((T("f32[2,3]"), T("f64[3]")), error=OpTypeError))),
    "pad": Sample(_pad, NUMERIC, bad=(Bad((T("f32[2,3]"),), {"paddings": (1, 1)}),
                                      Bad((T("f32[2]"),), {"paddings": (-2, -1)}))),
    "batch_norm": Sample(_batch_norm, bad=_BN_BAD, rtol=1e-4),
    "dropout": Sample(_dropout, bad=(Bad((T("f32[3]"),), {"keep_prob": 0.0}, OpTypeError),
                                     Bad((T("i32[3]"),), error=OpTypeError))),
    "dropout2d": Sample(_dropout2d, NUMERIC, bad=(Bad((T("f32[2,3]"),)),
                                                  Bad((T("f32[1,1,2,2]"),), {"keep_prob": 1.5}, OpTypeError))),
}

# --- convolution and pooling ------------------------------------------------------------------


def _conv_setup(g, dt):
    """x, w and the window attrs of a random (grouped, strided, dilated, padded) convolution."""
    group = g.pick([1, 1, 2])
    cg, og = g.int(1, 2), g.int(1, 2)
    kh, kw = g.int(1, 3), g.int(1, 3)
    stride, dilation = (g.int(1, 2), g.int(1, 2)), (g.int(1, 2), g.int(1, 2))
    mode = g.pick(["valid", "same", "pad"])
    pad = tuple(g.int(0, 2) for _ in range(4)) if mode == "pad" else (0, 0, 0, 0)
    h = dilation[0] * (kh - 1) + 1 + g.int(0, 3)
    w = dilation[1] * (kw - 1) + 1 + g.int(0, 3)
    x = g.array((g.int(1, 2), group * cg, h, w), dt)
    weight = g.array((group * og, cg, kh, kw), dt)
    return x, weight, {"pad_mode": mode, "pad": pad, "stride": stride, "dilation": dilation, "group": group}


def _conv_out_shape(x, w, win):
    from graphcell_ir.ops import REGISTRY
    from graphcell_ir.ir.types import tensor_type_of
    return REGISTRY["conv2d"].infer_types(tensor_type_of(x), tensor_type_of(w), **win).shape


def _conv2d(g, dt):
    x, w, win = _conv_setup(g, dt)
    if g.flag():  # MindSpore's redundant Primitive arguments, checked against the weight
        win |= {"out_channel": w.shape[0], "kernel_size": w.shape[2:]}
    return (x, w), win


def _bp_input(g, dt):
    x, w, win = _conv_setup(g, dt)
    return (g.array(_conv_out_shape(x, w, win), dt), w), {"input_size": x.shape, **win}


def _bp_filter(g, dt):
    x, w, win = _conv_setup(g, dt)
    return (g.array(_conv_out_shape(x, w, win), dt), x), {"filter_size": w.shape, **win}


def _pool_attrs(g, x):
    mode = g.pick(["valid", "same", "SAME"])
    k = (g.int(1, min(3, x.shape[2])), g.int(1, min(3, x.shape[3])))
    return {"kernel_size": g.pick([k, k[:1] * 2, (1, 1) + k]), "strides": (g.int(1, 3), g.int(1, 3)),
            "pad_mode": mode}


def _pool(g, dt):
    x = _nchw(g, dt, min_hw=2)
    return (x,), _pool_attrs(g, x)


def _pool_out(x, attrs):
    from graphcell_ir.ops.conv import window_geometry
    geo = window_geometry(x.shape[2:], attrs["kernel_size"], attrs["strides"], (1, 1), attrs["pad_mode"])
    return x.shape[:2] + (geo.oh, geo.ow)


def _max_pool_grad(g, dt):
    x = _nchw(g, dt, min_hw=2)
    attrs = _pool_attrs(g, x)
    return (x, g.array(_pool_out(x, attrs), dt)), attrs


def _max_pool_grad_grad(g, dt):
    x = _nchw(g, dt, min_hw=2)
    return (x, g.array(x.shape, dt)), _pool_attrs(g, x)


def _avg_pool_grad(g, dt):
    x = _nchw(g, dt, min_hw=2)
    attrs = _pool_attrs(g, x)
    return (g.array(_pool_out(x, attrs), dt),), {"input_size": x.shape, **attrs}


_CONV_BAD = (Bad((T("f32[1,3,5,5]"), T("f32[2,2,3,3]"))),                      # channels
             Bad((T("f32[1,1,2,2]"), T("f32[1,1,3,3]"))),                      # window too big
             Bad((T("f32[1,1,5,5]"), T("f64[1,1,3,3]")), error=OpTypeError),   # dtypes
             Bad((T("f32[1,1,5,5]"), T("f32[1,1,3,3]")), {"pad": (1,)}, OpTypeError),
             Bad((T("f32[1,1,5,5]"), T("f32[2,1,3,3]")), {"out_channel": 3}))
_POOL_BAD = (Bad((T("f32[1,1,2,2]"),), {"kernel_size": (3, 3)}),
             Bad((T("f32[2,2]"),)),
             Bad((T("f32[1,1,4,4]"),), {"pad_mode": "pad"}, OpTypeError))
_rows |= {
    "conv2d": Sample(_conv2d, bad=_CONV_BAD),
    "conv2d_backprop_input": Sample(_bp_input, bad=(Bad((T("f32[1,1,2,2]"), T("f32[1,1,3,3]")),
                                                        {"input_size": (1, 1, 5, 5)}),)),
    "conv2d_backprop_filter": Sample(_bp_filter, bad=(Bad((T("f32[1,1,2,2]"), T("f32[1,1,5,5]")),
                                                          {"filter_size": (1, 1, 3, 3)}),)),
    "max_pool2d": Sample(_pool, FLOATS + ("int32",), bad=_POOL_BAD),
    "max_pool2d_grad": Sample(_max_pool_grad, bad=(Bad((T("f32[1,1,4,4]"), T("f32[1,1,4,4]")),
                                                       {"kernel_size": (2, 2), "strides": (2, 2)}),)),
    "max_pool2d_grad_grad": Sample(_max_pool_grad_grad, bad=(Bad((T("f32[1,1,4,4]"), T("f32[1,1,2,2]")),
                                                                 {"kernel_size": (2, 2)}),)),
    "avg_pool2d": Sample(_pool, bad=_POOL_BAD + (Bad((T("i32[1,1,4,4]"),), error=OpTypeError),)),
    "avg_pool2d_grad": Sample(_avg_pool_grad, bad=(Bad((T("f32[1,1,2,2]"),),
                                                       {"input_size": (1, 1, 4, 4), "kernel_size": (2, 2)}),)),
}

# --- effects ----------------------------------------------------------------------------------


def _assign(g, dt):
    shape = g.shape()
    value_dt = g.pick([dt, "int32", "bool"]) if dt in FLOATS else g.pick([dt, "int8", "bool"])
    value = g.array(shape, value_dt) if shape or g.flag() else g.scalar_like(value_dt)
    return (g.array(shape, dt), value), {}


def _depend(g, dt):
    return (g.array(g.shape(), dt), g.array(g.shape(), g.pick(NUMERIC))), {}


def _host_callback(g, dt):
    xs = tuple(g.array(g.shape(), dt) for _ in range(g.int(1, 3)))
    return xs, {"fn": _observe if g.flag() else _negate_all, "name": "probe"}


def _observe(*xs):
    return None  # the values pass through


def _negate_all(*xs):
    return tuple(-x for x in xs)  # replacement values of the same types


def _py_call(g, dt):
    xs = tuple(g.array(g.shape(), dt) for _ in range(g.int(1, 3)))
    types = tuple(TensorType(to_dtype(dt), x.shape) for x in xs)
    return xs, {"fn": _negate_each, "name": "negate", "types": types}


def _negate_each(*xs):
    return tuple(-x for x in xs)


def _negate_each_vjp(*tensors_and_cotangents):
    n = len(tensors_and_cotangents) // 2
    return tuple(-d for d in tensors_and_cotangents[n:])


_negate_each.vjp = _negate_each_vjp   # py_call's gradient is its function's vjp


_rows |= {
    "py_call": Sample(_py_call, NUMERIC, bad=(Bad((NONE,), error=OpTypeError),),
                      grad_attrs={"fn": None}),  # the gradient checks compare text round trips:
                                                # without fn it is the identity; with fn,
                                                # its vjp (test_host_calls.py)
    "host_callback": Sample(_host_callback, NUMERIC, bad=(Bad((NONE,), error=OpTypeError),),
                            grad_attrs={"fn": None}),  # no callback: the checks compare text
                                                      # round trips; replaced values get the
                                                      # identity gradient (straight-through)
    "hook_backward": Sample(_host_callback, NUMERIC, bad=(Bad((NONE,), error=OpTypeError),
                                                          Bad((T("f32"),), error=OpTypeError)),
                            grad_attrs={"fn": None}),  # identity forward; without fn the
                                                      # gradient passes through unchanged
    "assign": Sample(_assign, NUMERIC, bad=(Bad((T("f32[3]"), T("f32[1]"))),
                                            Bad((T("f32[3]"), T("f64[3]")), error=OpTypeError),
                                            Bad((T("i32[3]"), T("f32[3]")), error=OpTypeError),
                                            Bad((T("f32[3]"), T("f32"))))),
    "depend": Sample(_depend, NUMERIC, bad=(Bad((T("f32[3]"),), error=OpTypeError),)),
}

# The rows of the ops added for MindSpore's API breadth live in one file per family
# (samples_<family>.py, importing the helpers above); they are merged here.
_FAMILIES: tuple[str, ...] = ("index", "binary", "unary", "reduce", "linalg", "random",
                               "effects", "nn", "comm")

SAMPLES: dict[str, Sample] = dict(_rows)
"""Op name -> its sample row (test data keyed by name: the one sanctioned second table)."""
for _family in _FAMILIES:
    _extra = __import__(f"samples_{_family}").ROWS
    _clash = set(_extra) & set(SAMPLES)
    assert not _clash, f"samples_{_family}.py repeats rows: {sorted(_clash)}"
    SAMPLES.update(_extra)

"""Elementwise primitives: arithmetic, comparisons, logic, unary math, select, cast, fill.

Each entry is one ``defop`` call; shape/dtype rules come from ``shape_rules``, gradients are
written against the functional API ``F`` so they run eagerly in PyNative and emit IR in graph
mode. ``kernel`` is the scalar template the backend assembles into loops (``math`` and
``graphcell_ir.backend.fma`` are in scope); ``kernel_f32``, where given, its float32 template.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import (DType, ScalarType, TensorType, dtype_from_numpy, float32, promote,
                                   promote_weak, scalar_dtype)
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, Trait, attr, defop
from graphcell_ir.ops.shape_rules import (broadcast_binary, broadcast_binary_float, broadcast_compare,
                                          broadcast_logical, broadcast_shapes, result_dtype,
                                          same_as_input, same_as_numeric_input, unary_bool, unary_float,
                                          require_tensorish)

EW = Kind.ELEMENTWISE

# Like MindSpore, arithmetic on inf/nan or division by zero gives inf/nan silently. numpy warns;
# a filter scoped to the registry's modules silences that for free (np.errstate costs ~0.7 us
# per call, a third of the PyNative per-op budget).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"graphcell_ir\.ops\.")
COMM, ASSOC = Trait.COMMUTATIVE, Trait.ASSOCIATIVE


# --- reference-implementation plumbing ---------------------------------------------------------
# numpy's own promotion differs from MindSpore's (int64 + float32 is float64 in numpy, Float32 in
# MindSpore), so every reference casts to the dtype the shape rule infers. The dtype is cached per
# pair of operand kinds: a dict lookup on the PyNative hot path.

def _key(v):
    return v.dtype if isinstance(v, (np.ndarray, np.generic)) else type(v)


def _dtype_of_key(k) -> tuple[DType, bool]:
    if isinstance(k, np.dtype):
        return dtype_from_numpy(k), False
    return scalar_dtype(k(0)), True


_promoted: dict = {}


def _promoted_np(kx, ky, as_float: bool) -> np.dtype:
    cache_key = (kx, ky, as_float)
    d = _promoted.get(cache_key)
    if d is None:
        (dx, wx), (dy, wy) = _dtype_of_key(kx), _dtype_of_key(ky)
        if wx and not wy:
            r = promote_weak(dy, dx)
        elif wy and not wx:
            r = promote_weak(dx, dy)
        else:
            r = promote(dx, dy)
        if as_float and not r.is_float:
            r = float32
        d = _promoted[cache_key] = r.np_dtype
    return d


def _as_result(out, x, y, want: np.dtype):
    if isinstance(out, np.ndarray):
        return out if out.dtype == want else out.astype(want)
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):  # 0-d operands give numpy scalars
        return np.asarray(out, dtype=want)
    return want.type(out).item()  # two Python scalars: a Python scalar


def _arith(ufunc, as_float: bool = False):
    def ref(x, y):
        want = _promoted_np(_key(x), _key(y), as_float)
        if as_float and isinstance(x, np.ndarray) and x.dtype != want:
            x = x.astype(want)  # integer true division computes in the float result type
        out = ufunc(x, y)
        if out.__class__ is np.ndarray and out.dtype == want:
            return out
        return _as_result(out, x, y, want)
    ref.__name__ = ufunc.__name__
    # What the reference is when nothing needs a cast (operands already of the result dtype):
    # PyNative's operators call it directly on such signatures (runtime/dispatch.py).
    ref.ufunc = ufunc
    return ref


def _compare(ufunc):
    def ref(x, y):
        out = ufunc(x, y)
        return out if isinstance(out, np.ndarray) else np.asarray(out) if _any_array(x, y) else bool(out)
    ref.__name__ = ufunc.__name__
    return ref


def _any_array(*vs) -> bool:
    return any(isinstance(v, np.ndarray) for v in vs)


def _unary(fn, float_result: bool = False):
    def ref(x):
        if float_result and not np.asarray(x).dtype.kind == "f":
            x = np.asarray(x, dtype=np.float32)
        out = fn(x)
        if isinstance(x, np.ndarray):
            return out if isinstance(out, np.ndarray) else np.asarray(out)  # 0-d: keep out's dtype
        return out.item() if isinstance(out, np.generic) else out
    ref.__name__ = getattr(fn, "__name__", "unary")
    return ref


# --- gradient helpers --------------------------------------------------------------------------

def _grad_for(g, x):
    """``g`` reduced to ``x``'s shape and cast to its dtype; None when x is a Python number."""
    if g is None or not hasattr(x, "shape") or isinstance(x, (int, float)):
        return None
    return F.cast_like(F.sum_to(g, tuple(x.shape)), x)


def _float_or_none(x) -> bool:
    return hasattr(x, "dtype") and getattr(x.dtype, "is_float", False)


# --- binary arithmetic -------------------------------------------------------------------------

add = defop("add", ("x", "y"), kind=EW, traits={COMM, ASSOC}, ms_name="Add",
            infer=broadcast_binary, ref=_arith(np.add), kernel="{x} + {y}",
            bprop=lambda x, y, out, dout: (_grad_for(dout, x), _grad_for(dout, y)))

sub = defop("sub", ("x", "y"), kind=EW, ms_name="Sub",
            infer=broadcast_binary, ref=_arith(np.subtract), kernel="{x} - {y}",
            bprop=lambda x, y, out, dout: (_grad_for(dout, x), _grad_for(F.neg(dout), y)))

mul = defop("mul", ("x", "y"), kind=EW, traits={COMM, ASSOC}, ms_name="Mul",
            infer=broadcast_binary, ref=_arith(np.multiply), kernel="{x} * {y}",
            bprop=lambda x, y, out, dout: (_grad_for(F.mul(dout, y), x), _grad_for(F.mul(dout, x), y)))


def bprop_div(x, y, out, dout):
    dx = F.div(dout, y)
    return _grad_for(dx, x), _grad_for(F.neg(F.mul(dx, out)), y)  # d(x/y)/dy = -(x/y)/y


div = defop("div", ("x", "y"), kind=EW, ms_name="RealDiv", aliases=("real_div", "true_divide"),
            infer=broadcast_binary_float, ref=_arith(np.true_divide, as_float=True),
            kernel="{x} / {y}", bprop=bprop_div)

floor_div = defop("floor_div", ("x", "y"), kind=EW, ms_name="FloorDiv",
                  infer=broadcast_binary, ref=_arith(np.floor_divide),
                  kernel="{x} // {y}", bprop=lambda x, y, out, dout: (None, None))

mod = defop("mod", ("x", "y"), kind=EW, ms_name="FloorMod", aliases=("floor_mod",),
            infer=broadcast_binary, ref=_arith(np.mod), kernel="{x} % {y}",
            bprop=lambda x, y, out, dout: (_grad_for(dout, x),
                                           _grad_for(F.neg(F.mul(dout, F.floor_div(x, y))), y)))


def bprop_pow(x, y, out, dout):
    dx = F.mul(dout, F.mul(y, F.pow(x, F.sub(y, 1))))
    dy = F.mul(dout, F.mul(out, F.log(x))) if _float_or_none(y) else None
    return _grad_for(dx, x), _grad_for(dy, y)


pow = defop("pow", ("x", "y"), kind=EW, ms_name="Pow", aliases=("power",),
            infer=broadcast_binary, ref=_arith(np.power), kernel="{x} ** {y}", bprop=bprop_pow)


def _bprop_select_by(pick_x):
    def bprop(x, y, out, dout):
        take_x = pick_x(x, y)
        zero = F.zeros_like(dout)
        return (_grad_for(F.select(take_x, dout, zero), x),
                _grad_for(F.select(take_x, zero, dout), y))
    return bprop


maximum = defop("maximum", ("x", "y"), kind=EW, traits={COMM, ASSOC}, ms_name="Maximum",
                infer=broadcast_binary, ref=_arith(np.maximum),
                kernel="({x} if ({x} >= {y} or {x} != {x}) else {y})",  # NaN wins, as in numpy
                bprop=_bprop_select_by(lambda x, y: F.greater_equal(x, y)))

minimum = defop("minimum", ("x", "y"), kind=EW, traits={COMM, ASSOC}, ms_name="Minimum",
                infer=broadcast_binary, ref=_arith(np.minimum),
                kernel="({x} if ({x} <= {y} or {x} != {x}) else {y})",  # NaN wins, as in numpy
                bprop=_bprop_select_by(lambda x, y: F.less_equal(x, y)))

# --- comparisons and logic ---------------------------------------------------------------------

equal = defop("equal", ("x", "y"), kind=EW, ms_name="Equal", aliases=("eq",), traits={COMM},
              infer=broadcast_compare, ref=_compare(np.equal), kernel="{x} == {y}", bprop=NONDIFF)
not_equal = defop("not_equal", ("x", "y"), kind=EW, ms_name="NotEqual", aliases=("ne",), traits={COMM},
                  infer=broadcast_compare, ref=_compare(np.not_equal), kernel="{x} != {y}", bprop=NONDIFF)
less = defop("less", ("x", "y"), kind=EW, ms_name="Less", aliases=("lt",),
             infer=broadcast_compare, ref=_compare(np.less), kernel="{x} < {y}", bprop=NONDIFF)
less_equal = defop("less_equal", ("x", "y"), kind=EW, ms_name="LessEqual", aliases=("le",),
                   infer=broadcast_compare, ref=_compare(np.less_equal), kernel="{x} <= {y}", bprop=NONDIFF)
greater = defop("greater", ("x", "y"), kind=EW, ms_name="Greater", aliases=("gt",),
                infer=broadcast_compare, ref=_compare(np.greater), kernel="{x} > {y}", bprop=NONDIFF)
greater_equal = defop("greater_equal", ("x", "y"), kind=EW, ms_name="GreaterEqual", aliases=("ge",),
                      infer=broadcast_compare, ref=_compare(np.greater_equal), kernel="{x} >= {y}",
                      bprop=NONDIFF)
logical_and = defop("logical_and", ("x", "y"), kind=EW, ms_name="LogicalAnd", traits={COMM, ASSOC},
                    infer=broadcast_logical, ref=_compare(np.logical_and), kernel="bool({x}) and bool({y})",
                    bprop=NONDIFF)
logical_or = defop("logical_or", ("x", "y"), kind=EW, ms_name="LogicalOr", traits={COMM, ASSOC},
                   infer=broadcast_logical, ref=_compare(np.logical_or), kernel="bool({x}) or bool({y})",
                   bprop=NONDIFF)
logical_not = defop("logical_not", ("x",), kind=EW, ms_name="LogicalNot",
                    infer=unary_bool, ref=_unary(np.logical_not), kernel="not {x}", bprop=NONDIFF)
isnan = defop("isnan", ("x",), kind=EW, ms_name="IsNan",
              infer=unary_bool, ref=_unary(np.isnan), kernel="math.isnan({x})", bprop=NONDIFF)

# --- unary math --------------------------------------------------------------------------------

neg = defop("neg", ("x",), kind=EW, ms_name="Neg", infer=same_as_numeric_input, ref=_unary(np.negative),
            kernel="-{x}", bprop=lambda x, out, dout: (F.neg(dout),))
abs = defop("abs", ("x",), kind=EW, ms_name="Abs", infer=same_as_input, ref=_unary(np.abs),
            kernel="abs({x})", bprop=lambda x, out, dout: (F.mul(dout, F.sign(x)),))


def _sign(x):
    """np.sign, but 0 for NaN, as MindSpore's Sign gives."""
    out = np.sign(x)
    return np.nan_to_num(out, nan=0.0) if out.dtype.kind == "f" else out


sign = defop("sign", ("x",), kind=EW, ms_name="Sign", infer=same_as_input, ref=_unary(_sign),
             kernel="0 if {x} == 0 or {x} != {x} else (1 if {x} > 0 else -1)",
             bprop=lambda x, out, dout: (None,))
floor = defop("floor", ("x",), kind=EW, ms_name="Floor", infer=same_as_input, ref=_unary(np.floor),
              kernel="({x} // 1 if math.isfinite({x}) else {x})", bprop=lambda x, out, dout: (None,))
square = defop("square", ("x",), kind=EW, ms_name="Square", infer=same_as_input, ref=_unary(np.square),
               kernel="{x} * {x}", bprop=lambda x, out, dout: (F.mul(dout, F.mul(x, 2)),))
exp = defop("exp", ("x",), kind=EW, ms_name="Exp", infer=unary_float, ref=_unary(np.exp, True),
            kernel="math.exp({x})", bprop=lambda x, out, dout: (F.mul(dout, out),))
log = defop("log", ("x",), kind=EW, ms_name="Log", infer=unary_float, ref=_unary(np.log, True),
            kernel="math.log({x})", bprop=lambda x, out, dout: (F.div(dout, x),))
sqrt = defop("sqrt", ("x",), kind=EW, ms_name="Sqrt", infer=unary_float, ref=_unary(np.sqrt, True),
             kernel="math.sqrt({x})", bprop=lambda x, out, dout: (F.div(F.mul(dout, 0.5), out),))
sin = defop("sin", ("x",), kind=EW, ms_name="Sin", infer=unary_float, ref=_unary(np.sin, True),
            kernel="math.sin({x})", bprop=lambda x, out, dout: (F.mul(dout, F.cos(x)),))
cos = defop("cos", ("x",), kind=EW, ms_name="Cos", infer=unary_float, ref=_unary(np.cos, True),
            kernel="math.cos({x})", bprop=lambda x, out, dout: (F.neg(F.mul(dout, F.sin(x))),))
def _tanh_pade(terms: int) -> tuple[list[float], list[float]]:
    """``(P, Q)``, coefficients in ``s = a²`` from the constant up, of the Padé approximant
    ``tanh(a) ≈ a·P(s)/Q(s)`` that is the continued fraction ``a/(1 + s/(3 + s/(5 + ...
    s/(2·terms + 1))))``, normalised so that ``P(0) = Q(0) = 1`` (p and q stay small).

        >>> _tanh_pade(2)   # a(15 + s) / (15 + 6s)
        ([1.0, 0.06666666666666667], [1.0, 0.4])
    """
    num, den = [2 * terms + 1], [1]   # the fraction's tail, num/den, in integers
    for b in range(2 * terms - 1, 0, -2):   # b + s / (num/den) = (b·num + s·den) / num
        s_den = [0] + den + [0] * (len(num) - len(den) - 1)
        b_num = [b * c for c in num] + [0] * (len(s_den) - len(num))
        num, den = [x + y for x, y in zip(b_num, s_den)], num
    return [c / num[0] for c in den], [c / num[0] for c in num]


def _tanh_kernel(x: str, terms: int, doublings: int, limit: float) -> str:
    """A tanh template: arithmetic only, so LLVM vectorizes the loop (libm's scalar ``tanhf``
    costs ~14 ns an element; numba has no SVML here).

    ``a = clamp(x, ±limit) / 2**doublings`` (beyond ``limit``, tanh rounds to ±1), the Padé
    approximant of ``tanh(a)`` (:func:`_tanh_pade`) kept as the pair ``(p, q)``, doubled
    ``doublings`` times with ``tanh(2a) = 2pq / (p² + q²)``, divided once and clamped to
    [-1, 1]. Its polynomials are ``fma`` chains (``graphcell_ir.backend.fma``: one instruction
    each, the approximant's own roundings). NaN stays NaN, ±0 keeps its sign, ±Inf gives ±1.
    Lambdas stand for local names (numba inlines them; it cannot type ``:=``). The backend
    evaluates float literals in the op's dtype.

        >>> from graphcell_ir.backend.fma import fma
        >>> y = eval(_tanh_kernel("0.5", 8, 2, 20.0), {"fma": fma})   # Python's min/max
        >>> round(y, 15) == round(math.tanh(0.5), 15)
        True
    """
    p, q = _tanh_pade(terms)
    body = "p / q"
    for _ in range(doublings):
        body = f"(lambda p, q: {body})(2.0 * p * q, fma(p, p, q * q))"
    return (f"min(max((lambda a: (lambda s: (lambda p, q: {body})(a * {_horner(p)}, "
            f"{_horner(q)}))(a * a))(min(max({x}, -{limit!r}), {limit!r}) * "
            f"{2.0 ** -doublings!r}), -1.0), 1.0)")


def _horner(coefficients) -> str:
    """The polynomial in ``s`` with these coefficients (from the constant up), as a template's
    chain of ``fma``.

        >>> _horner([1.0, 2.0, 3.0])
        'fma(s, fma(s, 3.0, 2.0), 1.0)'
    """
    expr = repr(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        expr = f"fma(s, {expr}, {c!r})"
    return expr


# float64: the [9/8] approximant on |x|/4 <= 5, doubled twice: within 7 ulp of numpy (tanh is 1
# in float64 beyond 19.06). float32: the [7/6] one on |x|/2 <= 4.55, doubled once: within 5 ulp
# of the rounded tanh, 0.16 on average, and exactly ±1 beyond 9.01, where float32's tanh rounds
# to ±1 (the [5/6] one was faster but 2.5 ulp off on average, and 5 below 1 at the clamp).
_TANH_64, _TANH_32 = (8, 2, 20.0), (6, 1, 9.1)

tanh = defop("tanh", ("x",), kind=EW, ms_name="Tanh", infer=unary_float, ref=_unary(np.tanh, True),
             kernel=_tanh_kernel("{x}", *_TANH_64), kernel_f32=_tanh_kernel("{x}", *_TANH_32),
             bprop=lambda x, out, dout: (F.mul(dout, F.sub(1, F.mul(out, out))),))


_erf_ufunc = np.frompyfunc(math.erf, 1, 1)  # numpy has no erf; math.erf is what the kernel runs


def _erf(x):
    return np.asarray(_erf_ufunc(x), x.dtype) if isinstance(x, np.ndarray) else math.erf(x)


# float32's erf: x·P(x²)/Q(x²) on |x| <= 3.92 (erf rounds to ±1 in float32 beyond 3.92),
# coefficients from tools/fit_erf.py (relative error 5.2e-8): within 5 ulp of math.erf, 0.6 on
# average, and arithmetic only, so it vectorises; libm's erff is a scalar call per element (an
# exact GELU over 4M float32 took 13.5 ms, 0.5 with this). float64 keeps libm's erf.
_ERF_F32 = ((1.1283791091126854, 0.19993967158801315, 0.050575359289225366,
             0.003702225518639192, 0.00014186260369161534, -1.9578192091661284e-06,
             1.992279108353756e-08),
            (1.0, 0.5105235755255291, 0.1150046906124982, 0.014354492618763853,
             0.0009561793582177994))


def _erf_f32_kernel(x: str) -> str:
    """float32's erf template (see ``_ERF_F32``): NaN stays NaN, ±0 keeps its sign, ±Inf and
    everything beyond ±3.92 gives ±1.

        >>> from graphcell_ir.backend.fma import fma
        >>> y = eval(_erf_f32_kernel("0.5"), {"fma": fma})   # Python's min/max
        >>> -1e-7 < y - math.erf(0.5) < 1e-7
        True
    """
    p, q = _ERF_F32
    return (f"min(max((lambda a: (lambda s: a * {_horner(p)} / {_horner(q)})(a * a))"
            f"(min(max({x}, -3.92), 3.92)), -1.0), 1.0)")


erf = defop("erf", ("x",), kind=EW, ms_name="Erf", infer=unary_float, ref=_unary(_erf, True),
            kernel="math.erf({x})", kernel_f32=_erf_f32_kernel("{x}"),
            bprop=lambda x, out, dout: (  # d erf(x) = 2/sqrt(pi) * exp(-x^2)
                F.mul(dout, F.mul(F.exp(F.neg(F.square(x))), 2 / math.sqrt(math.pi))),))


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1)  # stable for large |x|, exact at 0


sigmoid = defop("sigmoid", ("x",), kind=EW, ms_name="Sigmoid", infer=unary_float,
                ref=_unary(lambda x: _sigmoid(x).astype(np.result_type(x), copy=False), True),
                kernel=f"0.5 * ({_tanh_kernel('0.5 * {x}', *_TANH_64)} + 1.0)",
                kernel_f32=f"0.5 * ({_tanh_kernel('0.5 * {x}', *_TANH_32)} + 1.0)",
                bprop=lambda x, out, dout: (F.mul(dout, F.mul(out, F.sub(1, out))),))

relu = defop("relu", ("x",), kind=EW, ms_name="ReLU", infer=same_as_input,
             ref=_unary(lambda x: np.maximum(x, np.zeros((), np.result_type(x)))),
             kernel="max({x}, 0)",
             bprop=lambda x, out, dout: (F.select(F.greater(x, 0), dout, F.zeros_like(dout)),))

# --- select, cast, fill ------------------------------------------------------------------------


def _select_infer(cond, x, y):
    require_tensorish(cond, "cond")
    if not cond.dtype.is_bool:
        raise OpTypeError(f"cond must be a Bool tensor, got {cond}")
    dtype = result_dtype(x, y)
    shape = broadcast_shapes(cond.shape, x.shape, y.shape)
    return TensorType(dtype, shape)


def _select_ref(cond, x, y):
    want = _promoted_np(_key(x), _key(y), False)
    return np.asarray(np.where(cond, x, y), dtype=want)


select = defop("select", ("cond", "x", "y"), kind=EW, ms_name="Select",
               infer=_select_infer, ref=_select_ref, kernel="{x} if {cond} else {y}",
               bprop=lambda c, x, y, out, dout: (
                   None,
                   _grad_for(F.select(c, dout, F.zeros_like(dout)), x),
                   _grad_for(F.select(c, F.zeros_like(dout), dout), y)))


def _cast_infer(x, *, dtype):
    require_tensorish(x, "input")
    return ScalarType(dtype) if isinstance(x, ScalarType) else TensorType(dtype, x.shape)


def _cast_ref(x, *, dtype):
    return np.asarray(x).astype(dtype.np_dtype)


cast = defop("cast", ("x",), kind=EW, ms_name="Cast", attrs=[attr("dtype", AttrKind.DTYPE)],
             infer=_cast_infer, ref=_cast_ref, kernel="{x}",  # the backend converts on store
             bprop=lambda x, out, dout, dtype: (F.cast_like(dout, x) if _float_or_none(x) else None,))


def _fill_infer(*, dtype, shape, value):
    if any(s < 0 for s in shape):
        raise ShapeError(f"shape {list(shape)} has a negative dimension")
    return TensorType(dtype, shape)


def _fill_ref(*, dtype, shape, value):
    return np.full(shape, value, dtype=dtype.np_dtype)


fill = defop("fill", (), kind=EW, ms_name="Fill",
             attrs=[attr("dtype", AttrKind.DTYPE), attr("shape", AttrKind.INTS),
                    attr("value", AttrKind.SCALAR)],
             infer=_fill_infer, ref=_fill_ref, kernel="{value}", bprop=NONDIFF)

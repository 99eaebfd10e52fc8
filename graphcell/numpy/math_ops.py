"""``mindspore.numpy.math_ops``: arithmetic, reductions and products with numpy's signatures.

Each function is a spelling of ``graphcell.ops`` (or a short composite of it) with
mindspore.numpy's dtype rules: numbers and lists become Int32/Float32/Bool tensors first (so
``add(int8_tensor, 1)`` is Int32), trigonometric functions take integers to Float16 (8-bit, bool)
or Float32, ``divide`` of integers is Float32, ``ceil`` is Float32, ``sum`` of integers Int64 and
``mean`` of integers truncates. Statistics and histograms are in ``_statistics``, polynomials and
convolutions in ``_polynomials``; this module re-exports them, as mindspore.numpy's ``math_ops``
holds them all.

Example::

    >>> import graphcell as ms
    >>> import graphcell.numpy as mnp
    >>> x = ms.Tensor([[1, -2], [3, 4]], ms.int32)
    >>> mnp.add(x, 1).dtype, mnp.divide(x, 2).dtype, mnp.sin(x).dtype, mnp.sum(x).dtype
    (Int32, Float32, Float32, Int64)
"""
from __future__ import annotations

import math

import numpy as np

from graphcell import ops
from graphcell.numpy import array_ops
from graphcell.numpy._polynomials import (convolve, correlate, polyadd, polyder, polyint,
                                          polymul, polysub, polyval)
from graphcell.numpy._statistics import (average, bincount, corrcoef, cov, digitize, histogram,
                                         histogram2d, histogramdd, interp, nancumsum, nanmax,
                                         nanmean, nanmin, nanstd, nansum, nanvar, searchsorted)
from graphcell.numpy.utils import (apply, axes_arg, axis_arg, cast, check_tensor, dtype_arg,
                                   promote_all, to_tensor, to_tensors)
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import (DType, bool_, float16, float32, float64, int8, int16, int32,
                                   int64, promote, uint8, uint16, uint32)

__all__ = [
    # arithmetic
    "add", "subtract", "multiply", "divide", "true_divide", "power", "float_power", "minimum",
    "maximum", "heaviside", "hypot", "floor_divide", "remainder", "mod", "fmod", "divmod",
    "gcd", "lcm", "logaddexp", "logaddexp2", "arctan2", "copysign", "bitwise_and", "bitwise_or",
    "bitwise_xor", "invert", "bitwise_not",
    # unary
    "absolute", "abs", "fabs", "negative", "positive", "square", "sqrt", "cbrt", "reciprocal",
    "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sign", "floor", "ceil", "fix",
    "trunc", "rint", "around", "round", "deg2rad", "rad2deg", "radians", "clip",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
    "arccosh", "arctanh",
    # reductions and scans
    "sum", "mean", "amax", "amin", "max", "min", "ptp", "std", "var", "count_nonzero", "argmax",
    "argmin", "cumsum", "cumprod", "diff", "ediff1d", "gradient", "trapz", "unwrap", "norm",
    # products
    "matmul", "dot", "inner", "outer", "tensordot", "multi_dot", "kron", "matrix_power", "cross",
    # dtypes and indices
    "promote_types", "result_type", "ravel_multi_index",
    # from _statistics and _polynomials
    "average", "bincount", "corrcoef", "cov", "digitize", "histogram", "histogram2d",
    "histogramdd", "interp", "nancumsum", "nanmax", "nanmean", "nanmin", "nanstd", "nansum",
    "nanvar", "searchsorted", "convolve", "correlate", "polyadd", "polyder", "polyint",
    "polymul", "polysub", "polyval",
]

_FN = "mindspore.numpy"


def _int(v, fn: str, name: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{_FN}.{fn}: {name} must be an int, but got {v!r}")
    return int(v)


def _float_of(x):
    """``x`` in Float32 unless it is a float tensor already."""
    return x if x.dtype.is_float else ops.cast(x, float32)


# --- binary arithmetic ---------------------------------------------------------------------------

def add(x1, x2, dtype=None):
    """``add(x1, x2, dtype=None)``: ``x1 + x2`` (numbers become Int32/Float32 tensors)."""
    return apply(ops.add, x1, x2, dtype=dtype, fn=f"{_FN}.add")


def subtract(x1, x2, dtype=None):
    """``subtract(x1, x2, dtype=None)``: ``x1 - x2``."""
    return apply(ops.sub, x1, x2, dtype=dtype, fn=f"{_FN}.subtract")


def multiply(x1, x2, dtype=None):
    """``multiply(x1, x2, dtype=None)``: ``x1 * x2``."""
    return apply(ops.mul, x1, x2, dtype=dtype, fn=f"{_FN}.multiply")


def divide(x1, x2, dtype=None):
    """``divide(x1, x2, dtype=None)``: true division; two integer inputs divide in Float32."""
    def div(a, b):
        if not a.dtype.is_float and not b.dtype.is_float:
            a, b = ops.cast(a, float32), ops.cast(b, float32)
        return ops.div(a, b)
    return apply(div, x1, x2, dtype=dtype, fn=f"{_FN}.divide")


def true_divide(x1, x2, dtype=None):
    """``true_divide(x1, x2, dtype=None)``: :func:`divide`."""
    return divide(x1, x2, dtype)


def power(x1, x2, dtype=None):
    """``power(x1, x2, dtype=None)``: ``x1 ** x2`` (integers stay integers)."""
    return apply(ops.pow, x1, x2, dtype=dtype, fn=f"{_FN}.power")


def float_power(x1, x2, dtype=None):
    """``float_power(x1, x2, dtype=None)``: ``x1 ** x2`` computed in Float32 (mindspore.numpy's
    float width; numpy's is Float64)."""
    return apply(lambda a, b: ops.pow(ops.cast(a, float32), ops.cast(b, float32)), x1, x2,
                 dtype=dtype, fn=f"{_FN}.float_power")


def _extremum(op, x1, x2, dtype, fn: str):
    """numpy's maximum/minimum: NaN wins; a 0-d operand takes the other's dtype."""
    x1, x2 = to_tensors(x1, x2, fn=f"{_FN}.{fn}")
    if dtype is None and (x1.ndim == 0) != (x2.ndim == 0):
        dtype = x2.dtype if x1.ndim == 0 else x1.dtype
    common = promote(x1.dtype, x2.dtype)
    x1, x2 = cast(x1, common), cast(x2, common)
    out = op(x1, x2)
    if common.is_float:  # NaN as a constant: no gradient flows to either input there
        nan = ops.logical_or(ops.isnan(x1), ops.isnan(x2))
        out = ops.select(nan, ops.full_like(out, float("nan")), out)
    return cast(out, dtype_arg(dtype, f"{_FN}.{fn}"))


def maximum(x1, x2, dtype=None):
    """``maximum(x1, x2, dtype=None)``: the elementwise maximum (NaN propagates)."""
    return _extremum(ops.maximum, x1, x2, dtype, "maximum")


def minimum(x1, x2, dtype=None):
    """``minimum(x1, x2, dtype=None)``: the elementwise minimum (NaN propagates)."""
    return _extremum(ops.minimum, x1, x2, dtype, "minimum")


def heaviside(x1, x2, dtype=None):
    """``heaviside(x1, x2, dtype=None)``: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where
    ``x1 > 0``."""
    def step(a, b):
        common = promote(a.dtype, b.dtype)
        return ops.heaviside(cast(a, common), cast(b, common))
    return apply(step, x1, x2, dtype=dtype, fn=f"{_FN}.heaviside")


def hypot(x1, x2, dtype=None):
    """``hypot(x1, x2, dtype=None)``: ``sqrt(x1**2 + x2**2)`` (integers in Float32)."""
    def length(a, b):
        common = promote(a.dtype, b.dtype)
        common = common if common.is_float else float32
        return ops.hypot(cast(a, common), cast(b, common))
    return apply(length, x1, x2, dtype=dtype, fn=f"{_FN}.hypot")


def floor_divide(x1, x2, dtype=None):
    """``floor_divide(x1, x2, dtype=None)``: ``x1 // x2``."""
    return apply(ops.floor_divide, x1, x2, dtype=dtype, fn=f"{_FN}.floor_divide")


def remainder(x1, x2, dtype=None):
    """``remainder(x1, x2, dtype=None)``: ``x1 % x2`` with the sign of ``x2`` (an integer
    remainder by 0 is 0)."""
    return apply(ops.remainder, x1, x2, dtype=dtype, fn=f"{_FN}.remainder")


mod = remainder


def fmod(x1, x2, dtype=None):
    """``fmod(x1, x2, dtype=None)``: the remainder with the sign of ``x1`` (C's ``fmod``)."""
    return apply(ops.fmod, x1, x2, dtype=dtype, fn=f"{_FN}.fmod")


def divmod(x1, x2, dtype=None):  # noqa: A001 - numpy's name
    """``divmod(x1, x2, dtype=None)``: ``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def _integers(op, name: str):
    def fn(x1, x2, dtype=None):
        def run(a, b):
            common = promote(a.dtype, b.dtype)
            return op(cast(a, common), cast(b, common))
        return apply(run, x1, x2, dtype=dtype, fn=f"{_FN}.{name}")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(x1, x2, dtype=None)``: elementwise, on integer tensors."
    return fn


gcd = _integers(ops.gcd, "gcd")
lcm = _integers(ops.lcm, "lcm")
bitwise_and = _integers(ops.bitwise_and, "bitwise_and")
bitwise_or = _integers(ops.bitwise_or, "bitwise_or")
bitwise_xor = _integers(ops.bitwise_xor, "bitwise_xor")


def invert(x, dtype=None):
    """``invert(x, dtype=None)``: bitwise NOT of an integer tensor."""
    return apply(ops.invert, x, dtype=dtype, fn=f"{_FN}.invert")


bitwise_not = invert


def logaddexp(x1, x2, dtype=None):
    """``logaddexp(x1, x2, dtype=None)``: ``log(exp(x1) + exp(x2))``, computed stably."""
    return apply(ops.logaddexp, x1, x2, dtype=dtype, fn=f"{_FN}.logaddexp")


def logaddexp2(x1, x2, dtype=None):
    """``logaddexp2(x1, x2, dtype=None)``: ``log2(2**x1 + 2**x2)``, computed stably."""
    check_tensor(x1, x2, fn=f"{_FN}.logaddexp2")
    return apply(ops.logaddexp2, x1, x2, dtype=dtype, fn=f"{_FN}.logaddexp2")


def copysign(x1, x2, dtype=None):
    """``copysign(x1, x2, dtype=None)``: ``|x1|`` with the sign of ``x2``, in ``x1``'s dtype
    (bool inputs are refused)."""
    x1, x2 = to_tensors(x1, x2, fn=f"{_FN}.copysign")
    if x1.dtype is bool_ or x2.dtype is bool_:
        raise TypeError(f"{_FN}.copysign: bool inputs are not supported")
    shape = tuple(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    magnitude = ops.broadcast_to(ops.abs(x1), shape)
    negative_ = ops.broadcast_to(ops.lt(x2, 0) if not x2.dtype.is_float else ops.signbit(x2),
                                 shape)
    return cast(ops.select(negative_, ops.neg(magnitude), magnitude), dtype_arg(dtype))


# --- unary ---------------------------------------------------------------------------------------

_TRIG = {int8: float16, uint8: float16, bool_: float16}


def _trig_input(x, fn: str):
    """mindspore.numpy's input dtype for a trigonometric function: 8-bit integers and bools as
    Float16, wider integers as Float32, floats as they are."""
    check_tensor(x, fn=f"{_FN}.{fn}")
    return x if x.dtype.is_float else ops.cast(x, _TRIG.get(x.dtype, float32))


def _unary(op, name: str, doc: str, trig: bool = False):
    def fn(x, dtype=None):
        x = _trig_input(x, name) if trig else x
        return apply(op, x, dtype=dtype, fn=f"{_FN}.{name}")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(x, dtype=None)``: {doc}"
    return fn


sin = _unary(ops.sin, "sin", "the sine (integers in Float16/Float32).", trig=True)
cos = _unary(ops.cos, "cos", "the cosine.", trig=True)
tan = _unary(ops.tan, "tan", "the tangent.", trig=True)
arcsin = _unary(ops.asin, "arcsin", "the inverse sine.", trig=True)
arccos = _unary(ops.acos, "arccos", "the inverse cosine.", trig=True)
arctan = _unary(ops.atan, "arctan", "the inverse tangent.", trig=True)
sinh = _unary(ops.sinh, "sinh", "the hyperbolic sine.", trig=True)
cosh = _unary(ops.cosh, "cosh", "the hyperbolic cosine.", trig=True)
tanh = _unary(ops.tanh, "tanh", "the hyperbolic tangent.", trig=True)
arcsinh = _unary(ops.asinh, "arcsinh", "the inverse hyperbolic sine.", trig=True)
arccosh = _unary(ops.acosh, "arccosh", "the inverse hyperbolic cosine.", trig=True)
arctanh = _unary(ops.atanh, "arctanh", "the inverse hyperbolic tangent.", trig=True)
square = _unary(ops.square, "square", "``x * x`` (integers stay integers).")
sqrt = _unary(ops.sqrt, "sqrt", "the square root (integers in Float32).")
exp = _unary(ops.exp, "exp", "``e ** x``.")
expm1 = _unary(ops.expm1, "expm1", "``e ** x - 1``, accurate near 0.")
log = _unary(ops.log, "log", "the natural logarithm.")
log1p = _unary(ops.log1p, "log1p", "``log(1 + x)``, accurate near 0.")
log2 = _unary(ops.log2, "log2", "the base-2 logarithm.")
log10 = _unary(ops.log10, "log10", "the base-10 logarithm.")
floor = _unary(ops.floor, "floor", "rounded down.")
negative = _unary(ops.neg, "negative", "``-x``.")
rint = _unary(ops.rint, "rint", "rounded to the nearest integer, halves to even (floats).")


def arctan2(x1, x2, dtype=None):
    """``arctan2(x1, x2, dtype=None)``: the angle of the point ``(x2, x1)``."""
    x1, x2 = _trig_input(x1, "arctan2"), _trig_input(x2, "arctan2")
    common = promote(x1.dtype, x2.dtype)
    return cast(ops.atan2(cast(x1, common), cast(x2, common)), dtype_arg(dtype))


def absolute(x, dtype=None):
    """``absolute(x, dtype=None)``: ``|x|`` in ``x``'s dtype (a bool stays itself)."""
    x = to_tensor(x, f"{_FN}.absolute")
    return cast(x if x.dtype is bool_ else ops.abs(x), dtype_arg(dtype))


abs = absolute  # noqa: A001 - numpy's name
fabs = absolute


def positive(a, dtype=None):
    """``positive(a, dtype=None)``: a copy of ``a``."""
    check_tensor(a, fn=f"{_FN}.positive")
    return apply(ops.positive, a, dtype=dtype)


def reciprocal(x, dtype=None):
    """``reciprocal(x, dtype=None)``: ``1 / x``; integers stay integers (truncated), as in
    mindspore.numpy."""
    def inverse(t):
        return ops.reciprocal(t) if t.dtype.is_float else cast(ops.reciprocal(t), t.dtype)
    return apply(inverse, x, dtype=dtype, fn=f"{_FN}.reciprocal")


def exp2(x, dtype=None):
    """``exp2(x, dtype=None)``: ``2 ** x``; integers stay integers (``2 ** -1`` is 0)."""
    def power_of_two(t):
        return ops.exp2(t) if t.dtype.is_float else cast(ops.exp2(ops.cast(t, float32)), t.dtype)
    return apply(power_of_two, x, dtype=dtype, fn=f"{_FN}.exp2")


def cbrt(x, dtype=None):
    """``cbrt(x, dtype=None)``: the real cube root (integers in Float32)."""
    def root(t):
        t = _float_of(t)
        return ops.mul(ops.sign(t), ops.pow(ops.abs(t), 1.0 / 3.0))
    return apply(root, x, dtype=dtype, fn=f"{_FN}.cbrt")


def sign(x, dtype=None):
    """``sign(x, dtype=None)``: -1, 0 or 1 (NaN for NaN); integers give Float32, as in
    mindspore.numpy; bools are refused."""
    if not isinstance(x, (int, float, list, tuple, Tensor)) or isinstance(x, bool):
        raise TypeError(f"{_FN}.sign: expected an int, float, list, tuple or Tensor, but got "
                        f"{x!r}")
    x = to_tensor(x, f"{_FN}.sign")
    if x.dtype is bool_:
        raise TypeError(f"{_FN}.sign: bool inputs are not supported")
    x = _float_of(x)
    nan = ops.full_like(x, float("nan"))
    return cast(ops.select(ops.isnan(x), nan, ops.sign(x)), dtype_arg(dtype))


def ceil(x, dtype=None):
    """``ceil(x, dtype=None)``: rounded up, in Float32 (mindspore.numpy computes it in
    Float32 whatever the input)."""
    return apply(lambda t: ops.ceil(ops.cast(t, float32)), x, dtype=dtype, fn=f"{_FN}.ceil")


def fix(x):
    """``fix(x)``: rounded towards zero (integers in Float32)."""
    check_tensor(x, fn=f"{_FN}.fix")
    return ops.trunc(_float_of(x))


def trunc(x, dtype=None):
    """``trunc(x, dtype=None)``: rounded towards zero (integers in Float32)."""
    return apply(lambda t: ops.trunc(_float_of(t)), x, dtype=dtype, fn=f"{_FN}.trunc")


def around(a, decimals=0):
    """``around(a, decimals=0)``: rounded to ``decimals`` places, halves to even (integers are
    returned as they are; negative ``decimals`` are refused)."""
    a = to_tensor(a, f"{_FN}.around")
    decimals = _int(decimals, "around", "decimals")
    if decimals < 0:
        raise ValueError(f"{_FN}.around: decimals < 0 is not supported")
    if not a.dtype.is_float:
        return a
    if decimals == 0:
        return ops.round(a)
    scale = float(10 ** decimals)
    return ops.div(ops.round(ops.mul(a, scale)), scale)


round = around  # noqa: A001 - numpy's name


def deg2rad(x, dtype=None):
    """``deg2rad(x, dtype=None)``: degrees to radians (integers in Float32)."""
    check_tensor(x, fn=f"{_FN}.deg2rad")
    return apply(lambda t: ops.mul(t, math.pi / 180.0), x, dtype=dtype)


radians = deg2rad


def rad2deg(x, dtype=None):
    """``rad2deg(x, dtype=None)``: radians to degrees (integers in Float32)."""
    check_tensor(x, fn=f"{_FN}.rad2deg")
    return apply(lambda t: ops.mul(t, 180.0 / math.pi), x, dtype=dtype)


def clip(x, xmin, xmax, dtype=None):
    """``clip(x, xmin, xmax, dtype=None)``: ``x`` limited to ``[xmin, xmax]`` (either may be
    None), in ``x``'s dtype."""
    if xmin is None and xmax is None:
        raise ValueError(f"{_FN}.clip: one of xmin and xmax must be given")
    if xmin is not None:
        x = maximum(x, xmin, dtype)
    if xmax is not None:
        x = minimum(x, xmax, dtype)
    return x


# --- reductions and scans ------------------------------------------------------------------------

def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001 - numpy's name
    """``sum(a, axis=None, dtype=None, keepdims=False, initial=None)``: integers and bools sum in
    Int64 unless ``dtype``."""
    a = to_tensor(a, f"{_FN}.sum")
    return a.sum(axis, dtype_arg(dtype), keepdims, initial)


def mean(a, axis=None, keepdims=False, dtype=None):
    """``mean(a, axis=None, keepdims=False, dtype=None)``: in ``a``'s dtype (an integer mean
    truncates, as mindspore.numpy's) unless ``dtype``."""
    a = to_tensor(a, f"{_FN}.mean")
    axes = axes_arg(axis, a.ndim, f"{_FN}.mean")
    return cast(ops.mean(a, axes if axes else None, keepdims), dtype_arg(dtype))


def _extreme(op, a, axis, keepdims, initial, where, fn: str):
    a = to_tensor(a, f"{_FN}.{fn}")
    axes = axes_arg(axis, a.ndim, f"{_FN}.{fn}")
    if initial is not None and not (isinstance(initial, (int, float)) or
                                    (isinstance(initial, Tensor) and initial.ndim == 0)):
        raise TypeError(f"{_FN}.{fn}: initial must be a scalar, but got {initial!r}")
    mask = None
    if isinstance(where, Tensor):
        if initial is None:
            raise ValueError(f"{_FN}.{fn}: initial must be given with a where mask")
        mask = where
    return op(a, axes if axes else None, keepdims, initial=initial, where=mask)


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """``amax(a, axis=None, keepdims=False, initial=None, where=True)``: the maximum (a ``where``
    mask needs ``initial``)."""
    return _extreme(ops.amax, a, axis, keepdims, initial, where, "amax")


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """``amin(a, axis=None, keepdims=False, initial=None, where=True)``: the minimum."""
    return _extreme(ops.amin, a, axis, keepdims, initial, where, "amin")


max = amax  # noqa: A001 - numpy's name
min = amin  # noqa: A001


def ptp(x, axis=None, keepdims=False):
    """``ptp(x, axis=None, keepdims=False)``: maximum minus minimum."""
    check_tensor(x, fn=f"{_FN}.ptp")
    return x.ptp(axis, keepdims)


def std(x, axis=None, ddof=0, keepdims=False):
    """``std(x, axis=None, ddof=0, keepdims=False)``: the standard deviation."""
    return to_tensor(x, f"{_FN}.std").std(axis, ddof, keepdims)


def var(x, axis=None, ddof=0, keepdims=False):
    """``var(x, axis=None, ddof=0, keepdims=False)``: the variance."""
    return to_tensor(x, f"{_FN}.var").var(axis, ddof, keepdims)


def count_nonzero(x, axis=None, keepdims=False):
    """``count_nonzero(x, axis=None, keepdims=False)``: Int32 counts."""
    check_tensor(x, fn=f"{_FN}.count_nonzero")
    if x.size == 0:
        return to_tensor(0)
    axes = axes_arg(axis, x.ndim, f"{_FN}.count_nonzero")
    return ops.count_nonzero(x, axes, keepdims)


def argmax(a, axis=None):
    """``argmax(a, axis=None)``: the index of the (first) maximum; None over the flattened
    tensor."""
    a = to_tensor(a, f"{_FN}.argmax")
    return (cast(a, int32) if a.dtype is bool_ else a).argmax(axis)


def argmin(a, axis=None):
    """``argmin(a, axis=None)``: the index of the (first) minimum."""
    a = to_tensor(a, f"{_FN}.argmin")
    return (cast(a, int32) if a.dtype is bool_ else a).argmin(axis)


def cumsum(a, axis=None, dtype=None):
    """``cumsum(a, axis=None, dtype=None)``: running sums (None: of the flattened tensor); small
    integers and bools sum in Int32."""
    check_tensor(a, fn=f"{_FN}.cumsum")
    return a.cumsum(axis, dtype_arg(dtype))


_CUMPROD_DTYPE = {int8: int32, int16: int32, bool_: int32, uint8: uint32, uint16: uint32}


def cumprod(a, axis=None, dtype=None):
    """``cumprod(a, axis=None, dtype=None)``: running products (None: of the flattened tensor);
    8/16-bit integers and bools multiply into Int32 (UInt32 if unsigned)."""
    a = to_tensor(a, f"{_FN}.cumprod")
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, np.integer))):
        raise TypeError(f"{_FN}.cumprod: axis must be an int, but got {axis!r}")
    if axis is None:
        a, axis = array_ops.ravel(a), 0
    axis = axis_arg(axis, a.ndim, f"{_FN}.cumprod")
    out = dtype_arg(dtype) or _CUMPROD_DTYPE.get(a.dtype, a.dtype)
    work = int64 if a.dtype.is_int or a.dtype is bool_ else a.dtype
    return cast(ops.cumprod(cast(a, work), axis), out)


def _edge(t, a, axis: int, fn: str):
    """A ``prepend``/``append`` value of :func:`diff`: a number or a tensor, broadcast to ``a``'s
    shape with length 1 along ``axis``."""
    if not isinstance(t, (Tensor, bool, int, float)):
        raise TypeError(f"{_FN}.diff: {fn} must be a number or a Tensor, but got {t!r}")
    t = to_tensor(t)
    shape = list(a.shape)
    shape[axis] = 1
    return ops.broadcast_to(t, tuple(shape)) if t.ndim == 0 else t


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``diff(a, n=1, axis=-1, prepend=None, append=None)``: the ``n``-th differences along
    ``axis``, after adding ``prepend``/``append`` at its ends."""
    check_tensor(a, fn=f"{_FN}.diff")
    axis = axis_arg(axis, a.ndim, f"{_FN}.diff")
    n = _int(n, "diff", "n")
    if n < 0:
        raise ValueError(f"{_FN}.diff: n must be non-negative, but got {n}")
    if n == 0:
        return a
    parts = ([_edge(prepend, a, axis, "prepend")] if prepend is not None else []) + [a] + \
        ([_edge(append, a, axis, "append")] if append is not None else [])
    a = array_ops.concatenate(parts, axis) if len(parts) > 1 else a
    if n >= a.shape[axis]:
        raise ValueError(f"{_FN}.diff: n {n} is not smaller than the length {a.shape[axis]} of "
                         f"axis {axis}: the result would be empty")
    for _ in range(n):
        a = ops.diff(a, 1, axis)
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """``ediff1d(ary, to_end=None, to_begin=None)``: differences of the flattened ``ary``, with
    ``to_begin`` and ``to_end`` (cast to ``ary``'s dtype) around them."""
    check_tensor(ary, fn=f"{_FN}.ediff1d")
    parts = [cast(array_ops.ravel(to_tensor(to_begin)), ary.dtype)] if to_begin is not None \
        else []
    parts.append(ops.diff(array_ops.ravel(ary), 1, 0))
    if to_end is not None:
        parts.append(cast(array_ops.ravel(to_tensor(to_end)), ary.dtype))
    return parts[0] if len(parts) == 1 else ops.concat(tuple(parts), 0)


def _slice(x, axis: int, start, stop):
    return x[(slice(None),) * axis + (slice(start, stop),)]


def gradient(f, *varargs, axis=None, edge_order=1):
    """``gradient(f, *varargs, axis=None, edge_order=1)``: central differences inside, one-sided
    at the ends, with scalar spacings ``varargs``; one tensor per axis (a list), or one tensor
    for one axis."""
    if edge_order != 1:
        raise NotImplementedError(f"{_FN}.gradient: edge_order != 1 is not supported")
    f = to_tensor(f, f"{_FN}.gradient")
    f = f if f.dtype is float64 else cast(f, float32)
    axes = axes_arg(axis, f.ndim, f"{_FN}.gradient")
    if not varargs:
        spacing = (1.0,) * len(axes)
    elif len(varargs) == 1:
        spacing = varargs * len(axes)
    elif len(varargs) == len(axes):
        spacing = varargs
    else:
        raise TypeError(f"{_FN}.gradient: invalid number of spacing arguments")
    out = []
    for ax, h in zip(axes, spacing):
        if not isinstance(h, (int, float)) and not (isinstance(h, Tensor) and h.ndim == 0):
            raise NotImplementedError(f"{_FN}.gradient: only scalar spacings are supported")
        end = f.shape[ax]
        if end < 2:
            raise ValueError(f"{_FN}.gradient: the shape of the array is too small to compute a "
                             "numerical gradient: at least 2 elements are needed")
        first = ops.sub(_slice(f, ax, 1, 2), _slice(f, ax, 0, 1))
        last = ops.sub(_slice(f, ax, end - 1, end), _slice(f, ax, end - 2, end - 1))
        parts = [first, last] if end == 2 else \
            [first, ops.mul(ops.sub(_slice(f, ax, 2, end), _slice(f, ax, 0, end - 2)), 0.5), last]
        out.append(ops.div(ops.concat(tuple(parts), ax), h))
    return out[0] if len(out) == 1 else out


def trapz(y, x=None, dx=1.0, axis=-1):
    """``trapz(y, x=None, dx=1.0, axis=-1)``: the trapezoidal integral along ``axis``, with
    sample points ``x`` or spacing ``dx`` (``ops.trapz``; integers in Float32)."""
    y = _float_of(to_tensor(y, f"{_FN}.trapz"))
    axis = axis_arg(axis, y.ndim, f"{_FN}.trapz")
    if x is not None:
        return ops.trapz(y, cast(to_tensor(x), y.dtype), dim=axis)
    if isinstance(dx, Tensor):
        return ops.mul(ops.trapz(y, dim=axis), cast(dx, y.dtype))
    return ops.trapz(y, dx=float(dx), dim=axis)


def unwrap(p, discont=math.pi, axis=-1):
    """``unwrap(p, discont=pi, axis=-1)``: jumps between neighbours larger than ``discont``
    replaced by their 2 pi complement."""
    if not isinstance(discont, (int, float)) or isinstance(discont, bool):
        raise TypeError(f"{_FN}.unwrap: discont must be a float, but got {discont!r}")
    p = to_tensor(p, f"{_FN}.unwrap")
    axis = axis_arg(axis, p.ndim, f"{_FN}.unwrap")
    p = _float_of(p)
    dd = ops.diff(p, 1, axis)
    ddmod = ops.sub(ops.remainder(ops.add(dd, math.pi), 2 * math.pi), math.pi)
    at_minus_pi = ops.logical_and(ops.equal(ddmod, -math.pi), ops.gt(dd, 0))
    ddmod = ops.select(at_minus_pi, ops.full_like(ddmod, math.pi), ddmod)
    correction = ops.select(ops.lt(ops.abs(dd), discont), ops.zeros_like(dd), ops.sub(ddmod, dd))
    end = p.shape[axis]
    tail = ops.add(_slice(p, axis, 1, end), ops.cumsum(correction, axis))
    return ops.concat((_slice(p, axis, 0, 1), tail), axis)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - numpy's name
    """``norm(x, ord=None, axis=None, keepdims=False)``: a vector norm (one axis) or a matrix
    norm (two axes: ``'fro'``, 1, -1, inf, -inf); without ``axis``, of the flattened tensor
    when ``ord`` is None, else of the 1-D or 2-D ``x``. Matrix 2-norms and nuclear norms are
    refused (no SVD)."""
    if not isinstance(ord, (int, float)) and ord not in (None, "fro", "nuc"):
        raise ValueError(f"{_FN}.norm: invalid value for ord: {ord!r}")
    x = _float_of(to_tensor(x, f"{_FN}.norm"))
    ndim = x.ndim
    if axis is None:
        if ord is None:
            x = array_ops.ravel(x)
        if x.ndim not in (1, 2):
            raise ValueError(f"{_FN}.norm: with axis=None, the array must be 1-D or 2-D")
        axis = tuple(range(x.ndim))
    axes = axes_arg(axis, x.ndim, f"{_FN}.norm")
    if len(axes) == 1:
        if ord in ("fro", "nuc"):
            raise ValueError(f"{_FN}.norm: the Frobenius and nuclear norms are defined for "
                             "matrices only")
        res = ops.vector_norm(x, 2 if ord is None else ord, axes[0], keepdims)
    elif len(axes) == 2:
        if ord == 0:
            raise ValueError(f"{_FN}.norm: a 0 norm is defined for vectors only")
        if ord in (2, -2, "nuc"):
            raise NotImplementedError(f"{_FN}.norm: the matrix {ord!r}-norm is not supported")
        res = ops.matrix_norm(x, "fro" if ord is None else ord, axes, keepdims)
    else:
        raise ValueError(f"{_FN}.norm: invalid number of dimensions to norm: {len(axes)}")
    if keepdims and res.ndim < ndim:
        res = ops.reshape(res, (1,) * (ndim - res.ndim) + tuple(res.shape))
    return res


# --- products ------------------------------------------------------------------------------------

def matmul(x1, x2, dtype=None):
    """``matmul(x1, x2, dtype=None)``: the matrix product, batched over leading axes (1-D inputs
    as vectors)."""
    return cast(ops.matmul(x1, x2), dtype_arg(dtype))


def _same_dtype(a, b):
    common = promote(a.dtype, b.dtype)
    return cast(a, common), cast(b, common)


def inner(a, b):
    """``inner(a, b)``: sums of products over the last axes of ``a`` and ``b`` (``ops.inner``;
    the dtypes are promoted to one)."""
    a, b = to_tensors(a, b, fn=f"{_FN}.inner")
    return ops.inner(*_same_dtype(a, b))


def dot(a, b):
    """``dot(a, b)``: numpy's dot: the product over ``a``'s last axis and ``b``'s second to last
    (its only axis when 1-D); an :func:`inner` product with ``b``'s last two axes swapped."""
    check_tensor(a, b, fn=f"{_FN}.dot")
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    if b.ndim >= 2:
        b = ops.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"{_FN}.dot: shapes {list(a.shape)} and {list(b.shape)} are not "
                         "aligned")
    return ops.inner(*_same_dtype(a, b))


def outer(a, b):
    """``outer(a, b)``: every element of the flattened ``a`` times every element of the
    flattened ``b`` (``ops.outer``)."""
    check_tensor(a, b, fn=f"{_FN}.outer")
    return ops.outer(*_same_dtype(ops.reshape(a, (-1,)), ops.reshape(b, (-1,))))


def tensordot(a, b, axes=2):
    """``tensordot(a, b, axes=2)``: sums of products over ``axes`` (an int n: the last n of
    ``a`` with the first n of ``b``; or a pair of axis lists) — ``ops.tensor_dot``."""
    check_tensor(a, b, fn=f"{_FN}.tensordot")
    if a.ndim * b.ndim == 0 and axes == 0:
        return ops.mul(a, b)
    return ops.tensor_dot(*_same_dtype(a, b), axes)


def multi_dot(arrays):
    """``multi_dot(arrays)``: the chained :func:`dot` of two or more tensors, in the cheapest
    order (the first may be 1-D, as may the last)."""
    arrays = list(array_ops.split(arrays, arrays.shape[0]) if isinstance(arrays, Tensor)
                  else arrays)
    if len(arrays) < 2:
        raise ValueError(f"{_FN}.multi_dot: expecting at least 2 arrays")
    arrays = [to_tensor(a) if not isinstance(a, Tensor) else a for a in arrays]
    if isinstance(arrays[0], Tensor) and arrays[0].ndim == 3 and len(arrays) > 2:
        arrays = [ops.squeeze(a, 0) for a in arrays]
    if len(arrays) == 2:
        return dot(*arrays)
    first_1d, last_1d = arrays[0].ndim == 1, arrays[-1].ndim == 1
    mats = [ops.reshape(arrays[0], (1, -1)) if first_1d else arrays[0], *arrays[1:-1],
            ops.reshape(arrays[-1], (-1, 1)) if last_1d else arrays[-1]]
    if any(m.ndim != 2 for m in mats):
        raise ValueError(f"{_FN}.multi_dot: the arrays must be 2-D (the first and last may be "
                         "1-D)")
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    for m, d in zip(mats[:-1], dims[1:]):
        if m.shape[1] != d:
            raise ValueError(f"{_FN}.multi_dot: shapes {[list(m.shape) for m in mats]} are not "
                             "aligned")
    order = _chain_order(dims)
    res = _chain(mats, 0, len(mats) - 1, order)
    shape = ([] if first_1d else [dims[0]]) + ([] if last_1d else [dims[-1]])
    return ops.reshape(res, tuple(shape))


def _chain_order(dims: list[int]):
    """The split points of the cheapest parenthesisation of a matrix chain (dynamic
    programming over the shapes, known while compiling)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, i: int, j: int, order):
    if i == j:
        return mats[i]
    k = order[i][j]
    return ops.matmul(_chain(mats, i, k, order), _chain(mats, k + 1, j, order))


def kron(a, b):
    """``kron(a, b)``: the Kronecker product (``ops.kron``; the dtypes are promoted to one)."""
    a, b = to_tensors(a, b, fn=f"{_FN}.kron")
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    return ops.kron(*_same_dtype(a, b))


def matrix_power(a, n):
    """``matrix_power(a, n)``: the square matrix (or stack) ``a`` multiplied by itself ``n``
    times (``ops.matrix_power``; ``n >= 0``, as in mindspore.numpy; 0 gives the identity)."""
    a = to_tensor(a, f"{_FN}.matrix_power")
    n = _int(n, "matrix_power", "n")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{_FN}.matrix_power: the last two dimensions must be square, but got "
                         f"shape {list(a.shape)}")
    if n < 0:
        raise ValueError(f"{_FN}.matrix_power: n < 0 is not supported")
    return ops.matrix_power(a, n)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None)``: cross products of 2- or
    3-element vectors along the given axes (2-element vectors give the z component only)."""
    a, b = to_tensors(a, b, fn=f"{_FN}.cross")
    if axis is not None:
        axisa = axisb = axisc = axis
    a = array_ops.moveaxis(a, axis_arg(axisa, a.ndim, f"{_FN}.cross"), -1)
    b = array_ops.moveaxis(b, axis_arg(axisb, b.ndim, f"{_FN}.cross"), -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError(f"{_FN}.cross: incompatible dimensions for cross product (dimension "
                         "must be 2 or 3)")
    dtype = promote(a.dtype, b.dtype)
    a, b = cast(a, dtype), cast(b, dtype)
    comp = [(a[..., i] if i < a.shape[-1] else None, b[..., i] if i < b.shape[-1] else None)
            for i in range(3)]

    def term(i, j):  # a_i * b_j - a_j * b_i, with missing z components as 0
        ai, bj = comp[i][0], comp[j][1]
        aj, bi = comp[j][0], comp[i][1]
        left = ops.mul(ai, bj) if ai is not None and bj is not None else None
        right = ops.mul(aj, bi) if aj is not None and bi is not None else None
        if right is None:
            return left
        return ops.neg(right) if left is None else ops.sub(left, right)

    cz = term(0, 1)
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return cz
    out = ops.stack(tuple(ops.broadcast_to(c, tuple(cz.shape)) for c in
                          (term(1, 2), term(2, 0), cz)), -1)
    return array_ops.moveaxis(out, -1, axis_arg(axisc, out.ndim, f"{_FN}.cross"))


# --- dtypes and indices --------------------------------------------------------------------------

def promote_types(type1, type2):
    """``promote_types(type1, type2)``: the dtype both promote to."""
    return promote(dtype_arg(type1, f"{_FN}.promote_types", "type1"),
                   dtype_arg(type2, f"{_FN}.promote_types", "type2"))


def result_type(*arrays_and_dtypes):
    """``result_type(*arrays_and_dtypes)``: the promotion of tensors' dtypes, dtypes, and Python
    numbers (Int32, Float32, Bool)."""
    def dtype_of(v) -> DType:
        if isinstance(v, Tensor):
            return v.dtype
        if isinstance(v, bool):
            return bool_
        if isinstance(v, int):
            return int32
        if isinstance(v, float):
            return float32
        return dtype_arg(v, f"{_FN}.result_type")
    return promote_all([dtype_of(v) for v in arrays_and_dtypes])


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """``ravel_multi_index(multi_index, dims, mode='clip', order='C')``: coordinates as flat
    indices (out-of-range coordinates clipped or wrapped), in Float32 as mindspore.numpy gives
    them."""
    dims = (dims,) if isinstance(dims, int) else tuple(int(d) for d in dims)
    index = to_tensor(multi_index, f"{_FN}.ravel_multi_index")
    if index.dtype.is_float:
        raise TypeError(f"{_FN}.ravel_multi_index: only integer indices are accepted")
    if index.shape[0] != len(dims):
        raise ValueError(f"{_FN}.ravel_multi_index: multi_index must have {len(dims)} rows")
    if mode == "raise":
        raise NotImplementedError(f"{_FN}.ravel_multi_index: 'raise' mode is not supported")
    if mode not in ("clip", "wrap"):
        raise ValueError(f"{_FN}.ravel_multi_index: invalid mode {mode!r}; expected 'wrap' or "
                         "'clip'")
    if order not in ("C", "F"):
        raise ValueError(f"{_FN}.ravel_multi_index: invalid order {order!r}; expected 'C' or 'F'")
    sizes = dims if order == "C" else dims[::-1]
    strides = [int(np.prod(sizes[i + 1:])) for i in range(len(sizes))]
    strides = strides if order == "C" else strides[::-1]
    total = None
    for i, (d, s) in enumerate(zip(dims, strides)):
        coord = index[i]
        coord = ops.clip(coord, 0, d - 1) if mode == "clip" else ops.remainder(coord, d)
        term = ops.mul(ops.cast(coord, float32), float(s))
        total = term if total is None else ops.add(total, term)
    return total

"""Elementwise binary and n-ary arithmetic, comparison, logic and bitwise functions with
MindSpore 2.10's signatures, written against the functional API ``F``.

Most are composites of registry ops (``xlogy`` is a ``select`` around ``x * log(y)``, ``fmod`` a
floor ``mod`` corrected where the signs differ), so they run eagerly in PyNative, trace into IR in
graph mode and differentiate through their parts. The registry primitives behind them are in
``graphcell_ir/ops/elementwise.py`` (arithmetic, comparisons) and ``binary_math.py`` (bitwise,
``atan2``, ``gcd``, ``igamma``...).

MindSpore's own argument checks are kept where a user meets them: integer inputs refused by its
float-only kernels (``hypot``, ``lerp``, ``xlogy`` of two integers), a Python number where it wants
a Tensor (``logaddexp(x, 1.0)``, ``gcd(x, 4)``), mixed dtypes where it wants one (``isclose``,
``lerp``, ``addn``).

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor([1.0, -3.0, 3.0])
    >>> ops.fmod(x, 2.0).asnumpy(), ops.xlogy(x, 2.0).dtype
    (array([ 1., -1.,  1.], dtype=float32), Float32)
"""
from __future__ import annotations

import builtins
import math
import operator

from graphcell.ops._faces import overload
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import DType, bool_, float32, float64, promote, promote_weak, scalar_dtype, uint8
from graphcell_ir.ops import functional as F

__all__ = [
    # arithmetic
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "floor_div", "floordiv", "floor_mod", "floormod", "remainder", "fmod", "truncate_div",
    "truncate_mod", "pow", "pows", "float_power", "maximum", "minimum", "fmax", "fmin", "addn",
    "xlogy", "xdivy", "atan2", "arctan2", "hypot", "copysign", "ldexp", "logaddexp", "logaddexp2",
    "heaviside", "lerp", "addcmul", "addcdiv", "gcd", "lcm", "nextafter", "igamma", "igammac",
    "clip_by_value", "clamp", "clip", "isclose", "approximate_equal",
    # MindSpore's F namespace spellings
    "tensor_add", "tensor_sub", "tensor_mul", "tensor_muls", "tensor_div", "tensor_floordiv",
    "tensor_mod", "tensor_pow", "tensor_gt", "tensor_ge", "tensor_lt", "tensor_le",
    # comparisons and logic
    "equal", "eq", "not_equal", "ne", "less", "lt", "less_equal", "le", "greater", "gt",
    "greater_equal", "ge", "logical_and", "logical_or", "logical_not", "logical_xor", "select",
    # bitwise
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_left_shift",
    "bitwise_right_shift", "population_count",
    # Python scalars
    "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod",
    "scalar_pow", "scalar_log", "scalar_usub", "scalar_uadd", "scalar_eq", "scalar_gt",
    "scalar_ge", "scalar_lt", "scalar_le", "is_complex", "is_", "is_not",
    # Primitive classes
    "AddN", "TensorAdd", "Div", "RealDiv", "Mod", "TruncateDiv", "TruncateMod", "Xdivy", "Xlogy",
    "SquaredDifference", "DivNoNan", "MulNoNan", "ApproximateEqual", "IsClose", "PopulationCount",
    "Addcmul", "Addcdiv", "Lerp", "LogicalXor", "Hypot", "Heaviside", "Fmax", "Fmin",
]


# --- argument checks -----------------------------------------------------------------------------

def _is_tensor(v) -> bool:
    return isinstance(v, Tensor)


def _require_tensor(fn: str, name: str, value) -> None:
    if not _is_tensor(value):
        raise TypeError(f"ops.{fn}: {name} must be a Tensor, got {type(value).__name__}")


def _dtype_of(v) -> DType:
    return v.dtype if _is_tensor(v) else scalar_dtype(v)


def _result_dtype(x, y) -> DType:
    """MindSpore's promotion of two operands (a Python number is weak)."""
    if _is_tensor(x) and _is_tensor(y):
        return promote(x.dtype, y.dtype)
    if _is_tensor(x):
        return promote_weak(x.dtype, scalar_dtype(y))
    if _is_tensor(y):
        return promote_weak(y.dtype, scalar_dtype(x))
    return promote(scalar_dtype(x), scalar_dtype(y))


def _float_result(fn: str, x, y) -> DType:
    """The float dtype a float-only function computes in; two integer operands are refused."""
    d = _result_dtype(x, y)
    if not d.is_float:
        raise TypeError(f"ops.{fn}: at least one of input and other must be a float tensor, got "
                        f"{_dtype_of(x)} and {_dtype_of(y)}")
    return d


def _require_float(fn: str, name: str, value) -> None:
    if _is_tensor(value) and not value.dtype.is_float:
        raise TypeError(f"ops.{fn}: {name} must be a float tensor, got {value.dtype}")


def _same_dtype(fn: str, *tensors) -> None:
    dtypes = {t.dtype for t in tensors if _is_tensor(t)}
    if len(dtypes) > 1:
        raise TypeError(f"ops.{fn}: the tensors must have one dtype, got "
                        f"{', '.join(sorted(map(str, dtypes)))}")


def _as(v, dtype: DType):
    """A tensor cast to ``dtype`` (Python numbers stay weak: they take the tensor's dtype)."""
    return F.cast(v, dtype=dtype) if _is_tensor(v) and v.dtype != dtype else v


def _zeros(like_shape, dtype: DType):
    return F.fill(dtype=dtype, shape=tuple(like_shape), value=0)


def _shape(*vs) -> tuple[int, ...]:
    from graphcell_ir.ops.shape_rules import broadcast_shapes
    return broadcast_shapes(*(tuple(v.shape) for v in vs if _is_tensor(v)))


def _where_zero(cond, value, dtype: DType):
    """``select(cond, 0, value)`` broadcast over both."""
    return F.select(cond, _zeros(_shape(cond, value), dtype), value)


def _safe(cond, v, fill):
    """``v`` with ``fill`` where ``cond``: the operand of a branch ``select`` drops there, so its
    gradient stays finite (``0 * (1 / 0)`` would be NaN: JAX's "double where")."""
    return F.select(cond, fill, v) if _is_tensor(v) else v


def _square(v):
    return F.mul(v, v) if _is_tensor(v) else v * v


# --- arithmetic ----------------------------------------------------------------------------------

def add(input, other):  # noqa: A002 - MindSpore's parameter names
    """``ops.add(input, other)``: ``input + other``, broadcast, with MindSpore's promotion."""
    return F.add(input, other)


def _scaled(other, alpha):
    return other if isinstance(alpha, (int, float)) and alpha == 1 else F.mul(other, alpha)


def sub(input, other):  # noqa: A002
    """``ops.sub(input, other)``: ``input - other``."""
    return F.sub(input, other)


def subtract(input, other, *, alpha=1):  # noqa: A002
    """``ops.subtract(input, other, *, alpha=1)``: ``input - alpha * other``."""
    return F.sub(input, _scaled(other, alpha))


def mul(input, other):  # noqa: A002
    """``ops.mul(input, other)``: ``input * other`` (bool * bool stays Bool)."""
    return F.mul(input, other)


multiply = mul


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """``ops.div(input, other, *, rounding_mode=None)``: true division (integers give Float32);
    ``rounding_mode="floor"`` rounds the quotient down, ``"trunc"`` toward zero (both keep an
    integer dtype).

    >>> import graphcell as ms
    >>> div(ms.Tensor([7, -7]), 2, rounding_mode="trunc").asnumpy()
    array([ 3, -3])
    """
    if rounding_mode is None:
        return F.div(input, other)
    if rounding_mode == "floor":
        return F.floor_div(input, other)
    if rounding_mode == "trunc":
        return truncate_div(input, other)
    raise ValueError(f"ops.div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


divide = div


def true_divide(dividend, divisor):
    """``ops.true_divide(dividend, divisor)``: ``dividend / divisor`` (integers give Float32)."""
    return F.div(dividend, divisor)


def floor_divide(input, other):  # noqa: A002
    """``ops.floor_divide(input, other)``: the quotient rounded down."""
    return F.floor_div(input, other)


def floor_div(x, y):
    """``ops.floor_div(x, y)``: the quotient rounded down (MindSpore's ``FloorDiv``)."""
    return F.floor_div(x, y)


floordiv = tensor_floordiv = floor_divide


def floor_mod(x, y):
    """``ops.floor_mod(x, y)``: the remainder with the divisor's sign (Python's ``%``)."""
    return F.mod(x, y)


floormod = tensor_mod = floor_mod


def remainder(input, other):  # noqa: A002
    """``ops.remainder(input, other)``: ``input - floor(input / other) * other``."""
    return F.mod(input, other)


def truncate_div(x, y):
    """``ops.truncate_div(x, y)``: the quotient rounded toward zero (integers keep their dtype)."""
    d = _result_dtype(x, y)
    if d.is_float:
        q = F.div(_as(x, d), _as(y, d))
        return F.select(F.less(q, 0), F.neg(F.floor(F.neg(q))), F.floor(q))
    q = F.floor_div(x, y)
    inexact = F.not_equal(F.mod(x, y), 0)
    signs_differ = F.not_equal(F.less(x, 0), F.less(y, 0))
    return F.select(F.logical_and(inexact, signs_differ), F.add(q, 1), q)


def truncate_mod(x, y):
    """``ops.truncate_mod(x, y)``: the remainder with the dividend's sign (C's ``fmod``)."""
    r = F.mod(x, y)
    fix = F.logical_and(F.not_equal(r, 0), F.not_equal(F.less(r, 0), F.less(x, 0)))
    return F.select(fix, F.sub(r, y), r)


def fmod(input, other):  # noqa: A002
    """``ops.fmod(input, other)``: the remainder with the dividend's sign (C's ``fmod``)."""
    return truncate_mod(input, other)


def _refuse_bool_pow(x, y):
    if _dtype_of(x).is_bool and _dtype_of(y).is_bool:
        raise TypeError("ops.pow: input and exponent cannot both be bool")


def pow(input, exponent):  # noqa: A001, A002 - MindSpore's names
    """``ops.pow(input, exponent)``: ``input ** exponent`` (integers stay integers; a negative
    integer exponent gives 0 unless the base is ±1)."""
    _refuse_bool_pow(input, exponent)
    return F.pow(input, exponent)


pows = tensor_pow = pow


def float_power(input, exponent):  # noqa: A002
    """``ops.float_power(input, exponent)``: ``input ** exponent`` computed in Float64."""
    return F.pow(_as(input, float64), _as(exponent, float64)) if _is_tensor(input) or \
        _is_tensor(exponent) else float(input) ** float(exponent)


def maximum(input, other):  # noqa: A002
    """``ops.maximum(input, other)``: the larger element (NaN propagates)."""
    return F.maximum(input, other)


def minimum(input, other):  # noqa: A002
    """``ops.minimum(input, other)``: the smaller element (NaN propagates)."""
    return F.minimum(input, other)


def _nan_ignoring(pick, x, y):
    d = _result_dtype(x, y)
    x, y = _as(x, d), _as(y, d)
    out = pick(x, y)
    if not d.is_float:
        return out
    if _is_tensor(y):
        out = F.select(F.isnan(y), F.add(F.zeros_like(out), x), out)
    if _is_tensor(x):
        out = F.select(F.isnan(x), F.add(F.zeros_like(out), y), out)
    return out


def fmax(input, other):  # noqa: A002
    """``ops.fmax(input, other)``: the larger element, a NaN losing to a number."""
    return _nan_ignoring(F.maximum, input, other)


def fmin(input, other):  # noqa: A002
    """``ops.fmin(input, other)``: the smaller element, a NaN losing to a number."""
    return _nan_ignoring(F.minimum, input, other)


def addn(x):
    """``ops.addn(x)``: the sum of a tuple or list of tensors of one shape and dtype."""
    xs = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    if not xs:
        raise ValueError("ops.addn: expected at least one tensor, got an empty sequence")
    for t in xs:
        _require_tensor("addn", "every element of x", t)
    _same_dtype("addn", *xs)
    shapes = {tuple(t.shape) for t in xs}
    if len(shapes) > 1:
        raise ValueError(f"ops.addn: the tensors must have one shape, got "
                         f"{', '.join(str(list(s)) for s in sorted(shapes))}")
    out = xs[0]
    for t in xs[1:]:
        out = F.add(out, t)
    return out


def _squared_difference(x, y):
    """``SquaredDifference()(x, y)``: ``(x - y) ** 2``."""
    d = F.sub(x, y)
    return F.mul(d, d)


def _div_no_nan(x, y):
    """``DivNoNan()(x, y)``: ``x / y``, and 0 where ``y`` is 0."""
    d = _float_result("DivNoNan", x, y)
    x, y = _as(x, d), _as(y, d)
    zero = F.equal(y, 0)
    return _where_zero(zero, F.div(x, _safe(zero, y, 1)), d)


def _mul_no_nan(x, y):
    """``MulNoNan()(x, y)``: ``x * y``, and 0 where ``y`` is 0 (even when ``x`` is NaN or inf)."""
    zero = F.equal(y, 0)
    out = F.mul(_safe(zero, x, 0), y)
    return _where_zero(zero, out, out.dtype)


def xlogy(input, other):  # noqa: A002
    """``ops.xlogy(input, other)``: ``input * log(other)``, and 0 where ``input`` is 0 (MindSpore's
    CPU kernel gives NaN for ``xlogy(0, 0)``; 0 is the definition, as its documentation says)."""
    d = _float_result("xlogy", input, other)
    x, y = _as(input, d), _as(other, d)
    if not _is_tensor(x):
        out = F.mul(x, F.log(y))
        return _zeros(out.shape, d) if x == 0 else out
    zero = F.equal(x, 0)
    log_y = F.log(_safe(zero, y, 1)) if _is_tensor(y) else math.log(y)
    return _where_zero(zero, F.mul(x, log_y), d)


def xdivy(x, y):
    """``ops.xdivy(x, y)``: ``x / y``, and 0 where ``x`` is 0 (floats only)."""
    d = _float_result("xdivy", x, y)
    x, y = _as(x, d), _as(y, d)
    if not _is_tensor(x):
        out = F.div(x, y)
        return _zeros(out.shape, d) if x == 0 else out
    zero = F.equal(x, 0)
    return _where_zero(zero, F.div(x, _safe(zero, y, 1)), d)


def atan2(input, other):  # noqa: A002
    """``ops.atan2(input, other)``: the angle of the point ``(other, input)``, in ``[-pi, pi]``."""
    return F.atan2(input, other)


arctan2 = atan2


def hypot(input, other):  # noqa: A002
    """``ops.hypot(input, other)``: ``sqrt(input**2 + other**2)`` (two integer tensors are refused;
    an integer tensor and a float give Float32)."""
    d = _float_result("hypot", input, other)
    x, y = _as(input, d), _as(other, d)
    return F.sqrt(F.add(_square(x), _square(y)))


def copysign(x, other):
    """``ops.copysign(x, other)``: ``|x|`` with the sign of ``other`` (integers give Float32).

    As MindSpore's CPU kernel, ``other = -0.0`` counts as positive (C's ``copysign`` would read
    its sign bit)."""
    _require_tensor("copysign", "x", x)
    d = x.dtype if x.dtype.is_float else float32
    magnitude = F.abs(_as(x, d))
    negative = F.less(other, 0) if _is_tensor(other) else other < 0
    if not _is_tensor(negative):
        return F.neg(magnitude) if negative else magnitude
    magnitude = F.add(magnitude, _zeros(_shape(magnitude, negative), d))
    return F.select(negative, F.neg(magnitude), magnitude)


def ldexp(x, other):
    """``ops.ldexp(x, other)``: ``x * 2**other`` (integers give Float32)."""
    d = _result_dtype(x, other)
    d = d if d.is_float else float32
    scale = F.pow(2.0, _as(other, d)) if _is_tensor(other) else 2.0 ** other
    return F.mul(_as(x, d), scale)


def _logaddexp(fn: str, input, other, base_log: float):
    _require_tensor(fn, "input", input)
    _require_tensor(fn, "other", other)
    if not (input.dtype.is_float and other.dtype.is_float):
        raise TypeError(f"ops.{fn}: input and other must be float tensors, got {input.dtype} "
                        f"and {other.dtype}")
    d = promote(input.dtype, other.dtype)
    x, y = _as(input, d), _as(other, d)
    m = F.maximum(x, y)
    total = F.add(F.exp(F.mul(F.sub(x, m), base_log)), F.exp(F.mul(F.sub(y, m), base_log)))
    return F.add(m, F.div(F.log(total), base_log))


def logaddexp(input, other):  # noqa: A002
    """``ops.logaddexp(input, other)``: ``log(exp(input) + exp(other))``, without overflow."""
    return _logaddexp("logaddexp", input, other, 1.0)


def logaddexp2(input, other):  # noqa: A002
    """``ops.logaddexp2(input, other)``: ``log2(2**input + 2**other)``, without overflow."""
    return _logaddexp("logaddexp2", input, other, math.log(2.0))


def heaviside(input, values):  # noqa: A002
    """``ops.heaviside(input, values)``: 0 where ``input < 0``, ``values`` where it is 0, 1 where
    it is positive (tensors of one dtype)."""
    _require_tensor("heaviside", "input", input)
    _require_tensor("heaviside", "values", values)
    _same_dtype("heaviside", input, values)
    d = input.dtype
    shape = _shape(input, values)
    step = F.select(F.greater(input, 0), F.fill(dtype=d, shape=shape, value=1), _zeros(shape, d))
    return F.select(F.equal(input, 0), F.add(_zeros(shape, d), values), step)


def lerp(input, end, weight):  # noqa: A002
    """``ops.lerp(input, end, weight)``: ``input + weight * (end - input)``; float tensors of one
    dtype, ``weight`` a float or a tensor."""
    _require_tensor("lerp", "input", input)
    _require_tensor("lerp", "end", end)
    if not _is_tensor(weight) and not isinstance(weight, float):
        raise TypeError(f"ops.lerp: weight must be a float or a Tensor, got "
                        f"{type(weight).__name__}")
    for name, v in (("input", input), ("end", end), ("weight", weight)):
        _require_float("lerp", name, v)
    _same_dtype("lerp", input, end, weight)
    return F.add(input, F.mul(weight, F.sub(end, input)))


def addcmul(input, tensor1, tensor2, value=1):  # noqa: A002
    """``ops.addcmul(input, tensor1, tensor2, value=1)``: ``input + value * tensor1 * tensor2``."""
    return F.add(input, F.mul(F.mul(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, value=1):  # noqa: A002
    """``ops.addcdiv(input, tensor1, tensor2, value=1)``: ``input + value * tensor1 / tensor2``
    (float tensors)."""
    for name, v in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        _require_tensor("addcdiv", name, v)
        _require_float("addcdiv", name, v)
    return F.add(input, F.mul(F.div(tensor1, tensor2), value))


def _integer_pair(fn: str, input, other) -> None:
    _require_tensor(fn, "input", input)
    _require_tensor(fn, "other", other)


def gcd(input, other):  # noqa: A002
    """``ops.gcd(input, other)``: the greatest common divisor of integer tensors (non-negative)."""
    _integer_pair("gcd", input, other)
    return F.gcd(input, other)


def lcm(input, other):  # noqa: A002
    """``ops.lcm(input, other)``: the least common multiple of integer tensors (non-negative)."""
    _integer_pair("lcm", input, other)
    return F.lcm(input, other)


def nextafter(input, other):  # noqa: A002
    """``ops.nextafter(input, other)``: the next float after ``input`` toward ``other``."""
    return F.nextafter(input, other)


def igamma(input, other):  # noqa: A002
    """``ops.igamma(input, other)``: the regularized lower incomplete gamma function
    ``P(input, other)`` (float tensors; NaN where ``input <= 0`` or ``other < 0``)."""
    _same_dtype("igamma", input, other)
    return F.igamma(input, other)


def igammac(input, other):  # noqa: A002
    """``ops.igammac(input, other)``: the regularized upper incomplete gamma function
    ``Q(input, other) = 1 - P(input, other)``."""
    _same_dtype("igammac", input, other)
    return F.igammac(input, other)


# --- clipping ------------------------------------------------------------------------------------

def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """``ops.clip_by_value(x, clip_value_min=None, clip_value_max=None)``: ``x`` limited to the
    bounds (numbers or tensors); the result keeps ``x``'s dtype."""
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("ops.clip_by_value: at least one of clip_value_min and clip_value_max "
                         "must not be None")
    if x.dtype.is_bool:
        raise TypeError("ops.clip_by_value: x cannot be a bool tensor")
    out = x
    if clip_value_min is not None:
        out = F.maximum(out, clip_value_min)
    if clip_value_max is not None:
        out = F.minimum(out, clip_value_max)
    return _as(out, x.dtype)


def clamp(input, min=None, max=None):  # noqa: A002 - MindSpore's names
    """``ops.clamp(input, min=None, max=None)``: ``input`` limited to ``[min, max]`` (both numbers
    or both tensors); the dtype is promoted with the bounds'."""
    if min is None and max is None:
        raise ValueError("ops.clamp: at least one of min and max must not be None")
    bounds = [b for b in (min, max) if b is not None]
    if _is_tensor(input) and input.dtype.is_bool or any(
            isinstance(b, bool) or _is_tensor(b) and b.dtype.is_bool for b in bounds):
        raise ValueError("ops.clamp: the dtype of input, min and max must not be bool")
    if len({_is_tensor(b) for b in bounds}) > 1:
        raise TypeError("ops.clamp: min and max must both be Tensors or both be numbers")
    out = input
    if min is not None:
        out = F.maximum(out, min)
    if max is not None:
        out = F.minimum(out, max)
    return out


clip = clamp


# --- closeness -----------------------------------------------------------------------------------

def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """``ops.isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)``:
    ``|input - other| <= atol + rtol * |other|`` elementwise (equal infinities are close; NaNs
    are close to each other only with ``equal_nan``)."""
    _require_tensor("isclose", "input", input)
    _require_tensor("isclose", "other", other)
    _same_dtype("isclose", input, other)
    d = input.dtype if input.dtype.is_float else float64
    x, y = _as(input, d), _as(other, d)
    near = F.less_equal(F.abs(F.sub(x, y)), F.add(F.mul(F.abs(y), float(rtol)), float(atol)))
    out = F.logical_or(F.equal(x, y), near)
    if equal_nan and d.is_float:
        out = F.logical_or(out, F.logical_and(F.isnan(x), F.isnan(y)))
    return out


def _allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``Tensor.allclose(other, rtol=1e-05, atol=1e-08, equal_nan=False)``: whether every element
    is close (a Python bool, as MindSpore gives: it needs the values, so PyNative only)."""
    return builtins.bool(F.reduce_all(isclose(self, other, rtol, atol, equal_nan)))


def approximate_equal(x, y, tolerance=1e-05):
    """``ops.approximate_equal(x, y, tolerance=1e-05)``: ``|x - y| < tolerance`` (float tensors)."""
    _require_tensor("approximate_equal", "x", x)
    _require_tensor("approximate_equal", "y", y)
    _require_float("approximate_equal", "x", x)
    _same_dtype("approximate_equal", x, y)
    return F.less(F.abs(F.sub(x, y)), float(tolerance))


# --- comparisons and logic -----------------------------------------------------------------------

def _comparison(op, doc: str):
    def compare(input, other):  # noqa: A002
        return op(input, other)
    compare.__name__ = compare.__qualname__ = op.__name__
    compare.__doc__ = doc
    return compare


equal = eq = _comparison(F.equal, "``ops.equal(input, other)``: ``input == other`` (Bool).")
not_equal = ne = _comparison(F.not_equal, "``ops.not_equal(input, other)``: ``input != other``.")
less = lt = tensor_lt = _comparison(F.less, "``ops.less(input, other)``: ``input < other``.")
less_equal = le = tensor_le = _comparison(F.less_equal,
                                          "``ops.less_equal(input, other)``: ``input <= other``.")
greater = gt = tensor_gt = _comparison(F.greater, "``ops.greater(input, other)``: ``input > other``.")
greater_equal = ge = tensor_ge = _comparison(
    F.greater_equal, "``ops.greater_equal(input, other)``: ``input >= other``.")


def logical_and(input, other):  # noqa: A002
    """``ops.logical_and(input, other)``: elementwise ``and`` of the truth values (Bool)."""
    return F.logical_and(input, other)


def logical_or(input, other):  # noqa: A002
    """``ops.logical_or(input, other)``: elementwise ``or`` of the truth values (Bool)."""
    return F.logical_or(input, other)


def logical_not(input):  # noqa: A002
    """``ops.logical_not(input)``: elementwise ``not`` (Bool)."""
    return F.logical_not(input)


def _truth(v):
    return _as(v, bool_) if _is_tensor(v) else builtins.bool(v)


def logical_xor(input, other):  # noqa: A002
    """``ops.logical_xor(input, other)``: elementwise exclusive or of the truth values (Bool)."""
    return F.not_equal(_truth(input), _truth(other))


def select(condition, input, other):  # noqa: A002
    """``ops.select(condition, input, other)``: ``input`` where ``condition`` (a Bool tensor) is
    true, else ``other``; either may be a number."""
    return F.select(condition, input, other)


# --- bitwise -------------------------------------------------------------------------------------

def bitwise_and(input, other):  # noqa: A002
    """``ops.bitwise_and(input, other)``: ``input & other`` of bool or integer tensors."""
    return F.bitwise_and(input, other)


def bitwise_or(input, other):  # noqa: A002
    """``ops.bitwise_or(input, other)``: ``input | other`` of bool or integer tensors."""
    return F.bitwise_or(input, other)


def bitwise_xor(input, other):  # noqa: A002
    """``ops.bitwise_xor(input, other)``: ``input ^ other`` of bool or integer tensors."""
    return F.bitwise_xor(input, other)


def invert(x):
    """``ops.invert(x)``: ``~x``, each bit flipped, of an integer tensor."""
    return F.invert(x)


def bitwise_left_shift(input, other):  # noqa: A002
    """``ops.bitwise_left_shift(input, other)``: ``input << other`` of integer tensors."""
    return F.left_shift(input, other)


def bitwise_right_shift(input, other):  # noqa: A002
    """``ops.bitwise_right_shift(input, other)``: ``input >> other`` (arithmetic for signed)."""
    return F.right_shift(input, other)


def population_count(input_x):
    """``ops.population_count(input_x)``: the number of set bits of each element of an integer
    tensor (two's complement for negative ones), as UInt8.

    The classic branch-free count on the element's own width: bit pairs, nibbles, bytes, then one
    multiplication adds the bytes into the top byte.
    """
    _require_tensor("population_count", "input_x", input_x)
    if not input_x.dtype.is_int:
        raise TypeError(f"ops.population_count: input_x must be an integer tensor, got "
                        f"{input_x.dtype}")
    width = input_x.dtype.itemsize

    def mask(byte: int) -> int:
        return int.from_bytes(bytes([byte]) * width, "big")

    x = input_x
    x = F.sub(x, F.bitwise_and(F.right_shift(x, 1), mask(0x55)))
    x = F.add(F.bitwise_and(x, mask(0x33)), F.bitwise_and(F.right_shift(x, 2), mask(0x33)))
    x = F.bitwise_and(F.add(x, F.right_shift(x, 4)), mask(0x0F))
    if width > 1:
        x = F.right_shift(F.mul(x, mask(0x01)), 8 * (width - 1))
    return F.cast(x, dtype=uint8)


# --- Python scalars (MindSpore's scalar_* work on numbers, and on tensors as their operators) -----

def _scalar(pyop, name: str, doc: str):
    def fn(x, y):
        return pyop(x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


scalar_add = _scalar(operator.add, "scalar_add", "``ops.scalar_add(x, y)``: ``x + y``.")
scalar_sub = _scalar(operator.sub, "scalar_sub", "``ops.scalar_sub(x, y)``: ``x - y``.")
scalar_mul = _scalar(operator.mul, "scalar_mul", "``ops.scalar_mul(x, y)``: ``x * y``.")
scalar_div = _scalar(operator.truediv, "scalar_div", "``ops.scalar_div(x, y)``: ``x / y``.")
scalar_floordiv = _scalar(operator.floordiv, "scalar_floordiv",
                          "``ops.scalar_floordiv(x, y)``: ``x // y``.")
scalar_mod = _scalar(operator.mod, "scalar_mod", "``ops.scalar_mod(x, y)``: ``x % y``.")
scalar_pow = _scalar(operator.pow, "scalar_pow", "``ops.scalar_pow(x, y)``: ``x ** y``.")
scalar_eq = _scalar(operator.eq, "scalar_eq", "``ops.scalar_eq(x, y)``: ``x == y``.")
scalar_gt = _scalar(operator.gt, "scalar_gt", "``ops.scalar_gt(x, y)``: ``x > y``.")
scalar_ge = _scalar(operator.ge, "scalar_ge", "``ops.scalar_ge(x, y)``: ``x >= y``.")
scalar_lt = _scalar(operator.lt, "scalar_lt", "``ops.scalar_lt(x, y)``: ``x < y``.")
scalar_le = _scalar(operator.le, "scalar_le", "``ops.scalar_le(x, y)``: ``x <= y``.")


def scalar_log(x):
    """``ops.scalar_log(x)``: the natural logarithm of a number, as a Python float."""
    return math.log(x)


def scalar_usub(x):
    """``ops.scalar_usub(x)``: ``-x``."""
    return -x


def scalar_uadd(x):
    """``ops.scalar_uadd(x)``: ``+x``."""
    return +x


def is_complex(input):  # noqa: A002
    """``ops.is_complex(input)``: whether a tensor has a complex dtype: never in graphcell, which
    has no complex dtypes."""
    _require_tensor("is_complex", "input", input)
    return False


def is_(x, y):
    """``ops.is_(x, y)``: Python's ``x is y``."""
    return x is y


def is_not(x, y):
    """``ops.is_not(x, y)``: Python's ``x is not y``."""
    return x is not y


# --- MindSpore's F spellings of Primitive instances --------------------------------------------------

tensor_add = add
tensor_sub = sub
tensor_mul = tensor_muls = mul


def _real_div(x, y):
    """``RealDiv()(x, y)`` / ``F.tensor_div``: ``x / y``; integers divide toward zero and keep
    their dtype, as MindSpore's RealDiv kernel does."""
    d = _result_dtype(x, y)
    return F.div(x, y) if d.is_float else truncate_div(x, y)


tensor_div = _real_div


# --- Primitive classes -----------------------------------------------------------------------------

def _addcmul_primitive(input, tensor1, tensor2, value):  # noqa: A002
    _require_tensor("Addcmul", "value", value)
    return addcmul(input, tensor1, tensor2, value)


def _addcdiv_primitive(input, tensor1, tensor2, value):  # noqa: A002
    _require_tensor("Addcdiv", "value", value)
    return addcdiv(input, tensor1, tensor2, value)


def _lerp_primitive(start, end, weight):
    return lerp(start, end, weight)


def _isclose_primitive(input, other, *, rtol=1e-05, atol=1e-08, equal_nan=True):  # noqa: A002
    return isclose(input, other, rtol, atol, equal_nan)


def _approximate_equal_primitive(x, y, *, tolerance=1e-05):
    return approximate_equal(x, y, tolerance)


AddN = primitive("AddN", addn)
TensorAdd = primitive("TensorAdd", add)
Div = primitive("Div", true_divide)
RealDiv = primitive("RealDiv", _real_div)
Mod = primitive("Mod", truncate_mod)
TruncateDiv = primitive("TruncateDiv", truncate_div)
TruncateMod = primitive("TruncateMod", truncate_mod)
Xdivy = primitive("Xdivy", xdivy)
Xlogy = primitive("Xlogy", xlogy)
SquaredDifference = primitive("SquaredDifference", _squared_difference)
DivNoNan = primitive("DivNoNan", _div_no_nan)
MulNoNan = primitive("MulNoNan", _mul_no_nan)
ApproximateEqual = primitive("ApproximateEqual", _approximate_equal_primitive, init=("tolerance",))
IsClose = primitive("IsClose", _isclose_primitive, init=("rtol", "atol", "equal_nan"))
PopulationCount = primitive("PopulationCount", population_count)
Addcmul = primitive("Addcmul", _addcmul_primitive)
Addcdiv = primitive("Addcdiv", _addcdiv_primitive)
Lerp = primitive("Lerp", _lerp_primitive)
LogicalXor = primitive("LogicalXor", logical_xor)
Hypot = primitive("Hypot", hypot)
Heaviside = primitive("Heaviside", heaviside)
Fmax = primitive("Fmax", fmax)
Fmin = primitive("Fmin", fmin)


# --- Tensor methods ----------------------------------------------------------------------------------

def _add_method(self, other, *, alpha=1):
    """``x.add(other, *, alpha=1)``: ``x + alpha * other``."""
    return F.add(self, _scaled(other, alpha))


def _sub_other(self, other, *, alpha=1):
    return F.sub(self, _scaled(other, alpha))


def _sub_y(self, y):
    return F.sub(self, y)


def _isclose_other(self, other: Tensor, rtol=1e-05, atol=1e-08, equal_nan=False):
    return isclose(self, other, rtol, atol, equal_nan)


def _isclose_x2(self, x2: Tensor, rtol=1e-05, atol=1e-08, equal_nan=False):
    return isclose(self, x2, rtol, atol, equal_nan)


def _remainder_other(self, other):
    return F.mod(self, other)


def _remainder_divisor(self, divisor):
    return F.mod(self, divisor)


def _select_dim(self, dim: int, index: int):
    """``x.select(dim, index)``: the slice at ``index`` along ``dim`` (that axis removed)."""
    from graphcell.ops.function._utils import normalize_axis
    dim = normalize_axis(dim, self.ndim, "dim")
    size = self.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"Tensor.select: index {index} is out of range for dim {dim} of size {size}")
    return F.getitem(self, key=(slice(None),) * dim + (index,))


def _select_condition(self, condition: Tensor, y):
    """``x.select(condition, y)``: ``x`` where ``condition`` is true, else ``y``."""
    return F.select(condition, self, y)


def _where_method(self, condition, y):
    """``x.where(condition, y)``: ``x`` where ``condition`` is true, else ``y``."""
    return F.select(condition, self, y)


def _in_place(fn):
    """The in-place form of a method (``add_``): the tensor takes the result's buffer and tape
    place, as ``Tensor.__setitem__`` does (docs/decisions.md, PyNative); it returns the tensor.
    In graph mode there is no buffer to rebind: the result is returned, as MindSpore's graph
    mode gives it."""
    def method(self, *args, **kwargs):
        return self._update_in_place(lambda x: fn(x, *args, **kwargs))
    method.__name__ = method.__qualname__ = fn.__name__.strip("_").removesuffix("_method") + "_"
    method.__doc__ = f"In-place form: the tensor becomes the result of ``{fn.__name__}``."
    return method


def _clamp_method(self, min=None, max=None):  # noqa: A002
    return clamp(self, min, max)


def _floor_divide_method(self, other):
    return F.floor_div(self, other)


def _addcdiv_method(self, tensor1, tensor2, *, value=1):
    return addcdiv(self, tensor1, tensor2, value)


def _approximate_equal_method(self, other, tolerance=1e-05):
    return approximate_equal(self, other, tolerance)


def _bitwise_not(self):
    """``x.bitwise_not()``: ``~x`` bit by bit (integers), ``not x`` (bools)."""
    return F.logical_not(self) if self.dtype.is_bool else F.invert(self)


def _is_signed(self):
    """``x.is_signed()``: whether the dtype is signed (signed integers and floats)."""
    return self.dtype.is_float or self.dtype.np_dtype.kind == "i"


TENSOR_METHODS = {
    "add": _add_method, "add_": _in_place(_add_method),
    "sub": overload(_sub_other, _sub_y, name="sub"), "subtract": _sub_other,
    "mul": lambda self, other: F.mul(self, other),
    "multiply": lambda self, value: F.mul(self, value),
    "div": div, "divide": div, "true_divide": true_divide,
    "floor_divide": _floor_divide_method, "floor_divide_": _in_place(_floor_divide_method),
    "remainder": overload(_remainder_other, _remainder_divisor, name="remainder"),
    "fmod": fmod, "pow": pow, "float_power": float_power,
    "maximum": maximum, "minimum": minimum, "fmax": fmax, "fmin": fmin,
    "xlogy": xlogy, "xdivy": xdivy, "atan2": atan2, "arctan2": atan2, "hypot": hypot,
    "copysign": copysign, "ldexp": ldexp, "logaddexp": logaddexp, "logaddexp2": logaddexp2,
    "heaviside": heaviside, "lerp": lerp, "addcmul": addcmul, "addcdiv": _addcdiv_method,
    "gcd": gcd, "lcm": lcm, "nextafter": nextafter, "igamma": igamma, "igammac": igammac,
    "clamp": _clamp_method, "clip": _clamp_method, "clamp_": _in_place(_clamp_method),
    "isclose": overload(_isclose_other, _isclose_x2, name="isclose"), "allclose": _allclose,
    "approximate_equal": _approximate_equal_method,
    "equal": equal, "eq": equal, "not_equal": not_equal, "ne": not_equal, "less": less,
    "lt": less, "less_equal": less_equal, "le": less_equal, "greater": greater, "gt": greater,
    "greater_equal": greater_equal, "ge": greater_equal,
    "logical_and": logical_and, "logical_or": logical_or, "logical_not": logical_not,
    "logical_xor": logical_xor,
    "bitwise_and": bitwise_and, "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    "invert": invert, "bitwise_not": _bitwise_not,
    "where": _where_method, "select": overload(_select_dim, _select_condition, name="select"),
    "is_complex": is_complex, "is_signed": _is_signed,
}

"""Elementwise unary math (trigonometry, exponentials and logarithms, special functions, rounding,
predicates) with MindSpore 2.10's signatures, written against the functional API ``F``.

Each function checks its input as MindSpore does (a Tensor, never a Python number; the dtypes
MindSpore accepts) and is then one registry op or a small composite of them; the Primitive
classes (``ops.Exp()``) and Tensor methods (``x.exp()``) declared below call the same functions.

Dtypes, as measured on MindSpore 2.10: floats keep their dtype; what integers and bools do is
per function (``sqrt``/``log``/``sin``... give Float32, ``abs``/``neg``/``square``/``round`` keep
the integer dtype, ``ceil``/``acos``/``digamma``/``bessel_*`` refuse them). One deliberate
difference: where MindSpore's type inference accepts a dtype and gives a float (or Bool) result
but its CPU build has no kernel for it (``log``, ``sin``, ``tanh``, ``erfinv``... of integers;
``exp``/``erf``/``erfc``/``expm1`` of Int64 and Bool; ``isinf`` of integers; ``nan_to_num`` of
Float64; ``round`` with ``decimals != 0``), graphcell computes it, as MindSpore's other builds
do. Where the inferred result would be an integer dtype for a real-valued function (``acos`` of
an Int32 into an Int32), graphcell refuses, as the CPU build does.

MindSpore's values at special points are kept: ``sign(nan)`` is 0; ``round`` rounds half to
even; ``digamma(+0)`` is -inf and ``digamma(-0)`` +inf; ``lgamma`` is +inf at the poles;
``bessel_i0(±inf)`` is NaN (``exp(|x|) * i0e(x)``, as MindSpore computes it).
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.errors import GraphcellError
from graphcell_ir.ir.types import (DType, bool_, float16, float32, float64, int8, int16, int32,
                                   int64, uint8, uint16, uint32, uint64)
from graphcell_ir.ops import functional as F

FLOATS = frozenset({float16, float32, float64})
INTS = frozenset({int8, int16, int32, int64, uint8, uint16, uint32, uint64})
REAL = FLOATS | INTS
ANY = REAL | {bool_}
_FLOAT_INT64_BOOL = FLOATS | {int64, bool_}   # exp, erf, erfc, expm1: MindSpore's Exp rule

__all__ = [
    # signs, absolute values, identities
    "neg", "negative", "abs", "absolute", "positive", "sign", "sgn", "signbit", "square",
    "conj", "real", "imag", "isreal", "angle",
    # roots, reciprocals, exponentials, logarithms
    "sqrt", "rsqrt", "reciprocal", "inv", "exp", "tensor_exp", "exp2", "expm1", "tensor_expm1",
    "log", "log1p", "log2", "log10",
    # trigonometric and hyperbolic
    "sin", "cos", "tan", "sinc", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "sinh",
    "cosh", "tanh", "asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "deg2rad",
    "rad2deg", "sigmoid",
    # rounding
    "floor", "ceil", "trunc", "round", "frac",
    # predicates, non-finite values
    "isnan", "isinf", "isposinf", "isneginf", "isfinite", "nan_to_num",
    # special functions
    "erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "mvlgamma", "bessel_i0",
    "bessel_i0e", "bessel_i1", "bessel_i1e", "i0",
]


# --- argument checks ---------------------------------------------------------------------------

def _arg(x, fn: str, accepts: frozenset, param: str = "input"):
    """``x`` when it is a Tensor of a dtype in ``accepts``; TypeError naming ``ops.<fn>``
    otherwise (MindSpore refuses Python numbers and lists too)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"ops.{fn}: '{param}' must be a Tensor, got {type(x).__name__}")
    if x.dtype not in accepts:
        raise TypeError(f"ops.{fn}: '{param}' of dtype {x.dtype} is not supported; expected "
                        f"{_dtype_names(accepts)}")
    return x


def _dtype_names(dtypes) -> str:
    names = sorted((str(d) for d in dtypes), key=lambda n: (n[0] != "F", n))
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def _as_float(x):
    """Integers and bools as Float32 (MindSpore's result dtype for them), floats unchanged."""
    return x if x.dtype.is_float else F.cast(x, dtype=float32)


def _copy(x):
    """A new tensor with ``x``'s values (MindSpore's identities return a new tensor)."""
    return F.cast(x, dtype=x.dtype)


def _filled(x, value, dtype: DType):
    return F.fill(dtype=dtype, shape=tuple(x.shape), value=value)


def _known_values(x) -> np.ndarray | None:
    """The values of ``x``, or None while graph mode compiles (they are not known yet)."""
    try:
        return x.asnumpy()
    except GraphcellError:
        return None


# --- signs, absolute values, identities ------------------------------------------------------------

def neg(input):  # noqa: A002 - MindSpore's parameter name
    """``ops.neg(input)``: ``-input`` (numbers of any dtype but Bool)."""
    return F.neg(_arg(input, "neg", REAL))


def negative(input):  # noqa: A002
    """``ops.negative(input)``: alias of :func:`neg`."""
    return F.neg(_arg(input, "negative", REAL))


def abs(input):  # noqa: A001,A002
    """``ops.abs(input)``: ``|input|``, dtype kept (Bool too)."""
    return F.abs(_arg(input, "abs", ANY))


def absolute(input):  # noqa: A002
    """``ops.absolute(input)``: alias of :func:`abs`."""
    return F.abs(_arg(input, "absolute", ANY))


def positive(input):  # noqa: A002
    """``ops.positive(input)``: ``+input``, a copy of ``input``."""
    return _copy(_arg(input, "positive", ANY))


def sign(input):  # noqa: A002
    """``ops.sign(input)``: -1, 0 or 1 by the sign of each element (0 for NaN, as MindSpore);
    floats, Int32 and Int64."""
    return F.sign(_arg(input, "sign", FLOATS | {int32, int64}))


def sgn(input):  # noqa: A002
    """``ops.sgn(input)``: :func:`sign` (for real tensors the two agree)."""
    return F.sign(_arg(input, "sgn", FLOATS | {int32, int64}))


def signbit(input):  # noqa: A002
    """``ops.signbit(input)``: Bool, True where ``input < 0`` (MindSpore 2.10 gives False for
    -0.0 and NaN, unlike numpy)."""
    x = _arg(input, "signbit", ANY)
    return _filled(x, False, bool_) if x.dtype.is_bool else F.less(x, 0)


def square(input):  # noqa: A002
    """``ops.square(input)``: ``input * input``, dtype kept (not Bool)."""
    return F.square(_arg(input, "square", REAL))


def conj(input):  # noqa: A002
    """``ops.conj(input)``: the complex conjugate; a copy for graphcell's real tensors."""
    return _copy(_arg(input, "conj", REAL))


def real(input):  # noqa: A002
    """``ops.real(input)``: the real part; a copy for graphcell's real tensors."""
    return _copy(_arg(input, "real", ANY - {uint8}))


def imag(input):  # noqa: A002
    """``ops.imag(input)``: the imaginary part: zeros of ``input``'s dtype for real tensors."""
    x = _arg(input, "imag", ANY)
    return _filled(x, 0, x.dtype)


def isreal(input):  # noqa: A002
    """``ops.isreal(input)``: Bool, True everywhere for graphcell's real tensors."""
    x = _arg(input, "isreal", ANY)
    return _filled(x, True, bool_)


def angle(input):  # noqa: A002
    """``ops.angle(input)``: the argument of each element: pi for negative reals, 0 otherwise
    (NaN stays NaN). MindSpore 2.10's CPU build computes it for complex inputs only."""
    x = _arg(input, "angle", FLOATS)
    arg = F.select(F.less(x, 0), _filled(x, math.pi, x.dtype), _filled(x, 0, x.dtype))
    return F.select(F.isnan(x), x, arg)


# --- roots, reciprocals, exponentials, logarithms ----------------------------------------------------

def sqrt(x):
    """``ops.sqrt(x)``: square root; integers and bools give Float32."""
    return F.sqrt(_arg(x, "sqrt", ANY, "x"))


def rsqrt(input):  # noqa: A002
    """``ops.rsqrt(input)``: ``1 / sqrt(input)``."""
    return F.div(1, F.sqrt(_arg(input, "rsqrt", ANY)))


def reciprocal(input):  # noqa: A002
    """``ops.reciprocal(input)``: ``1 / input``; integers and bools give Float32."""
    return F.div(1, _as_float(_arg(input, "reciprocal", ANY)))


def inv(x):
    """``ops.inv(x)``: ``1 / x``; Int16/Int32/Int64 keep their dtype (truncated: 1/2 is 0, as
    MindSpore computes it; 1/0 is undefined there)."""
    x = _arg(x, "inv", FLOATS | {int16, int32, int64}, "x")
    return F.div(1, x) if x.dtype.is_float else F.cast(F.div(1, x), dtype=x.dtype)


def exp(input):  # noqa: A002
    """``ops.exp(input)``: ``e ** input``; floats, Int64 and Bool (these give Float32)."""
    return F.exp(_arg(input, "exp", _FLOAT_INT64_BOOL))


def tensor_exp(input):  # noqa: A002
    """``ops.tensor_exp(input)``: :func:`exp`."""
    return F.exp(_arg(input, "tensor_exp", _FLOAT_INT64_BOOL))


def exp2(input):  # noqa: A002
    """``ops.exp2(input)``: ``2 ** input``; integers and bools give Float32."""
    return F.pow(2, _as_float(_arg(input, "exp2", ANY)))


def expm1(input):  # noqa: A002
    """``ops.expm1(input)``: ``exp(input) - 1``, exact near 0."""
    return F.expm1(_arg(input, "expm1", _FLOAT_INT64_BOOL))


def tensor_expm1(input):  # noqa: A002
    """``ops.tensor_expm1(input)``: :func:`expm1`."""
    return F.expm1(_arg(input, "tensor_expm1", _FLOAT_INT64_BOOL))


def log(input):  # noqa: A002
    """``ops.log(input)``: natural logarithm (NaN below 0, -inf at 0)."""
    return F.log(_arg(input, "log", ANY))


def log1p(input):  # noqa: A002
    """``ops.log1p(input)``: ``log(1 + input)``, exact near 0."""
    return F.log1p(_arg(input, "log1p", ANY))


def log2(input):  # noqa: A002
    """``ops.log2(input)``: base-2 logarithm."""
    return F.div(F.log(_arg(input, "log2", ANY)), math.log(2.0))


def log10(input):  # noqa: A002
    """``ops.log10(input)``: base-10 logarithm."""
    return F.div(F.log(_arg(input, "log10", ANY)), math.log(10.0))


# --- trigonometric and hyperbolic ---------------------------------------------------------------------

def sin(input):  # noqa: A002
    """``ops.sin(input)``."""
    return F.sin(_arg(input, "sin", ANY))


def cos(input):  # noqa: A002
    """``ops.cos(input)``."""
    return F.cos(_arg(input, "cos", ANY))


def tan(input):  # noqa: A002
    """``ops.tan(input)``."""
    return F.tan(_arg(input, "tan", ANY))


def sinc(input):  # noqa: A002
    """``ops.sinc(input)``: ``sin(pi x) / (pi x)``, 1 at 0 (its gradient there is 0)."""
    x = _as_float(_arg(input, "sinc", ANY))
    zero = F.equal(x, 0)
    pi_x = F.mul(F.select(zero, F.ones_like(x), x), math.pi)   # no 0/0 on either path
    return F.select(zero, F.ones_like(x), F.div(F.sin(pi_x), pi_x))


def asin(input):  # noqa: A002
    """``ops.asin(input)``: arcsine (floats)."""
    return F.asin(_arg(input, "asin", FLOATS))


def arcsin(x):
    """``ops.arcsin(x)``: :func:`asin`."""
    return F.asin(_arg(x, "arcsin", FLOATS, "x"))


def acos(input):  # noqa: A002
    """``ops.acos(input)``: arccosine (floats)."""
    return F.acos(_arg(input, "acos", FLOATS))


def arccos(input):  # noqa: A002
    """``ops.arccos(input)``: :func:`acos`."""
    return F.acos(_arg(input, "arccos", FLOATS))


def atan(input):  # noqa: A002
    """``ops.atan(input)``: arctangent (floats)."""
    return F.atan(_arg(input, "atan", FLOATS))


def arctan(input):  # noqa: A002
    """``ops.arctan(input)``: :func:`atan`."""
    return F.atan(_arg(input, "arctan", FLOATS))


def sinh(input):  # noqa: A002
    """``ops.sinh(input)``."""
    return F.sinh(_arg(input, "sinh", ANY))


def cosh(input):  # noqa: A002
    """``ops.cosh(input)``."""
    return F.cosh(_arg(input, "cosh", ANY))


def tanh(input):  # noqa: A002
    """``ops.tanh(input)``."""
    return F.tanh(_arg(input, "tanh", ANY))


def asinh(input):  # noqa: A002
    """``ops.asinh(input)``: inverse hyperbolic sine (floats)."""
    return F.asinh(_arg(input, "asinh", FLOATS))


def arcsinh(input):  # noqa: A002
    """``ops.arcsinh(input)``: :func:`asinh`."""
    return F.asinh(_arg(input, "arcsinh", FLOATS))


def acosh(input):  # noqa: A002
    """``ops.acosh(input)``: inverse hyperbolic cosine (floats; NaN below 1)."""
    return F.acosh(_arg(input, "acosh", FLOATS))


def arccosh(input):  # noqa: A002
    """``ops.arccosh(input)``: :func:`acosh`."""
    return F.acosh(_arg(input, "arccosh", FLOATS))


def atanh(input):  # noqa: A002
    """``ops.atanh(input)``: inverse hyperbolic tangent (±inf at ±1, NaN beyond)."""
    return F.atanh(_arg(input, "atanh", ANY))


def arctanh(input):  # noqa: A002
    """``ops.arctanh(input)``: :func:`atanh`."""
    return F.atanh(_arg(input, "arctanh", ANY))


def deg2rad(x):
    """``ops.deg2rad(x)``: degrees to radians (floats)."""
    return F.mul(_arg(x, "deg2rad", FLOATS, "x"), math.pi / 180.0)


def rad2deg(x):
    """``ops.rad2deg(x)``: radians to degrees (floats)."""
    return F.mul(_arg(x, "rad2deg", FLOATS, "x"), 180.0 / math.pi)


def sigmoid(input):  # noqa: A002
    """``ops.sigmoid(input)``: ``1 / (1 + exp(-input))``."""
    return F.sigmoid(_arg(input, "sigmoid", ANY))


# --- rounding -----------------------------------------------------------------------------------------

def floor(input):  # noqa: A002
    """``ops.floor(input)``: round down (floats)."""
    return F.floor(_arg(input, "floor", FLOATS))


def ceil(input):  # noqa: A002
    """``ops.ceil(input)``: round up (floats)."""
    return F.ceil(_arg(input, "ceil", FLOATS))


def trunc(input):  # noqa: A002
    """``ops.trunc(input)``: round toward zero; integers and bools come back unchanged."""
    x = _arg(input, "trunc", ANY)
    return F.trunc(x) if x.dtype.is_float else _copy(x)


def round(input, *, decimals=0):  # noqa: A001,A002
    """``ops.round(input, *, decimals=0)``: round half to even (2.5 -> 2.0), to ``decimals``
    places (negative: tens, hundreds...); integers come back unchanged."""
    x = _arg(input, "round", REAL)
    if not isinstance(decimals, (int, np.integer)) or isinstance(decimals, bool):
        raise TypeError(f"ops.round: 'decimals' must be an int, got {type(decimals).__name__}")
    if not x.dtype.is_float:
        if decimals != 0:
            raise ValueError("ops.round: 'decimals' must be 0 for an integer input")
        return _copy(x)
    if decimals == 0:
        return F.rint(x)
    scale = 10.0 ** int(decimals)
    return F.div(F.rint(F.mul(x, scale)), scale)


def frac(x):
    """``ops.frac(x)``: ``x - trunc(x)``, the fractional part with ``x``'s sign; zeros for
    integers (Int64 for Bool)."""
    x = _arg(x, "frac", ANY, "x")
    if x.dtype.is_float:
        return F.sub(x, F.trunc(x))
    return _filled(x, 0, int64 if x.dtype.is_bool else x.dtype)


# --- predicates, non-finite values ----------------------------------------------------------------

def isnan(input):  # noqa: A002
    """``ops.isnan(input)``: Bool, True where ``input`` is NaN."""
    x = _arg(input, "isnan", ANY)
    return F.isnan(x) if x.dtype.is_float else _filled(x, False, bool_)


def isinf(input):  # noqa: A002
    """``ops.isinf(input)``: Bool, True where ``input`` is ±inf."""
    x = _arg(input, "isinf", ANY)
    return F.isinf(x) if x.dtype.is_float else _filled(x, False, bool_)


def isposinf(input):  # noqa: A002
    """``ops.isposinf(input)``: Bool, True where ``input`` is +inf."""
    x = _arg(input, "isposinf", ANY)
    return F.equal(x, math.inf) if x.dtype.is_float else _filled(x, False, bool_)


def isneginf(input):  # noqa: A002
    """``ops.isneginf(input)``: Bool, True where ``input`` is -inf."""
    x = _arg(input, "isneginf", ANY)
    return F.equal(x, -math.inf) if x.dtype.is_float else _filled(x, False, bool_)


def isfinite(input):  # noqa: A002
    """``ops.isfinite(input)``: Bool, True where ``input`` is neither ±inf nor NaN."""
    x = _arg(input, "isfinite", ANY)
    return F.isfinite(x) if x.dtype.is_float else _filled(x, True, bool_)


def nan_to_num(input, nan=None, posinf=None, neginf=None):  # noqa: A002
    """``ops.nan_to_num(input, nan=None, posinf=None, neginf=None)``: NaN, +inf and -inf
    replaced by ``nan`` (default 0), ``posinf`` (default the dtype's largest value) and
    ``neginf`` (default its lowest)."""
    x = _arg(input, "nan_to_num", FLOATS)
    info = np.finfo(x.dtype.np_dtype)
    values = {"nan": (nan, 0.0), "posinf": (posinf, float(info.max)),
              "neginf": (neginf, float(info.min))}
    for name, (v, _) in values.items():
        if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)):
            raise TypeError(f"ops.nan_to_num: '{name}' must be a float or None, got "
                            f"{type(v).__name__}")
    nan, posinf, neginf = (float(default if v is None else v) for v, default in values.values())
    out = F.select(F.equal(x, math.inf), _filled(x, posinf, x.dtype), x)
    out = F.select(F.equal(x, -math.inf), _filled(x, neginf, x.dtype), out)
    return F.select(F.isnan(x), _filled(x, nan, x.dtype), out)


# --- special functions -----------------------------------------------------------------------------

def erf(input):  # noqa: A002
    """``ops.erf(input)``: the error function."""
    return F.erf(_arg(input, "erf", _FLOAT_INT64_BOOL))


def erfc(input):  # noqa: A002
    """``ops.erfc(input)``: ``1 - erf(input)``, exact in the tail."""
    return F.erfc(_arg(input, "erfc", _FLOAT_INT64_BOOL))


def erfinv(input):  # noqa: A002
    """``ops.erfinv(input)``: the inverse error function (±inf at ±1, NaN beyond)."""
    return F.erfinv(_arg(input, "erfinv", ANY))


def lgamma(input):  # noqa: A002
    """``ops.lgamma(input)``: ``log|Gamma(input)|`` (+inf at 0, -1, -2, ...); floats and
    Int32 (which gives Float32)."""
    return F.lgamma(_arg(input, "lgamma", FLOATS | {int32}))


def digamma(input):  # noqa: A002
    """``ops.digamma(input)``: the derivative of lgamma (floats)."""
    return F.digamma(_arg(input, "digamma", FLOATS))


def polygamma(n, input):  # noqa: A002
    """``ops.polygamma(n, input)``: the ``n``-th derivative of digamma; ``n`` is a 0-d Int32 or
    Int64 Tensor (0 gives digamma). Accurate for ``input > -10`` when ``n >= 1``."""
    n = _arg(n, "polygamma", frozenset({int32, int64}), "n")
    if n.ndim != 0:
        raise ValueError(f"ops.polygamma: 'n' must be a 0-d Tensor, got shape {list(n.shape)}")
    return F.polygamma(n, _arg(input, "polygamma", FLOATS))


def mvlgamma(input, p):  # noqa: A002
    """``ops.mvlgamma(input, p)``: the multivariate log-gamma function of dimension ``p``:
    ``p(p-1)/4 log(pi) + sum_{j<p} lgamma(input - j/2)``; every element must exceed
    ``(p - 1) / 2`` (checked when the values are known, i.e. in PyNative mode; compiled, an
    element out of the domain gives NaN)."""
    x = _arg(input, "mvlgamma", frozenset({float32, float64}))
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
        raise TypeError(f"ops.mvlgamma: 'p' must be an int, got {type(p).__name__}")
    if p < 1:
        raise ValueError(f"ops.mvlgamma: 'p' must be at least 1, got {p}")
    values = _known_values(x)
    if values is not None and np.any(~(values > (p - 1) / 2)):
        raise ValueError(f"ops.mvlgamma: every element of 'input' must be greater than "
                         f"(p - 1) / 2 = {(p - 1) / 2}")
    total = F.lgamma(x)
    for j in range(1, int(p)):
        total = F.add(total, F.lgamma(F.sub(x, j / 2)))
    total = F.add(total, p * (p - 1) / 4 * math.log(math.pi))
    # compiled, the values are unknown while checking: out of the domain gives NaN, not a number
    nan = F.fill(dtype=x.dtype, shape=tuple(x.shape), value=float("nan"))
    return F.select(F.greater(x, (p - 1) / 2), total, nan)


def bessel_i0(x):
    """``ops.bessel_i0(x)``: the modified Bessel function I0 (floats), ``exp(|x|) * i0e(x)``."""
    x = _arg(x, "bessel_i0", FLOATS, "x")
    return F.mul(F.exp(F.abs(x)), F.bessel_i0e(x))


def i0(input):  # noqa: A002
    """``ops.i0(input)``: :func:`bessel_i0`."""
    x = _arg(input, "i0", FLOATS)
    return F.mul(F.exp(F.abs(x)), F.bessel_i0e(x))


def bessel_i0e(x):
    """``ops.bessel_i0e(x)``: ``exp(-|x|) * I0(x)`` (floats)."""
    return F.bessel_i0e(_arg(x, "bessel_i0e", FLOATS, "x"))


def bessel_i1(x):
    """``ops.bessel_i1(x)``: the modified Bessel function I1 (floats), ``exp(|x|) * i1e(x)``."""
    x = _arg(x, "bessel_i1", FLOATS, "x")
    return F.mul(F.exp(F.abs(x)), F.bessel_i1e(x))


def bessel_i1e(x):
    """``ops.bessel_i1e(x)``: ``exp(-|x|) * I1(x)`` (floats)."""
    return F.bessel_i1e(_arg(x, "bessel_i1e", FLOATS, "x"))


# --- Primitive classes ---------------------------------------------------------------------------

def _round_primitive(input, decimals=0):  # noqa: A002
    """``ops.Round()(input, decimals=0)``: MindSpore's Primitive takes decimals positionally."""
    return round(input, decimals=decimals)


def _polygamma_primitive(a, x):
    """``ops.Polygamma()(a, x)``: the order ``a`` first, as :func:`polygamma`."""
    return polygamma(a, x)


Neg, Abs, Square, Sqrt, Rsqrt, Reciprocal, Inv = (
    primitive("Neg", neg), primitive("Abs", abs), primitive("Square", square),
    primitive("Sqrt", sqrt), primitive("Rsqrt", rsqrt), primitive("Reciprocal", reciprocal),
    primitive("Inv", inv))
Exp, Expm1, Log, Log1p = (primitive("Exp", exp), primitive("Expm1", expm1),
                          primitive("Log", log), primitive("Log1p", log1p))
Sin, Cos, Tan, Sinc, Asin, ACos, Atan = (
    primitive("Sin", sin), primitive("Cos", cos), primitive("Tan", tan), primitive("Sinc", sinc),
    primitive("Asin", asin), primitive("ACos", acos), primitive("Atan", atan))
Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Sigmoid = (
    primitive("Sinh", sinh), primitive("Cosh", cosh), primitive("Tanh", tanh),
    primitive("Asinh", asinh), primitive("Acosh", acosh), primitive("Atanh", atanh),
    primitive("Sigmoid", sigmoid))
def _rint(input):  # noqa: A002
    """``ops.Rint()(input)``: round half to even (floats)."""
    return F.rint(_arg(input, "Rint", FLOATS))


Floor, Ceil, Trunc, Round, Rint, Sign = (
    primitive("Floor", floor), primitive("Ceil", ceil), primitive("Trunc", trunc),
    primitive("Round", _round_primitive), primitive("Rint", _rint), primitive("Sign", sign))
IsNan, IsInf, IsFinite, NanToNum = (
    primitive("IsNan", isnan), primitive("IsInf", isinf), primitive("IsFinite", isfinite),
    primitive("NanToNum", nan_to_num, init=("nan", "posinf", "neginf")))
Conj, Real, Imag, Angle = (primitive("Conj", conj), primitive("Real", real),
                           primitive("Imag", imag), primitive("Angle", angle))
Erf, Erfc, Erfinv, Lgamma, Digamma = (
    primitive("Erf", erf), primitive("Erfc", erfc), primitive("Erfinv", erfinv),
    primitive("Lgamma", lgamma), primitive("Digamma", digamma))
Polygamma = primitive("Polygamma", _polygamma_primitive)
Mvlgamma = primitive("Mvlgamma", mvlgamma, init=("p",))
BesselI0, BesselI0e, BesselI1, BesselI1e = (
    primitive("BesselI0", bessel_i0), primitive("BesselI0e", bessel_i0e),
    primitive("BesselI1", bessel_i1), primitive("BesselI1e", bessel_i1e))

__all__ += ["Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Reciprocal", "Inv", "Exp", "Expm1", "Log",
            "Log1p", "Sin", "Cos", "Tan", "Sinc", "Asin", "ACos", "Atan", "Sinh", "Cosh", "Tanh",
            "Asinh", "Acosh", "Atanh", "Sigmoid", "Floor", "Ceil", "Trunc", "Round", "Rint",
            "Sign", "IsNan", "IsInf", "IsFinite", "NanToNum", "Conj", "Real", "Imag", "Angle",
            "Erf", "Erfc", "Erfinv", "Lgamma", "Digamma", "Polygamma", "Mvlgamma", "BesselI0",
            "BesselI0e", "BesselI1", "BesselI1e"]


# --- Tensor methods --------------------------------------------------------------------------------

def _round_method(self, decimals=0):
    """``x.round(decimals=0)``."""
    return round(self, decimals=decimals)


TENSOR_METHODS = {
    **{name: globals()[name] for name in (
        "abs", "absolute", "neg", "negative", "positive", "sign", "sgn", "signbit", "square",
        "conj", "real", "imag", "isreal", "angle", "sqrt", "rsqrt", "reciprocal", "inv", "exp",
        "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "sinc", "asin", "arcsin",
        "acos", "arccos", "atan", "arctan", "sinh", "cosh", "tanh", "asinh", "arcsinh", "acosh",
        "arccosh", "atanh", "arctanh", "deg2rad", "rad2deg", "sigmoid", "floor", "ceil", "trunc",
        "frac", "isnan", "isinf", "isposinf", "isneginf", "isfinite", "nan_to_num", "erf",
        "erfc", "erfinv", "lgamma", "digamma", "i0")},
    "round": _round_method,
    "relu": F.relu,
}

"""Elementwise unary math primitives added for MindSpore's API breadth: trigonometry and its
inverses, hyperbolic functions, ``expm1``/``log1p``/``erfc``, rounding, float predicates and the
special functions (``lgamma``, ``digamma``, ``polygamma``, ``erfinv``, the scaled Bessel functions
``bessel_i0e``/``bessel_i1e``).

Each entry has a numpy reference (no scipy: numpy, ``math``, or the same algorithm as the
kernel) and a kernel template in the code generator's subset (``math.<libm function>``,
arithmetic, conditional expressions, immediately called lambdas). The older unary entries (exp,
log, sqrt, sin, ...) stay in ``elementwise.py``.

Special functions compute in float64 for every float dtype and round once: their series cancel
(Lanczos' sum has terms near 1e3 for a result near 1), which float32 arithmetic cannot carry.
A template therefore starts with ``{x} * float('1.0')`` (``float()`` of a float32 stays float32
under numba) and writes its inexact constants as ``float('...')``: the lowering turns bare float
literals of a float32 kernel into float32 (``lower._literals_as``), strings it leaves alone.

The dtype rules here are the IR's (integers become Float32 where the result is real-valued, as
``exp``/``log`` do); which dtypes each MindSpore name accepts is decided by the functions of
``graphcell.ops.function.unary_func``.
"""
from __future__ import annotations

import math

import numpy as np

from graphcell_ir.errors import OpTypeError
from graphcell_ir.ir.types import ScalarType, TensorType, Type, bool_, float32
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.elementwise import _unary
from graphcell_ir.ops.registry import NONDIFF, Kind, defop
from graphcell_ir.ops.shape_rules import broadcast_shapes, require_tensorish, unary_float

EW = Kind.ELEMENTWISE
SQRT_PI_2 = 0.886226925452758        # sqrt(pi) / 2
TWO_OVER_SQRT_PI = 1.1283791670955126


# --- dtype rules -------------------------------------------------------------------------------

def float_only(x: Type) -> Type:
    """Ops defined on floats alone (rounding, the float predicates' float form): dtype kept."""
    require_tensorish(x, "input")
    if not x.dtype.is_float:
        raise OpTypeError(f"input must have a float dtype, got {x}")
    return x


def float_predicate(x: Type) -> Type:
    """isinf/isfinite on floats: same shape, Bool."""
    float_only(x)
    return ScalarType(bool_) if isinstance(x, ScalarType) else TensorType(bool_, x.shape)


def _polygamma_infer(n: Type, x: Type) -> Type:
    require_tensorish(n, "n")
    if not n.dtype.is_int:
        raise OpTypeError(f"n must be an integer, got {n}")
    out = unary_float(x)
    if isinstance(n, ScalarType) and isinstance(x, ScalarType):
        return out
    shape = broadcast_shapes(getattr(n, "shape", ()), getattr(x, "shape", ()))
    return TensorType(out.dtype, shape)


# --- reference helpers -------------------------------------------------------------------------

def _via_float64(fn64):
    """A reference that computes ``fn64`` on float64 values and rounds once to the result dtype
    (the input's float dtype; Float32 for integers and bools), as the kernels do."""
    def ref(x):
        arr = np.asarray(x)
        want = arr.dtype if arr.dtype.kind == "f" else np.dtype(np.float32)
        out = np.asarray(fn64(arr.astype(np.float64)), np.float64).astype(want)
        return out if isinstance(x, np.ndarray) else float(out)
    ref.__name__ = fn64.__name__
    return ref


def _pointwise(fn):
    """A Python ``float -> float`` function applied to every element of a float64 array."""
    ufunc = np.frompyfunc(fn, 1, 1)

    def run(x):
        return np.asarray(ufunc(x), np.float64)
    run.__name__ = fn.__name__
    return run


def _c(v: float) -> str:
    """A constant of a float64 template, kept float64 in float32 kernels (module docstring)."""
    return f"float('{float(v)!r}')"


# --- trigonometric and hyperbolic functions --------------------------------------------------------

def bprop_tan(x, out, dout):
    return (F.mul(dout, F.add(F.mul(out, out), 1)),)         # tan' = 1 + tan^2


def _inverse_sqrt_1m_x2(x):
    return F.div(1, F.sqrt(F.sub(1, F.mul(x, x))))


tan = defop("tan", ("x",), kind=EW, ms_name="Tan", infer=unary_float, ref=_unary(np.tan, True),
            kernel="math.tan({x})", bprop=bprop_tan)
asin = defop("asin", ("x",), kind=EW, ms_name="Asin", infer=unary_float,
             ref=_unary(np.arcsin, True), kernel="math.asin({x})",
             bprop=lambda x, out, dout: (F.mul(dout, _inverse_sqrt_1m_x2(x)),))
acos = defop("acos", ("x",), kind=EW, ms_name="ACos", infer=unary_float,
             ref=_unary(np.arccos, True), kernel="math.acos({x})",
             bprop=lambda x, out, dout: (F.neg(F.mul(dout, _inverse_sqrt_1m_x2(x))),))
atan = defop("atan", ("x",), kind=EW, ms_name="Atan", infer=unary_float,
             ref=_unary(np.arctan, True), kernel="math.atan({x})",
             bprop=lambda x, out, dout: (F.div(dout, F.add(F.mul(x, x), 1)),))
sinh = defop("sinh", ("x",), kind=EW, ms_name="Sinh", infer=unary_float,
             ref=_unary(np.sinh, True), kernel="math.sinh({x})",
             bprop=lambda x, out, dout: (F.mul(dout, F.cosh(x)),))
cosh = defop("cosh", ("x",), kind=EW, ms_name="Cosh", infer=unary_float,
             ref=_unary(np.cosh, True), kernel="math.cosh({x})",
             bprop=lambda x, out, dout: (F.mul(dout, F.sinh(x)),))

# The code generator has no asinh/acosh/atanh; these are the textbook forms through log1p, exact
# near 0 (asinh, atanh) and near 1 (acosh), with log(2|x|) once x^2 would swamp the 1.
_LN2 = 0.6931471805599453
_ASINH = ("(lambda x: (lambda a: (lambda r: r if x > 0 else (x if x == 0 else -r))("
          f"math.log(a) + {_LN2} if a > 1e8 else "
          "math.log1p(a + a * a / (1.0 + math.sqrt(1.0 + a * a)))))(abs(x)))({x})")
_ACOSH = (f"(lambda x: (lambda t: math.log(x) + {_LN2} if x > 1e8 else "
          "math.log1p(t + math.sqrt(2.0 * t + t * t)))(x - 1.0))({x})")
_ATANH = "0.5 * math.log1p(2.0 * {x} / (1.0 - {x}))"

asinh = defop("asinh", ("x",), kind=EW, ms_name="Asinh", infer=unary_float,
              ref=_unary(np.arcsinh, True), kernel=_ASINH,
              bprop=lambda x, out, dout: (F.div(dout, F.sqrt(F.add(F.mul(x, x), 1))),))
acosh = defop("acosh", ("x",), kind=EW, ms_name="Acosh", infer=unary_float,
              ref=_unary(np.arccosh, True), kernel=_ACOSH,
              bprop=lambda x, out, dout: (F.div(dout, F.sqrt(F.sub(F.mul(x, x), 1))),))
atanh = defop("atanh", ("x",), kind=EW, ms_name="Atanh", infer=unary_float,
              ref=_unary(np.arctanh, True), kernel=_ATANH,
              bprop=lambda x, out, dout: (F.div(dout, F.sub(1, F.mul(x, x))),))

# --- exponentials and the error function ----------------------------------------------------------

_erfc_elements = _pointwise(math.erfc)   # numpy has no erfc; math.erfc is what the kernel runs


def _erfc(x):
    return np.asarray(_erfc_elements(x), x.dtype) if isinstance(x, np.ndarray) else math.erfc(x)


expm1 = defop("expm1", ("x",), kind=EW, ms_name="Expm1", infer=unary_float,
              ref=_unary(np.expm1, True), kernel="math.expm1({x})",
              bprop=lambda x, out, dout: (F.mul(dout, F.add(out, 1)),))
log1p = defop("log1p", ("x",), kind=EW, ms_name="Log1p", infer=unary_float,
              ref=_unary(np.log1p, True), kernel="math.log1p({x})",
              bprop=lambda x, out, dout: (F.div(dout, F.add(x, 1)),))
erfc = defop("erfc", ("x",), kind=EW, ms_name="Erfc", infer=unary_float, ref=_unary(_erfc, True),
             kernel="math.erfc({x})",
             bprop=lambda x, out, dout: (  # d erfc(x) = -2/sqrt(pi) * exp(-x^2)
                 F.mul(dout, F.mul(F.exp(F.neg(F.square(x))), -TWO_OVER_SQRT_PI)),))

# --- rounding ---------------------------------------------------------------------------------------
# floor is ``x // 1`` for finite x (elementwise.floor); the others are built from it. ``rint``
# rounds half to even, as MindSpore's Round and Rint do (2.5 -> 2, -1.5 -> -2).

_NO_GRAD = lambda x, out, dout: (None,)   # noqa: E731 - piecewise constant: zero gradient

ceil = defop("ceil", ("x",), kind=EW, ms_name="Ceil", infer=float_only, ref=_unary(np.ceil),
             kernel="(-((-{x}) // 1) if math.isfinite({x}) else {x})", bprop=_NO_GRAD)
trunc = defop("trunc", ("x",), kind=EW, ms_name="Trunc", infer=float_only, ref=_unary(np.trunc),
              kernel="((({x} // 1) if {x} >= 0 else -((-{x}) // 1)) if math.isfinite({x}) "
                     "else {x})",
              bprop=_NO_GRAD)
rint = defop("rint", ("x",), kind=EW, ms_name="Rint", infer=float_only, ref=_unary(np.rint),
             kernel="(lambda x: (lambda r: (lambda d: r + 1.0 if d > 0.5 or (d == 0.5 and "
                    "r % 2.0 == 1.0) else r)(x - r))(x // 1) if math.isfinite(x) else x)({x})",
             bprop=_NO_GRAD)

# --- float predicates ----------------------------------------------------------------------------

isinf = defop("isinf", ("x",), kind=EW, ms_name="IsInf", infer=float_predicate,
              ref=_unary(np.isinf), kernel="math.isinf({x})", bprop=NONDIFF)
isfinite = defop("isfinite", ("x",), kind=EW, ms_name="IsFinite", infer=float_predicate,
                 ref=_unary(np.isfinite), kernel="math.isfinite({x})", bprop=NONDIFF)


# --- lgamma ------------------------------------------------------------------------------------------
# Lanczos' approximation (g = 7, 9 terms; Numerical Recipes 3rd ed. §6.1 / Godfrey's
# coefficients), ~1e-15 relative for x >= 0.5, and the reflection formula
# lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x) below; +inf at the poles (0, -1, -2, ...) and
# at ±inf, as MindSpore gives.

_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)
_HALF_LOG_2PI = 0.9189385332046728


def _lanczos_template(y: str) -> str:
    """lgamma(y) for y >= 0.5 as an expression in ``y`` (a name)."""
    terms = " + ".join(f"{_c(c)} / ({y} + {float(i - 1)!r})" for i, c in enumerate(_LANCZOS) if i)
    return (f"(lambda t: {_c(_HALF_LOG_2PI)} + ({y} - 0.5) * math.log(t) - t + "
            f"math.log({_c(_LANCZOS[0])} + {terms}))({y} + 6.5)")


_LGAMMA = ("(lambda x: math.inf if math.isinf(x) or (x <= 0.0 and x == x // 1.0) else "
           f"({_lanczos_template('x')} if x >= 0.5 else "
           "(lambda r: math.log(math.pi / abs(math.sin(math.pi * r))))(x - 2.0 * (x // 2.0)) - "
           f"(lambda y: {_lanczos_template('y')})(1.0 - x)))({{x}} * float('1.0'))")


def _lgamma_element(v: float) -> float:
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):  # a pole, or beyond float64
        return math.inf


lgamma = defop("lgamma", ("x",), kind=EW, ms_name="Lgamma", infer=unary_float,
               ref=_via_float64(_pointwise(_lgamma_element)), kernel=_LGAMMA,
               bprop=lambda x, out, dout: (F.mul(dout, F.digamma(x)),))


# --- digamma and polygamma -----------------------------------------------------------------------
# digamma(y) for y >= 0.5: shift by eight (psi(y) = psi(y + 8) - sum 1/(y + k)), then the
# asymptotic series psi(z) ~ log z - 1/(2z) - sum B_2k / (2k z^2k) to z^-14 (Abramowitz & Stegun
# 6.3.18); below 0.5 the reflection psi(x) = psi(1 - x) - pi / tan(pi x). Poles: NaN at the
# negative integers, -1/x (so -inf at +0, +inf at -0) at zero, as MindSpore gives.

_PSI_SHIFT = 8


def _digamma_template(y: str) -> str:
    """digamma(y) for y >= 0.5 as an expression in ``y`` (a name)."""
    shift = " + ".join(f"1.0 / ({y} + {float(k)!r})" for k in range(_PSI_SHIFT))
    series = ("w * (" + _c(1 / 12) + " - w * (" + _c(1 / 120) + " - w * (" + _c(1 / 252)
              + " - w * (" + _c(1 / 240) + " - w * (" + _c(1 / 132) + " - w * ("
              + _c(691 / 32760) + " - w * " + _c(1 / 12) + "))))))")
    return (f"(lambda z: (lambda w: math.log(z) - 0.5 / z - {series})(1.0 / (z * z)))"
            f"({y} + {float(_PSI_SHIFT)!r}) - ({shift})")


def _digamma_of(x: str) -> str:
    """digamma of the float64 name ``x``, every branch."""
    return (f"(-1.0 / {x} if {x} == 0.0 else (math.nan if {x} < 0.0 and {x} == {x} // 1.0 else "
            f"((lambda y: {_digamma_template('y')})(1.0 - {x}) - math.pi / math.tan(math.pi * "
            f"({x} - {x} // 1.0)) if {x} < 0.5 else (lambda y: {_digamma_template('y')})({x}))))")


_DIGAMMA = f"(lambda x: {_digamma_of('x')})({{x}} * float('1.0'))"


def _digamma_direct_np(y: np.ndarray) -> np.ndarray:
    shift = sum(1.0 / (y + float(k)) for k in range(_PSI_SHIFT))
    z = y + float(_PSI_SHIFT)
    w = 1.0 / (z * z)
    series = w * (1 / 12 - w * (1 / 120 - w * (1 / 252 - w * (1 / 240 - w * (
        1 / 132 - w * (691 / 32760 - w * (1 / 12)))))))
    return np.log(z) - 0.5 / z - series - shift


def _digamma_np(x: np.ndarray) -> np.ndarray:
    """The kernel's algorithm on float64 arrays."""
    x = np.asarray(x, np.float64)
    low = x < 0.5
    y = np.where(low, 1.0 - x, x)
    out = _digamma_direct_np(y)
    reflect = np.pi / np.tan(np.pi * (x - np.floor(x)))
    out = np.where(low, out - reflect, out)
    out = np.where((x < 0) & (x == np.floor(x)), np.nan, out)
    return np.where(x == 0, -1.0 / np.where(x == 0, x, 1.0), out)


# psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1, Hurwitz's zeta summed directly for 20
# terms, then Euler-Maclaurin's tail with B_2..B_14 (the scheme of Cephes' zeta.c). Accurate for
# x > -10; below that (n >= 1) the sum has too few terms and the result is NaN. Poles at
# 0, -1, -2, ...: +inf.
_ZETA_TERMS = 20
_ZETA_LIMIT = -10.0
_BERNOULLI = (1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000,
              7 / 523069747200)   # B_2j / (2j)!


def _zeta_tail_template(s: str, a: str) -> str:
    acc = _c(_BERNOULLI[-1])
    for j in range(len(_BERNOULLI) - 2, -1, -1):
        acc = (f"({_c(_BERNOULLI[j])} + ({s} + {float(2 * j + 1)!r}) * ({s} + "
               f"{float(2 * j + 2)!r}) / ({a} * {a}) * {acc})")
    return f"{a} ** -{s} * ({a} / ({s} - 1.0) + 0.5 + {s} / {a} * {acc})"


def _polygamma_template() -> str:
    s, x = "s", "x"
    direct = " + ".join(f"({x} + {float(k)!r}) ** -{s}" for k in range(_ZETA_TERMS))
    zeta = (f"{direct} + (lambda a: {_zeta_tail_template(s, 'a')})"
            f"({x} + {float(_ZETA_TERMS)!r})")
    factorial = f"math.exp((lambda y: {_lanczos_template('y')})({s}))"   # n! = Gamma(n + 1)
    higher = (f"(math.inf if {x} <= 0.0 and {x} == {x} // 1.0 else (math.nan if {x} < "
              f"{_ZETA_LIMIT!r} else (1.0 if n % 2 == 1 else -1.0) * {factorial} * ({zeta})))")
    return (f"(lambda n, x: {_digamma_of('x')} if n == 0 else "
            f"(lambda s: {higher})(n + 1.0))({{n}}, {{x}} * float('1.0'))")


_POLYGAMMA = _polygamma_template()


def _zeta_tail_np(s: float, a: np.ndarray) -> np.ndarray:
    acc = _BERNOULLI[-1]
    for j in range(len(_BERNOULLI) - 2, -1, -1):
        acc = _BERNOULLI[j] + (s + float(2 * j + 1)) * (s + float(2 * j + 2)) / (a * a) * acc
    return a ** -s * (a / (s - 1.0) + 0.5 + s / a * acc)


def _lgamma_lanczos_np(y: float) -> float:
    t = y + 6.5
    series = _LANCZOS[0] + sum(c / (y + float(i - 1)) for i, c in enumerate(_LANCZOS) if i)
    return _HALF_LOG_2PI + (y - 0.5) * math.log(t) - t + math.log(series)


def _polygamma_one_n(n: int, x: np.ndarray) -> np.ndarray:
    if n == 0:
        return _digamma_np(x)
    s = n + 1.0
    zeta = sum((x + float(k)) ** -s for k in range(_ZETA_TERMS)) + _zeta_tail_np(
        s, x + float(_ZETA_TERMS))
    out = (1.0 if n % 2 == 1 else -1.0) * math.exp(_lgamma_lanczos_np(s)) * zeta
    out = np.where(x < _ZETA_LIMIT, np.nan, out)
    return np.where((x <= 0) & (x == np.floor(x)), np.inf, out)


def _polygamma_ref(n, x):
    n_arr, x_arr = np.asarray(n), np.asarray(x)
    if n_arr.dtype.kind not in "iu":
        raise TypeError(f"polygamma: n must be an integer, got {n_arr.dtype}")
    want = x_arr.dtype if x_arr.dtype.kind == "f" else np.dtype(np.float32)
    n_b, x_b = np.broadcast_arrays(n_arr, x_arr.astype(np.float64))
    out = np.empty(n_b.shape, np.float64)
    with np.errstate(all="ignore"):
        for order in np.unique(n_b):
            here = n_b == order
            out[here] = (_polygamma_one_n(int(order), x_b[here]) if order >= 0 else np.nan)
    out = out.astype(want)
    if isinstance(n, np.ndarray) or isinstance(x, np.ndarray):
        return out
    return float(out)


digamma = defop("digamma", ("x",), kind=EW, ms_name="Digamma", infer=unary_float,
                ref=_via_float64(_digamma_np), kernel=_DIGAMMA,
                bprop=lambda x, out, dout: (F.mul(dout, F.polygamma(1, x)),))
polygamma = defop("polygamma", ("n", "x"), kind=EW, ms_name="Polygamma", infer=_polygamma_infer,
                  ref=_polygamma_ref, kernel=_POLYGAMMA,
                  bprop=lambda n, x, out, dout: (None, F.mul(dout, F.polygamma(F.add(n, 1), x))))


# --- erfinv -------------------------------------------------------------------------------------------
# M. Giles, "Approximating the erfinv function" (GPU Computing Gems Jade, 2011), single-precision
# polynomials as the start (for -log(1 - x^2) >= 16, the asymptote sqrt(L - log(pi L)/2) with
# L = -log(1 - |x|)), then three Newton steps in float64: on erf(z) = |x| up to 0.5, on
# log(erfc(z)) = log(1 - |x|) beyond (no cancellation near 1). Within a few ulp of the true
# value in float64; ±1 give ±inf, |x| > 1 NaN.

_GILES_LOW = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_HIGH = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
               -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
_NEWTON_STEPS = 3


def _horner(w: str, coeffs) -> str:
    expr = _c(coeffs[0])
    for c in coeffs[1:]:
        expr = f"({_c(c)} + {expr} * {w})"
    return expr


def _erfinv_template() -> str:
    low = f"(lambda u: {_horner('u', _GILES_LOW)} * a)(w - 2.5)"
    high = f"(lambda u: {_horner('u', _GILES_HIGH)} * a)(math.sqrt(w) - 3.0)"
    tail = "(lambda L: math.sqrt(L - 0.5 * math.log(math.pi * L)))(-math.log1p(-a))"
    start = (f"(lambda w: ({low} if w < 5.0 else {high}) if w < 16.0 else {tail})"
             "(-math.log((1.0 - a) * (1.0 + a)))")
    step = (f"(lambda z: z - (math.erf(z) - a) / ({_c(TWO_OVER_SQRT_PI)} * math.exp(-z * z)) "
            "if a <= 0.5 else (lambda e: z + (math.log(e) - math.log1p(-a)) * e * "
            f"math.exp(z * z) * {_c(SQRT_PI_2)})(math.erfc(z)))")
    z = start
    for _ in range(_NEWTON_STEPS):
        z = f"{step}({z})"
    return ("(lambda x: x * math.inf if abs(x) == 1.0 else (x if x == 0.0 else "
            f"(lambda a: (lambda z: z if x > 0.0 else -z)({z}))(abs(x))))({{x}} * float('1.0'))")


_ERFINV = _erfinv_template()

_erf_elements = _pointwise(math.erf)


def _erfinv_np(x: np.ndarray) -> np.ndarray:
    """The kernel's algorithm on float64 arrays."""
    with np.errstate(all="ignore"):
        a = np.abs(x)
        w = -np.log((1.0 - a) * (1.0 + a))
        u = w - 2.5
        low = _horner_np(u, _GILES_LOW) * a
        high = _horner_np(np.sqrt(w) - 3.0, _GILES_HIGH) * a
        big = -np.log1p(-a)
        tail = np.sqrt(big - 0.5 * np.log(np.pi * big))
        z = np.where(w < 16.0, np.where(w < 5.0, low, high), tail)
        for _ in range(_NEWTON_STEPS):
            near0 = z - (_erf_elements(z) - a) / (TWO_OVER_SQRT_PI * np.exp(-z * z))
            e = _erfc_elements(z)
            near1 = z + (np.log(e) - np.log1p(-a)) * e * np.exp(z * z) * SQRT_PI_2
            z = np.where(a <= 0.5, near0, near1)
        out = np.where(x > 0, z, -z)
        out = np.where(x == 0, x, out)
        return np.where(a == 1.0, x * np.inf, out)


def _horner_np(w, coeffs):
    out = coeffs[0]
    for c in coeffs[1:]:
        out = c + out * w
    return out


erfinv = defop("erfinv", ("x",), kind=EW, ms_name="Erfinv", infer=unary_float,
               ref=_via_float64(_erfinv_np), kernel=_ERFINV,
               bprop=lambda x, out, dout: (  # d erfinv(x) = sqrt(pi)/2 * exp(erfinv(x)^2)
                   F.mul(dout, F.mul(F.exp(F.square(out)), SQRT_PI_2)),))


# --- exponentially scaled modified Bessel functions of the first kind ------------------------------
# Chebyshev series of Cephes' i0.c and i1.c (S. L. Moshier, Cephes Math Library 2.8, 2000):
# i0e(x) = chbevl(|x|/2 - 2, A) on [0, 8], chbevl(32/|x| - 2, B) / sqrt|x| beyond; i1e the same
# with |x| * chbevl(.., A1) and odd symmetry. Clenshaw's recurrence is written out as nested
# lambdas carrying (b0, b1); the reference runs the same recurrence on arrays.

_I0_A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
         1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
         -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
         9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
         -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
         1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
         -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
         1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
         -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
         1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
         3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
         1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
         -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
         7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
         -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
         3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
         2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
         8.04490411014108831608E-1)
_I1_A = (2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
         -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
         3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
         -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
         9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
         -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
         4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
         -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
         2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
         -1.76416518357834055153E-1, 2.52587186443633654823E-1)
_I1_B = (7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
         -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
         -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
         4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
         -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
         3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
         -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
         -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
         7.78576235018280120474E-1)


def _chbevl(y: str, coeffs) -> str:
    """Cephes' chbevl(y, coeffs) as an expression: each lambda takes (b0, b1) and passes on
    (y*b0 - b1 + c, b0); the last step returns 0.5 * (b0 - b2)."""
    expr = f"0.5 * ({y} * b0 - b1 + {_c(coeffs[-1])} - b1)"
    for c in reversed(coeffs[1:-1]):
        expr = f"(lambda b0, b1: {expr})({y} * b0 - b1 + {_c(c)}, b0)"
    return f"(lambda b0, b1: {expr})({_c(coeffs[0])}, 0.0)"


def _chbevl_np(y: np.ndarray, coeffs) -> np.ndarray:
    b0, b1 = np.full_like(y, coeffs[0]), np.zeros_like(y)
    b2 = b1
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + c
    return 0.5 * (b0 - b2)


_I0E = (f"(lambda a: {_chbevl('(a / 2.0 - 2.0)', _I0_A)} if a <= 8.0 else "
        f"{_chbevl('(32.0 / a - 2.0)', _I0_B)} / math.sqrt(a))(abs({{x}} * float('1.0')))")
_I1E = (f"(lambda x: (lambda a: (lambda r: r if x >= 0.0 else -r)({_chbevl('(a / 2.0 - 2.0)', _I1_A)}"
        f" * a if a <= 8.0 else {_chbevl('(32.0 / a - 2.0)', _I1_B)} / math.sqrt(a)))(abs(x)))"
        "({x} * float('1.0'))")


def _bessel_scaled_np(a_coeffs, b_coeffs, times_a: bool):
    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            a = np.abs(x)
            near = _chbevl_np(a / 2.0 - 2.0, a_coeffs) * (a if times_a else 1.0)
            far = _chbevl_np(32.0 / np.where(a == 0, 1.0, a) - 2.0, b_coeffs) / np.sqrt(a)
            out = np.where(a <= 8.0, near, far)
            return np.where(x >= 0, out, -out) if times_a else out
    return run


def bprop_bessel_i0e(x, out, dout):
    # d/dx [exp(-|x|) I0(x)] = exp(-|x|) I1(x) - sign(x) exp(-|x|) I0(x)
    return (F.mul(dout, F.sub(F.bessel_i1e(x), F.mul(F.sign(x), out))),)


def bprop_bessel_i1e(x, out, dout):
    # I1'(x) = I0(x) - I1(x)/x, so d/dx i1e = i0e - i1e/x - sign(x) i1e; at 0 the limit is 1/2
    safe = F.select(F.equal(x, 0), F.ones_like(x), x)
    d = F.sub(F.sub(F.bessel_i0e(x), F.div(out, safe)), F.mul(F.sign(x), out))
    return (F.mul(dout, F.select(F.equal(x, 0), F.fill(dtype=out.dtype, shape=tuple(out.shape),
                                                        value=0.5), d)),)


bessel_i0e = defop("bessel_i0e", ("x",), kind=EW, ms_name="BesselI0e", infer=unary_float,
                   ref=_via_float64(_bessel_scaled_np(_I0_A, _I0_B, False)), kernel=_I0E,
                   bprop=bprop_bessel_i0e)
bessel_i1e = defop("bessel_i1e", ("x",), kind=EW, ms_name="BesselI1e", infer=unary_float,
                   ref=_via_float64(_bessel_scaled_np(_I1_A, _I1_B, True)), kernel=_I1E,
                   bprop=bprop_bessel_i1e)

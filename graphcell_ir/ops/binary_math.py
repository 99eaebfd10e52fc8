"""Binary math primitives MindSpore names that arithmetic cannot compose: bitwise logic and shifts,
``atan2``, and the integer/special functions whose kernels need a loop (``gcd``, ``lcm``,
``nextafter``, ``igamma``).

The rest of MindSpore's binary math (``xlogy``, ``hypot``, ``fmod``, ``lerp``, ``isclose``...) is
composite, written in ``graphcell/ops/function/math_func.py`` against these and the elementwise ops.

Ops marked ``OPAQUE`` here are elementwise in meaning, but their scalar code is a loop (Euclid's
algorithm, a series) that a kernel template — one expression — cannot hold: they run their numpy
reference in both modes and are never fused.
"""
from __future__ import annotations

import math

import numpy as np

from graphcell_ir.errors import OpTypeError
from graphcell_ir.ir.types import TensorType, Type
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.elementwise import _arith, _grad_for, _unary
from graphcell_ir.ops.registry import NONDIFF, Kind, Trait, defop
from graphcell_ir.ops.shape_rules import _broadcast, require_tensorish, result_dtype

EW, OPAQUE = Kind.ELEMENTWISE, Kind.OPAQUE
COMM, ASSOC = Trait.COMMUTATIVE, Trait.ASSOCIATIVE


# --- shape and dtype rules ---------------------------------------------------------------------

def _kinds(*types: Type) -> set[str]:
    return {"float" if t.dtype.is_float else "int" if t.dtype.is_int else "bool" for t in types}


def broadcast_bitwise(x: Type, y: Type) -> Type:
    """Bitwise and/or/xor: bool or integer operands (bool & bool stays Bool), promoted dtype."""
    for what, t in (("input", x), ("other", y)):
        require_tensorish(t, what)
        if t.dtype.is_float:
            raise OpTypeError(f"{what} must be a bool or integer tensor, got {t}")
    return _broadcast((x, y), result_dtype(x, y))


def broadcast_integer(x: Type, y: Type) -> Type:
    """Shifts, gcd, lcm: integer operands only, promoted dtype."""
    for what, t in (("input", x), ("other", y)):
        require_tensorish(t, what)
        if not t.dtype.is_int:
            raise OpTypeError(f"{what} must be an integer tensor, got {t}")
    return _broadcast((x, y), result_dtype(x, y))


def broadcast_float_only(x: Type, y: Type) -> Type:
    """atan2, nextafter, igamma: float operands (a Python number takes the tensor's dtype)."""
    for what, t in (("input", x), ("other", y)):
        require_tensorish(t, what)
        if isinstance(t, TensorType) and not t.dtype.is_float:
            raise OpTypeError(f"{what} must be a float tensor, got {t}")
    d = result_dtype(x, y)
    if not d.is_float:
        raise OpTypeError(f"input and other must be float, got {x} and {y}")
    return _broadcast((x, y), d)


def _integer_input(x: Type) -> Type:
    require_tensorish(x, "input")
    if not x.dtype.is_int:
        raise OpTypeError(f"input must be an integer tensor, got {x}")
    return x


# --- bitwise logic -----------------------------------------------------------------------------

bitwise_and = defop("bitwise_and", ("x", "y"), kind=EW, traits={COMM, ASSOC}, ms_name="BitwiseAnd",
                    infer=broadcast_bitwise, ref=_arith(np.bitwise_and), kernel="{x} & {y}",
                    bprop=NONDIFF)
bitwise_or = defop("bitwise_or", ("x", "y"), kind=EW, traits={COMM, ASSOC}, ms_name="BitwiseOr",
                   infer=broadcast_bitwise, ref=_arith(np.bitwise_or), kernel="{x} | {y}",
                   bprop=NONDIFF)
bitwise_xor = defop("bitwise_xor", ("x", "y"), kind=EW, traits={COMM, ASSOC}, ms_name="BitwiseXor",
                    infer=broadcast_bitwise, ref=_arith(np.bitwise_xor), kernel="{x} ^ {y}",
                    bprop=NONDIFF)
invert = defop("invert", ("x",), kind=EW, ms_name="Invert", infer=_integer_input,
               ref=_unary(np.invert), kernel="~{x}", bprop=NONDIFF)
# Shifts by at least the operand's width are left to the hardware, as in MindSpore (whose CPU
# kernels shift modulo the width): the sample rows keep shifts in range.
left_shift = defop("left_shift", ("x", "y"), kind=EW, ms_name="LeftShift",
                   infer=broadcast_integer, ref=_arith(np.left_shift), kernel="{x} << {y}",
                   bprop=NONDIFF)
right_shift = defop("right_shift", ("x", "y"), kind=EW, ms_name="RightShift",
                    infer=broadcast_integer, ref=_arith(np.right_shift), kernel="{x} >> {y}",
                    bprop=NONDIFF)


# --- atan2 -------------------------------------------------------------------------------------

def bprop_atan2(x, y, out, dout):
    """d atan2(x, y) = (y dx - x dy) / (x² + y²)."""
    scale = F.div(dout, F.add(F.mul(x, x), F.mul(y, y)))
    return _grad_for(F.mul(scale, y), x), _grad_for(F.neg(F.mul(scale, x)), y)


atan2 = defop("atan2", ("x", "y"), kind=EW, ms_name="Atan2", aliases=("arctan2",),
              infer=broadcast_float_only, ref=_arith(np.arctan2), kernel="math.atan2({x}, {y})",
              bprop=bprop_atan2)


# --- integer functions: Euclid's loop; nextafter: bit arithmetic on the float -------------------

gcd = defop("gcd", ("x", "y"), kind=OPAQUE, traits={COMM}, ms_name="Gcd",
            infer=broadcast_integer, ref=_arith(np.gcd), bprop=NONDIFF)
lcm = defop("lcm", ("x", "y"), kind=OPAQUE, traits={COMM}, ms_name="Lcm",
            infer=broadcast_integer, ref=_arith(np.lcm), bprop=NONDIFF)
# MindSpore passes the gradient through to x (nextafter(x, y) is x up to one ulp), none to y.
nextafter = defop("nextafter", ("x", "y"), kind=OPAQUE, ms_name="NextAfter",
                  infer=broadcast_float_only, ref=_arith(np.nextafter),
                  bprop=lambda x, y, out, dout: (_grad_for(dout, x), None))


# --- the regularized incomplete gamma functions ----------------------------------------------------
# P(a, x) by its power series where x < a + 1, else Q(a, x) = 1 - P by Lentz's continued fraction
# (Numerical Recipes §6.2), vectorised with a fixed iteration budget: both converge to float64
# rounding within 200 steps for a, x up to ~1e4 (the golden inputs are far smaller).

_ITERATIONS = 300
_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def _log_prefactor(a, x):
    """log(x^a e^-x / Γ(a))."""
    return a * np.log(x) - x - np.asarray(_lgamma(a), np.float64)


def _lower_series(a, x):
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    for _ in range(_ITERATIONS):
        ap = ap + 1.0
        term = term * x / ap
        total = total + term
    return total * np.exp(_log_prefactor(a, x))


def _upper_fraction(a, x):
    tiny = 1e-300
    b = x + 1.0 - a
    c = np.full_like(b, 1.0 / tiny)
    d = 1.0 / np.where(b == 0, tiny, b)
    h = d.copy()
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        h = h * d * c
    return np.exp(_log_prefactor(a, x)) * h


def _igamma_pair(a, x):
    """(P(a, x), Q(a, x)) in float64; NaN outside a > 0, x >= 0 (MindSpore's convention)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    p = np.full(a.shape, np.nan)
    q = np.full(a.shape, np.nan)
    valid = (a > 0) & (x >= 0)
    zero = valid & (x == 0)
    p[zero], q[zero] = 0.0, 1.0
    series = valid & (x > 0) & (x < a + 1)
    frac = valid & (x > 0) & ~series
    with np.errstate(all="ignore"):
        if series.any():
            p[series] = _lower_series(a[series], x[series])
            q[series] = 1.0 - p[series]
        if frac.any():
            q[frac] = _upper_fraction(a[frac], x[frac])
            p[frac] = 1.0 - q[frac]
        inf = valid & np.isinf(x)
        p[inf], q[inf] = 1.0, 0.0
    return p, q


def _igamma_ref(which: int):
    def ref(a, x):
        return _as_operands_float(_igamma_pair(a, x)[which], a, x)
    ref.__name__ = ("igamma", "igammac")[which]
    return ref


def _igamma_dx(a, x, dout):
    """d P(a, x) / dx = x^(a-1) e^-x / Γ(a), times dout."""
    density = F.igamma_density(a, x)
    return F.mul(dout, density)


def bprop_igamma(a, x, out, dout):
    return _grad_for(F.mul(dout, F.igamma_grad_a(a, x)), a), _grad_for(_igamma_dx(a, x, dout), x)


def bprop_igammac(a, x, out, dout):
    return (_grad_for(F.neg(F.mul(dout, F.igamma_grad_a(a, x))), a),
            _grad_for(F.neg(_igamma_dx(a, x, dout)), x))


igamma = defop("igamma", ("a", "x"), kind=OPAQUE, ms_name="Igamma",
               infer=broadcast_float_only, ref=_igamma_ref(0), bprop=bprop_igamma)
igammac = defop("igammac", ("a", "x"), kind=OPAQUE, ms_name="Igammac",
                infer=broadcast_float_only, ref=_igamma_ref(1), bprop=bprop_igammac)


def _density_ref(a, x):
    a64, x64 = np.asarray(a, np.float64), np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = np.exp((a64 - 1.0) * np.log(x64) - x64 - np.asarray(_lgamma(a64), np.float64))
    return _as_operands_float(out, a, x)


def _as_operands_float(out, a, x):
    """``out`` in the operands' float dtype (a Python float for two Python numbers)."""
    arrays = [v for v in (a, x) if isinstance(v, np.ndarray)]
    if not arrays:
        return float(out)
    return np.asarray(out, np.result_type(*(v.dtype for v in arrays)))


def _grad_a_ref(a, x):
    """d P(a, x) / da by a central difference of the float64 series (step relative to a): the
    closed forms need the Meijer G-function; this is accurate to ~1e-8, ample for float32."""
    a64, x64 = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    h = 1e-5 * np.maximum(np.abs(a64), 1e-3)
    hi, _ = _igamma_pair(a64 + h, x64)
    lo, _ = _igamma_pair(a64 - h, x64)
    return _as_operands_float((hi - lo) / (2 * h), a, x)


# Helpers of the two rules above (their own derivatives are not needed by any test of
# MindSpore's; they are NONDIFF, so a second derivative of igamma is refused, not wrong).
igamma_density = defop("igamma_density", ("a", "x"), kind=OPAQUE, infer=broadcast_float_only,
                       ref=_density_ref, bprop=NONDIFF,
                       doc="x^(a-1) e^-x / Γ(a): the derivative of igamma(a, x) in x.")
igamma_grad_a = defop("igamma_grad_a", ("a", "x"), kind=OPAQUE, infer=broadcast_float_only,
                      ref=_grad_a_ref, bprop=NONDIFF,
                      doc="The derivative of igamma(a, x) in a (MindSpore's IgammaGradA).")

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift",
           "atan2", "gcd", "lcm", "nextafter", "igamma", "igammac", "igamma_density",
           "igamma_grad_a"]

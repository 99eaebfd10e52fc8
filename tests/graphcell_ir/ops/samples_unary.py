"""Sample rows of the unary math primitives of ``graphcell_ir/ops/unary_math.py`` (merged into
``samples.SAMPLES``; see that module for what a row says).

Domains keep the finite-difference checks away from poles and branch points (asin near ±1,
lgamma near 0, -1, ...). Rows with ``specials=False`` evaluate ``1/x`` or ``x ** -s`` at x = 0,
which raises in the Python evaluation of the template (compiled kernels give ±inf); the
backend's own special-value test still covers them, and their listed points pin the branches.
"""
from __future__ import annotations

import math

from graphcell_ir.errors import OpTypeError
from samples import FLOATS, Bad, Sample, T, unary

_NOT_FLOAT = (Bad((T("i32[2]"),), error=OpTypeError), Bad((T("bool[3]"),), error=OpTypeError))


def _polygamma(g, dt):
    x = g.array(g.shape(), dt, 0.3, 4.0)
    n = g.pick([0, 1, 2, 3])
    return (g.array((), g.pick(["int32", "int64"]), n, n) if g.flag() else n, x), {}


_PSI_POINTS = {"float64": ((0.5,), (1.0,), (1.4616321449683622,), (-0.5,), (-2.25,), (7.0,),
                           (40.0,), (1e-8,), (-1e-8,), (math.inf,), (math.nan,))}

ROWS: dict[str, Sample] = {
    "tan": unary(-1.2, 1.2, dtypes=FLOATS + ("int32",)),
    "asin": unary(-0.9, 0.9), "acos": unary(-0.9, 0.9), "atan": unary(),
    "sinh": unary(), "cosh": unary(),
    "asinh": unary(-5.0, 5.0), "acosh": unary(1.1, 5.0), "atanh": unary(-0.9, 0.9),
    "expm1": unary(), "log1p": unary(-0.9, 3.0), "erfc": unary(dtypes=FLOATS),
    "ceil": unary(dtypes=FLOATS, bad=_NOT_FLOAT), "trunc": unary(dtypes=FLOATS, bad=_NOT_FLOAT),
    "rint": unary(dtypes=FLOATS, bad=_NOT_FLOAT),
    "isinf": unary(dtypes=FLOATS, bad=_NOT_FLOAT), "isfinite": unary(dtypes=FLOATS, bad=_NOT_FLOAT),
    "lgamma": unary(0.2, 6.0, dtypes=FLOATS + ("int32",), rtol=1e-4),
    "digamma": unary(0.3, 6.0, dtypes=FLOATS, specials=False, points=_PSI_POINTS, rtol=1e-4),
    "polygamma": Sample(_polygamma, FLOATS, specials=False, rtol=1e-4,
                        bad=(Bad((T("f32"), T("f32[2]")), error=OpTypeError),
                             Bad((T("i32[2]"), T("f32[3]"))))),
    "erfinv": unary(-0.95, 0.95, dtypes=FLOATS, rtol=1e-4),
    "bessel_i0e": unary(-12.0, 12.0, dtypes=FLOATS), "bessel_i1e": unary(-12.0, 12.0, dtypes=FLOATS),
}

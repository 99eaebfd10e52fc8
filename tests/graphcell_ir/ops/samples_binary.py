"""Sample rows of the math_binary family's registry ops (``graphcell_ir/ops/binary_math.py``)."""
from __future__ import annotations

from graphcell_ir.errors import OpTypeError
from samples import FLOATS, INTS, Bad, T, binary, unary

_BITWISE_BAD = (Bad((T("i32[2,3]"), T("i32[4]"))),
                Bad((T("f32[2]"), T("i32[2]")), error=OpTypeError))
_INT_BAD = (Bad((T("i32[2,3]"), T("i32[4]"))),
            Bad((T("bool[2]"), T("i32[2]")), error=OpTypeError))
_FLOAT_BAD = (Bad((T("f32[2,3]"), T("f32[4]"))),
              Bad((T("i32[2]"), T("f32[2]")), error=OpTypeError))
_GRAD2_NONE = {"grad2": "the rules' helpers (igamma_density, igamma_grad_a) are NONDIFF: a "
                        "second derivative of igamma is not provided"}

ROWS = {
    **{name: binary(dtypes=("bool",) + INTS, bad=_BITWISE_BAD)
       for name in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    "invert": unary(-9, 9, dtypes=INTS, specials=False,
                    bad=(Bad((T("f32[2]"),), error=OpTypeError), Bad((T("bool[2]"),), error=OpTypeError))),
    "left_shift": binary(x=(-8, 8), y=(0, 3), dtypes=INTS, bad=_INT_BAD),
    "right_shift": binary(x=(-8, 8), y=(0, 3), dtypes=INTS, bad=_INT_BAD),
    "atan2": binary(dtypes=FLOATS, bad=_FLOAT_BAD, specials=True),
    "gcd": binary(x=(-9, 9), y=(-9, 9), dtypes=INTS, bad=_INT_BAD),
    "lcm": binary(x=(-9, 9), y=(-9, 9), dtypes=INTS, bad=_INT_BAD),
    "nextafter": binary(dtypes=FLOATS, bad=_FLOAT_BAD),
    "igamma": binary(x=(0.5, 3.0), y=(0.1, 4.0), dtypes=FLOATS, bad=_FLOAT_BAD, xfail=_GRAD2_NONE),
    "igammac": binary(x=(0.5, 3.0), y=(0.1, 4.0), dtypes=FLOATS, bad=_FLOAT_BAD, xfail=_GRAD2_NONE),
    "igamma_density": binary(x=(0.5, 3.0), y=(0.1, 4.0), dtypes=FLOATS, bad=_FLOAT_BAD),
    "igamma_grad_a": binary(x=(0.5, 3.0), y=(0.1, 4.0), dtypes=FLOATS, bad=_FLOAT_BAD),
}


"""Sample rows of the nn family's registry primitives (activations, normalization, pooling and
the other ops added for MindSpore's nn functions); merged into ``samples.SAMPLES``."""
from __future__ import annotations

from graphcell_ir.errors import OpTypeError
from samples import FLOATS, Bad, Sample, T, unary

_INT_REFUSED = (Bad((T("i32[3]"),), error=OpTypeError), Bad((T("f32"),), error=OpTypeError))


def _elu(g, dt):
    return (g.array(g.shape(), dt, -4, 4),), {"alpha": g.pick([1.0, 0.5, 2.0])}


ROWS: dict[str, Sample] = {
    "softplus": unary(-30, 30, dtypes=FLOATS, bad=_INT_REFUSED),
    "elu": Sample(_elu, FLOATS, bad=_INT_REFUSED, specials=True),
}

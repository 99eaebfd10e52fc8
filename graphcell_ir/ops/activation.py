"""Elementwise activation primitives whose numerics need a function of their own.

Most of MindSpore's activations are composites in ``graphcell.ops.function.nn_func`` (``gelu``,
``hardswish``, ``mish``...). The two here are primitives because a composite of the registry's
``exp``/``log`` loses precision where these functions are small: ``softplus`` needs ``log1p`` of a
tiny ``exp(-|x|)`` (``log(1 + 2e-9)`` is 0 in float32) and ``elu`` needs ``expm1`` near zero
(``exp(-1e-4) - 1`` keeps 3 digits in float32). ``celu`` and ``selu`` are scaled ``elu``.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import AttrKind, Kind, attr, defop
from graphcell_ir.ops.shape_rules import require_float, require_tensor

EW = Kind.ELEMENTWISE


def float_input(x, **attrs):
    """Activations MindSpore defines on float tensors only: same type; integers are refused."""
    x = require_tensor(x, "input")
    require_float(x, "input")
    return x


def _softplus_ref(x):
    x = np.asarray(x)
    out = np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))
    return np.asarray(out, x.dtype)


softplus = defop("softplus", ("x",), kind=EW, ms_name="Softplus", infer=float_input,
                 ref=_softplus_ref,
                 kernel="max({x}, 0.0) + math.log1p(math.exp(-abs({x})))",
                 bprop=lambda x, out, dout: (F.mul(dout, F.sigmoid(x)),),
                 doc="log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)): no overflow for "
                     "large x, full precision for very negative x.")


def _elu_ref(x, *, alpha):
    x = np.asarray(x)
    neg = np.asarray(alpha, x.dtype) * np.expm1(np.minimum(x, 0))
    return np.asarray(np.where(x > 0, x, neg), x.dtype)


def bprop_elu(x, out, dout, *, alpha):
    # for x <= 0, d/dx alpha * (exp(x) - 1) = alpha * exp(x) = out + alpha
    return (F.select(F.greater(x, 0), dout, F.mul(dout, F.add(out, alpha))),)


elu = defop("elu", ("x",), kind=EW, ms_name="Elu",
            attrs=[attr("alpha", AttrKind.FLOAT, 1.0)], prim_init=("alpha",),
            infer=float_input, ref=_elu_ref,
            kernel="{x} if {x} > 0 else {alpha} * math.expm1({x})",
            bprop=bprop_elu,
            doc="x for x > 0, alpha * expm1(x) otherwise (any alpha; MindSpore's Elu Primitive "
                "accepts only 1.0).")

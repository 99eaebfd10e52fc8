"""Neural-network primitives: softmax family, cross-entropy, one_hot, argmax/argmin, bias_add,
pad, batch_norm and dropout.

Convolution and pooling live in ``conv.py``. Attribute names and defaults are those of the
MindSpore Primitives (``ops.Softmax(axis)``, ``ops.BatchNorm(is_training, epsilon, momentum)``,
``ops.Dropout(keep_prob, Seed0, Seed1)``...), so graphcell derives those Primitive classes from
these entries; where graphcell's op differs from the Primitive, the entry's ``doc`` says so.
Semantics were checked against MindSpore 2.10 (CPU).
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType, bool_, float32, int32, int64
from graphcell_ir.ops import functional as F
from graphcell_ir.ops import random
from graphcell_ir.ops.cost import per_input_element, per_output_element
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, Trait, attr, defop
from graphcell_ir.ops.shape_rules import normalize_axes, require_float, require_tensor

OPAQUE = Kind.OPAQUE


def _fmt(shape) -> str:
    return f"[{','.join(map(str, shape))}]"


def _float_tensor(t, what: str = "x") -> TensorType:
    t = require_tensor(t, what)
    require_float(t, what)
    return t


def _axis_in(axis: int, ndim: int) -> int:
    """``axis`` in [0, ndim); ShapeError when out of range."""
    if not -ndim <= axis < max(ndim, 1):
        raise ShapeError(f"axis {axis} is out of range for a tensor of rank {ndim}")
    return axis % ndim if ndim else 0


# --- softmax family ---------------------------------------------------------------------------

def _softmax_infer(x, *, axis):
    x = _float_tensor(x)
    normalize_axes(axis, x.ndim)
    return x


def _softmax_ref(x, *, axis):
    ax = normalize_axes(axis, x.ndim)
    e = np.exp(x - np.max(x, axis=ax, keepdims=True))  # shifted: no overflow, exact ratios
    return (e / np.sum(e, axis=ax, keepdims=True)).astype(x.dtype, copy=False)


def bprop_softmax(x, out, dout, *, axis):
    # J^T dout = s * (dout - <dout, s>)
    inner = F.reduce_sum(F.mul(dout, out), axis=axis, keep_dims=True)
    return (F.mul(out, F.sub(dout, inner)),)


softmax = defop("softmax", ("x",), kind=OPAQUE, cost=per_output_element(5), ms_name="Softmax",
                attrs=[attr("axis", AttrKind.OPT_INTS, (-1,))], prim_init=("axis",),
                infer=_softmax_infer, ref=_softmax_ref, bprop=bprop_softmax)


def _log_softmax_infer(x, *, axis):
    x = _float_tensor(x)
    _axis_in(axis, x.ndim)
    return x


def _log_softmax_np(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def bprop_log_softmax(x, out, dout, *, axis):
    total = F.reduce_sum(dout, axis=(axis,), keep_dims=True)
    return (F.sub(dout, F.mul(F.exp(out), total)),)


log_softmax = defop("log_softmax", ("x",), kind=OPAQUE, ms_name="LogSoftmax",
                    cost=per_output_element(5),
                    attrs=[attr("axis", AttrKind.INT, -1)], prim_init=("axis",),
                    infer=_log_softmax_infer,
                    ref=lambda x, *, axis: _log_softmax_np(x, axis).astype(x.dtype, copy=False),
                    bprop=bprop_log_softmax)


# --- cross-entropy ----------------------------------------------------------------------------

def _logits(t) -> TensorType:
    t = _float_tensor(t, "logits")
    if t.ndim < 1:
        raise ShapeError(f"logits must have a class axis (rank >= 1), got {t}")
    return t


def _sce_infer(logits, labels):
    logits = _logits(logits)
    labels = require_tensor(labels, "labels")
    if labels.dtype is not logits.dtype:
        raise OpTypeError(f"labels must have the logits' dtype {logits.dtype} (dense "
                          f"probabilities; use the sparse op for class indices), got {labels}")
    if labels.shape != logits.shape:
        raise ShapeError(f"labels {labels} must have the shape of logits {logits}")
    return TensorType(logits.dtype, logits.shape[:-1]), logits


def _sce_ref(logits, labels):
    ls = _log_softmax_np(logits, -1)
    loss = -np.sum(labels * ls, axis=-1)
    return loss.astype(logits.dtype), (np.exp(ls) - labels).astype(logits.dtype)


def bprop_softmax_cross_entropy(logits, labels, out, dout):
    dloss, dback = dout
    s = F.softmax(logits, axis=-1)
    dlogits = dlabels = None
    if dloss is not None:  # loss = -sum(labels * log_softmax(logits))
        d = F.expand_dims(dloss, axis=-1)
        total = F.reduce_sum(labels, axis=(-1,), keep_dims=True)
        dlogits = F.mul(d, F.sub(F.mul(s, total), labels))
        dlabels = F.neg(F.mul(d, F.log_softmax(logits, axis=-1)))
    if dback is not None:  # backprop = softmax(logits) - labels
        (ds,) = bprop_softmax(logits, s, dback, axis=(-1,))
        dlogits = ds if dlogits is None else F.add(dlogits, ds)
        dlabels = F.neg(dback) if dlabels is None else F.sub(dlabels, dback)
    return dlogits, dlabels


softmax_cross_entropy = defop(
    "softmax_cross_entropy", ("logits", "labels"), kind=OPAQUE, ms_name="SoftmaxCrossEntropyWithLogits",
    cost=per_input_element(6),
    infer=_sce_infer, ref=_sce_ref, bprop=bprop_softmax_cross_entropy,
    doc="Cross-entropy of softmax(logits) against dense labels over the last axis. Results, as "
        "MindSpore's: the per-example loss (logits.shape[:-1]) and softmax(logits) - labels.")


def _sparse_sce_infer(logits, labels):
    logits = _logits(logits)
    labels = require_tensor(labels, "labels")
    if labels.dtype not in (int32, int64):
        raise OpTypeError(f"labels must be class indices of dtype Int32 or Int64, got {labels}")
    if labels.shape != logits.shape[:-1]:
        raise ShapeError(f"labels {labels} must have the shape of logits {logits} without its "
                         f"class axis, {_fmt(logits.shape[:-1])}")
    return TensorType(logits.dtype, logits.shape[:-1])


def _sparse_sce_ref(logits, labels):
    n = logits.shape[-1]
    if labels.size and (labels.min() < 0 or labels.max() >= n):
        bad = labels[(labels < 0) | (labels >= n)].flat[0]
        raise ShapeError(f"SparseSoftmaxCrossEntropyWithLogits: label {bad} is out of range for "
                         f"{n} classes")
    ls = _log_softmax_np(logits, -1)
    picked = np.take_along_axis(ls, labels[..., None].astype(np.intp), axis=-1)[..., 0]
    return (-picked).astype(logits.dtype)


def bprop_sparse_softmax_cross_entropy(logits, labels, out, dout):
    onehot = F.one_hot(labels, depth=logits.shape[-1], dtype=logits.dtype)
    diff = F.sub(F.softmax(logits, axis=-1), onehot)
    return F.mul(F.expand_dims(dout, axis=-1), diff), None


sparse_softmax_cross_entropy = defop(
    "sparse_softmax_cross_entropy", ("logits", "labels"), kind=OPAQUE, cost=per_input_element(6),
    ms_name="SparseSoftmaxCrossEntropyWithLogits",
    infer=_sparse_sce_infer, ref=_sparse_sce_ref, bprop=bprop_sparse_softmax_cross_entropy,
    doc="Per-example cross-entropy of softmax(logits) against integer class labels. Unlike "
        "MindSpore's Primitive (which returns the batch mean) it returns one loss per example; "
        "out-of-range labels are an error (MindSpore's sparse nn loss silently gives 0).")


# --- one_hot, argmax/argmin -------------------------------------------------------------------

def _one_hot_infer(indices, *, depth, on_value, off_value, axis, dtype):
    indices = require_tensor(indices, "indices")
    if not indices.dtype.is_int:
        raise OpTypeError(f"indices must be an integer tensor, got {indices}")
    if depth < 0:
        raise ShapeError(f"depth must be non-negative, got {depth}")
    a = _axis_in(axis, indices.ndim + 1)
    return TensorType(dtype, indices.shape[:a] + (depth,) + indices.shape[a:])


def _one_hot_ref(indices, *, depth, on_value, off_value, axis, dtype):
    hot = indices[..., None] == np.arange(depth)  # out-of-range indices give an all-off row
    out = np.where(hot, np.asarray(on_value, dtype.np_dtype), np.asarray(off_value, dtype.np_dtype))
    return np.moveaxis(out, -1, _axis_in(axis, indices.ndim + 1))


one_hot = defop("one_hot", ("indices",), kind=OPAQUE, cost=per_output_element(1), ms_name="OneHot",
                attrs=[attr("depth", AttrKind.INT), attr("on_value", AttrKind.SCALAR, 1.0),
                       attr("off_value", AttrKind.SCALAR, 0.0), attr("axis", AttrKind.INT, -1),
                       attr("dtype", AttrKind.DTYPE, float32)],
                prim_init=("axis",), infer=_one_hot_infer, ref=_one_hot_ref, bprop=NONDIFF,
                doc="on_value/off_value are static scalars and dtype the result's dtype (MindSpore "
                    "takes 0-d tensors and uses on_value's dtype).")


def _arg_infer(x, *, axis, output_type):
    x = require_tensor(x)
    if x.dtype.is_bool:
        raise OpTypeError(f"x must be numeric, got {x}")
    if output_type not in (int32, int64):
        raise OpTypeError(f"output_type must be Int32 or Int64, got {output_type}")
    if x.ndim == 0:
        raise ShapeError(f"x must have rank >= 1, got {x}")
    a = _axis_in(axis, x.ndim)
    return TensorType(output_type, x.shape[:a] + x.shape[a + 1:])


def _arg_ref(np_fn):
    def ref(x, *, axis, output_type):
        return np.asarray(np_fn(x, axis=axis), dtype=output_type.np_dtype)  # first of ties
    ref.__name__ = np_fn.__name__
    return ref


_ARG_ATTRS = [attr("axis", AttrKind.INT, -1), attr("output_type", AttrKind.DTYPE, int32)]
argmax = defop("argmax", ("x",), kind=OPAQUE, ms_name="Argmax", attrs=_ARG_ATTRS,
               cost=per_input_element(1),
               prim_init=("axis", "output_type"), infer=_arg_infer, ref=_arg_ref(np.argmax),
               bprop=NONDIFF)
argmin = defop("argmin", ("x",), kind=OPAQUE, ms_name="Argmin", attrs=_ARG_ATTRS,
               cost=per_input_element(1),
               prim_init=("axis", "output_type"), infer=_arg_infer, ref=_arg_ref(np.argmin),
               bprop=NONDIFF)


# --- bias_add, pad ----------------------------------------------------------------------------

def channel_axis(ndim: int, data_format: str) -> int:
    """The axis ``bias_add`` adds along: the last for NHWC, else 1."""
    if data_format not in ("NCHW", "NHWC", "NCDHW"):
        raise OpTypeError(f"data_format must be 'NCHW', 'NHWC' or 'NCDHW', got {data_format!r}")
    return ndim - 1 if data_format == "NHWC" else 1


def _bias_add_infer(x, bias, *, data_format):
    x, bias = require_tensor(x, "x"), require_tensor(bias, "bias")
    if x.dtype is not bias.dtype or x.dtype.is_bool:
        raise OpTypeError(f"x and bias must have the same numeric dtype, got {x} and {bias}")
    if x.ndim < 2 or bias.ndim != 1:
        raise ShapeError(f"x must have rank >= 2 and bias rank 1, got {x} and {bias}")
    c = channel_axis(x.ndim, data_format)
    if bias.shape[0] != x.shape[c]:
        raise ShapeError(f"bias {bias} must have one value per channel of x {x} "
                         f"({x.shape[c]} on axis {c})")
    return x


def _bias_add_ref(x, bias, *, data_format):
    c = channel_axis(x.ndim, data_format)
    return x + bias.reshape((-1,) + (1,) * (x.ndim - 1 - c))


def bprop_bias_add(x, bias, out, dout, *, data_format):
    c = channel_axis(len(x.shape), data_format)
    others = tuple(a for a in range(len(x.shape)) if a != c)
    return dout, F.reduce_sum(dout, axis=others, keep_dims=False)


bias_add = defop("bias_add", ("x", "bias"), kind=OPAQUE, ms_name="BiasAdd",
                 cost=per_output_element(1),
                 attrs=[attr("data_format", AttrKind.STR, "NCHW")], prim_init=("data_format",),
                 infer=_bias_add_infer, ref=_bias_add_ref, bprop=bprop_bias_add)


def _pairs(paddings, ndim: int):
    if len(paddings) != 2 * ndim:
        raise ShapeError(f"paddings must hold a (before, after) pair per axis, {2 * ndim} ints for "
                         f"rank {ndim}, got {len(paddings)}")
    return [(paddings[2 * i], paddings[2 * i + 1]) for i in range(ndim)]


def _pad_infer(x, *, paddings, value):
    x = require_tensor(x)
    shape = tuple(s + b + a for s, (b, a) in zip(x.shape, _pairs(paddings, x.ndim)))
    if any(s < 0 for s in shape):
        raise ShapeError(f"negative paddings {list(paddings)} crop more than x {x} holds")
    return TensorType(x.dtype, shape)


def _pad_ref(x, *, paddings, value):
    pairs = _pairs(paddings, x.ndim)
    if not pairs:
        return x.copy()
    crop = tuple(slice(max(-b, 0), s - max(-a, 0)) for s, (b, a) in zip(x.shape, pairs))
    grow = [(max(b, 0), max(a, 0)) for b, a in pairs]
    return np.pad(x[crop], grow, constant_values=np.asarray(value).astype(x.dtype))


pad = defop("pad", ("x",), kind=Kind.LAYOUT, ms_name="Pad",
            attrs=[attr("paddings", AttrKind.INTS), attr("value", AttrKind.SCALAR, 0)],
            infer=_pad_infer, ref=_pad_ref,
            # padding by p and cropping by p are adjoint: the gradient pads by -p
            bprop=lambda x, out, dout, paddings, value: (
                F.pad(dout, paddings=tuple(-p for p in paddings), value=0),),
            doc="Constant padding; paddings is flat (before0, after0, before1, after1, ...) where "
                "MindSpore's Pad takes ((before0, after0), ...). Negative sizes crop.")


# --- batch_norm -------------------------------------------------------------------------------

def _bn_infer(x, gamma, beta, mean, var, *, is_training, epsilon, momentum, data_format):
    x = _float_tensor(x)
    if data_format != "NCHW":
        raise OpTypeError(f"only data_format 'NCHW' (channels on axis 1) is supported, got "
                          f"{data_format!r}")
    if x.ndim < 2:
        raise ShapeError(f"x must have rank >= 2 (N, C, ...), got {x}")
    c = x.shape[1]
    params = (("scale", gamma), ("bias", beta), ("mean", mean), ("variance", var))
    for name, p in params:
        p = _float_tensor(p, name)
        if p.shape != (c,):
            raise ShapeError(f"{name} {p} must have one value per channel of x {x}, shape [{c}]")
    if len({p.dtype for _, p in params}) > 1:
        raise OpTypeError("scale, bias, mean and variance must share one dtype, got "
                          + ", ".join(str(p) for _, p in params))
    if is_training and x.size // c < 2:
        raise ShapeError(f"training needs more than one value per channel, got x {x}")
    return x, mean, var


def _bn_axes(x_ndim: int) -> tuple[int, ...]:
    return (0,) + tuple(range(2, x_ndim))


def _bn_ref(x, gamma, beta, mean, var, *, is_training, epsilon, momentum, data_format):
    axes, bshape = _bn_axes(x.ndim), (1, -1) + (1,) * (x.ndim - 2)
    if is_training:
        m = x.size // x.shape[1]
        bm = np.mean(x, axis=axes, dtype=np.float64)
        bv = np.mean(np.square(x - bm.reshape(bshape)), axis=axes)
        new_mean = (1 - momentum) * mean + momentum * bm
        new_var = (1 - momentum) * var + momentum * bv * (m / (m - 1))  # unbiased, as MindSpore
        use_m, use_v = bm, bv
    else:
        new_mean, new_var, use_m, use_v = mean, var, mean, var
    scale = (gamma / np.sqrt(use_v + epsilon)).reshape(bshape)
    y = (x - use_m.reshape(bshape)) * scale + beta.reshape(bshape)
    return (y.astype(x.dtype), np.asarray(new_mean, mean.dtype), np.asarray(new_var, var.dtype))


def _per_channel(v, ndim: int):
    return F.reshape(v, (1, -1) + (1,) * (ndim - 2))


def bprop_batch_norm(x, gamma, beta, mean, var, out, dout, *, is_training, epsilon, momentum,
                     data_format):
    dy, dmean, dvar = dout
    nd, axes = len(x.shape), _bn_axes(len(x.shape))
    if dy is None:
        dy = F.zeros_like(x)
    if is_training:
        grads = _bn_training_grads(x, gamma, dy, dmean, dvar, nd, axes, epsilon, momentum)
        return _cast_grads(grads, (x, gamma, beta, mean, var))
    xc = F.sub(x, _per_channel(mean, nd))
    rstd = _per_channel(F.div(1, F.sqrt(F.add(var, epsilon))), nd)
    xhat = F.mul(xc, rstd)
    dbeta = F.reduce_sum(dy, axis=axes)
    dgamma = F.reduce_sum(F.mul(dy, xhat), axis=axes)
    dx = F.mul(dy, F.mul(_per_channel(gamma, nd), rstd))
    dmm = F.neg(F.mul(dbeta, F.mul(gamma, F.reshape(rstd, (-1,)))))
    # d/dvar of (x - mean) * (var + eps)^-1/2 = -1/2 * xhat * rstd^2
    dmv = F.mul(F.reduce_sum(F.mul(dy, F.mul(xhat, F.mul(rstd, rstd))), axis=axes),
                F.mul(gamma, -0.5))
    dmm = dmm if dmean is None else F.add(dmm, dmean)
    dmv = dmv if dvar is None else F.add(dmv, dvar)
    return _cast_grads((dx, dgamma, dbeta, dmm, dmv), (x, gamma, beta, mean, var))


def _bn_training_grads(x, gamma, dy, dmean, dvar, nd, axes, epsilon, momentum):
    """The training gradients (of x, gamma, beta, mean, var) with the batch statistics. With
    xc = x - mean(x) and rstd = 1 / sqrt(var(x) + eps), per channel: dbeta = sum(dy),
    dgamma = sum(dy * xc) * rstd, dx = gamma * rstd * (dy - dbeta / m - xc * rstd * dgamma / m).
    Written for one pass over the activations: the three sums (the variance, dbeta,
    sum(dy * xc)) reduce the same axes of one shape, so the fuser gives them one kernel; every
    per-channel factor is computed on (C,) values, so dx is one elementwise kernel (subtract,
    multiply, subtract, multiply per element) without the group size m in its source, and
    x_hat is never written out."""
    m = 1
    for a in axes:
        m *= x.shape[a]
    xc = F.sub(x, F.reduce_mean(x, axis=axes, keep_dims=True))
    rstd = F.div(1, F.sqrt(F.add(F.reduce_mean(F.mul(xc, xc), axis=axes), epsilon)))
    dbeta = F.reduce_sum(dy, axis=axes)
    dgamma = F.mul(F.reduce_sum(F.mul(dy, xc), axis=axes), rstd)
    shift, slope = F.div(dbeta, m), F.div(F.mul(rstd, dgamma), m)
    centred = F.sub(F.sub(dy, _per_channel(shift, nd)), F.mul(xc, _per_channel(slope, nd)))
    dx = F.mul(_per_channel(F.mul(gamma, rstd), nd), centred)
    if dmean is not None:
        dx = F.add(dx, F.mul(_per_channel(dmean, nd), momentum / m))
    if dvar is not None:
        dx = F.add(dx, F.mul(F.mul(_per_channel(dvar, nd), xc), 2 * momentum / (m - 1)))
    dmm = None if dmean is None else F.mul(dmean, 1 - momentum)
    dmv = None if dvar is None else F.mul(dvar, 1 - momentum)
    return dx, dgamma, dbeta, dmm, dmv


def _cast_grads(grads, like):
    """Each gradient in its input's dtype (x may be Float16 with Float32 parameters)."""
    return tuple(None if gr is None else F.cast_like(gr, v) for gr, v in zip(grads, like))


batch_norm = defop(
    "batch_norm", ("x", "scale", "bias", "mean", "variance"), kind=OPAQUE, ms_name="BatchNorm",
    cost=per_input_element(8),
    attrs=[attr("is_training", AttrKind.BOOL, False), attr("epsilon", AttrKind.FLOAT, 1e-5),
           attr("momentum", AttrKind.FLOAT, 0.1), attr("data_format", AttrKind.STR, "NCHW")],
    prim_init=("is_training", "epsilon", "momentum", "data_format"),
    infer=_bn_infer, ref=_bn_ref, bprop=bprop_batch_norm,
    doc="Batch normalisation over every axis but the channel axis 1. Results: y and the updated "
        "moving mean and variance. In training, y uses the batch statistics and "
        "moving = (1 - momentum) * moving + momentum * batch, with the unbiased batch variance "
        "(MindSpore's Primitive convention: nn.BatchNorm2d(momentum=m) passes 1 - m). In "
        "inference, y uses mean/variance and they come back unchanged. Unlike MindSpore's "
        "Primitive it writes nothing: the layer assigns the updated statistics.")


# --- dropout ----------------------------------------------------------------------------------

def _keep_prob(keep_prob: float, low_inclusive: bool) -> None:
    if not (0.0 <= keep_prob <= 1.0) or (keep_prob == 0.0 and not low_inclusive):
        interval = "[0, 1]" if low_inclusive else "(0, 1]"
        raise OpTypeError(f"keep_prob must be in {interval}, got {keep_prob}")


def _dropout_infer(x, *, keep_prob, seed0, seed1):
    x = _float_tensor(x)
    _keep_prob(keep_prob, low_inclusive=False)
    return x, x


def _dropout_ref(x, *, keep_prob, seed0, seed1):
    if keep_prob == 1.0:
        return x.copy(), np.ones_like(x)
    mask = (random.generator().random(x.shape) < keep_prob).astype(x.dtype)
    return (x * mask * np.asarray(1 / keep_prob, x.dtype)).astype(x.dtype, copy=False), mask


def bprop_dropout(x, out, dout, *, keep_prob, seed0, seed1):
    if dout[0] is None:
        return (None,)
    return (F.mul(F.mul(dout[0], out[1]), 1 / keep_prob),)


dropout = defop("dropout", ("x",), kind=OPAQUE, traits={Trait.RANDOM}, ms_name="Dropout",
                cost=per_output_element(2),
                attrs=[attr("keep_prob", AttrKind.FLOAT, 0.5), attr("seed0", AttrKind.INT, 0),
                       attr("seed1", AttrKind.INT, 0)],
                prim_init=("keep_prob", "seed0", "seed1"),
                infer=_dropout_infer, ref=_dropout_ref, bprop=bprop_dropout,
                doc="Zeroes each element with probability 1 - keep_prob and scales the rest by "
                    "1/keep_prob. Results: the output and the mask (x's dtype, 1 where kept). Draws "
                    "from graphcell_ir.ops.random (seeded by set_seed); seed0/seed1 are kept for "
                    "MindSpore compatibility and do not select another stream.")


def _dropout2d_infer(x, *, keep_prob):
    x = require_tensor(x)
    if x.ndim != 4:
        raise ShapeError(f"x must be a 4-D NCHW tensor, got {x}")
    if x.dtype.is_bool:
        raise OpTypeError(f"x must be numeric, got {x}")
    _keep_prob(keep_prob, low_inclusive=True)
    return x, TensorType(bool_, x.shape)


def _dropout2d_ref(x, *, keep_prob):
    if keep_prob == 1.0:
        return x.copy(), np.ones(x.shape, np.bool_)
    keep = random.generator().random(x.shape[:2]) < keep_prob  # one draw per (sample, channel)
    mask = np.broadcast_to(keep[:, :, None, None], x.shape)
    scale = 1 / keep_prob if keep_prob else 0.0
    out = np.where(mask, x * scale, 0)  # integers truncate, as in MindSpore
    return out.astype(x.dtype), np.array(mask)


def bprop_dropout2d(x, out, dout, *, keep_prob):
    if dout[0] is None or not x.dtype.is_float:
        return (None,)
    scale = 1 / keep_prob if keep_prob else 0.0
    return (F.mul(F.mul(dout[0], F.cast(out[1], dout[0].dtype)), scale),)


dropout2d = defop("dropout2d", ("x",), kind=OPAQUE, traits={Trait.RANDOM}, ms_name="Dropout2D",
                  cost=per_output_element(2),
                  attrs=[attr("keep_prob", AttrKind.FLOAT, 0.5)], prim_init=("keep_prob",),
                  infer=_dropout2d_infer, ref=_dropout2d_ref, bprop=bprop_dropout2d,
                  doc="Zeroes whole channels of an NCHW tensor with probability 1 - keep_prob and "
                      "scales the rest by 1/keep_prob. Results: the output and a Bool mask of x's "
                      "shape. Draws from graphcell_ir.ops.random (seeded by set_seed).")

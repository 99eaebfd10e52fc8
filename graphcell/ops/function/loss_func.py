"""MindSpore's loss functions (``mindspore.ops.function.nn_func``'s losses and the loss Primitives),
written against ``F``: each runs eagerly in PyNative, graph mode traces it into IR, and its
gradient comes from its parts.

``reduction`` is MindSpore's: ``'none'`` (the elementwise or per-sample loss), ``'mean'`` or
``'sum'``; the weighted losses (``nll_loss``, ``cross_entropy`` with class weights) divide by the
sum of the weights, as MindSpore does. Integer class labels select values through ``one_hot``, so
labels are never read while compiling and graph mode keeps static shapes.
"""
from __future__ import annotations

import math

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.primitive import primitive
from graphcell_ir.ops import functional as F

_EPS = 1e-12

__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "nll_loss",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "soft_margin_loss",
    "multilabel_soft_margin_loss", "margin_ranking_loss", "hinge_embedding_loss",
    "gaussian_nll_loss", "triplet_margin_loss", "cosine_embedding_loss", "multi_margin_loss",
    "multilabel_margin_loss",
    "BinaryCrossEntropy", "BCEWithLogitsLoss", "SigmoidCrossEntropyWithLogits", "KLDivLoss",
    "SmoothL1Loss", "NLLLoss", "MultiMarginLoss", "MultilabelMarginLoss", "L2Loss",
    "SoftMarginLoss", "TripletMarginLoss",
]


# --- probabilities and logits -----------------------------------------------------------------

def _bce(name: str, logits, labels, weight, reduction: str):
    U.float_tensor(name, logits, "logits")
    U.float_tensor(name, labels, "labels")
    U.same_shape(name, logits, labels, "logits", "labels")
    reduction = U.reduction_arg(name, reduction)
    # x is clipped to [1e-12, 1 - 1e-12] inside the logs, as MindSpore's kernel does, so x = 0
    # or 1 gives a finite loss (-log(1e-12) = 27.63)
    log_x = F.log(F.maximum(logits, _EPS))
    log_1mx = F.log(F.maximum(F.sub(1, logits), _EPS))
    loss = F.neg(F.add(F.mul(labels, log_x), F.mul(F.sub(1, labels), log_1mx)))
    if weight is not None:
        U.float_tensor(name, weight, "weight")
        loss = F.mul(loss, F.stop_gradient(weight))  # MindSpore: no gradient for the weights
    return U.reduce_loss(loss, reduction)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """``ops.binary_cross_entropy(logits, labels, weight=None, reduction='mean')``:
    ``-w * (y log x + (1 - y) log(1 - x))`` for probabilities ``x`` in [0, 1]."""
    return _bce("ops.binary_cross_entropy", logits, labels, weight, reduction)


def _log_sigmoid_pair(x):
    """``softplus(-x)`` = -log(sigmoid(x)); -log(1 - sigmoid(x)) is ``x + softplus(-x)``."""
    return F.softplus(F.neg(x))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,  # noqa: A002
                                     reduction="mean"):
    """``ops.binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
    reduction='mean')``: binary cross-entropy of ``sigmoid(input)``, computed from the logits
    (``pos_weight`` scales the positive term)."""
    name = "ops.binary_cross_entropy_with_logits"
    U.float_tensor(name, input)
    U.float_tensor(name, target, "target")
    reduction = U.reduction_arg(name, reduction)
    sp = _log_sigmoid_pair(input)
    neg_part = F.mul(F.sub(1, target), F.add(input, sp))
    pos = F.mul(target, sp)
    if pos_weight is not None:  # MindSpore: no gradient for either weight
        U.float_tensor(name, pos_weight, "pos_weight")
        pos = F.mul(pos, F.stop_gradient(pos_weight))
    loss = F.add(pos, neg_part)
    if weight is not None:
        U.float_tensor(name, weight, "weight")
        loss = F.mul(loss, F.stop_gradient(weight))
    return U.reduce_loss(loss, reduction)


def _sigmoid_ce(logits, label):
    """``ops.SigmoidCrossEntropyWithLogits()(logits, label)``: the elementwise loss."""
    name = "SigmoidCrossEntropyWithLogits"
    U.float_tensor(name, logits, "logits")
    U.float_tensor(name, label, "label")
    U.same_shape(name, logits, label, "logits", "label")
    # MindSpore's Primitive gives no gradient for the labels
    return binary_cross_entropy_with_logits(logits, F.stop_gradient(label), reduction="none")


def _bce_with_logits_prim(input, target, weight, pos_weight, reduction="mean"):  # noqa: A002
    """``ops.BCEWithLogitsLoss(reduction)(input, target, weight, pos_weight)``."""
    return binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def _bce_prim(logits, labels, weight=None, reduction="mean"):
    return _bce("BinaryCrossEntropy", logits, labels, weight, reduction)


def kl_div(logits, labels, reduction="mean"):
    """``ops.kl_div(logits, labels, reduction='mean')``: ``labels * (log(labels) - logits)``
    (0 where ``labels`` is 0), reduced by ``'mean'``, ``'sum'``, ``'batchmean'`` (the sum over
    the batch size) or ``'none'``."""
    name = "ops.kl_div"
    U.float_tensor(name, logits, "logits")
    U.float_tensor(name, labels, "labels")
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{name}: 'reduction' must be 'none', 'mean', 'sum' or 'batchmean', got "
                         f"{reduction!r}")
    labels = F.stop_gradient(labels)  # MindSpore: no gradient for the labels
    positive = F.greater(labels, 0)
    safe = F.select(positive, labels, F.ones_like(labels))  # log(1) = 0 where labels are 0
    loss = F.mul(labels, F.sub(F.log(safe), logits))
    if reduction == "batchmean":
        if logits.ndim == 0:
            raise ValueError(f"{name}: 'batchmean' needs a batch axis; logits is a scalar")
        return F.div(F.reduce_sum(loss, axis=None, keep_dims=False), logits.shape[0])
    return U.reduce_loss(loss, reduction)


# --- class labels -----------------------------------------------------------------------------

def _picked(x, target, classes: int):
    """``x`` at the class ``target`` names, along axis 1 (0 for labels outside [0, C))."""
    hot = F.one_hot(target, depth=classes, axis=1 if x.ndim > 1 else -1, dtype=x.dtype)
    return F.reduce_sum(F.mul(x, hot), axis=(1 if x.ndim > 1 else 0,), keep_dims=False), hot


def _class_weights(weight, target, hot, x):
    """Each sample's class weight (1 without ``weight``), 0 where the target is ignored."""
    if weight is None:
        return F.reduce_sum(hot, axis=(1 if x.ndim > 1 else 0,), keep_dims=False)
    shape = U.channel_shape(x.ndim) if x.ndim > 1 else (-1,)
    return F.reduce_sum(F.mul(hot, F.reshape(F.cast_like(weight, x), shape)),
                        axis=(1 if x.ndim > 1 else 0,), keep_dims=False)


def _nll(name: str, inputs, target, weight, ignore_index: int, reduction: str,
         label_smoothing: float = 0.0):
    """Negative log-likelihood of log-probabilities ``inputs`` (N, C, ...) at class ``target``;
    returns the reduced loss and the total weight."""
    reduction = U.reduction_arg(name, reduction)
    U.int_tensor(name, target, "target")
    classes = inputs.shape[1] if inputs.ndim > 1 else inputs.shape[0]
    expected = inputs.shape[:1] + inputs.shape[2:] if inputs.ndim > 1 else ()
    if tuple(target.shape) != tuple(expected):
        raise ValueError(f"{name}: 'target' must have shape {list(expected)} for input of shape "
                         f"{list(inputs.shape)}, got {list(target.shape)}")
    if weight is not None:
        U.float_tensor(name, weight, "weight")
        if tuple(weight.shape) != (classes,):
            raise ValueError(f"{name}: 'weight' must have shape [{classes}], got "
                             f"{list(weight.shape)}")
    kept = F.not_equal(target, ignore_index)
    safe_target = F.select(kept, target, F.zeros_like(target))
    picked, hot = _picked(inputs, safe_target, classes)
    w = _class_weights(weight, safe_target, hot, inputs)
    w = F.mul(w, F.cast(kept, dtype=inputs.dtype))
    loss = F.neg(F.mul(picked, w))
    if label_smoothing:
        axis = 1 if inputs.ndim > 1 else 0
        if weight is None:
            smooth = F.reduce_sum(inputs, axis=(axis,), keep_dims=False)
        else:
            wshape = U.channel_shape(inputs.ndim) if inputs.ndim > 1 else (-1,)
            smooth = F.reduce_sum(F.mul(inputs, F.reshape(F.cast_like(weight, inputs), wshape)),
                                  axis=(axis,), keep_dims=False)
        smooth = F.neg(F.mul(smooth, F.cast(kept, dtype=inputs.dtype)))
        loss = F.add(F.mul(loss, 1 - label_smoothing), F.mul(smooth, label_smoothing / classes))
    total = F.reduce_sum(w, axis=None, keep_dims=False)
    if reduction == "mean":
        return F.div(F.reduce_sum(loss, axis=None, keep_dims=False), total), total
    return U.reduce_loss(loss, reduction), total


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
    """``ops.nll_loss(inputs, target, weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)``: ``-weight[t] * inputs[n, t]`` for log-probabilities ``inputs``
    (N, C, d1, ...) and class indices ``target`` (N, d1, ...); ``'mean'`` divides by the summed
    weights of the targets that are not ``ignore_index``."""
    name = "ops.nll_loss"
    U.float_tensor(name, inputs, "inputs")
    U.number(name, label_smoothing, "label_smoothing")
    return _nll(name, inputs, target, weight, int(ignore_index), reduction,
                float(label_smoothing))[0]


def _nll_prim(logits, labels, weight, reduction="mean", ignore_index=-100):
    """``ops.NLLLoss(reduction, ignore_index)(logits, labels, weight)``: ``(loss, total_weight)``
    for 2-D ``logits``."""
    name = "NLLLoss"
    U.float_tensor(name, logits, "logits")
    if logits.ndim != 2:
        raise ValueError(f"{name}: 'logits' must be 2-D (N, C), got shape {list(logits.shape)}")
    U.float_tensor(name, weight, "weight")
    # the Primitive gives no gradient for the weights (ops.nll_loss does)
    loss, total = _nll(name, logits, labels, F.stop_gradient(weight), int(ignore_index), reduction)
    return loss, F.cast_like(total, weight)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002
                  label_smoothing=0.0):
    """``ops.cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)``: the cross-entropy of ``log_softmax(input)`` along axis 1 against class
    indices (an integer ``target``) or class probabilities (a float ``target`` of input's shape)."""
    name = "ops.cross_entropy"
    U.float_tensor(name, input)
    U.tensor(name, target, "target")
    U.number(name, label_smoothing, "label_smoothing")
    axis = 1 if input.ndim > 1 else 0
    logp = F.log_softmax(input, axis=axis)
    if target.dtype.is_int:
        return _nll(name, logp, target, weight, int(ignore_index), reduction,
                    float(label_smoothing))[0]
    reduction = U.reduction_arg(name, reduction)
    U.float_tensor(name, target, "target")
    U.same_shape(name, input, target, "input", "target")
    classes = input.shape[axis]
    if label_smoothing:
        target = F.add(F.mul(target, 1 - label_smoothing), label_smoothing / classes)
    terms = F.mul(logp, target)
    if weight is not None:
        U.float_tensor(name, weight, "weight")
        terms = F.mul(terms, F.reshape(weight, U.channel_shape(input.ndim, axis)))
    loss = F.neg(F.reduce_sum(terms, axis=(axis,), keep_dims=False))
    if reduction == "mean":
        n = 1
        for i, s in enumerate(input.shape):
            n *= 1 if i == axis else s
        return F.div(F.reduce_sum(loss, axis=None, keep_dims=False), max(n, 1))
    return U.reduce_loss(loss, reduction)


# --- regression ---------------------------------------------------------------------------------

def _diff(name: str, input, target):  # noqa: A002
    U.tensor(name, input)
    U.tensor(name, target, "target")
    return F.sub(input, target)


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    """``ops.mse_loss(input, target, reduction='mean')``: ``(input - target)**2`` (broadcast)."""
    name = "ops.mse_loss"
    reduction = U.reduction_arg(name, reduction)
    d = _diff(name, input, target)
    return U.reduce_loss(F.mul(d, d), reduction)


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    """``ops.l1_loss(input, target, reduction='mean')``: ``|input - target|`` (broadcast)."""
    name = "ops.l1_loss"
    reduction = U.reduction_arg(name, reduction)
    return U.reduce_loss(F.abs(_diff(name, input, target)), reduction)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):  # noqa: A002
    """``ops.smooth_l1_loss(input, target, beta=1.0, reduction='none')``: ``0.5 d**2 / beta``
    where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere, for ``d = input - target``."""
    name = "ops.smooth_l1_loss"
    U.float_tensor(name, input)
    U.float_tensor(name, target, "target")
    U.same_shape(name, input, target, "input", "target")
    U.number(name, beta, "beta")
    if beta <= 0:
        raise ValueError(f"{name}: 'beta' must be positive, got {beta}")
    reduction = U.reduction_arg(name, reduction)
    d = F.sub(input, target)
    a = F.abs(d)
    loss = F.select(F.less(a, float(beta)), F.div(F.mul(F.mul(d, d), 0.5), float(beta)),
                    F.sub(a, 0.5 * beta))
    return U.reduce_loss(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):  # noqa: A002
    """``ops.huber_loss(input, target, reduction='mean', delta=1.0)``: ``0.5 d**2`` where
    ``|d| < delta``, ``delta * (|d| - 0.5 delta)`` elsewhere."""
    name = "ops.huber_loss"
    U.float_tensor(name, input)
    U.float_tensor(name, target, "target")
    U.number(name, delta, "delta")
    if delta <= 0:
        raise ValueError(f"{name}: 'delta' must be positive, got {delta}")
    reduction = U.reduction_arg(name, reduction)
    d = F.sub(input, target)
    a = F.abs(d)
    loss = F.select(F.less(a, float(delta)), F.mul(F.mul(d, d), 0.5),
                    F.mul(F.sub(a, 0.5 * delta), float(delta)))
    return U.reduce_loss(loss, reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction="mean"):
    """``ops.gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction='mean')``:
    ``0.5 * (log(max(var, eps)) + (x - target)**2 / max(var, eps))`` (+ ``0.5 log(2 pi)`` when
    ``full``)."""
    name = "ops.gaussian_nll_loss"
    for what, t in (("x", x), ("target", target), ("var", var)):
        U.float_tensor(name, t, what)
    reduction = U.reduction_arg(name, reduction)
    v = F.maximum(var, float(eps))
    d = F.sub(x, target)
    loss = F.mul(F.add(F.log(v), F.div(F.mul(d, d), v)), 0.5)
    if full:
        loss = F.add(loss, 0.5 * math.log(2 * math.pi))
    return U.reduce_loss(loss, reduction)


def _l2_loss(input_x):
    """``ops.L2Loss()(input_x)``: ``sum(x**2) / 2``."""
    U.float_tensor("L2Loss", input_x, "input_x")
    return F.div(F.reduce_sum(F.mul(input_x, input_x), axis=None, keep_dims=False), 2)


# --- margins ------------------------------------------------------------------------------------

def soft_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """``ops.soft_margin_loss(input, target, reduction='mean')``: ``log(1 + exp(-target*input))``."""
    name = "ops.soft_margin_loss"
    U.float_tensor(name, input)
    U.float_tensor(name, target, "target")
    U.same_shape(name, input, target, "input", "target")
    reduction = U.reduction_arg(name, reduction)
    return U.reduce_loss(F.softplus(F.neg(F.mul(input, target))), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):  # noqa: A002
    """``ops.multilabel_soft_margin_loss(input, target, weight=None, reduction='mean')``: the
    binary cross-entropy of ``sigmoid(input)`` averaged over the classes (the last axis)."""
    name = "ops.multilabel_soft_margin_loss"
    U.float_tensor(name, input)
    U.tensor(name, target, "target")
    reduction = U.reduction_arg(name, reduction)
    y = U.as_float(target, input.dtype) if target.dtype != input.dtype else target
    terms = F.add(F.mul(y, F.neg(F.softplus(F.neg(input)))),
                  F.mul(F.sub(1, y), F.neg(F.softplus(input))))
    if weight is not None:
        U.float_tensor(name, weight, "weight")
        terms = F.mul(terms, weight)
    loss = F.neg(F.reduce_mean(terms, axis=(-1,), keep_dims=False))
    return U.reduce_loss(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``ops.margin_ranking_loss(input1, input2, target, margin=0.0, reduction='mean')``:
    ``max(0, -target * (input1 - input2) + margin)``."""
    name = "ops.margin_ranking_loss"
    for what, t in (("input1", input1), ("input2", input2), ("target", target)):
        U.float_tensor(name, t, what)
    U.number(name, margin, "margin")
    reduction = U.reduction_arg(name, reduction)
    loss = F.relu(F.add(F.neg(F.mul(target, F.sub(input1, input2))), float(margin)))
    return U.reduce_loss(loss, reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """``ops.hinge_embedding_loss(inputs, targets, margin=1.0, reduction='mean')``: ``inputs``
    where ``targets`` is 1, ``max(0, margin - inputs)`` where it is -1."""
    name = "ops.hinge_embedding_loss"
    U.float_tensor(name, inputs, "inputs")
    U.numeric_tensor(name, targets, "targets")
    U.number(name, margin, "margin")
    reduction = U.reduction_arg(name, reduction)
    pos = F.select(F.equal(targets, 1), inputs, F.zeros_like(inputs))
    neg = F.select(F.equal(targets, -1), F.relu(F.sub(float(margin), inputs)),
                   F.zeros_like(inputs))
    return U.reduce_loss(F.add(pos, neg), reduction)


def _pairwise_distance(x1, x2, p: float, eps: float):
    d = F.add(F.sub(x1, x2), eps)
    if p == 2:
        return F.sqrt(F.reduce_sum(F.mul(d, d), axis=(-1,), keep_dims=False))
    if p == 1:
        return F.reduce_sum(F.abs(d), axis=(-1,), keep_dims=False)
    return F.pow(F.reduce_sum(F.pow(F.abs(d), float(p)), axis=(-1,), keep_dims=False), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction="mean"):
    """``ops.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06,
    swap=False, reduction='mean')``: ``max(d(a, p) - d(a, n) + margin, 0)`` with the p-norm
    distance along the last axis (``swap``: ``d(a, n)`` replaced by ``min(d(a, n), d(p, n))``)."""
    name = "ops.triplet_margin_loss"
    U.number(name, margin, "margin")
    return _triplet(name, anchor, positive, negative, float(margin), p, eps, swap, reduction)


def _triplet(name, anchor, positive, negative, margin, p, eps, swap, reduction):
    for what, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        U.float_tensor(name, t, what)
    U.number(name, p, "p")
    reduction = U.reduction_arg(name, reduction)
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = F.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    return U.reduce_loss(F.relu(F.add(F.sub(d_pos, d_neg), margin)), reduction)


def _triplet_prim(x, positive, negative, margin, p=2, swap=False, eps=1e-06, reduction="mean"):
    """``ops.TripletMarginLoss(p, swap, eps, reduction)(x, positive, negative, margin)``: here
    ``margin`` is a 0-d tensor (a number is accepted too)."""
    if not isinstance(margin, (int, float)):
        U.float_tensor("TripletMarginLoss", margin, "margin")
        margin = F.cast_like(margin, x)
    return _triplet("TripletMarginLoss", x, positive, negative, margin, p, eps, swap, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``ops.cosine_embedding_loss(input1, input2, target, margin=0.0, reduction='mean')``:
    ``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1
    (cosine along axis 1)."""
    name = "ops.cosine_embedding_loss"
    U.float_tensor(name, input1, "input1")
    U.float_tensor(name, input2, "input2")
    U.numeric_tensor(name, target, "target")
    U.number(name, margin, "margin")
    reduction = U.reduction_arg(name, reduction)
    eps = 1e-12
    dot = F.reduce_sum(F.mul(input1, input2), axis=(1,), keep_dims=False)
    n1 = F.reduce_sum(F.mul(input1, input1), axis=(1,), keep_dims=False)
    n2 = F.reduce_sum(F.mul(input2, input2), axis=(1,), keep_dims=False)
    cos = F.div(dot, F.sqrt(F.add(F.mul(n1, n2), eps)))
    zeros = F.zeros_like(cos)
    loss = F.add(F.select(F.equal(target, 1), F.sub(1, cos), zeros),
                 F.select(F.equal(target, -1), F.relu(F.sub(cos, float(margin))), zeros))
    return U.reduce_loss(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):  # noqa: A002
    """``ops.multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction='mean')``:
    ``sum_{i != y} max(0, margin - x[y] + x[i])**p * weight[y] / C`` per sample."""
    name = "ops.multi_margin_loss"
    U.float_tensor(name, input)
    U.int_tensor(name, target, "target")
    U.int_arg(name, p, "p")
    if p not in (1, 2):
        raise ValueError(f"{name}: 'p' must be 1 or 2, got {p}")
    U.number(name, margin, "margin")
    reduction = U.reduction_arg(name, reduction)
    if input.ndim != 2 or tuple(target.shape) != input.shape[:1]:
        raise ValueError(f"{name}: 'input' must be (N, C) and 'target' (N,), got "
                         f"{list(input.shape)} and {list(target.shape)}")
    classes = input.shape[1]
    hot = F.one_hot(target, depth=classes, axis=-1, dtype=input.dtype)
    x_y = F.reduce_sum(F.mul(input, hot), axis=(1,), keep_dims=True)
    terms = F.relu(F.add(F.sub(float(margin), x_y), input))
    if p == 2:
        terms = F.mul(terms, terms)
    terms = F.mul(terms, F.sub(1, hot))          # the target class itself does not count
    if weight is not None:
        U.float_tensor(name, weight, "weight")
        w = F.stop_gradient(weight)  # MindSpore: no gradient for the weights
        w_y = F.reduce_sum(F.mul(hot, F.reshape(w, (1, -1))), axis=(1,), keep_dims=True)
        terms = F.mul(terms, w_y)
    loss = F.div(F.reduce_sum(terms, axis=(1,), keep_dims=False), classes)
    return U.reduce_loss(loss, reduction)


def _multi_margin_prim(inputs, target, weight=None, p=1, margin=1.0, reduction="mean"):
    return multi_margin_loss(inputs, target, p, margin, weight, reduction)


def _multilabel_margin(name: str, input, target, reduction):  # noqa: A002
    """The loss and ``is_target`` of the multilabel hinge loss: the targets of a row are its
    class indices up to the first -1."""
    U.float_tensor(name, input)
    U.int_tensor(name, target, "target")
    U.same_shape(name, input, target, "input", "target")
    reduction = U.reduction_arg(name, reduction)
    if input.ndim not in (1, 2):
        raise ValueError(f"{name}: 'input' must be 1-D or 2-D, got shape {list(input.shape)}")
    x = input if input.ndim == 2 else F.expand_dims(input, axis=0)
    t = target if target.ndim == 2 else F.expand_dims(target, axis=0)
    classes = x.shape[1]
    # valid[n, j]: no -1 among t[n, :j+1] (a prefix count through a triangular matmul)
    stops = F.cast(F.equal(t, -1), dtype=x.dtype)
    upper = U.constant([[1.0 if r <= c else 0.0 for c in range(classes)] for r in range(classes)],
                       x.dtype)
    valid = F.equal(F.matmul(stops, upper), 0)
    safe = F.select(valid, t, F.zeros_like(t))
    hot = F.mul(F.one_hot(safe, depth=classes, axis=-1, dtype=x.dtype),
                F.expand_dims(F.cast(valid, dtype=x.dtype), axis=-1))        # (N, J, C)
    is_target = F.minimum(F.reduce_sum(hot, axis=(1,), keep_dims=False), 1)   # (N, C)
    x_j = F.reduce_sum(F.mul(hot, F.expand_dims(x, axis=1)), axis=(2,), keep_dims=True)  # (N, J, 1)
    hinge = F.relu(F.add(F.sub(1, x_j), F.expand_dims(x, axis=1)))          # (N, J, C)
    hinge = F.mul(hinge, F.expand_dims(F.sub(1, is_target), axis=1))
    hinge = F.mul(hinge, F.expand_dims(F.cast(valid, dtype=x.dtype), axis=-1))
    loss = F.div(F.reduce_sum(hinge, axis=(1, 2), keep_dims=False), classes)
    if input.ndim == 1:
        loss = F.reshape(loss, ())
        is_target = F.reshape(is_target, (classes,))
    return U.reduce_loss(loss, reduction), F.cast(is_target, dtype=target.dtype)


def multilabel_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """``ops.multilabel_margin_loss(input, target, reduction='mean')``: for each row,
    ``sum_j sum_{i not a target} max(0, 1 - (x[y_j] - x[i])) / C`` over its target classes
    ``y_j`` (the indices before the first -1 of ``target``)."""
    return _multilabel_margin("ops.multilabel_margin_loss", input, target, reduction)[0]


def _multilabel_margin_prim(x, target, reduction="mean"):
    """``ops.MultilabelMarginLoss(reduction)(x, target)``: ``(loss, is_target)``."""
    return _multilabel_margin("MultilabelMarginLoss", x, target, reduction)


# --- Primitive classes ------------------------------------------------------------------------

BinaryCrossEntropy = primitive("BinaryCrossEntropy", _bce_prim, init=("reduction",))
BCEWithLogitsLoss = primitive("BCEWithLogitsLoss", _bce_with_logits_prim, init=("reduction",))
SigmoidCrossEntropyWithLogits = primitive("SigmoidCrossEntropyWithLogits", _sigmoid_ce)
KLDivLoss = primitive("KLDivLoss", kl_div, init=("reduction",))
SmoothL1Loss = primitive("SmoothL1Loss", smooth_l1_loss, init=("beta", "reduction"))
NLLLoss = primitive("NLLLoss", _nll_prim, init=("reduction", "ignore_index"))
MultiMarginLoss = primitive("MultiMarginLoss", _multi_margin_prim, init=("p", "margin", "reduction"))
MultilabelMarginLoss = primitive("MultilabelMarginLoss", _multilabel_margin_prim,
                                 init=("reduction",))
L2Loss = primitive("L2Loss", _l2_loss)
SoftMarginLoss = primitive("SoftMarginLoss", soft_margin_loss, init=("reduction",))
TripletMarginLoss = primitive("TripletMarginLoss", _triplet_prim,
                              init=("p", "swap", "eps", "reduction"))

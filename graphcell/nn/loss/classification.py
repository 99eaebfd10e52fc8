"""Classification losses (MindSpore 2.10's signatures): ``SoftmaxCrossEntropyWithLogits``,
``CrossEntropyLoss``, ``NLLLoss``, ``BCELoss``, ``BCEWithLogitsLoss``, ``KLDivLoss``,
``FocalLoss``, ``DiceLoss``, ``MultiClassDiceLoss``, ``SampledSoftmaxLoss`` and ``CTCLoss``.

Differences from MindSpore 2.10, on purpose: sparse labels of ``SoftmaxCrossEntropyWithLogits``
out of range are an error (MindSpore silently gives a zero loss); its logits may have any rank
>= 1 (MindSpore wants exactly 2-D); Float64 logits are accepted where MindSpore's CPU kernels
stop at Float32.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    >>> logits = ms.Tensor(np.zeros((2, 4), np.float32))
    >>> round(float(loss(logits, ms.Tensor(np.array([1, 3], np.int32)))), 4)   # ln 4
    1.3863
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.layers._validate import _is_int, check_bool, check_float, describe
from graphcell.nn.cell import Cell
from graphcell.nn.layers import get_activation
from graphcell.nn.loss.base import LossBase, check_tensor_input
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, float64, int32, int64

__all__ = ["SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "NLLLoss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss", "FocalLoss", "DiceLoss", "MultiClassDiceLoss",
           "SampledSoftmaxLoss", "CTCLoss"]

_FLOATS = (float16, float32, float64)


def _check_logits(owner: str, logits) -> None:
    if not isinstance(logits, Tensor) or not logits.dtype.is_float:
        raise TypeError(f"{owner}: logits must be a floating-point Tensor, got {describe(logits)}")


def _class_weight(owner: str, weight, name: str = "weight"):
    """An optional float Tensor of per-class weights (MindSpore: a Tensor, not a Parameter)."""
    if weight is None:
        return None
    if not isinstance(weight, Tensor) or isinstance(weight, Parameter):
        raise TypeError(f"{owner}: '{name}' must be a Tensor (not a Parameter) or None, got "
                        f"{describe(weight)}")
    if weight.dtype not in _FLOATS:
        raise TypeError(f"{owner}: '{name}' must be a float Tensor, got {describe(weight)}")
    return weight


def _check_int(value, name: str, owner: str) -> int:
    if not _is_int(value):
        raise TypeError(f"{owner}: '{name}' must be an int, got {type(value).__name__} {value!r}")
    return int(value)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """``SoftmaxCrossEntropyWithLogits(sparse=False, reduction='none')``: the cross-entropy of
    ``softmax(logits)`` over the last axis against the labels, one value per example, reduced.

    Dense labels (``sparse=False``) are probabilities of the logits' dtype and shape; sparse labels
    are Int32/Int64 class indices of the logits' shape without its last axis.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> loss = nn.SoftmaxCrossEntropyWithLogits()
        >>> loss(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[1.0, 0.0]])).asnumpy()
        array([0.6931472], dtype=float32)
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        self.sparse = check_bool(sparse, "sparse", self.cls_name)

    def construct(self, logits, labels):
        _check_class_labels(self, logits, labels)
        if self.sparse:
            x = ops.sparse_softmax_cross_entropy(logits, labels)
        else:  # no gradient for the labels, as MindSpore's
            x, _ = ops.softmax_cross_entropy(logits, ops.stop_gradient(labels))
        return self.get_loss(x)


def _check_class_labels(loss: SoftmaxCrossEntropyWithLogits, logits, labels) -> None:
    owner = f"{loss.cls_name}(sparse={loss.sparse})"
    _check_logits(owner, logits)
    if logits.ndim < 1:
        raise ValueError(f"{owner}: logits must have a class axis, got {describe(logits)}")
    if loss.sparse:
        want_shape, want_dtype = logits.shape[:-1], "Int32 or Int64 class indices"
        ok_dtype = isinstance(labels, Tensor) and labels.dtype in (int32, int64)
    else:
        want_shape, want_dtype = logits.shape, f"{logits.dtype} probabilities"
        ok_dtype = isinstance(labels, Tensor) and labels.dtype == logits.dtype
    expected = f"labels of {want_dtype} with shape {list(want_shape)}"
    if not ok_dtype:
        hint = " (pass sparse=True for class indices)" if not loss.sparse and isinstance(
            labels, Tensor) and labels.dtype.is_int else ""
        raise TypeError(f"{owner}: expected {expected} for logits {describe(logits)}, got "
                        f"{describe(labels)}{hint}")
    if tuple(labels.shape) != tuple(want_shape):
        raise ValueError(f"{owner}: expected {expected} for logits {describe(logits)}, got "
                         f"{describe(labels)}")


class CrossEntropyLoss(LossBase):
    """``CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)``: the cross-entropy of ``log_softmax(logits)`` along axis 1.

    ``labels`` are Int32 class indices of shape ``(N, d1, ...)`` for logits ``(N, C, d1, ...)``
    (or ``()`` for logits ``(C,)``), or class probabilities of the logits' shape and dtype.
    ``weight`` rescales each class; targets equal to ``ignore_index`` count for nothing (and not in
    the mean's denominator); ``label_smoothing`` mixes the target with the uniform distribution.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> logits = ms.Tensor(np.zeros((2, 4), np.float32))
        >>> labels = ms.Tensor(np.array([1, 3], np.int32))
        >>> round(float(nn.CrossEntropyLoss()(logits, labels)), 4)   # ln 4
        1.3863
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        owner = self.cls_name
        self.ignore_index = _check_int(ignore_index, "ignore_index", owner)
        if not isinstance(label_smoothing, float):
            raise TypeError(f"{owner}: 'label_smoothing' must be a float, got "
                            f"{type(label_smoothing).__name__} {label_smoothing!r}")
        self.label_smoothing = check_float(label_smoothing, "label_smoothing", owner, 0.0, 1.0)
        self.weight = _class_weight(owner, weight)

    def construct(self, logits, labels):
        _check_cross_entropy(self.cls_name, logits, labels)
        return ops.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                 self.label_smoothing)


def _check_cross_entropy(owner: str, logits, labels) -> None:
    """MindSpore's rules: probabilities of the logits' shape, or Int32 class indices."""
    check_tensor_input(owner, "logits", logits)
    check_tensor_input(owner, "labels", labels)
    _check_logits(owner, logits)
    shape, target = tuple(logits.shape), tuple(labels.shape)
    if labels.ndim == logits.ndim:
        if not labels.dtype.is_float:
            raise TypeError(f"{owner}: labels of the logits' rank are class probabilities and "
                            f"must be float, got {describe(labels)}")
        if target != shape:
            raise ValueError(f"{owner}: class probabilities must have the logits' shape "
                             f"{list(shape)}, got {describe(labels)}")
    elif labels.ndim == logits.ndim - 1:
        if labels.dtype != int32:
            raise TypeError(f"{owner}: class indices must be Int32 (as in MindSpore), got "
                            f"{describe(labels)}")
        want = shape[:1] + shape[2:] if logits.ndim > 1 else ()
        if target != want:
            raise ValueError(f"{owner}: class indices for logits of shape {list(shape)} (N, C, "
                             f"d1, ...) must have shape {list(want)}, got {describe(labels)}")
    else:
        raise ValueError(f"{owner}: labels must have the logits' rank (probabilities) or one less "
                         f"(class indices); logits are {describe(logits)}, labels "
                         f"{describe(labels)}")


class NLLLoss(LossBase):
    """``NLLLoss(weight=None, ignore_index=-100, reduction='mean')``: ``-weight[t] * logits[n,
    t]`` for log-probabilities ``logits`` (N, C, d1, ...) and class indices ``labels``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> logp = ms.Tensor(np.log(np.array([[0.5, 0.5], [0.25, 0.75]], np.float32)))
        >>> round(float(nn.NLLLoss()(logp, ms.Tensor(np.array([0, 1], np.int32)))), 4)
        0.4904
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.ignore_index = _check_int(ignore_index, "ignore_index", self.cls_name)
        self.weight = _class_weight(self.cls_name, weight)

    def construct(self, logits, labels):
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCELoss(LossBase):
    """``BCELoss(weight=None, reduction='mean')``: the binary cross-entropy of probabilities
    ``logits`` against ``labels``, ``-w (y log x + (1 - y) log(1 - x))``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> round(float(nn.BCELoss()(ms.Tensor([0.5, 0.5]), ms.Tensor([1.0, 0.0]))), 4)
        0.6931
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """``BCEWithLogitsLoss(reduction='mean', weight=None, pos_weight=None)``: the binary
    cross-entropy of ``sigmoid(input)`` against ``target``; ``pos_weight`` weighs the positive
    term per class.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> round(float(nn.BCEWithLogitsLoss()(ms.Tensor([0.0]), ms.Tensor([1.0]))), 4)
        0.6931
    """

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__()
        self.reduction = reduction
        for name, value in (("weight", weight), ("pos_weight", pos_weight)):
            if isinstance(value, Parameter):
                raise TypeError(f"{self.cls_name}: '{name}' cannot be a Parameter")
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, input, target):  # noqa: A002 - MindSpore's argument name
        check_tensor_input(self.cls_name, "input", input)
        check_tensor_input(self.cls_name, "target", target)
        return ops.binary_cross_entropy_with_logits(input, target, self.weight, self.pos_weight,
                                                    self.reduction)


class KLDivLoss(LossBase):
    """``KLDivLoss(reduction='mean')``: ``labels * (log(labels) - logits)`` for log-probabilities
    ``logits``, reduced by ``'mean'``, ``'sum'``, ``'batchmean'`` or ``'none'``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> float(nn.KLDivLoss('sum')(ms.Tensor([0.0, 0.0]), ms.Tensor([1.0, 0.0])))
        0.0
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, logits, labels):
        check_tensor_input(self.cls_name, "logits", logits)
        check_tensor_input(self.cls_name, "labels", labels)
        return ops.kl_div(logits, labels, self.reduction)


class FocalLoss(LossBase):
    """``FocalLoss(weight=None, gamma=2.0, reduction='mean')``: the cross-entropy of each class
    down-weighted by ``(1 - p) ** gamma`` (Lin et al.), for logits (N, C[, ...]) and labels
    (N, 1[, ...]) of class indices or (N, C[, ...]) of one-hot probabilities.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> logits = ms.Tensor(np.zeros((1, 2), np.float32))
        >>> labels = ms.Tensor(np.array([[1]], np.int32))
        >>> round(float(nn.FocalLoss()(logits, labels)), 4)     # 0.25 * ln 2 / 1
        0.1733
    """

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction)
        owner = self.cls_name
        if not isinstance(gamma, float):
            raise TypeError(f"{owner}: 'gamma' must be a float, got {type(gamma).__name__} "
                            f"{gamma!r}")
        self.gamma = gamma
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"{owner}: 'weight' must be a Tensor or None, got "
                            f"{type(weight).__name__}")
        if isinstance(weight, Tensor) and weight.ndim != 1:
            raise ValueError(f"{owner}: 'weight' must be 1-D, got {describe(weight)}")
        self.weight = weight

    def construct(self, logits, labels):
        check_tensor_input(self.cls_name, "logits", logits)
        check_tensor_input(self.cls_name, "labels", labels)
        _check_focal(self.cls_name, logits, labels)
        gathered = labels.shape[1] == 1
        n, c = logits.shape[0], logits.shape[1]
        logits = ops.reshape(logits, (n, c, -1))
        labels = ops.reshape(labels, (labels.shape[0], labels.shape[1], -1))
        log_p = ops.log_softmax(logits, 1)
        index = ops.cast(labels, int32) if gathered else None
        if gathered:
            log_p = ops.squeeze(ops.gather_elements(log_p, 1, index), 1)
        p = ops.exp(log_p)
        if self.weight is not None:
            w = ops.broadcast_to(ops.reshape(self.weight, (1, -1, 1)), logits.shape)
            if gathered:
                w = ops.squeeze(ops.gather_elements(w, 1, index), 1)
            log_p = log_p * w
        modulation = ops.pow(1.0 - p, self.gamma)
        if gathered:
            loss = ops.mean(-1 * modulation * log_p, 1)
        else:
            loss = ops.mean(-1 * modulation * ops.cast(labels, log_p.dtype) * log_p, -1)
        return self.get_loss(loss)


def _check_focal(owner: str, logits, labels) -> None:
    for name, t in (("logits", logits), ("labels", labels)):
        if not 2 <= t.ndim <= 4:
            raise ValueError(f"{owner}: '{name}' must have 2 to 4 dimensions, got {describe(t)}")
    if logits.ndim != labels.ndim:
        raise ValueError(f"{owner}: logits and labels must have the same rank, got "
                         f"{describe(logits)} and {describe(labels)}")
    if logits.shape[1] == 1:
        raise ValueError(f"{owner}: logits.shape[1] (the classes) cannot be 1")
    if labels.shape[1] not in (1, logits.shape[1]):
        raise ValueError(f"{owner}: labels.shape[1] must be 1 (class indices) or "
                         f"{logits.shape[1]} (one-hot), got {describe(labels)}")
    if labels.dtype not in (int32, int64, float16, float32):
        raise TypeError(f"{owner}: labels must be Int32, Int64, Float16 or Float32, got "
                        f"{describe(labels)}")


class DiceLoss(LossBase):
    """``DiceLoss(smooth=1e-5)``: ``1 - 2 |x y| / (|x|^2 + |y|^2 + smooth)`` over all elements.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> round(float(nn.DiceLoss()(ms.Tensor([1.0, 0.0]), ms.Tensor([1.0, 0.0]))), 4)
        0.0
    """

    def __init__(self, smooth=1e-5):
        super().__init__()
        if not isinstance(smooth, float):
            raise TypeError(f"{self.cls_name}: 'smooth' must be a float, got "
                            f"{type(smooth).__name__} {smooth!r}")
        self.smooth = check_float(smooth, "smooth", self.cls_name, low=0.0, low_open=True)

    def construct(self, logits, label):
        _check_dice(self.cls_name, logits, label)
        x, y = ops.reshape(logits, (-1,)), ops.reshape(label, (-1,))
        intersection = ops.sum(x * y)
        union = ops.sum(x * x) + ops.sum(y * y)
        return 1 - (2 * intersection) / (union + self.smooth)


def _check_dice(owner: str, logits, label) -> None:
    check_tensor_input(owner, "logits", logits)
    check_tensor_input(owner, "labels", label)
    if tuple(logits.shape) != tuple(label.shape):
        raise ValueError(f"{owner}: logits and labels must have one shape, got "
                         f"{describe(logits)} and {describe(label)}")
    for name, t in (("logits", logits), ("labels", label)):
        if t.dtype.name == "uint8":
            raise TypeError(f"{owner}: '{name}' cannot be UInt8")


_DICE_ACTIVATIONS = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")


class MultiClassDiceLoss(LossBase):
    """``MultiClassDiceLoss(weights=None, ignore_indiex=None, activation='softmax')``: the mean
    over classes (axis 1) of ``DiceLoss`` of ``activation(logits)`` against one-hot labels;
    ``weights`` (shape (C, k)) rescales class ``i`` by ``weights[i]``; class ``ignore_indiex``
    (MindSpore's spelling) is left out but still counts in the mean.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> x = ms.Tensor(np.array([[10.0, -10.0], [-10.0, 10.0]], np.float32))
        >>> y = ms.Tensor(np.array([[1.0, 0.0], [0.0, 1.0]], np.float32))
        >>> round(float(nn.MultiClassDiceLoss()(x, y)), 4)
        0.0
    """

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        owner = self.cls_name
        self.binarydiceloss = DiceLoss(smooth=1e-5)
        if weights is not None and not isinstance(weights, Tensor):
            raise TypeError(f"{owner}: 'weights' must be a Tensor or None, got "
                            f"{type(weights).__name__}")
        if isinstance(weights, Tensor) and weights.ndim != 2:
            raise ValueError(f"{owner}: 'weights' must be 2-D, got {describe(weights)}")
        self.weights = weights
        if ignore_indiex is not None:
            ignore_indiex = _check_int(ignore_indiex, "ignore_indiex", owner)
        self.ignore_indiex = ignore_indiex
        if isinstance(activation, str) and activation not in _DICE_ACTIVATIONS:
            raise ValueError(f"{owner}: 'activation' must be one of {list(_DICE_ACTIVATIONS)}, "
                             f"got {activation!r}")
        self.activation = get_activation(activation) if isinstance(activation, str) \
            else activation
        if self.activation is not None and not isinstance(self.activation, Cell):
            raise TypeError(f"{owner}: 'activation' must be a str or a Cell, got "
                            f"{type(self.activation).__name__}")

    def construct(self, logits, label):
        _check_multi_dice(self.cls_name, logits, label, self.weights)
        total = 0
        if self.activation is not None:
            logits = self.activation(logits)
        for i in range(label.shape[1]):
            if i != self.ignore_indiex:
                dice = self.binarydiceloss(logits[:, i], label[:, i])
                if self.weights is not None:
                    dice = dice * self.weights[i]
                total = total + dice
        return total / label.shape[1]


def _check_multi_dice(owner: str, logits, label, weights) -> None:
    check_tensor_input(owner, "logits", logits)
    check_tensor_input(owner, "labels", label)
    if tuple(logits.shape) != tuple(label.shape):
        raise ValueError(f"{owner}: logits and labels must have one shape, got "
                         f"{describe(logits)} and {describe(label)}")
    if logits.ndim < 2:
        raise ValueError(f"{owner}: logits and labels need a class axis (2 or more "
                         f"dimensions), got {describe(logits)}")
    if weights is not None and weights.shape[0] != label.shape[1]:
        raise ValueError(f"{owner}: weights.shape[0] must be the number of classes "
                         f"{label.shape[1]}, got {describe(weights)}")


class SampledSoftmaxLoss(LossBase):
    """``SampledSoftmaxLoss(num_sampled, num_classes, num_true=1, sampled_values=None,
    remove_accidental_hits=True, seed=0, reduction='none')``: the softmax cross-entropy over
    the true classes and ``num_sampled`` classes drawn uniformly (``UniformCandidateSampler``),
    with the logits corrected by the log of each class's expected count;
    ``construct(weights, biases, labels, logits)``. ``sampled_values``, a tuple ``(sampled,
    true_expected_count, sampled_expected_count)``, replaces the draw. The loss is one value per
    example whatever ``reduction`` says (MindSpore 2.10 accepts ``reduction`` and ignores it).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> sampled = (ms.Tensor(np.array([0, 2], np.int32)), ms.Tensor(np.ones((1, 1),
        ...            np.float32)), ms.Tensor(np.ones(2, np.float32)))
        >>> loss = nn.SampledSoftmaxLoss(2, 3, sampled_values=sampled,
        ...                              remove_accidental_hits=False)
        >>> w, b = ms.Tensor(np.zeros((3, 2), np.float32)), ms.Tensor(np.zeros(3, np.float32))
        >>> out = loss(w, b, ms.Tensor(np.array([1], np.int32)), ms.Tensor(np.ones((1, 2),
        ...            np.float32)))
        >>> round(float(out[0]), 4)    # ln 3: three equal logits
        1.0986
    """

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None,
                 remove_accidental_hits=True, seed=0, reduction="none"):
        super().__init__(reduction)
        owner = self.cls_name
        if num_true < 1:
            raise ValueError(f"{owner}: 'num_true' must be at least 1, got {num_true}")
        if seed < 0:
            raise ValueError(f"{owner}: 'seed' must be at least 0, got {seed}")
        if num_sampled > num_classes:
            raise ValueError(f"{owner}: 'num_sampled' ({num_sampled}) cannot exceed "
                             f"'num_classes' ({num_classes})")
        if num_true > num_classes:
            raise ValueError(f"{owner}: 'num_true' ({num_true}) cannot exceed 'num_classes' "
                             f"({num_classes})")
        if sampled_values is not None:
            if not isinstance(sampled_values, (list, tuple)):
                raise TypeError(f"{owner}: 'sampled_values' must be a list or tuple, got "
                                f"{type(sampled_values).__name__}")
            if len(sampled_values) != 3:
                raise ValueError(f"{owner}: 'sampled_values' must hold 3 tensors, got "
                                 f"{len(sampled_values)}")
            sampled_values = tuple(sampled_values)
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits = remove_accidental_hits
        self.seed = seed
        self.sampler = ops.UniformCandidateSampler(num_true, num_sampled, True, num_classes, seed,
                                                   remove_accidental_hits)

    def construct(self, weights, biases, labels, logits):
        owner = self.cls_name
        for name, value in (("weights", weights), ("biases", biases), ("labels", labels),
                            ("logits", logits)):
            check_tensor_input(owner, name, value)
        if labels.dtype not in (int32, int64):
            raise TypeError(f"{owner}: labels must be Int32 or Int64, got {describe(labels)}")
        out_logits, out_labels = self._sampled_logits(weights, biases, labels, logits)
        return _soft_cross_entropy(out_logits, out_labels)  # MindSpore never reduces it

    def _sampled_logits(self, weights, biases, labels, logits):
        """The logits of the true and the sampled classes, and their target distribution."""
        k = self.num_true
        labels = ops.reshape(ops.cast(labels, int32), (-1, k))
        flat = ops.reshape(labels, (-1,))
        values = self.sampled_values if self.sampled_values is not None else self.sampler(labels)
        sampled, true_count, sampled_count = values
        sampled = ops.cast(sampled, int32)
        all_ids = ops.concat((flat, sampled), 0)
        all_w = ops.gather(weights, all_ids, 0)
        all_b = ops.gather(biases, all_ids, 0)
        n_true, dim = flat.shape[0], all_w.shape[1]
        true_w, sampled_w = all_w[:n_true], all_w[n_true:]
        true_b, sampled_b = all_b[:n_true], all_b[n_true:]
        sampled_logits = ops.matmul(logits, ops.transpose(sampled_w, (1, 0))) + sampled_b
        rows = ops.expand_dims(logits, 1) * ops.reshape(true_w, (-1, k, dim))
        true_logits = ops.reshape(ops.sum(ops.reshape(rows, (-1, dim)), 1), (-1, k))
        true_logits = true_logits + ops.reshape(true_b, (-1, k))
        true_logits = true_logits - ops.log(true_count)
        sampled_logits = sampled_logits - ops.log(sampled_count)
        out_logits = ops.concat((true_logits, sampled_logits), 1)
        out_labels = ops.concat((ops.ones_like(true_logits) / k,
                                 ops.zeros_like(sampled_logits)), 1)
        return out_logits, out_labels


def _soft_cross_entropy(logits, targets):
    """``-sum(targets * log(softmax(logits) + 1e-20), 1)``: MindSpore's own softmax here."""
    shifted = ops.exp(logits - ops.amax(logits, 1, True))
    pred = shifted / ops.sum(shifted, 1, True)
    return -1 * ops.sum(targets * ops.log(pred + 1.0e-20), 1)


class CTCLoss(LossBase):
    """``CTCLoss(blank=0, reduction='mean', zero_infinity=False)``: the connectionist temporal
    classification loss of log-probabilities ``(T, N, C)`` (or ``(T, C)`` for one sequence)
    against padded ``targets``; ``construct(log_probs, targets, input_lengths,
    target_lengths)``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> log_probs = ms.Tensor(np.log(np.full((2, 1, 2), 0.5, np.float32)))
        >>> loss = nn.CTCLoss(reduction='sum')
        >>> out = loss(log_probs, ms.Tensor(np.array([[1]], np.int32)),
        ...            ms.Tensor(np.array([2], np.int32)), ms.Tensor(np.array([1], np.int32)))
        >>> round(float(out), 4)        # three of the four paths of length 2 read "1": -ln 0.75
        0.2877
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.zero_infinity = zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        check_tensor_input(self.cls_name, "log_probs", log_probs)
        check_tensor_input(self.cls_name, "targets", targets)
        if log_probs.ndim == 2:
            _check_single_targets(targets)
            if targets.ndim == 1:
                targets = ops.expand_dims(targets, 0)
            log_probs = ops.expand_dims(log_probs, -2)
            loss, _ = ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                                   self.reduction, self.zero_infinity)
            return ops.squeeze(loss, 0) if loss.ndim else loss
        loss, _ = ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                               self.reduction, self.zero_infinity)
        return loss


def _check_single_targets(targets) -> None:
    if targets.ndim > 2 or (targets.ndim == 2 and targets.shape[0] != 1):
        raise ValueError("CTCLoss: for log_probs of shape (T, C), targets must be 1-D or of shape "
                         f"(1, S), got {describe(targets)}")

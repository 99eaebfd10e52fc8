"""The ``mint.nn`` layers graphcell's ``nn`` does not already have in PyTorch's form: the
convolutions (``Conv2d(in_channels, out_channels, kernel_size, stride, padding, ..., bias=True)``),
batch and group normalization with PyTorch's parameters (``weight``, ``bias``, ``running_mean``,
``running_var``; ``momentum`` weighs the new statistics), and small activation, loss, pooling and
resampling cells. Each ``construct`` calls one ``mint.nn.functional`` function.

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> mint.nn.Conv2d(3, 8, 3, padding=1)(ms.ops.ones((1, 3, 5, 5))).shape
    (1, 8, 5, 5)
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from graphcell import ops
from graphcell.common.initializer import HeUniform, Uniform, initializer
from graphcell.mint.nn import functional as F
from graphcell.nn.cell import Cell
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, to_dtype

__all__ = ["AdaptiveMaxPool1d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d",
           "BatchNorm3d", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d", "CrossEntropyLoss",
           "ELU", "Fold", "GELU", "GLU", "GroupNorm", "Hardtanh", "KLDivLoss", "L1Loss",
           "LogSigmoid", "MSELoss", "Mish", "NLLLoss", "ReLU6", "SELU", "SiLU", "Sigmoid",
           "SmoothL1Loss", "Softmax", "SyncBatchNorm", "Tanh", "Threshold", "Unfold", "Upsample",
           "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad3d"]


def _tuple(value, n: int, what: str, owner: str) -> tuple:
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    if isinstance(value, (tuple, list)) and len(value) == n:
        return tuple(int(v) for v in value)
    raise ValueError(f"{owner}: '{what}' must be an int or a tuple of {n} ints, got {value!r}")


# --- convolutions --------------------------------------------------------------------------------

class _ConvNd(Cell):
    """A convolution with PyTorch's constructor; weight and bias drawn as PyTorch draws them
    (uniform in +-1/sqrt(fan_in))."""

    dims = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", dtype=None, output_padding=0):
        super().__init__()
        owner, n = self.cls_name, self.dims
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{owner}: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by groups ({groups})")
        if padding_mode != "zeros":
            raise ValueError(f"{owner}: graphcell supports padding_mode='zeros' only, got "
                             f"{padding_mode!r}")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple(kernel_size, n, "kernel_size", owner)
        self.stride = _tuple(stride, n, "stride", owner)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n, "padding", owner)
        self.dilation = _tuple(dilation, n, "dilation", owner)
        self.output_padding = output_padding
        dtype = float32 if dtype is None else to_dtype(dtype)
        shape = ((in_channels, out_channels // groups) if self.transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)), shape, dtype), name="weight")
        self.bias = None
        if bias:
            fan_in = shape[1] * math.prod(self.kernel_size)
            bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
            self.bias = Parameter(initializer(Uniform(bound), (out_channels,), dtype), name="bias")

    def extend_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
                f"groups={self.groups}, bias={self.bias is not None}")


class Conv1d(_ConvNd):
    """``Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, bias=True, padding_mode='zeros', dtype=None)`` over ``(N, C, L)`` inputs."""

    dims = 1

    def construct(self, input):  # noqa: A002
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class Conv2d(_ConvNd):
    """``Conv2d(in_channels, out_channels, kernel_size, ...)`` over ``(N, C, H, W)`` inputs."""

    def construct(self, input):  # noqa: A002
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class Conv3d(_ConvNd):
    """``Conv3d(in_channels, out_channels, kernel_size, ...)`` over ``(N, C, D, H, W)`` inputs."""

    dims = 3

    def construct(self, input):  # noqa: A002
        return F.conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class ConvTranspose2d(_ConvNd):
    """``ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros', dtype=None)``."""

    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, dtype, output_padding)

    def construct(self, input):  # noqa: A002
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation)


# --- normalization -------------------------------------------------------------------------------

class _BatchNorm(Cell):
    """Batch normalization over dimension 1 with PyTorch's parameters (``weight`` and ``bias``
    when ``affine``; ``running_mean``, ``running_var`` and the Int64 ``num_batches_tracked``
    when ``track_running_stats``) and momentum (the weight of the new batch's statistics)."""

    ndims: tuple = (4,)

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        super().__init__()
        if momentum is None:
            raise ValueError(f"{self.cls_name}: momentum=None (a cumulative average) is not "
                             "supported by graphcell; give a float")
        dtype = float32 if dtype is None else to_dtype(dtype)
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.dtype = dtype
        shape = (num_features,)
        self.weight = self.bias = None
        if affine:
            self.weight = Parameter(initializer("ones", shape, dtype), name="weight")
            self.bias = Parameter(initializer("zeros", shape, dtype), name="bias")
        self.running_mean = self.running_var = self.num_batches_tracked = None
        if track_running_stats:
            self.running_mean = Parameter(initializer("zeros", shape, dtype),
                                          name="running_mean", requires_grad=False)
            self.running_var = Parameter(initializer("ones", shape, dtype), name="running_var",
                                         requires_grad=False)
            self.num_batches_tracked = Parameter(Tensor(np.int64(0)),
                                                 name="num_batches_tracked", requires_grad=False)

    def construct(self, input):  # noqa: A002
        if input.ndim not in self.ndims:
            raise ValueError(f"{self.cls_name} expects a {' or '.join(map(str, self.ndims))}-D "
                             f"input, got shape {input.shape}")
        if self.training and self.track_running_stats:
            ops.assign_add(self.num_batches_tracked, ops.ones((), self.num_batches_tracked.dtype))
        shape = (self.num_features,)
        if self.track_running_stats:
            mean, var = self.running_mean, self.running_var
        else:  # statistics of the batch, kept nowhere
            mean, var = ops.zeros(shape, self.dtype), ops.ones(shape, self.dtype)
        batch_stats = self.training or not self.track_running_stats
        return F.batch_norm(input, mean, var, self.weight, self.bias, batch_stats,
                            self.momentum, self.eps)

    def extend_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """``BatchNorm1d(num_features, eps=1e-05, momentum=0.1, affine=True,
    track_running_stats=True, dtype=None)`` over ``(N, C)`` or ``(N, C, L)`` inputs."""

    ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """``BatchNorm2d(num_features, ...)`` over ``(N, C, H, W)`` inputs."""

    ndims = (4,)


class BatchNorm3d(_BatchNorm):
    """``BatchNorm3d(num_features, ...)`` over ``(N, C, D, H, W)`` inputs."""

    ndims = (5,)


class SyncBatchNorm(_BatchNorm):
    """``SyncBatchNorm(num_features, eps=1e-05, momentum=0.1, affine=True,
    track_running_stats=True, process_group=None, dtype=None)``: batch normalization whose
    statistics would be reduced over ``process_group``; in one process (graphcell's CPU run, as
    MindSpore 2.10's CPU build) it is the batch norm of the local batch, for 2-D to 5-D inputs."""

    ndims = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        self.process_group = process_group


class GroupNorm(Cell):
    """``GroupNorm(num_groups, num_channels, eps=1e-05, affine=True, dtype=None)``."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        dtype = float32 if dtype is None else to_dtype(dtype)
        self.num_groups, self.num_channels, self.eps, self.affine = (num_groups, num_channels,
                                                                     eps, affine)
        self.weight = self.bias = None
        if affine:
            self.weight = Parameter(initializer("ones", (num_channels,), dtype), name="weight")
            self.bias = Parameter(initializer("zeros", (num_channels,), dtype), name="bias")

    def construct(self, input):  # noqa: A002
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extend_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


# --- activations ---------------------------------------------------------------------------------

def _activation(name: str, fn, doc: str, params: tuple = (), loss: bool = False):
    """A cell without Parameters whose constructor keeps ``params`` (name, default) and whose
    ``construct`` calls ``fn(input, *those values)`` (``fn(input, target, ...)`` for a loss)."""

    def __init__(self, *args, **kwargs):
        Cell.__init__(self)
        names = [p for p, _ in params]
        values = dict(params)
        if len(args) > len(names):
            raise TypeError(f"{name} takes at most {len(names)} arguments, got {len(args)}")
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{name} got an unexpected argument {key!r}")
            values[key] = value
        if values.pop("inplace", False):
            raise ValueError(f"{name}: inplace=True is not supported by graphcell")
        for key, value in values.items():
            setattr(self, key, value)
        self._args = tuple(k for k in values)

    def construct(self, input):  # noqa: A002
        return fn(input, *[getattr(self, k) for k in self._args])

    def construct_loss(self, input, target):  # noqa: A002
        return fn(input, target, *[getattr(self, k) for k in self._args])

    return type(name, (Cell,), {"__init__": __init__, "__doc__": doc, "__module__": __name__,
                                "construct": construct_loss if loss else construct})


GELU = _activation("GELU", lambda x, approximate: F.gelu(x, approximate=approximate),
                   "``GELU(approximate='none')``.", (("approximate", "none"),))
SiLU = _activation("SiLU", F.silu, "``SiLU(inplace=False)``: ``x * sigmoid(x)``.",
                   (("inplace", False),))
Sigmoid = _activation("Sigmoid", F.sigmoid, "``Sigmoid()``.")
Tanh = _activation("Tanh", F.tanh, "``Tanh()``.")
LogSigmoid = _activation("LogSigmoid", F.logsigmoid, "``LogSigmoid()``.")
Mish = _activation("Mish", F.mish, "``Mish()``.")
SELU = _activation("SELU", F.selu, "``SELU()``.")
ReLU6 = _activation("ReLU6", F.relu6, "``ReLU6(inplace=False)``.", (("inplace", False),))
ELU = _activation("ELU", F.elu, "``ELU(alpha=1.0, inplace=False)``.",
                  (("alpha", 1.0), ("inplace", False)))
GLU = _activation("GLU", F.glu, "``GLU(dim=-1)``.", (("dim", -1),))
Hardtanh = _activation("Hardtanh", F.hardtanh,
                       "``Hardtanh(min_val=-1.0, max_val=1.0, inplace=False)``.",
                       (("min_val", -1.0), ("max_val", 1.0), ("inplace", False)))
Threshold = _activation("Threshold", F.threshold, "``Threshold(threshold, value, inplace=False)``.",
                        (("threshold", None), ("value", None), ("inplace", False)))
Softmax = _activation("Softmax", F.softmax, "``Softmax(dim=None)``.", (("dim", None),))
AdaptiveMaxPool1d = _activation("AdaptiveMaxPool1d", F.adaptive_max_pool1d,
                                "``AdaptiveMaxPool1d(output_size, return_indices=False)``.",
                                (("output_size", None), ("return_indices", False)))
Fold = _activation("Fold", F.fold, "``Fold(output_size, kernel_size, dilation=1, padding=0, "
                   "stride=1)``.", (("output_size", None), ("kernel_size", None),
                                    ("dilation", 1), ("padding", 0), ("stride", 1)))
Unfold = _activation("Unfold", F.unfold, "``Unfold(kernel_size, dilation=1, padding=0, "
                     "stride=1)``.", (("kernel_size", None), ("dilation", 1), ("padding", 0),
                                      ("stride", 1)))
Upsample = _activation("Upsample", lambda x, size, scale_factor, mode, align_corners, _:
                       F.interpolate(x, size, scale_factor, mode, align_corners),
                       "``Upsample(size=None, scale_factor=None, mode='nearest', "
                       "align_corners=None, recompute_scale_factor=None)``.",
                       (("size", None), ("scale_factor", None), ("mode", "nearest"),
                        ("align_corners", None), ("recompute_scale_factor", None)))
UpsamplingNearest2d = _activation(
    "UpsamplingNearest2d", lambda x, size, scale_factor: F.interpolate(x, size, scale_factor),
    "``UpsamplingNearest2d(size=None, scale_factor=None)``.",
    (("size", None), ("scale_factor", None)))
UpsamplingBilinear2d = _activation(
    "UpsamplingBilinear2d",
    lambda x, size, scale_factor: F.interpolate(x, size, scale_factor, "bilinear", True),
    "``UpsamplingBilinear2d(size=None, scale_factor=None)`` (corners aligned).",
    (("size", None), ("scale_factor", None)))
ZeroPad1d = _activation("ZeroPad1d", lambda x, padding: F.pad(x, _pairs(padding, 1), "constant", 0),
                        "``ZeroPad1d(padding)``.", (("padding", None),))
ZeroPad3d = _activation("ZeroPad3d", lambda x, padding: F.pad(x, _pairs(padding, 3), "constant", 0),
                        "``ZeroPad3d(padding)``.", (("padding", None),))


def _pairs(padding, dims: int) -> tuple:
    return (padding,) * (2 * dims) if isinstance(padding, numbers.Integral) else tuple(padding)


# --- losses --------------------------------------------------------------------------------------

MSELoss = _activation("MSELoss", F.mse_loss, "``MSELoss(reduction='mean')``.",
                      (("reduction", "mean"),), loss=True)
L1Loss = _activation("L1Loss", F.l1_loss, "``L1Loss(reduction='mean')``.",
                     (("reduction", "mean"),), loss=True)
SmoothL1Loss = _activation("SmoothL1Loss", F.smooth_l1_loss,
                           "``SmoothL1Loss(reduction='mean', beta=1.0)``.",
                           (("reduction", "mean"), ("beta", 1.0)), loss=True)
KLDivLoss = _activation("KLDivLoss", F.kl_div, "``KLDivLoss(reduction='mean', log_target=False)``.",
                        (("reduction", "mean"), ("log_target", False)), loss=True)


class BCELoss(Cell):
    """``BCELoss(weight=None, reduction='mean')``."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__()
        self.weight, self.reduction = weight, reduction

    def construct(self, input, target):  # noqa: A002
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(Cell):
    """``BCEWithLogitsLoss(weight=None, reduction='mean', pos_weight=None)``."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__()
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def construct(self, input, target):  # noqa: A002
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                  self.pos_weight)


class CrossEntropyLoss(Cell):
    """``CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)``: :func:`~graphcell.mint.nn.functional.cross_entropy` (class indices
    of any integer dtype, or class probabilities)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction, self.label_smoothing = reduction, label_smoothing

    def construct(self, input, target):  # noqa: A002
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction,
                               self.label_smoothing)


class NLLLoss(Cell):
    """``NLLLoss(weight=None, ignore_index=-100, reduction='mean')``:
    :func:`~graphcell.mint.nn.functional.nll_loss`."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__()
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction

    def construct(self, input, target):  # noqa: A002
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)

"""``mint.nn.functional``: PyTorch-style neural-network functions over ``graphcell.ops``
(``linear``, ``conv2d(input, weight, bias, stride, padding)``, ``gelu``, ``softmax(input,
dim)``, ``cross_entropy``, ``dropout(input, p, training)``...).

Example::

    >>> import graphcell as ms
    >>> from graphcell.mint.nn import functional as F
    >>> F.softmax(ms.Tensor([[0.0, 0.0]]), dim=-1).asnumpy().tolist()
    [[0.5, 0.5]]
"""
from __future__ import annotations

from graphcell import dtype as mstype
from graphcell import ops
from graphcell.mint._shape import flatten  # noqa: F401 - mint.flatten (start_dim=0)
from graphcell.ops import (  # noqa: F401 - the same signatures as mint's
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool2d,
    conv_transpose2d, cosine_embedding_loss, cross_entropy, embedding, fold, grid_sample,
    group_norm, hardshrink, hardsigmoid, hardswish, interpolate, l1_loss, layer_norm, mish,
    mse_loss, pixel_shuffle, prelu, sigmoid, soft_margin_loss, softplus, softshrink, tanh,
    unfold)

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_norm",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d", "conv2d", "conv3d",
    "conv_transpose2d", "cosine_embedding_loss", "cross_entropy", "dropout", "dropout2d", "elu",
    "embedding", "flatten", "fold", "gelu", "glu", "grid_sample", "group_norm", "hardshrink",
    "hardsigmoid", "hardswish", "hardtanh", "interpolate", "kl_div", "l1_loss", "layer_norm",
    "leaky_relu", "linear", "log_softmax", "logsigmoid", "max_pool2d", "max_unpool2d", "mish",
    "mse_loss", "nll_loss", "normalize", "one_hot", "pad", "pixel_shuffle", "prelu", "relu",
    "relu6", "selu", "sigmoid", "silu", "smooth_l1_loss", "soft_margin_loss", "softmax",
    "softplus", "softshrink", "tanh", "threshold", "unfold", "upsample"]


def _no_inplace(inplace: bool, name: str) -> None:
    if inplace:
        raise ValueError(f"mint.nn.functional.{name}: inplace=True is not supported by graphcell "
                         f"(tensors are not written in place); use the returned tensor")


# --- activations ---------------------------------------------------------------------------------

def relu(input, inplace=False):  # noqa: A002 - mint's names
    """``max(input, 0)``."""
    _no_inplace(inplace, "relu")
    return ops.relu(input)


def relu6(input, inplace=False):  # noqa: A002
    """``min(max(input, 0), 6)``."""
    _no_inplace(inplace, "relu6")
    return ops.relu6(input)


def silu(input, inplace=False):  # noqa: A002
    """``input * sigmoid(input)``."""
    _no_inplace(inplace, "silu")
    return ops.silu(input)


def gelu(input, *, approximate="none"):  # noqa: A002
    """The GELU activation, exact (``"none"``) or with the tanh approximation (``"tanh"``)."""
    return ops.gelu(input, approximate)


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    """``input`` where positive, ``alpha * (exp(input) - 1)`` elsewhere."""
    _no_inplace(inplace, "elu")
    return ops.elu(input, alpha)


def selu(input):  # noqa: A002
    """The scaled ELU."""
    return ops.selu(input)


def leaky_relu(input, negative_slope=0.01):  # noqa: A002
    """``input`` where positive, ``negative_slope * input`` elsewhere."""
    return ops.leaky_relu(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    """``input`` clipped to ``[min_val, max_val]``."""
    _no_inplace(inplace, "hardtanh")
    return ops.hardtanh(input, min_val, max_val)


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    """``input`` where it is greater than ``threshold``, ``value`` elsewhere."""
    _no_inplace(inplace, "threshold")
    return ops.threshold(input, threshold, value)


def glu(input, dim=-1):  # noqa: A002
    """The gated linear unit: the first half along ``dim`` times the sigmoid of the second."""
    return ops.glu(input, dim)


def logsigmoid(input):  # noqa: A002
    """``log(sigmoid(input))``."""
    return ops.logsigmoid(input)


def _implicit_dim(ndim: int) -> int:
    # PyTorch's (and mint's) legacy rule for softmax without ``dim``
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None):  # noqa: A002
    """``exp(input) / sum(exp(input), dim)``; without ``dim``, PyTorch's implicit choice (0 for
    0-, 1- and 3-D inputs, else 1)."""
    return ops.softmax(input, _implicit_dim(input.ndim) if dim is None else dim, dtype=dtype)


def log_softmax(input, dim=None, *, dtype=None):  # noqa: A002
    """``log(softmax(input, dim))`` (``dim`` chosen as :func:`softmax` does when None)."""
    x = input if dtype is None else input.astype(dtype)
    return ops.log_softmax(x, _implicit_dim(input.ndim) if dim is None else dim)


# --- linear, convolution, pooling ----------------------------------------------------------------

def linear(input, weight, bias=None):  # noqa: A002
    """``input @ weight.T + bias``."""
    return ops.dense(input, weight, bias)


def _conv(conv, name, input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"mint.nn.functional.{name}: padding must be 'same', 'valid', an int "
                             f"or a tuple of ints, got {padding!r}")
        return conv(input, weight, bias, stride, padding, 0, dilation, groups)
    return conv(input, weight, bias, stride, "pad", padding, dilation, groups)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """1-D convolution; ``padding`` an int, a tuple, ``"same"`` or ``"valid"``."""
    return _conv(ops.conv1d, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """2-D convolution; ``padding`` an int, a tuple, ``"same"`` or ``"valid"``."""
    return _conv(ops.conv2d, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """3-D convolution; ``padding`` an int, a tuple, ``"same"`` or ``"valid"``."""
    return _conv(ops.conv3d, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True):
    """Average pooling over the last dimension (``stride`` defaults to ``kernel_size``)."""
    return ops.avg_pool1d(input, kernel_size, kernel_size if stride is None else stride, padding,
                          ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    """Average pooling over the last two dimensions."""
    return ops.avg_pool2d(input, kernel_size, kernel_size if stride is None else stride, padding,
                          ceil_mode, count_include_pad, divisor_override or 0)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    """Average pooling over the last three dimensions."""
    return ops.avg_pool3d(input, kernel_size, kernel_size if stride is None else stride, padding,
                          ceil_mode, count_include_pad, divisor_override or 0)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    """Max pooling over the last two dimensions (and the argmax indices if asked)."""
    return ops.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    """The inverse of :func:`max_pool2d` with ``return_indices=True``."""
    return ops.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """Max pooling of the last dimension to ``output_size`` (and the indices if asked)."""
    out = ops.adaptive_max_pool2d(input.unsqueeze(-2), (1, output_size), return_indices=True)
    values, indices = out[0].squeeze(-2), out[1].squeeze(-2)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """Max pooling of the last two dimensions to ``output_size``."""
    return ops.adaptive_max_pool2d(input, output_size, return_indices)


# --- normalization, dropout, embedding -----------------------------------------------------------

def batch_norm(input, running_mean, running_var, weight=None, bias=None,  # noqa: A002
               training=False, momentum=0.1, eps=1e-05):
    """Batch normalization over dimension 1 (statistics of the batch when ``training``)."""
    channels = input.shape[1]
    if weight is None:
        weight = ops.ones((channels,), input.dtype)
    if bias is None:
        bias = ops.zeros((channels,), input.dtype)
    return ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def normalize(input, p=2.0, dim=1, eps=1e-12):  # noqa: A002
    """``input / max(||input||_p along dim, eps)``."""
    norm = ops.vector_norm(input, p, dim, True)
    return ops.div(input, ops.clamp(norm, eps))


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zeroes each element with probability ``p`` and scales the rest by ``1 / (1 - p)`` when
    ``training``; the input unchanged otherwise."""
    _no_inplace(inplace, "dropout")
    return ops.dropout(input, p, training)


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zeroes whole channels with probability ``p`` when ``training``."""
    _no_inplace(inplace, "dropout2d")
    return ops.dropout2d(input, p, training) if training else input


def one_hot(tensor, num_classes=-1):
    """Int64 one-hot vectors of the indices in ``tensor`` (``num_classes`` = the largest index
    + 1 when -1)."""
    if num_classes == -1:
        num_classes = int(tensor.max()) + 1
    return ops.one_hot(tensor, num_classes, 1, 0).astype(mstype.int64)


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """``input`` padded by ``pad`` (pairs from the last dimension backwards)."""
    return ops.pad(input, pad, mode, value)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """:func:`interpolate` under its older name."""
    return ops.interpolate(input, size, scale_factor, mode, align_corners)


# --- losses --------------------------------------------------------------------------------------

def binary_cross_entropy(input, target, weight=None, reduction="mean"):  # noqa: A002
    """``-(target * log(input) + (1 - target) * log(1 - input))``, weighted and reduced."""
    return ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",  # noqa: A002
                                     pos_weight=None):
    """:func:`binary_cross_entropy` of ``sigmoid(input)``, computed stably."""
    return ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def kl_div(input, target, reduction="mean", log_target=False):  # noqa: A002
    """``target * (log(target) - input)`` (``input`` holds log-probabilities; ``target`` too
    when ``log_target``), reduced."""
    return ops.kl_div(input, ops.exp(target) if log_target else target, reduction)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):  # noqa: A002
    """The negative log-likelihood of the classes ``target`` under log-probabilities ``input``."""
    return ops.nll_loss(input, target, weight, ignore_index, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):  # noqa: A002
    """The Huber-like loss: quadratic below ``beta``, linear above."""
    return ops.smooth_l1_loss(input, target, beta, reduction)


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.mint.nn.functional", name,
                            "module 'graphcell.mint.nn.functional'")

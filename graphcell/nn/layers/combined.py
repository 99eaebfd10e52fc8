"""Layers made of layers: ``Conv2dBnAct`` and ``DenseBnAct`` (a convolution or dense layer, an
optional batch norm and an optional activation, as children named ``conv``/``dense``,
``batchnorm`` and ``activation``) and ``TimeDistributed`` (a layer applied at every step of a
time axis), with MindSpore 2.10's constructors.
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, check_bool, describe
from graphcell.nn.layers.activation import LeakyReLU, get_activation
from graphcell.nn.layers.conv import Conv2d
from graphcell.nn.layers.dense import Dense
from graphcell.nn.layers.normalization import BatchNorm1d, BatchNorm2d
from graphcell.ops.primitive import Primitive
from graphcell.tensor import Tensor

__all__ = ["Conv2dBnAct", "DenseBnAct", "TimeDistributed"]


def _activation(activation, alpha, owner: str):
    """A name (``'leakyrelu'`` takes ``alpha``), a Cell, a Primitive or None."""
    if activation == "leakyrelu":
        return LeakyReLU(alpha)
    if isinstance(activation, str):
        return get_activation(activation, owner)
    if activation is not None and not isinstance(activation, (Cell, Primitive)):
        raise TypeError(f"{owner}: 'activation' must be a str, a Cell or a Primitive, got "
                        f"{type(activation).__name__}")
    return activation


class _BnAct(Cell):
    """The optional batch norm and activation after a layer."""

    def _finish(self, norm, has_bn, activation, alpha, after_fake) -> None:
        owner = self.cls_name
        self.has_bn = check_bool(has_bn, "has_bn", owner)
        self.after_fake = check_bool(after_fake, "after_fake", owner)
        if self.has_bn:
            self.batchnorm = norm
        self.has_act = activation is not None
        if self.has_act:
            self.activation = _activation(activation, alpha, owner)

    def _after(self, x):
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class Conv2dBnAct(_BnAct):
    """``Conv2dBnAct(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    dilation=1, group=1, has_bias=False, weight_init='normal', bias_init='zeros', has_bn=False,
    momentum=0.997, eps=1e-5, activation=None, alpha=0.2, after_fake=True)``: ``Conv2d``, then
    ``BatchNorm2d(out_channels, eps, momentum)`` when ``has_bn``, then the activation.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> net = nn.Conv2dBnAct(1, 2, 3, has_bn=True, activation='relu')
        >>> net(ms.Tensor(np.ones((2, 1, 4, 4), np.float32))).shape
        (2, 2, 4, 4)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros", has_bn=False, momentum=0.997, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                           dilation, group, has_bias, weight_init, bias_init)
        self._finish(BatchNorm2d(out_channels, eps, momentum) if has_bn else None, has_bn,
                     activation, alpha, after_fake)

    def construct(self, x):
        return self._after(self.conv(x))


class DenseBnAct(_BnAct):
    """``DenseBnAct(in_channels, out_channels, weight_init='normal', bias_init='zeros',
    has_bias=True, has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2,
    after_fake=True)``: ``Dense``, then ``BatchNorm1d(out_channels, eps, momentum)`` when
    ``has_bn``, then the activation.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> net = nn.DenseBnAct(3, 2, activation='leakyrelu')
        >>> net(ms.Tensor(np.ones((4, 3), np.float32))).shape
        (4, 2)
    """

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros",
                 has_bias=True, has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2,
                 after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self._finish(BatchNorm1d(out_channels, eps, momentum) if has_bn else None, has_bn,
                     activation, alpha, after_fake)

    def construct(self, x):
        return self._after(self.dense(x))


class TimeDistributed(Cell):
    """``TimeDistributed(layer, time_axis, reshape_with_axis=None)``: ``layer`` (a Cell or a
    Primitive) applied to every step along ``time_axis`` of an input of rank >= 3, the results
    stacked along that axis. With ``reshape_with_axis`` the time axis is instead merged with that
    axis (made adjacent to it first), the layer applied once, and the output split back.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> net = nn.TimeDistributed(nn.Dense(3, 2), time_axis=1, reshape_with_axis=0)
        >>> net(ms.Tensor(np.ones((4, 5, 3), np.float32))).shape
        (4, 5, 2)
    """

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        if not isinstance(layer, (Cell, Primitive)):
            raise TypeError(f"TimeDistributed: 'layer' must be a Cell or a Primitive, got "
                            f"{type(layer).__name__}")
        super().__init__()
        for name, value in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if value is not None and not _is_int(value):
                raise TypeError(f"{self.cls_name}: '{name}' must be an int, got {value!r}")
        self.layer = layer
        self.time_axis = time_axis
        self.reshape_with_axis = reshape_with_axis

    def construct(self, inputs):
        owner = self.cls_name
        if not isinstance(inputs, Tensor) or inputs.ndim < 3:
            raise ValueError(f"{owner}: the input must be a Tensor of rank >= 3, got "
                             f"{describe(inputs)}")
        rank = inputs.ndim
        time_axis = self.time_axis % rank
        if self.reshape_with_axis is None:
            steps = ops.unstack(inputs, time_axis)
            outputs = [self._step(step, time_axis) for step in steps]
            return ops.stack(outputs, time_axis)
        merge_axis = self.reshape_with_axis % rank
        perm, pos = _merge_plan(time_axis, merge_axis, rank)
        moved = ops.transpose(inputs, perm)
        shape = tuple(moved.shape)
        outputs = self.layer(ops.reshape(moved, shape[:pos] + (-1,) + shape[pos + 2:]))
        if not isinstance(outputs, Tensor) or pos >= outputs.ndim or \
                outputs.shape[pos] != shape[pos] * shape[pos + 1]:
            raise ValueError(f"{owner}: the layer must keep the merged axis {pos} "
                             f"({shape[pos] * shape[pos + 1]} long), got {describe(outputs)}")
        out_shape = tuple(outputs.shape[:pos]) + shape[pos:pos + 2] + tuple(outputs.shape[pos + 1:])
        return ops.reshape(outputs, (-1,) + out_shape[1:])

    def _step(self, step, time_axis: int):
        out = self.layer(step)
        if not isinstance(out, Tensor) or time_axis > out.ndim:
            raise ValueError(f"{self.cls_name}: each step's output must be a Tensor of rank >= "
                             f"{time_axis}, got {describe(out)}")
        return out


def _merge_plan(time_axis: int, merge_axis: int, rank: int) -> tuple[tuple[int, ...], int]:
    """MindSpore's plan for merging the time axis with ``merge_axis``: the permutation that makes
    them adjacent (the later of the time axis and the neighbour slot moves next to the other),
    and the position of the pair after it."""
    if merge_axis == rank - 1:
        slot = rank - 2
    else:
        slot = merge_axis + 1 if time_axis > merge_axis else merge_axis - 1
    low, high = sorted((slot, time_axis))
    axes = tuple(range(rank))
    perm = axes[:low] + (high,) + axes[low:high] + axes[high + 1:]
    return perm, min(slot, merge_axis)

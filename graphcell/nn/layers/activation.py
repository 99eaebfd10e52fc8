"""Activation layers: ``ReLU``, ``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax``.

Each is a thin Cell over one registry op, so its gradient is the op's bprop rule. ``get_activation``
maps MindSpore's activation names (``Dense(..., activation='relu')``) to a new cell.

Example::

    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> nn.ReLU()(ms.Tensor([-1.0, 2.0])).asnumpy()
    array([0., 2.], dtype=float32)
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int
from graphcell_ir.ops import functional as F

__all__ = ["ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "get_activation"]


class ReLU(Cell):
    """``max(x, 0)`` element-wise.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.ReLU()(ms.Tensor([-1.0, 0.5])).asnumpy()
        array([0. , 0.5], dtype=float32)
    """

    def construct(self, x):
        return ops.relu(x)


class Sigmoid(Cell):
    """``1 / (1 + exp(-x))`` element-wise.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Sigmoid()(ms.Tensor([0.0])).asnumpy()
        array([0.5], dtype=float32)
    """

    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(Cell):
    """``tanh(x)`` element-wise.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Tanh()(ms.Tensor([0.0])).asnumpy()
        array([0.], dtype=float32)
    """

    def construct(self, x):
        return ops.tanh(x)


def _check_axis(axis, owner: str, allow_tuple: bool):
    ok = _is_int(axis) or (allow_tuple and isinstance(axis, tuple) and axis
                           and all(_is_int(a) for a in axis))
    if not ok:
        want = "an int or a non-empty tuple of ints" if allow_tuple else "an int"
        raise TypeError(f"{owner}: 'axis' must be {want}, got {axis!r}")
    return axis


class Softmax(Cell):
    """``exp(x) / sum(exp(x))`` over ``axis`` (an int or a tuple of ints; default the last).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.Softmax()(ms.Tensor([0.0, 0.0])).asnumpy()
        array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _check_axis(axis, self.cls_name, allow_tuple=True)

    def construct(self, x):
        return F.softmax(x, axis=self.axis)  # the primitive: an int or a tuple of axes


class LogSoftmax(Cell):
    """``log(softmax(x))`` over ``axis`` (an int; default the last), computed stably.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LogSoftmax()(ms.Tensor([0.0, 0.0])).asnumpy()
        array([-0.6931472, -0.6931472], dtype=float32)
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _check_axis(axis, self.cls_name, allow_tuple=False)

    def construct(self, x):
        return ops.log_softmax(x, axis=self.axis)


_ACTIVATIONS = {"relu": ReLU, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": Softmax,
                "logsoftmax": LogSoftmax}


def get_activation(name, prim_name=None):
    """A new activation cell from MindSpore's name for it (``'relu'``, ``'softmax'``...).

    ``None`` gives ``None``. Example::

        >>> from graphcell import nn
        >>> nn.get_activation('relu')
        ReLU()
    """
    if name is None:
        return None
    owner = prim_name or "get_activation"
    if not isinstance(name, str):
        raise TypeError(f"{owner}: the activation name must be a str, got {type(name).__name__}")
    cls = _ACTIVATIONS.get(name)
    if cls is None:
        raise KeyError(f"{owner}: unknown activation {name!r}; graphcell supports "
                       f"{sorted(_ACTIVATIONS)}")
    return cls()

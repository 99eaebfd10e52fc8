"""``SGD``: stochastic gradient descent with optional momentum, dampening and Nesterov, through
``ops.SGD``.

MindSpore's update rule (checked against 2.10), for a parameter ``p`` with gradient ``g`` (after
weight decay, gradient centralization and loss scale), learning rate ``lr``, momentum ``u`` and
dampening ``d``::

    momentum == 0:   p = p - lr * g                       (accum and stat are left alone)
    otherwise:       accum = g                            on the first step (stat is 1)
                     accum = u * accum + (1 - d) * g      afterwards
                     p = p - lr * accum                   (nesterov: p - lr * (g + u * accum))

The state lives in ``accum.<name>`` (zeros) and ``stat.<name>`` (ones, set to 0 after the
first step), element-wise as in MindSpore.
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_number, check_bool
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor

__all__ = ["SGD"]


def _non_negative(value, name: str, owner: str) -> float:
    if not _is_number(value):
        raise TypeError(f"{owner}: '{name}' must be a float, got {type(value).__name__} "
                        f"{value!r}")
    if value < 0:
        raise ValueError(f"{owner}: '{name}' must be in [0.0, inf], got {float(value)}")
    return float(value)


class SGD(Optimizer):
    """``SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
    nesterov=False, loss_scale=1.0)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> _ = nn.SGD([w], learning_rate=0.5)((ms.Tensor([1.0]),))
        >>> w.asnumpy()
        array([0.5], dtype=float32)
    """

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        momentum = _non_negative(momentum, "momentum", owner)
        self.dampening = _non_negative(dampening, "dampening", owner)
        self.nesterov = check_bool(nesterov, "nesterov", owner)
        if nesterov and (momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"{owner}: nesterov=True needs momentum > 0 and dampening 0, got "
                             f"momentum {momentum} and dampening {self.dampening}")
        if self.dynamic_weight_decay or (self.is_group and any(
                isinstance(d, Cell) for d in self.weight_decay)):
            raise TypeError(f"{owner}: dynamic weight decay (a Cell) is not supported by SGD (as "
                            "in MindSpore); pass a float")
        self.momentum = Parameter(Tensor(np.asarray(momentum, np.float32)), name="momentum")
        self.opt = ops.SGD(self.dampening, 0.0, self.nesterov)
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        self.advance_step()
        for i, (p, accum, stat, g) in enumerate(zip(self.parameters, self.accum, self.stat,
                                                    gradients)):
            self.opt(p, g, lrs[i] if self.is_group_lr else lrs, accum, self.momentum, stat)
        return tuple(True for _ in self.parameters)

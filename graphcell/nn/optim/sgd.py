"""``SGD``: stochastic gradient descent with optional momentum, dampening and Nesterov.

MindSpore's update rule (checked against 2.10), for a parameter ``p`` with gradient ``g`` (after
weight decay and loss scale), learning rate ``lr``, momentum ``u`` and dampening ``d``::

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
from graphcell.nn.layers._validate import check_bool, check_float
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor

__all__ = ["SGD"]


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
        momentum = check_float(momentum, "momentum", owner, low=0.0)
        self.dampening = check_float(dampening, "dampening", owner, low=0.0)
        self.nesterov = check_bool(nesterov, "nesterov", owner)
        if nesterov and (momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"{owner}: nesterov=True needs momentum > 0 and dampening 0, got "
                             f"momentum {momentum} and dampening {self.dampening}")
        self.momentum = Parameter(Tensor(np.asarray(momentum, np.float32)), name="momentum")
        self._use_momentum = momentum > 0.0  # decided once, like MindSpore's kernel selection
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        updates = []
        for i, (p, accum, stat, g) in enumerate(zip(self.parameters, self.accum, self.stat,
                                                    gradients)):
            lr = lrs[i] if self.is_group_lr else lrs
            if not self._use_momentum:
                updates.append((p, p - lr * g))
                continue
            u = self.momentum
            later = u * accum + g * (1.0 - self.dampening)
            accum_new = ops.select(ops.gt(stat, 0), g, later)
            step = g + u * accum_new if self.nesterov else accum_new
            updates += [(accum, accum_new), (stat, ops.zeros_like(stat)), (p, p - lr * step)]
        return self.commit(updates)

"""``Momentum``: SGD with heavy-ball (or Nesterov) momentum, MindSpore's update rule.

For each parameter ``p`` with gradient ``g`` (after weight decay and loss scale), learning rate
``lr`` and momentum ``u`` (checked against MindSpore 2.10)::

    accum = u * accum + g
    p     = p - lr * accum                       # use_nesterov=False
    p     = p - lr * (g + u * accum)             # use_nesterov=True

``accum`` lives in ``moments``, zero-initialised clones of the parameters named
``moments.<parameter name>``. (MindSpore 2.10's CPU kernel ignores ``use_nesterov`` and always takes
the first form; graphcell follows MindSpore's documented formula.)
"""
from __future__ import annotations

import numpy as np

from graphcell.nn.layers._validate import check_bool, check_float
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """``Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
    use_nesterov=False)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> opt = nn.Momentum([w], learning_rate=0.1, momentum=0.9)
        >>> _ = opt((ms.Tensor([1.0]),)); _ = opt((ms.Tensor([1.0]),))
        >>> w.asnumpy()          # 1 - 0.1 * 1 - 0.1 * (0.9 * 1 + 1)
        array([0.71], dtype=float32)
        >>> opt.moments
        (Parameter (name=moments.w, shape=(1,), dtype=Float32, requires_grad=True),)
    """

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        value = check_float(momentum, "momentum", self.cls_name, low=0.0)
        self.momentum = Parameter(Tensor(np.asarray(value, np.float32)), name="momentum")
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", self.cls_name)
        self.moments = self.parameters.clone(prefix="moments", init="zeros")

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        u = self.momentum
        updates = []
        for i, (p, accum, g) in enumerate(zip(self.parameters, self.moments, gradients)):
            lr = lrs[i] if self.is_group_lr else lrs
            accum_new = u * accum + g
            step = g + u * accum_new if self.use_nesterov else accum_new
            updates += [(accum, accum_new), (p, p - lr * step)]
        return self.commit(updates)

"""``Momentum``: SGD with heavy-ball (or Nesterov) momentum, through ``ops.ApplyMomentum``.

For each parameter ``p`` with gradient ``g`` (after weight decay, gradient centralization and loss
scale), learning rate ``lr`` and momentum ``u`` (checked against MindSpore 2.10)::

    accum = u * accum + g
    p     = p - lr * accum                       # use_nesterov=False
    p     = p - lr * (g + u * accum)             # use_nesterov=True

``accum`` lives in ``moments``, zero-initialised clones of the parameters named
``moments.<parameter name>``. (MindSpore 2.10's CPU kernel ignores ``use_nesterov`` and always takes
the first form; graphcell follows MindSpore's documented formula.)
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.layers._validate import check_bool
from graphcell.nn.optim._checks import float_arg
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
        value = float_arg(momentum, "momentum", self.cls_name, low=0.0)
        self.momentum = Parameter(Tensor(np.asarray(value, np.float32)), name="momentum")
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", self.cls_name)
        self.moments = self.parameters.clone(prefix="moments", init="zeros")
        self.opt = ops.ApplyMomentum(use_nesterov=self.use_nesterov)

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        self.advance_step()
        for i, (p, accum, g) in enumerate(zip(self.parameters, self.moments, gradients)):
            self.opt(p, accum, lrs[i] if self.is_group_lr else lrs, g, self.momentum)
        return tuple(True for _ in self.parameters)

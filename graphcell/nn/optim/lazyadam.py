"""``LazyAdam``: Adam whose sparse gradients update only the rows they name. graphcell's
gradients are dense, so its update is Adam's (``ops.Adam``), as MindSpore 2.10 computes it for a
dense gradient; ``beta1_power``/``beta2_power`` have shape ``(1,)``. (MindSpore 2.10 deprecates
it for ``Adam(use_lazy=True)``.)
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.layers._validate import check_bool
from graphcell.nn.optim._checks import betas_eps, float_arg
from graphcell.nn.optim.adam import BetaPowers, _scalar_param
from graphcell.nn.optim.optimizer import Optimizer

__all__ = ["LazyAdam"]


class LazyAdam(BetaPowers, Optimizer):
    """``LazyAdam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> _ = nn.LazyAdam([w], learning_rate=0.1)((ms.Tensor([3.0]),))
        >>> w.asnumpy().round(4)
        array([0.9], dtype=float32)
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        self.beta1, self.beta2, self.eps = betas_eps(beta1, beta2, eps, owner)
        if not self.is_group:
            float_arg(weight_decay, "weight_decay", owner, low=0.0)
        self.use_locking = check_bool(use_locking, "use_locking", owner)
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", owner)
        self.beta1_power = _scalar_param(1.0, "beta1_power", (1,))
        self.beta2_power = _scalar_param(1.0, "beta2_power", (1,))
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        self.opt = ops.Adam(self.use_locking, self.use_nesterov)

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        self.advance_step()
        b1_power, b2_power = self.advance_beta_powers()
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moment1, self.moment2,
                                             gradients)):
            self.opt(p, m, v, b1_power, b2_power, lrs[i] if self.is_group_lr else lrs,
                     self.beta1, self.beta2, self.eps, g)
        return tuple(True for _ in self.parameters)

"""``Adam``, ``AdamWeightDecay`` and ``AdamOffload``: adaptive moment estimation, through
MindSpore's Primitives (``ops.Adam``, ``ops.ApplyAdamWithAmsgradV2``, ``ops.AdamWeightDecay``,
``ops.AdamNoUpdateParam``), checked against MindSpore 2.10.

``Adam``, for a parameter ``p`` with gradient ``g`` (after weight decay — L2, added to the
gradient — gradient centralization and loss scale) at step ``t``::

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    lr_t = lr * sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    p = p - lr_t * m / (sqrt(v) + eps)                              # use_nesterov=False
    p = p - lr_t * (beta1 * m + (1 - beta1) * g) / (sqrt(v) + eps)  # use_nesterov=True
    (use_amsgrad: vhat = max(vhat, v) replaces v in the denominator)

``AdamWeightDecay`` (decoupled decay, no bias correction, no loss scale)::

    p = p - lr * (m / (sqrt(v) + eps) + weight_decay * p)

graphcell's gradients are dense, for which ``use_lazy`` (only the rows of a sparse gradient
move) and ``use_offload`` (the update computed on the host) give Adam's update; both are accepted.
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.layers._validate import check_bool
from graphcell.nn.optim._checks import betas_eps
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor

__all__ = ["Adam", "AdamWeightDecay", "AdamOffload"]


def _scalar_param(value: float, name: str, shape=()) -> Parameter:
    return Parameter(Tensor(np.full(shape, value, np.float32)), name=name)


class BetaPowers:
    """The Adam family's bias correction: ``beta1_power``/``beta2_power`` Parameters advanced
    once per step (a method, so graph mode compiles it with the optimizer's construct)."""

    def advance_beta_powers(self) -> tuple:
        """``beta1 ** t`` and ``beta2 ** t`` for this step, written back."""
        b1_power = self.beta1_power * self.beta1
        b2_power = self.beta2_power * self.beta2
        ops.assign(self.beta1_power, b1_power)
        ops.assign(self.beta2_power, b2_power)
        return b1_power, b2_power


class Adam(BetaPowers, Optimizer):
    """``Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs)``
    (``kwargs``: ``use_lazy``, ``use_offload``).

    ``m`` and ``v`` live in ``moment1.<name>`` and ``moment2.<name>`` (zeros), ``vhat`` in
    ``vhat.<name>`` with ``use_amsgrad``; ``beta1 ** t`` and ``beta2 ** t`` in the 0-d Parameters
    ``beta1_power`` and ``beta2_power`` (ones at first).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> opt = nn.Adam([w], learning_rate=0.1)
        >>> _ = opt((ms.Tensor([3.0]),))
        >>> w.asnumpy().round(4)                 # the first step moves by about lr
        array([0.9], dtype=float32)
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        unknown = sorted(set(kwargs) - {"use_lazy", "use_offload"})
        if unknown:
            raise KeyError(f"{owner}: unknown keyword argument(s) {unknown}; the keywords are "
                           "'use_lazy' and 'use_offload'")
        self.beta1, self.beta2, self.eps = betas_eps(beta1, beta2, eps, owner)
        self.use_locking = check_bool(use_locking, "use_locking", owner)  # one writer: no effect
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", owner)
        self.use_amsgrad = check_bool(use_amsgrad, "use_amsgrad", owner)
        self.use_lazy = check_bool(kwargs.get("use_lazy", False), "use_lazy", owner)
        self.use_offload = check_bool(kwargs.get("use_offload", False), "use_offload", owner)
        if self.use_lazy and self.use_offload:
            raise ValueError(f"{owner}: 'use_lazy' and 'use_offload' cannot both be True")
        if self.use_amsgrad and (self.use_lazy or self.use_offload):
            raise ValueError(f"{owner}: 'use_amsgrad' cannot be combined with 'use_lazy' or "
                             "'use_offload'")
        self.beta1_power = _scalar_param(1.0, "beta1_power")
        self.beta2_power = _scalar_param(1.0, "beta2_power")
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        if self.use_amsgrad:
            self.vhat = self.parameters.clone(prefix="vhat", init="zeros")
            self.opt = ops.ApplyAdamWithAmsgradV2(self.use_locking)
        else:
            self.opt = ops.Adam(self.use_locking, self.use_nesterov)

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        self.advance_step()
        b1_power, b2_power = self.advance_beta_powers()
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moment1, self.moment2,
                                             gradients)):
            lr = lrs[i] if self.is_group_lr else lrs
            if self.use_amsgrad:
                self.opt(p, m, v, self.vhat[i], b1_power, b2_power, lr, self.beta1, self.beta2,
                         self.eps, g)
            else:
                self.opt(p, m, v, b1_power, b2_power, lr, self.beta1, self.beta2, self.eps, g)
        return tuple(True for _ in self.parameters)


class AdamOffload(BetaPowers, Optimizer):
    """``AdamOffload(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``: Adam whose step
    is computed by ``ops.AdamNoUpdateParam`` and added to the parameter (MindSpore computes it
    on the host; graphcell always does). ``beta1_power``/``beta2_power`` have shape ``(1,)``.
    (MindSpore 2.10 deprecates it for ``Adam(use_offload=True)``.)
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        self.beta1, self.beta2, self.eps = betas_eps(beta1, beta2, eps, owner)
        self.use_locking = check_bool(use_locking, "use_locking", owner)
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", owner)
        self.beta1_power = _scalar_param(1.0, "beta1_power", (1,))
        self.beta2_power = _scalar_param(1.0, "beta2_power", (1,))
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        self.opt = ops.AdamNoUpdateParam(self.use_locking, self.use_nesterov)

    def construct(self, gradients):
        gradients = self.check_gradients(gradients)
        gradients = self.scale_grad(self.decay_weight(gradients))
        lrs = self.get_lr()
        self.advance_step()
        b1_power, b2_power = self.advance_beta_powers()
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moment1, self.moment2,
                                             gradients)):
            lr = lrs[i] if self.is_group_lr else lrs
            step = self.opt(m, v, b1_power, b2_power, lr, self.beta1, self.beta2, self.eps, g)
            ops.assign_add(p, step)
        return tuple(True for _ in self.parameters)


class AdamWeightDecay(Optimizer):
    """``AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0)``: Adam with decoupled weight decay and no bias correction (the
    ``ops.AdamWeightDecay`` update); the decay applies to the parameters ``decay_flags`` selects
    (names without ``beta``/``gamma``, or groups with a positive decay). The moments live in
    ``adam_m.<name>`` and ``adam_v.<name>``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> opt = nn.AdamWeightDecay([w], learning_rate=0.1, weight_decay=0.5)
        >>> _ = opt((ms.Tensor([0.0]),))
        >>> w.asnumpy()              # 1 - 0.1 * (0 + 0.5 * 1)
        array([0.95], dtype=float32)
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = betas_eps(beta1, beta2, eps, self.cls_name)
        self.moments1 = self.parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="adam_v", init="zeros")
        self.fused_opt = ops.AdamWeightDecay()

    def construct(self, gradients):
        gradients = self.check_gradients(gradients)
        decays = self.get_weight_decay()
        lrs = self.get_lr()
        self.advance_step()
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moments1, self.moments2,
                                             gradients)):
            decay = (decays[i] if self.is_group else decays) if self.decay_flags[i] else 0.0
            self.fused_opt(p, m, v, lrs[i] if self.is_group_lr else lrs, self.beta1, self.beta2,
                           self.eps, decay, g)
        return tuple(True for _ in self.parameters)

"""``Adam``: adaptive moment estimation, MindSpore's update rule (checked against 2.10).

For a parameter ``p`` with gradient ``g`` (after weight decay — L2, added to the gradient — and
loss scale) at step ``t``::

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    lr_t = lr * sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    p = p - lr_t * m / (sqrt(v) + eps)                              # use_nesterov=False
    p = p - lr_t * (beta1 * m + (1 - beta1) * g) / (sqrt(v) + eps)  # use_nesterov=True

``m`` and ``v`` live in ``moment1.<name>`` and ``moment2.<name>`` (zeros); ``beta1 ** t`` and
``beta2 ** t`` in the 0-d Parameters ``beta1_power`` and ``beta2_power`` (ones at first).
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.layers._validate import check_bool, check_float
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor

__all__ = ["Adam"]


def _scalar_param(value: float, name: str) -> Parameter:
    return Parameter(Tensor(np.asarray(value, np.float32)), name=name)


class Adam(Optimizer):
    """``Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False)``.

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
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise KeyError(f"{owner}: unknown keyword argument(s) {sorted(unknown)}")
        for name in ("use_lazy", "use_offload"):
            if check_bool(kwargs.get(name, False), name, owner):
                raise ValueError(f"{owner}: '{name}' is not supported by graphcell yet")
        if check_bool(use_amsgrad, "use_amsgrad", owner):
            raise ValueError(f"{owner}: 'use_amsgrad' is not supported by graphcell yet")
        self.use_locking = check_bool(use_locking, "use_locking", owner)  # no effect: one thread
        self.use_nesterov = check_bool(use_nesterov, "use_nesterov", owner)
        self.beta1 = check_float(beta1, "beta1", owner, low=0.0, high=1.0, low_open=True,
                                 high_open=True)
        self.beta2 = check_float(beta2, "beta2", owner, low=0.0, high=1.0, low_open=True,
                                 high_open=True)
        self.eps = check_float(eps, "eps", owner, low=0.0, low_open=True)
        self.beta1_power = _scalar_param(1.0, "beta1_power")
        self.beta2_power = _scalar_param(1.0, "beta2_power")
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        b1, b2 = self.beta1, self.beta2
        b1_power = self.beta1_power * b1
        b2_power = self.beta2_power * b2
        correction = ops.sqrt(1.0 - b2_power) / (1.0 - b1_power)
        updates = [(self.beta1_power, b1_power), (self.beta2_power, b2_power)]
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moment1, self.moment2,
                                             gradients)):
            lr = lrs[i] if self.is_group_lr else lrs
            m_new = m * b1 + g * (1.0 - b1)
            v_new = v * b2 + ops.square(g) * (1.0 - b2)
            direction = m_new * b1 + g * (1.0 - b1) if self.use_nesterov else m_new
            p_new = p - lr * correction * direction / (ops.sqrt(v_new) + self.eps)
            updates += [(m, m_new), (v, v_new), (p, p_new)]
        return self.commit(updates)

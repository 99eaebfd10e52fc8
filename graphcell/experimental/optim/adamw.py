"""``AdamW`` of ``mindspore.experimental.optim``: Adam with decoupled weight decay (Loshchilov
and Hutter), PyTorch's formula, as MindSpore 2.10 computes it. At step ``t`` (``state_step``,
shared by the groups), per group of rate ``lr`` and decay ``wd``::

    p = p * (1 - lr * wd)
    m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g^2
    denom = sqrt(v) / sqrt(1 - beta2^t) + eps          (amsgrad: max of every v so far)
    p = p - lr / (1 - beta1^t) * m / denom

(``maximize`` negates the gradient). Unlike ``nn.AdamWeightDecay`` it corrects the moments'
bias and multiplies the parameter by ``1 - lr * wd`` before the step (``nn.AdamWeightDecay``
adds ``wd * p`` to the normalised step); the moments live in ``exp_avg.<name>``,
``exp_avg_sq.<name>`` and ``max_exp_avg_sq.<name>``.
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.experimental.optim.optimizer import Optimizer
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32

__all__ = ["AdamW"]


class AdamW(Optimizer):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
    amsgrad=False, *, maximize=False)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell.experimental import optim
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> _ = optim.AdamW([w], lr=0.1, weight_decay=0.5)((ms.Tensor([0.0]),))
        >>> w.asnumpy()                     # 1 * (1 - 0.1 * 0.5), then no step (m = 0)
        array([0.95], dtype=float32)
    """

    decoupled_decay = True
    """AdamW's decay scales the parameter; False (``mint.optim.Adam``): it is added to the
    gradient (``g + weight_decay * p``) and the parameter is not scaled."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        owner = type(self).__name__
        if lr < 0.0:
            raise ValueError(f"{owner}: invalid learning rate {lr} (it must be at least 0)")
        if eps < 0.0:
            raise ValueError(f"{owner}: invalid epsilon {eps} (it must be at least 0)")
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"{owner}: invalid beta parameter at index {i}: {betas[i]} (it "
                                 "must be in [0, 1))")
        if weight_decay < 0.0:
            raise ValueError(f"{owner}: invalid weight_decay {weight_decay} (it must be at "
                             "least 0)")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize})
        self.exp_avg = self.parameters.clone(prefix="exp_avg", init="zeros")
        self.exp_avg_sq = self.parameters.clone(prefix="exp_avg_sq", init="zeros")
        self.max_exp_avg_sq = self.parameters.clone(prefix="max_exp_avg_sq", init="zeros")
        self.state_step = Parameter(Tensor(np.int32(0)), name="state_step")

    def construct(self, gradients):
        ops.assign_add(self.state_step, ops.ones((), self.state_step.dtype))
        t = ops.cast(self.state_step, float32)
        for group_id, group in enumerate(self.param_groups):
            beta1, beta2 = group["betas"]
            start, end = self.group_start_id[group_id], self.group_start_id[group_id + 1]
            lr = self.lrs[group_id]
            wd = group["weight_decay"]
            decay_factor = 1.0 - lr * wd if self.decoupled_decay else 1.0
            step_size = lr / (1.0 - ops.pow(beta1, t))
            correction2 = ops.sqrt(1.0 - ops.pow(beta2, t))
            for i in range(start, end):
                g = -gradients[i] if group["maximize"] else gradients[i]
                if not self.decoupled_decay and wd != 0.0:
                    g = g + self.parameters[i] * wd
                self._update(i, g, decay_factor, step_size, correction2, beta1, beta2,
                             group["eps"], group["amsgrad"])
        return True

    def _update(self, i: int, g, decay_factor, step_size, correction2, beta1, beta2, eps,
                amsgrad: bool) -> None:
        p, m, v = self.parameters[i], self.exp_avg[i], self.exp_avg_sq[i]
        decayed = p * decay_factor
        m_new = ops.assign(m, m * beta1 + g * (1.0 - beta1))
        v_new = ops.assign(v, v * beta2 + g * g * (1.0 - beta2))
        if amsgrad:
            v_new = ops.assign(self.max_exp_avg_sq[i], ops.maximum(self.max_exp_avg_sq[i],
                                                                   v_new))
        denom = ops.sqrt(v_new) / correction2 + eps
        ops.assign(p, decayed - (m_new / denom) * step_size)

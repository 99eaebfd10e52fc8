"""``mint.optim``: PyTorch-style optimizers (``optimizer(grads)`` updates the parameters).

``AdamW`` is ``mindspore.experimental.optim.AdamW`` (the same algorithm: PyTorch's AdamW);
``Adam`` and ``SGD`` are PyTorch's Adam (L2 weight decay added to the gradient) and SGD (momentum,
dampening, Nesterov), written on the same ``Optimizer`` base, so parameter groups, ``lr``
Parameters and graph-mode compilation behave as they do there.

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> w = ms.Parameter(ms.Tensor([1.0, -2.0]), name="w")
    >>> _ = mint.optim.SGD([w], lr=0.1)((ms.Tensor([0.5, 0.25]),))
    >>> w.asnumpy()
    array([ 0.95 , -2.025], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.experimental.optim.adamw import AdamW
from graphcell.experimental.optim.optimizer import Optimizer
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32

__all__ = ["Adam", "AdamW", "FusedAdamW", "SGD"]


class FusedAdamW(AdamW):
    """``FusedAdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
    amsgrad=False, *, maximize=False)``: :class:`AdamW` (MindSpore fuses its update into one
    kernel on Ascend; graphcell's compiler fuses the update of :class:`AdamW` itself)."""


class Adam(AdamW):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
    *, maximize=False)``: PyTorch's Adam — ``weight_decay * p`` is added to the gradient (L2),
    then the bias-corrected Adam step of :class:`AdamW` without its decoupled decay."""

    decoupled_decay = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class SGD(Optimizer):
    """``SGD(params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
    maximize=False)``: PyTorch's SGD. With ``momentum``, the buffer starts as the first
    gradient and then is ``momentum * buf + (1 - dampening) * g``; Nesterov steps along
    ``g + momentum * buf``."""

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False):
        owner = type(self).__name__
        if lr < 0.0:
            raise ValueError(f"{owner}: invalid learning rate {lr} (it must be at least 0)")
        if momentum < 0.0:
            raise ValueError(f"{owner}: invalid momentum {momentum} (it must be at least 0)")
        if weight_decay < 0.0:
            raise ValueError(f"{owner}: invalid weight_decay {weight_decay} (it must be at "
                             "least 0)")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError(f"{owner}: Nesterov momentum needs a momentum > 0 and zero "
                             "dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize})
        self.momentum_buffer = self.parameters.clone(prefix="momentum_buffer", init="zeros")
        self.state_step = Parameter(Tensor(np.int32(0)), name="state_step")

    def construct(self, gradients):
        first = ops.cast(ops.equal(self.state_step, 0), float32)
        for group_id, group in enumerate(self.param_groups):
            start, end = self.group_start_id[group_id], self.group_start_id[group_id + 1]
            lr, momentum = self.lrs[group_id], group["momentum"]
            for i in range(start, end):
                p = self.parameters[i]
                g = -gradients[i] if group["maximize"] else gradients[i]
                if group["weight_decay"] != 0:
                    g = g + p * group["weight_decay"]
                if momentum != 0:
                    buf = self.momentum_buffer[i]
                    # the first step's buffer is the gradient itself (no dampening)
                    later = buf * momentum + g * (1.0 - group["dampening"])
                    new_buf = ops.assign(buf, g * first + later * (1.0 - first))
                    g = g + new_buf * momentum if group["nesterov"] else new_buf
                ops.assign(p, p - g * lr)
        ops.assign_add(self.state_step, ops.ones((), self.state_step.dtype))
        return True


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.mint.optim", name, "module 'graphcell.mint.optim'")

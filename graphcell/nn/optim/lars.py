"""``LARS``: layer-wise adaptive rate scaling (You et al., "Large batch training of convolutional
networks") around another optimizer. Each gradient ``g`` of a parameter ``w`` that
``lars_filter`` keeps becomes ``ops.LARSUpdate``'s ``ratio * (g + weight_decay * w)``, with the
trust ratio ``coefficient * |w| / (|g| + weight_decay * |w| + epsilon)``; then the wrapped
optimizer updates the parameters — without its own weight decay and loss scale, which LARS
applies instead (MindSpore 2.10's rules; its CPU build has no ``LARSUpdate`` kernel, so the
update is checked against the documented formula).
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.layers._validate import check_bool
from graphcell.nn.optim._checks import float_arg
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor

__all__ = ["LARS"]


def _default_filter(param) -> bool:
    return "LayerNorm" not in param.name and "bias" not in param.name


class LARS(Optimizer):
    """``LARS(optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
    lars_filter=lambda x: 'LayerNorm' not in x.name and 'bias' not in x.name)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([3.0, 4.0]), name="w")
        >>> opt = nn.LARS(nn.SGD([w], learning_rate=1.0), coefficient=0.1, epsilon=0.0)
        >>> _ = opt((ms.Tensor([0.6, 0.8]),))
        >>> w.asnumpy()            # ratio 0.1 * 5 / 1: w - 0.5 * g
        array([2.7, 3.6], dtype=float32)
    """

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
                 lars_filter=_default_filter):
        super().__init__(0.0, [Parameter(Tensor(np.float32(0.0)), name="fake_param")])
        owner = self.cls_name
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{owner}: 'optimizer' must be an nn.Optimizer, got "
                            f"{type(optimizer).__name__}")
        epsilon = float_arg(epsilon, "epsilon", owner)
        coefficient = float_arg(coefficient, "coefficient", owner)
        self.use_clip = check_bool(use_clip, "use_clip", owner)
        self.opt = optimizer
        self.parameters = optimizer.parameters
        self.global_step = optimizer.global_step
        self.is_group, self.is_group_lr = optimizer.is_group, optimizer.is_group_lr
        self.dynamic_lr = optimizer.dynamic_lr
        if self.use_clip and self.is_group_lr and self.dynamic_lr:
            raise ValueError(f"{owner}: with use_clip=True the wrapped optimizer cannot have both "
                             "group and dynamic learning rates")
        self.learning_rate = optimizer.learning_rate
        self.lars_flag = tuple(bool(lars_filter(p)) for p in self.parameters)
        self._take_over_decay_and_scale(optimizer)
        self.lars = ops.LARSUpdate(epsilon, coefficient, self.use_clip)

    def _take_over_decay_and_scale(self, optimizer: Optimizer) -> None:
        """LARS applies the wrapped optimizer's weight decay and loss scale itself."""
        self.weight_decay, self.decay_flags = optimizer.weight_decay, optimizer.decay_flags
        self.dynamic_weight_decay = optimizer.dynamic_weight_decay
        self.dynamic_decay_flags = optimizer.dynamic_decay_flags
        self.loss_scale, self.need_scale = optimizer.loss_scale, optimizer.need_scale
        self.reciprocal_scale = optimizer.reciprocal_scale
        optimizer.exec_weight_decay = False
        optimizer.need_scale = False

    def construct(self, gradients):
        gradients = self.scale_grad(self.check_gradients(gradients))
        lrs = self.get_lr() if self.use_clip else 0.0
        decays = self.get_weight_decay()
        out = []
        for i, (p, g) in enumerate(zip(self.parameters, gradients)):
            if not self.lars_flag[i]:
                out.append(g)
                continue
            decay = (decays[i] if self.is_group else decays) if self.decay_flags[i] else 0.0
            lr = lrs[i] if self.use_clip and self.is_group_lr else lrs
            out.append(self.lars(p, g, ops.sum(ops.square(p)), ops.sum(ops.square(g)),
                                 decay / self.loss_scale, lr))
        return self.opt(tuple(out))

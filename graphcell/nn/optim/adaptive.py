"""The per-coordinate adaptive optimizers, each a loop over MindSpore's Primitive of the same
update (checked against MindSpore 2.10): ``RMSProp`` (``ApplyRMSProp``, centered:
``ApplyCenteredRMSProp``), ``Adagrad`` (``ApplyAdagrad``), ``Adadelta`` (``ApplyAdadelta``),
``AdaMax`` (``ApplyAdaMax``), ``ProximalAdagrad`` (``ApplyProximalAdagrad``) and ``FTRL``
(``ApplyFtrl``). The gradients first go through weight decay, gradient centralization and the
loss scale (``Optimizer.prepare_gradients``).

Example::

    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> opt = nn.Adagrad([w], accum=0.0, learning_rate=0.5)
    >>> _ = opt((ms.Tensor([2.0]),))
    >>> w.asnumpy()               # 1 - 0.5 * 2 / sqrt(4)
    array([0.5], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.layers._validate import check_bool
from graphcell.nn.optim._checks import betas_eps, float_arg
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor

__all__ = ["RMSProp", "Adagrad", "Adadelta", "AdaMax", "ProximalAdagrad", "FTRL"]


class RMSProp(Optimizer):
    """``RMSProp(params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
    use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0)``::

        ms = decay * ms + (1 - decay) * g^2                       (mean_square, ones at first)
        mg = decay * mg + (1 - decay) * g                         (mean_grad, centered only)
        mom = momentum * mom + lr * g / sqrt(ms - mg^2 + epsilon) (moment; without mg^2 if not
        p = p - mom                                                centered)
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        self.decay = float_arg(decay, "decay", owner, low=0.0)
        self.momentum = float_arg(momentum, "momentum", owner, low=0.0)
        self.epsilon = float_arg(epsilon, "epsilon", owner, low=0.0, low_open=True)
        use_locking = check_bool(use_locking, "use_locking", owner)
        self.centered = check_bool(centered, "centered", owner)
        if self.centered:
            self.opt = ops.ApplyCenteredRMSProp(use_locking)
            self.mg = self.parameters.clone(prefix="mean_grad", init="zeros")
        else:
            self.opt = ops.ApplyRMSProp(use_locking)
        self.ms = self.parameters.clone(prefix="mean_square", init="ones")
        self.moment = self.parameters.clone(prefix="moment", init="zeros")

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        self.advance_step()
        for i, (p, ms, mom, g) in enumerate(zip(self.parameters, self.ms, self.moment,
                                                gradients)):
            lr = lrs[i] if self.is_group_lr else lrs
            if self.centered:
                self.opt(p, self.mg[i], ms, mom, g, lr, self.decay, self.momentum, self.epsilon)
            else:
                self.opt(p, ms, mom, ops.cast(lr, g.dtype), g, self.decay, self.momentum,
                         self.epsilon)
        return tuple(True for _ in self.parameters)


class Adagrad(Optimizer):
    """``Adagrad(params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
    weight_decay=0.0)``: ``accum += g^2; p -= lr * g / sqrt(accum)`` (``accum.<name>``, starting
    at ``accum``)."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        accum = float_arg(accum, "accum", owner, low=0.0)
        update_slots = check_bool(update_slots, "update_slots", owner)
        self.accum = self.parameters.clone(prefix="accum", init=accum)
        self.opt = ops.ApplyAdagrad(update_slots=update_slots)

    def construct(self, grads):
        grads = self.prepare_gradients(grads)
        lrs = self.get_lr()
        self.advance_step()
        for i, (p, accum, g) in enumerate(zip(self.parameters, self.accum, grads)):
            self.opt(p, accum, lrs[i] if self.is_group_lr else lrs, g)
        return tuple(True for _ in self.parameters)


class Adadelta(Optimizer):
    """``Adadelta(params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
    weight_decay=0.0)``::

        accum = rho * accum + (1 - rho) * g^2
        update = sqrt(accum_update + epsilon) * g / sqrt(accum + epsilon)
        accum_update = rho * accum_update + (1 - rho) * update^2
        p = p - lr * update
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        self.rho = float_arg(rho, "rho", owner, 0.0, 1.0)
        self.epsilon = float_arg(epsilon, "epsilon", owner, low=0.0)
        self.accum = self.parameters.clone(prefix="accum", init=0)
        self.accum_update = self.parameters.clone(prefix="accum_update", init=0)
        self.opt = ops.ApplyAdadelta()

    def construct(self, grads):
        grads = self.prepare_gradients(grads)
        lrs = self.get_lr()
        self.advance_step()
        for i, (p, accum, update, g) in enumerate(zip(self.parameters, self.accum,
                                                      self.accum_update, grads)):
            self.opt(p, accum, update, lrs[i] if self.is_group_lr else lrs, self.rho,
                     self.epsilon, g)
        return tuple(True for _ in self.parameters)


class AdaMax(Optimizer):
    """``AdaMax(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
    weight_decay=0.0, loss_scale=1.0)``: Adam with the infinity norm::

        m = beta1 * m + (1 - beta1) * g;  v = max(beta2 * v, |g|)
        p = p - lr / (1 - beta1 ** t) * m / (v + eps)

    (``moment1``, ``moment2``; ``beta1_power`` of shape ``(1,)``).
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
                 weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps = betas_eps(beta1, beta2, eps, self.cls_name)
        self.beta1_power = Parameter(Tensor(np.ones(1, np.float32)), name="beta1_power")
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        self.opt = ops.ApplyAdaMax()

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        self.advance_step()
        b1_power = self.beta1_power * self.beta1
        ops.assign(self.beta1_power, b1_power)
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moment1, self.moment2,
                                             gradients)):
            self.opt(p, m, v, b1_power, lrs[i] if self.is_group_lr else lrs, self.beta1,
                     self.beta2, self.eps, g)
        return tuple(True for _ in self.parameters)


class ProximalAdagrad(Optimizer):
    """``ProximalAdagrad(params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0,
    use_locking=False, loss_scale=1.0, weight_decay=0.0)``: Adagrad followed by the proximal
    step of the ``l1``/``l2`` penalties (``ops.ApplyProximalAdagrad``)."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        accum = float_arg(accum, "accum", owner, low=0.0)
        self.l1 = float_arg(l1, "l1", owner, low=0.0)
        self.l2 = float_arg(l2, "l2", owner, low=0.0)
        self.use_locking = check_bool(use_locking, "use_locking", owner)
        self.accum = self.parameters.clone(prefix="accum", init=accum)
        self.opt = ops.ApplyProximalAdagrad(use_locking=self.use_locking)

    def construct(self, grads):
        grads = self.prepare_gradients(grads)
        lrs = self.get_lr()
        self.advance_step()
        for i, (p, accum, g) in enumerate(zip(self.parameters, self.accum, grads)):
            self.opt(p, accum, lrs[i] if self.is_group_lr else lrs, self.l1, self.l2, g)
        return tuple(True for _ in self.parameters)


class FTRL(Optimizer):
    """``FTRL(params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
    use_locking=False, loss_scale=1.0, weight_decay=0.0)``: follow-the-regularized-leader
    (``ops.ApplyFtrl``; ``moments.<name>`` start at ``initial_accum``, ``linear.<name>`` at 0).
    The learning rate is fixed (no schedule, no group rates, as in MindSpore); without groups
    the weight decay applies to every parameter.
    """

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0,
                 l2=0.0, use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        owner = self.cls_name
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(f"{owner}: dynamic and group learning rates are not supported "
                             f"(as in MindSpore), got dynamic {self.dynamic_lr} and group "
                             f"{self.is_group_lr}")
        initial_accum = float_arg(initial_accum, "initial_accum", owner, low=0.0)
        self.lr = float_arg(learning_rate, "learning_rate", owner, low=0.0, low_open=True)
        self.lr_power = float_arg(lr_power, "lr_power", owner, high=0.0)
        self.l1 = float_arg(l1, "l1", owner, low=0.0)
        self.l2 = float_arg(l2, "l2", owner, low=0.0)
        self.use_locking = check_bool(use_locking, "use_locking", owner)
        self.moments = self.parameters.clone(prefix="moments", init=initial_accum)
        self.linear = self.parameters.clone(prefix="linear", init="zeros")
        if not self.is_group:
            self.decay_flags = tuple(True for _ in self.parameters)
            self.exec_weight_decay = self.dynamic_decay_flags or self.weight_decay > 0
        self.opt = ops.ApplyFtrl(use_locking=self.use_locking)

    def construct(self, grads):
        grads = self.prepare_gradients(grads)
        lr = self.get_lr()
        self.advance_step()
        for p, m, lin, g in zip(self.parameters, self.moments, self.linear, grads):
            self.opt(p, m, lin, g, lr, self.l1, self.l2, self.lr_power)
        return tuple(True for _ in self.parameters)



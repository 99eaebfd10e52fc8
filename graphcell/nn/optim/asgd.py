"""``ASGD`` (averaged SGD, Polyak and Juditsky) and ``Rprop`` (resilient back-propagation), as
MindSpore 2.10 computes them (written in ``construct`` there too, not as Primitives)."""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.optim._checks import float_arg
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.parameter import Parameter, ParameterTuple
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32

__all__ = ["ASGD", "Rprop"]


class ASGD(Optimizer):
    """``ASGD(params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0)``,
    at step ``t`` (from 1)::

        eta = lr                                         on the first step
        p = p * (1 - lambd * eta) - eta * g
        ax = ax + (p - ax) * mu   (ax = p while mu is 1)
        eta = lr / (1 + lambd * lr * t) ** alpha;   mu = 1 / max(1, t - t0)

    ``eta_<name>``, ``mu_<name>`` (0-d) and ``ax_.<name>`` per parameter.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> _ = nn.ASGD([w], learning_rate=0.5, lambd=0.0)((ms.Tensor([1.0]),))
        >>> w.asnumpy()
        array([0.5], dtype=float32)
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        owner = self.cls_name
        self.lambd = float_arg(lambd, "lambd", owner)
        self.alpha = float_arg(alpha, "alpha", owner)
        self.t0 = float_arg(t0, "t0", owner)
        self.mu = ParameterTuple(Parameter(Tensor(np.float32(1.0)), name=f"mu_{p.name}")
                                 for p in self.parameters)
        self.eta = ParameterTuple(Parameter(Tensor(np.float32(0.0)), name=f"eta_{p.name}")
                                  for p in self.parameters)
        self.ax = self.parameters.clone(prefix="ax_", init="zeros")

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        self.advance_step()
        t = ops.reshape(ops.cast(self.global_step, float32), ())
        first = t == 1.0
        for i, (p, g, mu, eta, ax) in enumerate(zip(self.parameters, gradients, self.mu,
                                                    self.eta, self.ax)):
            lr = ops.reshape(lrs[i] if self.is_group_lr else lrs, ())
            eta_now = ops.select(first, lr, eta)
            p32 = ops.cast(p, float32)
            p_new = p32 * (1.0 - self.lambd * eta_now) - eta_now * ops.cast(g, float32)
            ops.assign(p, ops.cast(p_new, p.dtype))
            averaged = ax + ops.cast((p_new - ops.cast(ax, float32)) * mu, ax.dtype)
            ops.assign(ax, ops.select(mu != 1.0, averaged, ops.cast(p_new, ax.dtype)))
            ops.assign(eta, lr / ops.pow(1.0 + self.lambd * lr * t, self.alpha))
            ops.assign(mu, 1.0 / ops.maximum(1.0, t - self.t0))
        return True


class Rprop(Optimizer):
    """``Rprop(params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0),
    weight_decay=0.0)``: each coordinate moves by its own step size against the sign of its
    gradient; the step grows by ``etas[1]`` while the gradient keeps its sign and shrinks by
    ``etas[0]`` when it flips (and that step is skipped), within ``step_sizes``. The step sizes
    start at the learning rate (``prev.<name>``, ``step_size.<name>``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> opt = nn.Rprop([w], learning_rate=0.1)
        >>> _ = opt((ms.Tensor([2.0]),)); _ = opt((ms.Tensor([3.0]),))
        >>> w.asnumpy()              # 1 - 0.1 - 0.12
        array([0.78], dtype=float32)
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0),
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        owner = self.cls_name
        for name, pair in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(pair, tuple):
                raise TypeError(f"{owner}: '{name}' must be a tuple, got {type(pair).__name__}")
            if len(pair) != 2:
                raise ValueError(f"{owner}: '{name}' must hold 2 values, got {len(pair)}")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(f"{owner}: the largest step size must not be below the smallest, "
                             f"got {step_sizes}")
        self.etaminus = float_arg(etas[0], "etaminus", owner, 0.0, 1.0, True, True)
        self.etaplus = float_arg(etas[1], "etaplus", owner, low=1.0, low_open=True)
        self.step_size_min = float_arg(step_sizes[0], "min_step_sizes", owner)
        self.step_size_max = float_arg(step_sizes[1], "max_step_sizes", owner)
        self.prev = self.parameters.clone(prefix="prev", init="zeros")
        self.step_size = self.parameters.clone(prefix="step_size", init="zeros")

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lrs = self.get_lr()
        self.advance_step()
        first = ops.reshape(self.global_step, ()) == 1
        for i, (g, p, prev, size) in enumerate(zip(gradients, self.parameters, self.prev,
                                                   self.step_size)):
            lr = lrs[i] if self.is_group_lr else lrs
            size = ops.select(first, ops.ones_like(size) * lr, size)
            factor = ops.sign(g * prev)
            factor = ops.select(factor > 0, ops.full_like(factor, self.etaplus), factor)
            factor = ops.select(factor < 0, ops.full_like(factor, self.etaminus), factor)
            factor = ops.select(factor == 0, ops.ones_like(factor), factor)
            size = ops.clip_by_value(size * factor, self.step_size_min, self.step_size_max)
            g = ops.select(factor == self.etaminus, ops.zeros_like(g), g)
            ops.assign(p, p - ops.sign(g) * size)
            ops.assign(prev, g)
            ops.assign(self.step_size[i], size)
        return True

"""``Lamb``: layer-wise adaptive moments (You et al., "Large batch optimization for deep
learning"). MindSpore 2.10's CPU build has no kernel for its ``Lamb`` Primitive; graphcell
computes the documented update, as MindSpore's GPU kernel does, for parameter ``p`` with
gradient ``g`` at step ``t`` (1 on the first update)::

    m = beta1 * m + (1 - beta1) * g;    v = beta2 * v + (1 - beta2) * g^2
    r = (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps) + weight_decay * p
    trust = |p| / |r|   (1 when either norm is 0)
    p = p - lr * trust * r

The moments live in ``lamb_m.<name>`` and ``lamb_v.<name>``; the weight decay applies to the
parameters ``decay_flags`` selects.
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.optim._checks import betas_eps
from graphcell.nn.optim.optimizer import Optimizer
from graphcell_ir.ir.types import float32

__all__ = ["Lamb"]


def _norm(x):
    return ops.sqrt(ops.sum(ops.square(x)))


def _lamb_update(param, m, v, lr, beta1, beta2, eps, decay, t, gradient):
    """One Lamb update of ``param``, ``m`` and ``v`` (assigned); ``t`` is the step, from 1."""
    g = ops.cast(gradient, param.dtype)
    m_new = beta1 * m + (1.0 - beta1) * g
    v_new = beta2 * v + (1.0 - beta2) * ops.square(g)
    m_hat = m_new / (1.0 - ops.pow(beta1, t))
    v_hat = v_new / (1.0 - ops.pow(beta2, t))
    update = m_hat / (ops.sqrt(v_hat) + eps) + decay * param
    w_norm, u_norm = _norm(param), _norm(update)
    trust = ops.select(ops.logical_and(w_norm > 0, u_norm > 0), w_norm / u_norm,
                       ops.ones_like(w_norm))
    ops.assign(m, m_new)
    ops.assign(v, v_new)
    return ops.assign(param, param - lr * trust * update)


class Lamb(Optimizer):
    """``Lamb(params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([3.0, 4.0]), name="w")
        >>> _ = nn.Lamb([w], learning_rate=0.1)((ms.Tensor([1.0, 1.0]),))
        >>> w.asnumpy().round(4)     # r = (1, 1) (to eps), trust = 5 / sqrt(2)
        array([2.6464, 3.6464], dtype=float32)
    """

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = betas_eps(beta1, beta2, eps, self.cls_name)
        self.params = self.parameters
        self.moments1 = self.parameters.clone(prefix="lamb_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="lamb_v", init="zeros")

    def construct(self, gradients):
        gradients = self.check_gradients(gradients)
        decays = self.get_weight_decay()
        lrs = self.get_lr()
        self.advance_step()
        gradients = self.gradients_centralization(gradients)
        t = ops.reshape(ops.cast(self.global_step, float32), ())
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moments1, self.moments2,
                                             gradients)):
            decay = (decays[i] if self.is_group else decays) if self.decay_flags[i] else 0.0
            _lamb_update(p, m, v, lrs[i] if self.is_group_lr else lrs, self.beta1, self.beta2,
                         self.eps, decay, t, g)
        return tuple(True for _ in self.parameters)

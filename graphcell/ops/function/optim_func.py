"""MindSpore's optimizer Primitives (``ApplyMomentum``, ``Adam``, ``ApplyRMSProp``...): one update
step each, written against ``F``. They update their Parameter operands in place — ``assign``,
so in graph mode the Parameters are written back after the call, as for ``ops.assign`` — and
return what MindSpore 2.10 returns (the updated variable, or a tuple of the updated tensors).

Hyperparameters may be Python numbers or Tensors of one element; computations promote as any
arithmetic does, and every result is cast back to the dtype of the Parameter it updates.
``use_locking`` is accepted and has no effect (one process, one writer). The formulas are
MindSpore's (its docstrings), checked against MindSpore 2.10's CPU kernels by the golden cases.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> var = ms.Parameter(ms.Tensor([1.0, 2.0]), name="var")
    >>> ops.ApplyGradientDescent()(var, 0.5, ms.Tensor([2.0, 2.0])).asnumpy().tolist()
    [0.0, 1.0]
    >>> var.asnumpy().tolist()
    [0.0, 1.0]
"""
from __future__ import annotations

from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, float64
from graphcell_ir.ops import functional as F

__all__ = [
    "ApplyMomentum", "SGD", "Adam", "AdamWeightDecay", "ApplyAdadelta", "ApplyRMSProp",
    "ApplyCenteredRMSProp", "ApplyAdaMax", "ApplyAdagrad", "ApplyAdagradV2",
    "ApplyProximalAdagrad", "ApplyAdagradDA", "ApplyFtrl", "ApplyGradientDescent",
    "ApplyProximalGradientDescent", "ApplyAdamWithAmsgrad", "ApplyAdamWithAmsgradV2",
    "ApplyPowerSign", "ApplyAddSign", "ApplyKerasMomentum", "FusedSparseAdam",
    "FusedSparseLazyAdam", "FusedSparseFtrl", "FusedSparseProximalAdagrad", "AdamNoUpdateParam",
    "LARSUpdate",
]

_FLOATS = (float16, float32, float64)


# --- shared checks and writes ------------------------------------------------------------------

def _states(name: str, var, **others) -> None:
    """``var`` and the named tensors: Tensors of one shape; ``var`` a float tensor."""
    if not isinstance(var, Tensor):
        raise TypeError(f"{name}: var must be a Parameter or Tensor, got {type(var).__name__}")
    if var.dtype not in _FLOATS:
        raise TypeError(f"{name}: var must have a float dtype, got {var.dtype}")
    for what, t in others.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}: {what} must be a Tensor, got {type(t).__name__}")
        if tuple(t.shape) != tuple(var.shape):
            raise ValueError(f"{name}: {what} must have var's shape {list(var.shape)}, got "
                             f"{list(t.shape)}")


def _scalar(name: str, what: str, v):
    """A hyperparameter: a Python number, or a one-element Tensor as a 0-d one."""
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(f"{name}: {what} must be a scalar, got shape {list(v.shape)}")
        return F.reshape(v, shape=()) if v.ndim else v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise TypeError(f"{name}: {what} must be a number or a Tensor, got {type(v).__name__}")


def _write(target, value):
    """``target = value`` in place, ``value`` cast to target's dtype; returns the new value."""
    return F.assign(target, F.cast_like(value, target))


def _one_minus(v):
    return F.sub(1.0, v)


def _prox(v, lr, l1, l2):
    """The proximal step sign(v) / (1 + lr l2) * max(|v| - lr l1, 0)."""
    shrunk = F.maximum(F.sub(F.abs(v), F.mul(lr, l1)), 0.0)
    return F.mul(F.div(F.sign(v), F.add(1.0, F.mul(lr, l2))), shrunk)


# --- momentum and plain descent -------------------------------------------------------------------

def _apply_momentum(variable, accumulation, learning_rate, gradient, momentum,
                    use_nesterov=False, use_locking=False, gradient_scale=1.0):
    name = "ApplyMomentum"
    _states(name, variable, accumulation=accumulation, gradient=gradient)
    lr, u = _scalar(name, "learning_rate", learning_rate), _scalar(name, "momentum", momentum)
    g = gradient if gradient_scale == 1.0 else F.mul(gradient, float(gradient_scale))
    acc = _write(accumulation, F.add(F.mul(accumulation, u), g))
    step = F.add(F.mul(g, lr), F.mul(F.mul(acc, u), lr)) if use_nesterov else F.mul(acc, lr)
    return _write(variable, F.sub(variable, step))


ApplyMomentum = primitive(
    "ApplyMomentum", _apply_momentum, init=("use_nesterov", "use_locking", "gradient_scale"),
    doc="MindSpore's ``ApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0)"
        "(variable, accumulation, learning_rate, gradient, momentum)``: accumulation = "
        "accumulation * momentum + gradient; variable -= lr * accumulation (Nesterov: lr * "
        "(gradient + momentum * accumulation)). Returns the variable.")


def _sgd(parameters, gradient, learning_rate, accum, momentum, stat, dampening=0.0,
         weight_decay=0.0, nesterov=False):
    name = "SGD"
    if nesterov and dampening != 0:
        raise ValueError(f"{name}: dampening must be 0 when nesterov is True, got {dampening}")
    _states(name, parameters, gradient=gradient, accum=accum, stat=stat)
    lr, u = _scalar(name, "learning_rate", learning_rate), _scalar(name, "momentum", momentum)
    g = gradient if not weight_decay else F.add(gradient, F.mul(parameters, float(weight_decay)))
    if isinstance(u, float) and u <= 0:  # MindSpore's kernel: plain descent, state untouched
        return _write(parameters, F.sub(parameters, F.mul(g, lr)))
    first = F.greater(stat, 0.0)  # stat > 0: the first step, which starts the velocity at g
    velocity = F.select(first, g, F.add(F.mul(accum, u), F.mul(g, 1.0 - float(dampening))))
    step = F.add(g, F.mul(velocity, u)) if nesterov else velocity
    # the first step clears stat where it was positive, elsewhere it stays (MindSpore's kernel:
    # a negative stat is kept); written from ``first``, so the whole update is one kernel
    if not isinstance(u, float):  # a momentum tensor: its value picks the kernel's branch
        moving = F.greater(F.cast_like(u, stat), 0.0)
        velocity = F.select(moving, velocity, accum)
        _write(stat, F.select(F.logical_and(moving, first), F.zeros_like(stat), stat))
        step = F.select(moving, step, g)
    else:
        _write(stat, F.select(first, F.zeros_like(stat), stat))
    _write(accum, velocity)
    return _write(parameters, F.sub(parameters, F.mul(step, lr)))


SGD = primitive(
    "SGD", _sgd, init=("dampening", "weight_decay", "nesterov"),
    doc="MindSpore's ``SGD(dampening=0.0, weight_decay=0.0, nesterov=False)(parameters, "
        "gradient, learning_rate, accum, momentum, stat)``: momentum SGD whose first step (stat "
        "> 0) starts the velocity at the gradient; with momentum 0, plain descent that leaves "
        "accum and stat alone (MindSpore's kernel). Returns the parameters.")


def _apply_gradient_descent(var, alpha, delta):
    name = "ApplyGradientDescent"
    _states(name, var, delta=delta)
    return _write(var, F.sub(var, F.mul(_scalar(name, "alpha", alpha), delta)))


ApplyGradientDescent = primitive(
    "ApplyGradientDescent", _apply_gradient_descent,
    doc="MindSpore's ``ApplyGradientDescent()(var, alpha, delta)``: var -= alpha * delta.")


def _apply_proximal_gradient_descent(var, alpha, l1, l2, delta):
    name = "ApplyProximalGradientDescent"
    _states(name, var, delta=delta)
    a, l1, l2 = (_scalar(name, w, v) for w, v in (("alpha", alpha), ("l1", l1), ("l2", l2)))
    return _write(var, _prox(F.sub(var, F.mul(a, delta)), a, l1, l2))


ApplyProximalGradientDescent = primitive(
    "ApplyProximalGradientDescent", _apply_proximal_gradient_descent,
    doc="MindSpore's ``ApplyProximalGradientDescent()(var, alpha, l1, l2, delta)``.")


def _apply_keras_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False):
    name = "ApplyKerasMomentum"
    _states(name, var, accum=accum, grad=grad)
    lr, u = _scalar(name, "lr", lr), _scalar(name, "momentum", momentum)
    acc = _write(accum, F.sub(F.mul(accum, u), F.mul(grad, lr)))
    step = F.sub(F.mul(acc, u), F.mul(grad, lr)) if use_nesterov else acc
    return _write(var, F.add(var, step)), acc


ApplyKerasMomentum = primitive(
    "ApplyKerasMomentum", _apply_keras_momentum, init=("use_locking", "use_nesterov"),
    doc="MindSpore's ``ApplyKerasMomentum(use_locking=False, use_nesterov=False)(var, accum, lr, "
        "grad, momentum)``. Returns (var, accum).")


# --- adaptive learning rates ----------------------------------------------------------------------

def _adam_step(m, v, g, b1, b2):
    m_new = F.add(F.mul(m, b1), F.mul(g, _one_minus(b1)))
    v_new = F.add(F.mul(v, b2), F.mul(F.mul(g, g), _one_minus(b2)))
    return m_new, v_new


def _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient,
          use_locking=False, use_nesterov=False):
    name = "Adam"
    _states(name, var, m=m, v=v, gradient=gradient)
    b1p, b2p, lr, b1, b2, eps = (_scalar(name, w, x) for w, x in (
        ("beta1_power", beta1_power), ("beta2_power", beta2_power), ("lr", lr), ("beta1", beta1),
        ("beta2", beta2), ("epsilon", epsilon)))
    m_new, v_new = _adam_step(m, v, gradient, b1, b2)
    m_new, v_new = _write(m, m_new), _write(v, v_new)
    rate = F.div(F.mul(lr, F.sqrt(_one_minus(b2p))), _one_minus(b1p))
    direction = F.add(F.mul(m_new, b1), F.mul(gradient, _one_minus(b1))) if use_nesterov \
        else m_new
    step = F.div(F.mul(direction, rate), F.add(F.sqrt(v_new), eps))
    return _write(var, F.sub(var, step)), m_new, v_new


Adam = primitive(
    "Adam", _adam, init=("use_locking", "use_nesterov"),
    doc="MindSpore's ``Adam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, "
        "beta2_power, lr, beta1, beta2, epsilon, gradient)``. Returns (var, m, v).")


def _adam_no_update_param(m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient,
                          use_locking=False, use_nesterov=False):
    name = "AdamNoUpdateParam"
    _states(name, gradient, m=m, v=v)
    b1p, b2p, lr, b1, b2, eps = (_scalar(name, w, x) for w, x in (
        ("beta1_power", beta1_power), ("beta2_power", beta2_power), ("lr", lr), ("beta1", beta1),
        ("beta2", beta2), ("epsilon", epsilon)))
    m_new, v_new = _adam_step(m, v, gradient, b1, b2)
    m_new, v_new = _write(m, m_new), _write(v, v_new)
    rate = F.div(F.mul(lr, F.sqrt(_one_minus(b2p))), _one_minus(b1p))
    return F.neg(F.div(F.mul(m_new, rate), F.add(F.sqrt(v_new), eps)))


AdamNoUpdateParam = primitive(
    "AdamNoUpdateParam", _adam_no_update_param, init=("use_locking", "use_nesterov"),
    doc="MindSpore's ``AdamNoUpdateParam(use_locking=False, use_nesterov=False)(m, v, "
        "beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient)``: updates m and v and "
        "returns the step to add to the parameter.")


def _adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, gradient, use_locking=False):
    name = "AdamWeightDecay"
    _states(name, var, m=m, v=v, gradient=gradient)
    lr, b1, b2, eps, decay = (_scalar(name, w, x) for w, x in (
        ("lr", lr), ("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon), ("decay", decay)))
    g = F.cast_like(gradient, var)
    m_new, v_new = _adam_step(m, v, g, b1, b2)
    m_new, v_new = _write(m, m_new), _write(v, v_new)
    update = F.add(F.div(m_new, F.add(F.sqrt(v_new), eps)), F.mul(var, decay))
    return _write(var, F.sub(var, F.mul(update, lr))), m_new, v_new


AdamWeightDecay = primitive(
    "AdamWeightDecay", _adam_weight_decay, init=("use_locking",),
    doc="MindSpore's ``AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, "
        "decay, gradient)``: Adam without bias correction, plus decay * var in the update. "
        "Returns (var, m, v).")


def _amsgrad(name, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    _states(name, var, m=m, v=v, vhat=vhat, grad=grad)
    b1p, b2p, lr, b1, b2, eps = (_scalar(name, w, x) for w, x in (
        ("beta1_power", beta1_power), ("beta2_power", beta2_power), ("lr", lr), ("beta1", beta1),
        ("beta2", beta2), ("epsilon", epsilon)))
    rate = F.div(F.mul(lr, F.sqrt(_one_minus(b2p))), _one_minus(b1p))
    m_new, v_new = _adam_step(m, v, grad, b1, b2)
    m_new, v_new = _write(m, m_new), _write(v, v_new)
    vhat_new = _write(vhat, F.maximum(vhat, v_new))
    step = F.div(F.mul(m_new, rate), F.add(F.sqrt(vhat_new), eps))
    return _write(var, F.sub(var, step)), m_new, v_new, vhat_new


ApplyAdamWithAmsgrad = primitive(
    "ApplyAdamWithAmsgrad",
    lambda var, m, v, vhat, beta1_power, beta2_power, lr, grad, beta1=0.9, beta2=0.999,
    epsilon=1e-8, use_locking=False: _amsgrad("ApplyAdamWithAmsgrad", var, m, v, vhat,
                                              beta1_power, beta2_power, lr, beta1, beta2,
                                              epsilon, grad),
    init=("beta1", "beta2", "epsilon", "use_locking"),
    doc="MindSpore's ``ApplyAdamWithAmsgrad(beta1=0.9, beta2=0.999, epsilon=1e-8, "
        "use_locking=False)(var, m, v, vhat, beta1_power, beta2_power, lr, grad)``. Returns "
        "(var, m, v, vhat).")

ApplyAdamWithAmsgradV2 = primitive(
    "ApplyAdamWithAmsgradV2",
    lambda var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
    use_locking=False: _amsgrad("ApplyAdamWithAmsgradV2", var, m, v, vhat, beta1_power,
                                beta2_power, lr, beta1, beta2, epsilon, grad),
    init=("use_locking",),
    doc="MindSpore's ``ApplyAdamWithAmsgradV2(use_locking=False)(var, m, v, vhat, beta1_power, "
        "beta2_power, lr, beta1, beta2, epsilon, grad)``. Returns (var, m, v, vhat).")


def _apply_ada_max(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    name = "ApplyAdaMax"
    _states(name, var, m=m, v=v, grad=grad)
    b1p, lr, b1, b2, eps = (_scalar(name, w, x) for w, x in (
        ("beta1_power", beta1_power), ("lr", lr), ("beta1", beta1), ("beta2", beta2),
        ("epsilon", epsilon)))
    m_new = _write(m, F.add(F.mul(m, b1), F.mul(grad, _one_minus(b1))))
    v_new = _write(v, F.maximum(F.mul(v, b2), F.abs(grad)))
    step = F.mul(F.div(lr, _one_minus(b1p)), F.div(m_new, F.add(v_new, eps)))
    return _write(var, F.sub(var, step)), m_new, v_new


ApplyAdaMax = primitive(
    "ApplyAdaMax", _apply_ada_max,
    doc="MindSpore's ``ApplyAdaMax()(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad)``. "
        "Returns (var, m, v).")


def _apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    name = "ApplyAdadelta"
    _states(name, var, accum=accum, accum_update=accum_update, grad=grad)
    lr, rho, eps = (_scalar(name, w, x) for w, x in (("lr", lr), ("rho", rho),
                                                      ("epsilon", epsilon)))
    acc = _write(accum, F.add(F.mul(accum, rho), F.mul(F.mul(grad, grad), _one_minus(rho))))
    update = F.mul(F.sqrt(F.add(accum_update, eps)), F.div(grad, F.sqrt(F.add(acc, eps))))
    upd = _write(accum_update, F.add(F.mul(accum_update, rho),
                                     F.mul(F.mul(update, update), _one_minus(rho))))
    return _write(var, F.sub(var, F.mul(update, lr))), acc, upd


ApplyAdadelta = primitive(
    "ApplyAdadelta", _apply_adadelta,
    doc="MindSpore's ``ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, grad)``. "
        "Returns (var, accum, accum_update).")


def _apply_rms_prop(var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon,
                    use_locking=False):
    name = "ApplyRMSProp"
    _states(name, var, mean_square=mean_square, moment=moment, grad=grad)
    lr, rho, u, eps = (_scalar(name, w, x) for w, x in (
        ("learning_rate", learning_rate), ("decay", decay), ("momentum", momentum),
        ("epsilon", epsilon)))
    ms = _write(mean_square, F.add(F.mul(mean_square, rho), F.mul(F.mul(grad, grad),
                                                                  _one_minus(rho))))
    mom = _write(moment, F.add(F.mul(moment, u), F.div(F.mul(grad, lr), F.sqrt(F.add(ms, eps)))))
    return _write(var, F.sub(var, mom))


ApplyRMSProp = primitive(
    "ApplyRMSProp", _apply_rms_prop, init=("use_locking",),
    doc="MindSpore's ``ApplyRMSProp(use_locking=False)(var, mean_square, moment, learning_rate, "
        "grad, decay, momentum, epsilon)``. Returns var.")


def _apply_centered_rms_prop(var, mean_gradient, mean_square, moment, grad, learning_rate, decay,
                             momentum, epsilon, use_locking=False):
    name = "ApplyCenteredRMSProp"
    _states(name, var, mean_gradient=mean_gradient, mean_square=mean_square, moment=moment,
            grad=grad)
    lr, rho, u, eps = (_scalar(name, w, x) for w, x in (
        ("learning_rate", learning_rate), ("decay", decay), ("momentum", momentum),
        ("epsilon", epsilon)))
    mg = _write(mean_gradient, F.add(F.mul(mean_gradient, rho), F.mul(grad, _one_minus(rho))))
    ms = _write(mean_square, F.add(F.mul(mean_square, rho), F.mul(F.mul(grad, grad),
                                                                  _one_minus(rho))))
    denom = F.sqrt(F.add(F.sub(ms, F.mul(mg, mg)), eps))
    mom = _write(moment, F.add(F.mul(moment, u), F.div(F.mul(grad, lr), denom)))
    return _write(var, F.sub(var, mom))


ApplyCenteredRMSProp = primitive(
    "ApplyCenteredRMSProp", _apply_centered_rms_prop, init=("use_locking",),
    doc="MindSpore's ``ApplyCenteredRMSProp(use_locking=False)(var, mean_gradient, mean_square, "
        "moment, grad, learning_rate, decay, momentum, epsilon)``. Returns var.")


def _apply_adagrad(var, accum, lr, grad, update_slots=True, epsilon=None, name="ApplyAdagrad"):
    _states(name, var, accum=accum, grad=grad)
    lr = _scalar(name, "lr", lr)
    acc = _write(accum, F.add(accum, F.mul(grad, grad))) if update_slots else accum
    denom = F.sqrt(acc) if epsilon is None else F.add(F.sqrt(acc), float(epsilon))
    return _write(var, F.sub(var, F.div(F.mul(grad, lr), denom))), acc


ApplyAdagrad = primitive(
    "ApplyAdagrad", lambda var, accum, lr, grad, update_slots=True: _apply_adagrad(
        var, accum, lr, grad, update_slots), init=("update_slots",),
    doc="MindSpore's ``ApplyAdagrad(update_slots=True)(var, accum, lr, grad)``: accum += grad^2; "
        "var -= lr * grad / sqrt(accum). Returns (var, accum).")

ApplyAdagradV2 = primitive(
    "ApplyAdagradV2", lambda var, accum, lr, grad, epsilon, update_slots=True: _apply_adagrad(
        var, accum, lr, grad, update_slots, epsilon, "ApplyAdagradV2"),
    init=("epsilon", "update_slots"),
    doc="MindSpore's ``ApplyAdagradV2(epsilon, update_slots=True)(var, accum, lr, grad)``: as "
        "ApplyAdagrad with sqrt(accum) + epsilon. Returns (var, accum).")


def _apply_proximal_adagrad(var, accum, lr, l1, l2, grad, use_locking=False):
    name = "ApplyProximalAdagrad"
    _states(name, var, accum=accum, grad=grad)
    lr, l1, l2 = (_scalar(name, w, x) for w, x in (("lr", lr), ("l1", l1), ("l2", l2)))
    acc = _write(accum, F.add(accum, F.mul(grad, grad)))
    rate = F.div(lr, F.sqrt(acc))  # in the shrinkage too, as TF's and MindSpore's kernels
    return _write(var, _prox(F.sub(var, F.mul(grad, rate)), rate, l1, l2)), acc


ApplyProximalAdagrad = primitive(
    "ApplyProximalAdagrad", _apply_proximal_adagrad, init=("use_locking",),
    doc="MindSpore's ``ApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad)``: "
        "accum += grad^2; lr_t = lr / sqrt(accum); var = prox(var - lr_t grad) with lr_t l1 and "
        "lr_t l2 (MindSpore's kernel; its docstring writes lr). Returns (var, accum).")


def _apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2,
                      global_step, use_locking=False):
    name = "ApplyAdagradDA"
    _states(name, var, gradient_accumulator=gradient_accumulator,
            gradient_squared_accumulator=gradient_squared_accumulator, grad=grad)
    lr, l1, l2 = (_scalar(name, w, x) for w, x in (("lr", lr), ("l1", l1), ("l2", l2)))
    step = _scalar(name, "global_step", global_step)
    step = F.cast(step, dtype=var.dtype) if isinstance(step, Tensor) else step
    acc = _write(gradient_accumulator, F.add(gradient_accumulator, grad))
    sq = _write(gradient_squared_accumulator, F.add(gradient_squared_accumulator,
                                                    F.mul(grad, grad)))
    shrunk = F.mul(F.sign(acc), F.maximum(F.sub(F.abs(acc), F.mul(l1, step)), 0.0))
    tmp = F.select(F.greater(l1, 0.0), shrunk, acc) if isinstance(l1, Tensor) else \
        (shrunk if l1 > 0 else acc)
    x = F.mul(F.neg(tmp), lr)
    y = F.add(F.mul(F.mul(l2, step), lr), F.sqrt(sq))
    return _write(var, F.div(x, y))


ApplyAdagradDA = primitive(
    "ApplyAdagradDA", _apply_adagrad_da, init=("use_locking",),
    doc="MindSpore's ``ApplyAdagradDA(use_locking=False)(var, gradient_accumulator, "
        "gradient_squared_accumulator, grad, lr, l1, l2, global_step)``. Returns var.")


def _ftrl_step(var, accum, linear, grad, lr, l1, l2, lr_power):
    """FTRL-proximal: the new (var, accum, linear) values."""
    acc_new = F.add(accum, F.mul(grad, grad))
    p = F.neg(lr_power)
    sigma = F.div(F.sub(F.pow(acc_new, p), F.pow(accum, p)), lr)
    lin = F.sub(F.add(linear, grad), F.mul(sigma, var))
    quadratic = F.add(F.div(F.pow(acc_new, p), lr), F.mul(l2, 2.0))
    shrunk = F.div(F.sub(F.mul(F.sign(lin), l1), lin), quadratic)
    new_var = F.select(F.greater(F.abs(lin), l1), shrunk, F.zeros_like(var))
    return new_var, acc_new, lin


def _apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, use_locking=False):
    name = "ApplyFtrl"
    _states(name, var, accum=accum, linear=linear, grad=grad)
    lr, l1, l2, lr_power = (_scalar(name, w, x) for w, x in (
        ("lr", lr), ("l1", l1), ("l2", l2), ("lr_power", lr_power)))
    new_var, acc_new, lin = _ftrl_step(var, accum, linear, grad, lr, l1, l2, lr_power)
    _write(accum, acc_new)
    _write(linear, lin)
    return _write(var, new_var)


ApplyFtrl = primitive(
    "ApplyFtrl", _apply_ftrl, init=("use_locking",),
    doc="MindSpore's ``ApplyFtrl(use_locking=False)(var, accum, linear, grad, lr, l1, l2, "
        "lr_power)``: the FTRL-proximal update. Returns var.")


def _sign_update(name, var, m, lr, base, sign_decay, beta, grad, power: bool):
    _states(name, var, m=m, grad=grad)
    lr, base, sign_decay, beta = (_scalar(name, w, x) for w, x in (
        ("lr", lr), ("logbase" if power else "alpha", base), ("sign_decay", sign_decay),
        ("beta", beta)))
    m_new = _write(m, F.add(F.mul(m, beta), F.mul(grad, _one_minus(beta))))
    agree = F.mul(F.mul(sign_decay, F.sign(grad)), F.sign(m_new))
    factor = F.exp(F.mul(base, agree)) if power else F.add(base, agree)
    return _write(var, F.sub(var, F.mul(F.mul(factor, grad), lr))), m_new


ApplyPowerSign = primitive(
    "ApplyPowerSign", lambda var, m, lr, logbase, sign_decay, beta, grad: _sign_update(
        "ApplyPowerSign", var, m, lr, logbase, sign_decay, beta, grad, power=True),
    doc="MindSpore's ``ApplyPowerSign()(var, m, lr, logbase, sign_decay, beta, grad)``. Returns "
        "(var, m).")

ApplyAddSign = primitive(
    "ApplyAddSign", lambda var, m, lr, alpha, sign_decay, beta, grad: _sign_update(
        "ApplyAddSign", var, m, lr, alpha, sign_decay, beta, grad, power=False),
    doc="MindSpore's ``ApplyAddSign()(var, m, lr, alpha, sign_decay, beta, grad)``. Returns "
        "(var, m).")


# --- layer-wise adaptive rates ---------------------------------------------------------------

def _lars_update(weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate,
                 epsilon=1e-05, hyperpara=0.001, use_clip=False):
    """LARS's gradient: the layer's trust ratio times ``gradient + weight_decay * weight``."""
    name = "LARSUpdate"
    _states(name, weight, gradient=gradient)
    for what, t in (("norm_weight", norm_weight), ("norm_gradient", norm_gradient)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}: {what} must be a Tensor, got {type(t).__name__}")
    wd, lr = _scalar(name, "weight_decay", weight_decay), _scalar(name, "learning_rate",
                                                                  learning_rate)
    w_norm = F.sqrt(F.cast_like(F.reshape(norm_weight, shape=()), weight))
    g_norm = F.sqrt(F.cast_like(F.reshape(norm_gradient, shape=()), weight))
    ratio = F.div(F.mul(w_norm, float(hyperpara)),
                  F.add(F.add(g_norm, F.mul(w_norm, wd)), float(epsilon)))
    both = F.logical_and(F.greater(w_norm, 0.0), F.greater(g_norm, 0.0))
    ratio = F.select(both, ratio, F.ones_like(ratio))
    if use_clip:
        ratio = F.minimum(F.div(ratio, lr), 1.0)
    return F.mul(F.add(gradient, F.mul(weight, wd)), ratio)


LARSUpdate = primitive(
    "LARSUpdate", _lars_update, init=("epsilon", "hyperpara", "use_clip"),
    doc="MindSpore's ``LARSUpdate(epsilon=1e-05, hyperpara=0.001, use_clip=False)(weight, "
        "gradient, norm_weight, norm_gradient, weight_decay, learning_rate)``: the gradient "
        "``ratio * (gradient + weight_decay * weight)`` with the trust ratio ``hyperpara * "
        "|w| / (|g| + weight_decay * |w| + epsilon)`` (1 when a norm is 0; with ``use_clip``, "
        "``min(ratio / learning_rate, 1)``); ``norm_*`` are sums of squares. The formula of "
        "MindSpore's Ascend kernel (its CPU build has none).")


# --- sparse variants (rows named by indices) ---------------------------------------------------

def _rows(name, var, grad, indices):
    """The gradient scattered to var's rows (repeated indices summed) and the mask of those rows."""
    if not isinstance(indices, Tensor) or not indices.dtype.is_int or indices.ndim != 1:
        raise TypeError(f"{name}: indices must be a 1-D integer tensor")
    if tuple(grad.shape) != (indices.shape[0],) + tuple(var.shape[1:]):
        raise ValueError(f"{name}: grad must have shape {[indices.shape[0]] + list(var.shape[1:])}"
                         f", got {list(grad.shape)}")
    dense = F.scatter_add(F.zeros_like(var), indices, F.cast_like(grad, var), axis=0)
    hit = F.scatter_add(F.zeros_like(var), indices, F.ones_like(F.cast_like(grad, var)), axis=0)
    return dense, F.greater(hit, 0.0)


def _fused_adam(name, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient,
                indices, use_nesterov, lazy):
    if not isinstance(var, Tensor) or not isinstance(m, Tensor) or not isinstance(v, Tensor):
        raise TypeError(f"{name}: var, m and v must be Parameters or Tensors")
    g, rows = _rows(name, var, gradient, indices)
    b1p, b2p, lr, b1, b2, eps = (_scalar(name, w, x) for w, x in (
        ("beta1_power", beta1_power), ("beta2_power", beta2_power), ("lr", lr), ("beta1", beta1),
        ("beta2", beta2), ("epsilon", epsilon)))
    m_new, v_new = _adam_step(m, v, g, b1, b2)
    rate = F.div(F.mul(lr, F.sqrt(_one_minus(b2p))), _one_minus(b1p))
    direction = F.add(F.mul(m_new, b1), F.mul(g, _one_minus(b1))) if use_nesterov else m_new
    var_new = F.sub(var, F.div(F.mul(direction, rate), F.add(F.sqrt(v_new), eps)))
    if lazy:  # only the rows the gradient names change
        m_new, v_new, var_new = (F.select(rows, new, old) for new, old in
                                 ((m_new, m), (v_new, v), (var_new, var)))
    return _write(var, var_new), _write(m, m_new), _write(v, v_new)


FusedSparseAdam = primitive(
    "FusedSparseAdam",
    lambda var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient, indices,
    use_locking=False, use_nesterov=False: _fused_adam(
        "FusedSparseAdam", var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
        gradient, indices, use_nesterov, lazy=False),
    init=("use_locking", "use_nesterov"),
    doc="MindSpore's ``FusedSparseAdam(use_locking=False, use_nesterov=False)(var, m, v, "
        "beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient, indices)``: Adam with the "
        "rows of gradient scattered to var's rows (repeats summed); every row's moments decay. "
        "Returns (var, m, v).")

FusedSparseLazyAdam = primitive(
    "FusedSparseLazyAdam",
    lambda var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient, indices,
    use_locking=False, use_nesterov=False: _fused_adam(
        "FusedSparseLazyAdam", var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
        gradient, indices, use_nesterov, lazy=True),
    init=("use_locking", "use_nesterov"),
    doc="MindSpore's ``FusedSparseLazyAdam(...)``: as FusedSparseAdam, but only the rows named "
        "by indices change.")


def _fused_sparse_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power, use_locking=False):
    name = "FusedSparseFtrl"
    _states(name, var, accum=accum, linear=linear)
    g, rows = _rows(name, var, grad, indices)
    new_var, acc_new, lin = _ftrl_step(var, accum, linear, g, float(lr), float(l1), float(l2),
                                       float(lr_power))
    return (_write(var, F.select(rows, new_var, var)),
            _write(accum, F.select(rows, acc_new, accum)),
            _write(linear, F.select(rows, lin, linear)))


FusedSparseFtrl = primitive(
    "FusedSparseFtrl", _fused_sparse_ftrl, init=("lr", "l1", "l2", "lr_power", "use_locking"),
    doc="MindSpore's ``FusedSparseFtrl(lr, l1, l2, lr_power, use_locking=False)(var, accum, "
        "linear, grad, indices)``: FTRL on the rows named by indices. Returns (var, accum, "
        "linear).")


def _fused_sparse_proximal_adagrad(var, accum, lr, l1, l2, grad, indices, use_locking=False):
    name = "FusedSparseProximalAdagrad"
    _states(name, var, accum=accum)
    g, rows = _rows(name, var, grad, indices)
    lr, l1, l2 = (_scalar(name, w, x) for w, x in (("lr", lr), ("l1", l1), ("l2", l2)))
    acc_new = F.add(accum, F.mul(g, g))
    rate = F.div(lr, F.sqrt(acc_new))
    var_new = _prox(F.sub(var, F.mul(g, rate)), rate, l1, l2)
    return (_write(var, F.select(rows, var_new, var)),
            _write(accum, F.select(rows, acc_new, accum)))


FusedSparseProximalAdagrad = primitive(
    "FusedSparseProximalAdagrad", _fused_sparse_proximal_adagrad, init=("use_locking",),
    doc="MindSpore's ``FusedSparseProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, "
        "grad, indices)``: proximal Adagrad on the rows named by indices. Returns (var, accum).")

"""Optimizer cases, read by ``tools/record_optim_goldens.py`` (in a MindSpore venv) and by
``test_optim_goldens.py`` (graphcell, both modes). numpy only.

An ``OptCase`` builds an optimizer from the source text ``make`` — evaluated with ``nn``, ``ms``,
``Tensor``, ``np``, ``optim`` (``experimental.optim``) and ``params`` (fresh Parameters named and
valued as ``PARAMS``) in scope, on either side — and applies it to the gradients ``grads(case)``
for ``STEPS`` steps. The golden holds every parameter after every step and the step counter
(``global_step``, or ``state_step`` for ``experimental.optim``) at the end.

A ``TrainCase`` trains a small network (``Dense(16, 3)`` then ``ReLU`` then ``Dense(3, 2)``, the
weights of ``net_weights()``) with ``TrainOneStepCell(WithLossCell(net, MSELoss()), <make>)``
for ``STEPS`` steps on fixed data (``train_data()``); ``make`` sees ``params`` =
``net.trainable_params()``. The golden holds the losses and the final weights.

Example::

    >>> c = CASES[0]
    >>> c.cid, [g.shape for g in grads(c)[0]]
    ('sgd', [(3, 16), (3,), (3,), (3,), (2, 3)])
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

STEPS = 3

# name, shape: "fc1.weight" has 16 columns (gradient centralization applies to it), the "beta"
# and "gamma" names are skipped by the default weight decay
PARAMS = [("fc1.weight", (3, 16)), ("fc1.bias", (3,)), ("bn.gamma", (3,)), ("bn.beta", (3,)),
          ("fc2.weight", (2, 3))]


@dataclass(frozen=True)
class OptCase:
    cid: str
    make: str
    rtol: float = 1e-5
    atol: float = 1e-6


@dataclass(frozen=True)
class TrainCase:
    cid: str
    make: str
    rtol: float = 1e-5
    atol: float = 1e-6


def _rng(text: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(text.encode()))


def param_values() -> list[np.ndarray]:
    rng = _rng("optim-params")
    return [rng.uniform(-1, 1, shape).astype(np.float32) for _, shape in PARAMS]


def grads(case: OptCase) -> list[list[np.ndarray]]:
    """The gradients of each step (the same for every case: the cases differ by optimizer)."""
    rng = _rng("optim-grads")
    return [[rng.uniform(-1, 1, shape).astype(np.float32) for _, shape in PARAMS]
            for _ in range(STEPS)]


def net_weights() -> dict[str, np.ndarray]:
    rng = _rng("optim-net")
    return {"fc1.weight": rng.uniform(-0.5, 0.5, (3, 16)).astype(np.float32),
            "fc1.bias": rng.uniform(-0.5, 0.5, (3,)).astype(np.float32),
            "fc2.weight": rng.uniform(-0.5, 0.5, (2, 3)).astype(np.float32),
            "fc2.bias": rng.uniform(-0.5, 0.5, (2,)).astype(np.float32)}


def train_data() -> tuple[np.ndarray, np.ndarray]:
    rng = _rng("optim-data")
    return (rng.uniform(-1, 1, (8, 16)).astype(np.float32),
            rng.uniform(-1, 1, (8, 2)).astype(np.float32))


# (no 'grad_centralization': MindSpore 2.10's CPU build has no Centralization kernel; the tests
# check it against its formula)
GROUPS = ("[{'params': [params[0], params[4]], 'lr': 0.05, 'weight_decay': 0.01}, "
          "{'params': params[1:4]}, {'order_params': params}]")

CASES = [
    OptCase("sgd", "nn.SGD(params)"),
    OptCase("sgd-momentum", "nn.SGD(params, 0.1, 0.9, dampening=0.2, weight_decay=0.01)"),
    OptCase("sgd-nesterov", "nn.SGD(params, 0.05, 0.9, nesterov=True, loss_scale=2.0)"),
    OptCase("momentum", "nn.Momentum(params, 0.1, 0.9)"),
    OptCase("momentum-wd-scale", "nn.Momentum(params, 0.1, 0.9, weight_decay=0.05, "
                                 "loss_scale=8.0)"),
    OptCase("momentum-groups", f"nn.Momentum({GROUPS}, 0.1, 0.9)"),
    OptCase("momentum-dynamic-list", "nn.Momentum(params, [0.1, 0.05, 0.02], 0.9)"),
    OptCase("momentum-tensor-lr", "nn.Momentum(params, Tensor(np.float32(0.03)), 0.9)"),
    OptCase("momentum-schedule", "nn.Momentum(params, nn.PolynomialDecayLR(0.1, 0.01, 2, 1.0), "
                                 "0.9)"),
    OptCase("momentum-group-schedules",
            "nn.Momentum([{'params': params[:2], 'lr': nn.ExponentialDecayLR(0.1, 0.5, 1)}, "
            "{'params': params[2:]}], 0.05, 0.9)"),
    OptCase("momentum-dynamic-decay",
            "nn.Momentum(params, 0.1, 0.9, weight_decay=nn.ExponentialDecayLR(0.1, 0.5, 1))"),
    OptCase("momentum-group-dynamic-decay",
            "nn.Momentum([{'params': params[:3], 'weight_decay': nn.WarmUpLR(0.2, 2)}, "
            "{'params': params[3:], 'weight_decay': 0.1}], 0.1, 0.9)"),
    OptCase("adam", "nn.Adam(params, 0.01)"),
    OptCase("adam-wd-nesterov", "nn.Adam(params, 0.01, use_nesterov=True, weight_decay=0.1)"),
    OptCase("adam-amsgrad", "nn.Adam(params, 0.05, beta1=0.8, beta2=0.9, use_amsgrad=True)"),
    OptCase("adam-groups", f"nn.Adam({GROUPS}, 0.01, loss_scale=4.0)"),
    OptCase("adam-lazy", "nn.Adam(params, 0.01, use_lazy=True)"),
    OptCase("adam-offload", "nn.Adam(params, 0.01, use_offload=True)"),
    OptCase("adam-offload-class", "nn.AdamOffload(params, 0.01, weight_decay=0.1)"),
    OptCase("lazy-adam", "nn.LazyAdam(params, 0.01, weight_decay=0.1)"),
    OptCase("adam-weight-decay", "nn.AdamWeightDecay(params, 0.01, weight_decay=0.1)"),
    OptCase("adam-weight-decay-groups", f"nn.AdamWeightDecay({GROUPS}, 0.01, eps=1e-8)",
            atol=1e-5),
    OptCase("adam-weight-decay-schedule",
            "nn.AdamWeightDecay(params, nn.CosineDecayLR(0.001, 0.01, 3), weight_decay=0.05)"),
    OptCase("rmsprop", "nn.RMSProp(params, 0.01)"),
    OptCase("rmsprop-momentum-wd", "nn.RMSProp(params, 0.01, momentum=0.9, weight_decay=0.1)"),
    OptCase("rmsprop-centered", "nn.RMSProp(params, 0.01, decay=0.8, momentum=0.5, "
                                "centered=True, loss_scale=2.0)"),
    OptCase("adagrad", "nn.Adagrad(params, learning_rate=0.1)"),
    OptCase("adagrad-groups", f"nn.Adagrad({GROUPS}, accum=0.5, learning_rate=0.1)"),
    OptCase("adadelta", "nn.Adadelta(params)"),
    OptCase("adadelta-wd", "nn.Adadelta(params, 0.5, rho=0.8, epsilon=1e-4, weight_decay=0.1)"),
    OptCase("adamax", "nn.AdaMax(params, 0.01)"),
    OptCase("adamax-wd", "nn.AdaMax(params, 0.01, beta1=0.8, weight_decay=0.1, loss_scale=2.0)"),
    OptCase("ftrl", "nn.FTRL(params, learning_rate=0.1)"),
    # l1 = 0: MindSpore 2.10's CPU kernel flips the sign of the l1 term (graphcell follows the
    # documented formula, which tests/graphcell/test_ops_effects.py checks)
    OptCase("ftrl-l2", "nn.FTRL(params, 0.5, 0.1, lr_power=-0.6, l2=0.02, weight_decay=0.1)"),
    OptCase("proximal-adagrad", "nn.ProximalAdagrad(params, learning_rate=0.1)"),
    OptCase("proximal-adagrad-l1-l2", "nn.ProximalAdagrad(params, 0.2, 0.1, l1=0.01, l2=0.02)"),
    OptCase("asgd", "nn.ASGD(params, 0.05)"),
    OptCase("asgd-t0", "nn.ASGD(params, 0.05, lambd=0.01, alpha=0.5, t0=1.0, weight_decay=0.1)"),
    OptCase("rprop", "nn.Rprop(params, 0.05)"),
    OptCase("rprop-sizes", "nn.Rprop(params, 0.05, etas=(0.4, 1.5), step_sizes=(0.01, 0.06))"),
    OptCase("exp-adamw", "optim.AdamW(params, lr=0.01)"),
    OptCase("exp-adamw-amsgrad", "optim.AdamW(params, lr=0.02, betas=(0.8, 0.9), eps=1e-6, "
                                 "weight_decay=0.1, amsgrad=True)"),
    OptCase("exp-adamw-groups-maximize",
            "optim.AdamW([{'params': params[:2], 'lr': 0.05}, {'params': params[2:], "
            "'weight_decay': 0.2}], lr=0.01, maximize=True)"),
]

# the element-wise normalised steps of adaptive optimizers turn the rounding of the gradients
# (different summation orders in the matmuls) into differences of ~1e-5 where a gradient is ~0
ADAPTIVE = dict(rtol=1e-4, atol=1e-4)

TRAIN_CASES = [
    TrainCase("momentum", "nn.Momentum(params, 0.1, 0.9)"),
    TrainCase("sgd-schedule", "nn.SGD(params, nn.WarmUpLR(0.2, 2), 0.5)"),
    TrainCase("adam-dynamic", "nn.Adam(params, nn.exponential_decay_lr(0.05, 0.5, 3, 1, 1), "
                              "weight_decay=0.01)", **ADAPTIVE),
    TrainCase("adam-amsgrad", "nn.Adam(params, 0.05, use_amsgrad=True)", **ADAPTIVE),
    TrainCase("adam-weight-decay", "nn.AdamWeightDecay(params, 0.05, weight_decay=0.1)",
              **ADAPTIVE),
    TrainCase("rmsprop-centered", "nn.RMSProp(params, 0.01, momentum=0.5, centered=True)",
              **ADAPTIVE),
    TrainCase("adagrad", "nn.Adagrad(params, learning_rate=0.1)", **ADAPTIVE),
    TrainCase("adadelta", "nn.Adadelta(params)", **ADAPTIVE),
    TrainCase("adamax", "nn.AdaMax(params, 0.05)", **ADAPTIVE),
    TrainCase("ftrl", "nn.FTRL(params, learning_rate=0.1)", **ADAPTIVE),
    TrainCase("proximal-adagrad", "nn.ProximalAdagrad(params, learning_rate=0.1, l1=0.01)",
              **ADAPTIVE),
    TrainCase("asgd", "nn.ASGD(params, 0.1)"),
    TrainCase("rprop", "nn.Rprop(params, 0.05)", **ADAPTIVE),
    TrainCase("groups", "nn.Momentum([{'params': params[:2], 'lr': 0.05, 'weight_decay': 0.01}, "
                        "{'params': params[2:]}], 0.1, 0.9)"),
]

"""``mint.optim`` against numpy versions of PyTorch's update rules, in PyNative and graph mode.

MindSpore 2.10's CPU build cannot be the oracle here: its ``mint.optim.AdamW`` has no kernel
(RuntimeError), and its ``mint.optim.Adam``/``SGD`` run but leave the parameters unchanged on the
CPU (checked with MindSpore 2.10: ``gaps.py`` records both). ``AdamW`` is
``experimental.optim.AdamW``, whose steps are golden-tested against MindSpore in
``tests/graphcell/nn/test_optim_goldens.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, mint, nn
from graphcell.experimental import optim as experimental_optim

RNG = np.random.default_rng(3)
P0 = [RNG.normal(size=(3, 2)).astype(np.float32), RNG.normal(size=(2,)).astype(np.float32)]
GRADS = [[RNG.normal(size=p.shape).astype(np.float32) for p in P0] for _ in range(4)]


def adam_reference(lr, betas, eps, weight_decay, amsgrad, maximize):
    params = [p.astype(np.float64) for p in P0]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    vmax = [np.zeros_like(p) for p in params]
    history = []
    for t, grads in enumerate(GRADS, 1):
        for i, g in enumerate(grads):
            g = -g if maximize else g.astype(np.float64)
            g = g + weight_decay * params[i]
            m[i] = betas[0] * m[i] + (1 - betas[0]) * g
            v[i] = betas[1] * v[i] + (1 - betas[1]) * g * g
            vmax[i] = np.maximum(vmax[i], v[i])
            second = vmax[i] if amsgrad else v[i]
            denom = np.sqrt(second) / np.sqrt(1 - betas[1] ** t) + eps
            params[i] = params[i] - lr / (1 - betas[0] ** t) * m[i] / denom
        history.append([p.copy() for p in params])
    return history


def sgd_reference(lr, momentum, dampening, weight_decay, nesterov, maximize):
    params = [p.astype(np.float64) for p in P0]
    bufs = [None for _ in params]
    history = []
    for grads in GRADS:
        for i, g in enumerate(grads):
            g = -g if maximize else g.astype(np.float64)
            g = g + weight_decay * params[i]
            if momentum:
                bufs[i] = g if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * g
                g = g + momentum * bufs[i] if nesterov else bufs[i]
            params[i] = params[i] - lr * g
        history.append([p.copy() for p in params])
    return history


class Apply(nn.Cell):
    """The optimizer called from a compiled network (graph mode compiles its update)."""

    def __init__(self, opt):
        super().__init__(auto_prefix=False)
        self.opt = opt

    def construct(self, grads):
        return self.opt(grads)


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


CASES = [
    ("Adam", dict(lr=0.1), adam_reference, dict(lr=0.1, betas=(0.9, 0.999), eps=1e-8,
                                                weight_decay=0.0, amsgrad=False, maximize=False)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True, maximize=True),
     adam_reference, dict(lr=0.05, betas=(0.8, 0.99), eps=1e-8, weight_decay=0.1, amsgrad=True,
                          maximize=True)),
    ("SGD", dict(lr=0.1), sgd_reference, dict(lr=0.1, momentum=0, dampening=0, weight_decay=0,
                                              nesterov=False, maximize=False)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01), sgd_reference,
     dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01, nesterov=False,
          maximize=False)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True), sgd_reference,
     dict(lr=0.1, momentum=0.9, dampening=0, weight_decay=0, nesterov=True, maximize=True)),
]


@pytest.mark.parametrize("name, kwargs, reference, ref_kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_steps_match_pytorch_rules(name, kwargs, reference, ref_kwargs, mode):
    params = [Parameter(Tensor(p.copy()), name=f"p{i}") for i, p in enumerate(P0)]
    opt = getattr(mint.optim, name)(params, **kwargs)
    step = Apply(opt) if mode == "graph" else opt
    for k, (grads, expected) in enumerate(zip(GRADS, reference(**ref_kwargs))):
        step(tuple(Tensor(g) for g in grads))
        for p, e in zip(params, expected):
            np.testing.assert_allclose(p.asnumpy(), e, rtol=1e-5, atol=1e-5,  # float32 steps
                                       err_msg=f"mint.optim.{name}: {p.name} after step {k + 1}")


def test_adamw_is_experimental_adamw():
    assert mint.optim.AdamW is experimental_optim.AdamW


def test_fused_adamw_steps_as_adamw(mode):
    made = []
    for cls in (mint.optim.AdamW, mint.optim.FusedAdamW):
        params = [Parameter(Tensor(p.copy()), name=f"p{i}") for i, p in enumerate(P0)]
        opt = cls(params, lr=0.05, weight_decay=0.1, amsgrad=True)
        step = Apply(opt) if mode == "graph" else opt
        for grads in GRADS:
            step(tuple(Tensor(g) for g in grads))
        made.append([p.asnumpy() for p in params])
    for a, f in zip(*made):
        np.testing.assert_array_equal(f, a)


@pytest.mark.parametrize("make, message", [
    (lambda p: mint.optim.SGD(p, lr=-1.0), "learning rate"),
    (lambda p: mint.optim.SGD(p, lr=0.1, nesterov=True), "Nesterov"),
    (lambda p: mint.optim.Adam(p, betas=(1.0, 0.9)), "beta"),
])
def test_bad_hyperparameters_are_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make([Parameter(Tensor(P0[0].copy()), name="w")])

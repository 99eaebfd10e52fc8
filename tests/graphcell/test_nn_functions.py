"""The nn functions' behaviour that golden cases cannot check: gradients where MindSpore 2.10's
own are wrong, random ops (distributions, seeding), and graph-mode refusals of data-dependent
shapes."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.testing import check_grads


def _t(*shape, lo=-2.0, hi=2.0, seed=0, dtype=np.float64):
    return Tensor(np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_selu_gradient_is_the_derivative(mode):
    # MindSpore 2.10's CPU gradient of SeLU for x <= 0 is scale * (1 + y), not scale*alpha*e^x
    fn = ops.selu if mode == "pynative" else ms.jit(lambda x: ops.selu(x))
    assert check_grads(fn, (_t(3, 4),)).passed
    x = Tensor(np.array([-1.0, 0.5]))
    g = ms.grad(ops.selu)(x).asnumpy()
    np.testing.assert_allclose(g, [1.0507009873554805 * 1.6732632423543772 * np.exp(-1.0),
                                   1.0507009873554805], rtol=1e-12)


# --- losses MindSpore 2.10's CPU build cannot run: checked against their formulas ----------------

def _both_modes(fn):
    """``fn`` in PyNative and compiled (graph mode), for comparing the two with one reference."""
    return [fn, ms.jit(fn)]


def _soft_margin_none(a, b):
    return ops.soft_margin_loss(a, b, reduction="none")


def _soft_margin_prim(a, b):
    return ops.SoftMarginLoss()(a, b)


def _triplet_none(a, p, n):
    return ops.triplet_margin_loss(a, p, n, reduction="none")


def _triplet_swap(a, p, n):
    return ops.triplet_margin_loss(a, p, n, margin=0.5, p=1, swap=True, reduction="sum")


def _multilabel_none(x, t):
    return ops.multilabel_margin_loss(x, t, reduction="none")


def _np_soft_margin(x, y):
    return np.log1p(np.exp(-x * y))


def _np_triplet(a, p, n, margin=1.0, norm=2, eps=1e-6, swap=False):
    def dist(u, v):
        return np.sum(np.abs(u - v + eps) ** norm, axis=-1) ** (1 / norm)
    d_neg = dist(a, n)
    if swap:
        d_neg = np.minimum(d_neg, dist(p, n))
    return np.maximum(dist(a, p) - d_neg + margin, 0)


def _np_multilabel_margin(x, target):
    loss, is_target = np.zeros(x.shape[0]), np.zeros(x.shape, np.int32)
    for n in range(x.shape[0]):
        ys = []
        for t in target[n]:
            if t < 0:
                break
            ys.append(t)
        is_target[n, ys] = 1
        others = [i for i in range(x.shape[1]) if i not in ys]
        loss[n] = sum(max(0.0, 1 - (x[n, y] - x[n, i])) for y in ys for i in others) / x.shape[1]
    return loss, is_target


def test_soft_margin_loss_matches_its_formula():
    x, y = _t(4, 3, seed=1), Tensor(np.sign(np.random.default_rng(2).uniform(-1, 1, (4, 3))))
    want = _np_soft_margin(x.asnumpy(), y.asnumpy())
    for fn in _both_modes(_soft_margin_none):
        np.testing.assert_allclose(fn(x, y).asnumpy(), want, rtol=1e-12)
    for fn in _both_modes(_soft_margin_prim):
        np.testing.assert_allclose(fn(x, y).asnumpy(), want.mean(), rtol=1e-12)
    assert check_grads(lambda a: ops.soft_margin_loss(a, y), (x,)).passed


def test_triplet_margin_loss_matches_its_formula():
    a, p, n = _t(4, 3, seed=1), _t(4, 3, seed=2), _t(4, 3, seed=3)
    args = (a.asnumpy(), p.asnumpy(), n.asnumpy())
    for fn in _both_modes(_triplet_none):
        np.testing.assert_allclose(fn(a, p, n).asnumpy(), _np_triplet(*args), rtol=1e-12)
    for fn in _both_modes(_triplet_swap):
        np.testing.assert_allclose(fn(a, p, n).asnumpy(),
                                   _np_triplet(*args, 0.5, 1, swap=True).sum(), rtol=1e-12)
    prim = ops.TripletMarginLoss(p=2, reduction="mean")
    np.testing.assert_allclose(prim(a, p, n, Tensor(np.array(1.0))).asnumpy(),
                               _np_triplet(*args).mean(), rtol=1e-12)
    assert check_grads(lambda a, p, n: ops.triplet_margin_loss(a, p, n), (a, p, n)).passed


def test_multilabel_margin_loss_matches_its_formula():
    x = _t(3, 4, seed=4)
    target = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 2, 1, 0]], np.int32)
    want, want_is_target = _np_multilabel_margin(x.asnumpy(), target)
    for fn in _both_modes(_multilabel_none):
        np.testing.assert_allclose(fn(x, Tensor(target)).asnumpy(), want, rtol=1e-12)
    loss, is_target = ops.MultilabelMarginLoss()(x, Tensor(target))
    np.testing.assert_allclose(loss.asnumpy(), want.mean(), rtol=1e-12)
    np.testing.assert_array_equal(is_target.asnumpy(), want_is_target)
    assert is_target.dtype == ms.int32
    assert check_grads(lambda x: ops.multilabel_margin_loss(x, Tensor(target)), (x,)).passed

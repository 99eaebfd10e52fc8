"""Normalization layers beyond the golden cases: the ones MindSpore 2.10's CPU build cannot run
(InstanceNorm, LayerNormExt: checked against numpy), SyncBatchNorm in one process, parameter
names and printed forms."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from layer_helpers import both_modes

RNG = np.random.default_rng(0)


def _normalise(x, axes, eps):
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


@pytest.mark.parametrize("cls, shape", [(nn.InstanceNorm1d, (2, 3, 5)),
                                        (nn.InstanceNorm2d, (2, 3, 4, 4)),
                                        (nn.InstanceNorm3d, (2, 3, 2, 3, 2))])
def test_instance_norm_normalises_each_channel_of_each_sample(cls, shape):
    x = RNG.normal(1.0, 2.0, shape).astype(np.float32)
    gamma, beta = RNG.normal(size=3).astype(np.float32), RNG.normal(size=3).astype(np.float32)
    cell = cls(3, gamma_init=Tensor(gamma), beta_init=Tensor(beta))
    axes = tuple(range(2, len(shape)))
    per_channel = (1, 3) + (1,) * len(axes)
    want = _normalise(x, axes, 1e-5) * gamma.reshape(per_channel) + beta.reshape(per_channel)
    for train in (False, True):
        cell.set_train(train)
        for out in both_modes(cell, Tensor(x)):
            np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4, atol=1e-5)
    # the statistics MindSpore's GPU kernel keeps are never used: they stay as they were
    np.testing.assert_array_equal(cell.moving_mean.asnumpy(), 0)
    np.testing.assert_array_equal(cell.moving_variance.asnumpy(), 1)
    assert [n for n, _ in cell.parameters_and_names()] == \
        ["moving_mean", "moving_variance", "gamma", "beta"]


def test_instance_norm_gradients_match_group_norm():
    x = Tensor(RNG.normal(size=(2, 3, 4)).astype(np.float32))
    cell = nn.InstanceNorm1d(3)
    g = ms.grad(lambda a: (cell(a) * Tensor(np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)))
                .sum())(x)
    g2 = ms.grad(lambda a: (ms.ops.group_norm(a, 3) * Tensor(
        np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), g2.asnumpy(), rtol=1e-6)


def test_instance_norm_checks_like_mindspore():
    with pytest.raises(TypeError, match="'eps' must be a float"):
        nn.InstanceNorm2d(3, eps=1)
    with pytest.raises(ValueError, match="'momentum' must be in"):
        nn.InstanceNorm2d(3, momentum=1.5)
    with pytest.raises(ValueError, match="expected a 4-D input"):
        nn.InstanceNorm2d(3)(Tensor(np.ones((2, 3, 4), np.float32)))


def test_layer_norm_ext_is_pytorchs():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    cell = nn.LayerNormExt((3, 4), eps=1e-6)
    cell.weight.set_data(Tensor(RNG.normal(size=(3, 4)).astype(np.float32)))
    want = _normalise(x, (1, 2), 1e-6) * cell.weight.asnumpy() + cell.bias.asnumpy()
    for out in both_modes(cell, Tensor(x)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4, atol=1e-5)
    assert nn.LayerNormExt(4, elementwise_affine=False).weight is None
    assert nn.LayerNormExt(4, bias=False).bias is None
    assert repr(nn.LayerNormExt(4)) == \
        "LayerNormExt(normalized_shape=(4,), eps=1e-05, elementwise_affine=True)"


def test_sync_batch_norm_is_batch_norm_in_one_process():
    x = Tensor(RNG.normal(size=(4, 3, 2, 2)).astype(np.float32))
    sync, plain = nn.SyncBatchNorm(3).set_train(), nn.BatchNorm2d(3).set_train()
    np.testing.assert_allclose(sync(x).asnumpy(), plain(x).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(sync.moving_mean.asnumpy(), plain.moving_mean.asnumpy())
    nn.SyncBatchNorm(3, process_groups=[[0]])
    with pytest.raises(ValueError, match="rank ids in \\[0, 1\\)"):
        nn.SyncBatchNorm(3, process_groups=[[0, 1]])
    with pytest.raises(TypeError, match="list of lists"):
        nn.SyncBatchNorm(3, process_groups=[0])


def test_batch_norm_3d_parameters_live_in_bn2d():
    bn = nn.BatchNorm3d(2).set_train()
    x = RNG.normal(2.0, 1.0, (3, 2, 2, 2, 2)).astype(np.float32)
    bn(Tensor(x))
    np.testing.assert_allclose(bn.bn2d.moving_mean.asnumpy(), 0.1 * x.mean(axis=(0, 2, 3, 4)),
                               rtol=1e-5)
    assert [p.name for p in bn.get_parameters()] == \
        ["bn2d.moving_mean", "bn2d.moving_variance", "bn2d.gamma", "bn2d.beta"]


def test_layer_norm_repr_has_no_typo():
    # MindSpore 2.10 prints "gammaParameter (...)"
    assert repr(nn.LayerNorm((3,))).startswith(
        "LayerNorm(normalized_shape=(3,), begin_norm_axis=-1, begin_params_axis=-1, "
        "gamma=Parameter (name=gamma, shape=(3,)")

"""Every nn layer, loss and wrapper: PyNative and GRAPH_MODE agree on hypothesis-drawn inputs."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import graphcell as ms
from graphcell import nn, Tensor
from graphcell.testing import strategies as gst

from differential import assert_same_in_both_modes

FLOATS = dict(elements=(-3, 3))
LAYER_SETTINGS = settings(deadline=None)   # max_examples from the profile (ci: 50)


def batch(draw, *, dims=(2, 4), channels=None, side=(1, 6)):
    n = draw(st.integers(1, 3))
    rest = [draw(st.integers(*side)) for _ in range(draw(st.integers(*dims)) - 1)]
    if channels is not None:
        rest[0] = channels
    return (n, *rest)


@LAYER_SETTINGS
@given(st.data(), st.sampled_from([nn.ReLU, nn.Sigmoid, nn.Tanh]))
def test_activations(data, layer):
    x = data.draw(gst.tensors(shape=gst.shapes(0, 4), **FLOATS))
    assert_same_in_both_modes(layer(), x)


@LAYER_SETTINGS
@given(st.data(), st.sampled_from([nn.Softmax, nn.LogSoftmax]), st.integers(-1, 1))
def test_softmaxes(data, layer, axis):
    x = data.draw(gst.tensors(shape=gst.shapes(2, 4), **FLOATS))
    assert_same_in_both_modes(layer(axis), x)


@LAYER_SETTINGS
@given(st.data(), st.booleans(), st.sampled_from([None, "relu", "tanh"]), st.integers(2, 3))
def test_dense(data, has_bias, activation, rank):
    fan_in, fan_out = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    shape = tuple(data.draw(st.integers(1, 3)) for _ in range(rank - 1)) + (fan_in,)
    x = data.draw(gst.tensors(shape=shape, **FLOATS))
    assert_same_in_both_modes(nn.Dense(fan_in, fan_out, has_bias=has_bias,
                                       activation=activation), x)


@LAYER_SETTINGS
@given(st.data(), st.sampled_from(["same", "valid", "pad"]), st.integers(1, 2), st.booleans())
def test_conv2d(data, pad_mode, stride, has_bias):
    cin, cout, k = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)), data.draw(
        st.integers(1, 3))
    padding = data.draw(st.integers(0, 1)) if pad_mode == "pad" else 0
    side = data.draw(st.integers(k, 6))
    x = data.draw(gst.tensors(shape=(data.draw(st.integers(1, 2)), cin, side, side), **FLOATS))
    conv = nn.Conv2d(cin, cout, k, stride=stride, pad_mode=pad_mode, padding=padding,
                     has_bias=has_bias)
    assert_same_in_both_modes(conv, x)


@LAYER_SETTINGS
@given(st.data(), st.sampled_from([nn.MaxPool2d, nn.AvgPool2d]), st.sampled_from(["valid", "same"]),
       st.integers(1, 3), st.integers(1, 2), st.booleans())
def test_pools(data, layer, pad_mode, k, stride, batched):
    side = data.draw(st.integers(k, 6))
    shape = (data.draw(st.integers(1, 2)), 2, side, side)
    x = data.draw(gst.tensors(shape=shape if batched else shape[1:], **FLOATS))
    assert_same_in_both_modes(layer(kernel_size=k, stride=stride, pad_mode=pad_mode), x)


@LAYER_SETTINGS
@given(st.data(), st.booleans(), st.sampled_from([None, True, False]))
def test_batchnorm2d_statistics(data, training, use_batch_statistics):
    c = data.draw(st.integers(1, 3))
    x = data.draw(gst.tensors(shape=(data.draw(st.integers(2, 3)), c, 2, 3), **FLOATS))
    bn = nn.BatchNorm2d(c, momentum=0.8, use_batch_statistics=use_batch_statistics)
    bn.set_train(training)
    assert_same_in_both_modes(bn, x, calls=2)


@LAYER_SETTINGS
@given(st.data(), st.booleans(), st.sampled_from([(2,), (2, 3)]))
def test_batchnorm1d(data, training, tail):
    c = data.draw(st.integers(1, 3))
    shape = (data.draw(st.integers(2, 4)), c) + tail[1:]
    x = data.draw(gst.tensors(shape=shape, **FLOATS))
    bn = nn.BatchNorm1d(c).set_train(training)
    assert_same_in_both_modes(bn, x, calls=2)


@LAYER_SETTINGS
@given(st.data(), st.integers(0, 1), st.integers(-1, 2))
def test_flatten(data, start, end):
    x = data.draw(gst.tensors(shape=gst.shapes(3, 4), **FLOATS))
    if end >= x.ndim or start % x.ndim > end % x.ndim:
        end = -1
    assert_same_in_both_modes(nn.Flatten(start, end), x)


@LAYER_SETTINGS
@given(st.data(), st.booleans(), st.sampled_from([0.5, 0.9, 1.0]))
def test_dropout(data, training, keep_prob):
    x = data.draw(gst.tensors(shape=gst.shapes(1, 3), **FLOATS))
    drop = nn.Dropout(keep_prob=keep_prob).set_train(training)
    assert_same_in_both_modes(drop, x, seed=7)


@LAYER_SETTINGS
@given(st.data(), st.booleans(), st.booleans())
def test_matmul(data, ta, tb):
    m, k, n = (data.draw(st.integers(1, 4)) for _ in range(3))
    a = data.draw(gst.tensors(shape=(k, m) if ta else (m, k), **FLOATS))
    b = data.draw(gst.tensors(shape=(n, k) if tb else (k, n), **FLOATS))
    assert_same_in_both_modes(nn.MatMul(ta, tb), a, b)


@LAYER_SETTINGS
@given(st.data(), st.sampled_from([nn.MSELoss, nn.L1Loss]), st.sampled_from(["mean", "sum", "none"]))
def test_regression_losses(data, loss, reduction):
    shape = data.draw(gst.shapes(1, 3))
    x = data.draw(gst.tensors(shape=shape, **FLOATS))
    y = data.draw(gst.tensors(shape=shape, **FLOATS))
    assert_same_in_both_modes(loss(reduction), x, y)


@LAYER_SETTINGS
@given(st.data(), st.booleans(), st.sampled_from(["mean", "sum", "none"]))
def test_softmax_cross_entropy(data, sparse, reduction):
    n, c = data.draw(st.integers(1, 4)), data.draw(st.integers(2, 5))
    logits = data.draw(gst.tensors(shape=(n, c), **FLOATS))
    labels = Tensor(np.random.RandomState(n * c).randint(0, c, n).astype(np.int32))
    if not sparse:
        labels = Tensor(np.eye(c, dtype=np.float32)[labels.asnumpy()])
    assert_same_in_both_modes(nn.SoftmaxCrossEntropyWithLogits(sparse, reduction), logits, labels)


def test_sequential_and_cell_list():
    class Stack(nn.Cell):
        def __init__(self):
            super().__init__()
            self.seq = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
            self.layers = nn.CellList([nn.Tanh(), nn.Sigmoid()])

        def construct(self, x):
            x = self.seq(x)
            for layer in self.layers:
                x = layer(x)
            return self.layers[0](x)
    x = Tensor(np.random.RandomState(0).randn(2, 3).astype(np.float32))
    assert_same_in_both_modes(Stack(), x)


def test_with_loss_cell():
    net = nn.WithLossCell(nn.Dense(3, 2), nn.MSELoss())
    x = Tensor(np.random.RandomState(0).randn(4, 3).astype(np.float32))
    y = Tensor(np.random.RandomState(1).randn(4, 2).astype(np.float32))
    assert_same_in_both_modes(net, x, y)


@pytest.mark.parametrize("optimizer", [
    lambda ps: nn.Momentum(ps, 0.1, 0.9),
    lambda ps: nn.Momentum(ps, 0.1, 0.9, use_nesterov=True, weight_decay=0.01),
    lambda ps: nn.SGD(ps, 0.1),
    lambda ps: nn.Adam(ps, 0.01),
])
def test_optimizers(optimizer):
    net = nn.Dense(3, 2)
    opt = optimizer(net.trainable_params())
    grads = tuple(Tensor(np.random.RandomState(i).randn(*p.shape).astype(np.float32))
                  for i, p in enumerate(net.trainable_params()))
    assert_same_in_both_modes(opt, grads, calls=2)


class _EmptyBatch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="valid", has_bias=True)
        self.pool = nn.MaxPool2d(2, 2)
        self.avg = nn.AvgPool2d(2, 2)

    def construct(self, x):
        y = ms.ops.relu(self.conv(x))
        return self.pool(y).sum() + self.avg(y).sum()


class _Conv(nn.Cell):
    def construct(self, x, w):
        return ms.ops.conv2d(x, w)


def test_conv2d_and_pooling_on_an_empty_batch():
    """An empty batch gives empty results (and zero sums) in both modes, and their gradients;
    graph mode raised an internal InterpError (issue 22, defect 7)."""
    x = Tensor(np.zeros((0, 1, 6, 6), np.float32))
    w = Tensor(np.ones((2, 1, 3, 3), np.float32))
    assert assert_same_in_both_modes(_Conv(), x, w).shape == (0, 2, 4, 4)
    net = _EmptyBatch()
    assert float(assert_same_in_both_modes(net, x).asnumpy()) == 0.0
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            dx, dw = ms.grad(net, grad_position=0, weights=net.trainable_params())(x)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        assert dx.shape == (0, 1, 6, 6) and len(dw) == 2
        assert all(g.shape == p.shape and not g.asnumpy().any()
                   for g, p in zip(dw, net.trainable_params()))

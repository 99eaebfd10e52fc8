"""The seed pages' network samples that need the layers: the LeNet training step of
debugging_in_pynative_mode.md and the Conv2d+BatchNorm2d backward hook of hook_programming.md;
plus WithLossCell and TrainOneStepCell."""
import math

import numpy as np
import pytest

import graphcell as ms
import graphcell.nn as nn
from graphcell import Tensor
from graphcell.nn import Dense, Momentum, SoftmaxCrossEntropyWithLogits, WithLossCell
from graph_nets import GradWrap, LeNet5


# --- debugging_in_pynative_mode.md, "Complete LeNet Sample Code", renamed to graphcell ------
# (its LeNet5 lives in graph_nets.py, shared with the graph-mode tests)


def test_lenet_sample_one_momentum_step():
    ms.set_seed(1)
    net = LeNet5()
    optimizer = Momentum(filter(lambda x: x.requires_grad, net.get_parameters()), 0.1, 0.9)
    criterion = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    net_with_criterion = WithLossCell(net, criterion)
    train_network = GradWrap(net_with_criterion)
    train_network.set_train()

    input_data = Tensor(np.ones([net.batch_size, 1, 32, 32]).astype(np.float32) * 0.01)
    label = Tensor(np.ones([net.batch_size]).astype(np.int32))
    output = net(Tensor(input_data))
    loss_output = criterion(output, label)
    grads = train_network(input_data, label)
    before = [p.asnumpy().copy() for p in optimizer.parameters]
    success = optimizer(grads)
    loss = loss_output.asnumpy()
    print(loss)

    # the page prints 2.3050091 with its random init: near ln(10) for ten near-uniform classes
    assert np.isfinite(loss) and abs(float(loss) - math.log(10)) < 0.05
    assert success == (True,) * 8
    assert [p.name for p in optimizer.parameters] == [
        "conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
        "fc3.weight", "fc3.bias"]
    assert [g.shape for g in grads] == [p.shape for p in optimizer.parameters]
    assert all(not np.array_equal(b, p.asnumpy()) for b, p in zip(before, optimizer.parameters))

    losses = []
    for _ in range(4):
        grads = train_network(input_data, label)
        losses.append(float(criterion(net(input_data), label)))
        optimizer(grads)
    assert losses[0] < float(loss) and all(a > b for a, b in zip(losses, losses[1:]))


# --- WithLossCell and TrainOneStepCell ------------------------------------------------------

def _regression():
    x = Tensor(np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32))
    y = Tensor(np.array([[1.0], [-2.0], [0.5]], np.float32))
    return x, y


def test_with_loss_cell_keeps_names_and_computes_the_loss():
    net = Dense(2, 1, weight_init="ones", bias_init="zeros")
    with_loss = WithLossCell(net, nn.MSELoss())
    assert [p.name for p in with_loss.get_parameters()] == ["weight", "bias"]
    assert with_loss.backbone_network is net
    x, y = _regression()
    expected = np.mean((x.asnumpy().sum(1, keepdims=True) - y.asnumpy()) ** 2)
    np.testing.assert_allclose(with_loss(x, y).asnumpy(), expected, rtol=1e-6)
    assert repr(with_loss) == ("WithLossCell(\n  (_backbone): Dense(input_channels=2, "
                               "output_channels=1, has_bias=True)\n  (_loss_fn): MSELoss()\n)")
    with pytest.raises(TypeError, match="WithLossCell: 'loss_fn' must be a Cell, got function"):
        WithLossCell(net, lambda a, b: a)


def test_train_one_step_returns_the_loss_and_applies_sgd():
    x, y = _regression()
    net = Dense(2, 1, weight_init="ones", bias_init="zeros")
    step = nn.TrainOneStepCell(WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    xs, ys = x.asnumpy().astype(np.float64), y.asnumpy().astype(np.float64)
    w, b = np.ones((1, 2)), np.zeros(1)
    for _ in range(3):
        residual = xs @ w.T + b - ys
        expected_loss = np.mean(residual ** 2)
        grad_w = 2 * residual.T @ xs / residual.size
        grad_b = 2 * residual.sum(0) / residual.size
        np.testing.assert_allclose(step(x, y).asnumpy(), expected_loss, rtol=1e-5)
        w, b = w - 0.1 * grad_w, b - 0.1 * grad_b
        np.testing.assert_allclose(net.weight.asnumpy(), w, rtol=1e-5)
        np.testing.assert_allclose(net.bias.asnumpy(), b, rtol=1e-5, atol=1e-7)


def test_train_one_step_sens_and_return_grad():
    x, y = _regression()
    plain = Dense(2, 1, weight_init="ones", bias_init="zeros")
    loss_plain, grads = nn.TrainOneStepCell(WithLossCell(plain, nn.MSELoss()),
                                            nn.SGD(plain.trainable_params(), 0.0),
                                            return_grad=True)(x, y)
    assert list(grads) == ["weight", "bias"]
    scaled = Dense(2, 1, weight_init="ones", bias_init="zeros")
    step = nn.TrainOneStepCell(WithLossCell(scaled, nn.MSELoss()),
                               nn.SGD(scaled.trainable_params(), 0.1), sens=4.0)
    np.testing.assert_allclose(step(x, y).asnumpy(), loss_plain.asnumpy())
    np.testing.assert_allclose(scaled.weight.asnumpy(), 1 - 0.4 * grads["weight"].asnumpy(),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="'sens' cannot be 0"):
        nn.TrainOneStepCell(WithLossCell(plain, nn.MSELoss()), nn.SGD(plain.trainable_params()),
                            sens=0)


def test_train_one_step_updates_batchnorm_statistics_once():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(2, momentum=0.5)
            self.fc = nn.Dense(2, 2)

        def construct(self, x):
            return self.fc(self.bn(x))

    net = Net()
    loss = WithLossCell(net, SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Adam(net.trainable_params(), 0.01)).set_train()
    x = np.array([[1.0, 2.0], [3.0, 6.0], [2.0, 1.0]], np.float32)
    step(Tensor(x), Tensor(np.array([0, 1, 1], np.int32)))
    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), 0.5 * x.mean(0), rtol=1e-6)
    assert [p.name for p in step.optimizer.parameters] == ["bn.gamma", "bn.beta", "fc.weight",
                                                           "fc.bias"]

"""Gradients of every layer and loss, w.r.t. inputs and parameters, against central finite
differences in float64 (JAX's inner-product form: one directional check per argument)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn

F64 = ms.float64
RNG = np.random.default_rng(1234)


def randn(*shape):
    return Tensor(RNG.standard_normal(shape))


def check_cell_grads(cell, *inputs, reset=None, eps=1e-6, tol=1e-6):
    """Compare ``d/dz sum(u * cell(*inputs))`` with central differences along a random direction,
    for every float input and every trainable parameter ``z``. ``reset`` runs before each call
    (to replay random draws)."""
    rng = np.random.default_rng(0)
    weights = cell.trainable_params()
    u = Tensor(rng.standard_normal(cell(*inputs).shape))

    def scalar(*xs):
        if reset is not None:
            reset()
        return (cell(*xs) * u).sum()

    positions = tuple(i for i, x in enumerate(inputs) if x.dtype.is_float)
    in_grads, w_grads = ms.grad(scalar, grad_position=positions, weights=weights)(*inputs)
    in_grads = (in_grads,) if isinstance(in_grads, Tensor) else in_grads
    checked = 0
    for i, g in zip(positions, in_grads):
        def at(delta, i=i):
            xs = list(inputs)
            xs[i] = Tensor(inputs[i].asnumpy() + delta)
            return float(scalar(*xs))
        _compare(at, g, rng, eps, tol, f"input {i}")
        checked += 1
    for p, g in zip(weights, w_grads):
        original = p.asnumpy().copy()

        def at(delta, p=p, original=original):
            p.set_data(Tensor(original + delta))
            try:
                return float(scalar(*inputs))
            finally:
                p.set_data(Tensor(original))
        _compare(at, g, rng, eps, tol, f"parameter {p.name}")
        checked += 1
    return checked


def _compare(at, grad, rng, eps, tol, what):
    assert str(grad.dtype) == "Float64", what
    v = rng.standard_normal(grad.shape)
    numeric = (at(eps * v) - at(-eps * v)) / (2 * eps)
    analytic = float(np.sum(grad.asnumpy() * v))
    assert abs(numeric - analytic) <= tol * max(1.0, abs(numeric)), \
        f"{what}: finite differences {numeric!r}, gradient {analytic!r}"


@pytest.mark.parametrize("make, shape, n_checked", [
    (lambda: nn.Dense(3, 4, dtype=F64, activation="tanh"), (2, 3), 3),
    (lambda: nn.Dense(3, 2, dtype=F64), (2, 2, 3), 3),
    (lambda: nn.Conv2d(2, 3, 3, has_bias=True, dtype=F64), (2, 2, 5, 4), 3),
    (lambda: nn.Conv2d(2, 2, 2, stride=2, dilation=(1, 2), pad_mode="valid", dtype=F64),
     (1, 2, 6, 7), 2),
    (lambda: nn.Conv2d(4, 2, 3, pad_mode="pad", padding=(1, 0, 2, 1), group=2, dtype=F64),
     (1, 4, 5, 5), 2),
    (lambda: nn.MaxPool2d(2, 2), (2, 2, 4, 6), 1),
    (lambda: nn.MaxPool2d(2, 2, "same"), (1, 2, 5, 5), 1),
    (lambda: nn.MaxPool2d(3, 2, "pad", padding=1), (1, 1, 6, 5), 1),
    (lambda: nn.AvgPool2d(3, 2, "same"), (1, 2, 5, 6), 1),
    (lambda: nn.AvgPool2d(3, 2, "pad", padding=1, count_include_pad=False), (1, 1, 5, 5), 1),
    (lambda: nn.AvgPool2d(2, 1, "pad", padding=1, divisor_override=3), (3, 4, 4), 1),
    (lambda: nn.BatchNorm2d(3, gamma_init=Tensor(RNG.uniform(0.5, 2, 3)), dtype=F64).set_train(),
     (2, 3, 2, 3), 3),
    (lambda: nn.BatchNorm2d(3, gamma_init=Tensor(RNG.uniform(0.5, 2, 3)),
                            moving_mean_init=Tensor(RNG.standard_normal(3)),
                            moving_var_init=Tensor(RNG.uniform(0.5, 2, 3)), dtype=F64),
     (2, 3, 2, 2), 3),
    (lambda: nn.BatchNorm1d(4, beta_init=0.5, dtype=F64).set_train(), (5, 4), 3),
    (lambda: nn.ReLU(), (3, 4), 1),
    (lambda: nn.Sigmoid(), (3, 4), 1),
    (lambda: nn.Tanh(), (3, 4), 1),
    (lambda: nn.Softmax(), (3, 4), 1),
    (lambda: nn.Softmax(axis=(0, 1)), (3, 4), 1),
    (lambda: nn.LogSoftmax(axis=0), (3, 4), 1),
    (lambda: nn.Flatten(), (2, 3, 2), 1),
], ids=lambda v: v if isinstance(v, int) else "")
def test_layer_gradients(make, shape, n_checked):
    cell = make()
    assert check_cell_grads(cell, randn(*shape)) == n_checked


def test_matmul_gradients():
    assert check_cell_grads(nn.MatMul(transpose_x1=True), randn(2, 3, 4), randn(3, 5)) == 2
    assert check_cell_grads(nn.MatMul(transpose_x2=True), randn(4), randn(2, 4)) == 2


def test_dropout_gradient_in_training():
    drop = nn.Dropout(p=0.3).set_train()
    assert check_cell_grads(drop, randn(6, 5), reset=lambda: ms.set_seed(7)) == 1


@pytest.mark.parametrize("loss, labels", [
    (nn.SoftmaxCrossEntropyWithLogits(reduction="mean"),
     Tensor(RNG.dirichlet(np.ones(4), size=3))),
    (nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum"),
     Tensor(np.array([0, 3, 1], np.int32))),
    (nn.MSELoss(), randn(3, 4)),
    (nn.L1Loss(reduction="none"), randn(3, 4)),
], ids=repr)
def test_loss_gradients(loss, labels):
    if isinstance(loss, nn.SoftmaxCrossEntropyWithLogits):
        # MindSpore's (and graphcell's) cell gives no gradient to the labels: check the logits'
        assert check_cell_grads(_WithLabels(loss, labels), randn(3, 4)) == 1
        return
    expected = 2 if labels.dtype.is_float else 1
    assert check_cell_grads(loss, randn(3, 4), labels) == expected


class _WithLabels(nn.Cell):
    def __init__(self, loss, labels):
        super().__init__()
        self.loss, self.labels = loss, labels

    def construct(self, logits):
        return self.loss(logits, self.labels)


def test_network_gradients_through_wrappers():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3, has_bias=True, dtype=F64)
            self.bn = nn.BatchNorm2d(2, dtype=F64)
            self.pool = nn.MaxPool2d(2, 2)
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(8, 3, dtype=F64)

        def construct(self, x):
            return self.fc(self.flatten(self.pool(nn.ReLU()(self.bn(self.conv(x))))))

    net = nn.WithLossCell(Net().set_train(), nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                             reduction="mean"))
    labels = Tensor(np.array([2, 0], np.int32))
    assert check_cell_grads(net, randn(2, 1, 4, 4), labels) == 1 + 6


def test_the_check_catches_a_wrong_gradient():
    class WrongGrad(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (dout * 3,)  # the true gradient is dout * 2

    with pytest.raises(AssertionError, match="input 0: finite differences"):
        check_cell_grads(WrongGrad(), randn(3))

"""Loss cells: values against MindSpore 2.10 and numpy, reductions, and label errors that name
the loss, what it expected and what came."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops

LOGITS = np.array([[1., 2., 3.], [0.5, -1., 2.]], np.float32)
DENSE = np.array([[0, 0, 1.], [1, 0, 0]], np.float32)
SPARSE = np.array([2, 0], np.int32)


def close(actual, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected, np.float64), rtol=tol,
                               atol=tol)


def _log_softmax(x):
    s = x - x.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


@pytest.mark.parametrize("loss, labels, expected", [
    # expected: MindSpore 2.10's values
    (nn.SoftmaxCrossEntropyWithLogits(), DENSE, [0.40760595, 1.7413113]),
    (nn.SoftmaxCrossEntropyWithLogits(reduction="mean"), DENSE, 1.0744586),
    (nn.SoftmaxCrossEntropyWithLogits(sparse=True), SPARSE, [0.40760595, 1.7413113]),
    (nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum"), SPARSE.astype(np.int64),
     2.1489172),
    (nn.MSELoss(), np.ones((2, 3), np.float32), 1.7083334),
    (nn.MSELoss(reduction="sum"), np.ones((2, 3), np.float32), 10.25),
    (nn.MSELoss(), np.array([[1, 2, 3], [1, 1, 1]], np.int32), 0.875),
    (nn.MSELoss("none"), np.array([1., 2., 3.], np.float32), [[0, 0, 0], [0.25, 9, 1]]),
    (nn.L1Loss(), np.ones((2, 3), np.float32), 1.0833334),
    (nn.L1Loss("none"), np.ones((2, 3), np.float32), [[0, 1, 2], [0.5, 2, 1]]),
], ids=lambda v: repr(v) if isinstance(v, nn.Cell) else "")
def test_loss_values_match_mindspore(loss, labels, expected):
    out = loss(Tensor(LOGITS), Tensor(labels))
    assert str(out.dtype) == "Float32"
    close(out.asnumpy(), expected)


def test_cross_entropy_numpy_reference_soft_labels_and_rank3():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((2, 4, 5))
    probs = rng.dirichlet(np.ones(5), size=(2, 4))
    dense = nn.SoftmaxCrossEntropyWithLogits(reduction="mean")
    close(dense(Tensor(logits), Tensor(probs)).asnumpy(), -(probs * _log_softmax(logits)).sum(-1).mean())
    idx = rng.integers(0, 5, (2, 4))
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    expected = -np.take_along_axis(_log_softmax(logits), idx[..., None], -1)[..., 0]
    close(sparse(Tensor(logits), Tensor(idx)).asnumpy(), expected)


def test_float64_stays_float64():
    x = Tensor(LOGITS.astype(np.float64))
    assert str(nn.MSELoss()(x, Tensor(np.ones((2, 3)))).dtype) == "Float64"
    assert str(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(
        x, Tensor(SPARSE)).dtype) == "Float64"


def test_sparse_label_errors():
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    with pytest.raises(TypeError, match=r"SoftmaxCrossEntropyWithLogits\(sparse=True\): expected "
                                        r"labels of Int32 or Int64 class indices with shape \[2\] "
                                        r"for logits Float32 \[2, 3\], got Float32 \[2\]"):
        loss(Tensor(LOGITS), Tensor(SPARSE.astype(np.float32)))
    with pytest.raises(ValueError, match=r"with shape \[2\] for logits Float32 \[2, 3\], got "
                                         r"Int32 \[3\]"):
        loss(Tensor(LOGITS), Tensor(np.array([2, 0, 1], np.int32)))
    with pytest.raises(ValueError, match="label 5 is out of range for 3 classes"):
        loss(Tensor(LOGITS), Tensor(np.array([5, 0], np.int32)))


def test_dense_label_errors():
    loss = nn.SoftmaxCrossEntropyWithLogits()
    with pytest.raises(TypeError, match=r"SoftmaxCrossEntropyWithLogits\(sparse=False\): expected "
                                        r"labels of Float32 probabilities with shape \[2, 3\] .* "
                                        r"got Int32 \[2, 3\] \(pass sparse=True for class indices\)"):
        loss(Tensor(LOGITS), Tensor(DENSE.astype(np.int32)))
    with pytest.raises(ValueError, match=r"got Float32 \[3\]$"):
        loss(Tensor(LOGITS), Tensor(DENSE[0]))
    with pytest.raises(TypeError, match="logits must be a floating-point Tensor, got Int32"):
        loss(Tensor(SPARSE), Tensor(SPARSE))


def test_regression_label_errors():
    with pytest.raises(ValueError, match=r"MSELoss: labels must have the shape of logits \[2, 3\] "
                                         r"\(or broadcast to it\), got Float32 \[3, 2\]"):
        nn.MSELoss()(Tensor(LOGITS), Tensor(np.ones((3, 2), np.float32)))
    with pytest.raises(TypeError, match="L1Loss: 'labels' must be a Tensor, got list"):
        nn.L1Loss()(Tensor(LOGITS), [1.0, 2.0])


def test_reduction_is_checked_and_reprs():
    with pytest.raises(ValueError, match=r"'reduction' must be one of \['mean', 'sum', 'none'\], "
                                         r"got 'avg'"):
        nn.SoftmaxCrossEntropyWithLogits(reduction="avg")
    assert repr(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")) == \
        "SoftmaxCrossEntropyWithLogits()"
    assert repr(nn.MSELoss("sum")) == "MSELoss()"


def test_custom_loss_on_loss_base():
    class Half(nn.LossBase):
        def construct(self, logits, labels):
            return self.get_loss((logits - labels) * 0.5, weights=Tensor([1.0, 3.0]))
    close(Half("sum")(Tensor([1.0, 3.0]), Tensor([0.0, 0.0])).asnumpy(), 5.0)


def test_get_loss_reduces_float16_in_float32_and_get_axis():
    # MindSpore 2.10: 0.1 (as float16) * 0.5 summed over 2050 elements in float32, cast back
    class Weighted(nn.LossBase):
        def construct(self, x, w):
            return self.get_loss(x, w)
    x = Tensor(np.full((50, 41), 0.1, np.float16))
    w = Tensor(np.array([0.5], np.float32))
    total = Weighted("sum")(x, w)
    assert str(total.dtype) == "Float16" and float(total.asnumpy()) == 102.5
    assert float(Weighted("mean")(x, w).asnumpy()) == 0.04998779296875
    ints = Weighted("mean")(Tensor(np.array([1, 2, 4], np.int32)), Tensor(1.0))
    assert str(ints.dtype) == "Int32" and int(ints.asnumpy()) == 2     # 7/3 in float32, cut
    assert nn.LossBase().get_axis(Tensor(np.ones((2, 3, 4)))) == (0, 1, 2)


# MindSpore 2.10's CPU build has no kernel for these three: the cells must be exactly their
# functional ops (which tests/graphcell/test_nn_functions.py checks against formulas), in both
# modes, gradients included.
_NO_KERNEL = [
    (nn.SoftMarginLoss(), lambda a, b: ops.soft_margin_loss(a, b), 2),
    (nn.SoftMarginLoss("none"), lambda a, b: ops.soft_margin_loss(a, b, "none"), 2),
    (nn.TripletMarginLoss(), lambda a, p, n: ops.triplet_margin_loss(a, p, n), 3),
    (nn.TripletMarginLoss(p=1, swap=True, margin=0.5, reduction="sum"),
     lambda a, p, n: ops.triplet_margin_loss(a, p, n, margin=0.5, p=1, swap=True,
                                             reduction="sum"), 3),
    (nn.MultilabelMarginLoss(), lambda x, t: ops.multilabel_margin_loss(x, t), 1),
    (nn.MultilabelMarginLoss("none"), lambda x, t: ops.multilabel_margin_loss(x, t, "none"), 1),
]


class _Call(nn.Cell):
    def __init__(self, loss):
        super().__init__()
        self.loss = loss

    def construct(self, *args):
        return self.loss(*args)


@pytest.mark.parametrize("loss, function, floats", _NO_KERNEL, ids=repr)
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_losses_without_a_mindspore_kernel_are_their_functions(loss, function, floats, mode):
    rng = np.random.default_rng(3)
    args = [Tensor(rng.standard_normal((3, 4)).astype(np.float32)) for _ in range(floats)]
    if floats == 1:
        args.append(Tensor(np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 2, 1, 0]], np.int32)))
    elif isinstance(loss, nn.SoftMarginLoss):
        args[1] = Tensor(np.sign(args[1].asnumpy()))
    net = _Call(loss)
    positions = tuple(range(floats))
    grad = ms.grad(lambda *xs: net(*xs).sum(), grad_position=positions)
    want = function(*args)
    want_grads = ms.grad(lambda *xs: function(*xs).sum(), grad_position=positions)(*args)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        got, got_grads = net(*args), grad(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    close(got.asnumpy(), want.asnumpy())
    got_grads = got_grads if isinstance(got_grads, tuple) else (got_grads,)
    want_grads = want_grads if isinstance(want_grads, tuple) else (want_grads,)
    for g, w in zip(got_grads, want_grads):
        close(g.asnumpy(), w.asnumpy())

"""Gradients of whole programs in GRAPH_MODE: data-dependent ``if`` and ``while``, gradients of
gradients, custom ``bprop`` (the seed samples), and the seed's LeNet5 — ``GradWrap`` and five
Momentum training steps — against PyNative mode and finite differences."""
import numpy as np
import pytest
from hypothesis import given, settings

import graphcell as ms
from graphcell import nn, ops, Tensor, context
from graphcell.ops import GradOperation
from graphcell.testing import strategies as gst

from grad_differential import arrays, assert_grads_agree, check_grads_in_graph_mode
from graph_nets import CustomBpropNet, Dropout2d, GradWrap, LeNet5, copy_parameters

FEW = settings(max_examples=6, deadline=None)


def f64(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape))


# --- control flow --------------------------------------------------------------------------------

def branchy(x, y):
    if (x * y).sum() > 0:
        z = x * x * y
    else:
        z = ops.sin(x) + y
    return z.sum()


def loopy(x):
    while x.sum() < 20.0:
        x = x * 1.5 + 1.0
    return (x * x).sum()


def nested(x, n):
    for _ in range(n):                 # unrolled
        if x.max() > 1.0:
            x = x * 0.5
        x = ops.tanh(x) + x
    return x.sum()


@FEW
@given(gst.tensors(shape=(3,), dtype="float64", elements=(-2, 2)),
       gst.tensors(shape=(3,), dtype="float64", elements=(-2, 2)))
def test_if_on_a_tensor_agrees_with_pynative(x, y):
    assert_grads_agree(branchy, x, y)


@FEW
@given(gst.tensors(shape=(2,), dtype="float64", elements=(0.1, 3)))
def test_while_on_a_tensor_agrees_with_pynative(x):
    assert_grads_agree(loopy, x)
    assert_grads_agree(lambda v: nested(v, 3), x)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_if_and_while_pass_finite_differences_in_graph_mode(sign):
    x, y = f64(3, seed=1), f64(3, seed=2) * sign
    assert check_grads_in_graph_mode(branchy, (x, y)).passed
    assert check_grads_in_graph_mode(loopy, (abs(x) + 0.5,)).passed


# --- gradients of gradients ----------------------------------------------------------------------

def cube(x):
    return (x * x * ops.sin(x)).sum()


def test_grad_of_grad_agrees_with_pynative_and_finite_differences():
    x = f64(4, seed=3)
    second = ms.grad(lambda v: ms.grad(cube)(v).sum())
    py = second(x)
    context.set_context(mode=context.GRAPH_MODE)
    graph = second(x)
    context.set_context(mode=context.PYNATIVE_MODE)
    np.testing.assert_allclose(graph.asnumpy(), py.asnumpy(), rtol=1e-10)
    assert check_grads_in_graph_mode(lambda v: ms.grad(cube)(v), (x,)).passed


def breaking(x):
    for _ in range(3):
        x = ops.tanh(x) * 2.0
        if x.sum() > 1.0:
            break
        x = x * x
    return x.sum()


@FEW
@given(gst.tensors(shape=(2,), dtype="float64", elements=(-2, 2)))
def test_break_under_a_tensor_condition_agrees_with_pynative(x):
    assert_grads_agree(breaking, x)


def while_breaking(x):
    while x.sum() < 6.0:
        x = x * 1.5 + 0.5
        if x.max() > 3.0:
            break
        x = ops.tanh(x) + x
    return (x * x).sum()


@FEW
@given(gst.tensors(shape=(2,), dtype="float64", elements=(0.1, 2)))
def test_break_in_a_tensor_while_agrees_with_pynative(x):
    assert_grads_agree(while_breaking, x)


@pytest.mark.parametrize("f", [branchy, loopy])
def test_grad_of_grad_through_if_and_while(f):
    x, y = Tensor(np.array([0.5, 1.2])), Tensor(np.array([-0.3, 2.0]))
    first = (lambda v: ms.grad(loopy)(v).sum()) if f is loopy else \
        (lambda v: ms.grad(branchy, (0, 1))(v, y)[0].sum())
    assert_grads_agree(first, x, rtol=1e-9)


def test_grad_of_grad_of_a_cell_with_weights():
    net = nn.Dense(3, 2, activation="tanh")
    x = Tensor(np.random.default_rng(4).standard_normal((2, 3)).astype(np.float32))

    def first(v):
        return ms.grad(net, 0)(v).sum()
    assert_grads_agree(first, x, weights=net.trainable_params(), rtol=1e-4, atol=1e-6)


# --- custom bprop (the seeds) --------------------------------------------------------------------

def test_seed_custom_bprop_in_graph_mode(capsys, graph_mode):
    grad_all = GradOperation(get_all=True)
    output = grad_all(CustomBpropNet())(Tensor(1, ms.float32), Tensor(2, ms.float32))
    print(output)
    assert capsys.readouterr().out == (
        "(Tensor(shape=[], dtype=Float32, value= 3), Tensor(shape=[], dtype=Float32, value= 2))\n")


def test_seed_dropout2d_bprop_agrees_with_pynative():
    dropout_2d = Dropout2d(0.8)
    dropout_2d.bprop_debug = True
    x = Tensor(np.random.default_rng(5).standard_normal((2, 4, 3, 3)).astype(np.float32))

    def loss(v):
        out, mask = dropout_2d(v)
        return out.sum(), mask
    grads = assert_grads_agree(lambda v: loss(v)[0], x, seed=1)
    g, (mask,) = _in_graph_mode(ms.grad(loss, has_aux=True), x, seed=1)
    expected = np.broadcast_to(mask.asnumpy().astype(np.float32) / 0.8, x.shape)
    np.testing.assert_allclose(g.asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(grads[0].asnumpy(), expected, rtol=1e-6)


def test_custom_bprop_inside_a_network_and_its_weights():
    class Clip(nn.Cell):
        """Straight-through gradient for a clipped ReLU."""

        def construct(self, x):
            return ops.minimum(ops.relu(x), 1.0)

        def bprop(self, x, out, dout):
            return (dout,)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 3)
            self.clip = Clip()

        def construct(self, x):
            return self.clip(self.fc(x)) * 2.0
    net = Net()
    x = Tensor(np.random.default_rng(6).standard_normal((2, 3)).astype(np.float32) * 3)
    grads = assert_grads_agree(net, x, weights=net.trainable_params())
    dx = grads[0][0].asnumpy()
    np.testing.assert_allclose(dx, 2.0 * np.ones((2, 3)) @ net.fc.weight.asnumpy(), rtol=1e-5)


def test_grad_of_grad_through_a_custom_bprop():
    class Square(nn.Cell):
        def construct(self, x):
            return x * x

        def bprop(self, x, out, dout):
            return (3.0 * x * dout,)       # deliberately not 2x: the bprop is what counts
    sq = Square()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    second = ms.grad(lambda v: ms.grad(lambda u: sq(u).sum())(v).sum())
    np.testing.assert_allclose(_in_graph_mode(second, x).asnumpy(), [3.0, 3.0])
    np.testing.assert_allclose(second(x).asnumpy(), [3.0, 3.0])


def _in_graph_mode(fn, *args, seed=None):
    if seed is not None:
        ms.set_seed(seed)
    context.set_context(mode=context.GRAPH_MODE)
    try:
        return fn(*args)
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)


# --- LeNet5 (debugging_in_pynative_mode.md) ------------------------------------------------------


def _seed_step(net, mode):
    """The seed's training sample: forward, loss, GradWrap gradients, Momentum update."""
    context.set_context(mode=mode)
    try:
        optimizer = nn.Momentum(filter(lambda x: x.requires_grad, net.get_parameters()), 0.1, 0.9)
        criterion = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
        net_with_criterion = nn.WithLossCell(net, criterion)
        train_network = GradWrap(net_with_criterion)
        train_network.set_train()
        input_data = Tensor(np.ones([net.batch_size, 1, 32, 32]).astype(np.float32) * 0.01)
        label = Tensor(np.ones([net.batch_size]).astype(np.int32))
        output = net(Tensor(input_data))
        loss_output = criterion(output, label)
        grads = train_network(input_data, label)
        success = optimizer(grads)
        return loss_output.asnumpy(), grads, success, train_network
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)


def test_seed_gradwrap_lenet5_in_graph_mode():
    ms.set_seed(1)
    nets = [LeNet5(), LeNet5()]
    copy_parameters(nets[0], nets[1])
    loss_py, grads_py, ok_py, _ = _seed_step(nets[0], context.PYNATIVE_MODE)
    loss_g, grads_g, ok_g, train_network = _seed_step(nets[1], context.GRAPH_MODE)
    assert ok_g == ok_py and len(grads_g) == 8
    np.testing.assert_allclose(loss_g, loss_py, rtol=1e-6)
    assert abs(float(loss_g) - 2.3050091) < 0.05       # the page's value, up to initialisation
    for a, b in zip(arrays(grads_py), arrays(grads_g)):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-7)
    for p, q in zip(nets[0].get_parameters(), nets[1].get_parameters()):
        np.testing.assert_allclose(q.asnumpy(), p.asnumpy(), rtol=1e-5, atol=1e-7)
    assert ms.graph.cache_info(train_network).misses == 1


def test_lenet5_five_momentum_steps_same_losses_and_weights_in_both_modes():
    ms.set_seed(3)
    nets = [LeNet5(), LeNet5()]
    copy_parameters(nets[0], nets[1])
    x = Tensor(np.random.RandomState(1).rand(32, 1, 32, 32).astype(np.float32))
    label = Tensor(np.random.RandomState(2).randint(0, 10, 32).astype(np.int32))
    results = []
    for mode, net in zip((context.PYNATIVE_MODE, context.GRAPH_MODE), nets):
        optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
        context.set_context(mode=mode)
        try:
            losses = [float(step(x, label).asnumpy()) for _ in range(5)]
        finally:
            context.set_context(mode=context.PYNATIVE_MODE)
        state = [p.asnumpy().copy() for p in net.get_parameters()]
        state += [m.asnumpy().copy() for m in optimizer.moments] + [optimizer.global_step.asnumpy()]
        results.append((losses, state))
    (losses_py, state_py), (losses_g, state_g) = results
    assert losses_py[-1] < losses_py[0]
    np.testing.assert_allclose(losses_g, losses_py, rtol=1e-5)
    for a, b in zip(state_py, state_g):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    info = ms.graph.cache_info(step)
    assert (info.misses, info.hits) == (1, 4)

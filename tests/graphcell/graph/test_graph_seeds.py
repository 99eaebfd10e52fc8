"""The seed programs that MindSpore runs in graph mode give the same results in GRAPH_MODE (and
staged with ``@ms_function`` / ``@jit``) as in PyNative mode."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops, Tensor, ms_function
from graphcell import context

from graph_nets import LeNet5, Network, TensorAddNet, Threshold, copy_parameters


@pytest.mark.filterwarnings("ignore:device_target")
def test_tensor_add_net_staged_construct(capsys):
    context.set_context(mode=context.PYNATIVE_MODE, device_target="GPU")
    x = Tensor(np.ones([4, 4]).astype(np.float32))
    y = Tensor(np.ones([4, 4]).astype(np.float32))
    net = TensorAddNet()

    z = net(x, y)  # Staging mode
    add = ops.Add()
    res = add(x, z)  # PyNative mode
    print(res.asnumpy())
    assert capsys.readouterr().out == ("[[3. 3. 3. 3.]\n [3. 3. 3. 3.]\n [3. 3. 3. 3.]\n"
                                       " [3. 3. 3. 3.]]\n")
    assert ms.graph.cache_info(net).misses == 1


def test_add_fn(capsys):
    add = ops.Add()

    @ms_function
    def add_fn(x, y):
        res = add(x, y)
        return res

    x = Tensor(np.ones([4, 4]).astype(np.float32))
    y = Tensor(np.ones([4, 4]).astype(np.float32))
    z = add_fn(x, y)
    print(z.asnumpy())
    assert capsys.readouterr().out == ("[[2. 2. 2. 2.]\n [2. 2. 2. 2.]\n [2. 2. 2. 2.]\n"
                                       " [2. 2. 2. 2.]]\n")


def test_conv_fn_with_a_cell_made_outside():
    conv_obj = nn.Conv2d(in_channels=3, out_channels=4, kernel_size=3, stride=2, padding=0)
    conv_obj.init_parameters_data()

    @ms_function
    def conv_fn(x):
        res = conv_obj(x)
        return res

    input_data = np.random.randn(2, 3, 6, 6).astype(np.float32)
    z = conv_fn(Tensor(input_data))
    expected = conv_obj(Tensor(input_data))          # PyNative
    assert z.shape == (2, 4, 3, 3)
    np.testing.assert_allclose(z.asnumpy(), expected.asnumpy(), rtol=1e-5, atol=1e-6)


def test_threshold_in_graph_mode(graph_mode):
    m = Threshold(0.1, 20)
    inputs = ms.Tensor([0.1, 0.2, 0.3], ms.float32)
    out = m(inputs)
    assert repr(out) == ("Tensor(shape=[3], dtype=Float32, value= "
                         "[ 2.00000000e+01,  2.00000003e-01,  3.00000012e-01])")


def test_modify_parameter_under_jit(capsys):
    net = Network()

    @ms.jit
    def modify_parameter():
        b_hat = ms.Tensor([7, 8, 9])
        ops.assign(net.b, b_hat)
        return True

    assert modify_parameter() is True
    print(net.b.asnumpy())
    assert capsys.readouterr().out == "[7. 8. 9.]\n" and net.b.dtype == ms.float32


def test_network_in_graph_mode(graph_mode):
    net = Network()
    x = Tensor(np.ones((2, 5)), ms.float32)
    expected = np.ones((2, 5), np.float32) @ net.w.asnumpy() + net.b.asnumpy()
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6)


def test_lenet5_forward_graph_equals_pynative():
    ms.set_seed(1)
    net = LeNet5()
    input_data = Tensor(np.ones([net.batch_size, 1, 32, 32]).astype(np.float32) * 0.01)
    pynative = net(input_data).asnumpy()
    context.set_context(mode=context.GRAPH_MODE)
    graph = net(input_data).asnumpy()
    assert graph.shape == (32, 10)
    np.testing.assert_allclose(graph, pynative, rtol=1e-5, atol=1e-7)
    # a second call hits the cache
    net(input_data)
    info = ms.graph.cache_info(net)
    assert (info.misses, info.hits) == (1, 1)


def test_lenet5_loss_graph_equals_pynative():
    """The seed's forward + loss (its GradWrap part: test_graph_grad_programs.py)."""
    ms.set_seed(2)
    net = LeNet5()
    criterion = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    with_loss = nn.WithLossCell(net, criterion)
    x = Tensor(np.random.RandomState(0).rand(32, 1, 32, 32).astype(np.float32))
    label = Tensor(np.ones([32]).astype(np.int32))
    pynative = with_loss(x, label).asnumpy()
    context.set_context(mode=context.GRAPH_MODE)
    graph = with_loss(x, label).asnumpy()
    np.testing.assert_allclose(graph, pynative, rtol=1e-5)


def test_lenet5_train_step_with_a_staged_optimizer():
    """PyNative gradients, then the Momentum update staged with @jit: same parameters as an
    all-PyNative step."""
    ms.set_seed(3)
    nets = [LeNet5(), LeNet5()]
    copy_parameters(nets[0], nets[1])
    x = Tensor(np.random.RandomState(1).rand(32, 1, 32, 32).astype(np.float32))
    label = Tensor(np.ones([32]).astype(np.int32))
    results = []
    for staged, net in zip((False, True), nets):
        optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        loss_fn = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                        reduction='mean'))
        grads = ms.grad(loss_fn, grad_position=None, weights=net.trainable_params())(x, label)

        @ms.jit
        def update(grads):
            return optimizer(grads)
        for _ in range(2):
            out = update(grads) if staged else optimizer(grads)
        assert out == tuple(True for _ in net.trainable_params())
        results.append([p.asnumpy().copy() for p in net.get_parameters()]
                       + [m.asnumpy().copy() for m in optimizer.moments]
                       + [optimizer.global_step.asnumpy().copy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)

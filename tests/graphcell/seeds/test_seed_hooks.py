"""Every hook sample of hook_programming.md (and the hook/bprop samples of
cell_and_parameter.md), renamed to graphcell, against what the pages print.

Where the pages disagree with MindSpore 2.x, MindSpore 2.x wins (DESIGN §10.3); the expected text
of the combined-hooks sample was checked against MindSpore 2.10.
"""
import numpy as np
import pytest

import graphcell as ms
import graphcell.nn as nn
from graph_nets import Dropout2d
from hook_nets import conv_bn_net, forward_hook_fn, forward_pre_hook_fn, ones1, relu_net

pytestmark = pytest.mark.both_modes   # every program here gives the same in GRAPH_MODE

ONE = "Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00])"
TWO = "Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00])"
ZERO = "Tensor(shape=[1], dtype=Float32, value= [ 0.00000000e+00])"


def test_forward_pre_hook_and_remove(capsys):
    net = relu_net(forward_pre=forward_pre_hook_fn)
    grad_net = ms.grad(net, grad_position=(0, 1))
    x, y = ones1(), ones1()
    print(net(x, y))
    print(grad_net(x, y))
    net.handles[0].remove()
    print(grad_net(x, y))
    assert capsys.readouterr().out == (
        f"forward inputs:  ({TWO},)\n[2.]\n"
        f"forward inputs:  ({TWO},)\n({ONE}, {ONE})\n"
        f"({ONE}, {ONE})\n")


def test_forward_pre_hook_returning_a_fresh_tensor_cuts_the_gradient(capsys):
    def fresh(cell, inputs):
        print("forward inputs: ", inputs)
        return ms.Tensor(np.ones([1]).astype(np.float32))
    net = relu_net(forward_pre=fresh)
    print(ms.grad(net, grad_position=(0, 1))(ones1(), ones1()))
    assert capsys.readouterr().out == f"forward inputs:  ({TWO},)\n({ZERO}, {ZERO})\n"


def test_forward_hook_and_remove(capsys):
    net = relu_net(forward=forward_hook_fn)
    grad_net = ms.grad(net, grad_position=(0, 1))
    print(grad_net(ones1(), ones1()))
    net.handles[0].remove()
    print(grad_net(ones1(), ones1()))
    assert capsys.readouterr().out == (
        f"forward inputs:  ({TWO},)\nforward outputs:  [2.]\n({TWO}, {TWO})\n({ONE}, {ONE})\n")


def test_all_four_cell_hooks_on_one_cell(capsys):
    def backward_pre_hook_fn(cell, grad_output):
        print("grad input: ", grad_output)

    def backward_hook_fn(cell, grad_input, grad_output):
        print("grad input: ", grad_output)
        print("grad output: ", grad_input)
    net = relu_net(forward_pre=forward_pre_hook_fn, forward=forward_hook_fn,
                   backward_pre=backward_pre_hook_fn, backward=backward_hook_fn)
    print(ms.grad(net, grad_position=(0, 1))(ones1(), ones1()))
    # MindSpore 2.x (DESIGN §10.3): grad_output is (1.0,) at the output after the forward hook;
    # grad_input is (2.0,). The page prints 2.0 for both.
    assert capsys.readouterr().out == (
        f"forward inputs:  ({TWO},)\n"
        f"forward inputs:  ({TWO},)\n"
        f"forward outputs:  [2.]\n"
        f"grad input:  ({ONE},)\n"
        f"grad input:  ({ONE},)\n"
        f"grad output:  ({TWO},)\n"
        f"({TWO}, {TWO})\n")


def test_backward_hooks_may_replace_gradients_in_order():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()
            self.relu.register_backward_hook(lambda c, gi, go: (gi[0] * 10,))
            self.relu.register_backward_pre_hook(lambda c, go: (go[0] * 2,))

        def construct(self, x):
            return self.relu(x) * 3
    # checked against MindSpore 2.10: 3 -> pre-hook 6 -> relu 6 -> backward hook 60
    assert ms.grad(Net())(ms.Tensor([2.0])).asnumpy().tolist() == [60.0]


def test_two_input_cell_grad_input_has_one_entry_per_input():
    seen = []

    class Two(nn.Cell):
        def construct(self, a, b):
            return a * b

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.two = Two()
            self.two.register_backward_hook(lambda c, gi, go: seen.append((gi, go)))

        def construct(self, x, y):
            return self.two(x, y) * 3
    g = ms.grad(Net(), grad_position=(0, 1))(ms.Tensor([2.0]), ms.Tensor([5.0]))
    (gi, go), = seen
    assert [t.asnumpy().tolist() for t in gi] == [[15.0], [6.0]] and go[0].asnumpy().tolist() == [3.0]
    assert [t.asnumpy().tolist() for t in g] == [[15.0], [6.0]]


def test_several_hooks_run_in_registration_order_and_remove_one(capsys):
    net = relu_net(forward_pre=lambda c, i: print("a"))
    h = net.relu.register_forward_pre_hook(lambda c, i: print("b"))
    net.relu.register_forward_pre_hook(lambda c, i: print("c"))
    net(ones1(), ones1())
    h.remove()
    net(ones1(), ones1())
    assert capsys.readouterr().out == "a\nb\nc\na\nc\n"


def test_hook_registered_inside_construct_registers_on_each_run():
    calls = []

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()

        def construct(self, x):
            self.relu.register_forward_hook(lambda c, i, o: calls.append(1))
            return self.relu(x)
    net = Net()
    if ms.get_context("mode") == ms.GRAPH_MODE:   # refused, as MindSpore 2.10 refuses it
        with pytest.raises(SyntaxError, match="register_forward_hook.. in construct .* not "
                                              "supported in graph mode"):
            net(ones1())
        return
    net(ones1())
    net(ones1())
    assert len(calls) == 1 + 2


@pytest.mark.parametrize("kind, fn, match", [
    ("forward_pre", lambda c, i: "oops", "forward-pre hook .* must return Tensors"),
    ("forward", lambda c, i, o: (o, o), "forward hook .* returned a tuple of 2, but the cell returns Tensor"),
    ("backward_pre", lambda c, g: g[0], None),
    ("backward", lambda c, gi, go: (gi[0], gi[0]), "backward hook .* returned 2 gradient"),
    ("backward", lambda c, gi, go: "x", "backward hook .* must return None or a tuple"),
])
def test_hooks_returning_the_wrong_type_or_arity_are_errors(kind, fn, match):
    net = relu_net(**{kind: fn})
    if match is None:  # a single Tensor is accepted as a 1-tuple
        ms.grad(net, grad_position=(0, 1))(ones1(), ones1())
        return
    with pytest.raises((TypeError, ValueError), match=match):
        ms.grad(net, grad_position=(0, 1))(ones1(), ones1())


BN_OUT = ("(Tensor(shape=[1, 2, 1, 1], dtype=Float32, value=\n[[[[ {v}]],\n  [[ {v}]]]]),)\n")
INPUT_GRAD = "[[[[1.99999 1.99999]\n   [1.99999 1.99999]]]]\n"


def test_backward_pre_hook_on_batchnorm(capsys):
    net = conv_bn_net("backward_pre", lambda cell, grad_output: print(grad_output))
    grad_net = ms.grad(net)
    print(grad_net(ms.Tensor(np.ones([1, 1, 2, 2]).astype(np.float32))))
    net.handle.remove()
    print("-------------\n", grad_net(ms.Tensor(np.ones([1, 1, 2, 2]).astype(np.float32))))
    assert capsys.readouterr().out == (BN_OUT.format(v="1.00000000e+00") + INPUT_GRAD
                                       + "-------------\n " + INPUT_GRAD)


def test_backward_hook_on_batchnorm(capsys):
    def backward_hook_function(cell, grad_input, grad_output):
        print(grad_input)
        print(grad_output)
    net = conv_bn_net("backward", backward_hook_function)
    grad_net = ms.grad(net)
    print(grad_net(ms.Tensor(np.ones([1, 1, 2, 2]).astype(np.float32))))
    net.handle.remove()
    print("-------------\n", grad_net(ms.Tensor(np.ones([1, 1, 2, 2]).astype(np.float32))))
    assert capsys.readouterr().out == (BN_OUT.format(v="9.99994993e-01") + BN_OUT.format(v="1.00000000e+00")
                                       + INPUT_GRAD + "-------------\n " + INPUT_GRAD)


# --- custom bprop (cell_and_parameter.md, "Custom Cell Reverse") ------------------------------

def test_custom_bprop_scalar_form_replaces_construct_gradient():
    class Double(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (dout * 100,)
    assert ms.grad(lambda x: Double()(x).sum())(ms.Tensor([1.0, 2.0])).asnumpy().tolist() == [100.0, 100.0]


def test_custom_bprop_dropout2d_tuple_out_and_dout():
    ms.set_seed(1)
    dropout_2d = Dropout2d(0.8)
    dropout_2d.bprop_debug = True
    x = ms.Tensor(np.ones((2, 4, 3, 3), np.float32))

    def loss(v):
        out, mask = dropout_2d(v)
        return out.sum(), mask
    g, (mask,) = ms.grad(loss, has_aux=True)(x)
    expected = mask.asnumpy().astype(np.float32) * (1 / 0.8)
    np.testing.assert_allclose(g.asnumpy(), np.broadcast_to(expected, x.shape), rtol=1e-6)
    assert 0 < mask.asnumpy().mean() < 1  # the mask drops some channels and keeps others


def test_custom_bprop_with_internal_params_gives_weight_gradients():
    class NetWithParam(nn.Cell):
        def __init__(self):
            super(NetWithParam, self).__init__()
            self.w = ms.Parameter(ms.Tensor(np.array([2.0], dtype=np.float32)), name='weight')
            self.internal_params = [self.w]

        def construct(self, x):
            output = self.w * x
            return output

        def bprop(self, *args):
            return (self.w * args[-1],), {self.w: args[0] * args[-1]}
    net = NetWithParam()
    gx, gw = ms.grad(net, grad_position=0, weights=net.trainable_params())(ms.Tensor([3.0]))
    assert gx.asnumpy().tolist() == [2.0] and gw[0].asnumpy().tolist() == [3.0]


def test_custom_bprop_wrong_count_or_shape_is_an_error_naming_the_cell():
    class Bad(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (dout, dout)

    class BadShape(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (dout.sum(),)
    with pytest.raises(ValueError, match=r"Bad\.bprop returned 2 gradient\(s\), expected 1"):
        ms.grad(lambda x: Bad()(x).sum())(ms.Tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"BadShape\.bprop: gradient 0 has shape \[\], expected \[2\]"):
        ms.grad(lambda x: BadShape()(x).sum())(ms.Tensor([1.0, 2.0]))

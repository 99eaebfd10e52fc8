"""Backward hooks and ``HookBackward`` in graph mode, differentially against PyNative (issue 10).

Every hook program of hook_programming.md (and the hook samples the seed tests add) runs in
PYNATIVE_MODE and in GRAPH_MODE; the hooks print what they see, as on the page, and record it,
and both modes must print the same text, make the same hook calls in the same order with the
same values, and give the same results and gradients. Forward hooks are compiled into the graph,
so in graph mode they can only *print* (a host callback); backward hooks run as Python when the
gradient runs, so they may also record.
"""
import numpy as np
import pytest

import graphcell as ms
import graphcell.nn as nn
from graphcell import Tensor, ops
from hook_harness import SEEN, check_same, run_in, see
from hook_nets import conv_bn_net, forward_hook_fn, forward_pre_hook_fn, ones1, relu_net

# --- the page's programs ---------------------------------------------------------------------------

def hook_backward_sample():
    def hook_fn(grad_out):
        print("hook_fn print grad_out:", grad_out)
        see("hook_fn", grad_out)

    hook = ops.HookBackward(hook_fn)

    def hook_test(x, y):
        z = x * y
        z = hook(z)
        z = z * y
        return z

    def net(x, y):
        return ms.grad(hook_test, grad_position=(0, 1))(x, y)

    output = net(Tensor(1, ms.float32), Tensor(2, ms.float32))
    print("output:", output)
    return output


def forward_pre_hook_sample():
    net = relu_net(forward_pre=forward_pre_hook_fn)
    grad_net = ms.grad(net, grad_position=(0, 1))
    x, y = ones1(), ones1()
    output = net(x, y)
    print(output)
    gradient = grad_net(x, y)
    print(gradient)
    net.handles[0].remove()
    gradient2 = grad_net(x, y)
    print(gradient2)
    return output, gradient, gradient2


def fresh_tensor_sample():
    def fresh(cell, inputs):
        print("forward inputs: ", inputs)
        return Tensor(np.ones([1]).astype(np.float32))
    net = relu_net(forward_pre=fresh)
    gradient = ms.grad(net, grad_position=(0, 1))(ones1(), ones1())
    print(gradient)
    return gradient


def forward_hook_sample():
    net = relu_net(forward=forward_hook_fn)
    grad_net = ms.grad(net, grad_position=(0, 1))
    gradient = grad_net(ones1(), ones1())
    print(gradient)
    net.handles[0].remove()
    gradient2 = grad_net(ones1(), ones1())
    print(gradient2)
    return gradient, gradient2


def backward_pre_hook_sample():
    def backward_pre_hook_function(cell, grad_output):
        print(grad_output)
        see("backward_pre", grad_output)
    net = conv_bn_net("backward_pre", backward_pre_hook_function)
    grad_net = ms.grad(net)
    output = grad_net(Tensor(np.ones([1, 1, 2, 2]).astype(np.float32)))
    print(output)
    net.handle.remove()
    output2 = grad_net(Tensor(np.ones([1, 1, 2, 2]).astype(np.float32)))
    print("-------------\n", output2)
    return output, output2


def backward_hook_sample():
    def backward_hook_function(cell, grad_input, grad_output):
        print(grad_input)
        print(grad_output)
        see("backward.grad_input", grad_input)
        see("backward.grad_output", grad_output)
    net = conv_bn_net("backward", backward_hook_function)
    grad_net = ms.grad(net)
    output = grad_net(Tensor(np.ones([1, 1, 2, 2]).astype(np.float32)))
    print(output)
    net.handle.remove()
    output2 = grad_net(Tensor(np.ones([1, 1, 2, 2]).astype(np.float32)))
    print("-------------\n", output2)
    return output, output2


def all_four_hooks_sample():
    def backward_pre_hook_fn(cell, grad_output):
        print("grad input: ", grad_output)
        see("backward_pre", grad_output)

    def backward_hook_fn(cell, grad_input, grad_output):
        print("grad input: ", grad_output)
        print("grad output: ", grad_input)
        see("backward.grad_input", grad_input)
        see("backward.grad_output", grad_output)
    net = relu_net(forward_pre=forward_pre_hook_fn, forward=forward_hook_fn,
                   backward_pre=backward_pre_hook_fn, backward=backward_hook_fn)
    gradient = ms.grad(net, grad_position=(0, 1))(ones1(), ones1())
    print(gradient)
    return gradient


# --- the seed tests' extra hook programs ---------------------------------------------------------

def replace_in_order_sample():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()
            self.relu.register_backward_hook(lambda c, gi, go: (see("back", gi + go) or gi[0] * 10,))
            self.relu.register_backward_pre_hook(lambda c, go: (see("pre", go) or go[0] * 2,))

        def construct(self, x):
            return self.relu(x) * 3
    return ms.grad(Net())(Tensor([2.0]))      # MindSpore 2.10: [60.]


def two_input_cell_sample():
    class Two(nn.Cell):
        def construct(self, a, b):
            return a * b

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.two = Two()
            self.two.register_backward_hook(lambda c, gi, go: see("two", gi + go))

        def construct(self, x, y):
            return self.two(x, y) * 3
    return ms.grad(Net(), grad_position=(0, 1))(Tensor([2.0]), Tensor([5.0]))


PROGRAMS = [hook_backward_sample, forward_pre_hook_sample, fresh_tensor_sample,
            forward_hook_sample, backward_pre_hook_sample, backward_hook_sample,
            all_four_hooks_sample, replace_in_order_sample, two_input_cell_sample]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_seed_hook_programs_agree_in_both_modes(program, capsys):
    check_same(program, capsys)


def test_the_page_outputs_hold_in_graph_mode(capsys):
    """Spot checks that the agreement is not vacuous (the seed test checks the full text)."""
    text, seen, results = run_in(ms.GRAPH_MODE, all_four_hooks_sample, capsys)
    assert seen == [("backward_pre", [[1.0]]), ("backward.grad_input", [[2.0]]),
                    ("backward.grad_output", [[1.0]])]
    assert results == [[2.0], [2.0]] and text.count("forward inputs:") == 2
    text, seen, results = run_in(ms.GRAPH_MODE, hook_backward_sample, capsys)
    assert seen == [("hook_fn", [2.0])] and results == [4.0, 4.0]
    assert run_in(ms.GRAPH_MODE, replace_in_order_sample, capsys)[2] == [60.0]
    _, seen, results = run_in(ms.GRAPH_MODE, two_input_cell_sample, capsys)
    assert seen == [("two", [[15.0], [6.0], [3.0]])] and results == [[15.0], [6.0]]


# --- more shapes of programs ---------------------------------------------------------------------

def independent_hooks_sample():
    """Two HookBackward on independent branches: reverse program order, whatever the operand
    order of the join (MindSpore 2.10 calls h2 first in both functions)."""
    h1 = ops.HookBackward(lambda g: see("h1", g))
    h2 = ops.HookBackward(lambda g: see("h2", g))

    def f(x):
        return h1(x * 2) + h2(x * 3)

    def f2(x):
        return h2(x * 3) * 0 + h1(x * 2)   # h1 is applied after h2 here

    def f3(x):
        a = h1(x * 2)
        b = h2(x * 3)
        return b + a
    x = Tensor(1.0, ms.float32)
    return [ms.grad(f)(x), ms.grad(f2)(x), ms.grad(f3)(x)]


def tuple_output_cell_sample():
    """A cell returning two tensors, one of which does not reach the loss: its grad_output
    entry is zeros; replacing grad_output with a tuple works."""
    class Split(nn.Cell):
        def construct(self, x):
            return x * 2, x * 5

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.split = Split()
            self.split.register_backward_pre_hook(
                lambda c, go: (see("pre", go) or (go[0] * 3, go[1])))
            self.split.register_backward_hook(lambda c, gi, go: see("back", gi + go))

        def construct(self, x):
            a, b = self.split(x)
            return (a * a).sum()
    return ms.grad(Net())(Tensor([1.0, 2.0]))


def python_number_input_sample():
    """A cell called with a Python number: grad_input has None in its place."""
    class Scale(nn.Cell):
        def construct(self, x, k):
            return x * k

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scale = Scale()
            self.scale.register_backward_hook(lambda c, gi, go: see("back", gi + go))

        def construct(self, x):
            return self.scale(x, 4.0)
    return ms.grad(Net())(Tensor([1.0, 2.0]))


def fresh_gradient_sample():
    """A hook returning a fresh tensor (not computed from the gradient) replaces it."""
    hook = ops.HookBackward(lambda g: (Tensor(np.full([2], 7.0, np.float32)),))

    def f(x):
        return (hook(x * x) * 3).sum()
    return ms.grad(f)(Tensor([1.0, 2.0]))


def nested_cells_sample():
    """Hooks on a cell and on its sub-cell, each with both kinds: inner ones run inside."""
    class Inner(nn.Cell):
        def construct(self, x):
            return ops.tanh(x)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def construct(self, x):
            return self.inner(x * 2) * 3

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.outer = Outer()
            for name, cell in (("outer", self.outer), ("inner", self.outer.inner)):
                cell.register_backward_pre_hook(lambda c, go, n=name: see(n + ".pre", go))
                cell.register_backward_hook(lambda c, gi, go, n=name: see(n + ".back", gi + go))

        def construct(self, x):
            return self.outer(x).sum()
    return ms.grad(Net())(Tensor([0.5, -1.0]))


def weights_and_value_and_grad_sample():
    """value_and_grad with respect to the weights: the first layer's input is not
    differentiated, so its backward hook runs last, with None for that input (as in MindSpore
    2.10's PyNative mode)."""
    net = nn.SequentialCell([nn.Dense(3, 4, weight_init="ones", bias_init="zeros"), nn.ReLU(),
                             nn.Dense(4, 2, weight_init="ones", bias_init="zeros")])
    for i, cell in enumerate(net.cell_list):
        cell.register_backward_hook(lambda c, gi, go, i=i: see(f"layer{i}", gi + go))
    loss, grads = ms.value_and_grad(lambda x: net(x).sum(), None, net.trainable_params())(
        Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 6))
    return [loss, *grads]


def grad_of_custom_bprop_cell_sample():
    """Backward hooks around a cell with a custom bprop see what the bprop returns."""
    class Double(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (dout * 100,)
    d = Double()
    d.register_backward_hook(lambda c, gi, go: see("back", gi + go))
    d.register_backward_pre_hook(lambda c, go: see("pre", go))
    return ms.grad(lambda x: d(x).sum())(Tensor([1.0, 2.0]))


def control_flow_and_second_order_sample():
    """A hook in a data-dependent while loop (called once per iteration, last first), in the
    taken branch of an if, and under a gradient of a gradient."""
    h = ops.HookBackward(lambda g: see("h", g))

    def f(x):
        return (h(x * x) * x).sum()

    def loop(x, n):
        i = 0
        while i < n:
            x = h(x * 1.5)
            i += 1
        return x.sum()

    def branch(x):
        if x.sum() > 0:
            y = h(x * 2)
        else:
            y = h(x * 3)
        return (y * y).sum()
    x = Tensor([1.0, 2.0])
    return [ms.grad(ms.grad(f))(x), ms.grad(loop)(x, Tensor(3)), ms.grad(branch)(x)]


def two_input_hook_backward_sample():
    """HookBackward on two values: the hook sees and replaces both gradients."""
    h = ops.HookBackward(lambda g: see("h", g) or (g[0] * 2, g[1]))

    def f(x, y):
        a, b = h(x * 3, y * 4)
        return (a * b).sum() + a.sum()
    return ms.grad(f, grad_position=(0, 1))(Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))


MORE = [two_input_hook_backward_sample, control_flow_and_second_order_sample, independent_hooks_sample, tuple_output_cell_sample, python_number_input_sample,
        fresh_gradient_sample, nested_cells_sample, weights_and_value_and_grad_sample,
        grad_of_custom_bprop_cell_sample]


@pytest.mark.parametrize("program", MORE, ids=lambda p: p.__name__)
def test_more_hook_programs_agree_in_both_modes(program, capsys):
    check_same(program, capsys)


def test_what_the_more_programs_see(capsys):
    _, seen, results = run_in(ms.GRAPH_MODE, two_input_hook_backward_sample, capsys)
    assert seen == [("h", [[13.0, 17.0], [3.0, 6.0]])] and results == [[78.0, 102.0], [12.0, 24.0]]
    _, seen, _ = run_in(ms.GRAPH_MODE, control_flow_and_second_order_sample, capsys)
    assert [v for _, (v,) in seen] == [[1.0, 2.0], [1.0, 1.0], [1.0, 1.0], [1.5, 1.5],
                                       [2.25, 2.25], [4.0, 8.0]]
    _, seen, _ = run_in(ms.GRAPH_MODE, independent_hooks_sample, capsys)
    assert [w for w, _ in seen] == ["h2", "h1", "h1", "h2", "h2", "h1"]
    _, seen, results = run_in(ms.GRAPH_MODE, tuple_output_cell_sample, capsys)
    assert seen == [("pre", [[4.0, 8.0], [0.0, 0.0]]),      # d sum(a*a)/da = 2a, a = 2x
                    ("back", [[24.0, 48.0], [12.0, 24.0], [0.0, 0.0]])]
    assert results == [24.0, 48.0]
    _, seen, _ = run_in(ms.GRAPH_MODE, python_number_input_sample, capsys)
    assert seen == [("back", [[4.0, 4.0], None, [1.0, 1.0]])]
    assert run_in(ms.GRAPH_MODE, fresh_gradient_sample, capsys)[2] == [14.0, 28.0]
    _, seen, _ = run_in(ms.GRAPH_MODE, nested_cells_sample, capsys)
    assert [w for w, _ in seen] == ["outer.pre", "inner.pre", "inner.back", "outer.back"]
    _, seen, _ = run_in(ms.GRAPH_MODE, weights_and_value_and_grad_sample, capsys)
    assert [w for w, _ in seen] == ["layer2", "layer1", "layer0"] and seen[-1][1][0] is None
    _, seen, results = run_in(ms.GRAPH_MODE, grad_of_custom_bprop_cell_sample, capsys)
    assert seen == [("pre", [[1.0, 1.0]]), ("back", [[100.0, 100.0], [1.0, 1.0]])]
    assert results == [100.0, 100.0]


# --- inside compiled code: @jit, GradOperation in construct, TrainOneStepCell -------------------

class Tiny(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
        self.act = nn.Tanh()
        self.act.register_backward_pre_hook(lambda c, go: see("act.pre", go))
        self.act.register_backward_hook(lambda c, gi, go: (see("act.back", gi) or gi[0] * 0.5,))
        self.hook = ops.HookBackward(lambda g: see("hook", g))

    def construct(self, x):
        return self.act(self.hook(self.fc(x)))


def data():
    return (Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)),
            Tensor(np.array([[0.1, 0.2]] * 4, np.float32)))


def train_steps_sample():
    net = Tiny()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    losses = [step(*data()) for _ in range(3)]
    return losses + [p for p in net.trainable_params()]


def jit_value_and_grad_sample():
    net = Tiny()
    fn = ms.value_and_grad(lambda x, y: ((net(x) - y) ** 2).mean(), 0, net.trainable_params())

    @ms.jit
    def both(x, y):
        return fn(x, y)
    return [both(*data()), both(*data())]


def grad_operation_in_construct_sample():
    class GradNet(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.grad = ops.GradOperation(get_all=True)

        def construct(self, x):
            return self.grad(self.net)(x)
    return GradNet(Tiny())(data()[0])


COMPILED = [train_steps_sample, jit_value_and_grad_sample, grad_operation_in_construct_sample]


@pytest.mark.parametrize("program", COMPILED, ids=lambda p: p.__name__)
def test_hooks_in_compiled_gradients_agree_with_pynative(program, capsys):
    _, seen, _ = check_same(program, capsys)
    assert {w for w, _ in seen} == {"act.pre", "act.back", "hook"}


def test_train_steps_call_the_hooks_every_step_in_order(capsys):
    _, seen, _ = run_in(ms.GRAPH_MODE, train_steps_sample, capsys)
    assert [w for w, _ in seen] == ["act.pre", "act.back", "hook"] * 3

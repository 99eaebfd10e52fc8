"""Hook programs whose hooks have ordinary Python bodies — they append to lists, print, call
``asnumpy``, return new tensors, count calls on objects — in PyNative mode and in GRAPH_MODE:
the same text, the same hook calls with the same values in the same order, the same results
(issue 19: such bodies used to fail to compile). Every kind of hook: a cell's forward-pre,
forward, backward-pre and backward hooks, ``ops.HookBackward``, ``Tensor.register_hook`` and
``Parameter.register_hook``."""
import numpy as np
import pytest

import graphcell as ms
import graphcell.nn as nn
from graphcell import Parameter, Tensor, ops
from hook_harness import check_same, run_in, see

LOG: list = []
"""A global list the hooks append to (compiled, an append would change a copy)."""


def x4():
    return Tensor(np.array([[1.0, -2.0], [3.0, 0.5]], np.float32))


class Two(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.fc(x)) * 2


# --- forward-pre and forward hooks -------------------------------------------------------------

def appending_forward_hook():
    def hook(cell, inputs, outputs):
        LOG.append(outputs.asnumpy())
        see("fwd", [outputs])
    net = Two()
    net.act.register_forward_hook(hook)
    LOG.clear()
    out = [net(x4()), ms.grad(net)(x4())]
    assert len(LOG) == 2
    return out


def printing_forward_pre_hook():
    def hook(cell, inputs):
        print("pre:", inputs[0].asnumpy().round(3).tolist(), type(cell).__name__)
        see("pre", inputs)
    net = Two()
    net.fc.register_forward_pre_hook(hook)
    return [net(x4()), ms.grad(net)(x4())]


def fresh_tensor_forward_hook():
    def hook(cell, inputs, outputs):
        see("fwd", [outputs])
        return Tensor(np.full(outputs.shape, 7.0, np.float32))   # cuts the gradient
    net = Two()
    net.act.register_forward_hook(hook)
    return [net(x4()), ms.grad(net)(x4())]


def computing_forward_hook():
    def hook(cell, inputs, outputs):
        LOG.append(float(outputs.asnumpy().sum()))
        return outputs * outputs      # the gradient flows through it
    net = Two()
    net.fc.register_forward_hook(hook)
    return [net(x4()), ms.grad(net)(x4()), ms.grad(net, None, net.trainable_params())(x4())]


def replacing_forward_pre_hook():
    def hook(cell, inputs):
        see("pre", inputs)
        return inputs[0] + 1
    net = Two()
    net.act.register_forward_pre_hook(hook)
    return [net(x4()), ms.grad(net)(x4())]


class Counter:
    """A plain object whose method is a hook: it counts its calls."""

    def __init__(self):
        self.calls = 0

    def hook(self, cell, inputs, outputs):
        self.calls += 1
        print("call", self.calls)


def method_hook_counting_calls():
    counter = Counter()
    net = Two()
    net.act.register_forward_hook(counter.hook)
    out = [net(x4()), net(x4()), ms.grad(net)(x4())]
    return out + [counter.calls]


def hooks_on_a_cell_called_twice():
    class Twice(nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = nn.Tanh()
            self.act.register_forward_hook(lambda c, i, o: see("fwd", [o]))
            self.act.register_backward_hook(lambda c, gi, go: see("back", gi + go))

        def construct(self, x):
            return self.act(self.act(x) * 3).sum()
    net = Twice()
    return [net(x4()), ms.grad(net)(x4())]


def hook_removed_between_calls():
    net = Two()
    handle = net.act.register_forward_hook(lambda c, i, o: see("fwd", [o]))
    first = net(x4())
    handle.remove()
    return [first, net(x4()), ms.grad(net)(x4())]


def hooks_in_tensor_branches():
    class Branchy(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.ReLU(), nn.Tanh()
            self.a.register_forward_hook(lambda c, i, o: LOG.append("a") or see("a", [o]))
            self.b.register_forward_hook(lambda c, i, o: LOG.append("b") or see("b", [o]))

        def construct(self, x):
            if x.sum() > 0:
                y = self.a(x)
            else:
                y = self.b(x)
            return y * 2
    net = Branchy()
    return [net(x4()), net(-x4()), ms.grad(net)(x4()), ms.grad(net)(-x4())]


# --- backward hooks and HookBackward -----------------------------------------------------------

def appending_backward_hooks():
    def pre(cell, grad_output):
        LOG.append(grad_output[0].asnumpy().copy())
        see("pre", grad_output)

    def back(cell, grad_input, grad_output):
        print("back", [g.shape for g in grad_input])
        see("back", grad_input + grad_output)
        return (grad_input[0] * 0.5,)
    net = Two()
    net.act.register_backward_pre_hook(pre)
    net.act.register_backward_hook(back)
    return [ms.grad(net)(x4()), ms.value_and_grad(net, 0, net.trainable_params())(x4())]


def hook_backward_with_a_body():
    def hook_fn(grads):
        print("grad:", grads[0].asnumpy().tolist())
        LOG.append(len(grads))
        return (grads[0] * 2,)
    hook = ops.HookBackward(hook_fn)

    def f(x, y):
        z = hook(x * y)
        return (z * y).sum()
    return [ms.grad(f, (0, 1))(x4(), x4() + 1)]


def conv_backward_hook_with_weights_only():
    """GradOperation(get_by_list=True): the conv's input is not differentiated, its backward
    hook still runs (grad_input None), as in MindSpore 2.10's PyNative mode."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 2, weight_init="ones", pad_mode="valid")
            self.conv.register_backward_pre_hook(lambda c, go: see("pre", go))
            self.conv.register_backward_hook(lambda c, gi, go: see("back", gi + go))

        def construct(self, x):
            return self.conv(x).sum()
    net = Net()
    x = Tensor(np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3))
    return [ops.GradOperation(get_by_list=True)(net, net.trainable_params())(x),
            ms.grad(net)(x)]


# --- tensor and parameter hooks ----------------------------------------------------------------

def tensor_register_hook():
    def hook(g):
        see("tensor", [g])
        return g * 2

    def f(x):
        y = x * 3
        z = y * y                  # a use before the hook: it sees the whole gradient
        y.register_hook(hook)
        return (z + y).sum()
    return [ms.grad(f)(x4()), ms.jit(ms.grad(f))(x4())]


def input_register_hook():
    """A hook registered on an input before it is differentiated (MindSpore's PyNative mode)."""
    x = x4()
    handle = x.register_hook(lambda g: see("input", [g]) or g * 3)

    def f(v):
        return (v * v).sum()
    out = [ms.grad(f)(x)]
    handle.remove()
    return out + [ms.grad(f)(x)]


def parameter_register_hook():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
            self.w.register_hook(self.hook)

        def hook(self, g):
            LOG.append("w")
            see("w", [g])

        def construct(self, x):
            return (x * self.w).sum()
    net = Net()
    return [ms.grad(net, None, net.trainable_params())(x4()), ms.grad(net)(x4())]


def training_step_with_hooks():
    net = Two()
    net.act.register_forward_hook(lambda c, i, o: LOG.append(o.asnumpy().sum()))
    net.act.register_backward_hook(lambda c, gi, go: see("back", gi))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    label = Tensor(np.zeros((2, 2), np.float32))
    losses = [step(x4(), label) for _ in range(2)]
    return losses + list(net.trainable_params())


PROGRAMS = [appending_forward_hook, printing_forward_pre_hook, fresh_tensor_forward_hook,
            computing_forward_hook, replacing_forward_pre_hook, method_hook_counting_calls,
            hooks_on_a_cell_called_twice, hook_removed_between_calls, hooks_in_tensor_branches,
            appending_backward_hooks, hook_backward_with_a_body,
            conv_backward_hook_with_weights_only, tensor_register_hook, input_register_hook,
            parameter_register_hook,
            training_step_with_hooks]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_hook_programs_agree_in_both_modes(program, capsys):
    LOG.clear()
    check_same(program, capsys)


def test_what_the_hook_programs_see(capsys):
    """The agreement is not vacuous: what the hooks saw in graph mode, checked by hand."""
    _, seen, results = run_in(ms.GRAPH_MODE, fresh_tensor_forward_hook, capsys)
    assert results[1] == [[0.0, 0.0], [0.0, 0.0]]             # a fresh tensor cuts the gradient
    assert [w for w, _ in seen] == ["fwd", "fwd"]
    _, seen, results = run_in(ms.GRAPH_MODE, computing_forward_hook, capsys)
    text, _, results = run_in(ms.GRAPH_MODE, method_hook_counting_calls, capsys)
    assert text == "call 1\ncall 2\ncall 3\n" and results[-1] == 3
    _, seen, _ = run_in(ms.GRAPH_MODE, conv_backward_hook_with_weights_only, capsys)
    assert [w for w, _ in seen] == ["pre", "back", "pre", "back"] and seen[1][1][0] is None
    _, seen, results = run_in(ms.GRAPH_MODE, tensor_register_hook, capsys)
    x = x4().asnumpy()
    assert seen[0][1][0] == (2 * 3 * x + 1).tolist()          # d(z + y)/dy, both uses
    assert results[0] == (3 * 2 * (2 * 3 * x + 1)).tolist()   # MindSpore 2.10: [42. 78.] at [1 2]
    LOG.clear()
    run_in(ms.GRAPH_MODE, parameter_register_hook, capsys)
    assert LOG == ["w"]                       # only where the Parameter is differentiated
    text, seen, _ = run_in(ms.GRAPH_MODE, hook_backward_with_a_body, capsys)
    assert text.startswith("grad: [[2.0, -1.0], [4.0, 1.5]]")


def test_a_hook_body_that_cannot_compile_is_a_host_call_in_the_ir():
    def hook(cell, inputs, outputs):
        LOG.append(outputs.asnumpy())
    net = Two()
    net.act.register_forward_hook(hook)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        text = net.compile(x4()).as_text(locs="none")
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert 'py_call(' in text and 'name="test_a_hook_body_that_cannot_compile_is_a_host_call_' \
                                  'in_the_ir.<locals>.hook"' in text


def test_a_compilable_hook_body_is_compiled_in():
    net = Two()
    net.act.register_forward_hook(lambda c, i, o: o * 3)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        text = net.compile(x4()).as_text(locs="none")
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert "py_call" not in text and "mul(" in text

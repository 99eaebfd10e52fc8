"""Backward hooks in graph mode, seen from the IR and the compile cache (issue 10): the callbacks
are ops in the IR text, a network without hooks has none, registering or removing a hook
recompiles, and a hook's errors read as in PyNative and change nothing."""
import warnings

import numpy as np
import pytest

import graphcell as ms
import graphcell.nn as nn
from graphcell import Tensor, ops
from graphcell.graph import cache_info
from graphcell_ir.ir.walk import walk
from graphcell_ir.text import parse_module, print_module


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_level="O1")


def op_names(lowered) -> list[str]:
    return [op.opdef.name for op in walk(lowered.module)]


def hook_fn(grads):
    return None


HOOK = ops.HookBackward(hook_fn)


def hook_test(x, y):
    z = x * y
    z = HOOK(z)
    z = z * y
    return z


class ReluNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def construct(self, x, y):
        return self.relu(x + y)


# --- golden IR (no passes, so the text is the frontend's and autodiff's own) ----------------------

GOLDEN_HOOK_BACKWARD = """\
func @hook_test.grad(%x: f32[], %y: f32[]) -> f32[], f32[], f32[] attributes {diff_outputs=[0],
    grad_of="hook_test", sens="ones", wrt=[0,1]} {
  %z = mul(%x, %y) : f32[]
  %z_1 = hook_backward(%z) {fn=@hook_fn, name="HookBackward"} : f32[]
  %z_2 = mul(%z_1, %y) : f32[]
  %0 = fill() {dtype=f32, shape=[], value=1} : f32[]
  %1 = mul(%0, %y) : f32[]
  %2 = mul(%0, %z_1) : f32[]
  %3 = host_callback(%1) {fn=@hook_fn, name="HookBackward"} : f32[]
  %dx = mul(%3, %y) : f32[]
  %4 = mul(%3, %x) : f32[]
  %dy = add(%2, %4) : f32[]
  return %z_2, %dx, %dy
}"""

GOLDEN_CELL_HOOKS = """\
func @ReluNet.grad(%x: f32[1], %y: f32[1]) -> f32[1], f32[1], f32[1] attributes {diff_outputs=[0],
    grad_of="ReluNet", sens="ones", wrt=[0,1]} {
  %0 = add(%x, %y) : f32[1]
  %1 = hook_backward(%0) {fn=@ReLU.backward_hooks, name="ReLU backward hooks"} : f32[1]
  %2 = relu(%1) : f32[1]
  %3 = hook_backward(%2) {fn=@ReLU.backward_pre_hooks, name="ReLU backward-pre hooks"} : f32[1]
  %4 = fill() {dtype=f32, shape=[1], value=1} : f32[1]
  %5 = host_callback(%4) {fn=@ReLU.backward_pre_hooks, name="ReLU backward-pre hooks"} : f32[1]
  %6 = greater(%1, 0:i64) : bool[1]
  %7 = fill() {dtype=f32, shape=[1], value=0} : f32[1]
  %8 = select(%6, %5, %7) : f32[1]
  %dx = host_callback(%8) {fn=@ReLU.backward_hooks, name="ReLU backward hooks"} : f32[1]
  return %3, %dx, %dx
}"""


def gradient_function_text(lowered) -> str:
    text = lowered.as_text(locs="none")
    return text[text.index("func @", 1):]   # the gradient Function the entry calls


def test_golden_ir_of_hook_backward(graph_mode):
    ms.set_context(jit_level="O0")
    lowered = ms.grad(hook_test, grad_position=(0, 1)).lower(Tensor(1, ms.float32),
                                                              Tensor(2, ms.float32))
    assert gradient_function_text(lowered) == GOLDEN_HOOK_BACKWARD


def test_golden_ir_of_cell_backward_hooks(graph_mode):
    ms.set_context(jit_level="O0")
    net = ReluNet()
    net.relu.register_backward_pre_hook(lambda c, g: None)
    net.relu.register_backward_hook(lambda c, gi, go: None)
    lowered = ms.grad(net, grad_position=(0, 1)).lower(Tensor([1.0]), Tensor([1.0]))
    assert gradient_function_text(lowered) == GOLDEN_CELL_HOOKS


def test_optimized_ir_keeps_the_callbacks_in_order_with_user_locations(graph_mode):
    net = ReluNet()
    net.relu.register_backward_pre_hook(lambda c, g: None)
    net.relu.register_backward_hook(lambda c, gi, go: None)
    lowered = ms.grad(net, grad_position=(0, 1)).lower(Tensor([1.0]), Tensor([1.0]))
    callbacks = [op.attrs["name"] for op in walk(lowered.module) if op.opdef.name == "host_callback"]
    assert callbacks == ["ReLU backward-pre hooks", "ReLU backward hooks"]
    text = lowered.as_text()
    assert "@ReLU.backward_pre_hooks" in text and "ReluNet>ReLU.backward_hooks [grad]" in text


def test_the_ir_text_with_callbacks_round_trips(graph_mode):
    net = ReluNet()
    net.relu.register_backward_hook(lambda c, gi, go: None)
    text = print_module(ms.grad(net).lower(Tensor([1.0]), Tensor([1.0])).module)
    assert print_module(parse_module(text)) == text


# --- no hooks, no ops --------------------------------------------------------------------------

def lenet():
    from graph_nets import LeNet5
    return LeNet5()


def test_a_network_without_hooks_has_no_hook_ops(graph_mode):
    net = lenet()
    x = Tensor(np.ones([32, 1, 32, 32], np.float32))
    plain = ms.grad(net, None, net.trainable_params()).lower(x)
    assert not {"hook_backward", "host_callback"} & set(op_names(plain))
    handles = [net.conv1.register_backward_hook(lambda c, gi, go: None),
               net.fc1.register_backward_pre_hook(lambda c, go: None)]
    hooked = ms.grad(net, None, net.trainable_params()).lower(x)
    names = op_names(hooked)
    assert names.count("hook_backward") >= 1 and names.count("host_callback") == 2
    for h in handles:
        h.remove()
    again = ms.grad(net, None, net.trainable_params()).lower(x)
    assert again.as_text() == plain.as_text()      # exactly as before: no trace of the hooks


def test_a_forward_call_of_a_cell_with_only_backward_hooks_compiles_plain(graph_mode):
    net = ReluNet()
    plain = net.compile(Tensor([1.0]), Tensor([1.0])).as_text(locs="none")
    net.register_backward_hook(lambda c, gi, go: None)   # on the called cell: no gradient here
    with warnings.catch_warnings():
        warnings.simplefilter("error")                    # and no warning any more
        assert net(Tensor([1.0]), Tensor([2.0])).asnumpy().tolist() == [3.0]
        assert net.compile(Tensor([1.0]), Tensor([1.0])).as_text(locs="none") == plain


# --- the compile cache -------------------------------------------------------------------------

def test_registering_and_removing_backward_hooks_recompiles(graph_mode):
    seen = []
    net = ReluNet()
    grad_fn = ms.grad(net, grad_position=(0, 1))
    x, y = Tensor([1.0]), Tensor([2.0])
    grad_fn(x, y)
    h = net.relu.register_backward_pre_hook(lambda c, go: seen.append("pre") or (go[0] * 5,))
    assert [g.asnumpy().tolist() for g in grad_fn(x, y)] == [[5.0], [5.0]]
    h2 = net.relu.register_backward_hook(lambda c, gi, go: seen.append("back"))
    grad_fn(x, y)
    h.remove()
    h2.remove()
    assert [g.asnumpy().tolist() for g in grad_fn(x, y)] == [[1.0], [1.0]]
    assert seen == ["pre", "pre", "back"]
    info = cache_info(net)      # the cell keeps its gradients' versions
    assert info.reasons == ["first call", "backward-pre hooks registered on ReLU",
                            "backward hooks registered on ReLU"]
    assert info.hits == 1       # the hookless version was kept and reused


def test_hook_backward_calls_the_hook_fn_it_has_when_the_gradient_runs(graph_mode):
    seen = []
    hook = ops.HookBackward(lambda g: seen.append("first"))

    def f(x):
        return hook(x * 2).sum()
    grad_f = ms.grad(f)
    grad_f(Tensor([1.0]))
    hook.hook_fn = lambda g: seen.append("second") or (g[0] * 10,)   # no recompile needed
    assert grad_f(Tensor([1.0])).asnumpy().tolist() == [20.0]
    assert seen == ["first", "second"]
    assert grad_f.cache_log.hits == 1 and "1 compile" in str(grad_f.cache_log)


# --- errors ------------------------------------------------------------------------------------

BAD_HOOKS = [
    ("backward", lambda c, gi, go: (gi[0], gi[0]), r"ReLU backward hook .* returned 2 gradient\(s\), expected 1"),
    ("backward", lambda c, gi, go: "x", r"ReLU backward hook .* must return None or a tuple of Tensors, got str"),
    ("backward_pre", lambda c, go: (go[0].reshape(1, 1),), r"ReLU backward-pre hook .* gradient 0 has shape \[1, 1\], expected \[1\]"),
    ("backward_pre", lambda c, go: (go[0].astype(ms.float64),), r"ReLU backward-pre hook .* gradient 0 has dtype Float64, expected Float32"),
]


@pytest.mark.parametrize("kind, fn, match", BAD_HOOKS)
def test_a_bad_hook_gives_the_pynative_error_in_graph_mode(kind, fn, match):
    errors = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = ReluNet()
            getattr(net.relu, f"register_{kind}_hook")(fn)
            with pytest.raises((TypeError, ValueError), match=match) as info:
                ms.grad(net, grad_position=(0, 1))(Tensor([1.0]), Tensor([1.0]))
            errors.append((type(info.value), str(info.value)))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    assert errors[0] == errors[1]


def test_a_failing_hook_in_a_train_step_leaves_the_parameters_and_cache_unchanged(graph_mode):
    calls = []

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
            self.act = nn.Tanh()

        def construct(self, x):
            return self.act(self.fc(x))
    net = Net()
    net.act.register_backward_pre_hook(lambda c, go: calls.append("pre"))
    bad = net.act.register_backward_hook(lambda c, gi, go: (gi[0], gi[0]))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    x = Tensor(np.ones((4, 3), np.float32))
    y = Tensor(np.zeros((4, 2), np.float32))
    before = [p.asnumpy().copy() for p in step.trainable_params()]
    with pytest.raises(ValueError, match=r"Tanh backward hook .* returned 2 gradient\(s\), expected 1"):
        step(x, y)
    assert calls == ["pre"]                                   # called once: no rerun
    for p, b in zip(step.trainable_params(), before):
        np.testing.assert_array_equal(p.asnumpy(), b)         # nothing written back
    assert cache_info(step).reasons == []                     # nothing cached
    bad.remove()
    step(x, y)
    assert calls == ["pre", "pre"] and cache_info(step).reasons == ["first call"]
    assert not np.array_equal(step.trainable_params()[0].asnumpy(), before[0])


def test_without_a_gradient_hook_backward_is_the_identity_and_calls_nothing(graph_mode):
    seen = []
    hook = ops.HookBackward(lambda g: seen.append(g))

    @ms.jit
    def f(x, y):
        return hook(x * y) * y

    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no "does not run in graph mode" warning any more
        assert f(Tensor(1.0, ms.float32), Tensor(2.0, ms.float32)).asnumpy() == 4.0
    names = op_names(f.lower(Tensor(1.0, ms.float32), Tensor(2.0, ms.float32)))
    assert "hook_backward" in names and "host_callback" not in names and seen == []

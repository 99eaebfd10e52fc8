"""``ms.grad``, ``ms.value_and_grad`` and ``ops.GradOperation`` in GRAPH_MODE and inside compiled
code: the same return structures as PyNative (DESIGN §10.6), one compile per differentiated thing,
whole training steps compiled as one function, the IR text, and errors at the user's line."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops, Tensor, context
from graphcell import dtype as mstype
from graphcell_ir.errors import GraphCompileError

from grad_differential import arrays


def rand(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(rand(3, seed=1), name="w")
        self.b = ms.Parameter(rand(3, seed=2), name="b")
        self.unused = ms.Parameter(rand(2, seed=3), name="unused")

    def construct(self, x, y):
        z = ops.tanh(x * self.w) * y + self.b
        return z.sum(), z * 2.0


def loss_only(net):
    return lambda x, y: net(x, y)[0]


def in_both_modes(make, *args):
    """``make()(*args)`` in PyNative mode, then in GRAPH_MODE (a fresh gradient function each)."""
    out = []
    for mode in (context.PYNATIVE_MODE, context.GRAPH_MODE):
        context.set_context(mode=mode)
        try:
            out.append(make()(*args))
        finally:
            context.set_context(mode=context.PYNATIVE_MODE)
    return out


def same(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            same(x, y)
    else:
        assert isinstance(b, Tensor) and a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-7)


NET = Net()
X, Y = rand(3, seed=4), rand(3, seed=5)
W = NET.trainable_params()


@pytest.mark.parametrize("make", [
    lambda: ms.grad(loss_only(NET)),
    lambda: ms.grad(loss_only(NET), grad_position=1),
    lambda: ms.grad(loss_only(NET), grad_position=(0, 1)),
    lambda: ms.grad(loss_only(NET), grad_position=(1,)),
    lambda: ms.grad(loss_only(NET), grad_position=None, weights=W),
    lambda: ms.grad(loss_only(NET), grad_position=None, weights=NET.w),
    lambda: ms.grad(loss_only(NET), grad_position=0, weights=W),
    lambda: ms.grad(NET, (0, 1), W, has_aux=True),
    lambda: ms.grad(NET, 0),                             # both outputs differentiated
    lambda: ms.value_and_grad(loss_only(NET)),
    lambda: ms.value_and_grad(NET, None, W),
    lambda: ms.value_and_grad(NET, 1, NET.b, has_aux=True),
    lambda: ops.GradOperation()(NET),
    lambda: ops.GradOperation(get_all=True)(NET),
    lambda: ops.GradOperation(get_by_list=True)(NET, W),
    lambda: ops.GradOperation(get_all=True, get_by_list=True)(NET, W),
])
def test_return_structures_and_values_match_pynative(make):
    same(*in_both_modes(make, X, Y))


@pytest.mark.parametrize("make", [
    lambda: ops.GradOperation(sens_param=True)(NET),
    lambda: ops.GradOperation(get_all=True, get_by_list=True, sens_param=True)(NET, W),
])
def test_sens_param(make):
    sens = (Tensor(np.float32(2.0)), rand(3, seed=6))
    same(*in_both_modes(make, X, Y, sens))


def test_the_seed_int32_gradients_in_graph_mode(capsys, graph_mode):
    def mul(x, y):
        return x * y

    def mainf(x, y):
        return ops.GradOperation(get_all=True)(mul)(x, y)
    print(mainf(Tensor(1, mstype.int32), Tensor(2, mstype.int32)))
    assert capsys.readouterr().out == ("(Tensor(shape=[], dtype=Int32, value= 2), "
                                       "Tensor(shape=[], dtype=Int32, value= 1))\n")


def test_a_weight_the_function_does_not_use_gets_zeros(graph_mode):
    _, (dw, db, du) = ms.grad(loss_only(NET), 0, NET.get_parameters())(X, Y)
    assert du.asnumpy().tolist() == [0.0, 0.0]


# --- compiling once, keyed by what is differentiated ---------------------------------------------

def test_a_gradient_compiles_once_per_differentiated_thing(graph_mode):
    net = nn.Dense(3, 2)
    x = rand(4, 3)
    for _ in range(3):
        ms.grad(net)(x)                         # a new grad object each time: one compile
    ms.grad(net, weights=net.trainable_params())(x)
    ms.value_and_grad(net)(x)
    info = ms.graph.cache_info(net)
    assert (info.misses, info.hits) == (3, 2)
    assert sorted(log.name for log in info.logs) == ["grad.Dense", "grad.Dense",
                                                     "value_and_grad.Dense"]


def test_pynative_mode_compiles_nothing():
    grad_fn = ms.grad(lambda v: (v * v).sum())
    assert grad_fn(X).asnumpy().tolist() == (2 * X.asnumpy()).tolist()
    assert grad_fn.cache_log.misses == 0 and grad_fn.__name__ == "grad_<lambda>"


# --- gradients inside compiled code: one training step, one function -----------------------------

def _train_step(net, optimizer):
    loss_fn = nn.WithLossCell(net, nn.MSELoss())
    weights = net.trainable_params()

    @ms.jit
    def train_step(x, y):
        loss, grads = ms.value_and_grad(loss_fn, None, weights)(x, y)
        optimizer(grads)
        return loss
    return train_step


def test_a_jit_training_step_is_one_function_that_writes_parameters_back():
    nets = [nn.Dense(3, 2), nn.Dense(3, 2)]
    for p, q in zip(nets[0].get_parameters(), nets[1].get_parameters()):
        q.set_data(Tensor(p.asnumpy()))
    x, y = rand(4, 3, seed=7), rand(4, 2, seed=8)
    # the same step in PyNative: value_and_grad and the optimizer, op by op
    opt_py = nn.Momentum(nets[0].trainable_params(), 0.1, 0.9)
    loss_py = nn.WithLossCell(nets[0], nn.MSELoss())
    losses_py = []
    for _ in range(3):
        loss, grads = ms.value_and_grad(loss_py, None, nets[0].trainable_params())(x, y)
        opt_py(grads)
        losses_py.append(float(loss.asnumpy()))
    step = _train_step(nets[1], nn.Momentum(nets[1].trainable_params(), 0.1, 0.9))
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    np.testing.assert_allclose(losses, losses_py, rtol=1e-6)
    for p, q in zip(nets[0].get_parameters(), nets[1].get_parameters()):
        np.testing.assert_allclose(q.asnumpy(), p.asnumpy(), rtol=1e-6)
    assert (step.cache_log.misses, step.cache_log.hits) == (1, 2)
    lowered = step.lower(x, y)
    assert set(lowered.mutated_names) >= {"weight", "bias", "moments.weight", "global_step"}
    assert "call(" not in lowered.as_text()              # everything inlined: one function
    assert len(lowered.module) == 1


def test_train_one_step_cell_in_graph_mode(graph_mode):
    net = nn.WithLossCell(nn.Dense(3, 1), nn.MSELoss())
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1), sens=2.0,
                               return_grad=True)
    x, y = rand(4, 3), rand(4, 1, seed=1)
    loss, grads = step(x, y)
    assert sorted(grads) == ["bias", "weight"]
    loss2, _ = step(x, y)
    assert float(loss2.asnumpy()) < float(loss.asnumpy())


# --- the IR text --------------------------------------------------------------------------------

def test_the_lowered_gradient_shows_the_backward_at_the_user_s_lines():
    def f(x):
        y = ops.tanh(x)
        return (y * x).sum()
    text = ms.grad(f).lower(X).as_text()
    assert "func @grad.f(%x: f32[3]) -> f32[3]" in text
    backward = [line for line in text.splitlines() if "[grad]" in line]
    assert backward and all("test_graph_grad_api.py" in line for line in backward)
    assert any("grad.f>f [grad]" in line for line in backward)


def test_a_cell_s_compiled_gradient_names_the_layers():
    class GradNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = nn.Dense(3, 2)

        def construct(self, x):
            return ops.GradOperation(get_by_list=True)(self.net, self.net.trainable_params())(x)
    text = GradNet().compile(rand(4, 3)).as_text()
    assert "GradNet>Dense [grad]" in text and "matmul" in text


# --- errors --------------------------------------------------------------------------------------

def test_errors_point_at_the_user_s_line_and_change_no_parameter(graph_mode):
    class Bad(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = nn.Dense(3, 2)
            self.opt = nn.SGD(self.net.trainable_params(), 0.1)

        def construct(self, x):
            grads = ms.grad(self.net, grad_position=3)(x)
            return self.opt(grads)
    bad = Bad()
    before = [p.asnumpy().copy() for p in bad.get_parameters()]
    with pytest.raises(GraphCompileError, match="grad_position 3 is out of range") as info:
        bad(rand(4, 3))
    assert "grads = ms.grad(self.net, grad_position=3)(x)" in str(info.value)
    for p, v in zip(bad.get_parameters(), before):
        assert (p.asnumpy() == v).all()


@pytest.mark.parametrize("call, words", [
    (lambda: ms.grad(lambda v: v.sum(), has_aux=True)(X), "must return a tuple"),
    (lambda: ops.GradOperation(sens_param=True)(lambda v: v * 2.0)(X, rand(2)),
     "sens must match the output"),
])
def test_bad_requests_are_clear_errors(graph_mode, call, words):
    with pytest.raises(GraphCompileError, match=words):
        call()


def test_a_wrong_bprop_in_graph_mode_names_the_cell(graph_mode):
    class BadShape(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (dout.sum(),)
    with pytest.raises(ValueError, match=r"BadShape\.bprop: gradient 0 has shape") \
            as info:
        ms.grad(BadShape())(X)
    assert "def bprop(self, x, out, dout)" in str(info.value)


def test_forward_hooks_run_in_a_compiled_gradient(graph_mode):
    relu = nn.ReLU()
    relu.register_forward_hook(lambda cell, inputs, out: out * 3.0)
    g = ms.grad(lambda v: relu(v).sum())(Tensor(np.array([1.0, -1.0], np.float32)))
    assert g.asnumpy().tolist() == [3.0, 0.0]


def test_arrays_helper_flattens():
    assert len(arrays((X, (Y, X)))) == 3

"""ops.WhileLoop, ops.ForiLoop, ops.Scan and the stacked scan of the recurrent layers, as users
call them: PyNative (Python loops) and graph mode (one IR ``while``) give the same outputs and
gradients, and the gradients agree with finite differences in both modes."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops
from graphcell.ops.function.control_func import scan
from graphcell.testing import check_grads


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=old)


class Elman(nn.Cell):
    """h_t = tanh(x_t + h_{t-1} w), every h_t stacked: a recurrence as the layers write it."""

    def __init__(self, reverse=False):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w = Parameter(Tensor(rng.uniform(-0.5, 0.5, (3, 3)), ms.float64), name="w")
        self.reverse = reverse

    def construct(self, xs, h):
        def step(h, x):
            h = ops.tanh(x + ops.matmul(h, self.w))
            return h, h
        h, ys = scan(step, h, xs, reverse=self.reverse)
        return ys, h


def _inputs(T=6):
    rng = np.random.default_rng(1)
    return Tensor(rng.standard_normal((T, 2, 3))), Tensor(rng.standard_normal((2, 3)))


def _run(net, *args):
    out = net(*args)
    grads = ms.grad(net, grad_position=(0, 1), weights=net.trainable_params())(*args)
    return [o.asnumpy() for o in out], [g.asnumpy() for g in grads[0] + grads[1]]


@pytest.mark.parametrize("reverse", [False, True])
def test_a_stacked_scan_gives_the_same_outputs_and_gradients_in_both_modes(reverse):
    net, args = Elman(reverse), _inputs()
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = _run(net, *args)
        ms.set_context(mode=ms.GRAPH_MODE)
        compiled = _run(net, *args)
    finally:
        ms.set_context(mode=old)
    for a, b in zip(eager[0] + eager[1], compiled[0] + compiled[1]):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_a_stacked_scan_is_one_loop_in_graph_mode():
    net = Elman()
    text = net.compile(*_inputs(50)).as_text(locs="none")
    assert text.count("= while(") == 1 and text.count("tanh(") == 1


@pytest.mark.parametrize("reverse", [False, True])
def test_stacked_scan_gradients_against_finite_differences(mode, reverse):
    net = Elman(reverse)
    report = check_grads(net, _inputs(4), weights=net.trainable_params())
    assert report.passed, str(report)


def _fori(x):
    return ops.ForiLoop()(0, 5, lambda i, v: ops.sin(v) * 1.5 + i, x, unroll=False)


def _while(x):
    return ops.WhileLoop()(lambda c: c[1] < 4, lambda c: (ops.cos(c[0]) + c[0], c[1] + 1),
                           (x, 0))[0]


def _scan(x):
    carry, ys = ops.Scan()(lambda c, e: (c * e + 1.0, c * 2.0), x[0], x, unroll=False)
    return carry, ops.stack(ys)


def _tuple(out):
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("fn", [_fori, _while, _scan])
def test_mindspores_loop_primitives_compiled_agree_with_pynative(fn):
    x = Tensor(np.random.default_rng(2).uniform(-1, 1, (3, 2)))
    want = _tuple(fn(x))
    for a, b in zip(_tuple(ms.jit(fn)(x)), want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-12)
    assert ms.jit(fn).lower(x).as_text().count("= while(") == 1


@pytest.mark.parametrize("fn", [_fori, _while, _scan])
def test_mindspores_loop_primitives_gradients_against_finite_differences(fn, mode):
    compiled = ms.jit(fn) if mode == "graph" else fn
    report = check_grads(compiled, (Tensor(np.random.default_rng(2).uniform(-1, 1, (3, 2))),))
    assert report.passed, str(report)


def test_the_pynative_loops_follow_mindspore():
    assert ops.ForiLoop()(0, 4, lambda i, v: v + i, 0) == 6                      # MindSpore: 6
    assert ops.WhileLoop()(lambda v: v < 100, lambda v: v + 1, 10) == 100       # MindSpore: 100
    assert ops.Scan()(lambda c, e: (c + e, c + e), 0, [1, 2, 3, 4]) == (10, [1, 3, 6, 10])


@pytest.mark.parametrize("call, error, message", [
    (lambda: ops.ForiLoop()(0, 3.0, lambda i, v: v, 0), TypeError, "'upper' must be an int"),
    (lambda: ops.Scan()(lambda c, e: (c, c), 0, None), TypeError, "'length' must be"),
    (lambda: ops.Scan()(lambda c, e: c, 0, [1, 2]), TypeError, "must return a pair"),
    (lambda: scan(lambda c, e: (c, c), Tensor(0.0), None, length=0), ValueError,
     "at least one step"),
    (lambda: scan(lambda c, e: (c, c), Tensor(0.0), [Tensor(1.0)], length=2), ValueError,
     "'length' is 2 but 'xs' has 1"),
])
def test_bad_calls_are_refused_with_a_reason(call, error, message):
    with pytest.raises(error, match=message):
        call()

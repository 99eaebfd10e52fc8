"""A graph-mode train step updates its Parameters in place (the native step writes each update
into the Parameter's own array, ``backend/step/donate.py``), as MindSpore 2.10 does: an array
kept from ``p.asnumpy()`` before a step holds the new value after it (checked with MindSpore 2.10
on CPU, GRAPH_MODE and PyNative: ``nn.TrainOneStepCell`` with ``nn.SGD``). The values are the
bits of the step writing fresh arrays (the native step off: the Python runner), and a call that
fails leaves every Parameter and optimizer state as it was."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from graphcell_ir.backend import codegen

pytestmark = pytest.mark.skipif(not codegen.available(),
                                reason="this llvmlite cannot run the code generator")

OPTIMIZERS = {
    "sgd": lambda ps: nn.SGD(ps, learning_rate=0.1),
    # SGD's update kernel has a copy of its loops per value of `momentum > 0` (lower._switch)
    "sgd_momentum": lambda ps: nn.SGD(ps, learning_rate=0.1, momentum=0.9),
    "momentum": lambda ps: nn.Momentum(ps, 0.05, 0.9),
    "adam": lambda ps: nn.Adam(ps, learning_rate=0.01),
}


def _step(opt: str):
    ms.set_seed(3)
    net = nn.SequentialCell([nn.Dense(12, 16), nn.ReLU(), nn.Dense(16, 5)])
    for p in net.trainable_params():
        rng = np.random.RandomState(len(p.name) + p.size)
        p.set_data(ms.Tensor(((rng.rand(*p.shape) - 0.5) * 0.4).astype(np.float32)))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), OPTIMIZERS[opt](net.trainable_params()))
    step.set_train()
    return step


def _data(bad_label: bool = False):
    rng = np.random.RandomState(0)
    y = (np.arange(8) % 5).astype(np.int32)
    if bad_label:
        y[2] = 5
    return ms.Tensor(rng.rand(8, 12).astype(np.float32)), ms.Tensor(y)


def _state(step) -> dict:
    return {p.name: p.asnumpy() for p in step.get_parameters()}


@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_a_kept_array_sees_the_update_with_the_fresh_arrays_bits(graph_mode, monkeypatch, opt):
    x, y = _data()
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    fresh = _step(opt)
    fresh_losses = [fresh(x, y).asnumpy() for _ in range(3)]
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    step = _step(opt)
    step(x, y)
    kept = _state(step)
    losses = [fresh_losses[0]] + [step(x, y).asnumpy() for _ in range(2)]
    now = _state(step)
    for a, b in zip(losses, fresh_losses):
        np.testing.assert_array_equal(a, b)
    # every array of more than one element (the weights, the optimizer's moments); Adam's
    # beta powers are one-element values fused into a weight's kernel, written at every
    # index: they get fresh arrays (donate.py)
    assert [name for name in now if now[name].size > 1 and now[name] is not kept[name]] == []
    for name, value in _state(fresh).items():
        np.testing.assert_array_equal(now[name], value, err_msg=name)
        if now[name] is kept[name]:
            np.testing.assert_array_equal(kept[name], value, err_msg=name)   # MindSpore's view


@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_a_failed_call_leaves_parameters_and_optimizer_state_as_they_were(graph_mode,
                                                                          monkeypatch, opt):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    step = _step(opt)
    x, y = _data()
    step(x, y)
    kept = _state(step)
    before = {name: a.copy() for name, a in kept.items()}
    with pytest.raises(Exception):
        step(*_data(bad_label=True))   # the step declines (a label check), the runner raises
    for name, value in _state(step).items():
        assert value is kept[name]
        np.testing.assert_array_equal(value, before[name], err_msg=name)
    step(x, y)   # and the next call updates them in place again
    assert all(a is kept[name] for name, a in _state(step).items() if a.size > 1)
    assert not np.array_equal(kept["0.weight"], before["0.weight"])


def test_a_parameter_array_passed_as_an_input_too_gets_a_fresh_update(graph_mode, monkeypatch):
    """The input shares the first weight's memory, and the second weight's update reads it
    after the first's: written in place, the first update would change what the second reads.
    The step declines the call, and the Python runner writes fresh arrays."""
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")

    class TwoScales(nn.Cell):
        def __init__(self):
            super().__init__()
            w = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
            self.w1 = ms.Parameter(ms.Tensor(w), name="w1")
            self.w2 = ms.Parameter(ms.Tensor(w[::-1].copy()), name="w2")

        def construct(self, x):
            return (x * self.w1).sum() + (x * self.w2).sum()

    net = TwoScales()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), learning_rate=0.5))
    step(ms.Tensor(np.ones((4, 4), np.float32)))
    w1, w2 = net.w1.asnumpy(), net.w2.asnumpy()
    expect = w1 - np.float32(0.5) * w1, w2 - np.float32(0.5) * w1   # both gradients are x
    step(ms.Tensor.from_numpy(w1))
    np.testing.assert_array_equal(net.w1.asnumpy(), expect[0])
    np.testing.assert_array_equal(net.w2.asnumpy(), expect[1])


def test_a_value_taken_before_a_step_is_a_snapshot(graph_mode, monkeypatch):
    """MindSpore 2.10: ``p.value()`` keeps the values it had, ``Tensor(p)`` and
    ``p.asnumpy()`` share the parameter's memory and see the step's update."""
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    step = _step("sgd")
    x, y = _data()
    step(x, y)
    w = next(p for p in step.get_parameters() if p.name == "0.weight")
    snapshot, shared, before = w.value(), ms.Tensor(w), w.asnumpy().copy()
    step(x, y)
    np.testing.assert_array_equal(snapshot.asnumpy(), before)
    np.testing.assert_array_equal(shared.asnumpy(), w.asnumpy())
    assert not np.array_equal(w.asnumpy(), before)

"""Loops and recursion MindSpore's graph mode runs (issue 19), in both modes: jumps under tensor
conditions in loops bounded by Python values, and the limits that stop a compile that would not
end (``max_call_depth``, graphcell's ``max_unroll``) with a located GraphLimitError."""
import numpy as np
import pytest
from timeouts import within

import graphcell as ms
from graphcell import Tensor, nn
from graphcell_ir.errors import GraphLimitError, GraphSyntaxError

from programs import same_in_both_modes


def x2():
    return Tensor(np.array([1.0, 2.0], np.float32))


def break_in_bounded_while(x):
    i = 0
    while i < 10:
        x = x * 2
        if x.max() > 50:
            break
        i += 1
    return x, i


def return_in_bounded_while(x):
    i = 0
    while i < 10:
        x = x * 2
        if x.max() > 50:
            return x
        i += 1
    return x - 1


def breaks_only_in_elif_and_else(x):
    while True:
        x = x * 2
        if x.sum() > 100:
            x = x + 1
        elif x.sum() > 50:
            break
        else:
            break
    return x


@pytest.mark.parametrize("fn", [break_in_bounded_while, return_in_bounded_while,
                                breaks_only_in_elif_and_else], ids=lambda f: f.__name__)
def test_jumps_under_tensor_conditions_in_python_bounded_loops(fn):
    # MindSpore 2.10: ([32, 64], 4) and [32, 64] for the first two
    with within(seconds=120):
        out = same_in_both_modes(ms.jit(fn), x2())
        same_in_both_modes(ms.jit(fn), Tensor(np.array([30.0, 1.0], np.float32)))
    if fn is break_in_bounded_while:
        assert out[0].asnumpy().tolist() == [32.0, 64.0] and out[1] == 4
    if fn is return_in_bounded_while:
        assert out.asnumpy().tolist() == [32.0, 64.0]


class Recursive(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            y = self(x - 1)
            return y + 1
        return x


class Counted(nn.Cell):
    def construct(self, x, n):
        if n > 0:
            return self.construct(x, n - 1) + 1
        return x


def test_unbounded_recursion_stops_at_max_call_depth(graph_mode):
    with within(seconds=120), pytest.raises(GraphLimitError) as e:
        Recursive()(Tensor(np.array([3.0], np.float32)))
    msg = str(e.value)
    assert isinstance(e.value, GraphSyntaxError)
    assert "test_graph_limits_and_loops.py" in msg and "y = self(x - 1)" in msg
    assert "max_call_depth=1000; raise the limit with set_context(max_call_depth=...)" in msg


def test_max_call_depth_sets_the_limit(graph_mode):
    x = Tensor(np.array([3.0], np.float32))
    assert Counted()(x, 10).asnumpy().tolist() == [13.0]   # bounded: unrolled (as MindSpore)
    ms.set_context(max_call_depth=5)
    with pytest.raises(GraphLimitError, match="max_call_depth=5"):
        Counted()(x, 10)
    ms.set_context(max_call_depth=1000)
    assert Counted()(x, 300).asnumpy().tolist() == [303.0]


def test_max_unroll_sets_the_unroll_limit(graph_mode):
    @ms.jit
    def f(x):
        for _ in range(50):
            x = x + 1
        return x
    ms.set_context(max_unroll=20)
    with pytest.raises(GraphLimitError, match="would unroll 50 iterations.*max_unroll=20"):
        f(x2())
    ms.set_context(max_unroll=100)
    assert f(x2()).asnumpy().tolist() == [51.0, 52.0]

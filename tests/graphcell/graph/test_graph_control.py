"""Networks with data-dependent control flow: PyNative and GRAPH_MODE agree (hypothesis)."""
import numpy as np
from hypothesis import given, settings, strategies as st

import graphcell as ms
from graphcell import nn, ops, Tensor
from graphcell.testing import strategies as gst

from differential import assert_same_in_both_modes

CONTROL = settings(deadline=None)   # max_examples from the profile (ci: 50)


class SignSwitch(nn.Cell):
    """``if`` on a tensor: both branches compiled, the sum picks one."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)

    def construct(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            out = ops.relu(y) * 2.0
        elif y.mean() < -1.0:
            out = -y
        else:
            out = y - 1.0
        return out


class EarlyReturn(nn.Cell):
    def construct(self, x):
        if x.max() > 1.0:
            return x / x.max()
        x = x * 3.0
        return x + 1.0


class HalveWhileLarge(nn.Cell):
    """``while`` on a tensor: halve until the norm is small, counting the steps."""

    def __init__(self, limit):
        super().__init__()
        self.limit = limit

    def construct(self, x):
        steps = ops.zeros((), ms.int32)
        while (x * x).sum() > self.limit:
            x = x * 0.5
            steps = steps + 1
        return x, steps


class StaticLoops(nn.Cell):
    """Python loops the frontend unrolls: range, a tuple, a CellList, and a static if."""

    def __init__(self, n):
        super().__init__()
        self.n = n
        self.layers = nn.CellList([nn.Dense(3, 3), nn.Tanh()])
        self.scales = (0.5, 2.0)

    def construct(self, x):
        for _ in range(self.n):
            x = x + 1.0
        for s in self.scales:
            x = x * s
        for layer in self.layers:
            x = layer(x)
        if self.training:
            x = x * 10.0
        return x


class ParamInBranch(nn.Cell):
    """A Parameter written in one branch of a tensor ``if`` (written back after the call)."""

    def __init__(self):
        super().__init__()
        self.count = ms.Parameter(Tensor(np.zeros(3, np.float32)), name="count",
                                  requires_grad=False)

    def construct(self, x):
        if x.sum() > 0:
            ops.assign(self.count, self.count + x)
        return self.count * 1.0


def vectors(shape=(2, 3)):
    return gst.tensors(shape=shape, elements=(-4, 4))


@CONTROL
@given(vectors())
def test_if_elif_else(x):
    assert_same_in_both_modes(SignSwitch(), x)


@CONTROL
@given(vectors((4,)))
def test_early_return_under_a_tensor_condition(x):
    assert_same_in_both_modes(EarlyReturn(), x)


@CONTROL
@given(vectors((3,)), st.sampled_from([0.5, 1.0, 4.0]))
def test_while_on_a_tensor_condition(x, limit):
    out, steps = assert_same_in_both_modes(HalveWhileLarge(limit), x)
    assert steps.dtype == ms.int32


@CONTROL
@given(vectors(), st.integers(0, 3), st.booleans())
def test_unrolled_loops_and_static_if(x, n, training):
    assert_same_in_both_modes(StaticLoops(n).set_train(training), x)


@CONTROL
@given(vectors((3,)))
def test_parameter_written_under_a_tensor_if(x):
    assert_same_in_both_modes(ParamInBranch(), x, calls=3)


class BreakAndContinue(nn.Cell):
    """``break``, ``continue`` and an early ``return`` under tensor conditions in unrolled loops."""

    def construct(self, x):
        s = x * 0
        for i in range(3):
            for j in range(2):
                if x[j] > 1.5:
                    continue
                s = s + x * j
            if s.sum() > 8:
                break
            if s.min() < -6:
                return s * 10, i
            x = x + 0.5
        else:
            s = s + 100
        return s, 0


@CONTROL
@given(vectors((3,)))
def test_break_continue_and_return_under_tensor_conditions_in_for_loops(x):
    assert_same_in_both_modes(BreakAndContinue(), x)


class WhileWithJumps(nn.Cell):
    """``break``/``continue`` under tensor conditions in a while loop whose condition is a tensor,
    with a counter and an ``else``."""

    def construct(self, x):
        n = 0
        while x.sum() < 40:
            x = ops.abs(x) * 2 + 0.25   # grows: the loop ends
            n = n + 1
            if x.max() > 9:
                break
            if x.min() < 0.5:
                continue
            x = x - 0.1
        else:
            x = x - 100
        return x, n


@CONTROL
@given(vectors((3,)))
def test_break_and_continue_in_a_tensor_while(x):
    assert_same_in_both_modes(WhileWithJumps(), x)


class Methods(nn.Cell):
    """Tensor methods, properties, Primitives (variadic ones too), adapters and constants."""

    def __init__(self):
        super().__init__()
        self.concat = ops.Concat(axis=0)
        self.reduce = ops.ReduceSum(keep_dims=True)
        self.offset = Tensor(np.arange(3, dtype=np.float32))

    def construct(self, x):
        y = x.T.reshape(3, -1).astype(ms.float64).astype(ms.float32)
        z = self.concat((y, y * 2.0))
        s = self.reduce(z, 1) + x.sum() + x.mean(axis=0).max()
        w = ops.concat((x[0], x[-1, :]), 0) + self.offset.sum()
        n = x.size + len(x) + x.ndim
        return s * n, w * 2.0, ops.ones_like(x), (x.shape, x.dtype)


@CONTROL
@given(vectors())
def test_tensor_methods_and_primitives_in_construct(x):
    assert_same_in_both_modes(Methods(), x)

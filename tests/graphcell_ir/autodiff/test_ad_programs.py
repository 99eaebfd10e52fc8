"""Hypothesis builds random programs — elementwise DAGs with fan-out and broadcasting, ``if`` on
data and counted ``while`` loops, nested, capturing outer values — and their gradients must match
finite differences, for small and large loop capacities."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcell_ir.ir import Builder, Function, Module, TensorType, float64
from graphcell_ir.ops import functional as F

from ad_check import check_grad_function

SHAPES = [(2, 3), (3,), ()]
UNARY = ["sin", "tanh", "sigmoid", "neg", "square"]
BINARY = ["add", "sub", "mul", "maximum"]


class _Program:
    """Draws ops into the builder's current block; every region yields an f64[2,3]."""

    def __init__(self, data, b: Builder, depth: int):
        self.data, self.b, self.depth = data, b, depth

    def draw(self, strategy):
        return self.data.draw(strategy)

    def dag(self, pool: list, n_max: int = 4):
        pool = list(pool)
        for _ in range(self.draw(st.integers(1, n_max))):
            kind = self.draw(st.sampled_from(["unary", "binary", "binary", "if", "while"]))
            if kind in ("if", "while") and self.depth > 0:
                pool.append((self.if_ if kind == "if" else self.while_)(pool))
            elif kind == "unary":
                pool.append(self.b.op(self.draw(st.sampled_from(UNARY)), self.pick(pool)))
            else:
                pool.append(self.b.op(self.draw(st.sampled_from(BINARY)), self.pick(pool), self.pick(pool)))
        return F.tanh(F.add(pool[-1], pool[0]))  # f64[2,3], bounded for loops

    def pick(self, pool):
        return self.draw(st.sampled_from(pool))

    def nested(self):
        return _Program(self.data, self.b, self.depth - 1)

    def if_(self, pool):
        s = self.b.op("reduce_sum", self.pick(pool))
        pred = self.b.op("greater", s, self.draw(st.sampled_from([-0.5, 0.0, 0.5])))
        inner = self.nested()
        (out,) = self.b.if_(pred, lambda: inner.dag(pool, 3), lambda: inner.dag(pool, 3))
        return out

    def while_(self, pool):
        n = self.draw(st.integers(0, 3))
        inner = self.nested()
        init = F.add(self.pick(pool), pool[0])
        zero = self.b.const(np.array(0, np.int64))

        def cond(i, v):
            return self.b.op("less", i, n)

        def body(i, v):
            return F.add(i, 1), F.mul(inner.dag(pool + [v], 3), 0.9)
        return self.b.while_([zero, init], cond, body)[1]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(data=st.data(), capacity=st.sampled_from([1, 2, 64]))
def test_random_programs_with_control_flow(data, capacity):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    m = Module()
    fn = m.add(Function("f"))
    args = [fn.add_arg(TensorType(float64, s), f"a{i}") for i, s in enumerate(SHAPES)]
    b = Builder.at_end(fn.body)
    with F.using_emitter(b):
        out = _Program(data, b, depth=2).dag(args, 5)
        b.return_(out)
    inputs = [rng.uniform(0.2, 1.0, s) * rng.choice([-1, 1], s) for s in SHAPES]
    check_grad_function(m, "f", inputs, [0, 1, 2], rng=rng, loop_capacity=capacity)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=st.data(), capacity=st.sampled_from([1, 3]))
def test_random_programs_twice(data, capacity):
    """The gradient Function (loop stacks, recomputation, backward ifs) differentiates again."""
    from graphcell_ir.autodiff import grad_function
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    m = Module()
    fn = m.add(Function("f"))
    args = [fn.add_arg(TensorType(float64, s), f"a{i}") for i, s in enumerate(SHAPES)]
    b = Builder.at_end(fn.body)
    with F.using_emitter(b):
        b.return_(b.op("reduce_sum", _Program(data, b, depth=1).dag(args, 4)))
    g1 = grad_function(m, "f", [0, 1, 2], loop_capacity=capacity)
    inputs = [rng.uniform(0.2, 1.0, s) * rng.choice([-1, 1], s) for s in SHAPES]
    check_grad_function(m, g1.name, inputs, [0, 1, 2], rng=rng, outputs=[1, 2, 3],
                        loop_capacity=capacity, rtol=1e-4, atol=1e-6)

"""Differential tests: programs whose control flow depends on tensor values are compiled once and
run by the reference interpreter on hypothesis-drawn inputs; plain Python runs the same code
eagerly on numpy (functional ops by their references). Both must agree, Parameters included."""
from __future__ import annotations

import functools

import numpy as np
import pytest
from frontend_fakes import Cell, FakeResolver, Parameter, ops, run_eager
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from graphcell_ir.backend.interp import Interpreter
from graphcell_ir.frontend import compile_function
from graphcell_ir.ir import TensorType, float32

SHAPE = (4,)
values = arrays(np.float32, SHAPE, elements=st.floats(-8, 8, width=32))


def prog_if_elif(x):
    s = x.sum()
    if s > 4.0:
        y = x * 2.0
    elif s < -4.0:
        if x.max() > 0.0:
            y = x - x.max()
        else:
            y = -x
    else:
        y = x + 1.0
    return y, s


def prog_while(x):
    i = 0
    s = abs(x).sum()
    while s < 50.0 and i < 20:
        x = x * 1.5 + 1.0
        s = s * 1.5 + 1.0
        i = i + 1
    return x, s, i


def prog_while_if(x):
    acc = x * 0.0
    k = 0
    while acc.sum() < 10.0 and k < 8:
        if x.sum() > 0:
            acc = acc + abs(x) + 0.5
        else:
            acc = acc + 1.0
        k += 1
    return acc, k


def prog_nested_loops(x):
    for n in range(3):
        k = x.max()
        while k < 5.0:
            k = k + 1.0
            x = x + 0.5 * n
    return x


def prog_early_returns(x):
    s = x.sum()
    if s > 5.0:
        return x * 2.0
    elif s < -5.0:
        if x.max() > 0:
            return x - x.max()
        return -x
    y = x + 1.0
    return y if y.min() > 0 else y * y


def prog_bool_ops(x):
    a = x.sum() > 0
    b = x.max() < 4.0
    if (a and b) or not (x.min() > -4.0):
        return x + 1.0
    return x - 1.0


class Counter(Cell):
    def __init__(self):
        super().__init__()
        self.hits = Parameter(np.zeros((), np.float32), "hits")
        self.total = Parameter(np.zeros(SHAPE, np.float32), "total")

    def construct(self, x):
        if x.mean() > 0:
            ops.assign(self.hits, self.hits + 1.0)
        while self.total.sum() < 20.0:
            ops.assign(self.total, self.total + abs(x) + 1.0)
        return x * self.hits


PROGRAMS = [prog_if_elif, prog_while, prog_while_if, prog_nested_loops, prog_early_returns,
            prog_bool_ops]


@functools.lru_cache(maxsize=None)
def compiled(fn):
    out = compile_function(fn, None, [TensorType(float32, SHAPE)], FakeResolver())
    return out, Interpreter(out.module, check_types=True)


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [x for e in v for x in _flat(e)]
    return [v]


def assert_same(got, want):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                   rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
@given(x=values)
def test_interpreter_agrees_with_python(fn, x):
    out, interp = compiled(fn)
    results = interp.run(out.function, x)
    value, _ = out.split_results(results if isinstance(results, tuple) else (results,))
    assert_same(value, run_eager(fn, x.copy()))


@given(xs=st.lists(values, min_size=1, max_size=3))
def test_parameters_written_under_tensor_control_flow_agree(xs):
    eager_cell, graph_cell = Counter(), Counter()
    out = compile_function(Counter.construct, graph_cell, [TensorType(float32, SHAPE)],
                           FakeResolver(graph_cell))
    assert out.mutated_keys == (graph_cell.hits, graph_cell.total)
    interp = Interpreter(out.module, check_types=True)
    for x in xs:
        results = interp.run(out.function, x, *out.param_keys)
        value, new = out.split_results(results)
        for p, v in zip(out.mutated_keys, new):
            np.copyto(p, v)
        assert_same(value, run_eager(eager_cell, x))
        assert_same((graph_cell.hits, graph_cell.total), (eager_cell.hits, eager_cell.total))

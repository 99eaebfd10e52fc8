"""The frontend's issue-19 constructs as golden IR: hooks whose bodies run as Python (``py_call``)
next to hooks that are compiled in, JIT Fallback on run-time values (``obj`` values), attribute
writes (extra results, set after the run), several index tensors in one subscript (``gather_nd``).
Plus the interpreter running what the goldens show, against plain Python."""
from __future__ import annotations

import numpy as np
import pytest
from expect_ir import check
from frontend_fakes import Cell, FakeResolver, run_eager

from graphcell_ir.backend.interp import interpret
from graphcell_ir.errors import GraphSyntaxError
from graphcell_ir.frontend import compile_function
from graphcell_ir.frontend.host import Slot, fill_slots
from graphcell_ir.ir import TensorType, float32, int64

F32_3 = TensorType(float32, (3,))
SEEN: list = []


def _slots(template, value, out: list) -> None:
    """The values at the Slots of ``template`` in ``value``, by slot index."""
    if isinstance(template, Slot):
        out.append((template.index, value))
    elif type(template) in (tuple, list):
        for t, v in zip(template, value):
            _slots(t, v, out)


class HostResolver(FakeResolver):
    """A FakeResolver that runs host calls on numpy values (graphcell wraps them as Tensors)."""

    def host_function(self, call):
        def run(*values):
            out = call.function(*fill_slots(call.args, values), **fill_slots(call.kwargs, values))
            found: list = []
            _slots(call.result, out, found)
            return tuple(v for _, v in sorted(found, key=lambda p: p[0]))
        run.__name__ = call.name
        return run


def record_hook(cell, inputs, out):
    SEEN.append(out.copy())          # changes a list of the program: runs as Python


def double_hook(cell, inputs, out):
    return out * 2.0                 # compiles as it is


class Act(Cell):
    def construct(self, x):
        return x * 3.0


class Net(Cell):
    def __init__(self, *hooks):
        super().__init__()
        self.act = Act()
        for h in hooks:
            self.act.register_forward_hook(h)

    def construct(self, x):
        return self.act(x) + 1.0


def test_a_hook_that_changes_python_state_runs_as_python_a_pure_one_is_compiled():
    net = Net(record_hook, double_hook)
    out = check(Net.construct, [F32_3], """
func @Net.construct(%x: f32[3]) -> f32[3] {
  %0 = mul(%x, 3.0:f32) : f32[3]
  %1 = py_call(%x, %0) {fn=@record_hook, name="record_hook", types=[f32[3]]} : f32[3]
  %2 = mul(%1, 2.0:f32) : f32[3]
  %3 = add(%2, 1.0:f32) : f32[3]
  return %3
}
""", resolver=HostResolver(net), self_obj=net)
    SEEN.clear()
    x = np.array([1.0, -2.0, 0.5], np.float32)
    assert interpret(out.module, x).tolist() == (x * 6 + 1).tolist()
    assert [s.tolist() for s in SEEN] == [(x * 3).tolist()]


def test_a_hook_runs_as_python_only_where_a_resolver_can_run_it():
    net = Net(record_hook)
    with pytest.raises(GraphSyntaxError, match="record_hook would have to run as Python"):
        compile_function(Net.construct, net, [F32_3], FakeResolver(net))


def test_jit_fallback_values_are_obj():
    def f(x):
        y = np.exp(x)                # numpy on a run-time value: Python, when the graph runs
        return y * 2, x + 1.0
    with pytest.warns(UserWarning, match="exp.. runs as Python when the graph runs"):
        out = check(f, [F32_3], """
func @f(%x: f32[3]) -> obj, f32[3] {
  %y = py_call(%x) {fn=@exp, name="exp", types=[obj]} : obj
  %0 = py_call(%y) {fn=@mul, name="mul", types=[obj]} : obj
  %1 = add(%x, 1.0:f32) : f32[3]
  return %0, %1
}
""", resolver=HostResolver())
    x = np.array([0.0, 1.0, 2.0], np.float32)
    got, plus = interpret(out.module, x)
    np.testing.assert_allclose(got, np.exp(x) * 2, rtol=1e-6)


def test_a_condition_on_an_obj_is_a_bool_from_python():
    def f(x):
        if np.sum(x) > 1:
            return x * 2.0
        return x

    with pytest.warns(UserWarning):
        out = compile_function(f, None, [F32_3], HostResolver())
    for x in (np.ones(3, np.float32), np.zeros(3, np.float32)):
        assert interpret(out.module, x).tolist() == run_eager(f, x).tolist()


class Counter(Cell):
    def __init__(self):
        super().__init__()
        self.count = 0
        self.last = None

    def construct(self, x):
        self.count += 1
        self.last = x * 2.0
        if x.sum() > 0:
            self.count = 10
        return x + self.count


def test_attribute_writes_are_extra_results_set_after_the_run():
    c = Counter()
    out = check(Counter.construct, [F32_3], """
func @Counter.construct(%x: f32[3]) -> f32[3], i64, f32[3] {
  %0 = mul(%x, 2.0:f32) : f32[3]
  %1 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  %2 = greater(%1, 0:i64) : bool[]
  %Counter.count = if(%2) : i64 {
    yield 10:i64
  } else {
    yield 1:i64
  }
  %3 = add(%x, %Counter.count) : f32[3]
  return %3, %Counter.count, %0
}
""", resolver=HostResolver(c), self_obj=c)
    assert [(type(o).__name__, name) for o, name, _ in out.attr_writes] == \
        [("Counter", "count"), ("Counter", "last")]
    assert c.count == 0 and c.last is None    # compiling sets nothing


def test_several_index_tensors_are_one_gather_nd():
    def f(x, i, j):
        return x[i, j]
    m = TensorType(float32, (3, 4))
    idx = TensorType(int64, (2,))
    out = check(f, [m, idx, idx], """
func @f(%x: f32[3,4], %i: i64[2], %j: i64[2]) -> f32[2] {
  %0 = less(%i, 0:i64) : bool[2]
  %1 = add(%i, 3:i64) : i64[2]
  %2 = select(%0, %1, %i) : i64[2]
  %3 = expand_dims(%2) {axis=-1} : i64[2,1]
  %4 = less(%j, 0:i64) : bool[2]
  %5 = add(%j, 4:i64) : i64[2]
  %6 = select(%4, %5, %j) : i64[2]
  %7 = expand_dims(%6) {axis=-1} : i64[2,1]
  %8 = concat(%3, %7) {axis=-1} : i64[2,2]
  %9 = gather_nd(%x, %8) : f32[2]
  return %9
}
""")
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    i, j = np.array([0, -1]), np.array([1, 3])
    assert interpret(out.module, x, i, j).tolist() == x[i, j].tolist()


def test_a_break_under_a_tensor_condition_in_a_bounded_while_golden():
    """Unrolled while the break flag is static; the first break under a tensor condition makes
    the flags bool values and the rest of the loop an IR while carrying ``i`` as a scalar."""
    def f(x):
        i = 0
        while i < 3:
            x = x * 2.0
            if x.max() > 5.0:
                break
            i += 1
        return x, i

    check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3], i64 {
  %x_1 = mul(%x, 2.0:f32) : f32[3]
  %0 = reduce_max(%x_1) {axis=none, keep_dims=false} : f32[]
  %1 = greater(%0, 5.0:f32) : bool[]
  %jump.break.3.4, %jump.skip.3.4 = if(%1) : (bool, bool) {
    yield true:bool, true:bool
  } else {
    yield false:bool, false:bool
  }
  %2 = logical_not(%jump.skip.3.4) : bool
  %i = if(%2) : i64 {
    yield 1:i64
  } else {
    yield 0:i64
  }
  %jump.skip.3.4_1, %x_2, %jump.break.3.4_1, %i_1 = while(%jump.skip.3.4, %x_1, %jump.break.3.4,
      %i) : (bool, f32[3], bool, i64) cond(%jump.skip.3.4_2: bool, %x_3: f32[3],
      %jump.break.3.4_2: bool, %i_2: i64) {
    %3 = logical_not(%jump.break.3.4_2) : bool
    %4 = less(%i_2, 3:i64) : bool
    %5 = logical_and(%3, %4) : bool
    yield %5
  } do(%jump.skip.3.4_3: bool, %x_4: f32[3], %jump.break.3.4_3: bool, %i_3: i64) {
    %x_5 = mul(%x_4, 2.0:f32) : f32[3]
    %6 = reduce_max(%x_5) {axis=none, keep_dims=false} : f32[]
    %7 = greater(%6, 5.0:f32) : bool[]
    %jump.break.3.4_4, %jump.skip.3.4_4 = if(%7) : (bool, bool) {
      yield true:bool, true:bool
    } else {
      yield %jump.break.3.4_3, false:bool
    }
    %8 = logical_not(%jump.skip.3.4_4) : bool
    %i_4 = if(%8) : i64 {
      %i_5 = add(%i_3, 1:i64) : i64
      yield %i_5
    } else {
      yield %i_3
    }
    yield %jump.skip.3.4_4, %x_5, %jump.break.3.4_4, %i_4
  }
  return %x_2, %i_1
}
""")

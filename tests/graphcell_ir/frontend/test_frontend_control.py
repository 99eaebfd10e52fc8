"""Control flow: static conditions decided while compiling, IR ``if``/``while`` for tensor
conditions, unrolled ``for``, early ``return``. Golden IR plus interpreter-vs-eager checks."""
from __future__ import annotations

import numpy as np
from expect_ir import check
from frontend_fakes import Cell, CellList, FakeResolver, Parameter, SequentialCell, ops, run_eager
from timeouts import within

from graphcell_ir.backend.interp import interpret
from graphcell_ir.frontend import compile_function
from graphcell_ir.ir import TensorType, float32, walk

F32_3 = TensorType(float32, (3,))
INPUTS = [np.array(v, np.float32) for v in ([1, 2, 3], [-1, -2, -3], [0.5, -4, 1], [30, 1, 2])]


def agrees(out, fn, *args):
    got = interpret(out.module, *out.flatten_args(args), *out.param_keys)
    got = got if isinstance(got, tuple) else (got,)
    value, _ = out.split_results(got)
    want = run_eager(fn, *args)
    flat_got, flat_want = _flat(value), _flat(want)
    assert len(flat_got) == len(flat_want)
    for g, w in zip(flat_got, flat_want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5)


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [x for e in v for x in _flat(e)]
    return [v]


def test_static_conditions_pick_a_branch_while_compiling():
    class Net(Cell):
        def __init__(self):
            super().__init__()
            self.mode = "double"

        def construct(self, x, k):
            if self.training:
                x = x + 100.0
            elif self.mode == "double" and x.shape[0] == 3:
                x = x * 2.0
            else:
                x = x - 1.0
            if k is None or k > 2:
                x = -x
            return x if x.ndim == 1 else x.sum()

    net = Net()
    check(Net.construct, [F32_3, 5], """
func @Net.construct(%x: f32[3]) -> f32[3] {
  %x_1 = mul(%x, 2.0:f32) : f32[3]
  %x_2 = neg(%x_1) : f32[3]
  return %x_2
}
""", self_obj=net)
    net.training = True
    check(Net.construct, [F32_3, None], """
func @Net.construct(%x: f32[3]) -> f32[3] {
  %x_1 = add(%x, 100.0:f32) : f32[3]
  %x_2 = neg(%x_1) : f32[3]
  return %x_2
}
""", self_obj=net)


def test_tensor_if_elif_else_joins_the_assigned_variables():
    def f(x):
        s = x.sum()
        y = x
        if s > 3.0:
            y = x * 2.0
            z = 1.0
        elif s < -3.0:
            y = -x
            z = 2.0
        else:
            z = 3.0
        return y + z

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3] {
  %s = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  %0 = greater(%s, 3.0:f32) : bool[]
  %y, %z = if(%0) : (f32[3], f32) {
    %y_1 = mul(%x, 2.0:f32) : f32[3]
    yield %y_1, 1.0:f32
  } else {
    %1 = less(%s, -3.0:f32) : bool[]
    %y_2, %z_1 = if(%1) : (f32[3], f32) {
      %y_3 = neg(%x) : f32[3]
      yield %y_3, 2.0:f32
    } else {
      yield %x, 3.0:f32
    }
    yield %y_2, %z_1
  }
  %2 = add(%y, %z) : f32[3]
  return %2
}
""")
    for x in INPUTS:
        agrees(out, f, x)


def test_tensor_if_converts_a_number_to_the_other_branchs_scalar_tensor():
    def f(x):
        total = 0
        if x.max() > 1.0:
            total = x.sum()
        return total * 2.0

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[] {
  %0 = reduce_max(%x) {axis=none, keep_dims=false} : f32[]
  %1 = greater(%0, 1.0:f32) : bool[]
  %total = if(%1) : f32[] {
    %total_1 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
    yield %total_1
  } else {
    %2 = fill() {dtype=f32, shape=[], value=0} : f32[]
    yield %2
  }
  %3 = mul(%total, 2.0:f32) : f32[]
  return %3
}
""")
    for x in INPUTS:
        agrees(out, f, x)


def test_a_variable_bound_in_one_branch_only_is_fine_when_not_read():
    def f(x):
        if x.sum() > 0:
            tmp = x * 3.0
            x = tmp + 1.0
        else:
            other = x[0]  # noqa: F841 - a different type, never read again
        return x

    out = compile_function(f, None, [F32_3], FakeResolver())
    for x in INPUTS:
        agrees(out, f, x)


def test_conditional_expression():
    def f(x, flag):
        a = x * 2.0 if flag else x
        return a if a.sum() > 0 else -a

    out = check(f, [F32_3, True], """
func @f(%x: f32[3]) -> f32[3] {
  %a = mul(%x, 2.0:f32) : f32[3]
  %0 = reduce_sum(%a) {axis=none, keep_dims=false} : f32[]
  %1 = greater(%0, 0:i64) : bool[]
  %2 = if(%1) : f32[3] {
    yield %a
  } else {
    %3 = neg(%a) : f32[3]
    yield %3
  }
  return %2
}
""")
    for x in INPUTS:
        agrees(out, f, x, True)


class _Scale(Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


def test_for_loops_unroll_over_range_tuples_celllists_and_tensor_rows():
    layers = CellList([_Scale(2.0), _Scale(3.0)])
    seq = SequentialCell([_Scale(0.5), _Scale(4.0)])

    def f(x, m):
        for i in range(1, 3):
            x = x + i
        for layer in layers:
            x = layer(x)
        for i, (layer, w) in enumerate(zip(layers, (1.0, 2.0))):
            x = layer(x) * w + i
        for row in m:
            x = x + row
        return seq(x)

    out = check(f, [F32_3, TensorType(float32, (2, 3))], """
func @f(%x: f32[3], %m: f32[2,3]) -> f32[3] {
  %x_1 = add(%x, 1:i64) : f32[3]
  %x_2 = add(%x_1, 2:i64) : f32[3]
  %x_3 = mul(%x_2, 2.0:f32) : f32[3]
  %x_4 = mul(%x_3, 3.0:f32) : f32[3]
  %0 = mul(%x_4, 2.0:f32) : f32[3]
  %1 = mul(%0, 1.0:f32) : f32[3]
  %x_5 = add(%1, 0:i64) : f32[3]
  %2 = mul(%x_5, 3.0:f32) : f32[3]
  %3 = mul(%2, 2.0:f32) : f32[3]
  %x_6 = add(%3, 1:i64) : f32[3]
  %row = getitem(%m) {key=[0]} : f32[3]
  %row_1 = getitem(%m) {key=[1]} : f32[3]
  %x_7 = add(%x_6, %row) : f32[3]
  %x_8 = add(%x_7, %row_1) : f32[3]
  %x_9 = mul(%x_8, 0.5:f32) : f32[3]
  %x_10 = mul(%x_9, 4.0:f32) : f32[3]
  return %x_10
}
""")
    agrees(out, f, INPUTS[0], np.ones((2, 3), np.float32))


def test_break_continue_and_else_with_static_conditions():
    def f(x):
        for i in range(10):
            if i == 1:
                continue
            if i >= 3:
                break
            x = x * (i + 2)
        else:
            x = x - 1000.0
        n = 0
        while n < 5:
            n += 1
            if n == 2:
                break
        else:
            x = x - 1000.0
        return x + n

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3] {
  %x_1 = mul(%x, 2:i64) : f32[3]
  %x_2 = mul(%x_1, 4:i64) : f32[3]
  %0 = add(%x_2, 2:i64) : f32[3]
  return %0
}
""")
    agrees(out, f, INPUTS[0])


def test_while_with_a_tensor_condition_carries_what_the_body_rebinds():
    def f(x, limit):
        i = 0
        steps = ()
        while x.sum() < limit:
            x = x * 2.0
            i += 1
        return x, i, steps

    out = check(f, [F32_3, 40.0], """
func @f(%x: f32[3]) -> f32[3], i64 {
  %x_1, %i = while(%x, 0:i64) : (f32[3], i64) cond(%x_2: f32[3], %i_1: i64) {
    %0 = reduce_sum(%x_2) {axis=none, keep_dims=false} : f32[]
    %1 = less(%0, 40.0:f32) : bool[]
    yield %1
  } do(%x_3: f32[3], %i_2: i64) {
    %x_4 = mul(%x_3, 2.0:f32) : f32[3]
    %i_3 = add(%i_2, 1:i64) : i64
    yield %x_4, %i_3
  }
  return %x_1, %i
}
""")
    for x in INPUTS[:1] + INPUTS[3:]:
        agrees(out, f, x, 40.0)


def test_while_that_accumulates_into_a_number_lifts_it_to_the_tensor_type():
    def f(x):
        acc = 0
        k = (x, 1.0)
        while k[0].sum() < 20.0:
            acc = acc + x.sum()
            k = (k[0] + 1.0, k[1] * 2)
        return acc, k

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[], f32[3], f32 {
  %0 = fill() {dtype=f32, shape=[], value=0} : f32[]
  %acc, %k, %k_1 = while(%0, %x, 1.0:f32) : (f32[], f32[3], f32) cond(%acc_1: f32[], %k_2: f32[3],
      %k_3: f32) {
    %1 = reduce_sum(%k_2) {axis=none, keep_dims=false} : f32[]
    %2 = less(%1, 20.0:f32) : bool[]
    yield %2
  } do(%acc_2: f32[], %k_4: f32[3], %k_5: f32) {
    %3 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
    %acc_3 = add(%acc_2, %3) : f32[]
    %4 = add(%k_4, 1.0:f32) : f32[3]
    %5 = mul(%k_5, 2:i64) : f32
    yield %acc_3, %4, %5
  }
  return %acc, %k, %k_1
}
""")
    agrees(out, f, INPUTS[0])


def test_while_whose_condition_becomes_a_tensor_after_unrolled_iterations():
    def f(x):
        i = 0
        while i < 2 or x.sum() < 10.0:
            x = x + 1.0
            i = i + 1
        return x

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3] {
  %x_1 = add(%x, 1.0:f32) : f32[3]
  %x_2 = add(%x_1, 1.0:f32) : f32[3]
  %x_3, %i = while(%x_2, 2:i64) : (f32[3], i64) cond(%x_4: f32[3], %i_1: i64) {
    %0 = less(%i_1, 2:i64) : bool
    %1 = reduce_sum(%x_4) {axis=none, keep_dims=false} : f32[]
    %2 = less(%1, 10.0:f32) : bool[]
    %3 = logical_or(%0, %2) : bool[]
    yield %3
  } do(%x_5: f32[3], %i_2: i64) {
    %x_6 = add(%x_5, 1.0:f32) : f32[3]
    %i_3 = add(%i_2, 1:i64) : i64
    yield %x_6, %i_3
  }
  return %x_3
}
""")
    for x in INPUTS:
        agrees(out, f, x)


def test_early_return_in_a_tensor_if_moves_the_rest_into_both_branches():
    def f(x):
        if x.sum() > 0:
            return x * 2.0, 1
        y = x - 1.0
        if y.max() > -2.0:
            return y, 2
        return -y, 3

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3], i64 {
  %0 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  %1 = greater(%0, 0:i64) : bool[]
  %2, %3 = if(%1) : (f32[3], i64) {
    %4 = mul(%x, 2.0:f32) : f32[3]
    yield %4, 1:i64
  } else {
    %y = sub(%x, 1.0:f32) : f32[3]
    %5 = reduce_max(%y) {axis=none, keep_dims=false} : f32[]
    %6 = greater(%5, -2.0:f32) : bool[]
    %7, %8 = if(%6) : (f32[3], i64) {
      yield %y, 2:i64
    } else {
      %9 = neg(%y) : f32[3]
      yield %9, 3:i64
    }
    yield %7, %8
  }
  return %2, %3
}
""")
    for x in INPUTS:
        agrees(out, f, x)


def test_break_under_a_tensor_condition_in_a_for_loop_guards_the_rest_with_flags():
    def f(x):
        for _ in range(2):
            x = x * 2.0
            if x.sum() > 10.0:
                break
            x = x + 1.0
        return x - 1.0

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3] {
  %x_1 = mul(%x, 2.0:f32) : f32[3]
  %0 = reduce_sum(%x_1) {axis=none, keep_dims=false} : f32[]
  %1 = greater(%0, 10.0:f32) : bool[]
  %jump.break.2.4, %jump.skip.2.4 = if(%1) : (bool, bool) {
    yield true:bool, true:bool
  } else {
    yield false:bool, false:bool
  }
  %2 = logical_not(%jump.skip.2.4) : bool
  %x_2 = if(%2) : f32[3] {
    %x_3 = add(%x_1, 1.0:f32) : f32[3]
    yield %x_3
  } else {
    yield %x_1
  }
  %3 = logical_not(%jump.break.2.4) : bool
  %x_4, %jump.break.2.4_1, %jump.skip.2.4_1 = if(%3) : (f32[3], bool, bool) {
    %x_5 = mul(%x_2, 2.0:f32) : f32[3]
    %4 = reduce_sum(%x_5) {axis=none, keep_dims=false} : f32[]
    %5 = greater(%4, 10.0:f32) : bool[]
    %jump.break.2.4_2, %jump.skip.2.4_2 = if(%5) : (bool, bool) {
      yield true:bool, true:bool
    } else {
      yield %jump.break.2.4, false:bool
    }
    %6 = logical_not(%jump.skip.2.4_2) : bool
    %x_6 = if(%6) : f32[3] {
      %x_7 = add(%x_5, 1.0:f32) : f32[3]
      yield %x_7
    } else {
      yield %x_5
    }
    yield %x_6, %jump.break.2.4_2, %jump.skip.2.4_2
  } else {
    yield %x_2, %jump.break.2.4, %jump.skip.2.4
  }
  %7 = sub(%x_4, 1.0:f32) : f32[3]
  return %7
}
""")
    for x in INPUTS:
        agrees(out, f, x)


def test_return_and_continue_under_tensor_conditions_in_nested_for_loops():
    def f(x):
        s = x * 0.0
        for i in range(3):
            for j in range(2):
                if x[j] > 1.5:
                    continue
                if s.sum() > 20.0:
                    return s
                s = s + x * float(j + i)
            x = x + 0.5
        else:
            s = s - 1.0
        return s

    out = compile_function(f, None, [F32_3], FakeResolver())
    for x in INPUTS + [np.array([3.0, 4.0, 5.0], np.float32), np.array([0.0, 9.0, 1.0],
                                                                         np.float32)]:
        agrees(out, f, x)


def test_break_and_continue_in_a_tensor_while_become_flags():
    def f(x):
        while x.sum() < 10.0:
            x = x * 2.0
            if x.max() > 3.0:
                break
            x = x + 1.0
        return x

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3] {
  %jump.skip.2.4 = const() {value=false} : bool[]
  %jump.skip.2.4_1, %x_1, %jump.break.2.4 = while(%jump.skip.2.4, %x, %jump.skip.2.4) : (bool[],
      f32[3], bool[]) cond(%jump.skip.2.4_2: bool[], %x_2: f32[3], %jump.break.2.4_1: bool[]) {
    %0 = logical_not(%jump.break.2.4_1) : bool[]
    %1 = reduce_sum(%x_2) {axis=none, keep_dims=false} : f32[]
    %2 = less(%1, 10.0:f32) : bool[]
    %3 = logical_and(%0, %2) : bool[]
    yield %3
  } do(%jump.skip.2.4_3: bool[], %x_3: f32[3], %jump.break.2.4_2: bool[]) {
    %x_4 = mul(%x_3, 2.0:f32) : f32[3]
    %4 = reduce_max(%x_4) {axis=none, keep_dims=false} : f32[]
    %5 = greater(%4, 3.0:f32) : bool[]
    %jump.break.2.4_3, %jump.skip.2.4_4 = if(%5) : (bool[], bool[]) {
      %6 = fill() {dtype=bool, shape=[], value=true} : bool[]
      %7 = fill() {dtype=bool, shape=[], value=true} : bool[]
      yield %6, %7
    } else {
      yield %jump.break.2.4_2, %jump.skip.2.4
    }
    %8 = logical_not(%jump.skip.2.4_4) : bool[]
    %x_5 = if(%8) : f32[3] {
      %x_6 = add(%x_4, 1.0:f32) : f32[3]
      yield %x_6
    } else {
      yield %x_4
    }
    yield %jump.skip.2.4_4, %x_5, %jump.break.2.4_3
  }
  return %x_1
}
""")
    for x in [np.array(v, np.float32) for v in ([1, 2, 3], [0.1, 0.2, 0.3], [-1, 3, 1])]:
        agrees(out, f, x)

    def g(x):
        n = 0
        while x.sum() < 50.0:
            x = x * 2.0
            n = n + 1
            if x.min() < 0.5:
                continue
            x = x + 1.0
        else:
            x = -x
        return x, n

    out = compile_function(g, None, [F32_3], FakeResolver())
    for x in [np.array(v, np.float32) for v in ([1, 2, 3], [0.1, 0.2, 0.3], [-1, 3, 1])]:
        agrees(out, g, x)


def test_nested_loops_with_jumps_keep_their_own_flags():
    def f(x):
        n = 0
        while x.sum() < 30.0:
            x = x + 1.0
            for j in range(3):
                if x.max() > 8.0:
                    break
                x = x * 1.5
            while x.min() < 2.0:
                x = x + 0.5
                if x.sum() > 20.0:
                    break
            n = n + 1
            if n > 5:
                break
        return x, n

    out = compile_function(f, None, [F32_3], FakeResolver())
    for x in [np.array(v, np.float32) for v in ([1, 2, 3], [0.1, 0.2, 0.3], [-1, 3, 1])]:
        agrees(out, f, x)


def _clip_or_scale(x):
    if x.max() > 10.0:
        return x * 0.1
    for _ in range(2):
        x = x + 1.0
    return x


def test_early_return_inside_an_inlined_helper_and_a_static_if():
    def f(x, flag):
        if flag:
            y = _clip_or_scale(x)
            if y.sum() < 0:
                return -y
        else:
            y = x
        return y + 100.0

    out = compile_function(f, None, [F32_3, True], FakeResolver())
    assert sum(1 for op in out.function.body if op.opdef.name == "if") == 2
    for x in INPUTS:
        agrees(out, f, x, True)


def test_while_loop_writes_a_parameter_each_iteration():
    counter = Parameter(np.zeros((), np.float32), "counter")

    def f(x):
        while x.sum() < 50.0:
            x = x * 2.0
            ops.assign(counter, counter + 1.0)
        return x

    out = check(f, [F32_3], """
func @f(%x: f32[3], %counter: f32[] param) -> f32[3], f32[] {
  %x_1, %counter_1 = while(%x, %counter) : (f32[3], f32[]) cond(%x_2: f32[3], %counter_2: f32[]) {
    %0 = reduce_sum(%x_2) {axis=none, keep_dims=false} : f32[]
    %1 = less(%0, 50.0:f32) : bool[]
    yield %1
  } do(%x_3: f32[3], %counter_3: f32[]) {
    %x_4 = mul(%x_3, 2.0:f32) : f32[3]
    %2 = add(%counter_3, 1.0:f32) : f32[]
    %3 = assign(%counter_3, %2) : f32[]
    yield %x_4, %3
  }
  return %x_1, %counter_1
}
""")
    x, c = INPUTS[0], np.array(0, np.float32)
    got_x, got_c = interpret(out.module, x, c)
    assert got_c == 4.0 and got_x.sum() == 96.0


def test_while_carries_a_tensor_written_through_an_item():
    # x[k] = v rebinds x to the written copy: the loop must carry it (it was left out once, and
    # every write inside the loop was lost)
    def f(x):
        out = x * 0.0
        i = x.sum() * 0.0
        while i < 3.0:
            out[1] = out[1] + i
            i = i + 1.0
        return out

    out = check(f, [F32_3], """
func @f(%x: f32[3]) -> f32[3] {
  %out = mul(%x, 0.0:f32) : f32[3]
  %0 = reduce_sum(%x) {axis=none, keep_dims=false} : f32[]
  %i = mul(%0, 0.0:f32) : f32[]
  %i_1, %out_1 = while(%i, %out) : (f32[], f32[3]) cond(%i_2: f32[], %out_2: f32[3]) {
    %1 = less(%i_2, 3.0:f32) : bool[]
    yield %1
  } do(%i_3: f32[], %out_3: f32[3]) {
    %2 = getitem(%out_3) {key=[1]} : f32[]
    %3 = add(%2, %i_3) : f32[]
    %out_4 = setitem(%out_3, %3) {key=[1]} : f32[3]
    %i_4 = add(%i_3, 1.0:f32) : f32[]
    yield %i_4, %out_4
  }
  return %out_1
}
""")
    got = interpret(out.module, INPUTS[0])
    np.testing.assert_array_equal(got, [0.0, 3.0, 0.0])


# --- jumps under tensor conditions in loops unrolled while compiling (issue 19) -------------------

def test_early_return_under_a_tensor_condition_inside_an_unrolled_while():
    def f(x):
        n = 0
        while n < 3:
            if x.sum() > 0:
                return x * n
            x = x + 1.0
            n += 1
        return x

    out = compile_function(f, None, [F32_3], FakeResolver())
    for x in INPUTS + [np.array([-5, -1, 0], np.float32), np.array([-2, 0, 0], np.float32)]:
        agrees(out, f, x)


def test_break_under_a_tensor_condition_in_a_python_bounded_while():
    """MindSpore's ``i = 0; while i < 10: ... if x.max() > 50: break``: the break makes the flags
    bool values, and the rest of the loop (with ``i``, now a run-time scalar) an IR while."""
    def f(x):
        i = 0
        while i < 10:
            x = x * 2.0
            if x.max() > 50.0:
                break
            i += 1
        return x, i

    out = compile_function(f, None, [F32_3], FakeResolver())
    assert any(op.opdef.name == "while" for op in walk(out.module))
    for x in INPUTS + [np.array([100, 0, 0], np.float32), np.array([1e-3, 0, 0], np.float32)]:
        agrees(out, f, x)


def test_a_static_break_keeps_the_loop_unrolled():
    def f(x):
        i = 0
        while i < 10:
            x = x + 1.0
            if i == 2:
                break
            i += 1
        else:
            x = x * 0.0
        return x

    out = compile_function(f, None, [F32_3], FakeResolver())
    assert [op.opdef.name for op in walk(out.module)] == ["add", "add", "add", "return"]


def test_while_true_whose_only_exits_are_breaks_in_elif_and_else():
    """It used to unroll 10000 iterations reporting each break again (the "hang" of issue 19);
    now the first tensor-conditioned break turns the rest of the loop into an IR while."""
    def f(x):
        while True:
            x = x * 2.0
            if x.sum() > 100.0:
                x = x + 1.0
            elif x.sum() > 50.0:
                break
            else:
                break
        return x

    out = compile_function(f, None, [F32_3], FakeResolver())
    for x in INPUTS + [np.array([0.1, 0.2, 0.3], np.float32), np.array([40, 1, 1], np.float32)]:
        agrees(out, f, x)


def test_both_branches_binding_the_same_new_value_update_the_variable():
    """Both branches of the inner if set the break flag to the same object (``True``): the merge
    used to keep the flag's old value, so a tensor while whose breaks are only in ``elif`` and
    ``else`` never stopped (issue 19). Guarded by a timeout, so a regression fails."""
    def f(x):
        while x.sum() < 1000.0:
            x = x * 2.0
            if x.sum() > 100.0:
                x = x + 1.0
            elif x.sum() > 50.0:
                break
            else:
                break
        return x

    def same_object(x, y):
        z = x
        if x.sum() > 0:
            z = y
        else:
            z = y
        return z

    with within(seconds=60):
        out = compile_function(f, None, [F32_3], FakeResolver())
        for x in INPUTS:
            agrees(out, f, x)
        agrees(compile_function(same_object, None, [F32_3, F32_3], FakeResolver()), same_object,
               INPUTS[0], INPUTS[1])

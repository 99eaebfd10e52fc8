"""graphcell.testing.check_grads: passes on correct gradients, fails usefully on wrong ones."""
import re

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops
from graphcell.testing import check_grads


def _t(*shape, seed=0, lo=-2.0, hi=2.0, dtype=np.float64):
    return Tensor(np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype))


def _doubling():
    return ops.HookBackward(lambda g: (g[0] * 2,))  # identity forward, twice the gradient back


# --- correct gradients pass --------------------------------------------------------------------

@pytest.mark.parametrize("fn, args", [
    (ops.add, (_t(2, 3), _t(3, seed=1))),
    (ops.mul, (_t(2, 1), _t(1, 4, seed=1))),
    (lambda x, y: ops.MatMul(transpose_b=True)(x, y), (_t(2, 3), _t(4, 3, seed=1))),
    (lambda x: ops.tanh(ops.tanh(x) * 3.0) + ops.tanh(x), (_t(3, 2),)),
    (lambda x, w: ops.tanh(ops.matmul(ops.tanh(x), w)).sum(), (_t(2, 3), _t(3, 2, seed=1))),
], ids=["add", "mul-broadcast", "matmul", "tanh-chain", "tanh-matmul-sum"])
def test_correct_functions_pass(fn, args):
    report = check_grads(fn, args)
    assert report.passed and len(report.checks) == len(args)
    assert all(c.mode == "elementwise" and c.max_abs_error < 1e-8 for c in report.checks)


def test_float32_arguments_get_float32_tolerances_and_float64_differences():
    report = check_grads(lambda x, y: ops.tanh(x * y), (_t(2, 3, dtype=np.float32), _t(3, seed=1)))
    assert report.fd_dtype == ms.float64 and report.eps == 1e-5
    assert report.rtol == report.atol == 2e-3  # the analytic side went through float32


def test_several_outputs_are_all_checked():
    report = check_grads(lambda x: (ops.sin(x), ops.exp(x).sum()), (_t(3),))
    assert report.passed


def test_inner_product_mode_for_big_arguments():
    report = check_grads(lambda x: ops.tanh(x) * x, (_t(20, 20),))
    check = report[0]
    assert check.mode == "inner product" and check.worst_index is None and check.passed
    assert check_grads(lambda x: ops.tanh(x), (_t(2, 2),), elementwise=False)[0].mode == "inner product"


def test_integer_arguments_are_skipped_with_a_note():
    idx = Tensor(np.array([2, 0]), ms.int32)
    report = check_grads(lambda x, i: ops.take(x, i), (_t(3, 2), idx))
    assert [c.name for c in report.checks] == ["argument 0"]
    assert report.skipped == ("argument 1 (Int32 tensor): only float values have gradients to "
                              "compare with finite differences",)
    assert "skipped argument 1 (Int32 tensor)" in str(report)


def test_grad_position_selects_arguments():
    report = check_grads(ops.mul, (_t(2), _t(2, seed=1)), grad_position=1)
    assert [c.name for c in report.checks] == ["argument 1"]
    with pytest.raises(TypeError, match="argument 1 is a float, not a Tensor"):
        check_grads(ops.mul, (_t(2), 2.0), grad_position=(0, 1))


def test_nothing_to_check_is_a_clear_error():
    with pytest.raises(ValueError, match="nothing to check .* no float Tensor.*Int32 tensor"):
        check_grads(lambda i: ops.cast(i, ms.float32), (Tensor(np.array([1, 2]), ms.int32),))
    with pytest.raises(ValueError, match="returns no float output"):
        check_grads(lambda x: ops.greater(x, 0.0), (_t(2),))


def test_non_float_outputs_are_left_out_with_a_note():
    report = check_grads(lambda x: (ops.greater(x, 0.0), ops.square(x)), (_t(3),))
    assert report.passed and "<lambda> are not float and were left out" in report.notes[0]


def test_given_sens_is_the_cotangent():
    # with u = 1 the gradient of sum(x * x) is 2x exactly: the elementwise numeric side shows it
    x = _t(3)
    report = check_grads(ops.square, (x,), sens=Tensor(np.ones(3)))
    assert report.passed and report[0].analytic == pytest.approx(2 * x.asnumpy()[report[0].worst_index])
    with pytest.raises(ValueError, match="sens must hold one Tensor per float output"):
        check_grads(ops.square, (x,), sens=Tensor(np.ones(2)))


def test_random_ops_draw_the_same_mask_in_every_evaluation():
    ms.set_seed(3)
    state = ms.common.seed.generator().bit_generator.state
    report = check_grads(lambda x: ops.dropout(x, p=0.5) * x, (_t(4, 3),))
    assert report.passed
    assert ms.common.seed.generator().bit_generator.state == state  # the random state is left as found


def test_a_function_that_cannot_run_in_float64_falls_back_with_a_note():
    w = Tensor(np.ones((3, 2), np.float32))  # matmul wants equal dtypes: float64 x fails
    report = check_grads(lambda x: ops.matmul(x, w), (_t(2, 3, dtype=np.float32),))
    assert report.passed and report.fd_dtype == ms.float32 and report.eps == 1e-3
    assert "failed in float64" in report.notes[0]


# --- wrong gradients fail, with a message that locates the error --------------------------------

def test_a_doubled_gradient_fails_naming_the_worst_element():
    wrong = _doubling()
    with pytest.raises(AssertionError) as info:
        check_grads(lambda x, y: wrong(x * x) * y, (_t(2, 3), _t(2, 3, seed=1)))
    msg = str(info.value)
    assert "disagrees with central finite differences for argument 0." in msg
    assert re.search(r"argument 0 f64\[2,3\]: FAILED \(jacobian\)\n +max abs error [\d.e+-]+, "
                     r"max rel error 1\n +worst entry d out0\[\d, \d\] / d x\[\d, \d\] at x = "
                     r"[\d.e+-]+: analytic [\d.e+-]+, numeric", msg)
    assert "argument 1 f64[2,3]: ok" in msg


def test_the_worst_element_is_the_wrong_one():
    bump = np.zeros((2, 3))
    bump[1, 2] = 0.5
    wrong = ops.HookBackward(lambda g: (g[0] + Tensor(bump),))
    with pytest.raises(AssertionError, match=r"worst entry d out0\[\d, \d\] / d x\[1, 2\]") as info:
        check_grads(lambda x: wrong(x + 0.0), (_t(2, 3),))
    assert "max abs error 0.5, max rel error" in str(info.value)


def test_a_failure_reports_the_true_jacobian_entry_and_the_input_value():
    # sin's derivative at x is cos(x); a doubled gradient gives 2 cos(x) at the worst entry, and
    # the message says so with x itself — not a random mixture of the outputs
    wrong = _doubling()
    x = _t(2, 3)
    with pytest.raises(AssertionError) as info:
        check_grads(lambda a: wrong(ops.sin(a)), (x,))
    msg = str(info.value)
    m = re.search(r"worst entry d out0\[(\d), (\d)\] / d x\[(\d), (\d)\] at x = ([\d.e+-]+): "
                  r"analytic ([\d.e+-]+), numeric ([\d.e+-]+)", msg)
    assert m, msg
    out_index, in_index = m.group(1, 2), m.group(3, 4)
    assert out_index == in_index   # sin is elementwise: the wrong entries are on the diagonal
    value, analytic, numeric = map(float, m.group(5, 6, 7))
    xj = x.asnumpy()[tuple(map(int, in_index))]
    assert value == pytest.approx(xj, abs=1e-8)
    assert numeric == pytest.approx(np.cos(xj), abs=1e-8) and analytic == pytest.approx(2 * np.cos(xj))


def test_the_failing_input_is_in_the_message_outside_pytest_too():
    wrong = _doubling()
    x = Tensor(np.array([[0.25, -1.5], [2.0, 0.125]]))
    try:
        check_grads(lambda a: wrong(a * a), (x,))
    except AssertionError as e:   # the message alone, as a script would print it
        msg = str(e)
    assert "the failing input(s):\n  argument 0 = [[ 0.25 , -1.5  ],\n" in msg
    assert "[ 2.   ,  0.125]]" in msg


def test_big_outputs_fall_back_to_the_gradient_of_u_dot_f_per_element():
    wrong = _doubling()
    with pytest.raises(AssertionError, match=r"FAILED \(elementwise\)\n.*\n +worst element "
                                             r"\[\d\] at x = [\d.e+-]+: .*\(gradients of <u, f>\)"):
        check_grads(lambda a: wrong(ops.broadcast_to(a, (40, 3)) * 1.0), (_t(3),))


def test_big_arguments_are_searched_for_the_worst_element_after_a_failure():
    wrong = _doubling()
    with pytest.raises(AssertionError, match=r"FAILED \(elementwise\)[^\n]*\n.*\n +worst element \[") :
        check_grads(lambda x: wrong(ops.tanh(x)), (_t(20, 20),))


def test_a_gradient_of_the_wrong_dtype_fails(monkeypatch):
    # no public op gives a gradient of another dtype (hooks returning one are an error, as in
    # MindSpore), so a GradOperation whose gradients come out as float32 stands in for a bad rule
    import graphcell.testing.gradcheck as gc

    class CastingGradOperation(gc.GradOperation):
        def __call__(self, *args):
            grad_fn = super().__call__(*args)
            return lambda *xs: tuple(g.astype(ms.float32) for g in grad_fn(*xs))
    monkeypatch.setattr(gc, "GradOperation", CastingGradOperation)
    with pytest.raises(AssertionError, match="the analytic gradient has dtype Float32, the value Float64"):
        check_grads(lambda x: x * 2.0, (_t(3),))


# --- Cells and their Parameters -----------------------------------------------------------------

class _Tiny(nn.Cell):
    """tanh(x @ w + b): a Cell with two Parameters."""

    def __init__(self, dtype=np.float64):
        super().__init__()
        self.w = Parameter(_t(3, 2, seed=5, dtype=dtype), name="w")
        self.b = Parameter(_t(2, seed=6, dtype=dtype), name="b")

    def construct(self, x):
        return ops.tanh(ops.matmul(x, self.w) + self.b)


def test_a_cell_with_parameters_passes_for_inputs_and_weights():
    net = _Tiny()
    report = check_grads(net, (_t(4, 3),), weights=net.trainable_params())
    assert [c.name for c in report.checks] == ["argument 0", "weight 'w'", "weight 'b'"]
    assert report.passed


def test_float32_parameters_are_differenced_in_float64_and_restored():
    net = _Tiny(np.float32)
    before = {p.name: (p._data, p._data.copy()) for p in net.trainable_params()}
    report = check_grads(net, (_t(4, 3, dtype=np.float32),), weights=net.trainable_params())
    assert report.passed and report.fd_dtype == ms.float64
    for p in net.trainable_params():
        array, values = before[p.name]
        assert p._data is array and p.dtype == ms.float32 and np.array_equal(p._data, values)


def test_parameters_are_restored_when_the_function_raises():
    class Flaky(_Tiny):
        calls = 0

        def construct(self, x):
            Flaky.calls += 1
            if Flaky.calls > 3:  # fails in the middle of the finite differences
                raise RuntimeError("flaky cell")
            return super().construct(x)
    net = Flaky()
    before = [(p, p._data, p._data.copy()) for p in net.trainable_params()]
    with pytest.raises(RuntimeError, match="flaky cell"):
        check_grads(net, (_t(4, 3),), weights=net.trainable_params())
    for p, array, values in before:
        assert p._data is array and np.array_equal(p._data, values)


def test_a_cell_that_changes_its_state_is_evaluated_at_one_point_and_left_unchanged():
    class Counting(_Tiny):
        def __init__(self):
            super().__init__()
            self.calls = Parameter(Tensor(np.array(0.0)), name="calls", requires_grad=False)

        def construct(self, x):
            self.calls.set_data(self.calls + 1.0)  # state written by every call
            return super().construct(x) * self.calls
    net = Counting()
    assert check_grads(net, (_t(4, 3),), weights=net.trainable_params()).passed
    assert float(net.calls) == 0.0


class _WrongBprop(nn.Cell):
    """x * w with a custom bprop that forgets the factor w (and gives w no gradient)."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(_t(3, seed=7), name="w")

    def construct(self, x):
        return x * self.w

    def bprop(self, x, out, dout):
        return (dout,)


def test_a_cell_with_a_wrong_custom_bprop_fails():
    with pytest.raises(AssertionError, match=r"for argument 0\.\n.*\n  argument 0 f64\[3\]: FAILED"):
        check_grads(_WrongBprop(), (_t(3),))


# --- graph mode: the compiled gradient ----------------------------------------------------------

class _Layer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2, weight_init="normal", bias_init="normal")

    def construct(self, x):
        return ops.tanh(self.fc(x)) * x.sum()


def test_graph_mode_checks_the_compiled_gradient(monkeypatch):
    import graphcell.testing.gradcheck as gc
    net = _Layer()
    x = _t(4, 3, dtype=np.float32)

    def no_pynative(*args, **kwargs):
        raise AssertionError("mode='graph' must not take PyNative's gradient")
    monkeypatch.setattr(gc, "_analytic", no_pynative)
    report = check_grads(net, (x,), weights=net.trainable_params(), mode="graph")
    assert report.passed and report.mode == "graph" and "compiled (graph mode)" in str(report)
    assert [c.name for c in report.checks] == ["argument 0", "weight 'fc.weight'", "weight 'fc.bias'"]
    assert ms.get_context("mode") == ms.PYNATIVE_MODE   # left as it was


def test_graph_mode_catches_a_wrong_compiled_gradient():
    with pytest.raises(AssertionError, match=r"analytic gradients compiled \(graph mode\)\n"
                                             r"  argument 0 f64\[3\]: FAILED"):
        check_grads(_WrongBprop(), (_t(3),), mode="graph")
    with pytest.raises(ValueError, match="mode must be one of 'pynative', 'graph', got 'jit'"):
        check_grads(_WrongBprop(), (_t(3),), mode="jit")


# --- the report ---------------------------------------------------------------------------------

def test_report_lookup_and_text():
    report = check_grads(ops.mul, (_t(2), _t(2, seed=1)))
    assert report[1] is report["argument 1"]
    with pytest.raises(KeyError, match="the checks are argument 0, argument 1"):
        report["argument 2"]
    text = str(report)
    assert text.startswith("check_grads(mul):\n  eps=1e-05 (differences in Float64), rtol=1e-05")
    assert "argument 0 f64[2]: ok (elementwise: max abs error" in text

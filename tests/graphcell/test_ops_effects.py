"""Effects and framework functions beyond the golden cases: names that take Python functions
(gradients, hooks), printed text, files written, and the optimizer Primitives where graphcell
follows MindSpore's documented formula and MindSpore 2.10's CPU kernel does not (expected values
in the comments were printed by MindSpore 2.10 where it agrees)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops


def f32(a):
    return Tensor(np.asarray(a, np.float32))


def both_modes(fn):
    return [fn, ms.jit(fn)]


# --- gradients ------------------------------------------------------------------------------------

X, Y, SENS = f32([1.0, 2.0]), f32([3.0, 4.0]), f32([1.0, 10.0])


def mul(x, y):
    return x * y


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_grad_sens_param_and_return_ids_as_mindspore(mode):
    w = Parameter(f32([2.0, 2.0]), name="w")

    def weighted(x):
        return (x * w).sum()

    def run(x, y, s):
        return (ops.grad(mul, grad_position=(0, 1), sens_param=True)(x, y, s),
                ops.grad(mul, grad_position=(0, 1), return_ids=True)(x, y),
                ops.grad(weighted, grad_position=0, weights=[w], return_ids=True)(x),
                ops.value_and_grad(mul, grad_position=0, sens_param=True)(x, y, s),
                ops.value_and_grad(weighted, grad_position=None, weights=[w],
                                   return_ids=True)(x))
    fn = ms.jit(run) if mode == "graph" else run
    sens, ids, ids_w, vg_sens, vg_ids = fn(X, Y, SENS)
    assert [g.asnumpy().tolist() for g in sens] == [[3.0, 40.0], [1.0, 20.0]]
    assert [(i, g.asnumpy().tolist()) for i, g in ids] == [(0, [3.0, 4.0]), (1, [1.0, 2.0])]
    (pos, gx), ((name, gw),) = ids_w                     # MindSpore: a bare pair, then pairs
    assert (pos, gx.asnumpy().tolist(), name, gw.asnumpy().tolist()) == (0, [2.0, 2.0], "w",
                                                                         [1.0, 2.0])
    assert vg_sens[0].asnumpy().tolist() == [3.0, 8.0] and \
        vg_sens[1].asnumpy().tolist() == [3.0, 40.0]
    assert vg_ids[0].asnumpy() == 6.0 and vg_ids[1][0][0] == "w"


def test_grad_operation_is_an_ops_name():
    g = ops.GradOperation(get_all=True)(mul)(X, Y)
    assert [t.asnumpy().tolist() for t in g] == [[3.0, 4.0], [1.0, 2.0]]


# --- hooks ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_insert_gradient_of_replaces_the_gradient(mode):
    scale = ops.InsertGradientOf(lambda g: g * 10)

    def loss(x):
        return (scale(x) * x).sum()
    grad = ms.grad(loss)
    fn = ms.jit(lambda x: grad(x)) if mode == "graph" else grad
    assert fn(X).asnumpy().tolist() == [11.0, 22.0]          # MindSpore 2.10: [11. 22.]
    assert ops.InsertGradientOf(lambda g: g)(X).asnumpy().tolist() == [1.0, 2.0]


def test_insert_gradient_of_is_an_operations_class():
    from graphcell.ops import operations as P
    assert P.InsertGradientOf is ops.InsertGradientOf
    with pytest.raises(TypeError, match="InsertGradientOf: f must be callable"):
        ops.InsertGradientOf(3)


def test_hook_backward_sees_the_gradient():
    seen = []
    hook = ops.HookBackward(lambda g: seen.append(g[0].asnumpy().tolist()))
    out = ms.grad(lambda x: (hook(x) * x).sum())(X)
    assert seen == [[1.0, 2.0]] and out.asnumpy().tolist() == [2.0, 4.0]


def test_register_hook_on_inputs_and_intermediates():
    seen = []

    def double(g):
        seen.append(g.asnumpy().tolist())
        return g * 2
    x = f32([1.0, 2.0])
    handle = x.register_hook(double)
    assert ms.grad(lambda t: (t * t).sum())(x).asnumpy().tolist() == [4.0, 8.0]  # MindSpore too
    handle.remove()
    assert ms.grad(lambda t: (t * t).sum())(x).asnumpy().tolist() == [2.0, 4.0]

    def f(t):
        y = t * 3
        y.register_hook(double)
        return (y * y).sum() + y.sum()     # the hook sees the gradient summed over both uses
    assert ms.grad(f)(x).asnumpy().tolist() == [42.0, 78.0]
    assert seen[-1] == [7.0, 13.0]


def _double(g):
    return g * 2


def test_register_hook_in_graph_mode():
    def inline(t):
        t.register_hook(lambda g: g)
        return t.sum()
    with pytest.raises(TypeError, match="function defined outside"):
        ms.jit(inline)(X)

    def outside(t):
        t = t.register_hook(_double)  # in compiled code it gives the tensor (issue 19)
        return (t * t).sum()
    np.testing.assert_allclose(ms.jit(ms.grad(outside))(X).asnumpy(), 4 * X.asnumpy())


# --- stop_gradient, printing, dumps, checks -------------------------------------------------------

@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_stop_gradient_cuts_the_gradient(mode):
    def loss(x):
        return (ops.stop_gradient(x) * x).sum()
    grad = ms.grad(loss)
    fn = ms.jit(lambda x: grad(x)) if mode == "graph" else grad
    assert fn(X).asnumpy().tolist() == [1.0, 2.0]             # MindSpore 2.10: [1. 2.]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_print_writes_each_argument_on_its_own_line(mode, capsys):
    def show(x):
        ops.Print()("x:", x, 3)
        return x + 1
    fn = ms.jit(show) if mode == "graph" else show
    fn(X)
    assert capsys.readouterr().out.splitlines() == [
        "x:", "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])", "3"]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_tensordump_writes_npy_files(mode, tmp_path):
    def dump(x):
        ops.tensordump(str(tmp_path / "x"), x)
        ops.TensorDump()(str(tmp_path / "y"), x * 2)
        return x
    (ms.jit(dump) if mode == "graph" else dump)(X)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert [f.rsplit("_", 1)[0] for f in files] == ["x_float32", "y_float32"]
    assert np.load(tmp_path / files[1]).tolist() == [2.0, 4.0]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_assert_and_check_numerics_raise_when_run(mode):
    def check(x):
        ops.Assert()(x > 0, [x])
        return ops.CheckNumerics()(x)
    fn = ms.jit(check) if mode == "graph" else check
    assert fn(X).asnumpy().tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="Assert: the condition is false"):
        fn(f32([1.0, -1.0]))
    with pytest.raises(ValueError, match="CheckNumerics"):
        fn(f32([1.0, np.inf]))


def test_summaries_record_nothing_and_check_the_name():
    assert ops.ScalarSummary()("loss", f32(1.0)) is None
    with pytest.raises(TypeError, match="name must be a non-empty str"):
        ops.ScalarSummary()("", f32(1.0))


def test_float_status_accumulate_n_coalesce_no_repeat_ngram():
    assert ops.FloatStatus()(f32([1.0, np.nan])).asnumpy().tolist() == [1.0]
    assert ops.FloatStatus()(f32([1.0, 2.0])).asnumpy().tolist() == [0.0]
    assert ops.accumulate_n([X, Y, X]).asnumpy().tolist() == [5.0, 8.0]
    indices, values, shape = ops.Coalesce()(Tensor(np.array([[1, 0, 1], [1, 0, 1]], np.int64)),
                                            f32([1.0, 2.0, 3.0]),
                                            Tensor(np.array([3, 3], np.int64)))
    assert indices.asnumpy().tolist() == [[0, 1], [0, 1]] and values.asnumpy().tolist() == [2, 4]
    seq = Tensor(np.array([[[1, 2, 1, 2, 5, 1, 2]]], np.int32))
    out = ops.NoRepeatNGram(ngram_size=3)(seq, Tensor(np.zeros((1, 1, 6), np.float32)))
    lowest = np.finfo(np.float32).min
    # [1, 2] was followed by 1 and by 5
    assert out.asnumpy()[0, 0].tolist() == [0, lowest, 0, 0, 0, lowest]


# --- optimizer Primitives -------------------------------------------------------------------------

def param(values, name):
    return Parameter(f32(values), name=name)


def test_apply_momentum_nesterov_follows_the_documented_formula():
    # MindSpore 2.10's CPU kernel ignores use_nesterov (as nn.Momentum's note says); graphcell
    # follows the docs: var -= lr * (grad + momentum * accum)
    var, acc = param([1.0], "var"), param([0.5], "acc")
    ops.ApplyMomentum(use_nesterov=True)(var, acc, 0.1, f32([2.0]), 0.9)
    new_acc = 0.9 * 0.5 + 2.0
    assert np.isclose(acc.asnumpy()[0], new_acc)
    assert np.isclose(var.asnumpy()[0], 1.0 - 0.1 * (2.0 + 0.9 * new_acc))


def test_apply_adagrad_without_slot_updates_keeps_accum():
    # MindSpore 2.10's CPU kernel updates accum even with update_slots=False; its docs do not
    var, acc = param([1.0], "var"), param([4.0], "acc")
    ops.ApplyAdagrad(update_slots=False)(var, acc, 0.1, f32([2.0]))
    assert acc.asnumpy()[0] == 4.0 and np.isclose(var.asnumpy()[0], 1.0 - 0.1 * 2.0 / 2.0)


def test_apply_adagrad_da_and_ftrl_with_l1_follow_the_documented_formulas():
    # with l1 > 0 MindSpore 2.10's CPU kernels compute sign(a) |a - l1 t| (AdagradDA) and
    # -l1 sign(linear) - linear (FTRL) instead of the shrinkage their docs (and TensorFlow) give
    var, ga, gsa = param([1.0, 1.0], "var"), param([0.5, 0.0005], "ga"), param([1.0, 1.0], "gsa")
    ops.ApplyAdagradDA()(var, ga, gsa, f32([0.0, 0.0]), 0.001, 0.001, 0.001,
                         Tensor(np.int32(2)))
    shrunk = np.sign([0.5, 0.0005]) * np.maximum(np.abs([0.5, 0.0005]) - 0.002, 0)
    np.testing.assert_allclose(var.asnumpy(), -0.001 * shrunk / (0.001 * 2 * 0.001 + 1.0),
                               rtol=1e-6)
    var, acc, lin = param([1.0], "var"), param([1.0], "acc"), param([-2.0], "lin")
    ops.ApplyFtrl()(var, acc, lin, f32([0.0]), 0.1, 0.05, 0.1, -0.5)
    quadratic = 1.0 / 0.1 + 2 * 0.1
    assert np.isclose(var.asnumpy()[0], (-0.05 + 2.0) / quadratic)


def test_apply_keras_momentum():
    # MindSpore 2.10's CPU build has no ApplyKerasMomentum kernel: the documented formula
    var, acc = param([1.0], "var"), param([0.5], "acc")
    out_var, out_acc = ops.ApplyKerasMomentum()(var, acc, 0.1, f32([2.0]), 0.9)
    assert np.isclose(out_acc.asnumpy()[0], 0.5 * 0.9 - 0.2)
    assert np.isclose(out_var.asnumpy()[0], 1.0 + 0.5 * 0.9 - 0.2)


class _Step(nn.Cell):
    """A training step written with the optimizer Primitives, as MindSpore's own optimizers are."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(f32([1.0, 2.0]), name="w")
        self.m = Parameter(f32([0.0, 0.0]), name="m")
        self.v = Parameter(f32([0.0, 0.0]), name="v")
        self.adam = ops.Adam()

    def construct(self, g):
        return self.adam(self.w, self.m, self.v, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, g)


def test_optimizer_primitives_write_parameters_back_in_graph_mode():
    eager, compiled = _Step(), _Step()
    g = f32([0.5, -1.0])
    for _ in range(2):
        eager(g)
        ms.jit(compiled.construct)(g)
    for name in ("w", "m", "v"):
        np.testing.assert_allclose(getattr(compiled, name).asnumpy(),
                                   getattr(eager, name).asnumpy(), rtol=1e-6)
    assert not np.allclose(eager.w.asnumpy(), [1.0, 2.0])


# --- functional control flow ------------------------------------------------------------------

def _add_index(i, v):
    return v + i


def _running_sum(c, e):
    return c + e, c * e


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_fori_loop_and_scan(mode):
    # unrolled in graph mode (unroll=True, MindSpore's default); the loops that stay loops are
    # tested in tests/graphcell/test_functional_loops.py
    def run(x):
        total = ops.ForiLoop()(0, 4, _add_index, x)
        carry, ys = ops.Scan()(_running_sum, x, [x, x * 2])
        return total, carry, ys[0], ys[1]
    fn = ms.jit(run) if mode == "graph" else run
    total, carry, y0, y1 = fn(f32(1.0))
    assert (total.asnumpy(), carry.asnumpy(), y0.asnumpy(), y1.asnumpy()) == (7.0, 4.0, 1.0, 4.0)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_while_loop(mode):
    def run(x):
        return ops.WhileLoop()(lambda v: v < 10, lambda v: v * 2, x)
    fn = ms.jit(run) if mode == "graph" else run
    assert fn(f32(1.0)).asnumpy() == 16.0                    # MindSpore 2.10: 16.0
    with pytest.raises(TypeError, match="WhileLoop: 'loop_func' must be a function"):
        ops.WhileLoop()(lambda v: v < 10, 3, f32(1.0))

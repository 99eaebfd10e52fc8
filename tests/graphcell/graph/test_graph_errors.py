"""Errors in graph mode: at the user's line, without the compiler's traceback, and leaving
Parameters and caches as they were."""
import traceback

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops, Tensor
from graphcell.graph import GraphModeWarning
from graphcell_ir.errors import GraphCompileError, GraphSyntaxError, GraphValueError

HERE = __file__.rsplit("/", 1)[-1]


def line_of(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


class WithTry(nn.Cell):
    def construct(self, x):
        try:
            x = x + 1
        except ValueError:
            pass
        return x


class BadShapes(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.ones((4, 2), np.float32)), name="w")

    def construct(self, x):
        return ops.matmul(x, self.w)


class AssignsThenFails(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = ms.Parameter(Tensor(np.zeros(3, np.float32)), name="b")

    def construct(self, x):
        ops.assign(self.b, x)
        input(x)  # unsupported in graph mode
        return x


class AssignsThenFailsAtRun(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = ms.Parameter(Tensor(np.zeros(3, np.float32)), name="b")

    def construct(self, x, idx):
        ops.assign(self.b, x)
        return ops.gather(x, idx, 0)


def x3():
    return Tensor(np.ones(3, np.float32))


def test_unsupported_syntax_points_at_the_users_line(graph_mode):
    with pytest.raises(GraphSyntaxError) as info:
        WithTry()(x3())
    message = str(info.value)
    assert f"{HERE}:{line_of(WithTry.construct, 'try:')}" in message
    assert "try" in message and "^" in message


def test_no_compiler_frames_in_the_traceback(graph_mode):
    with pytest.raises(GraphCompileError) as info:
        WithTry()(x3())
    text = "".join(traceback.format_exception(info.value))
    assert "graphcell_ir/frontend" not in text and "graphcell_ir\\frontend" not in text


def test_shape_errors_point_at_the_users_line(graph_mode):
    with pytest.raises(GraphValueError) as info:
        BadShapes()(Tensor(np.ones((2, 3), np.float32)))
    message = str(info.value)
    assert f"{HERE}:{line_of(BadShapes.construct, 'ops.matmul')}" in message
    assert "MatMul" in message


def test_a_failed_compile_leaves_parameters_and_cache_alone(graph_mode):
    net = AssignsThenFails()
    with pytest.raises(GraphSyntaxError, match="input"):
        net(Tensor(np.full(3, 7.0, np.float32)))
    assert net.b.asnumpy().tolist() == [0.0, 0.0, 0.0]
    info = ms.graph.cache_info(net)
    assert (info.hits, info.misses) == (0, 0)


def test_a_failed_run_leaves_parameters_and_cache_alone(graph_mode):
    net = AssignsThenFailsAtRun()
    x = Tensor(np.full(3, 7.0, np.float32))
    with pytest.raises(Exception):
        net(x, Tensor(np.array([5], np.int32)))     # out of range: fails while running
    assert net.b.asnumpy().tolist() == [0.0, 0.0, 0.0]
    assert ms.graph.cache_info(net).misses == 0
    out = net(x, Tensor(np.array([1], np.int32)))
    assert out.asnumpy().tolist() == [7.0] and net.b.asnumpy().tolist() == [7.0, 7.0, 7.0]
    assert ms.graph.cache_info(net).reasons == ["first call"]


def test_a_failed_jit_compile_leaves_parameters_alone():
    net = AssignsThenFails()

    @ms.jit
    def step(x):
        return net(x)
    with pytest.raises(GraphSyntaxError):
        step(Tensor(np.full(3, 7.0, np.float32)))
    assert net.b.asnumpy().tolist() == [0.0, 0.0, 0.0]


def test_reading_tensor_values_in_construct_runs_as_python_with_a_warning(graph_mode):
    class Reads(nn.Cell):
        def construct(self, x):
            return x.asnumpy()
    with pytest.warns(GraphModeWarning, match=r"asnumpy\(\) runs as Python when the graph") as w:
        out = Reads()(x3())
    assert isinstance(out, np.ndarray) and out.tolist() == x3().asnumpy().tolist()
    assert "test_graph_errors.py" in str(w[0].message) and "return x.asnumpy()" in str(w[0].message)


def test_a_gradient_transform_given_a_tensor_names_the_line(graph_mode):
    class Grads(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = nn.Dense(3, 1)

        def construct(self, x):
            return ops.GradOperation()(x * 2)(x)      # differentiates a tensor, not a function
    with pytest.raises(GraphCompileError, match="gradient transform") as info:
        Grads()(Tensor(np.ones((1, 3), np.float32)))
    assert "GradOperation()(x * 2)(x)" in str(info.value)


@pytest.mark.parametrize("bad, words", [
    (np.ones(3, np.float32), "numpy"),
    (object(), "object"),
])
def test_inputs_graph_mode_cannot_take(graph_mode, bad, words):
    with pytest.raises(TypeError, match=words):
        nn.ReLU()(bad)


def test_wrong_arguments_name_the_function():
    @ms.jit
    def f(x, y):
        return x + y
    with pytest.raises(TypeError, match="f: missing a required argument"):
        f(x3())


def test_layers_reject_bad_inputs_at_the_users_line(graph_mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 2)

        def construct(self, x):
            return self.fc(x)
    with pytest.raises(GraphValueError) as info:
        Net()(Tensor(np.ones((2, 3), np.float32)))
    assert "in_channels=4" in str(info.value)
    assert f"{HERE}:{line_of(Net.construct, 'self.fc(x)')}" in str(info.value)


# --- a consequence of the first mistake is not a second problem (issue 24) ------------------------

class TwoLayers(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(5, 4)
        self.fc2 = nn.Dense(3, 2)            # 4 features reach it: the mistake

    def construct(self, x):
        y = self.fc2(self.fc1(x))
        return y.sum() + y.mean()


def test_a_layer_s_input_check_is_reported_once_not_again_by_the_op_after_it(graph_mode):
    net = TwoLayers()
    with pytest.raises(GraphValueError) as info:
        net(Tensor(np.ones((2, 5), np.float32)))
    msg = str(info.value)
    assert "problems while compiling" not in msg and msg.count("^") == 1, msg
    assert "Dense: expected an input whose last axis has in_channels=3 values, got Float32 [2, 4]" in msg
    assert "MatMul" not in msg   # the matmul after the check would only fail for the same reason
    assert f"{HERE}:{line_of(TwoLayers.construct, 'self.fc2(self.fc1(x))')}:13: y = self.fc2(" in msg


def test_a_train_step_s_error_is_the_layer_s_alone(graph_mode):
    net = TwoLayers()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    with pytest.raises(GraphValueError) as info:
        step(Tensor(np.ones((2, 5), np.float32)), Tensor(np.ones((2, 2), np.float32)))
    msg = str(info.value)
    assert "problems while compiling" not in msg and "MSELoss" not in msg, msg
    assert all(np.array_equal(b, p.asnumpy()) for b, p in zip(before, net.trainable_params()))


class RaisesThenUses(nn.Cell):
    def check(self, x):
        if x.shape[-1] != 4:
            raise ValueError(f"want 4 features, got {x.shape[-1]}")

    def construct(self, x):
        self.check(x)
        y = ops.matmul(x, ops.ones((4, 2), ms.float32))   # what Python would never reach
        return y


def test_a_raise_stops_the_function_as_in_python(graph_mode):
    with pytest.raises(GraphValueError) as info:
        RaisesThenUses()(Tensor(np.ones((2, 3), np.float32)))
    msg = str(info.value)
    assert f"{HERE}:{line_of(RaisesThenUses.check, 'raise ValueError')}:13: ValueError: want 4 " \
           "features, got 3" in msg and msg.count("^") == 1
    assert "problems while compiling" not in msg and "MatMul" not in msg, msg


class TwoIndependentMistakes(nn.Cell):
    def construct(self, x):
        a = ops.matmul(x, x)          # a shape error: reported, a is poisoned
        try:                          # unsupported syntax, independent of it: reported too
            b = x
        finally:
            pass
        return a + b


def test_independent_problems_are_still_all_reported(graph_mode):
    with pytest.raises(GraphSyntaxError, match="2 problems while compiling") as info:
        TwoIndependentMistakes()(Tensor(np.ones((2, 3), np.float32)))
    assert "MatMul" in str(info.value) and "'try' statement" in str(info.value)

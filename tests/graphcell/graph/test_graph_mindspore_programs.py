"""Programs MindSpore 2.10's graph mode runs (issue 19), run in PyNative mode and in GRAPH_MODE
with the same result — or the same refusal where MindSpore refuses. The expected values in the
comments were printed by MindSpore 2.10 for the same programs."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops
from graphcell.graph import GraphModeWarning
from graphcell.ops import PrimitiveWithInfer, prim_attr_register
from graphcell_ir.errors import GraphSyntaxError

from programs import run_in, same_in_both_modes


def x2():
    return Tensor(np.array([1.0, 2.0], np.float32))


def y2():
    return Tensor(np.array([0.5, 2.0], np.float32))


class Weighted(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([1.0, 2.0]), name="w")

    def construct(self, x, tmp=None):
        r = x * self.w
        if tmp is not None:
            r = r + tmp
        return r.sum()


def as_dict(x):
    return {"a": x * 2, "b": x * 3}


# --- gradient functions compiled directly -----------------------------------------------------

def test_jit_of_grad_and_of_value_and_grad():
    # MindSpore 2.10: [5. 5.]; (5, ([1. 2.],))
    assert same_in_both_modes(ms.jit(ms.grad(as_dict)), x2()).asnumpy().tolist() == [5.0, 5.0]
    net = Weighted()
    value, (dw,) = same_in_both_modes(
        ms.jit(ms.value_and_grad(net, None, net.trainable_params())), x2())
    assert value.asnumpy() == 5.0 and dw.asnumpy().tolist() == [1.0, 2.0]


def test_jit_of_a_gradient_shares_the_gradients_cache_and_keeps_no_generated_source():
    import linecache
    net = Weighted()
    grad_fn = ms.grad(net)
    jitted = ms.jit(grad_fn)
    run_in(ms.GRAPH_MODE, grad_fn, x2())
    jitted(x2())
    assert grad_fn.cache_log.misses == 1 and grad_fn.cache_log.hits == 1
    assert not [name for name in linecache.cache if name.startswith("<graphcell")]


def test_gradient_operation_takes_keyword_arguments():
    # MindSpore 2.10: GradOperation()(net)(x, tmp=t) -> [1. 2.]
    net = Weighted()
    g = same_in_both_modes(ops.GradOperation()(net), x2(), tmp=y2())
    assert g.asnumpy().tolist() == [1.0, 2.0]

    class InConstruct(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Weighted()
            self.g = ops.GradOperation()

        def construct(self, x, t):
            return self.g(self.net)(x, tmp=t)
    assert same_in_both_modes(InConstruct(), x2(), y2()).asnumpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("fn, expected", [
    (as_dict, [5.0, 5.0]),
    (lambda x: [x * 2, x * 3], [5.0, 5.0]),
    (lambda x: ((x * 2).sum(), "abc"), [2.0, 2.0]),
    (lambda x: 3.0, [0.0, 0.0]),
    (lambda x: "abc", [0.0, 0.0]),
], ids=["dict", "list", "tuple-with-str", "scalar", "str"])
def test_gradients_of_functions_returning_dicts_lists_numbers_and_strings(fn, expected):
    assert same_in_both_modes(ms.grad(fn), x2()).asnumpy().tolist() == expected


def test_get_by_list_without_weights_gives_nothing_called_and_is_refused_compiled():
    # MindSpore 2.10: () when called; in construct: "the size of input should be 2, but got 1"
    net = Weighted()
    assert same_in_both_modes(ops.GradOperation(get_by_list=True)(net), x2()) == ()

    class G(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Weighted()
            self.g = ops.GradOperation(get_by_list=True)

        def construct(self, x):
            return self.g(self.net)(x)
    with pytest.raises(GraphSyntaxError, match="get_by_list=True. without weights") as e:
        run_in(ms.GRAPH_MODE, G(), x2())
    assert "return self.g(self.net)(x)" in str(e.value)


class CustomBprop(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return dout.astype(ms.float64) * 2, ops.ones((3, 2), ms.float32)


def test_a_custom_bprops_gradients_are_summed_and_cast_back_to_the_inputs():
    # MindSpore 2.10 PyNative: Float32 [3,2] of 2s, Float32 [2] of 3s (its graph mode does not)
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.b = CustomBprop()

        def construct(self, x, y):
            return self.b(x, y)
    dx, dy = same_in_both_modes(ms.grad(Net(), grad_position=(0, 1)),
                                Tensor(np.ones((3, 2), np.float32)), Tensor(np.ones(2, np.float32)))
    assert dx.dtype == ms.float32 and dy.shape == (2,) and dy.asnumpy().tolist() == [3.0, 3.0]


# --- arguments -----------------------------------------------------------------------------------

class KeywordOnly(nn.Cell):
    def construct(self, x, *, y=1.0, z=None):
        return x * y if z is None else x * y + z


def test_keyword_only_construct_arguments():
    # MindSpore 2.10: [3. 6.] and [4. 8.]
    k = KeywordOnly()
    assert same_in_both_modes(k, x2(), y=3.0).asnumpy().tolist() == [3.0, 6.0]
    assert same_in_both_modes(k, x2(), y=3.0, z=x2()).asnumpy().tolist() == [4.0, 8.0]
    ir = ms.jit(KeywordOnly.construct).lower(k, x2(), z=x2()).as_text(locs="none")
    assert "%z: f32[2]" in ir


def test_dicts_and_cells_as_arguments_of_a_jit_function():
    @ms.jit
    def with_dict(d):
        return d["a"] * 2 + d["b"]

    @ms.jit
    def with_cell(net, x):
        return net(x)
    assert same_in_both_modes(with_dict, {"a": x2(), "b": x2()}).asnumpy().tolist() == [3.0, 6.0]
    assert same_in_both_modes(with_dict, {"a": x2(), "b": 1.0}).asnumpy().tolist() == [3.0, 5.0]
    assert same_in_both_modes(with_cell, nn.ReLU(), -x2()).asnumpy().tolist() == [0.0, 0.0]


def test_if_branches_giving_bool_0d_and_bool_1():
    """MindSpore 2.10 gives the taken branch's shape (dynamic); graph mode joins ``bool[]`` and
    ``bool[1]`` as ``bool[1]`` (docs/decisions.md), so the values agree with PyNative's."""
    @ms.jit
    def f(x):
        if x.sum() > 2:
            r = x.sum() > 1
        else:
            r = (x > 0)[0:1]
        return r
    for x in (y2() - 2.0, y2()):
        expected = f.__wrapped__(x)
        got = run_in(ms.GRAPH_MODE, f, x)
        assert got.shape == (1,) and got.asnumpy().ravel().tolist() == \
            expected.asnumpy().ravel().tolist()


# --- attribute writes ----------------------------------------------------------------------------

class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = 0
        self.last = None

    def construct(self, x):
        self.count += 1
        self.last = x * 2
        return x + self.count


class Flag(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flag = True

    def construct(self, x):
        if self.flag:
            self.flag = False
            return x
        return x * 10


class UnderTensorCondition(nn.Cell):
    def __init__(self):
        super().__init__()
        self.v = 0

    def construct(self, x):
        if x.sum() > 2:
            self.v = 1
        return x


class WritesParameter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor([1.0, 1.0]), name="p")

    def construct(self, x):
        self.p = x
        return self.p * 2


def _attribute_run(make, mode, inputs):
    cell = make()
    outs = [run_in(mode, cell, x) for x in inputs]
    return outs, {k: v for k, v in vars(cell).items() if k in ("count", "last", "flag", "v")}, cell


@pytest.mark.parametrize("make", [Counter, Flag, UnderTensorCondition],
                         ids=lambda c: c.__name__)
def test_attribute_writes_in_construct_happen_as_in_pynative(make):
    inputs = [x2(), x2() + 1, y2()]
    outs_py, attrs_py, _ = _attribute_run(make, ms.PYNATIVE_MODE, inputs)
    outs_g, attrs_g, cell = _attribute_run(make, ms.GRAPH_MODE, inputs)
    for a, b in zip(outs_g, outs_py):
        assert a.asnumpy().tolist() == b.asnumpy().tolist()
    assert list(attrs_g) == list(attrs_py)
    for k in attrs_py:
        a, b = attrs_g[k], attrs_py[k]
        assert type(a) is type(b), k
        assert (a.asnumpy().tolist() == b.asnumpy().tolist()) if isinstance(a, Tensor) else a == b
    assert ms.graph.cache_info(cell).misses >= 1


def test_counter_attribute_values():
    # MindSpore 2.10: [2. 3.], count 1, last [2. 4.]; then [3. 4.], count 2
    outs, attrs, _ = _attribute_run(Counter, ms.GRAPH_MODE, [x2(), x2()])
    assert [o.asnumpy().tolist() for o in outs] == [[2.0, 3.0], [3.0, 4.0]]
    assert attrs["count"] == 2 and attrs["last"].asnumpy().tolist() == [2.0, 4.0]


def test_assigning_a_parameter_attribute_assigns_the_parameter():
    # MindSpore 2.10: self.p = x sets p to [1. 2.]
    cell = WritesParameter()
    assert run_in(ms.GRAPH_MODE, cell, x2()).asnumpy().tolist() == [2.0, 4.0]
    assert cell.p.asnumpy().tolist() == [1.0, 2.0] and isinstance(cell.p, Parameter)


def test_attribute_writes_graph_mode_refuses_are_named_at_the_line():
    class InTensorWhile(nn.Cell):
        def __init__(self):
            super().__init__()
            self.n = 0

        def construct(self, x):
            while x.sum() < 10:
                x = x * 2
                self.n = 1
            return x

    class AssignsCell(nn.Cell):
        def construct(self, x):
            self.act = nn.ReLU()
            return x
    for cell, words in ((InTensorWhile(), "inside a while loop whose condition is a tensor"),
                        (AssignsCell(), "create cells in __init__")):
        with pytest.raises(GraphSyntaxError, match=words) as e:
            run_in(ms.GRAPH_MODE, cell, x2())
        assert "test_graph_mindspore_programs.py" in str(e.value)


# --- JIT Fallback ----------------------------------------------------------------------------

def x3():
    return Tensor(np.array([1.0, -2.0, 3.0], np.float32))


def returns_asnumpy(x):
    return x.asnumpy()


def numpy_and_back(x):
    a = x.asnumpy()
    b = np.sum(a) + 1
    return x + Tensor(b)


def masked(x):
    return x[x > 0]


def numpy_on_a_tensor(x):
    return np.exp(x)


def asnumpy_in_a_condition(x):
    if x.asnumpy().sum() > 1:
        return x * 2
    return x


def scalar_from_a_tensor(x):
    return x.sum().item(), x.tolist()


@pytest.mark.parametrize("fn", [returns_asnumpy, numpy_and_back, masked, numpy_on_a_tensor,
                                asnumpy_in_a_condition, scalar_from_a_tensor],
                         ids=lambda f: f.__name__)
def test_jit_fallback_runs_as_in_pynative(fn):
    # MindSpore 2.10: ndarray [1. -2. 3.]; Tensor [4. 1. 6.]; Tensor [1. 3.]; ndarray exp;
    # Tensor [2. -4. 6.]; (2.0, [1.0, -2.0, 3.0])
    with pytest.warns(GraphModeWarning, match="runs as Python when the graph runs"):
        same_in_both_modes(ms.jit(fn), x3())


def test_jit_fallback_on_values_known_while_compiling_runs_while_compiling():
    @ms.jit
    def f(x):
        a = np.array([1, 2, 3])
        return Tensor(a * 2) + x
    # MindSpore 2.10: [3. 2. 9.]
    assert same_in_both_modes(f, x3()).asnumpy().tolist() == [3.0, 2.0, 9.0]
    text = f.lower(x3()).as_text(locs="none")
    assert "py_call" not in text


def set_literal(x):
    s = {1, 2}
    return x * len(s)


def walrus(x):
    if (n := 2) > 1:
        return x * n
    return x


@pytest.mark.parametrize("fn, words", [(set_literal, "a set literal"),
                                       (walrus, "an assignment expression (:=)")],
                         ids=["set", "walrus"])
def test_set_literals_and_walrus_are_refused_in_graph_mode_as_mindspore(fn, words):
    run_in(ms.PYNATIVE_MODE, ms.jit(fn).__wrapped__, x3())   # Python runs them
    with pytest.raises(GraphSyntaxError) as e:
        run_in(ms.GRAPH_MODE, ms.jit(fn), x3())
    assert words in str(e.value) and "test_graph_mindspore_programs.py" in str(e.value)


# --- a user's primitives ---------------------------------------------------------------------

class MyAdd(PrimitiveWithInfer):
    @prim_attr_register
    def __init__(self, scale=1.0):
        self.init_prim_io_names(inputs=["x", "y"], outputs=["output"])

    def infer_shape(self, x, y):
        return x

    def infer_dtype(self, x, y):
        return x

    def __call__(self, x, y):
        LOG.append("MyAdd")
        return x + y * self.scale


class Times10(ops.Primitive):
    def __init__(self):
        super().__init__("Times10")

    def __call__(self, x):
        return x * 10


LOG: list = []


class UsesPrimitives(nn.Cell):
    def __init__(self):
        super().__init__()
        self.add = MyAdd(2.0)
        self.times = Times10()

    def construct(self, x):
        return self.times(self.add(x, x)).sum()


def mul_add(x, y):
    return x * y + 1


def mul_add_bprop(x, y, out, dout):
    return dout * y, dout * x


CUSTOM = ops.Custom(mul_add, out_shape=lambda x, y: x, out_dtype=lambda x, y: x,
                    func_type="pyfunc", bprop=mul_add_bprop)


def custom_loss(x, y):
    return (CUSTOM(x, y) * 2).sum()


def test_user_primitives_and_custom_ops_in_both_modes():
    # MindSpore 2.10: MyAdd(2.0)(x, x) = [3. 6.]; Times10 of it [30. 60.] (its graph mode
    # refuses Times10); the Custom op's gradient [3. 6.], [1. 2.] (times 2 here)
    net = UsesPrimitives()
    LOG.clear()
    assert same_in_both_modes(net, x2()).asnumpy() == 90.0
    assert LOG == ["MyAdd", "MyAdd"]            # run as Python in both modes
    g = same_in_both_modes(ms.grad(net), x2())
    assert g.asnumpy().tolist() == [30.0, 30.0]
    dx, dy = same_in_both_modes(ms.grad(custom_loss, (0, 1)), x2(), x2() * 3)
    assert dx.asnumpy().tolist() == [6.0, 12.0] and dy.asnumpy().tolist() == [2.0, 4.0]
    assert repr(MyAdd(2.0)) == "Prim[MyAdd]<scale=2.0>" and MyAdd(2.0).attrs == {
        "scale": 2.0, "input_names": ["x", "y"], "output_names": ["output"]}


def test_a_custom_op_other_than_pyfunc_is_refused():
    with pytest.raises(ValueError, match="func_type='aot' compiles a native kernel"):
        ops.Custom("./kernel.so:add", out_shape=[2], out_dtype=ms.float32, func_type="aot")


# --- set_inputs ----------------------------------------------------------------------------------

class Doubles(nn.Cell):
    def construct(self, x):
        return x * 2


def test_set_inputs_declares_dynamic_shapes_each_concrete_shape_compiles_once():
    # MindSpore 2.10: (2, 3) and (5, 3) run; (5, 4) ValueError; (5,) ValueError; Int32
    # TypeError; two inputs TypeError; PyNative ignores the declaration
    net = Doubles()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    for rows in (2, 5, 2):
        out = run_in(ms.GRAPH_MODE, net, Tensor(np.ones((rows, 3), np.float32)))
        assert out.shape == (rows, 3)
    assert ms.graph.cache_info(net).misses == 2
    for bad, error in ((np.ones((5, 4), np.float32), ValueError),
                       (np.ones(5, np.float32), ValueError),
                       (np.ones((5, 3), np.int32), TypeError)):
        with pytest.raises(error, match="does not fit set_inputs"):
            run_in(ms.GRAPH_MODE, net, Tensor(bad))
        run_in(ms.PYNATIVE_MODE, net, Tensor(bad))
    with pytest.raises(TypeError, match="set_inputs declared 1 input"):
        run_in(ms.GRAPH_MODE, net, x2(), x2())
    any_rank = Doubles()
    any_rank.set_inputs(Tensor(shape=None, dtype=ms.float32))
    assert run_in(ms.GRAPH_MODE, any_rank, x3()).shape == (3,)
    assert Tensor(shape=[None, 3], dtype=ms.float32).shape == (-1, 3)

"""GraphResolver: what each kind of Python object means to the frontend."""
import math
import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.graph.resolver import GraphResolver, construct_of, sequential_construct
from graphcell.graph.warn import GraphModeWarning
from graphcell.tensor import Tensor
from graphcell_ir.frontend.resolve import (CellCall, Constant, Host, Inline, Param,
                                           PrimitiveCall, StaticCall, Static, Traced, Unsupported)
from graphcell_ir.ir.types import TensorType, float32
from graphcell_ir.ops import functional as F


def helper(x):
    return x * 2


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc(x * self.w)

    def helper_method(self, x):
        return x


@pytest.fixture
def r():
    return GraphResolver()


@pytest.mark.parametrize("value", [1, 2.5, True, "s", None, ms.float32, (1, 2), [1, 2],
                                   {"a": 1}, slice(1, 2), Ellipsis, np.float32(2), np, math])
def test_statics(r, value):
    rec = r.classify(value)
    assert isinstance(rec, Static) and rec.value is value


def test_parameter_is_one_param_record_per_object(r):
    net = Net()
    a, b = r.classify(net.w), r.classify(net.w)
    assert isinstance(a, Param) and a is b
    assert a.key is net.w and a.name == "w" and a.type == TensorType(float32, (2, 3))
    assert r.params == [net.w]


def test_tensor_is_a_constant(r):
    t = Tensor([1.0, 2.0])
    rec = r.classify(t)
    assert isinstance(rec, Constant) and rec.array.tolist() == [1.0, 2.0]


def test_cell_call_with_hooks(r):
    relu = nn.ReLU()

    def pre(cell, inputs):
        return inputs

    def post(cell, inputs, out):
        return out
    relu.register_forward_pre_hook(pre)
    relu.register_forward_hook(post)
    rec = r.classify(relu)
    assert isinstance(rec, CellCall) and rec.cell is relu
    assert rec.construct.function is nn.ReLU.construct and rec.construct.self_obj is relu
    assert rec.construct.scope == "ReLU.construct"
    assert [h.function for h in rec.forward_pre_hooks] == [pre]
    assert [h.function for h in rec.forward_hooks] == [post]
    assert not rec.has_backward_hooks and r.cells == [relu]


def test_backward_hooks_become_boundary_hooks_without_a_warning(r):
    relu = nn.ReLU()
    relu.register_backward_hook(lambda cell, gi, go: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rec = r.classify(relu)
    assert not caught and not rec.has_backward_hooks
    assert [h.scope for h in rec.forward_pre_hooks] == ["ReLU.backward_hooks"]  # input boundary
    assert [h.scope for h in rec.forward_hooks] == ["ReLU.backward_hooks"]      # output boundary
    assert r.classify(nn.ReLU()).forward_hooks == ()                           # no hooks: none


def test_hook_backward_is_traced_without_a_warning(r):
    hook = ops.HookBackward(lambda g: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rec = r.classify(hook)
    assert isinstance(rec, Traced) and rec.function is hook and not caught


def test_containers(r):
    cells = nn.CellList([nn.ReLU()])
    assert isinstance(r.classify(cells), Static)
    seq = nn.SequentialCell([nn.ReLU(), nn.Tanh()])
    rec = r.classify(seq)
    assert isinstance(rec, CellCall) and rec.construct.function is sequential_construct


def test_jit_construct_is_unwrapped():
    class Staged(nn.Cell):
        @ms.jit
        def construct(self, x):
            return x
    cell = Staged()
    assert construct_of(cell) is Staged.__dict__["construct"].__graphcell_jit__
    rec = GraphResolver().classify(cell)
    assert rec.construct.function.__name__ == "construct" and not hasattr(
        rec.construct.function, "__graphcell_jit__")


def test_primitives(r):
    rec = r.classify(ops.ReduceSum(keep_dims=True))
    assert isinstance(rec, PrimitiveCall) and rec.opdef.name == "reduce_sum"
    assert rec.attrs == {"keep_dims": True}
    assert isinstance(r.classify(F.mul), PrimitiveCall)
    for fn in (ops.add, ops.gt):  # MindSpore's signatures (input, other): traced functions
        assert isinstance(r.classify(fn), Traced)
    concat = r.classify(ops.Concat(axis=0))
    assert isinstance(concat, Traced)


def test_library_functions_are_traced(r):
    for fn in (ops.sum, ops.fill, ops.mean, F.sum_to):
        assert isinstance(r.classify(fn), Traced), fn
    from graphcell.nn.layers.dense import _check_input
    assert isinstance(r.classify(_check_input), Traced)


def test_static_calls(r):
    for obj in (Tensor, ops.Add, np.sqrt, np.ones, math.sqrt, len, range, int, tuple,
                ms.common.initializer.initializer, ms.dtype.dtype_to_nptype):
        assert isinstance(r.classify(obj), StaticCall), obj


def test_user_functions_and_methods_inline(r):
    rec = r.classify(helper)
    assert isinstance(rec, Inline) and rec.function is helper and rec.self_obj is None
    net = Net()
    rec = r.classify(net.helper_method)
    assert isinstance(rec, Inline) and rec.function is Net.helper_method and rec.self_obj is net
    assert rec.scope == "Net.helper_method"

    @ms.jit
    def jitted(x):
        return x
    rec = r.classify(jitted)
    assert isinstance(rec, Inline) and rec.function is jitted.__graphcell_jit__


def test_callable_objects_inline_their_call(r):
    class Scale:
        def __call__(self, x):
            return x * 3
    s = Scale()
    rec = r.classify(s)
    assert isinstance(rec, Inline) and rec.function is Scale.__call__ and rec.self_obj is s


@pytest.mark.parametrize("obj, words", [
    (print, "print"),
    (ms.Parameter, "__init__"),
    (nn.Cell.register_forward_hook.__get__(nn.ReLU()), "register_forward_hook() in construct"),
])
def test_unsupported_with_reasons(r, obj, words):
    rec = r.classify(obj)
    assert isinstance(rec, Unsupported) and words in rec.reason


def test_cells_made_in_compiled_code_are_made_while_compiling(r):
    assert isinstance(r.classify(nn.Dense), StaticCall)   # as MindSpore 2.10


def test_gradient_apis_are_transforms_and_gradient_calls(r):
    from graphcell_ir.frontend.resolve import GradCall, GradTransform
    assert isinstance(r.classify(ms.grad), GradTransform)
    assert isinstance(r.classify(ms.value_and_grad), GradTransform)
    assert isinstance(r.classify(ops.GradOperation(get_all=True)), GradTransform)
    assert isinstance(r.classify(ops.GradOperation), StaticCall)
    net = nn.Dense(2, 1)
    rec = r.classify(ms.value_and_grad(net, None, net.trainable_params(), has_aux=False))
    assert isinstance(rec, GradCall) and rec.fn is net and rec.positions == ()
    assert rec.weights == tuple(net.trainable_params()) and not rec.sens_param


def test_tensor_methods(r):
    assert isinstance(r.tensor_method("sum"), Traced)
    assert isinstance(r.tensor_method("astype"), Traced)
    assert r.tensor_method("no_such_method") is None
    assert r.tensor_method("_reduce") is None
    assert isinstance(r.tensor_method("asnumpy"), Host)            # JIT Fallback
    assert isinstance(r.tensor_method("__bool__"), Unsupported)
    prop = r.tensor_method("T")
    assert isinstance(prop, Traced) and prop.is_property
    assert r.is_tensor_class(Tensor) and r.is_tensor_class(object)
    assert not r.is_tensor_class(ms.Parameter) and not r.is_tensor_class(int)


def test_library_code_is_marked():
    rec = GraphResolver().classify(nn.ReLU())
    assert rec.construct.library
    class Mine(nn.Cell):
        def construct(self, x):
            return x
    assert not GraphResolver().classify(Mine()).construct.library

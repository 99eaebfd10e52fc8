"""Gradients inside compiled code and custom ``bprop`` at the frontend (grads.py, bprop.py).

A ``GradCall`` compiles the differentiated call into a Function of its own, adds its gradient
Function (IR autodiff) and calls it; a cell with a ``bprop`` under a gradient becomes two
Functions linked by the ``bprop`` attribute. Checked on the plain-Python fakes (no graphcell),
against the reference interpreter and hand-computed gradients.
"""
from __future__ import annotations

import numpy as np
import pytest
from frontend_fakes import Cell, FakeResolver, Parameter, ops

from graphcell_ir.backend.interp import interpret
from graphcell_ir.errors import GraphSyntaxError, GraphTypeError, GraphValueError
from graphcell_ir.frontend import compile_function
from graphcell_ir.frontend import resolve as R
from graphcell_ir.ir import TensorType, float32, walk
from graphcell_ir.passes.inline import inline
from graphcell_ir.text import print_function, print_module

F32_3 = TensorType(float32, (3,))
X = np.array([1.0, -2.0, 0.5], np.float32)
Y = np.array([3.0, 0.25, -1.0], np.float32)


class GradOf:
    """A stand-in for graphcell's gradient functions: the resolver says ``GradCall``."""

    def __init__(self, fn, positions=(0,), weights=(), sens_param=False, has_aux=False,
                 pack=lambda value, pos, ws: (value, pos, ws)):
        self.record = R.GradCall(fn, positions, tuple(weights), sens_param, has_aux, pack,
                                 f"grad of {getattr(fn, '__name__', type(fn).__name__)}")


class HashableParameter(Parameter):
    """A fake Parameter usable as a dict key (``{self.w: dw}``), as graphcell's are."""

    __hash__ = object.__hash__


def make_grad(fn, weights=()):
    """A gradient transform (``GradTransform``): ``make_grad(fn, weights)`` runs while compiling."""
    return GradOf(fn, positions=(), weights=weights, pack=lambda value, pos, ws: ws)


class GradResolver(FakeResolver):
    """The fakes' resolver, plus gradient functions and cells with a ``bprop``."""

    def classify(self, obj):
        if isinstance(obj, GradOf):
            return obj.record
        if obj is make_grad:
            return R.GradTransform(make_grad)
        rec = super().classify(obj)
        bprop = getattr(type(obj), "bprop", None)
        if isinstance(rec, R.CellCall) and bprop is not None:
            return R.CellCall(rec.cell, rec.construct, rec.forward_pre_hooks, rec.forward_hooks,
                              rec.has_backward_hooks,
                              R.Inline(bprop, obj, f"{type(obj).__name__}.bprop"),
                              tuple(getattr(obj, "internal_params", ())))
        return rec


def compile_(fn, specs, self_obj=None):
    return compile_function(fn, self_obj, specs, GradResolver(self_obj))


def square_sum(x):
    return (x * x).sum()


# --- GradCall -------------------------------------------------------------------------------------

def test_a_gradient_call_is_a_call_of_the_callee_s_gradient_function():
    g = GradOf(square_sum)

    def f(x):
        value, (dx,), _ = g(x)
        return dx * 2.0, value
    out = compile_(f, [F32_3])
    assert [fn.name for fn in out.module] == ["f", "square_sum.grad"]   # the callee is pruned
    call = next(op for op in walk(out.function) if op.opdef.name == "call")
    assert call.attrs["callee"] == "square_sum.grad"
    dx2, value = interpret(out.function, X)
    np.testing.assert_allclose(dx2, 4 * X)
    np.testing.assert_allclose(value, (X * X).sum())


def test_gradient_of_positions_and_of_parameters():
    class Scale(Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(np.array([2.0, -1.0, 0.5], np.float32), "w")

        def construct(self, x, y):
            return (self.w * x * y).sum()
    net = Scale()
    g = GradOf(net, positions=(0, 1), weights=[net.w])

    def f(x, y):
        _, (dx, dy), (dw,) = g(x, y)
        return dx, dy, dw
    out = compile_(f, [F32_3, F32_3])
    assert [a.name_hint for a in out.function.args] == ["x", "y", "w"]
    dx, dy, dw = interpret(out.function, X, Y, net.w)
    np.testing.assert_allclose(dx, net.w * Y)
    np.testing.assert_allclose(dy, net.w * X)
    np.testing.assert_allclose(dw, X * Y)


def test_one_tensor_passed_twice_gets_each_argument_its_own_gradient():
    g = GradOf(lambda a, b: (a * b * b).sum(), positions=(0, 1))

    def f(x):
        return g(x, x)[1]
    out = compile_(f, [F32_3])
    dx1, dx2 = interpret(out.function, X)
    np.testing.assert_allclose(dx1, X * X)          # d/da of a*b*b at a = b = x
    np.testing.assert_allclose(dx2, 2 * X * X)      # d/db


def test_parameters_the_callee_writes_are_written_back_after_the_call():
    class Counter(Cell):
        def __init__(self):
            super().__init__()
            self.count = Parameter(np.zeros(3, np.float32), "count")

        def construct(self, x):
            ops.assign(self.count, self.count + x)
            return (x * self.count).sum()
    net = Counter()
    g = GradOf(net)

    def f(x):
        return g(x)[1][0]
    out = compile_(f, [F32_3])
    assert out.mutated_keys == (net.count,)
    dx, new_count = interpret(out.function, X, np.ones(3, np.float32))
    np.testing.assert_allclose(new_count, 1 + X)
    np.testing.assert_allclose(dx, (1 + X) + X)     # d/dx of x * (count + x)


def test_gradient_of_a_gradient():
    inner = GradOf(lambda v: (v * v * v).sum(), pack=lambda value, pos, ws: pos[0])
    outer = GradOf(lambda v: inner(v).sum(), pack=lambda value, pos, ws: pos[0])

    def f(x):
        return outer(x)
    out = compile_(f, [F32_3])
    np.testing.assert_allclose(interpret(out.function, X), 6 * X)


def test_sens_and_has_aux():
    g = GradOf(lambda a: (a * 2.0, a + 1.0), sens_param=True, has_aux=True)

    def f(x, s):
        (value, aux), (dx,), _ = g(x, s)
        return value, aux, dx
    out = compile_(f, [F32_3, F32_3])
    value, aux, dx = interpret(out.function, X, Y)
    np.testing.assert_allclose(dx, 2 * Y)
    np.testing.assert_allclose(aux, X + 1)


def test_a_sens_of_the_wrong_shape_is_an_error_at_the_call():
    g = GradOf(lambda a: a * 2.0, sens_param=True)

    def f(x, s):
        return g(x, s)
    with pytest.raises(GraphValueError, match=r"sens must match the output.*\[3\]") as info:
        compile_(f, [F32_3, TensorType(float32, (2,))])
    assert "return g(x, s)" in str(info.value)


@pytest.mark.parametrize("fn, positions, words", [
    (lambda a: a.sum(), (1,), "grad_position 1 is out of range"),
    (lambda a, n: a.sum(), (1,), "argument 1 must be a Tensor"),
])
def test_bad_gradient_requests_are_errors_at_the_call(fn, positions, words):
    g = GradOf(fn, positions=positions)

    def f(x):
        return g(x, 2) if fn.__code__.co_argcount == 2 else g(x)
    with pytest.raises((GraphTypeError, GraphValueError), match=words):
        compile_(f, [F32_3])


def test_a_gradient_transform_gets_parameters_as_parameter_objects():
    class Net(Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(np.array([1.0, 2.0, 3.0], np.float32), "w")

        def construct(self, x):
            return (x * self.w).sum()
    net = Net()

    def f(self, x):
        y = self.w * 1.0                        # the Parameter is now also an IR value
        (dw,) = make_grad(self, (self.w,))(x)
        return dw + y
    out = compile_(f, [F32_3], self_obj=net)
    np.testing.assert_allclose(interpret(out.function, X, net.w), X + net.w)


def test_a_gradient_transform_refuses_computed_tensors():
    def f(x):
        return make_grad(square_sum, (x * 2.0,))(x)
    with pytest.raises(GraphSyntaxError, match="gradient transform"):
        compile_(f, [F32_3])


def grad_of_first(fn):
    """A gradient transform differentiating argument 0 of ``fn`` (a closure of the code, too)."""
    return GradOf(fn, pack=lambda value, pos, ws: pos[0])


def test_a_tensor_of_the_enclosing_function_becomes_an_argument_of_the_callee():
    class Resolver(GradResolver):
        def classify(self, obj):
            return R.GradTransform(obj) if obj is grad_of_first else super().classify(obj)

    def f(x, y):
        box = []
        h = lambda v: (v * box[0]).sum()        # noqa: E731 - a closure reading a list
        box.append(y * 2.0)
        return grad_of_first(h)(x)
    out = compile_function(f, None, [F32_3, F32_3], Resolver())
    grad = out.module["_lambda_.grad"]
    assert len(grad.args) == 2 and not grad.args[1].param      # x, and the captured y * 2
    np.testing.assert_allclose(interpret(out.function, X, Y), 2 * Y)


def test_backward_ops_point_at_the_user_s_line_with_a_grad_mark():
    g = GradOf(square_sum, pack=lambda value, pos, ws: pos[0])

    def f(x):
        return g(x)
    out = compile_(f, [F32_3])
    inline(out.module)
    text = print_function(out.function, locs="user")
    assert "test_frontend_bprop.py" in text and "f>square_sum [grad])" in text


# --- custom bprop ---------------------------------------------------------------------------------

class MulAdd(Cell):
    """The seed's ``Net``: construct ``x * y * y``, bprop ``(x + y, x * y)``."""

    def construct(self, x, y):
        z = x * y
        return z * y

    def bprop(self, x, y, out, dout):
        return x + y, x * y


class Dropish(Cell):
    """Tuple out and dout, as Dropout2d: ``(x * mask, mask)``."""

    def __init__(self):
        super().__init__()
        self.mask = np.array([1.0, 0.0, 1.0], np.float32)

    def construct(self, x):
        return x * self.mask, x * 0.0 + self.mask

    def bprop(self, x, out, dout):
        _, mask = out
        dy, _ = dout
        return (dy * mask * 10.0,)


def test_a_differentiated_cell_with_bprop_becomes_two_linked_functions():
    net = MulAdd()
    g = GradOf(net, positions=(0, 1))

    def f(x, y):
        return g(x, y)[1]
    out = compile_(f, [F32_3, F32_3])
    m = out.module
    assert m["MulAdd.construct"].attrs["bprop"] == "MulAdd.bprop"
    bprop = m["MulAdd.bprop"]
    assert [a.name_hint for a in bprop.args] == ["x", "y", "out", "dout"]
    dx, dy = interpret(out.function, X, Y)
    np.testing.assert_allclose(dx, X + Y)
    np.testing.assert_allclose(dy, X * Y)
    assert 'func @MulAdd.bprop(%x: f32[3], %y: f32[3], %out: f32[3], %dout: f32[3])' in \
        print_module(m, locs="none")


def test_outside_a_gradient_the_cell_is_inlined_and_its_bprop_not_compiled():
    class Broken(MulAdd):
        def bprop(self, x, y, out, dout):
            return undefined_name  # noqa: F821 - never compiled
    out = compile_(lambda x, y: Broken()(x, y), [F32_3, F32_3])
    assert len(out.module) == 1


def test_tuple_out_and_dout():
    g = GradOf(Dropish(), sens_param=True, pack=lambda value, pos, ws: pos[0])

    def f(x, s):
        return g(x, (s, s))
    out = compile_(f, [F32_3, F32_3])
    np.testing.assert_allclose(interpret(out.function, X, Y), Y * [10.0, 0.0, 10.0])


def test_bprop_reading_a_parameter_construct_does_not_read():
    class Scaled(Cell):
        def __init__(self):
            super().__init__()
            self.k = Parameter(np.array([5.0, 5.0, 5.0], np.float32), "k")

        def construct(self, x):
            return x * 2.0

        def bprop(self, x, out, dout):
            return (dout * self.k,)
    net = Scaled()
    g = GradOf(net, pack=lambda value, pos, ws: pos[0])
    out = compile_(lambda x: g(x).sum(), [F32_3])
    bprop = out.module["Scaled.bprop"]
    assert [a.name_hint for a in bprop.args] == ["x", "k", "out", "dout"]
    assert [a.name_hint for a in out.module["Scaled.construct"].args] == ["x", "k"]
    np.testing.assert_allclose(interpret(out.function, X, net.k), 15.0)


def test_internal_params_dict_form_gives_parameter_gradients():
    class WithParam(Cell):
        def __init__(self):
            super().__init__()
            self.w = HashableParameter(np.array([2.0, 2.0, 2.0], np.float32), "w")
            self.internal_params = [self.w]

        def construct(self, x):
            return self.w * x

        def bprop(self, *args):
            return (self.w * args[-1],), {self.w: args[0] * args[-1]}
    net = WithParam()
    g = GradOf(lambda v: net(v).sum(), weights=[net.w], pack=lambda value, pos, ws: (pos, ws))
    out = compile_(lambda x: g(x), [F32_3])
    dx, dw = interpret(out.function, X, net.w)
    np.testing.assert_allclose(dx, net.w)
    np.testing.assert_allclose(dw, X)


class TwoGrads(Cell):
    def construct(self, x):
        return x * 2.0

    def bprop(self, x, out, dout):
        return (dout, dout)


class Summed(TwoGrads):
    def bprop(self, x, out, dout):
        return (dout.sum(),)


class NotATensor(TwoGrads):
    def bprop(self, x, out, dout):
        return (3,)


@pytest.mark.parametrize("cls, error, words", [
    (TwoGrads, GraphValueError,
     r"TwoGrads\.bprop returned 2 gradient\(s\), expected 1 \(one per input of TwoGrads"),
    (Summed, GraphValueError,
     r"Summed\.bprop: gradient 0 has shape \[\], expected \[3\]"),
    (NotATensor, GraphTypeError, r"NotATensor\.bprop: gradient 0 must be a Tensor"),
])
def test_a_wrong_bprop_is_an_error_naming_the_cell_at_its_def_line(cls, error, words):
    g = GradOf(cls())
    with pytest.raises(error, match=words) as info:
        compile_(lambda x: g(x), [F32_3])
    assert "def bprop(self, x, out, dout)" in str(info.value)

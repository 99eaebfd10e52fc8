"""PyNative gradients of functions: grad, value_and_grad, GradOperation, second order, tape hygiene."""
import gc

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from graphcell import dtype as mstype
from graphcell.runtime import dispatch


def test_grad_operation_on_int32_mul_returns_int32_grads():
    # debugging_in_pynative_mode.md, "Debugging Network Train Model"
    def mul(x, y):
        return x * y
    out = ops.GradOperation(get_all=True)(mul)(Tensor(1, mstype.int32), Tensor(2, mstype.int32))
    assert repr(out) == ("(Tensor(shape=[], dtype=Int32, value= 2), "
                         "Tensor(shape=[], dtype=Int32, value= 1))")


def test_grad_positions_and_return_structure():
    f = lambda x, y: (x * y).sum()  # noqa: E731
    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    gx = ms.grad(f)(x, y)
    assert isinstance(gx, Tensor) and gx.asnumpy().tolist() == [3.0, 4.0]
    gx, gy = ms.grad(f, grad_position=(0, 1))(x, y)
    assert gy.asnumpy().tolist() == [1.0, 2.0]
    assert isinstance(ms.grad(f, grad_position=(1,))(x, y), Tensor)  # DESIGN §10.6: bare Tensor


def test_gradient_of_unused_input_is_zeros_of_its_shape():
    g = ms.grad(lambda x, y: x.sum(), grad_position=(0, 1))(Tensor([1.0]), Tensor([5.0, 6.0]))
    assert g[1].asnumpy().tolist() == [0.0, 0.0] and g[1].dtype == ms.float32


def test_broadcasting_gradients_reduce_to_input_shape():
    g = ms.grad(lambda x, b: (x * b).sum(), grad_position=1)(
        Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)), Tensor([1.0, 2.0]))
    assert g.shape == (2,) and g.asnumpy().tolist() == [6.0, 9.0]


def test_has_aux_structures_follow_mindspore():
    f = lambda x: ((x * 2).sum(), x + 1)  # noqa: E731
    grads, aux = ms.grad(f, has_aux=True)(Tensor([1.0, 2.0]))
    assert grads.asnumpy().tolist() == [2.0, 2.0] and aux[0].asnumpy().tolist() == [2.0, 3.0]
    (value, aux2), grads = ms.value_and_grad(f, has_aux=True)(Tensor([1.0, 2.0]))
    assert float(value) == 6.0 and aux2.asnumpy().tolist() == [2.0, 3.0]


def test_one_tensor_passed_twice_is_not_double_counted():
    t = Tensor([3.0])
    ga, gb = ms.grad(lambda a, b: a * b, grad_position=(0, 1))(t, t)
    assert ga.asnumpy().tolist() == [3.0] and gb.asnumpy().tolist() == [3.0]


def test_second_order():
    cube = lambda x: (x * x * x).sum()  # noqa: E731
    assert ms.grad(ms.grad(cube))(Tensor([1.0, 2.0])).asnumpy().tolist() == [6.0, 12.0]
    third = ms.grad(lambda x: ms.grad(lambda y: ms.grad(cube)(y).sum())(x).sum())(Tensor([1.0, 2.0]))
    assert third.asnumpy().tolist() == [6.0, 6.0]


def test_sens_param():
    f = lambda x: x * 3  # noqa: E731
    g = ops.GradOperation(sens_param=True)(f)(Tensor([1.0, 2.0]), Tensor([1.0, 10.0]))
    assert g.asnumpy().tolist() == [3.0, 30.0]
    with pytest.raises(ValueError, match="sens must match the output"):
        ops.GradOperation(sens_param=True)(f)(Tensor([1.0, 2.0]), Tensor([1.0]))


def test_gradient_through_indexing_and_mask():
    g = ms.grad(lambda x: x[x > 0].sum() + x[0] * 3)(Tensor([1.0, -2.0, 3.0]))
    assert g.asnumpy().tolist() == [4.0, 0.0, 1.0]


def test_outputs_in_dicts_and_lists_are_summed_and_non_tensors_give_zeros():
    """As MindSpore 2.10: the tensors of a returned dict/list are differentiated (their sum);
    a Python number or string gives zero gradients."""
    x = Tensor([1.0, 2.0])
    assert ms.grad(lambda v: {"a": v * 2, "b": v * 3})(x).asnumpy().tolist() == [5.0, 5.0]
    assert ms.grad(lambda v: [v * 2, (v * 3, "s")])(x).asnumpy().tolist() == [5.0, 5.0]
    assert ms.grad(lambda v: 3)(x).asnumpy().tolist() == [0.0, 0.0]
    assert ms.grad(lambda v: "abc")(x).asnumpy().tolist() == [0.0, 0.0]


def test_recording_is_off_outside_grad_and_tape_is_released():
    assert dispatch.recorder is None
    x = Tensor([1.0, 2.0])
    ms.grad(lambda v: (v * v).sum())(x)
    assert dispatch.recorder is None and x._node is None
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(50):
        ms.grad(lambda v: (v * v).exp().sum())(x)
    gc.collect()
    assert len(gc.get_objects()) - before < 50


def test_error_inside_function_restores_state():
    def boom(x):
        _ = x * 2
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        ms.grad(boom)(Tensor([1.0]))
    assert dispatch.recorder is None


@pytest.mark.both_modes
def test_hook_backward_sees_and_replaces_gradient(capsys):
    # hook_programming.md, "HookBackward Operator"
    def hook_fn(grad_out):
        print("hook_fn print grad_out:", grad_out)
    hook = ops.HookBackward(hook_fn)

    def hook_test(x, y):
        z = x * y
        z = hook(z)
        z = z * y
        return z
    output = ms.grad(hook_test, grad_position=(0, 1))(Tensor(1, ms.float32), Tensor(2, ms.float32))
    print("output:", output)
    assert capsys.readouterr().out == (
        "hook_fn print grad_out: (Tensor(shape=[], dtype=Float32, value= 2),)\n"
        "output: (Tensor(shape=[], dtype=Float32, value= 4), Tensor(shape=[], dtype=Float32, value= 4))\n")
    doubling = ops.HookBackward(lambda g: (g[0] * 2,))
    g = ms.grad(lambda x: doubling(x * 3).sum())(Tensor([1.0]))
    assert g.asnumpy().tolist() == [6.0]


@pytest.mark.both_modes
def test_hook_backward_wrong_arity_is_an_error():
    bad = ops.HookBackward(lambda g: (g[0], g[0]))
    with pytest.raises(ValueError, match="HookBackward hook .* returned 2 gradient"):
        ms.grad(lambda x: bad(x).sum())(Tensor([1.0]))


def test_gradient_through_in_place_setitem():
    def f(x, y):
        z = x * 1
        z[0] = y * 3           # z[0] no longer depends on x
        return (z * z).sum()
    gx, gy = ms.grad(f, grad_position=(0, 1))(Tensor([1.0, 2.0]), Tensor(5.0))
    assert gx.asnumpy().tolist() == [0.0, 4.0] and float(gy) == 90.0


def test_in_place_write_to_a_differentiated_input():
    def g(x):
        x[1] = 0.0
        return (x * 2).sum()
    assert ms.grad(g)(Tensor([1.0, 2.0])).asnumpy().tolist() == [2.0, 0.0]


def test_rules_skip_gradients_nobody_needs():
    # conv2d and matmul declare `needs`: the input's gradient is not computed when the input is
    # not being differentiated (the tape tells the rule), and the result is unchanged.
    from graphcell_ir.ops import REGISTRY
    from graphcell.runtime import dispatch
    assert REGISTRY["conv2d"].bprop_takes_needs and REGISTRY["matmul"].bprop_takes_needs
    seen = []
    recorder_run = dispatch.run

    def spy(op, args, attrs):
        seen.append(op.name)
        return recorder_run(op, args, attrs)
    x = Tensor(np.ones((2, 3), np.float32))
    w = ms.Parameter(Tensor(np.ones((3, 4), np.float32)), name="w")
    dispatch.run = spy
    try:
        gw = ms.grad(lambda x: ops.matmul(x, w).sum(), grad_position=None, weights=[w])(x)
    finally:
        dispatch.run = recorder_run
    assert seen.count("matmul") == 2        # forward, and only the weight's gradient
    assert gw[0].asnumpy().tolist() == [[2.0] * 4] * 3


def _setitem_from_itself(key, value_of):
    def f(a):
        b = a * 1.0
        b[key] = value_of(b)
        return (b * 2).sum()
    return f


@pytest.mark.parametrize("key, value_of, want", [
    (Ellipsis, lambda b: ms.ops.relu(b), [0.0, 2.0]),
    (slice(None), lambda b: b * 3, [6.0, 6.0]),
    (0, lambda b: b[1] * 3, [0.0, 8.0]),
])
def test_an_in_place_write_of_a_value_computed_from_the_tensor_itself(key, value_of, want):
    # MindSpore 2.10 gives these gradients; the value was computed from b before the write
    # gave b its new tape node, and its gradient goes to the old one
    x = Tensor(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_allclose(ms.grad(_setitem_from_itself(key, value_of))(x).asnumpy(), want)

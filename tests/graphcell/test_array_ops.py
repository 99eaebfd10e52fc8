"""The array family where no golden can be recorded from MindSpore 2.10: names its CPU build
refuses (``roll``, ``Tensor.repeat``, ``BatchToSpace``, the in-place methods...), calls where its
result or gradient is wrong (checked against numpy and finite differences instead), graph mode
with constant tensor arguments, in-place semantics and the Tensor plumbing that returns Python or
numpy values. Goldens for everything else: ``api/cases/array.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.testing import check_grads
from graphcell_ir.errors import GraphcellError

RNG = np.random.default_rng(0)


def _x(*shape, dtype=np.float32):
    return RNG.uniform(-2, 2, size=shape).astype(dtype)


def _both(fn, *args):
    """``fn(*args)`` in PyNative and compiled, as numpy values (or tuples of them)."""
    def val(out):
        return tuple(val(o) for o in out) if isinstance(out, tuple) else out.asnumpy()
    return val(fn(*args)), val(ms.jit(fn)(*args))


def _check_both(fn, *args):
    check_grads(fn, args)
    check_grads(ms.jit(fn), args)


# --- names MindSpore 2.10's CPU build refuses ----------------------------------------------------

@pytest.mark.parametrize("shifts, dims", [(1, None), (-4, None), (1, 1), ((1, -1), (0, 1)),
                                          ((2, 5), (0, 0)), (0, 1)])
def test_roll_is_numpys_roll(shifts, dims):
    a = _x(2, 3)
    results = _both(lambda x: ops.roll(x, shifts, dims), Tensor(a))
    for got in results:
        np.testing.assert_array_equal(got, np.roll(a, shifts, dims))
    np.testing.assert_array_equal(Tensor(a).roll(shifts, dims).asnumpy(), np.roll(a, shifts, dims))
    np.testing.assert_array_equal(ops.Roll(shifts, dims)(Tensor(a)).asnumpy(),
                                  np.roll(a, shifts, dims))


def test_roll_gradient_and_errors():
    _check_both(lambda x: ops.roll(x, (1, 2), (0, 1)), Tensor(_x(3, 4).astype(np.float64)))
    with pytest.raises(ValueError, match="same length"):
        ops.roll(Tensor(_x(2, 3)), (1, 2), 0)
    with pytest.raises(ValueError, match="one int"):
        ops.roll(Tensor(_x(2, 3)), (1, 2))


@pytest.mark.parametrize("repeats", [(2, 1), (2, 1, 3), ((1, 2),), ([2, 2, 1],)])
def test_tensor_repeat_is_pytorchs_repeat(repeats):
    a = _x(2, 3)
    counts = repeats[0] if len(repeats) == 1 else repeats
    want = np.tile(a, counts)
    results = _both(lambda x: x.repeat(*repeats), Tensor(a))
    for got in results:
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="at least one per dim"):
        Tensor(a).repeat(2)


def test_batch_to_space_and_space_to_batch_are_their_nd_forms_on_h_and_w():
    x = Tensor(_x(8, 2, 2, 3))
    crops = ((0, 1), (1, 0))
    np.testing.assert_array_equal(
        ops.BatchToSpace(2, crops)(x).asnumpy(),
        ops.BatchToSpaceND((2, 2), crops)(x).asnumpy())
    y = Tensor(_x(1, 2, 3, 3))
    pads = ((0, 1), (1, 0))
    np.testing.assert_array_equal(ops.SpaceToBatch(2, pads)(y).asnumpy(),
                                  ops.SpaceToBatchND((2, 2), pads)(y).asnumpy())
    # space -> batch -> space is the identity (padding cropped again)
    back = ops.BatchToSpace(2, pads)(ops.SpaceToBatch(2, pads)(y))
    np.testing.assert_array_equal(back.asnumpy(), y.asnumpy())
    np.testing.assert_array_equal(
        ops.BatchToSpaceNDV2()(x, Tensor([2, 2]), Tensor([[0, 1], [1, 0]])).asnumpy(),
        ops.BatchToSpaceND((2, 2), crops)(x).asnumpy())
    _check_both(lambda t: ops.SpaceToBatch(2, pads)(t), Tensor(_x(1, 2, 3, 3).astype(np.float64)))


def test_split_v_fills_in_the_minus_one():
    x = Tensor(_x(2, 6))
    parts = ops.SplitV((1, 2, -1), 1, 3)(x)
    assert [p.shape for p in parts] == [(2, 1), (2, 2), (2, 3)]
    np.testing.assert_array_equal(np.concatenate([p.asnumpy() for p in parts], 1), x.asnumpy())
    with pytest.raises(ValueError, match="num_split"):
        ops.SplitV((1, 2, -1), 1, 2)(x)


def test_creation_names_the_cpu_build_refuses():
    x = Tensor(_x(2, 3))
    assert ops.fills(x, 2.5).asnumpy().tolist() == [[2.5] * 3] * 2
    assert ops.Fills()(x, 1).dtype == ms.float32
    assert x.fills(3).asnumpy().tolist() == [[3.0] * 3] * 2
    full = Tensor([1, 2]).new_full((2, 2), 3.5)
    assert full.dtype == ms.int64 and full.asnumpy().tolist() == [[3, 3], [3, 3]]
    assert Tensor([1.0]).new_full((1,), 3, dtype=ms.int32).dtype == ms.int32
    assert ops.type_as(Tensor([1.5]), Tensor([1])).dtype == ms.int64


def test_move_to_keeps_the_tensor_on_the_cpu():
    x = Tensor([1.0, 2.0])
    assert ops.move_to(x).asnumpy().tolist() == [1.0, 2.0]
    assert ops.MoveTo()((1, 2), "CPU").dtype == ms.int64
    with pytest.raises(RuntimeError, match="CPU"):
        ops.move_to(x, "Ascend")
    with pytest.raises(ValueError, match="'to'"):
        x.move_to("TPU")


# --- in-place methods -----------------------------------------------------------------------------

def test_in_place_methods_update_the_tensor_and_return_it():
    x = Tensor([1.0, 2.0])
    assert x.copy_(Tensor([3, 4])) is x and x.dtype == ms.float32
    assert x.asnumpy().tolist() == [3.0, 4.0]
    assert x.zero_() is x and x.asnumpy().tolist() == [0.0, 0.0]
    assert ops.zero_(Tensor([5])).asnumpy().tolist() == [0]
    assert x.fill_(7) is x and x.asnumpy().tolist() == [7.0, 7.0]
    assert x.mul_(2) is x and x.asnumpy().tolist() == [14.0, 14.0]
    assert x.sub_(Tensor([1.0, 2.0]), alpha=2).asnumpy().tolist() == [12.0, 10.0]
    assert x.div_(4, rounding_mode="trunc").asnumpy().tolist() == [3.0, 2.0]
    assert Tensor([-7.0]).div_(2, rounding_mode="trunc").asnumpy().tolist() == [-3.0]
    y = Tensor(np.zeros((3, 3), np.float32))
    assert y.fill_diagonal_(2.0) is y and np.diag(y.asnumpy()).tolist() == [2.0] * 3
    z = Tensor([1.5, 2.5])
    assert z.set_dtype(ms.int32) == ms.int32 and z.dtype == ms.int32
    assert z.assign_value(Tensor([[1.0]])) is z and z.shape == (1, 1)


def test_in_place_updates_keep_the_gradient_path():
    def f(x):
        y = x * 1.0
        y.mul_(3.0)
        z = x * 1.0
        z.copy_(y)
        return z + x
    check_grads(f, (Tensor(_x(3).astype(np.float64)),))
    g = ms.grad(f)(Tensor([1.0, 2.0]))
    assert g.asnumpy().tolist() == [4.0, 4.0]


def test_in_place_methods_in_graph_mode_return_the_new_value():
    @ms.jit
    def f(x):
        return x.zero_(), x.fill_(2.0), x.copy_(Tensor([5.0, 6.0]))
    x = Tensor([1.0, 2.0])
    zero, two, copied = f(x)
    assert zero.asnumpy().tolist() == [0.0, 0.0] and two.asnumpy().tolist() == [2.0, 2.0]
    assert copied.asnumpy().tolist() == [5.0, 6.0]


def test_clone_is_a_differentiable_copy():
    a = _x(2, 2)
    x = Tensor(a)
    c = x.clone()
    assert c is not x and not np.shares_memory(c.asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(c.asnumpy(), a)
    _check_both(lambda t: t.clone() * t.copy(), Tensor(a.astype(np.float64)))


# --- where MindSpore 2.10's answer is wrong -----------------------------------------------------

@pytest.mark.parametrize("begin, end, strides, masks, key", [
    ((1, 0, 0), (2, 1, 3), (1, 1, 1), dict(new_axis_mask=2), (slice(1, 2), None, slice(0, 3))),
    ((0, 1), (2, 3), (1, 1), dict(ellipsis_mask=1), (Ellipsis, slice(1, 3))),
    ((0, 1, 0), (2, 3, 4), (1, 1, 2), dict(begin_mask=3), (slice(None), slice(None, 3),
                                                           slice(0, 4, 2))),
    ((1, 0, 0), (2, 1, 3), (1, 1, 1), dict(shrink_axis_mask=5), (1, slice(0, 1), 0)),
    ((0, 2, 3), (2, 0, 0), (1, -1, -2), {}, (slice(0, 2), slice(2, 0, -1), slice(3, 0, -2))),
])
def test_strided_slice_is_numpys_slicing(begin, end, strides, masks, key):
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    def fn(x):
        return ops.strided_slice(x, begin, end, strides, **masks)
    for got in _both(fn, Tensor(a)):
        np.testing.assert_array_equal(got, a[key])
    _check_both(fn, Tensor(a))


def test_slice_to_the_end_differentiates():
    _check_both(lambda x: ops.slice(x, (0, 1, 1), (2, 2, -1)),
                Tensor(_x(2, 3, 4, dtype=np.float64)))


def test_linspace_and_logspace_differentiate_through_tensor_bounds():
    # MindSpore 2.10 gives zero gradients here
    _check_both(lambda a, b: ops.linspace(a, b, 5), Tensor(0.5, ms.float64),
                Tensor(2.0, ms.float64))
    _check_both(lambda a, b: ops.logspace(a, b, 4, 2, dtype=ms.float64), Tensor(0.5, ms.float64),
                Tensor(1.5, ms.float64))
    out = ops.linspace(Tensor(1.0), Tensor(2.0), 3)
    assert out.asnumpy().tolist() == [1.0, 1.5, 2.0]


def test_padv3_fill_value_tensor_gets_the_padding_gradient():
    x, v = Tensor(_x(1, 2, 3, dtype=np.float64)), Tensor(0.5, ms.float64)
    _check_both(lambda t, c: ops.PadV3()(t, (1, 2), c), x, v)
    g = ms.grad(lambda t, c: ops.PadV3()(t, (1, 2), c).sum(), grad_position=1)(x, v)
    assert float(g.asnumpy()) == 6.0   # 2 rows x 3 padded columns


def test_choose_keeps_float_choices():
    # MindSpore 2.10 truncates float choices to integers; numpy's choose does not
    idx, a, b = np.array([0, 1, 1]), _x(3), _x(3)
    got = Tensor(idx).choose([Tensor(a), Tensor(b)]).asnumpy()
    np.testing.assert_array_equal(got, np.choose(idx, [a, b]))
    _check_both(lambda p, q: Tensor(idx).choose([p, q]), Tensor(a.astype(np.float64)),
                Tensor(b.astype(np.float64)))


# --- graph mode: tensors whose values are static parameters ---------------------------------------

PADDINGS = Tensor(np.array([[1, 1], [2, 2]]))


def test_constant_tensor_arguments_work_in_graph_mode():
    @ms.jit
    def f(x):
        return (ops.reshape(x, Tensor(np.array([3, 2]))), ops.MirrorPad()(x, PADDINGS),
                ops.zeros(Tensor(np.array([2, 1]))), ops.repeat_interleave(x, Tensor(2), 1))
    x = Tensor(_x(2, 3))
    shaped, padded, zeros, repeated = f(x)
    assert shaped.shape == (3, 2) and zeros.shape == (2, 1) and repeated.shape == (2, 6)
    np.testing.assert_array_equal(padded.asnumpy(), np.pad(x.asnumpy(), ((1, 1), (2, 2)),
                                                           mode="reflect"))


def test_a_computed_shape_tensor_is_a_located_error_in_graph_mode():
    @ms.jit
    def f(x, shape):
        return ops.reshape(x, shape)
    with pytest.raises(GraphcellError, match="values of 'shape'.*known while graph mode compiles"):
        f(Tensor(_x(2, 3)), Tensor(np.array([3, 2])))
    assert f.__wrapped__(Tensor(_x(2, 3)), Tensor(np.array([3, 2]))).shape == (3, 2)


def test_creation_functions_give_tensors_in_graph_mode():
    @ms.jit
    def f():
        return ops.eye(2), ops.arange(3), ops.linspace(0, 1, 3), ops.dyn_shape(ops.ones((2, 3)))
    eye, count, ramp, shape = f()
    assert isinstance(eye, Tensor) and eye.asnumpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert count.dtype == ms.int64 and ramp.dtype == ms.float32
    assert shape.asnumpy().tolist() == [2, 3]


def test_shape_functions_are_static_in_graph_mode():
    @ms.jit
    def f(x):
        if ops.rank(x) == 2 and ops.is_floating_point(x):
            return x * ops.size(x)
        return x
    assert f(Tensor([[1.0, 2.0]])).asnumpy().tolist() == [[2.0, 4.0]]


# --- Tensor plumbing that returns Python or numpy values ------------------------------------------

def test_numpy_views_and_properties():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = Tensor.from_numpy(a)
    assert np.shares_memory(x.asnumpy(), a) and x.numpy() is x.asnumpy()
    assert x.shape == (2, 3) and x.dtype == ms.int32 and x.size == 6 and x.ndim == 2
    assert x.strides == (12, 4) and x.stride() == [3, 1] and x.nbytes == 24 and x.itemsize == 4
    assert x.tolist() == [[0, 1, 2], [3, 4, 5]] and Tensor(2.5).item() == 2.5
    assert x.contiguous() is x and x.is_contiguous() and x.value() is x
    assert x.init_data() is x   # graphcell initialises at once
    assert x.flush_from_cache() is None and x.data_sync() is None and x.set_const_arg() is x
    with pytest.raises(TypeError, match="numpy array"):
        Tensor.from_numpy([1, 2])
    with pytest.raises(TypeError, match="not supported"):
        Tensor([[1.0, 2.0]]).view(ms.int32)


def test_values_run_as_python_in_graph_mode():
    """MindSpore 2.10's JIT Fallback: tolist()/numpy() run when the graph runs (a warning)."""
    from graphcell.graph import GraphModeWarning
    with pytest.warns(GraphModeWarning):
        assert ms.jit(lambda x: x.tolist())(Tensor([1.0])) == [1.0]
    with pytest.warns(GraphModeWarning):
        assert ms.jit(lambda x: x.numpy())(Tensor([1.0])).tolist() == [1.0]


def test_the_broadcast_to_primitive_refuses_a_leading_minus_one():
    from graphcell_ir.ops import functional as F
    assert F.broadcast_to(Tensor(_x(2, 1)), shape=(4, -1, 3)).shape == (4, 2, 3)
    with pytest.raises(GraphcellError, match="new leading dim"):
        F.broadcast_to(Tensor(_x(2, 1)), shape=(-1, 2, 3))


# --- MindSpore-style networks: Primitive instances made in __init__, in both modes ---------------

class _Reshaper(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.shape, self.reshape = ops.Shape(), ops.Reshape()
        self.concat, self.tile = ops.Concat(axis=1), ops.Tile()
        self.split, self.squeeze = ops.Split(axis=1, output_num=2), ops.Squeeze(0)

    def construct(self, x):
        b = self.shape(x)[0]
        y = self.concat((self.reshape(x, (b, -1)), x.view(b, -1)))
        a, c = self.split(y)
        z = self.tile(a, (1, 2)) + ops.zeros_like(c).sum()
        n = ops.rank(z) + ops.tuple_len(self.shape(z))
        return self.squeeze(ops.expand_dims(z, 0)) * n, x.flatten(), x.view(b, -1).T


def test_primitive_instances_in_a_cell_agree_in_both_modes():
    net, x = _Reshaper(), Tensor(_x(2, 2, 3))
    eager = net(x)
    compiled = ms.jit(net.construct)(x)
    for a, b in zip(eager, compiled):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy())
    check_grads(net, (Tensor(_x(2, 2, 3, dtype=np.float64)),))


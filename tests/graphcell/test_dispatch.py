"""PyNative's dispatch fast paths (graphcell/runtime/dispatch.py): what runs is chosen once per
signature, and a choice never outlives the signature it was made for."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor
from graphcell.runtime import dispatch
from graphcell_ir.ops import REGISTRY

BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "floor_div"]
DTYPES = [np.bool_, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]
NUMBERS = [2, -3, 2.5, True]


def _value(dtype, shape):
    v = np.arange(1, 1 + int(np.prod(shape, dtype=int)), dtype=np.float64).reshape(shape) % 5 + 1
    return np.asarray(v, dtype=dtype)   # 0-d: an array, not a numpy scalar


def _same(got, want):
    assert isinstance(got, Tensor)
    want = np.asarray(want)
    assert got.asnumpy().dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.asnumpy(), want)


@pytest.mark.parametrize("name", BINARY)
def test_operators_compute_what_the_reference_does(name):
    """Every dtype pair and Python-number operand, arrays of several ranks (0-d too): the
    operator's result (value and dtype) is the reference's, the first call and the next."""
    op = REGISTRY[name]
    shapes = [(3,), (), (2, 3)]
    for a, b in itertools.product(DTYPES, DTYPES):
        for sa, sb in [((3,), (3,)), ((), ()), ((2, 3), (3,)), ((), (3,))]:
            x, y = _value(a, sa), _value(b, sb)
            try:
                want = op.ref(x, y)
            except (TypeError, ValueError):
                continue   # refused by numpy (bool - bool...): the rule refuses it too or not
            for _ in range(2):
                _same(dispatch.apply_binary(op, Tensor(x), Tensor(y)), want)
    for a, n, s in itertools.product(DTYPES, NUMBERS, shapes):
        x = _value(a, s)
        try:
            want = op.ref(x, n)
        except (TypeError, ValueError, OverflowError):
            continue
        for _ in range(2):
            _same(dispatch.apply_binary(op, Tensor(x), n), want)
            _same(dispatch.apply_binary(op, n, Tensor(x)), op.ref(n, x))


def test_a_signature_checked_once_is_not_another_signature():
    """The rule's verdict is cached per (dtype, shape) of both operands: a good call does not let
    a later call with other shapes or dtypes skip the rule, and a refused call caches nothing."""
    x, y = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones(3, np.float32))
    _same(x + y, np.full((2, 3), 2, np.float32))
    bad = Tensor(np.ones(4, np.float32))
    for _ in range(2):   # refused each time: nothing was cached for the bad signature
        with pytest.raises(ValueError, match=r"Add: shapes \[2,3\] and \[4\] do not broadcast"):
            x + bad
    _same(x + y, np.full((2, 3), 2, np.float32))           # the good one still runs
    _same(x + Tensor(np.ones(3, np.int32)), np.full((2, 3), 2, np.float32))   # promoted
    _same(x * 2, np.full((2, 3), 2, np.float32))
    _same(x * 2.5, np.full((2, 3), 2.5, np.float32))
    xi = Tensor(np.ones(3, np.int32))
    _same(xi * 2, np.full(3, 2, np.int32))
    _same(xi * 2.5, np.full(3, 2.5, np.float32))          # MindSpore: Float32, numpy: float64
    _same(xi / xi, np.ones(3, np.float32))


def test_a_tensor_whose_buffer_changes_takes_its_new_signature():
    x = Tensor(np.ones(3, np.float32))
    y = Tensor(np.ones(3, np.float32))
    _same(x + y, np.full(3, 2, np.float32))
    x[0:3] = Tensor(np.ones(3, np.float32))   # rebinds x's buffer (same signature)
    y = Tensor(np.ones(3, np.float64))
    _same(x + y, np.full(3, 2, np.float64))


def test_operators_inline_path_is_apply_binarys():
    """Two Tensors of a signature seen before take the operator's inline path: a Parameter on
    either side and a reflected method called with a Tensor get what apply_binary gives."""
    x = Tensor(np.array([1.0, 2.0], np.float32))
    p = ms.Parameter(Tensor(np.array([3.0, 5.0], np.float32)), name="p")
    for _ in range(2):   # the second round: every signature cached
        _same(x - p, np.array([-2.0, -3.0], np.float32))
        _same(p - x, np.array([2.0, 3.0], np.float32))
        _same(x.__rsub__(Tensor(np.array([4.0, 4.0], np.float32))), np.array([3.0, 2.0], np.float32))
        _same(x - 1, np.array([0.0, 1.0], np.float32))
        assert type(p - x) is Tensor and type(x - p) is Tensor


def test_a_dynamic_shape_declaration_is_no_operand():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    declared = Tensor(shape=[None, 2], dtype=ms.float32)
    for call in (lambda: x + declared, lambda: declared + x, lambda: ms.ops.exp(declared)):
        with pytest.raises(TypeError, match=r"only declares an input of dynamic shape"):
            call()


def test_the_profiler_sees_fast_operators():
    seen = []

    def timer(op, impl, arrays, attrs):
        seen.append(op.name)
        return impl(*arrays, **attrs)
    x = Tensor(np.ones(3, np.float32))
    x + x   # the signature is cached before the profiler starts
    dispatch.timer = timer
    try:
        _same(x + x, np.full(3, 2, np.float32))
    finally:
        dispatch.timer = None
    assert seen == ["add"]


def test_operators_are_taped():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    g = ms.grad(lambda a: (a * a + a * 2).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [4.0, 6.0])

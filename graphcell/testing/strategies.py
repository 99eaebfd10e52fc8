"""Hypothesis strategies for graphcell: shapes, broadcastable shape pairs, dtypes and Tensors.

They build on ``hypothesis.extra.numpy`` and return graphcell objects, so a property test of a
user's layer reads like graphcell's own tests::

    from hypothesis import given
    from graphcell.testing import check_grads, strategies as gst

    @given(gst.tensors(shape=(2, 3), elements=(-2, 2)))
    def test_my_layer_gradients(x):
        check_grads(my_layer, (x,))

Every strategy shrinks towards small, simple values: fewer dimensions, sides of ``min_side``,
``float32`` first among dtypes, values towards zero.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from graphcell.tensor import Tensor
from graphcell_ir.ir.types import DType, float32, to_dtype

__all__ = ["shapes", "broadcastable_shapes", "dtypes", "tensors", "elements_of"]

# float32 first: sampled_from shrinks to its first element, and float32 is graphcell's default.
_DTYPE_ORDER = (DType.float32, DType.float64, DType.float16, DType.int32, DType.int64, DType.int8,
                DType.int16, DType.uint8, DType.uint16, DType.uint32, DType.uint64, DType.bool_)
_KINDS = {"float": lambda d: d.is_float, "int": lambda d: d.np_dtype.kind == "i",
          "uint": lambda d: d.np_dtype.kind == "u", "bool": lambda d: d.is_bool}


def shapes(min_dims: int = 0, max_dims: int = 4, min_side: int = 1, max_side: int = 5):
    """Shapes (tuples of ints) of ``min_dims..max_dims`` axes, each of ``min_side..max_side``.

    Example::

        >>> from graphcell.testing.strategies import shapes
        >>> s = shapes(min_dims=2, max_dims=2, max_side=3).example()
        >>> len(s) == 2 and all(1 <= d <= 3 for d in s)
        True
    """
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcastable_shapes(shape, min_dims: int = 0, max_dims: int | None = None, min_side: int = 1,
                         max_side: int | None = None):
    """Pairs ``(a, b)`` of shapes that broadcast together, ``a`` being ``shape``.

    ``shape`` is a fixed tuple or a strategy of shapes (``broadcastable_shapes(shapes())`` draws
    both). ``b`` has ``min_dims..max_dims`` axes (default: up to ``a``'s rank + 2) and sides up to
    ``max_side`` (default: ``a``'s largest side, at least 3); where ``a`` has a 1, ``b`` may have
    anything, and vice versa.

    Example::

        >>> import numpy as np
        >>> from graphcell.testing.strategies import broadcastable_shapes
        >>> a, b = broadcastable_shapes((3, 1)).example()
        >>> np.broadcast_shapes(a, b) is not None and a == (3, 1)
        True
    """
    shape_st = shape if isinstance(shape, st.SearchStrategy) else st.just(tuple(shape))

    def pair(a):
        hi_dims = len(a) + 2 if max_dims is None else max_dims
        hi_side = max((3, *a)) if max_side is None else max_side
        other = hnp.broadcastable_shapes(a, min_dims=min(min_dims, hi_dims), max_dims=hi_dims,
                                         min_side=min_side, max_side=hi_side)
        return other.map(lambda b: (tuple(a), tuple(b)))
    return shape_st.flatmap(pair)


def dtypes(kinds=("float", "int", "uint", "bool")):
    """graphcell dtypes of the given kinds (``"float"``, ``"int"``, ``"uint"``, ``"bool"``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell.testing.strategies import dtypes
        >>> dtypes(kinds=("float",)).example() in (ms.float16, ms.float32, ms.float64)
        True
    """
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    unknown = [k for k in kinds if k not in _KINDS]
    if unknown or not kinds:
        raise ValueError(f"dtypes: kinds must be among {', '.join(_KINDS)}, got {list(kinds)}")
    return st.sampled_from([d for d in _DTYPE_ORDER if any(_KINDS[k](d) for k in kinds)])


def _inward(lo: float, hi: float, np_dtype) -> tuple[float, float]:
    """Bounds representable in ``np_dtype`` inside [lo, hi] (hypothesis requires exact ones)."""
    lo_r, hi_r = np_dtype.type(lo), np_dtype.type(hi)
    if lo_r < lo:
        lo_r = np.nextafter(lo_r, np_dtype.type(np.inf))
    if hi_r > hi:
        hi_r = np.nextafter(hi_r, np_dtype.type(-np.inf))
    return float(lo_r), float(hi_r)


def elements_of(dtype, elements=None, min_magnitude: float = 0.0):
    """Scalars for one element of a Tensor of ``dtype``: the element strategy of :func:`tensors`.

    Floats are finite; ``elements=(lo, hi)`` bounds them (inclusive) and ``min_magnitude`` keeps
    floats away from zero (``|x| >= min_magnitude``), for denominators or kinks such as ``abs``.
    """
    dtype = to_dtype(dtype)
    np_dtype = dtype.np_dtype
    if dtype.is_bool:
        return st.booleans()
    if dtype.is_int:
        info = np.iinfo(np_dtype)
        lo, hi = (info.min, info.max) if elements is None else elements
        return st.integers(max(int(np.ceil(lo)), int(info.min)), min(int(np.floor(hi)), int(info.max)))
    width = np_dtype.itemsize * 8
    info = np.finfo(np_dtype)
    lo, hi = (float(info.min), float(info.max)) if elements is None else map(float, elements)
    if lo > hi:
        raise ValueError(f"elements: the lower bound {lo} is above the upper bound {hi}")
    if min_magnitude <= 0:
        return _floats(lo, hi, np_dtype, width)
    parts = [_floats(max(lo, min_magnitude), hi, np_dtype, width) if hi >= min_magnitude else None,
             _floats(lo, min(hi, -min_magnitude), np_dtype, width) if lo <= -min_magnitude else None]
    parts = [p for p in parts if p is not None]
    if not parts:
        raise ValueError(f"elements ({lo}, {hi}) hold no value of magnitude >= {min_magnitude}")
    return st.one_of(*parts)


def _floats(lo: float, hi: float, np_dtype, width: int):
    lo, hi = _inward(lo, hi, np_dtype)
    return st.floats(lo, hi, width=width, allow_nan=False, allow_infinity=False,
                     allow_subnormal=False)


@st.composite
def tensors(draw, dtype=float32, shape=None, elements=None, min_magnitude: float = 0.0,
            unique: bool = False):
    """graphcell Tensors.

    ``dtype`` is a dtype or a strategy of dtypes (:func:`dtypes`); ``shape`` a tuple, a strategy
    of shapes, or None for :func:`shapes`. Floats are finite; ``elements=(lo, hi)`` bounds the
    values, ``min_magnitude`` keeps floats at least that far from zero, and ``unique=True``
    makes the elements distinct.

    Example::

        >>> import graphcell as ms
        >>> from graphcell.testing.strategies import tensors
        >>> t = tensors(ms.float64, shape=(2, 3), elements=(-1, 1)).example()
        >>> t.shape, t.dtype, bool((abs(t.asnumpy()) <= 1).all())
        ((2, 3), Float64, True)
    """
    dtype = draw(dtype) if isinstance(dtype, st.SearchStrategy) else to_dtype(dtype)
    if shape is None:
        shape = shapes()
    shape = draw(shape) if isinstance(shape, st.SearchStrategy) else tuple(shape)
    values = draw(hnp.arrays(dtype.np_dtype, shape, elements=elements_of(dtype, elements, min_magnitude),
                             unique=unique))
    return Tensor(values)

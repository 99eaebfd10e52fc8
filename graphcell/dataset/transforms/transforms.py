"""``mindspore.dataset.transforms``: transforms of any array, and the base of all transforms.

A transform is a callable object. Called directly it takes numpy arrays and returns numpy arrays
(several outputs as a tuple); given to ``Dataset.map`` it runs on each row — and, when it works
array-wise (``batch_apply``), ``map`` may run it on a whole batch at once, with the same result.
Random transforms draw from the pipeline pass's generator (reproducible under
``ds.config.set_seed``).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell.dataset import transforms
    >>> transforms.TypeCast(ms.int32)(np.array([1.7, -1.7]))
    array([ 1, -1], dtype=int32)
    >>> transforms.OneHot(3)(np.array(1))
    array([0, 1, 0])
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphcell.dataset.core import config
from graphcell.dataset.core.errors import TransformError
from graphcell.dataset.core.validate import check_int
from graphcell.dataset.engine.rows import function_outputs
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import to_dtype


def as_input(value, name: str, arrays_only: bool = False) -> np.ndarray:
    """An eager call's argument as an array: numpy arrays and graphcell Tensors, and unless
    ``arrays_only`` (image transforms) Python numbers and lists."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Tensor):
        return value.asnumpy()
    if not arrays_only and isinstance(value, (list, tuple, int, float, bool, np.generic)):
        return np.asarray(value)
    raise TypeError(f"{name}: expected a numpy array, got {type(value).__name__}")


class TensorOperation:
    """Base of graphcell's transforms.

    Subclasses define ``_apply(args, rng) -> tuple`` (one row's columns in, columns out) and, when
    the transform works array-wise, ``batch_apply(args) -> tuple`` on batches (first axis = rows).
    """

    batch_apply: Callable | None = None  # set by array-wise transforms
    arrays_only = False  # image transforms refuse Python numbers and lists, as MindSpore
    random = False  # draws from the generator apply_with is given

    def __call__(self, *args):
        arrays = tuple(as_input(a, type(self).__name__, self.arrays_only) for a in args)
        out = self.apply_with(arrays, config.eager_rng())
        return out[0] if len(out) == 1 else out

    def apply_with(self, args: tuple, rng: np.random.Generator) -> tuple:
        """Apply to one row's columns, drawing random numbers from ``rng``."""
        return self._apply(args, rng)

    def _apply(self, args: tuple, rng) -> tuple:
        raise NotImplementedError

    def _one(self, args: tuple) -> np.ndarray:
        if len(args) != 1:
            raise TransformError(f"{type(self).__name__}: expects one input column, got "
                                 f"{len(args)}")
        return args[0]

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


class ArrayOperation(TensorOperation):
    """A one-in, one-out transform defined by ``_compute(x, lead)``, where ``lead`` is the number
    of leading batch axes (0 for one row, 1 for a batch)."""

    def _compute(self, x: np.ndarray, lead: int) -> np.ndarray:
        raise NotImplementedError

    def _apply(self, args, rng):
        return (self._compute(self._one(args), 0),)

    def batch_apply(self, args):
        return (self._compute(self._one(args), 1),)


def cast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """numpy's cast, except that floats become integers by truncation and wrap around (as
    MindSpore's TypeCast gives, where C leaves the result undefined)."""
    dtype = np.dtype(dtype)
    if x.dtype.kind == "f" and dtype.kind in "iu":
        with np.errstate(invalid="ignore"):
            return np.trunc(x).astype(np.int64).astype(dtype)
    return x.astype(dtype)


def to_np_dtype(data_type, name: str) -> np.dtype:
    """A MindSpore dtype, numpy dtype or dtype name as a numpy dtype."""
    try:
        return to_dtype(data_type).np_dtype
    except TypeError:
        try:
            return np.dtype(data_type)
        except TypeError:
            raise TypeError(f"{name}: data_type must be a graphcell/MindSpore or numpy dtype, "
                            f"got {data_type!r}") from None


class TypeCast(ArrayOperation):
    """Cast to ``data_type`` (``ms.int32``, ``np.float32``, ``"float32"``)."""

    def __init__(self, data_type):
        self.data_type = data_type
        self._dtype = to_np_dtype(data_type, "TypeCast")

    def _compute(self, x, lead):
        if x.dtype.kind not in "biuf":
            raise TransformError(f"TypeCast: cannot cast {x.dtype} data to {self._dtype}")
        return cast(x, self._dtype)


class OneHot(ArrayOperation):
    """One-hot vectors of ``num_classes`` along a new last axis; with ``smoothing_rate`` s the
    values are ``1 - s + s/num_classes`` and ``s/num_classes`` (float64)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        self.num_classes = check_int("num_classes", num_classes, 1)
        if not isinstance(smoothing_rate, (int, float)) or not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be a number in [0, 1], got "
                             f"{smoothing_rate!r}")
        self.smoothing_rate = float(smoothing_rate)

    def _compute(self, x, lead):
        if x.dtype.kind not in "iu":
            raise TransformError(f"OneHot: only supports integer input, got {x.dtype}")
        if x.size and (x.min() < 0 or x.max() >= self.num_classes):
            bad = x.min() if x.min() < 0 else x.max()
            raise TransformError(f"OneHot: index {bad} is outside [0, {self.num_classes - 1}] "
                                 f"for num_classes={self.num_classes}")
        hot = np.arange(self.num_classes) == x[..., None]
        if self.smoothing_rate:
            s, c = self.smoothing_rate, self.num_classes
            return np.where(hot, 1.0 - s + s / c, s / c)
        return hot.astype(x.dtype)


class Fill(ArrayOperation):
    """An array of the input's shape and dtype, every element ``fill_value``."""

    def __init__(self, fill_value):
        if not isinstance(fill_value, (int, float, bool, str, bytes, np.generic)):
            raise TypeError(f"Fill: fill_value must be a number or a string, got "
                            f"{type(fill_value).__name__}")
        self.fill_value = fill_value

    def _compute(self, x, lead):
        value = np.asarray(self.fill_value)
        if (value.dtype.kind in "US") != (x.dtype.kind in "US"):
            raise TransformError(f"Fill: cannot fill {x.dtype} data with {self.fill_value!r}")
        return np.full(x.shape, cast(value, x.dtype) if x.dtype.kind not in "US" else value,
                       dtype=x.dtype)


class Duplicate(TensorOperation):
    """Two copies of the input (two output columns)."""

    def _apply(self, args, rng):
        x = self._one(args)
        return x, x.copy()

    def batch_apply(self, args):
        return self._apply(args, None)


class Concatenate(TensorOperation):
    """A 1-D input with ``prepend`` before and ``append`` after (same dtype)."""

    def __init__(self, axis=0, prepend=None, append=None):
        self.axis = check_int("axis", axis, -1, 0)
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)
        for name, part in (("prepend", self.prepend), ("append", self.append)):
            if part is not None and part.ndim != 1:
                raise ValueError(f"Concatenate: {name} must be 1-D, got shape {list(part.shape)}")

    def _apply(self, args, rng):
        x = self._one(args)
        if x.ndim != 1:
            raise TransformError(f"Concatenate: only 1-D input is supported, got shape "
                                 f"{list(x.shape)}")
        parts = [p for p in (self.prepend, x, self.append) if p is not None]
        for name, p in (("prepend", self.prepend), ("append", self.append)):
            if p is not None and p.dtype != x.dtype:
                raise TransformError(f"Concatenate: the input is {x.dtype} but {name} is "
                                     f"{p.dtype}")
        return (np.concatenate(parts),)


class Compose(TensorOperation):
    """Apply ``transforms`` (transforms or functions) one after the other."""

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)) or not transforms or \
                not all(callable(t) for t in transforms):
            raise TypeError(f"Compose: transforms must be a non-empty list of callables, got "
                            f"{transforms!r}")
        self.transforms = list(transforms)
        self.random = any(getattr(t, "random", False) for t in self.transforms)
        if all(getattr(t, "batch_apply", None) is not None for t in self.transforms):
            self.batch_apply = self._batch_apply

    def _apply(self, args, rng):
        for t in self.transforms:
            if isinstance(t, TensorOperation):
                args = t.apply_with(args, rng)
            else:
                args = function_outputs(t(*args), f"Compose: {getattr(t, '__name__', t)}")
        return args

    def _batch_apply(self, args):
        for t in self.transforms:
            args = t.batch_apply(args)
        return args


__all__ = ["TensorOperation", "ArrayOperation", "TypeCast", "OneHot", "Fill", "Duplicate",
           "Concatenate", "Compose"]

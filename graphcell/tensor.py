"""``Tensor``: an n-dimensional array over numpy, with MindSpore's API and printing.

Every operator and method that computes goes through the op registry, so PyNative, the tape and
graph mode see the same primitives. Methods are written against the functional API ``F``: in
PyNative they run eagerly (graphcell installs its eager emitter as the default), and the graph-mode
frontend calls the very same methods with IR values to emit IR. The binary operators take an
inlined fast path (``dispatch.apply_binary``); the frontend maps them to registry ops directly.

Construction follows MindSpore's defaults: Python floats give Float32, ints Int64, bools Bool;
numpy arrays keep their dtype.

Example::

    >>> import graphcell as ms
    >>> x = ms.Tensor([[1, 2], [3, 4]], ms.float32)
    >>> (x * 2 + 1).sum(axis=1)
    Tensor(shape=[2], dtype=Float32, value= [ 8.00000000e+00,  1.60000000e+01])
"""
from __future__ import annotations

import numbers

import numpy as np

from graphcell import _printing
from graphcell.runtime import dispatch
from graphcell_ir.ir.types import DType, dtype_from_numpy, float32, int64, bool_, to_dtype
from graphcell_ir.ops import REGISTRY
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.operators import BINARY_OPERATORS as _OPERATORS
from graphcell_ir.ops.operators import UNARY_OPERATORS as _UNARY_OPERATORS

_R = REGISTRY


def _py_scalar_dtype(values) -> DType:
    """MindSpore's dtype for data given as (nested) Python scalars."""
    kinds = {type(v) for v in values}
    if kinds <= {bool, np.bool_}:
        return bool_
    if any(isinstance(v, (float, np.floating)) for v in values):
        return float32
    return int64


def _flatten_scalars(data):
    if isinstance(data, (list, tuple)):
        for item in data:
            yield from _flatten_scalars(item)
    else:
        yield data


def _to_array(input_data, dtype: DType | None) -> np.ndarray:
    if isinstance(input_data, Tensor):
        arr = input_data._data
    elif isinstance(input_data, np.ndarray):
        arr = input_data
    elif isinstance(input_data, (bool, numbers.Number, np.generic)):
        if isinstance(input_data, complex):
            raise TypeError("Tensor: complex numbers are not supported")
        arr = np.asarray(input_data)
        if not isinstance(input_data, np.generic):
            arr = arr.astype((dtype or _py_scalar_dtype([input_data])).np_dtype)
    elif isinstance(input_data, (list, tuple)):
        arr = _list_to_array(input_data, dtype)
    else:
        raise TypeError(f"Tensor: input_data must be a Tensor, numpy array, Python number or "
                        f"(nested) list/tuple of numbers, got {type(input_data).__name__}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"Tensor: numpy arrays of dtype {arr.dtype} are not supported; expected "
                        "bool, integer or float data")
    if dtype is not None and arr.dtype != dtype.np_dtype:
        arr = arr.astype(dtype.np_dtype)
    elif arr.dtype not in _SUPPORTED:
        arr = arr.astype(dtype_from_numpy(arr.dtype).np_dtype)
    return arr


def _list_to_array(data, dtype: DType | None) -> np.ndarray:
    values = list(_flatten_scalars(data))
    bad = next((v for v in values if not isinstance(v, (bool, numbers.Real, np.generic, Tensor))), None)
    if bad is not None:
        raise TypeError(f"Tensor: lists may hold only numbers (or Tensors), found "
                        f"{type(bad).__name__} {bad!r}")
    if any(isinstance(v, Tensor) for v in values):
        data = _tensors_to_lists(data)
        values = list(_flatten_scalars(data))
    try:
        arr = np.array(data)
    except ValueError:
        raise ValueError(f"Tensor: the nested lists are ragged (sub-lists of different lengths): "
                         f"{_short(data)}; every sub-list at one depth must have the same length") from None
    if arr.dtype == object:
        raise ValueError(f"Tensor: the nested lists are ragged (sub-lists of different lengths): "
                         f"{_short(data)}; every sub-list at one depth must have the same length")
    if dtype is None and not any(isinstance(v, np.generic) for v in values):
        dtype = _py_scalar_dtype(values) if values else float32
    return arr.astype(dtype.np_dtype) if dtype is not None else arr


def _tensors_to_lists(data):
    if isinstance(data, Tensor):
        return data._data.tolist()
    if isinstance(data, (list, tuple)):
        return [_tensors_to_lists(d) for d in data]
    return data


def _short(obj, limit: int = 60) -> str:
    text = repr(obj)
    return text if len(text) <= limit else text[:limit - 3] + "..."


_SUPPORTED = frozenset(d.np_dtype for d in DType)


def _element_strides(shape) -> tuple[int, ...]:
    """C-order strides counted in elements."""
    out, step = [], 1
    for s in reversed(tuple(shape)):
        out.append(step)
        step *= max(int(s), 1)
    return tuple(reversed(out))


def _in_place(x, compute):
    """``x`` takes the value ``compute(x)`` and is returned (``Tensor._update_in_place``)."""
    return x._update_in_place(compute)


def _divide(x, y, rounding_mode):
    """``x / y``, floored or truncated towards zero when asked."""
    if rounding_mode is None:
        return x / y
    if rounding_mode == "floor":
        return x // y
    q = x / y
    return F.select(F.less(q, 0), F.neg(F.floor(F.neg(q))), F.floor(q))


def _operand(v):
    """A Tensor, or a Python number kept as a weak scalar; numpy values become Tensors."""
    if isinstance(v, (Tensor, bool, int, float)):
        return v
    if isinstance(v, (np.ndarray, np.generic)):
        return Tensor(v)
    if isinstance(v, (list, tuple)):
        return Tensor(v)
    return NotImplemented


def _binary(name: str, reflected: bool = False):
    return dispatch.binary_method(_R[name], reflected, Tensor, _operand)


BINARY_OPERATORS = tuple((method, reflected, op) for _, method, reflected, op in _OPERATORS)
"""Python's binary operators and the registry op each one is (with its reflected form), from the
one table ``graphcell_ir.ops.operators`` that the graph-mode frontend reads too. Tensor and graph
mode's GraphTensor both install their methods from it."""


def install_binary_operators(cls, make) -> None:
    """Give ``cls`` every operator of BINARY_OPERATORS as ``make(op_name, reflected)``."""
    for name, reflected_name, op_name in BINARY_OPERATORS:
        setattr(cls, name, make(op_name, False))
        if reflected_name:
            setattr(cls, reflected_name, make(op_name, True))


def _unary(name: str):
    fn = getattr(F, name)

    def method(self):
        return fn(self)
    method.__name__ = name
    return method


def _shape_arg(shape) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


class Tensor:
    """An n-dimensional array with a dtype; ``Tensor(input_data, dtype=None)``.

    ``input_data`` may be a numpy array (its dtype is kept unless ``dtype`` is given), a Python
    number, or nested lists/tuples of numbers. ``shape``+``init`` builds a Tensor from an
    Initializer (as MindSpore's lazy initialisation, done at once here).
    """

    __slots__ = ("_data", "_node", "_hooks", "__weakref__")
    __array_priority__ = 100  # numpy defers to Tensor's reflected operators

    def __new__(cls, *args, **kwargs):
        if cls is Tensor and (not args or args[0] is None) and \
                kwargs.get("input_data") is None and _declares_dynamic_shape(args, kwargs):
            return object.__new__(DynamicShape)
        return object.__new__(cls)

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False,
                 const_arg=False):
        dtype = None if dtype is None else to_dtype(dtype)
        if input_data is None:
            if init is None or shape is None:
                raise TypeError("Tensor: give input_data, or both shape and init")
            from graphcell.common.initializer import initializer
            data = initializer(init, shape, dtype or float32).init_data()._data
        else:
            if init is not None:
                raise TypeError("Tensor: give either input_data or init, not both")
            data = _to_array(input_data, dtype)
            if shape is not None and tuple(_shape_arg((shape,))) != data.shape:
                raise ValueError(f"Tensor: input_data has shape {list(data.shape)} but shape="
                                 f"{list(_shape_arg((shape,)))} was given")
        self._data = data
        self._node = None

    @classmethod
    def _wrap(cls, array) -> "Tensor":
        """A Tensor over ``array`` without copying or checking (the runtime's constructor)."""
        t = object.__new__(Tensor)
        t._data = array if isinstance(array, np.ndarray) else np.asarray(array)
        t._node = None
        return t

    # --- properties --------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def dtype(self) -> DType:
        return dtype_from_numpy(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def T(self) -> "Tensor":
        return self.transpose()

    @property
    def strides(self) -> tuple[int, ...]:
        """Bytes between neighbours along each dim (a Tensor is always C-contiguous)."""
        return tuple(s * self.itemsize for s in _element_strides(self.shape))

    def register_hook(self, hook_fn):
        """``hook_fn(grad)`` sees the whole gradient of this tensor when a gradient is taken (in
        PyNative and in compiled code) and may return a Tensor that replaces it; returns a
        handle whose ``remove()`` unregisters it (MindSpore's ``Tensor.register_hook``).

        Example::

            >>> import graphcell as ms
            >>> def f(x):
            ...     y = x * 3
            ...     y.register_hook(lambda g: g * 2)
            ...     return (y * y).sum()
            >>> ms.grad(f)(ms.Tensor([1.0]))
            Tensor(shape=[1], dtype=Float32, value= [ 3.60000000e+01])
        """
        from graphcell.runtime.hooks import register_hook
        return register_hook(self, hook_fn)

    def asnumpy(self) -> np.ndarray:
        """The values as a numpy array (shares memory with the Tensor, as in MindSpore)."""
        return self._data

    def numpy(self) -> np.ndarray:
        """Same as :meth:`asnumpy`."""
        return self.asnumpy()

    @staticmethod
    def from_numpy(array: np.ndarray) -> "Tensor":
        """``Tensor.from_numpy(array)``: a Tensor sharing ``array``'s memory (C-contiguous)."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"Tensor.from_numpy: expected a numpy array, got "
                            f"{type(array).__name__}")
        dtype_from_numpy(array.dtype)  # a clear error for dtypes graphcell does not have
        return Tensor._wrap(np.ascontiguousarray(array))

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def item(self, index=None):
        """The value of a one-element tensor (or of ``self[index]``) as a Python number."""
        return self._data.item() if index is None else self._data.item(index)

    def tolist(self):
        return self._data.tolist()

    def copy(self) -> "Tensor":
        """A copy (differentiable, as MindSpore's)."""
        return self.clone()

    def clone(self) -> "Tensor":
        """``Tensor.clone()``: a copy with the same values, shape and dtype; gradients flow back
        to ``self``."""
        return F.cast(self, dtype=self.dtype)

    def value(self) -> "Tensor":
        """``Tensor.value()``: the tensor's value (the tensor itself)."""
        return self

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None) -> "Tensor":
        """The initialised tensor: itself, since graphcell initialises at once (MindSpore raises
        for a tensor made without ``init``)."""
        return self

    def contiguous(self) -> "Tensor":
        """``Tensor.contiguous()``: itself (graphcell's tensors are always contiguous)."""
        return self

    def is_contiguous(self) -> bool:
        return True

    def move_to(self, to, blocking=True) -> "Tensor":
        """``Tensor.move_to(to, blocking=True)``: graphcell runs on the CPU, so ``'CPU'`` returns
        the tensor and other devices are refused, as MindSpore's CPU build does."""
        if to not in ("CPU", "GPU", "Ascend"):
            raise ValueError(f"Tensor.move_to: 'to' must be 'CPU', 'GPU' or 'Ascend', got {to!r}")
        if to != "CPU":
            raise RuntimeError(f"Tensor.move_to: graphcell runs on the CPU and cannot move a "
                               f"tensor to {to!r}")
        return self

    def flush_from_cache(self) -> None:
        """Accepted for compatibility: graphcell has no parameter cache to flush."""

    def data_sync(self, wait=True) -> None:
        """Accepted for compatibility: a Tensor's data is always on the host."""

    def set_const_arg(self, const_arg=True) -> "Tensor":
        """Accepted for compatibility (MindSpore marks a compiled function's argument as a
        constant); graphcell specialises every compile on shapes, not values. Returns ``self``."""
        return self

    def stride(self, dim=None):
        """``Tensor.stride(dim=None)``: elements between neighbours along each dim (a list), or
        along ``dim``."""
        strides = _element_strides(self.shape)
        if dim is None:
            return list(strides)
        if not -len(strides) <= dim < len(strides):
            raise IndexError(f"Tensor.stride: dim {dim} is out of range for a tensor of rank "
                             f"{len(strides)}")
        return strides[dim]

    def set_dtype(self, dtype) -> DType:
        """``Tensor.set_dtype(dtype)``: ``self`` converted to ``dtype`` in place; returns the
        dtype."""
        dtype = to_dtype(dtype)
        _in_place(self, lambda x: F.cast(x, dtype=dtype))
        return dtype

    # --- in-place updates: ``self`` takes the new value (graph mode returns it instead) -------

    def assign_value(self, value) -> "Tensor":
        """``Tensor.assign_value(value)``: ``self`` takes ``value``'s data, shape and dtype."""
        if not isinstance(value, Tensor):
            raise TypeError(f"Tensor.assign_value: expected a Tensor, got {type(value).__name__}")
        return _in_place(self, lambda x: F.cast(value, dtype=value.dtype))

    def copy_(self, src, non_blocking=False) -> "Tensor":
        """``Tensor.copy_(src, non_blocking=False)``: ``src`` broadcast to ``self``'s shape and
        converted to its dtype is written into ``self``."""
        if not isinstance(src, Tensor):
            raise TypeError(f"Tensor.copy_: 'src' must be a Tensor, got {type(src).__name__}")

        def copied(x):
            v = src if src.dtype == x.dtype else F.cast(src, dtype=x.dtype)
            return F.broadcast_to(v, shape=tuple(x.shape)) if v.shape != x.shape \
                else F.cast(v, dtype=x.dtype)
        return _in_place(self, copied)

    def zero_(self) -> "Tensor":
        """``Tensor.zero_()``: every element set to 0 in place."""
        return _in_place(self, F.zeros_like)

    def fill_(self, value) -> "Tensor":
        """``Tensor.fill_(value)``: every element set to ``value`` (a number or a one-element
        tensor) in place."""
        return _in_place(self, lambda x: x.fill(value))

    def fill_diagonal_(self, fill_value, wrap=False) -> "Tensor":
        """``Tensor.fill_diagonal_(fill_value, wrap=False)``: the main diagonal set in place."""
        return _in_place(self, lambda x: x.fill_diagonal(fill_value, wrap))

    def mul_(self, other) -> "Tensor":
        """``Tensor.mul_(other)``: ``self * other`` in place (its dtype is the product's)."""
        return _in_place(self, lambda x: x * other)

    def sub_(self, other, *, alpha=1) -> "Tensor":
        """``Tensor.sub_(other, *, alpha=1)``: ``self - alpha * other`` in place."""
        return _in_place(self, lambda x: x - (other if alpha == 1 else other * alpha))

    def div_(self, other, *, rounding_mode=None) -> "Tensor":
        """``Tensor.div_(other, *, rounding_mode=None)``: ``self / other`` in place, rounded
        towards minus infinity (``'floor'``) or zero (``'trunc'``) when asked."""
        if rounding_mode not in (None, "floor", "trunc"):
            raise ValueError(f"Tensor.div_: 'rounding_mode' must be None, 'floor' or 'trunc', "
                             f"got {rounding_mode!r}")
        return _in_place(self, lambda x: _divide(x, other, rounding_mode))

    # --- new tensors from this one ------------------------------------------------------------

    def resize(self, *new_shape) -> "Tensor":
        """``Tensor.resize(*new_shape)``: a tensor of ``new_shape`` holding ``self``'s elements in
        order, cut short or followed by zeros (``self`` is unchanged)."""
        shape = _shape_arg(new_shape)
        if any(s < 0 for s in shape):
            raise ValueError(f"Tensor.resize: the new shape {list(shape)} has a negative size")
        n, m = self.size, int(np.prod(shape, dtype=np.int64))
        flat = F.reshape(self, shape=(n,))
        if m < n:
            flat = F.getitem(flat, key=(slice(0, m),))
        elif m > n:
            flat = F.pad(flat, paddings=(0, m - n), value=0)
        return F.reshape(flat, shape=shape)

    def itemset(self, *args) -> "Tensor":
        """``Tensor.itemset(*args)``: a copy with one element replaced: ``itemset(value)`` for a
        one-element tensor, ``itemset(flat_index, value)`` or ``itemset((i, j...), value)``."""
        if len(args) == 1:
            if self.size != 1:
                raise IndexError(f"Tensor.itemset: a tensor of shape {list(self.shape)} needs an "
                                 "index before the value")
            index, value = 0, args[0]
        elif len(args) == 2:
            index, value = args
        else:
            raise ValueError(f"Tensor.itemset: takes at most 2 arguments, got {len(args)}")
        if isinstance(index, tuple):
            return F.setitem(self, value, key=tuple(int(i) for i in index))
        flat = F.setitem(F.reshape(self, shape=(self.size,)), value, key=(int(index),))
        return F.reshape(flat, shape=tuple(self.shape))

    def sum_to_size(self, *size) -> "Tensor":
        """``Tensor.sum_to_size(*size)``: ``self`` summed down to ``size``, which must broadcast
        to ``self``'s shape."""
        shape = _shape_arg(size)
        lead = self.ndim - len(shape)
        if lead < 0 or any(s not in (1, d) for s, d in zip(shape, self.shape[lead:])):
            raise ValueError(f"Tensor.sum_to_size: size {list(shape)} is not expandable to the "
                             f"tensor's shape {list(self.shape)}")
        return F.sum_to(self, shape)

    # --- printing ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        return _printing.tensor_repr(self._data, self.dtype.ms_name)

    def __str__(self) -> str:
        return _printing.tensor_str(self._data)

    def __format__(self, spec: str) -> str:
        if spec:
            return format(self._data.item() if self._data.size == 1 else self._data, spec)
        return str(self)

    # --- Python protocols --------------------------------------------------------------------

    __hash__ = object.__hash__  # identity: Tensors are dict keys (param -> grad) and set members

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        return self._data.shape[0]

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise ValueError(f"the truth value of a Tensor of shape {list(self.shape)} is ambiguous; "
                             "use .any() or .all()")
        return bool(self._data.item())

    def __float__(self) -> float:
        return float(self._data.item())

    def __int__(self) -> int:
        return int(self._data.item())

    def __index__(self) -> int:
        if self.dtype.is_float or self._data.size != 1:
            raise TypeError("only integer Tensors of one element can be used as an index")
        return int(self._data.item())

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d Tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    # --- arithmetic and comparison operators (all through the registry) ---------------------

    # the binary operators are installed from BINARY_OPERATORS below the class
    # the unary operators too (-x, abs(x), ~x: logical_not, as MindSpore's ~)

    def __pos__(self) -> "Tensor":
        return self

    # --- conversion (the family modules of graphcell.ops.function add the other methods) ----

    def astype(self, dtype, copy: bool = True) -> "Tensor":
        """The tensor cast to ``dtype`` (a graphcell dtype, numpy dtype or name)."""
        return F.cast(self, dtype=to_dtype(dtype))

    # --- indexing ----------------------------------------------------------------------------

    def __getitem__(self, key) -> "Tensor":
        from graphcell import _indexing
        return _indexing.getitem(self, key)

    def __setitem__(self, key, value) -> None:
        """In-place assignment (``net.b[0] = 1.``): the tensor takes the updated values."""
        from graphcell import _indexing
        _indexing.setitem(self, key, value)

    def _update_in_place(self, compute):
        """``self`` takes the value ``compute(snapshot)`` (an op on a snapshot of it, so a taped
        gradient sees the old value feed the new one) and is returned: in-place methods
        (``x.add_(y)``, ``x.zero_()``). Graph mode's ``GraphTensor`` returns the new value."""
        from graphcell import _indexing
        out = compute(_indexing._snapshot(self))
        _indexing._become(self, out)
        return self

    def __getattr__(self, name: str):
        # only reached when normal lookup fails: say whether MindSpore's Tensor has the name
        if name.startswith("__"):
            raise AttributeError(name)
        from graphcell._compat import missing_attribute
        raise missing_attribute("mindspore.Tensor", name, f"'{type(self).__name__}' object")


install_binary_operators(Tensor, _binary)
for _symbol, _method, _op in _UNARY_OPERATORS:
    setattr(Tensor, _method, _unary(_op))


def _declares_dynamic_shape(args: tuple, kwargs: dict) -> bool:
    """``Tensor(shape=[None, 3], dtype=...)`` (no data, no init; an unknown dimension, or
    ``shape=None``): MindSpore's declaration of a dynamic shape."""
    names = ("input_data", "dtype", "shape", "init")
    given = dict(zip(names, args)) | {k: v for k, v in kwargs.items() if k in names}
    if given.get("input_data") is not None or given.get("init") is not None:
        return False
    shape = given.get("shape")
    return shape is None or any(d is None or (isinstance(d, int) and d < 0) for d in shape)


class DynamicShape(Tensor):
    """What ``Tensor(shape=[None, 3], dtype=ms.float32)`` makes: the declaration of an input
    whose shape has unknown dimensions (``shape=None``: an unknown rank), for
    ``Cell.set_inputs``. It holds no data; ``shape`` shows ``-1`` for an unknown dimension and
    ``(-2,)`` for an unknown rank, as MindSpore's.

    Example::

        >>> import graphcell as ms
        >>> t = ms.Tensor(shape=[None, 3], dtype=ms.float32)
        >>> t.shape, t.dtype, t
        ((-1, 3), Float32, Tensor(shape=[-1, 3], dtype=Float32, value= <unknown>))
    """

    __slots__ = ("_declared", "_declared_dtype")

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False,
                 const_arg=False):
        if dtype is None:
            raise ValueError("Tensor: a dynamic shape (an unknown dimension, or shape=None) needs "
                             "a dtype, and no init")
        self._declared = None if shape is None else tuple(
            -1 if d is None or d < 0 else int(d) for d in shape)
        self._declared_dtype = to_dtype(dtype)
        self._data = None
        self._node = None

    @property
    def shape(self) -> tuple[int, ...]:
        return (-2,) if self._declared is None else self._declared

    @property
    def dtype(self) -> DType:
        return self._declared_dtype

    @property
    def ndim(self) -> int:
        return -1 if self._declared is None else len(self._declared)

    def asnumpy(self):
        raise ValueError(f"{self!r} declares a dynamic shape and holds no data")

    def __repr__(self) -> str:
        return (f"Tensor(shape={list(self.shape)}, dtype={self._declared_dtype}, "
                "value= <unknown>)")

    __str__ = __repr__

    def mismatch(self, x) -> Exception | None:
        """The error for a Tensor ``x`` that does not fit this declaration (None when it does):
        a TypeError for another type or dtype, a ValueError for another rank or dimension."""
        if not isinstance(x, Tensor):
            return TypeError(f"expected a Tensor, got {type(x).__name__}")
        if x.dtype is not self._declared_dtype:
            return TypeError(f"the type should be Tensor[{self._declared_dtype}], but got "
                             f"Tensor[{x.dtype}]")
        if self._declared is None:
            return None
        if len(x.shape) != len(self._declared):
            return ValueError(f"the dims should be the same as declared: expected "
                              f"{len(self._declared)}, got {len(x.shape)}")
        for i, (d, n) in enumerate(zip(self._declared, x.shape)):
            if d != -1 and d != n:
                return ValueError(f"dimension {i} should be {d} as declared, but got {n}")
        return None

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
    op = _R[name]
    apply_binary = dispatch.apply_binary

    def method(self, other):
        if other.__class__ is not Tensor:
            other = _operand(other)
            if other is NotImplemented:
                return NotImplemented
        return apply_binary(op, other, self) if reflected else apply_binary(op, self, other)
    method.__name__ = f"__r{name}__" if reflected else f"__{name}__"
    return method


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

    __slots__ = ("_data", "_node", "__weakref__")
    __array_priority__ = 100  # numpy defers to Tensor's reflected operators

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

    def asnumpy(self) -> np.ndarray:
        """The values as a numpy array (shares memory with the Tensor, as in MindSpore)."""
        return self._data

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def item(self, index=None):
        """The value of a one-element tensor (or of ``self[index]``) as a Python number."""
        return self._data.item() if index is None else self._data.item(index)

    def tolist(self):
        return self._data.tolist()

    def copy(self) -> "Tensor":
        return Tensor._wrap(self._data.copy())

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

    def __getattr__(self, name: str):
        # only reached when normal lookup fails: say whether MindSpore's Tensor has the name
        if name.startswith("__"):
            raise AttributeError(name)
        from graphcell._compat import missing_attribute
        raise missing_attribute("mindspore.Tensor", name, f"'{type(self).__name__}' object")


install_binary_operators(Tensor, _binary)
for _symbol, _method, _op in _UNARY_OPERATORS:
    setattr(Tensor, _method, _unary(_op))

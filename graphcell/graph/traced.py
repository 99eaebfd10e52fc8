"""Library code on IR values: how ``Tensor`` methods, ``ops`` adapters and ``nn`` helpers compile.

graphcell's own library functions are written against the functional API ``F``, so the frontend
does not parse them: it *calls* them with IR values while its Builder is the current emitter
(the resolver's ``Traced`` record). Two things would go wrong if they saw bare IR values:

- methods call other methods on ``self`` (``Tensor.sum`` calls ``self._reduce``), and the nn
  helpers check ``isinstance(x, Tensor)`` before reading ``x.shape``;
- the Tensor operators (``x + y``) take PyNative's inlined fast path, not ``F``.

So :func:`traced` wraps such a function: IR tensor values are handed to it as
:class:`GraphTensor` objects — real ``Tensor`` instances whose ``shape``/``dtype`` are the IR
value's type, whose operators go through ``F``, and which refuse to show data that does not exist
yet — and an emitter in between turns them back into IR values for the frontend's Builder.

Example::

    >>> from graphcell_ir.ir import Builder, Function, TensorType, float32
    >>> from graphcell_ir.ops import functional as F
    >>> from graphcell.tensor import Tensor
    >>> fn = Function("f"); x = fn.add_arg(TensorType(float32, (2, 3)), "x")
    >>> with F.using_emitter(Builder.at_end(fn.body)):
    ...     y = traced(Tensor.sum)(x, axis=1)
    >>> str(y.type)
    'f32[2]'
"""
from __future__ import annotations

import functools

import numpy as np

from graphcell.parameter import Parameter
from graphcell.tensor import Tensor, install_binary_operators
from graphcell_ir.errors import GraphcellError
from graphcell_ir.ir.core import Value
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops import functional as F

__all__ = ["GraphTensor", "traced", "UnknownValueError"]


class UnknownValueError(GraphcellError, TypeError):
    """Library code asked for something a compiled tensor does not have while compiling."""


class _Placeholder(np.ndarray):
    """The ``_data`` of a GraphTensor: right dtype and shape, no values. numpy refuses to compute
    with it, so an eager op reached by mistake (a Primitive called inside library code) fails
    loudly instead of computing on made-up numbers."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise UnknownValueError(f"numpy's {ufunc.__name__} was applied to a compiled tensor while "
                              "compiling; library code must compute with graphcell ops (F), not "
                              "eagerly (is a Primitive called outside construct?)")

    def __array_function__(self, func, types, args, kwargs):
        raise UnknownValueError(f"numpy.{func.__name__} was applied to a compiled tensor while "
                              "compiling; library code must compute with graphcell ops (F), not "
                              "eagerly (is a Primitive called outside construct?)")


def _placeholder(t: TensorType) -> np.ndarray:
    """A read-only array of ``t``'s dtype and shape that owns one element (zero strides)."""
    base = np.zeros((), t.dtype.np_dtype)
    arr = np.lib.stride_tricks.as_strided(base, shape=t.shape, strides=(0,) * len(t.shape))
    arr.flags.writeable = False
    return arr.view(_Placeholder)


def _no_data(what: str):
    def method(self, *args, **kwargs):
        raise UnknownValueError(f"{what} needs the values of a tensor, which are not known while "
                              f"graph mode compiles ({self.value.type}); compute with ops instead, "
                              "or run in PyNative mode")
    method.__name__ = what
    return method


def _binary(name: str, reflected: bool = False):
    fn = getattr(F, name)

    def method(self, other):
        if not isinstance(other, (Tensor, Value, bool, int, float, np.ndarray, np.generic)):
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)
    return method


class GraphTensor(Tensor):
    """A ``Tensor`` standing for IR value ``value`` while the frontend traces library code.

    ``shape``, ``dtype``, ``ndim``, ``len()``, iteration and static indexing work; every op goes
    through ``F`` (so into the IR); reading values (``asnumpy``, ``item``, ``bool``...) raises
    :class:`UnknownValueError`.
    """

    __slots__ = ("value",)

    def __init__(self, value: Value):  # noqa: D107 - not Tensor's constructor
        self.value = value
        self._data = _placeholder(value.type)
        self._node = None

    def __repr__(self) -> str:
        return f"GraphTensor({self.value.type})"

    __str__ = __repr__

    __hash__ = Tensor.__hash__

    asnumpy = _no_data("asnumpy()")
    __array__ = _no_data("converting to a numpy array")
    item = _no_data("item()")
    tolist = _no_data("tolist()")
    __bool__ = _no_data("the truth value of a tensor (in a Python if/while/and/or)")
    __float__ = _no_data("float()")
    __int__ = _no_data("int()")
    __index__ = _no_data("using a tensor as an index")
    __format__ = _no_data("formatting a tensor")

    def __getitem__(self, key):
        parts = key if isinstance(key, tuple) else (key,)
        if any(isinstance(p, (Tensor, Value, np.ndarray, list)) for p in parts):
            raise UnknownValueError("indexing with a tensor inside library code is not supported "
                                  "in graph mode; index in construct instead")
        return Tensor.__getitem__(self, key)

    def __setitem__(self, key, value) -> None:
        raise UnknownValueError("in-place assignment to a tensor inside library code is not "
                              "supported in graph mode")

    def _update_in_place(self, compute):
        """In-place methods (``x.add_(y)``, ``x.zero_()``): there is no buffer to rebind while
        compiling, so the new value is returned, as MindSpore's graph mode gives it."""
        return compute(self)


# --- crossing the boundary -----------------------------------------------------------------------

install_binary_operators(GraphTensor, _binary)


def to_graph(v):
    """IR tensor values (also inside tuples/lists) as GraphTensors; everything else unchanged."""
    if isinstance(v, Value):
        return GraphTensor(v) if isinstance(v.type, TensorType) else v
    if isinstance(v, tuple):
        return tuple(to_graph(x) for x in v)
    if isinstance(v, list):
        return [to_graph(x) for x in v]
    return v


def to_ir(v, where: str):
    """GraphTensors back to IR values; captured Tensors to their arrays (constants)."""
    if isinstance(v, GraphTensor):
        return v.value
    if isinstance(v, Parameter):
        raise UnknownValueError(f"{where} read Parameter '{v.name}' directly; in graph mode a "
                              "Parameter must reach library code through construct (pass "
                              "self.<param> as an argument)")
    if isinstance(v, Tensor):
        return v._data
    if isinstance(v, tuple):
        return tuple(to_ir(x, where) for x in v)
    if isinstance(v, list):
        return [to_ir(x, where) for x in v]
    return v


class _Unwrapping:
    """The emitter library code sees: GraphTensors in, the frontend's emitter, GraphTensors out."""

    __slots__ = ("inner", "where")

    def __init__(self, inner, where: str):
        self.inner = inner
        self.where = where

    def emit(self, op, args: tuple, attrs: dict):
        out = self.inner.emit(op, tuple(to_ir(a, self.where) for a in args), attrs)
        return to_graph(out)


def _function_name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def traced(fn):
    """``fn`` made callable by the frontend with IR values (the ``Traced`` record's function).

    The result holds IR values where ``fn`` returned tensors; constant Tensors it returns become
    ``const`` ops when the emitter can make them (a Builder), numpy arrays otherwise.
    """
    where = _function_name(fn)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        inner = F.current_emitter()
        with F.using_emitter(_Unwrapping(inner, where)):
            out = fn(*to_graph(args), **{k: to_graph(v) for k, v in kwargs.items()})
        return _result(out, inner, where)
    run.__graphcell_traced__ = fn
    return run


def _result(out, inner, where: str):
    if isinstance(out, GraphTensor):
        return out.value
    if isinstance(out, Tensor) and not isinstance(out, Parameter):
        make = getattr(inner, "value", None)
        return make(out._data) if make is not None else out._data
    if isinstance(out, tuple):
        return tuple(_result(x, inner, where) for x in out)
    if isinstance(out, list):
        return [_result(x, inner, where) for x in out]
    return to_ir(out, where)

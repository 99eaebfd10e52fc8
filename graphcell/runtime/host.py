"""Python run by a compiled graph on its run-time values, as PyNative runs it (``py_call``).

The frontend compiles what graph mode can; what has to run as Python — a hook whose body does
what a graph cannot, JIT-Fallback code on run-time values, a user's Python primitive — becomes
one ``py_call`` op (``graphcell_ir/frontend/host.py``). :class:`HostFunction` is the Python
callable that op runs: the run-time arrays become Tensors, the function runs in PyNative mode
(so it may print, append to lists, call ``asnumpy``, even run cells), and what it returns is
checked against the types the graph was compiled for and handed back as arrays.

Under a gradient the call is differentiable: the function runs on the tape, with a tracked leaf
per float tensor it is given, and the record is kept under a token (the op's last result); the
op's gradient calls :meth:`HostFunction.vjp`, which walks that tape back — so a hook that
returns ``outputs + outputs`` doubles the gradient and one that returns a fresh tensor cuts it,
exactly as in PyNative. Records live until their backward runs, or until the compiled call ends
(``hooks.compiled_run`` drops what is left).

Example::

    >>> import numpy as np
    >>> from graphcell_ir.frontend.host import HostCall, Slot
    >>> from graphcell_ir.ir.types import TensorType, float32
    >>> f32_2 = TensorType(float32, (2,))
    >>> double = HostFunction(HostCall(lambda t: t * 2, (Slot(0),), {}, Slot(0), (f32_2,),
    ...                                False, "double"))
    >>> double(np.array([1.0, 2.0], np.float32))
    (array([2., 4.], dtype=float32),)
"""
from __future__ import annotations

import itertools
from contextlib import contextmanager

import numpy as np

from graphcell import context
from graphcell.runtime import hooks, tape
from graphcell.tensor import Tensor
from graphcell_ir.errors import GraphcellError
from graphcell_ir.frontend.host import HostCall, Slot, fill_slots
from graphcell_ir.ir.types import ObjectType, ScalarType, TensorType, dtype_from_numpy

__all__ = ["HostFunction", "HostCallError"]


class HostCallError(GraphcellError, TypeError):
    """Python code run by a compiled graph gave back something of another structure, shape or
    dtype than the graph was compiled for."""


@contextmanager
def _pynative():
    """The function runs as PyNative runs it (cells it calls run op by op)."""
    values = context._values
    saved = values["mode"]
    values["mode"] = context.PYNATIVE_MODE
    try:
        yield
    finally:
        values["mode"] = saved


class HostFunction:
    """The callable of one ``py_call`` op (see the module docstring)."""

    def __init__(self, call: HostCall):
        self.call = call
        self.__name__ = call.name
        self._records: dict[int, tuple] = {}
        self._ids = itertools.count()
        if call.differentiable:
            self.vjp = _Vjp(self)

    def __call__(self, *values):
        call = self.call
        kinds = call.inputs or (None,) * len(values)   # arrays are Tensors, obj values stay
        tensors = [v if isinstance(t, (ObjectType, ScalarType)) else _as_tensor(v)
                   for v, t in zip(values, kinds)]
        leaves, record = [], None
        try:
            with _pynative():
                if call.differentiable:
                    for i, t in enumerate(tensors):
                        if isinstance(t, Tensor) and t.dtype.is_float:
                            tensors[i], node = tape.make_leaf(t, f"{call.name}:arg{i}")
                            leaves.append((t, node))
                    with tape.recording():
                        out = self._run(tensors)
                else:
                    out = self._run(tensors)
            results = _flatten(out, call.result, call.types, call.name)
        except Exception as e:
            if hooks.in_compiled_run():
                raise hooks.HookFailed(e) from None
            raise
        arrays = [_as_array(r, t) for r, t in zip(results, call.types)]
        if call.differentiable:
            token = next(self._ids)
            record = (leaves, [r if isinstance(t, TensorType) else None
                               for r, t in zip(results, call.types)])
            self._records[token] = record
            hooks.keep_until_run_ends(self._records)
            arrays.append(np.array(token, np.int64))
        return tuple(arrays)

    def _run(self, tensors: list):
        call = self.call
        return call.function(*fill_slots(call.args, tensors), **fill_slots(call.kwargs, tensors))

    def backward(self, token: int, douts: list) -> tuple:
        """The cotangents of the float tensors the call was given, from the cotangents of its
        tensor results (``douts``), through the tape of the call ``token``."""
        leaves, outs = self._records.pop(token)
        pairs = [(o, Tensor._wrap(np.asarray(d))) for o, d in zip(outs, douts)
                 if isinstance(o, Tensor)]
        stop = {id(node) for _, node in leaves}
        try:
            with _pynative(), tape.paused():
                grads = tape.backward(tuple(o for o, _ in pairs), tuple(d for _, d in pairs), stop)
        except Exception as e:
            if hooks.in_compiled_run():
                raise hooks.HookFailed(e) from None
            raise
        finally:
            tape.release(tuple(o for o, _ in pairs))
        return tuple(_grad_array(grads.get(id(node)), t) for t, node in leaves)

    def __repr__(self) -> str:
        return f"<HostFunction {self.__name__}>"


class _Vjp:
    """``fn.vjp`` of a differentiable call: ``(*tensor results, token, *their cotangents)``."""

    def __init__(self, host: HostFunction):
        self.host = host
        self.__name__ = f"{host.__name__}.vjp"

    def __call__(self, *values):
        n = len(values) // 2     # the tensor results (the token last), then their cotangents
        token = int(np.asarray(values[n - 1]))
        return self.host.backward(token, list(values[n:2 * n - 1]))


def _as_tensor(v):
    """A run-time value as the function sees it: arrays as Tensors (their own copy)."""
    if isinstance(v, np.ndarray):
        return Tensor._wrap(np.array(v, copy=True))
    if isinstance(v, np.generic):
        return Tensor._wrap(np.asarray(v))
    return v


def _grad_array(g, like: Tensor) -> np.ndarray:
    if g is None:
        return np.zeros_like(like._data)
    return np.asarray(g._data if isinstance(g, Tensor) else g, like._data.dtype)


def _flatten(out, template, types: tuple, name: str) -> list:
    """The values at the Slots of ``template`` in what the function returned."""
    found: list = [None] * len(types)

    def walk(value, t, where: str):
        if isinstance(t, Slot):
            found[t.index] = _check(value, types[t.index], name, where)
            return
        if type(t) in (tuple, list):
            if not isinstance(value, (tuple, list)) or len(value) != len(t):
                raise HostCallError(f"{name} returned {_describe(value)} at {where}; graph mode "
                                    f"compiled the program for {_describe(t)} there")
            for i, (v, s) in enumerate(zip(value, t)):
                walk(v, s, f"{where}[{i}]")
            return
        if type(t) is dict:
            if not isinstance(value, dict) or list(value) != list(t):
                raise HostCallError(f"{name} returned {_describe(value)} at {where}; graph mode "
                                    f"compiled the program for a dict with keys {list(t)} there")
            for k in t:
                walk(value[k], t[k], f"{where}[{k!r}]")
            return
        if value is not t and not _same(value, t):
            raise HostCallError(f"{name} returned {_describe(value)} at {where}, where graph mode "
                                f"compiled the program for {t!r} (a value known while compiling)")
    walk(out, template, "the result")
    return found


def _check(value, t, name: str, where: str):
    if isinstance(t, ObjectType):
        return value
    if isinstance(t, ScalarType):
        if isinstance(value, Tensor) or not isinstance(value, (bool, int, float, np.generic)):
            raise HostCallError(f"{name} returned {_describe(value)} at {where}, where graph mode "
                                f"compiled the program for a Python number")
        return value
    if not isinstance(value, Tensor) or value.shape != t.shape or \
            dtype_from_numpy(value._data.dtype) is not t.dtype:
        raise HostCallError(f"{name} returned {_describe(value)} at {where}, where graph mode "
                            f"compiled the program for a Tensor {t} (graph mode keeps shapes and "
                            "dtypes static: return values of the shapes and dtypes it was given)")
    return value


def _as_array(value, t):
    if isinstance(t, TensorType):
        return value._data
    return value


def _same(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - objects without a plain ==: only identity counts
        return False


def _describe(v) -> str:
    if isinstance(v, Tensor):
        return f"a Tensor {TensorType(dtype_from_numpy(v._data.dtype), v.shape)}"
    if isinstance(v, tuple):
        return f"a tuple of {len(v)}"
    if isinstance(v, list):
        return f"a list of {len(v)}"
    if isinstance(v, Slot):
        return "a run-time value"
    return repr(v) if isinstance(v, (bool, int, float, str, type(None))) else \
        f"a {type(v).__name__}"

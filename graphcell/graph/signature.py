"""The input signature of a compiled call: what the compile cache keys on, computed per call.

A call's arguments are Tensors (keyed by dtype and shape: the IR is specialised to them, DESIGN
§4), Python values (keyed by type and value: they are compile-time constants, as in MindSpore)
and tuples/lists of these. :func:`flatten` makes the key and collects the tensors' arrays (the
compiled function's inputs) in one pass; it is on the hot path of every call, so it is plain code
over the common cases. :func:`arg_specs` and :func:`describe` run only when compiling or
explaining a recompile.

Example::

    >>> import graphcell as ms
    >>> key, leaves = flatten((ms.Tensor([[1.0, 2.0]]), 3))
    >>> [describe_spec(s) for s in arg_specs((ms.Tensor([[1.0, 2.0]]), 3))]
    ['f32[1,2]', '3']
    >>> len(leaves)
    1
"""
from __future__ import annotations

import types

import numpy as np

from graphcell.graph.traced import traced
from graphcell.runtime.hooks import input_hooks
from graphcell.runtime.tape import TENSOR_HOOKS
from graphcell.tensor import Tensor
from graphcell_ir.frontend.resolve import HookedArgument
from graphcell_ir.ir.types import DType, TensorType, dtype_from_numpy

__all__ = ["flatten", "arg_specs", "describe_spec", "short_value", "InputError"]

_SCALARS = (bool, int, float, str, type(None))
_TUPLE, _LIST, _DICT, _OBJECT = "tuple", "list", "dict", "object"


class InputError(TypeError):
    """An argument graph mode cannot take (the message names the argument)."""


def flatten(args: tuple, prefix=None) -> tuple[tuple, list]:
    """``(key, arrays)``: the hashable signature of ``args`` (after ``prefix``, the training flag
    of a cell) and their tensors' arrays in order."""
    key: list = [prefix]
    leaves: list = []
    hooked = TENSOR_HOOKS[0]
    for a in args:
        if isinstance(a, Tensor):
            d = a._data
            key.append(d.dtype)
            key.append(d.shape)
            leaves.append(d)
            if hooked and getattr(a, "_hooks", None):   # Tensor.register_hook on an input
                key.append(tuple(a._hooks.values()))
        else:
            _flatten_other(a, key, leaves)
    return tuple(key), leaves


def _flatten_other(a, key: list, leaves: list) -> None:
    if isinstance(a, _SCALARS) or isinstance(a, DType):
        key.append(type(a))
        key.append(a)
    elif isinstance(a, dict):
        key.append(_DICT)
        key.append(tuple(a))
        for x in a.values():
            if isinstance(x, Tensor):
                key.append(x._data.dtype)
                key.append(x._data.shape)
                leaves.append(x._data)
            else:
                _flatten_other(x, key, leaves)
    elif _is_static_object(a):   # a cell or a function: compiled in, keyed by identity
        key.append(_OBJECT)
        key.append(a)
    elif isinstance(a, (tuple, list)):
        key.append(_TUPLE if isinstance(a, tuple) else _LIST)
        key.append(len(a))
        for x in a:
            if isinstance(x, Tensor):
                key.append(x._data.dtype)
                key.append(x._data.shape)
                leaves.append(x._data)
            else:
                _flatten_other(x, key, leaves)
    elif isinstance(a, (np.ndarray, np.generic)):
        raise InputError(f"a numpy {type(a).__name__} cannot be passed to a compiled function; "
                         "wrap it in a Tensor (ms.Tensor(array))")
    else:
        raise InputError(f"a {type(a).__name__} cannot be passed to a compiled function; inputs "
                         "are Tensors, numbers, strings, None, dtypes, cells, functions, or "
                         "tuples/lists/dicts of them")


def _is_static_object(a) -> bool:
    from graphcell.nn.cell import Cell
    return isinstance(a, (Cell, types.FunctionType, types.MethodType)) or (
        callable(a) and not isinstance(a, (np.ndarray, np.generic, type)))


def arg_specs(args: tuple) -> list:
    """What the frontend is told about each argument (``compile_function``'s ``arg_specs``): a
    ``TensorType`` for a Tensor, a tuple/list of specs for a tuple/list, the value itself for a
    Python value (the function is specialised to it)."""
    return [_spec(a) for a in args]


def _spec(a):
    if isinstance(a, Tensor):
        t = TensorType(dtype_from_numpy(a._data.dtype), a._data.shape)
        hooks = getattr(a, "_hooks", None) if TENSOR_HOOKS[0] else None
        return HookedArgument(t, traced(input_hooks(tuple(hooks.values())))) if hooks else t
    if isinstance(a, (tuple, list)):
        return type(a)(_spec(x) for x in a)
    if isinstance(a, dict):
        return {k: _spec(x) for k, x in a.items()}
    return a


def describe_spec(spec) -> str:
    """``f32[2,3]``, ``3``, ``(f32[2], f32[3])``: a spec as the cache log writes it."""
    if isinstance(spec, HookedArgument):
        return f"{spec.type} (hooked)"
    if isinstance(spec, TensorType):
        return str(spec)
    if isinstance(spec, tuple):
        return "(" + ", ".join(describe_spec(s) for s in spec) + ("," if len(spec) == 1 else "") + ")"
    if isinstance(spec, list):
        return "[" + ", ".join(describe_spec(s) for s in spec) + "]"
    if isinstance(spec, dict):
        return "{" + ", ".join(f"{k!r}: {describe_spec(s)}" for k, s in spec.items()) + "}"
    return short_value(spec)


def short_value(v, limit: int = 40) -> str:
    """``repr(v)`` cut to ``limit`` characters (dtypes by their name)."""
    text = str(v) if isinstance(v, DType) else repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."

"""``mindspore.common.api``: the graph-mode entry points under MindSpore's import path.

``jit`` (``ms_function``) compiles a function or method; ``jit_class`` marks a class whose
instances graph mode may use (graphcell's frontend reads any object's attributes and methods
while compiling, so the mark only checks its argument); ``mutable`` marks a value as a variable
input of a compiled function (graphcell specialises compiled code on shapes and dtypes, never on
tensor values, so it returns its input).

Example::

    >>> import graphcell as ms
    >>> ms.mutable((ms.Tensor([1.0]), ms.Tensor([2.0])))[1]
    Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00])
"""
from __future__ import annotations

from graphcell.graph.jit import jit, ms_function
from graphcell.tensor import Tensor

__all__ = ["jit", "ms_function", "jit_class", "mutable"]


def jit_class(cls):
    """``@ms.jit_class``: mark a user class as usable in graph mode; returns the class."""
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: expected a class, got {type(cls).__name__}")
    return cls


def mutable(input_data, dynamic_len: bool = False):
    """``ms.mutable(input_data, dynamic_len=False)``: ``input_data`` marked as a variable input.

    Accepts what MindSpore accepts: a Tensor, or a tuple, list or dict of Tensors (nested), or of
    numbers; returns it unchanged.
    """
    if not _mutable_ok(input_data):
        raise TypeError(f"mutable: input_data must be a Tensor, a number, or a tuple, list or "
                        f"dict of them, got {type(input_data).__name__}")
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise ValueError("mutable: dynamic_len=True needs a tuple or list")
    return input_data


def _mutable_ok(v) -> bool:
    if isinstance(v, (Tensor, int, float)) and not isinstance(v, bool):
        return True
    if isinstance(v, (tuple, list)):
        return all(_mutable_ok(x) for x in v)
    if isinstance(v, dict):
        return all(_mutable_ok(x) for x in v.values())
    return False

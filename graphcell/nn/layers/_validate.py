"""Argument checks shared by the layers, losses and optimizers.

Each check names the cell and the argument, says what was expected and shows what came, and
returns the normalised value, so a constructor reads as a list of ``self.x = check_...(x, ...)``.
MindSpore raises TypeError for a value of the wrong type and ValueError for one out of range;
these do the same.
"""
from __future__ import annotations

import numbers

from graphcell.tensor import Tensor


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_positive_int(value, name: str, owner: str) -> int:
    if not _is_int(value):
        raise TypeError(f"{owner}: '{name}' must be an int, got {type(value).__name__} {value!r}")
    if value <= 0:
        raise ValueError(f"{owner}: '{name}' must be a positive int, got {value}")
    return int(value)


def check_bool(value, name: str, owner: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: '{name}' must be a bool, got {type(value).__name__} {value!r}")
    return value


def check_float(value, name: str, owner: str, low=None, high=None, low_open=False,
                high_open=False) -> float:
    """A real number (ints accepted) in [low, high]; ``*_open`` excludes that end."""
    if not _is_number(value):
        raise TypeError(f"{owner}: '{name}' must be a float, got {type(value).__name__} {value!r}")
    value = float(value)
    too_low = low is not None and (value < low or (low_open and value == low))
    too_high = high is not None and (value > high or (high_open and value == high))
    if too_low or too_high:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo, hi = ("-inf" if low is None else low), ("inf" if high is None else high)
        interval = f"{left}{lo}, {hi}{right}"
        raise ValueError(f"{owner}: '{name}' must be in {interval}, got {value}")
    return value


def check_string(value, valid, name: str, owner: str, upper: bool = False) -> str:
    """One of ``valid``, compared case-insensitively; returned in the case ``valid`` uses."""
    if not isinstance(value, str):
        raise TypeError(f"{owner}: '{name}' must be a str, got {type(value).__name__} {value!r}")
    for v in valid:
        if v.lower() == value.lower():
            return v.upper() if upper else v
    raise ValueError(f"{owner}: '{name}' must be one of {list(valid)}, got {value!r}")


def int_pair(value, name: str, owner: str, allow_zero: bool = False) -> tuple[int, int]:
    """An (h, w) pair from an int or a tuple of two ints."""
    items = (value, value) if _is_int(value) else value
    if not (isinstance(items, tuple) and len(items) == 2 and all(_is_int(v) for v in items)):
        raise TypeError(f"{owner}: '{name}' must be an int or a tuple of two ints, got {value!r}")
    if any(v < 0 or (v == 0 and not allow_zero) for v in items):
        kind = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{owner}: '{name}' must hold {kind} ints, got {value!r}")
    return int(items[0]), int(items[1])


def check_init_shape(init, shape: tuple, what: str, owner: str) -> None:
    """A Tensor given as ``weight_init``/``bias_init`` must already have the parameter's shape."""
    if isinstance(init, Tensor) and tuple(init.shape) != tuple(shape):
        raise ValueError(f"{owner}: {what} has shape {list(init.shape)}, but the parameter needs "
                         f"{list(shape)}")


def check_tensor(value, name: str, owner: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{owner}: '{name}' must be a Tensor, got {type(value).__name__}")
    return value


def describe(t) -> str:
    """``Float32 [2, 3]``: how messages show a Tensor (or the type of anything else)."""
    if isinstance(t, Tensor):
        return f"{t.dtype} {list(t.shape)}"
    return type(t).__name__

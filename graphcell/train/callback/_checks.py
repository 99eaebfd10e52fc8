"""Argument checks of the callbacks: each names the callback and the argument."""
from __future__ import annotations

import numbers


def non_negative_int(value, name: str, owner: str) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{owner}: '{name}' must be an int, got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{owner}: '{name}' must be a non-negative int, got {value}")
    return int(value)


def real(value, name: str, owner: str) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{owner}: '{name}' must be a float or an int, got "
                        f"{type(value).__name__} {value!r}")
    return float(value)


def boolean(value, name: str, owner: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: '{name}' must be a bool, got {type(value).__name__} {value!r}")
    return value


def one_of(value, choices: tuple, name: str, owner: str):
    if value not in choices:
        raise ValueError(f"{owner}: '{name}' must be one of {list(choices)}, got {value!r}")
    return value

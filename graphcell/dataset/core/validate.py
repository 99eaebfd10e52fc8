"""Argument checks shared by the dataset API: each raises with a message that names the argument.

Example::

    >>> from graphcell.dataset.core.validate import check_int
    >>> check_int("batch_size", 0, low=1)
    Traceback (most recent call last):
    ...
    ValueError: batch_size must be an int in [1, 2147483647], got 0
"""
from __future__ import annotations

import numbers

INT32_MAX = 2147483647
INT64_MAX = 9223372036854775807


def check_int(name: str, value, low: int = 0, high: int = INT32_MAX) -> int:
    """``value`` as an int in [low, high]; bools and floats are refused."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be an int in [{low}, {high}], got {value!r}")
    return int(value)


def check_optional_int(name: str, value, low: int = 0, high: int = INT32_MAX) -> int | None:
    return None if value is None else check_int(name, value, low, high)


def check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
    return value


def check_workers(value) -> None:
    """``num_parallel_workers``: accepted (the pipeline runs in the calling thread) when valid."""
    if value is not None:
        check_int("num_parallel_workers", value, 1)


def column_list(name: str, value, allow_none: bool = True) -> list[str] | None:
    """A column argument as a list of names: a str is one column; duplicates are refused."""
    if value is None:
        if allow_none:
            return None
        raise TypeError(f"{name} must be a column name or a list of column names, got None")
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not names:
        raise TypeError(f"{name} must be a column name or a non-empty list of column names, got "
                        f"{value!r}")
    for n in names:
        if not isinstance(n, str) or not n:
            raise TypeError(f"{name} must hold non-empty strings, got {n!r} in {value!r}")
    dup = sorted({n for n in names if list(names).count(n) > 1})
    if dup:
        raise ValueError(f"{name} names a column more than once: {dup} in {list(names)}")
    return list(names)

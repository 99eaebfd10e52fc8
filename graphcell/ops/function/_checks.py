"""Argument checks shared by the matrix families (``linalg_func``, ``structured_func``): each raises
TypeError/ValueError naming the function (``name``) and the argument (``what``)."""
from __future__ import annotations

from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, float16, float32, float64


def tensor(x, name: str, what: str):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: {what} must be a Tensor, got {type(x).__name__}")
    return x


def same_dtype(name: str, *pairs) -> None:
    (n0, t0), *rest = pairs
    for n, t in rest:
        if t.dtype != t0.dtype:
            raise TypeError(f"{name}: {n} must have the dtype of {n0}, got {t.dtype} and "
                            f"{t0.dtype}")


def numeric(name: str, what: str, x) -> None:
    if x.dtype == bool_:
        raise TypeError(f"{name}: {what} must be numeric, got {x.dtype}")


def floats(name: str, what: str, x, allowed=(float16, float32, float64)) -> None:
    if x.dtype not in allowed:
        names = ", ".join(str(d) for d in allowed)
        raise TypeError(f"{name}: {what} must have dtype {names}, got {x.dtype}")


def rank(name: str, what: str, x, ranks) -> None:
    if x.ndim not in ranks:
        want = " or ".join(map(str, ranks)) if len(ranks) < 4 else f">= {min(ranks)}"
        raise ValueError(f"{name}: {what} must have rank {want}, got shape {list(x.shape)}")


def min_rank(name: str, what: str, x, rank: int) -> None:
    if x.ndim < rank:
        raise ValueError(f"{name}: {what} must have rank >= {rank}, got shape {list(x.shape)}")


def square(name: str, what: str, x) -> None:
    min_rank(name, what, x, 2)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name}: {what} must be square matrices, got shape {list(x.shape)}")

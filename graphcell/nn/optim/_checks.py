"""Argument checks of the optimizers, with MindSpore 2.10's strictness: where MindSpore wants a
float (``beta1``, ``eps``, ``momentum`` of ``Momentum``...), an int is a TypeError too."""
from __future__ import annotations

from graphcell.nn.layers._validate import check_float

__all__ = ["float_arg", "betas_eps"]


def float_arg(value, name: str, owner: str, low=None, high=None, low_open=False,
              high_open=False) -> float:
    """A Python float (not an int, not a bool) in the given interval."""
    if not isinstance(value, float):
        raise TypeError(f"{owner}: '{name}' must be a float, got {type(value).__name__} "
                        f"{value!r}")
    return check_float(value, name, owner, low, high, low_open, high_open)


def betas_eps(beta1, beta2, eps, owner: str) -> tuple[float, float, float]:
    """Adam-family checks: ``beta1``, ``beta2`` in (0, 1) and ``eps`` > 0, all floats."""
    return (float_arg(beta1, "beta1", owner, 0.0, 1.0, True, True),
            float_arg(beta2, "beta2", owner, 0.0, 1.0, True, True),
            float_arg(eps, "eps", owner, low=0.0, low_open=True))

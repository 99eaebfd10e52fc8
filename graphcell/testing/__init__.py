"""``graphcell.testing``: tools for testing code written with graphcell.

- :func:`check_grads` compares graphcell's gradients with central finite differences in float64
  and raises ``AssertionError`` naming the worst element when they disagree. It works on plain
  functions of Tensors and on Cells (with ``weights=`` their Parameters).
- :mod:`graphcell.testing.strategies` holds hypothesis strategies for shapes, broadcastable shape
  pairs, dtypes and Tensors (it needs ``hypothesis``; ``check_grads`` does not).

graphcell's own test suite checks every differentiable primitive with these two, so a user's
custom layer can be tested the same way.

Example::

    >>> import numpy as np
    >>> from graphcell import Tensor, ops
    >>> from graphcell.testing import check_grads
    >>> check_grads(lambda x: ops.tanh(x) * x, (Tensor(np.array([0.1, -2.0, 3.0])),)).passed
    True
"""
from graphcell.testing.gradcheck import (ELEMENTWISE_LIMIT, LOCATE_LIMIT, ArgumentCheck,
                                         GradCheckReport, check_grads)

__all__ = ["check_grads", "GradCheckReport", "ArgumentCheck", "ELEMENTWISE_LIMIT", "LOCATE_LIMIT",
           "strategies"]


def __getattr__(name: str):
    # imported on first use: hypothesis is a test dependency, not a dependency of graphcell
    if name == "strategies":
        import importlib
        return importlib.import_module("graphcell.testing.strategies")
    raise AttributeError(f"module 'graphcell.testing' has no attribute {name!r}")

"""Small top-level functions of ``mindspore`` that belong to no other module.

Example::

    >>> import graphcell as ms
    >>> ms.tensor([1, 2], ms.int32)
    Tensor(shape=[2], dtype=Int32, value= [1, 2])
"""
from __future__ import annotations

from graphcell.tensor import Tensor

__all__ = ["tensor", "run_check"]


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None):
    """``ms.tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False,
    device=None)``: a new Tensor, as ``ms.Tensor(...)`` (``device`` is accepted: graphcell
    computes on the CPU)."""
    return Tensor(input_data, dtype=dtype, shape=shape, init=init, const_arg=const_arg)


def run_check() -> None:
    """``ms.run_check()``: print the version and check that a small computation is right."""
    import numpy as np

    from graphcell import ops
    from graphcell._version import __version__
    print(f"graphcell version: {__version__} (MindSpore API 2.10)")
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    ok = np.allclose(ops.mul(x, x).asnumpy(), [1.0, 4.0, 9.0])
    print("The result of multiplication calculation is correct, graphcell has been installed on "
          "platform [CPU] successfully!" if ok else "The result of multiplication is WRONG: "
          "graphcell is not installed correctly.")

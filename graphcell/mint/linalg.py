"""``mint.linalg``: ``inv``, ``norm``, ``vector_norm``, ``matrix_norm``, ``qr`` with PyTorch's
argument names (``A``, ``ord``, ``dim``, ``keepdim``).

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> float(mint.linalg.vector_norm(ms.Tensor([3.0, 4.0])))
    5.0
"""
from __future__ import annotations

from graphcell import ops

__all__ = ["inv", "matrix_norm", "norm", "qr", "vector_norm"]


def inv(A):  # noqa: N803 - mint's argument name
    """The inverse of each square matrix of ``A``."""
    return ops.inverse(A)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002,N803
    """A vector or matrix norm of ``A`` (as ``numpy.linalg.norm``; every element when ``dim`` and
    ``ord`` are None)."""
    return ops.norm(A, ord, dim, keepdim, dtype=dtype)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The ``ord``-norm of the elements of ``x`` along ``dim`` (all when None)."""
    return ops.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002,N803
    """The ``ord`` matrix norm over the two dimensions ``dim``."""
    return ops.matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def qr(A, mode="reduced"):  # noqa: N803
    """``(Q, R)`` with ``A = Q R``."""
    return ops.qr(A, mode)


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.mint.linalg", name, "module 'graphcell.mint.linalg'")

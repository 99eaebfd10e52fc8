"""mint's reductions, scans, sorting and statistics: ``sum``/``mean``/``max``... over ``dim`` with
``keepdim``; ``std``/``var`` with ``correction`` (1 by default, as in PyTorch).

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> values, indices = mint.max(ms.Tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1)
    >>> values.asnumpy().tolist(), indices.asnumpy().tolist()
    ([5.0, 7.0], [1, 0])
"""
from __future__ import annotations

from graphcell import dtype as mstype
from graphcell import ops
from graphcell.ops import (  # noqa: F401 - the same signatures as mint's
    argmax, bincount, cumprod, logsumexp, searchsorted, sum, unique_consecutive)

__all__ = ["all", "amax", "amin", "any", "argmax", "argmin", "argsort", "bincount",
           "count_nonzero", "cummax", "cummin", "cumprod", "cumsum", "histc", "kthvalue",
           "logsumexp", "max", "mean", "median", "min", "nansum", "norm", "prod", "searchsorted",
           "sort", "std", "std_mean", "sum", "topk", "unique", "unique_consecutive", "var",
           "var_mean"]


def _all_dims(dim):
    """mint spells "every dimension" as None or ``()``."""
    return dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0)


def all(input, dim=None, keepdim=False):  # noqa: A001,A002 - mint's names
    """Whether every element (along ``dim``) is true."""
    return ops.all(input, None if _all_dims(dim) else dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001,A002
    """Whether some element (along ``dim``) is true."""
    return ops.any(input, None if _all_dims(dim) else dim, keepdim)


def amax(input, dim=(), keepdim=False):  # noqa: A002
    """The maximum over ``dim`` (every dimension by default)."""
    return ops.amax(input, None if _all_dims(dim) else dim, keepdim)


def amin(input, dim=(), keepdim=False):  # noqa: A002
    """The minimum over ``dim`` (every dimension by default)."""
    return ops.amin(input, None if _all_dims(dim) else dim, keepdim)


def _extremum(input, dim, keepdim, largest: bool):
    """``max``/``min``'s three forms: of all elements, ``(values, indices)`` along an int
    ``dim``, or the elementwise extremum with another tensor."""
    if dim is None:
        return input.max() if largest else input.min()
    if isinstance(dim, int) and not isinstance(dim, bool):
        return input.max(dim, keepdim) if largest else input.min(dim, keepdim)
    return ops.maximum(input, dim) if largest else ops.minimum(input, dim)


def max(input, dim=None, keepdim=False):  # noqa: A001,A002
    """``max(input)``: the largest element; ``max(input, dim, keepdim=False)``: ``(values,
    indices)`` along ``dim``; ``max(input, other)``: the elementwise maximum."""
    return _extremum(input, dim, keepdim, True)


def min(input, dim=None, keepdim=False):  # noqa: A001,A002
    """``min(input)``, ``min(input, dim, keepdim=False)`` -> ``(values, indices)``,
    ``min(input, other)``: as :func:`max`."""
    return _extremum(input, dim, keepdim, False)


def argmin(input, dim=None, keepdim=False):  # noqa: A002
    """The index of the smallest element (of the flattened input when ``dim`` is None)."""
    return input.argmin(dim=dim, keepdim=keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The mean over ``dim`` (every dimension by default), computed in ``dtype`` when given."""
    x = input if dtype is None else input.astype(dtype)
    return ops.mean(x, None if _all_dims(dim) else dim, keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The product over ``dim`` (every dimension by default)."""
    return ops.prod(input, dim, keepdim, dtype)


def nansum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The sum over ``dim`` with NaNs counted as zero."""
    return ops.nansum(input, None if _all_dims(dim) else dim, keepdim, dtype=dtype)


def count_nonzero(input, dim=None):  # noqa: A002
    """The number of non-zero elements along ``dim`` (all when None), as Int64."""
    return ops.count_nonzero(input, () if dim is None else dim, False, mstype.int64)


def cummax(input, dim):  # noqa: A002
    """``(values, indices)`` of the running maximum along ``dim``."""
    return ops.cummax(input, dim)


def cummin(input, dim):  # noqa: A002
    """``(values, indices)`` of the running minimum along ``dim``."""
    return ops.cummin(input, dim)


def cumsum(input, dim, dtype=None):  # noqa: A002
    """The running sum along ``dim``."""
    return ops.cumsum(input, dim, dtype)


def median(input, dim=None, keepdim=False):  # noqa: A002
    """``median(input)``: the lower median of all elements; ``median(input, dim,
    keepdim=False)``: ``(values, indices)`` along ``dim``."""
    if dim is None:
        return ops.median(input.reshape(-1), 0)[0]
    return ops.median(input, dim, keepdim)


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    """``(values, indices)`` of the ``k``-th smallest element along ``dim``."""
    return input.kthvalue(k, dim, keepdim)


def histc(input, bins=100, min=0, max=0):  # noqa: A002
    """A histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when both 0)."""
    return ops.histc(input, bins, float(min), float(max))


def _var_dims(dim):
    return None if _all_dims(dim) else dim


def std(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """The standard deviation over ``dim``, dividing by ``n - correction``."""
    return ops.std(input, _var_dims(dim), correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """The variance over ``dim``, dividing by ``n - correction``."""
    return ops.var(input, _var_dims(dim), correction, keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """``(std, mean)`` over ``dim``."""
    return ops.std_mean(input, _var_dims(dim), correction, keepdim)


def var_mean(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """``(var, mean)`` over ``dim``."""
    return ops.var_mean(input, _var_dims(dim), correction, keepdim)


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The ``p``-norm over ``dim`` (of all elements by default): ``"fro"`` (2-norm of the
    elements), ``"nuc"`` (nuclear norm of matrices), or a number (a vector norm)."""
    if p == "nuc":
        return ops.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim,
                               dtype=dtype)
    return ops.vector_norm(input, 2 if p == "fro" else p, dim, keepdim, dtype=dtype)


def sort(input, *, dim=-1, descending=False, stable=False):  # noqa: A002
    """``(values, indices)`` sorted along ``dim``."""
    return ops.sort(input, dim, descending)


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    """The indices that sort ``input`` along ``dim``."""
    return ops.argsort(input, dim, descending)


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """``(values, indices)`` of the ``k`` largest (or smallest) elements along ``dim``."""
    return ops.topk(input, k, dim, largest, sorted)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements (and, if asked, the inverse indices and the counts)."""
    return input.unique(sorted, return_inverse, return_counts, dim)

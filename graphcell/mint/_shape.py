"""mint's shape, joining, indexing and selection functions: ``cat``/``stack``/``split`` along
``dim``, ``gather(input, dim, index)``, ``permute``, ``transpose(input, dim0, dim1)``,
``where``...

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mint.gather(x, 1, ms.Tensor([[1], [0]])).asnumpy().tolist()
    [[2.0], [3.0]]
"""
from __future__ import annotations

from graphcell import ops
from graphcell.ops import (  # noqa: F401 - the same signatures as mint's
    broadcast_to, dstack, flip, hstack, masked_select, nonzero, ravel, roll, swapaxes, tile, tril,
    triu, unbind, unsqueeze)

__all__ = ["broadcast_to", "cat", "chunk", "clone", "concat", "diag", "diff", "dstack", "flatten",
           "flip", "gather", "hstack", "index_add", "index_select", "item", "masked_select",
           "meshgrid", "narrow", "nonzero", "permute", "ravel", "repeat_interleave", "reshape",
           "roll", "scatter", "scatter_add", "select", "split", "squeeze", "stack", "swapaxes",
           "t", "take", "tile", "transpose", "tril", "triu", "unbind", "unsqueeze", "where"]


def cat(tensors, dim=0):
    """The tensors joined along ``dim``."""
    return ops.cat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    """The tensors stacked along a new ``dim``."""
    return ops.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``tensor`` along ``dim``: of size ``split_size_or_sections`` (the last may be
    smaller) or of the listed sizes."""
    return ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):  # noqa: A002 - mint's names
    """``chunks`` pieces of ``input`` along ``dim`` (the last may be smaller)."""
    return ops.chunk(input, chunks, dim)


def reshape(input, shape):  # noqa: A002
    """``input`` with shape ``shape`` (one entry may be -1)."""
    return ops.reshape(input, shape)


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    """``input`` with dimensions ``start_dim..end_dim`` merged into one."""
    return ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def squeeze(input, dim):  # noqa: A002
    """``input`` without its size-1 dimensions among ``dim`` (an int or a tuple; mint requires
    it)."""
    return ops.squeeze(input, dim)


def permute(input, dims):  # noqa: A002
    """``input`` with its dimensions in the order ``dims``."""
    return ops.permute(input, dims)


def transpose(input, dim0, dim1):  # noqa: A002
    """``input`` with dimensions ``dim0`` and ``dim1`` swapped."""
    return ops.swapaxes(input, dim0, dim1)


def t(input):  # noqa: A002
    """A matrix transposed (a 0-D or 1-D tensor unchanged)."""
    return ops.t(input)


def narrow(input, dim, start, length):  # noqa: A002
    """``length`` elements of ``input`` from ``start`` along ``dim``."""
    return ops.narrow(input, dim, start, length)


def select(input, dim, index):  # noqa: A002
    """``input[..., index, ...]`` with ``index`` at ``dim`` (that dimension removed)."""
    return input.select(dim, index)


def gather(input, dim, index):  # noqa: A002
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (PyTorch's gather)."""
    return ops.gather_elements(input, dim, index)


def index_select(input, dim, index):  # noqa: A002
    """The slices of ``input`` at the 1-D ``index`` along ``dim``."""
    return ops.index_select(input, dim, index)


def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    """``input`` with ``alpha * source`` added at the 1-D ``index`` along ``dim``."""
    return input.index_add(dim, index, source, alpha=alpha)


def scatter(input, dim, index, src):  # noqa: A002
    """``input`` with the values of ``src`` written at ``index`` along ``dim``."""
    return ops.scatter(input, dim, index, src)


def scatter_add(input, dim, index, src):  # noqa: A002
    """``input`` with the values of ``src`` added at ``index`` along ``dim``."""
    return input.scatter_add(dim, index, src)


def where(condition, input=None, other=None):  # noqa: A002
    """``where(condition, input, other)``: ``input`` where ``condition`` holds, else ``other``;
    ``where(condition)``: the indices of the true elements, one tensor per dimension."""
    if input is None and other is None:
        return ops.nonzero(condition, as_tuple=True)
    return ops.select(condition, input, other)


def repeat_interleave(input, repeats, dim=None, *, output_size=None):  # noqa: A002
    """Each element (or slice along ``dim``) repeated ``repeats`` times."""
    return input.repeat_interleave(repeats, dim, output_size=output_size)


def diag(input, diagonal=0):  # noqa: A002
    """A 1-D input: the square matrix with it on diagonal ``diagonal``; a 2-D input: its
    diagonal number ``diagonal``."""
    if input.ndim == 1:
        return ops.diagflat(input, diagonal)
    return ops.diagonal(input, diagonal)


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """The ``n``-th forward difference along ``dim``."""
    return ops.diff(input, n, dim, prepend, append)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors (``"ij"`` indexing unless ``indexing="xy"``)."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    return ops.meshgrid(*tensors, indexing=indexing or "ij")


def clone(input):  # noqa: A002
    """A copy of ``input`` (gradients flow through it unchanged)."""
    return input.clone()


def item(input):  # noqa: A002
    """The value of a one-element tensor as a Python number."""
    return input.item()


def take(input, index):  # noqa: A002
    """The elements of the flattened ``input`` at ``index`` (shaped like ``index``)."""
    return ops.gather(input.reshape(-1), index, 0)

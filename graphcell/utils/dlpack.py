"""``mindspore.utils.dlpack``: share a Tensor's memory with another framework through DLPack.

A graphcell Tensor holds a numpy array, so the exchange is numpy's: :func:`to_dlpack` gives the
DLPack capsule of that array (no copy) and :func:`from_dlpack` wraps the memory of a capsule or of
any object with ``__dlpack__`` (a PyTorch or JAX CPU tensor, a numpy array) in a Tensor, again
without copying. Only CPU memory can be shared. A bare capsule is DLPack 0.x's, which cannot say
whether its memory may be written, so numpy (and graphcell) read it only; an object with
``__dlpack__`` speaking DLPack 1.0 (numpy 2, recent PyTorch) shares writable memory.

Example::

    >>> import numpy as np
    >>> from graphcell.utils import dlpack
    >>> source = np.arange(3, dtype=np.float32)
    >>> y = dlpack.from_dlpack(source)
    >>> source[0] = 7.0
    >>> y.asnumpy()
    array([7., 1., 2.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

__all__ = ["to_dlpack", "from_dlpack"]

_CPU = 1  # DLPack's kDLCPU


def to_dlpack(tensor):
    """The DLPack capsule of ``tensor``'s memory (shared, not copied)."""
    from graphcell.tensor import Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: expected a Tensor, got {type(tensor).__name__}")
    return tensor.asnumpy().__dlpack__()


class _Capsule:
    """A bare DLPack capsule dressed as the exporter numpy's ``from_dlpack`` expects."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (_CPU, 0)


def from_dlpack(dlpack):
    """A Tensor sharing the memory of ``dlpack``: a DLPack capsule (used once, as DLPack
    requires) or an object with ``__dlpack__`` on the CPU."""
    from graphcell.tensor import Tensor
    if type(dlpack).__name__ != "PyCapsule" and not hasattr(dlpack, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected a DLPack capsule or an object with __dlpack__, "
                        f"got {type(dlpack).__name__}")
    source = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    try:
        array = np.from_dlpack(source)
    except ValueError:
        raise ValueError("from_dlpack: this capsule was used already (DLPack hands its memory to "
                         "one consumer); take a new one with to_dlpack") from None
    except (BufferError, RuntimeError, TypeError) as e:
        raise ValueError(f"from_dlpack: cannot share this memory with a graphcell Tensor "
                         f"({e}); only CPU memory can be shared") from None
    return Tensor.from_numpy(array)

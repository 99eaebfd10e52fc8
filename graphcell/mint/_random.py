"""mint's random sampling: ``rand``/``randn``/``randint``/``randperm``/``normal`` (shapes as
arguments or one tuple, Float32 unless ``dtype``), their ``*_like`` forms, ``bernoulli`` and
``multinomial``. They draw from the default generator (``ms.manual_seed``, ``ms.set_seed``);
``generator`` must be None or ``ms.default_generator``.

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> mint.randn(2, 3).shape, mint.randint(0, 5, (4,)).dtype
    ((2, 3), Int64)
"""
from __future__ import annotations

import numpy as np

from graphcell import dtype as mstype
from graphcell import ops
from graphcell.mint._creation import _size

__all__ = ["bernoulli", "multinomial", "normal", "rand", "rand_like", "randint", "randint_like",
           "randn", "randn_like", "randperm"]


def _no_generator(generator, name: str) -> None:
    """mint's functions draw from the default generator: ``generator`` must be None or it
    (``Tensor.uniform_(generator=g)`` and the other Tensor methods take a Generator of its own)."""
    from graphcell.common.generator import default_generator
    if generator is not None and generator is not default_generator:
        raise ValueError(f"mint.{name}: draws from the default generator (seed it with "
                         f"ms.manual_seed); generator must be None or ms.default_generator, got "
                         f"{type(generator).__name__}")


def rand(*size, generator=None, dtype=None, device=None):
    """Uniform samples in [0, 1) of shape ``size``."""
    _no_generator(generator, "rand")
    return ops.rand(*_size(size), dtype=dtype or mstype.float32)


def randn(*size, generator=None, dtype=None, device=None):
    """Standard normal samples of shape ``size``."""
    _no_generator(generator, "randn")
    return ops.randn(*_size(size), dtype=dtype or mstype.float32)


def rand_like(input, *, dtype=None, device=None):  # noqa: A002 - mint's names
    """Uniform samples in [0, 1) shaped like ``input``."""
    return ops.rand_like(input, dtype=dtype)


def randn_like(input, *, dtype=None, device=None):  # noqa: A002
    """Standard normal samples shaped like ``input``."""
    return ops.randn_like(input, dtype=dtype)


def randint(*args, generator=None, dtype=None, device=None):
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high) (Int64
    unless ``dtype``)."""
    _no_generator(generator, "randint")
    low, high, size = (0, *args) if len(args) == 2 else args
    return ops.randint(low, high, tuple(size), dtype=dtype or mstype.int64)


def randint_like(input, *args, dtype=None, device=None):  # noqa: A002
    """``randint_like(input, high)`` or ``randint_like(input, low, high)``: integers in
    [low, high) shaped like ``input`` (its dtype unless ``dtype``)."""
    low, high = (0, *args) if len(args) == 1 else args
    return ops.randint_like(input, low, high, dtype=dtype or input.dtype)


def randperm(n, *, generator=None, dtype=mstype.int64):
    """A random permutation of ``0..n-1``."""
    _no_generator(generator, "randperm")
    return ops.randperm(n, dtype=dtype)


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """Normal samples: of shape ``size`` for float ``mean`` and ``std``, else of their
    broadcast shape (each element with its own mean and standard deviation)."""
    _no_generator(generator, "normal")
    if size is not None:
        return ops.normal(tuple(size), float(mean), float(std))
    shape = np.broadcast_shapes(tuple(getattr(mean, "shape", ())), tuple(getattr(std, "shape", ())))
    return ops.add(ops.mul(ops.randn(*shape), std), mean)


def bernoulli(input, *, generator=None):  # noqa: A002
    """0 or 1 per element, 1 with the probability given by ``input``."""
    _no_generator(generator, "bernoulli")
    return ops.bernoulli(input, input)


def multinomial(input, num_samples, replacement=False, *, generator=None):  # noqa: A002
    """``num_samples`` indices drawn from the rows of ``input`` (weights, not normalised)."""
    _no_generator(generator, "multinomial")
    return ops.multinomial(input, num_samples, replacement)

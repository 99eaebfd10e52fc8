"""The one random source of random ops (``dropout``, ``dropout2d``), and how to seed it.

Reference implementations of ops with ``Trait.RANDOM`` draw from :func:`generator`; nothing else
in ``graphcell_ir`` keeps random state. ``graphcell.set_seed(n)`` calls :func:`seed` so a
seeded script draws the same masks on every run, in PyNative and (through the same references)
in the reference interpreter. Without a seed the generator starts from fresh OS entropy, as
MindSpore's unseeded random ops do.

Example::

    >>> from graphcell_ir.ops import random
    >>> random.seed(7); a = random.generator().random(3)
    >>> random.seed(7); b = random.generator().random(3)
    >>> bool((a == b).all())
    True
"""
from __future__ import annotations

import numpy as np


class _Holder:
    """Holds the current generator; :func:`seed` replaces it (a plain attribute, no registry)."""

    gen: np.random.Generator = np.random.default_rng()


def seed(n: int) -> None:
    """Restart the random ops' generator from seed ``n`` (called by ``graphcell.set_seed``)."""
    _Holder.gen = np.random.default_rng(n)


def generator() -> np.random.Generator:
    """The generator every random op's reference implementation draws from."""
    return _Holder.gen

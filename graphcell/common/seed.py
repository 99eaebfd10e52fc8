"""Global seeding: ``set_seed`` makes initializers and random ops reproducible.

Example::

    >>> import graphcell as ms
    >>> ms.set_seed(1); a = ms.common.initializer.initializer("normal", [2]).init_data()
    >>> ms.set_seed(1); b = ms.common.initializer.initializer("normal", [2]).init_data()
    >>> bool((a == b).all())
    True
"""
from __future__ import annotations

import numpy as np

_seed: int | None = None
_generator = np.random.default_rng()


def set_seed(seed: int) -> None:
    """Seed every random source of graphcell: initializers, random ops such as Dropout, and (as
    MindSpore does) the data pipeline's shuffles through ``graphcell.dataset.config.set_seed``."""
    global _seed, _generator
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed: seed must be a non-negative int, got {seed!r}")
    from graphcell.dataset.core import config as dataset_config
    dataset_config.set_seed(seed)  # first: it refuses seeds above 2**32 - 1, as MindSpore's does
    _seed = seed
    _generator = np.random.default_rng(seed)
    from graphcell.common.generator import default_generator
    default_generator.manual_seed(seed)  # the random ops' stream


def get_seed() -> int | None:
    """The seed last given to ``set_seed``, or None."""
    return _seed


def generator() -> np.random.Generator:
    """The generator initializers draw from."""
    return _generator

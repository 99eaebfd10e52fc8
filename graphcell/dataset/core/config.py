"""``mindspore.dataset.config``: the data pipeline's global settings.

The seed makes every shuffle and random transform of a pipeline reproducible: after
``set_seed(n)`` (or ``graphcell.set_seed(n)``, which calls it), a new iterator over the same
pipeline yields the same rows, and each epoch of one iterator is shuffled differently. Without a
seed, shuffles differ from run to run — except sharded ones (``num_shards``), which use
MindSpore's default seed so that every shard of a job agrees on one global order. As in
MindSpore, ``set_seed`` also seeds Python's ``random`` and ``numpy.random``, so user generator
functions that draw from them repeat too.

``num_parallel_workers`` and the prefetch size are validated and remembered; graphcell runs
pipelines in the calling thread.

Example::

    >>> import graphcell.dataset as ds
    >>> ds.config.set_seed(7)
    >>> ds.config.get_seed()
    7
"""
from __future__ import annotations

import random

import numpy

UINT32_MAX = 4294967295
INT32_MAX = 2147483647
DEFAULT_SEED = 5489  # std::mt19937's default seed: what MindSpore reports before set_seed

_settings = {"seed": None, "num_parallel_workers": 8, "prefetch_size": 16,
             "eager_rng": numpy.random.default_rng()}


def _check_int(name: str, value, low: int, high: int, what: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} given is not within the required range {what}, got {value}")


def set_seed(seed: int) -> None:
    """Seed the data pipeline (and Python's ``random`` and ``numpy.random``), in [0, 2**32 - 1]."""
    _check_int("seed", seed, 0, UINT32_MAX, "[0, UINT32_MAX(4294967295)]")
    _settings["seed"] = seed
    _settings["eager_rng"] = numpy.random.default_rng(seed)
    random.seed(seed)
    numpy.random.seed(seed)


def get_seed() -> int:
    """The seed given to ``set_seed``, else MindSpore's default seed (5489)."""
    seed = _settings["seed"]
    return DEFAULT_SEED if seed is None else seed


def seed_if_set() -> int | None:
    """The seed given to ``set_seed``, or None when none was set (shuffles then differ)."""
    return _settings["seed"]


def eager_rng() -> numpy.random.Generator:
    """The generator random transforms draw from when called directly (outside a pipeline)."""
    return _settings["eager_rng"]


def set_num_parallel_workers(num: int) -> None:
    """Accepted for compatibility; graphcell runs the pipeline in the calling thread."""
    _check_int("num_parallel_workers", num, 1, INT32_MAX, "(0, INT32_MAX(2147483647)]")
    _settings["num_parallel_workers"] = num


def get_num_parallel_workers() -> int:
    """The value last given to ``set_num_parallel_workers`` (default 8, as MindSpore)."""
    return _settings["num_parallel_workers"]


def set_prefetch_size(size: int) -> None:
    """Accepted for compatibility (graphcell produces rows on demand)."""
    _check_int("size", size, 1, INT32_MAX, "(0, INT32_MAX(2147483647)]")
    _settings["prefetch_size"] = size


def get_prefetch_size() -> int:
    """The value last given to ``set_prefetch_size`` (default 16)."""
    return _settings["prefetch_size"]


def get_auto_num_workers() -> bool:
    return False


def __getattr__(name: str):
    from graphcell.dataset import not_provided
    provided = [n for n in globals() if n.startswith(("get_", "set_"))]
    raise not_provided("mindspore.dataset.config", name, provided=provided)

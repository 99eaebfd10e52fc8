"""One iterator's randomness: which generator each shuffle and random transform draws from.

Every iterator (``create_tuple_iterator``, ``for row in dataset``, ``get_dataset_size`` when it
has to count) makes a :class:`Run`. A node that shuffles asks ``run.rng(node)`` once per pass and
gets a generator seeded by (root seed, the node's number in the order nodes first asked, the
node's pass count). Hence, with a seed set, a new iterator repeats the first one exactly, each
epoch (and each repetition inside ``repeat``) is shuffled anew, and two identical pipelines give
identical rows — MindSpore's reproducibility contract (its exact orders come from another RNG).

The root seed is ``config``'s seed when one was set. Otherwise it is fresh entropy, except for
``shared`` requests (sharded samplers), which use MindSpore's default seed so that all shards of
a distributed job deal from the same global order.

Example::

    >>> import graphcell.dataset as ds
    >>> ds.config.set_seed(3)
    >>> a, b = Run(), Run()
    >>> key = object()
    >>> int(a.rng(key).integers(100)) == int(b.rng(key).integers(100))
    True
"""
from __future__ import annotations

import numpy as np

from graphcell.dataset.core import config


class Run:
    """The generators of one iterator's passes."""

    def __init__(self):
        seed = config.seed_if_set()
        self._seed = seed
        self._root = seed if seed is not None else np.random.SeedSequence().entropy
        self._keys: dict[int, int] = {}
        self._passes: dict[int, int] = {}
        self._holders: list = []  # keeps keyed objects alive so their ids stay unique
        self._epochs: dict[int, int] = {}

    def rng(self, node, shared: bool = False) -> np.random.Generator:
        """A generator for ``node``'s next pass."""
        ident = id(node)
        if ident not in self._keys:
            self._keys[ident] = len(self._keys)
            self._holders.append(node)
        count = self._passes.get(ident, 0)
        self._passes[ident] = count + 1
        root = self._root
        if shared and self._seed is None:
            root = config.DEFAULT_SEED
        return np.random.default_rng([root, self._keys[ident], count])

    def next_pass(self, node) -> int:
        """The number (from 0) of the pass ``node`` is starting: its epoch, for ``BatchInfo``."""
        count = self._epochs.get(id(node), 0)
        self._epochs[id(node)] = count + 1
        self._holders.append(node)
        return count

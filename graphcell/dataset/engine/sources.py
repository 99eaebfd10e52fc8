"""Source datasets: the leaves of a pipeline.

A *mappable* source reads rows by index (in-memory columns, files, a ``__getitem__`` object): a
sampler picks each pass's indices (``num_samples``, ``shuffle``, ``num_shards``/``shard_id`` or
``sampler=``, combined as MindSpore combines them) and the pass is ``Indexed`` over the source's
table.

Example::

    >>> import graphcell.dataset as ds
    >>> data = ds.NumpySlicesDataset([1, 2, 3, 4], shuffle=False, num_shards=2, shard_id=1)
    >>> data.get_dataset_size(), data.sampler
    (2, DistributedSampler(num_shards=2, shard_id=1, shuffle=False, offset=-1))
"""
from __future__ import annotations

import copy

import numpy as np

from graphcell.dataset.core import config
from graphcell.dataset.engine.datasets import Dataset, split_sizes
from graphcell.dataset.engine.rows import Indexed, Table
from graphcell.dataset.engine.samplers import (BuiltinSampler, SubsetRandomSampler, SubsetSampler,
                                               select_sampler)


class SourceDataset(Dataset):
    """A dataset with no child."""

    def __init__(self, num_parallel_workers=None, cache=None):
        super().__init__([], num_parallel_workers)
        if cache is not None:
            raise NotImplementedError(f"{type(self).__name__}: cache= (MindSpore's cache server) "
                                      f"is not supported by graphcell.dataset")


class MappableDataset(SourceDataset):
    """A source read by index through a sampler. Subclasses give ``_row_count`` and ``_table``."""

    def __init__(self, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(num_parallel_workers, cache)
        self.sampler = select_sampler(num_samples, shuffle, sampler, num_shards, shard_id)

    def _row_count(self) -> int:
        raise NotImplementedError

    def _table(self) -> Table:
        raise NotImplementedError

    def _check_sampler(self) -> None:
        """Refuse now a sampler that cannot fit the source (called once the rows are known)."""
        self.sampler.check(self._row_count())

    def _static_size(self):
        return self.sampler.size(self._row_count())

    def _stream(self, run):
        return Indexed(self._table(), self.sampler.order(self._row_count(), run))

    def use_sampler(self, new_sampler) -> None:
        """Read through ``new_sampler`` from now on."""
        if not isinstance(new_sampler, BuiltinSampler):
            raise TypeError(f"use_sampler: expected a sampler, got {type(new_sampler).__name__}")
        new_sampler.check(self._row_count())
        self.sampler = new_sampler

    def add_sampler(self, new_sampler) -> None:
        """Sample from the rows the current sampler picks, through ``new_sampler``."""
        new_sampler.add_child(self.sampler)
        self.use_sampler(new_sampler)

    def split(self, sizes, randomize=True):
        """Parts of ``sizes`` rows (ints, or fractions adding up to 1) sharing the source's
        data. With ``randomize`` the rows are dealt in a random order, drawn once (under the
        pipeline seed when one is set)."""
        counts = split_sizes(sizes, self.get_dataset_size())
        ids = self.sampler.order(self._row_count(), None) if not self.sampler.is_shuffled() \
            else np.arange(self._row_count())[:sum(counts)]
        if randomize:
            ids = np.random.default_rng(config.seed_if_set()).permutation(ids)
        self._table()  # load once, so that the parts share the data
        parts, start = [], 0
        for n in counts:
            part = copy.copy(self)
            chosen = ids[start:start + n].tolist()
            part.sampler = (SubsetRandomSampler if self.sampler.is_shuffled() else
                            SubsetSampler)(chosen)
            parts.append(part)
            start += n
        return tuple(parts)

    def is_shuffled(self) -> bool:
        return self.sampler.is_shuffled()

    def is_sharded(self) -> bool:
        return self.sampler.is_sharded()

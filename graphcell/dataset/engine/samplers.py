"""``mindspore.dataset`` samplers: which rows of a random-access source a pass reads, in order.

A sampler turns the source's row count ``n`` into an int64 array of row indices for one pass
(:meth:`BuiltinSampler.order`), drawing from the pass's generator when it shuffles. The orders
follow MindSpore 2.10, checked against it (``tests/graphcell/dataset``):

- ``DistributedSampler(num_shards, shard_id)``: one global order (shuffled with a seed every shard
  shares), dealt round-robin — shard ``s`` reads global positions ``s, s + num_shards, ...``;
  every shard reads ``ceil(n / num_shards)`` rows, the short ones wrapping around to the start.
  With ``offset=k`` shard ``s`` reads the positions ``j`` with ``(j + k) % num_shards == s`` and no
  padding (what ``concat`` uses).
- ``num_samples`` caps a pass; ``SequentialSampler(start_index)`` starts later.

Example::

    >>> import numpy as np
    >>> from graphcell.dataset import DistributedSampler
    >>> [DistributedSampler(3, s, shuffle=False).order(10, None).tolist() for s in range(3)]
    [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

from graphcell.dataset.core.errors import SamplerError
from graphcell.dataset.core.validate import INT64_MAX, check_bool, check_int, check_optional_int


def _num_samples(value) -> int | None:
    n = check_optional_int("num_samples", value, 0, INT64_MAX)
    return n or None  # 0 means all, as in MindSpore


def _cap(order: np.ndarray, num_samples: int | None) -> np.ndarray:
    return order if num_samples is None else order[:num_samples]


class BuiltinSampler:
    """Base of graphcell's samplers. ``order(n, run)`` gives one pass's row indices."""

    shared_seed = False  # True: the shuffle must agree across processes (sharding)

    def __init__(self, num_samples=None):
        self.num_samples = _num_samples(num_samples)
        self.child_sampler = None

    # --- MindSpore's sampler API ---------------------------------------------------------------

    def add_child(self, sampler) -> None:
        """Sample from the rows ``sampler`` picks instead of from all rows."""
        if not isinstance(sampler, (BuiltinSampler, Sampler)):
            raise TypeError(f"add_child: expected a sampler, got {type(sampler).__name__}")
        if self.child_sampler is not None:
            raise RuntimeError("add_child: this sampler already has a child sampler")
        self.child_sampler = sampler

    def get_child(self):
        return self.child_sampler

    def get_num_samples(self) -> int | None:
        return self.num_samples

    def is_shuffled(self) -> bool:
        return False

    def is_sharded(self) -> bool:
        return bool(self.child_sampler and self.child_sampler.is_sharded())

    # --- graphcell ----------------------------------------------------------------------------

    def check(self, n: int) -> None:
        """Raise now for arguments that cannot fit a source of ``n`` rows."""
        if self.child_sampler is not None:
            self.child_sampler.check(n)

    def order(self, n: int, run) -> np.ndarray:
        """The row indices of one pass over a source of ``n`` rows."""
        if self.child_sampler is None:
            return self._order(n, run)
        ids = self.child_sampler.order(n, run)
        return ids[self._order(len(ids), run)]

    def size(self, n: int) -> int:
        """How many rows a pass yields (without drawing anything)."""
        if self.child_sampler is not None:
            n = self.child_sampler.size(n)
        return self._size(n)

    def _rng(self, run):
        if run is None:  # sizes and split draw outside an iterator
            return np.random.default_rng()
        return run.rng(self, shared=self.shared_seed)

    def _order(self, n: int, run) -> np.ndarray:
        raise NotImplementedError

    def _size(self, n: int) -> int:
        return n if self.num_samples is None else min(n, self.num_samples)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items()
                           if not k.startswith("_") and v is not None)
        return f"{type(self).__name__}({fields})"


class SequentialSampler(BuiltinSampler):
    """Rows in order from ``start_index`` (default 0), at most ``num_samples`` of them."""

    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        self.start_index = check_optional_int("start_index", start_index, 0, INT64_MAX) or 0

    def check(self, n: int) -> None:
        super().check(n)
        if n and self.start_index >= n:
            raise SamplerError(f"SequentialSampler: start_index must be less than the number of "
                             f"rows, got start_index={self.start_index} for {n} rows")

    def _order(self, n: int, run) -> np.ndarray:
        return _cap(np.arange(min(self.start_index, n), n, dtype=np.int64), self.num_samples)

    def _size(self, n: int) -> int:
        return super()._size(max(n - self.start_index, 0))


class RandomSampler(BuiltinSampler):
    """A new random order every pass (with ``replacement``, independent draws)."""

    def __init__(self, replacement=False, num_samples=None):
        super().__init__(num_samples)
        self.replacement = check_bool("replacement", replacement)

    def is_shuffled(self) -> bool:
        return True

    def _order(self, n: int, run) -> np.ndarray:
        rng = self._rng(run)
        if self.replacement:
            return rng.integers(0, n, self._size(n), dtype=np.int64) if n else np.zeros(0, np.int64)
        return _cap(rng.permutation(n).astype(np.int64), self.num_samples)


class DistributedSampler(BuiltinSampler):
    """Shard ``shard_id`` of ``num_shards``: MindSpore's round-robin deal of one global order."""

    shared_seed = True

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        super().__init__(num_samples)
        self.num_shards = check_int("num_shards", num_shards, 1)
        self.shard_id = check_int("shard_id", shard_id, 0)
        if self.shard_id >= self.num_shards:
            raise ValueError(f"shard_id should be less than num_shards, got shard_id="
                             f"{shard_id} for num_shards={num_shards}")
        self.shuffle = check_bool("shuffle", shuffle)
        self.offset = check_int("offset", offset, -1)

    def is_shuffled(self) -> bool:
        return self.shuffle

    def is_sharded(self) -> bool:
        return True

    def _positions(self, n: int) -> np.ndarray:
        k, s = self.num_shards, self.shard_id
        if self.offset >= 0:
            j = np.arange(n, dtype=np.int64)
            return j[(j + self.offset) % k == s]
        per = -(-n // k)
        return (s + k * np.arange(per, dtype=np.int64)) % max(n, 1)

    def _order(self, n: int, run) -> np.ndarray:
        if n == 0:
            return np.zeros(0, np.int64)
        base = self._rng(run).permutation(n).astype(np.int64) if self.shuffle else None
        pos = _cap(self._positions(n), self.num_samples)
        return pos if base is None else base[pos]

    def _size(self, n: int) -> int:
        return super()._size(len(self._positions(n)) if n else 0)


class SubsetSampler(BuiltinSampler):
    """The rows ``indices``, in that order."""

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        self.indices = _index_list(indices)

    def check(self, n: int) -> None:
        super().check(n)
        bad = [i for i in self.indices if not 0 <= i < n]
        if bad:
            raise SamplerError(f"{type(self).__name__}: sample id {bad[0]} is out of bound, "
                             f"expected range [0, {n - 1}]")

    def _order(self, n: int, run) -> np.ndarray:
        self.check(n)
        return _cap(np.asarray(self.indices, dtype=np.int64), self.num_samples)

    def _size(self, n: int) -> int:
        return super()._size(len(self.indices))


class SubsetRandomSampler(SubsetSampler):
    """The rows ``indices``, in a new random order every pass."""

    def is_shuffled(self) -> bool:
        return True

    def _order(self, n: int, run) -> np.ndarray:
        self.check(n)
        ids = np.asarray(self.indices, dtype=np.int64)
        return _cap(ids[self._rng(run).permutation(len(ids))], self.num_samples)


class WeightedRandomSampler(BuiltinSampler):
    """``num_samples`` rows drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples=None, replacement=True):
        super().__init__(num_samples)
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1 or not len(w) or (w < 0).any() or not w.sum() > 0:
            raise ValueError(f"WeightedRandomSampler: weights must be a non-empty list of "
                             f"non-negative numbers with a positive sum, got {weights!r}")
        self.weights = w
        self.replacement = check_bool("replacement", replacement)

    def is_shuffled(self) -> bool:
        return True

    def _order(self, n: int, run) -> np.ndarray:
        k = self._size(n)
        p = self.weights / self.weights.sum()
        return self._rng(run).choice(len(p), k, replace=self.replacement, p=p).astype(np.int64)

    def _size(self, n: int) -> int:
        return super()._size(len(self.weights))


class IterSampler(BuiltinSampler):
    """The indices an iterable yields, read again every pass."""

    def __init__(self, sampler, num_samples=None):
        super().__init__(num_samples)
        if not isinstance(sampler, Iterable):
            raise TypeError(f"IterSampler: expected an iterable of indices, got "
                            f"{type(sampler).__name__}")
        self.sampler = sampler

    def _order(self, n: int, run) -> np.ndarray:
        ids = np.fromiter(itertools.islice(iter(self.sampler), self.num_samples), np.int64)
        bad = ids[(ids < 0) | (ids >= n)]
        if bad.size:
            raise SamplerError(f"sampler: sample id {bad[0]} is out of bound, expected range "
                             f"[0, {n - 1}]")
        return ids

    def _size(self, n: int) -> int:
        return len(self._order(n, None))


class Sampler(BuiltinSampler):
    """Base class of user samplers: override ``__iter__`` to yield row indices.

    ``self.dataset_size`` holds the source's row count while ``__iter__`` runs, as in MindSpore.

    Example::

        >>> import graphcell.dataset as ds
        >>> class Evens(ds.Sampler):
        ...     def __iter__(self):
        ...         return iter(range(0, self.dataset_size, 2))
        >>> [int(x[0]) for x in ds.NumpySlicesDataset([5, 6, 7], sampler=Evens())]
        [5, 7]
    """

    def __init__(self, num_samples=None):
        super().__init__(num_samples)
        self.dataset_size = 0

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__ to yield indices")

    def _order(self, n: int, run) -> np.ndarray:
        self.dataset_size = n
        return IterSampler(self, self.num_samples)._order(n, run)

    def _size(self, n: int) -> int:
        return len(self._order(n, None))


def _index_list(indices) -> list[int]:
    if isinstance(indices, np.ndarray):
        indices = indices.tolist()
    if isinstance(indices, int):
        indices = [indices]
    if not isinstance(indices, (list, tuple)) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in indices):
        raise TypeError(f"indices must be a list of ints, got {indices!r}")
    return list(indices)


def select_sampler(num_samples, shuffle, sampler, num_shards, shard_id):
    """The sampler a source's arguments ask for, with MindSpore's rules for combining them."""
    if shuffle is not None:
        check_bool("shuffle", shuffle)
    if (num_shards is None) != (shard_id is None):
        raise SamplerError("num_shards and shard_id need to be passed in together, got "
                           f"num_shards={num_shards!r}, shard_id={shard_id!r}")
    if sampler is not None:
        if shuffle is not None or num_shards is not None or num_samples is not None:
            raise ValueError(f"sampler= cannot be combined with shuffle, num_shards/shard_id or "
                             f"num_samples (got shuffle={shuffle!r}, num_shards={num_shards!r}, "
                             f"num_samples={num_samples!r}); give the sampler those settings")
        if isinstance(sampler, BuiltinSampler):
            return sampler
        if isinstance(sampler, (list, tuple, np.ndarray)):
            return SubsetSampler(sampler)
        return IterSampler(sampler)
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle is not False, num_samples)
    if shuffle is False:
        return SequentialSampler(num_samples=num_samples)
    return RandomSampler(num_samples=num_samples)

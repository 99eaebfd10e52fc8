"""``mindspore.dataset.Dataset``: a pipeline of sources and operations, and the ways to read it.

A dataset is a tree: sources at the leaves (``NumpySlicesDataset``, ``GeneratorDataset``,
``MnistDataset``...), operations above them (``batch``, ``map``, ``shuffle``...). Each node knows
its column names and, when it can without reading data, its size. Reading is done by passes:
``node._stream(run)`` returns one pass over the node's rows — an iterator of rows, or an
:class:`~graphcell.dataset.engine.rows.Indexed` pass (a table and a row order) that ``batch``
reads a batch at a time. ``run`` (one per iterator) supplies the random generators.

Unlike MindSpore, a dataset object may feed several pipelines (MindSpore refuses a node with two
consumers), and bad column names or arguments are reported when the operation is added.

Example::

    >>> import graphcell.dataset as ds
    >>> data = ds.NumpySlicesDataset({"x": [1, 2, 3, 4, 5]}, shuffle=False).batch(2)
    >>> rows = data.create_dict_iterator(output_numpy=True)
    >>> data.get_dataset_size(), [b["x"].tolist() for b in rows]
    (3, [[1, 2], [3, 4], [5]])
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import numpy as np

from graphcell.dataset.core.validate import INT32_MAX, check_int, check_workers
from graphcell.dataset.engine.rows import rows_of
from graphcell.dataset.engine.run import Run

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_site() -> str:
    """``file:line`` of the first caller outside ``graphcell.dataset`` (for error messages)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return "<unknown>"
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


class Dataset:
    """Base class of every dataset: the operations, the queries and the iterators."""

    def __init__(self, children=(), num_parallel_workers=None):
        check_workers(num_parallel_workers)
        self.children = list(children)
        self.num_parallel_workers = num_parallel_workers
        self._origin = user_site()
        self._counted_size: int | None = None

    # --- to be defined by each node -----------------------------------------------------------

    def _columns(self) -> tuple[str, ...]:
        """The column names, in order."""
        raise NotImplementedError

    def _static_size(self) -> int | None:
        """The number of rows of one pass when it is known without reading; else None."""
        raise NotImplementedError

    def _stream(self, run: Run):
        """One pass: an iterator of rows, or an ``Indexed`` pass."""
        raise NotImplementedError

    def _describe(self) -> str:
        """How error messages name this node: ``map (created at train.py:12)``."""
        return f"{type(self).__name__} (created at {self._origin})"

    # --- operations ---------------------------------------------------------------------------

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
              per_batch_map=None, input_columns=None, output_columns=None,
              python_multiprocessing=False, max_rowsize=None):
        """Group ``batch_size`` rows into one (each column stacked on a new first axis).

        ``batch_size`` may be a function of a ``BatchInfo``; ``drop_remainder`` drops a last short
        batch; ``per_batch_map(*column_lists, batch_info)`` replaces ``input_columns`` (default:
        all) by ``output_columns``.
        """
        return _ops.BatchDataset(self, batch_size, drop_remainder, num_parallel_workers,
                                 per_batch_map, input_columns, output_columns)

    def shuffle(self, buffer_size):
        """Shuffle rows through a buffer of ``buffer_size`` rows (a full shuffle when it holds
        the whole dataset); each epoch is shuffled anew."""
        return _ops.ShuffleDataset(self, buffer_size)

    def map(self, operations, input_columns=None, output_columns=None,
            num_parallel_workers=None, python_multiprocessing=False, cache=None, callbacks=None,
            max_rowsize=None, offload=None):
        """Apply ``operations`` (a callable or a list of them, applied in turn) to
        ``input_columns`` (default: the first column); the results become ``output_columns``
        (default: the input columns' names)."""
        if cache is not None:
            raise NotImplementedError("map: cache= (MindSpore's cache server) is not supported "
                                      "by graphcell.dataset")
        return _ops.MapDataset(self, operations, input_columns, output_columns,
                               num_parallel_workers)

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keep the rows for which ``predicate(*input_columns)`` is true (default: all columns)."""
        return _ops.FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def repeat(self, count=None):
        """Read the dataset ``count`` times (None or -1: without end); each repetition is a new
        pass, so shuffles differ."""
        return _ops.RepeatDataset(self, count)

    def take(self, count=-1):
        """The first ``count`` rows (-1: all)."""
        return _ops.TakeDataset(self, count)

    def skip(self, count):
        """All rows but the first ``count``."""
        return _ops.SkipDataset(self, count)

    def zip(self, datasets):
        """Rows side by side with those of ``datasets`` (a dataset or a tuple); stops with the
        shortest. Column names must not repeat."""
        others = list(datasets) if isinstance(datasets, (tuple, list)) else [datasets]
        return _ops.ZipDataset([self] + others)

    def concat(self, datasets):
        """This dataset's rows, then those of ``datasets`` (same column names)."""
        others = list(datasets) if isinstance(datasets, (tuple, list)) else [datasets]
        return _ops.ConcatDataset([self] + others)

    def __add__(self, other):
        return self.concat(other)

    def project(self, columns):
        """Keep ``columns``, in that order."""
        return _ops.ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename ``input_columns`` to ``output_columns`` (one name or lists of equal length)."""
        return _ops.RenameDataset(self, input_columns, output_columns)

    def apply(self, apply_func):
        """``apply_func(self)``, which must return a dataset (a reusable piece of pipeline)."""
        result = apply_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(f"apply: apply_func must return a dataset, got "
                            f"{type(result).__name__}")
        return result

    def split(self, sizes, randomize=True):
        """Consecutive parts of ``sizes`` rows each (ints summing to the size, or fractions
        summing to 1). ``randomize`` needs a random-access source: call ``split`` on it."""
        counts = split_sizes(sizes, self.get_dataset_size())
        if randomize:
            raise ValueError(f"split(randomize=True) needs a random-access source dataset "
                             f"(NumpySlicesDataset, MnistDataset...), not {type(self).__name__}; "
                             f"split the source before adding operations, or pass "
                             f"randomize=False")
        parts, start = [], 0
        for n in counts:
            parts.append(self.skip(start).take(n))
            start += n
        return tuple(parts)

    # --- queries ------------------------------------------------------------------------------

    def get_col_names(self) -> list[str]:
        """The names of the columns, in order."""
        return list(self._columns())

    def get_dataset_size(self) -> int:
        """The number of rows (batches after ``batch``) of one epoch. When it is not known from
        the pipeline's structure (``filter``, a generator without ``__len__``), one pass is read
        to count them, as MindSpore does; the count is remembered."""
        size = self._static_size()
        if size is not None:
            return size
        if self._counted_size is None:
            self._counted_size = sum(1 for _ in rows_of(self._stream(Run())))
        return self._counted_size

    def __len__(self) -> int:
        return self.get_dataset_size()

    def get_batch_size(self) -> int:
        """The batch size of the last ``batch`` in the pipeline (1 without one)."""
        return self.children[0].get_batch_size() if self.children else 1

    def get_repeat_count(self) -> int:
        """The count of the last ``repeat`` in the pipeline (1 without one)."""
        return self.children[0].get_repeat_count() if self.children else 1

    def output_shapes(self, estimate=False) -> list[list[int]]:
        """The shape of each column in the first row ([] for an empty dataset)."""
        return [list(a.shape) for a in self._first_row()]

    def output_types(self) -> list[np.dtype]:
        """The numpy dtype of each column in the first row ([] for an empty dataset; strings as
        ``np.str_``, without a length, as MindSpore reports them)."""
        return [np.dtype(a.dtype.type) if a.dtype.kind in "US" else a.dtype
                for a in self._first_row()]

    def _first_row(self) -> tuple:
        return next(iter(rows_of(self._stream(Run()))), ())

    # --- iterators ----------------------------------------------------------------------------

    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=False):
        """An iterator of rows as lists (graphcell Tensors, or numpy arrays with
        ``output_numpy=True``). Iterating it again after an epoch starts the next epoch, up to
        ``num_epochs`` (-1: no limit). Values never share memory with the source data;
        ``do_copy`` is accepted (MindSpore's switch for its own buffers)."""
        return _iterators.TupleIterator(self, num_epochs, output_numpy, do_copy, columns)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=False):
        """Like ``create_tuple_iterator``, with rows as ``{column name: value}``."""
        return _iterators.DictIterator(self, num_epochs, output_numpy, do_copy)

    def __iter__(self) -> Iterator[list]:
        return iter(self.create_tuple_iterator())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} columns={self.get_col_names()}>"


def split_sizes(sizes, total: int) -> list[int]:
    """``split``'s sizes as row counts: ints must add up to ``total``; fractions are rounded and
    the first parts take what rounding left over (as MindSpore)."""
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise TypeError(f"split: sizes must be a non-empty list of ints or of floats, got "
                        f"{sizes!r}")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in sizes):
        if any(v < 1 for v in sizes) or sum(sizes) != total:
            raise ValueError(f"split: the sizes {list(sizes)} must be positive and add up to the "
                             f"dataset size {total}")
        return list(sizes)
    if not all(isinstance(v, float) and 0 < v <= 1 for v in sizes) or abs(sum(sizes) - 1) > 1e-6:
        raise ValueError(f"split: fractions must be floats in (0, 1] adding up to 1, got "
                         f"{list(sizes)}")
    counts = [round(v * total) for v in sizes]
    i = 0
    while sum(counts) != total:
        step = 1 if sum(counts) < total else -1
        if counts[i % len(counts)] + step >= 1:
            counts[i % len(counts)] += step
        i += 1
    if any(c < 1 for c in counts):
        raise ValueError(f"split: the fractions {list(sizes)} leave an empty part of a dataset "
                         f"of {total} rows")
    return counts


def check_count(name: str, count, allow_all: bool) -> int:
    """``take``/``repeat`` counts: -1 (all / without end) or a positive int."""
    if allow_all and count in (None, -1):
        return -1
    return check_int(name, count, 1, INT32_MAX)


# The operations, iterators and sources subclass or read Dataset, so they are imported after
# it; MindSpore's ``engine.datasets`` module holds them all, hence the re-exports.
from graphcell.dataset.engine import iterators as _iterators, operations as _ops  # noqa: E402
from graphcell.dataset.engine.operations import (  # noqa: E402,F401
    BatchDataset, BatchInfo, ConcatDataset, FilterDataset, MapDataset, ProjectDataset,
    RenameDataset, RepeatDataset, ShuffleDataset, SkipDataset, TakeDataset, ZipDataset)
from graphcell.dataset.engine.sources import MappableDataset, SourceDataset  # noqa: E402,F401

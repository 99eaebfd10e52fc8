"""Datasets over user data: ``NumpySlicesDataset`` (columns in memory) and ``GeneratorDataset``
(a random-access object, an iterable or a generator function).

Example::

    >>> import numpy as np
    >>> import graphcell.dataset as ds
    >>> data = ds.NumpySlicesDataset({"x": np.arange(6.0).reshape(3, 2), "y": [0, 1, 0]},
    ...                              shuffle=False)
    >>> [(x.shape, int(y)) for x, y in data]
    [((2,), 0), ((2,), 1), ((2,), 0)]
"""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator

import numpy as np

from graphcell.dataset.core.errors import DatasetError, PipelineError
from graphcell.dataset.core.validate import INT64_MAX, check_optional_int, column_list
from graphcell.dataset.engine.rows import (ArrayTable, Indexed, Row, Table, source_row,
                                           stack_column, to_array)
from graphcell.dataset.engine.sources import MappableDataset, SourceDataset
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import to_dtype


# --- NumpySlicesDataset -------------------------------------------------------------------------

def _slices_column(values, where: str):
    """A column of NumpySlicesDataset: numpy arrays are kept as they are (rows are read lazily,
    never copied whole); a list becomes one stacked array when its rows agree in shape and dtype
    (converted one by one, as MindSpore does), else a list of per-row arrays."""
    if isinstance(values, Tensor):
        values = values.asnumpy()
    if isinstance(values, np.ndarray):
        if values.ndim == 0:
            raise TypeError(f"{where}: a 0-d array has no rows to slice")
        if values.dtype == object:
            raise TypeError(f"{where}: numpy arrays of Python objects are not supported")
        return values
    if not isinstance(values, list):
        raise TypeError(f"{where} must be a list or a numpy array, got {type(values).__name__}")
    rows = [to_array(v, f"{where}, row {i}") for i, v in enumerate(values)]
    if rows and all(r.shape == rows[0].shape and r.dtype == rows[0].dtype for r in rows):
        return np.stack(rows)
    return rows


class NumpySlicesDataset(MappableDataset):
    """Rows sliced from in-memory data along its first axis.

    ``data`` is a list or numpy array (one column), a tuple of them (one column each) or a dict
    (``{name: column}``). Columns are named ``column_0``, ``column_1``... unless ``column_names``
    or the dict's keys name them. Python ints become Int64, floats Float64. ``shuffle`` defaults
    to True, as in MindSpore.
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)
        names, columns = self._split(data)
        given = column_list("column_names", column_names)
        if given is not None:
            if len(given) != len(columns):
                raise ValueError(f"NumpySlicesDataset: column_names has {len(given)} names "
                                 f"({given}) but the data has {len(columns)} columns")
            names = given
        lengths = [len(c) for c in columns]
        if len(set(lengths)) > 1:
            raise ValueError(f"NumpySlicesDataset: the columns have different lengths "
                             f"{dict(zip(names, lengths))}; every column needs one value per row")
        self._data = ArrayTable(names, columns)
        self._n = lengths[0]
        self._check_sampler()

    @staticmethod
    def _split(data):
        if isinstance(data, dict):
            if not data:
                raise ValueError("NumpySlicesDataset: the dict has no columns")
            names = [str(k) for k in data]
            return names, [_slices_column(v, f"NumpySlicesDataset: column {k!r}")
                           for k, v in data.items()]
        if isinstance(data, tuple):
            if not data:
                raise ValueError("NumpySlicesDataset: the tuple has no columns")
            return ([f"column_{i}" for i in range(len(data))],
                    [_slices_column(v, f"NumpySlicesDataset: data[{i}]")
                     for i, v in enumerate(data)])
        if isinstance(data, (list, np.ndarray, Tensor)):
            return ["column_0"], [_slices_column(data, "NumpySlicesDataset: data")]
        raise TypeError(f"NumpySlicesDataset: data must be a list, tuple, dict or numpy array, "
                        f"got {type(data).__name__}")

    def _columns(self):
        return self._data.names

    def _row_count(self) -> int:
        return self._n

    def _table(self) -> Table:
        return self._data


# --- GeneratorDataset ---------------------------------------------------------------------------

class _SourceTable(Table):
    """Rows of a random-access user object, read one ``source[i]`` at a time."""

    def __init__(self, dataset: "GeneratorDataset"):
        self.dataset, self.names = dataset, dataset._columns()

    def row(self, i: int) -> Row:
        return self.dataset._fetch(i)

    def gather(self, idx: np.ndarray) -> Row:
        rows = [self.row(i) for i in idx.tolist()]
        return tuple(stack_column([r[c] for r in rows], name, "batch")
                     for c, name in enumerate(self.names))


class GeneratorDataset(MappableDataset):
    """Rows from Python: ``source`` is a random-access object (``__getitem__`` and ``__len__``,
    e.g. a list), an iterable, or a function returning an iterator (a generator function).

    Each row is a value (one column) or a tuple/list of values, one per ``column_names`` entry.
    Sampling arguments (``shuffle``, ``sampler``, ``num_shards``) need a random-access source;
    ``shuffle`` defaults to True for one. ``num_parallel_workers`` and ``python_multiprocessing``
    are accepted; rows are read in the calling thread.
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None,
                 batch_sampler=None, collate_fn=None):
        if schema is not None:
            raise NotImplementedError("GeneratorDataset: schema= is not supported by "
                                      "graphcell.dataset; give column_names (and column_types)")
        if isinstance(source, zip):
            source = list(source)  # a zip can be read once only
        self.source = source
        self._random_access = hasattr(source, "__getitem__")
        if not (self._random_access or hasattr(source, "__iter__") or callable(source)):
            raise TypeError(f"GeneratorDataset: source must be callable (a generator function), "
                            f"iterable or random accessible (__getitem__ and __len__), got "
                            f"{type(source).__name__}")
        if self._random_access and not hasattr(source, "__len__"):
            raise TypeError(f"GeneratorDataset: the random-access source "
                            f"{type(source).__name__} needs a __len__ method")
        names = column_list("column_names", column_names)
        if names is None:
            raise ValueError("GeneratorDataset: give column_names, the names of the columns the "
                             "source returns")
        self._names = tuple(names)
        self._types = None if column_types is None else [to_dtype(t) for t in column_types]
        if self._types is not None and len(self._types) != len(names):
            raise ValueError(f"GeneratorDataset: column_types has {len(self._types)} entries for "
                             f"{len(names)} columns")
        self._batch_sampler, self._collate_fn = batch_sampler, collate_fn
        self._check_batch_sampler(num_samples, shuffle, sampler, num_shards, shard_id)
        if not self._random_access:
            self._check_iterable(shuffle, sampler, num_shards)
            shuffle, sampler, num_shards, shard_id = False, None, None, None
        super().__init__(num_samples if self._random_access else None, num_parallel_workers,
                         shuffle, sampler, num_shards, shard_id)
        self.num_samples = check_optional_int("num_samples", num_samples, 0, INT64_MAX) or None
        self.python_multiprocessing = python_multiprocessing
        self.max_rowsize = max_rowsize
        if self._random_access and batch_sampler is None:
            self._check_sampler()

    def _check_iterable(self, shuffle, sampler, num_shards) -> None:
        kind = type(self.source).__name__
        if sampler is not None or num_shards is not None:
            raise ValueError(f"GeneratorDataset: sampler= and num_shards= need a random-access "
                             f"source (__getitem__ and __len__); {kind} is only iterable")
        if shuffle:
            warnings.warn(f"GeneratorDataset: shuffle=True has no effect on the iterable source "
                          f"{kind} (as in MindSpore); shuffle the rows with .shuffle(buffer_size) "
                          f"or give a random-access source", stacklevel=3)

    def _check_batch_sampler(self, num_samples, shuffle, sampler, num_shards, shard_id) -> None:
        if self._batch_sampler is None:
            if self._collate_fn is not None:
                raise ValueError("GeneratorDataset: collate_fn needs a batch_sampler")
            return
        if not self._random_access:
            raise ValueError("GeneratorDataset: batch_sampler needs a random-access source")
        if any(a is not None for a in (num_samples, shuffle, sampler, num_shards, shard_id)):
            raise ValueError("GeneratorDataset: batch_sampler cannot be combined with "
                             "num_samples, shuffle, sampler or num_shards/shard_id")
        if self._collate_fn is not None and not callable(self._collate_fn):
            raise TypeError("GeneratorDataset: collate_fn must be callable")

    # --- reading --------------------------------------------------------------------------------

    def _where(self, index=None) -> str:
        at = f", row {index}" if index is not None else ""
        kind = type(self.source).__name__
        return f"GeneratorDataset source {kind} (created at {self._origin}){at}"

    def _convert(self, value, index) -> Row:
        try:
            row = source_row(value, self._where(index))
        except TypeError as e:
            raise PipelineError(str(e)) from e
        if len(row) != len(self._names):
            raise PipelineError(f"{self._where(index)}: returned {len(row)} columns but "
                                f"column_names has {len(self._names)}: {list(self._names)}")
        if self._types is not None:
            for arr, want, name in zip(row, self._types, self._names):
                if arr.dtype != want.np_dtype:
                    raise PipelineError(f"{self._where(index)}: column {name!r} is {arr.dtype} "
                                        f"but column_types says {want.ms_name}")
        return row

    def _fetch(self, i: int) -> Row:
        try:
            value = self.source[i]
        except DatasetError:
            raise
        except Exception as e:
            raise PipelineError(f"{self._where(i)}: source[{i}] raised {type(e).__name__}: "
                                f"{e}") from e
        return self._convert(value, i)

    def _iterate(self) -> Iterator[Row]:
        try:
            it = iter(self.source() if not hasattr(self.source, "__iter__") else self.source)
        except Exception as e:
            raise PipelineError(f"{self._where()}: starting the source raised "
                                f"{type(e).__name__}: {e}") from e
        for index in itertools.count():
            if self.num_samples is not None and index >= self.num_samples:
                return
            try:
                value = next(it)
            except StopIteration:
                return
            except Exception as e:
                raise PipelineError(f"{self._where(index)}: the source raised "
                                    f"{type(e).__name__}: {e}") from e
            yield self._convert(value, index)

    def _batches(self) -> Iterator[Row]:
        for indices in self._batch_sampler:
            rows = [self._fetch(int(i)) for i in indices]
            if self._collate_fn is None:
                yield tuple(stack_column([r[c] for r in rows], name, self._where())
                            for c, name in enumerate(self._names))
                continue
            try:
                out = self._collate_fn(*[[r[c] for r in rows] for c in range(len(self._names))])
                out = out if isinstance(out, tuple) else (out,)
                yield tuple(to_array(o, f"collate_fn output {k}") for k, o in enumerate(out))
            except Exception as e:
                raise PipelineError(f"{self._where()}: collate_fn raised {type(e).__name__}: "
                                    f"{e}") from e

    # --- the node ---------------------------------------------------------------------------

    def _columns(self):
        return self._names

    def _row_count(self) -> int:
        return len(self.source)

    def _table(self) -> Table:
        return _SourceTable(self)

    def _static_size(self):
        if self._batch_sampler is not None:
            return len(self._batch_sampler) if hasattr(self._batch_sampler, "__len__") else None
        if self._random_access:
            return super()._static_size()
        if hasattr(self.source, "__len__"):
            n = len(self.source)
            return n if self.num_samples is None else min(n, self.num_samples)
        return None

    def _stream(self, run):
        if self._batch_sampler is not None:
            return self._batches()
        if self._random_access:
            return Indexed(self._table(), self.sampler.order(self._row_count(), run))
        return self._iterate()


__all__ = ["NumpySlicesDataset", "GeneratorDataset", "SourceDataset"]

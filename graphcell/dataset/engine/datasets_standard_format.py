"""``MindDataset``: rows of MindSpore's MindRecord files (written by ``mindrecord.FileWriter``,
or by MindSpore) as a mappable source.

The global row order is the shards' in turn (each shard in the order it was written); samplers,
``num_samples`` and ``num_shards``/``shard_id`` work on that order as for every mappable source
(MindSpore's round-robin deal, checked against MindSpore 2.10). ``shuffle`` takes MindSpore's
levels: ``True``/``None``/``Shuffle.GLOBAL`` (and ``ADAPTIVE``, ``PARTIAL``) shuffle all rows,
``Shuffle.FILES`` the order of the files only, ``Shuffle.INFILE`` the rows inside each file only,
``False``/``Shuffle.FALSE`` none. ``padded_sample`` (with ``columns_list``) adds ``num_padded``
copies of one row after the files' rows, so that the shards divide evenly.

Column values are MindSpore's: int/float scalars are 0-d arrays of the schema's dtype, a string a
0-d string array, ``bytes`` a 1-element bytes array, arrays their dtype and shape. The columns are
in name order (or ``columns_list``'s). Files are opened (header and index read) when the dataset is
created; records are decoded when a pass reads them.

Example::

    >>> import os, tempfile
    >>> from graphcell.mindrecord import FileWriter
    >>> import graphcell.dataset as ds
    >>> path = os.path.join(tempfile.mkdtemp(), "ten.mindrecord")
    >>> w = FileWriter(path, shard_num=2)
    >>> w.add_schema({"id": {"type": "int64"}})
    >>> w.write_raw_data([{"id": i} for i in range(10)]); w.commit()
    >>> data = ds.MindDataset(path + "0", shuffle=False, num_shards=2, shard_id=1)
    >>> [int(r["id"]) for r in data.create_dict_iterator(output_numpy=True)]
    [1, 3, 5, 7, 9]
    >>> sorted(os.listdir(os.path.dirname(path)))
    ['ten.mindrecord0', 'ten.mindrecord0.db', 'ten.mindrecord1', 'ten.mindrecord1.db']
"""
from __future__ import annotations

from enum import Enum

import numpy as np

from graphcell.dataset.core.errors import ColumnError, DatasetFileError, SamplerError
from graphcell.dataset.core.validate import check_optional_int
from graphcell.dataset.engine.rows import Table, stack_column
from graphcell.dataset.engine.samplers import BuiltinSampler, DistributedSampler, select_sampler
from graphcell.dataset.engine.sources import MappableDataset
from graphcell.mindrecord import MindRecordException, shard_format


class Shuffle(str, Enum):
    """MindSpore's shuffle levels for file-based sources."""

    FALSE = "false"
    ADAPTIVE = "adaptive"
    GLOBAL = "global"
    PARTIAL = "partial"
    FILES = "files"
    INFILE = "infile"


def _shuffle_level(shuffle) -> Shuffle:
    if shuffle is None or shuffle is True:
        return Shuffle.GLOBAL
    if shuffle is False:
        return Shuffle.FALSE
    if isinstance(shuffle, Shuffle):
        return shuffle
    raise TypeError(f"MindDataset: shuffle must be a bool or a Shuffle level "
                    f"({', '.join('Shuffle.' + s.name for s in Shuffle)}), got {shuffle!r}")


class FileShuffleSampler(BuiltinSampler):
    """Shuffle.FILES (the files in a random order, each read in order) or Shuffle.INFILE (the
    files in order, the rows of each in a random order); with ``num_shards`` the resulting order
    is dealt round-robin like every sharded order."""

    def __init__(self, level: Shuffle, file_rows, num_samples=None, num_shards=None,
                 shard_id=None):
        super().__init__(num_samples)
        self.level = level
        self.file_rows = tuple(file_rows)
        self._deal = (DistributedSampler(num_shards, shard_id, False, num_samples)
                      if num_shards is not None else None)
        self.shared_seed = self._deal is not None

    def is_shuffled(self) -> bool:
        return True

    def is_sharded(self) -> bool:
        return self._deal is not None

    def _order(self, n: int, run) -> np.ndarray:
        rng = self._rng(run)
        starts = np.concatenate([[0], np.cumsum(self.file_rows)]).astype(np.int64)
        blocks = [np.arange(starts[f], starts[f + 1], dtype=np.int64)
                  for f in range(len(self.file_rows))]
        if self.level is Shuffle.FILES:
            blocks = [blocks[f] for f in rng.permutation(len(blocks))]
        else:
            blocks = [rng.permutation(b) for b in blocks]
        base = np.concatenate(blocks + [np.arange(starts[-1], n, dtype=np.int64)])  # padding last
        if self._deal is not None:
            return base[self._deal._order(n, None)]
        return base if self.num_samples is None else base[:self.num_samples]

    def _size(self, n: int) -> int:
        return self._deal.size(n) if self._deal is not None else super()._size(n)


def _column_value(kind: str, shape, value) -> np.ndarray:
    """A stored value as the array MindSpore's MindDataset yields."""
    if shape:
        return np.asarray(value)
    if kind == "bytes":
        return np.array([value])
    if kind == "string":
        return np.array(value)
    return np.array(value, dtype=kind)


class RecordTable(Table):
    """The rows of MindRecord shards (then the padded rows), decoded when read."""

    def __init__(self, shards, names, padded_row, num_padded):
        self.names = tuple(names)
        self._shards = shards
        self._wanted = set(names)
        self._starts = np.cumsum([0] + [len(s) for s in shards])
        self._padded = padded_row
        self._total = int(self._starts[-1])
        self._n = self._total + num_padded

    def row(self, i: int):
        if i >= self._total:
            return self._padded
        s = int(np.searchsorted(self._starts, i, side="right")) - 1
        shard = self._shards[s]
        record = shard.record(i - int(self._starts[s]), self._wanted)
        fields = shard.schema.fields
        return tuple(_column_value(*fields[n], record[n]) for n in self.names)

    def gather(self, idx: np.ndarray):
        rows = [self.row(i) for i in idx.tolist()]
        return tuple(stack_column([r[c] for r in rows], name, "batch")
                     for c, name in enumerate(self.names))


class MindDataset(MappableDataset):
    """The rows of the MindRecord file ``dataset_files`` and the other shards of its set, or of
    exactly the files of a list."""

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None,
                 num_shards=None, shard_id=None, sampler=None, padded_sample=None,
                 num_padded=None, num_samples=None, cache=None):
        level = _shuffle_level(shuffle)
        if sampler is not None and shuffle is not None:
            raise SamplerError("MindDataset: sampler= cannot be combined with shuffle; give the "
                               "sampler the order you want")
        base_shuffle = None if shuffle is None else level is not Shuffle.FALSE
        super().__init__(num_samples, num_parallel_workers,
                         base_shuffle if level not in (Shuffle.FILES, Shuffle.INFILE) else False,
                         sampler, num_shards, shard_id, cache)
        is_list = isinstance(dataset_files, (list, tuple)) and bool(dataset_files) and \
            all(isinstance(p, str) for p in dataset_files)
        if not isinstance(dataset_files, str) and not is_list:
            raise TypeError(f"MindDataset: dataset_files must be a file path or a non-empty "
                            f"list of paths, got {dataset_files!r}")
        self.dataset_files = dataset_files
        try:
            self._shards = shard_format.open_shards(dataset_files, "MindDataset")
        except MindRecordException as e:
            raise DatasetFileError(e.error_msg) from None
        self._schema = self._shards[0].schema
        self._columns_given = columns_list is not None
        self.columns_list = self._check_columns(columns_list)
        self.num_padded, self._padded_row = self._check_padding(padded_sample, num_padded,
                                                                num_shards)
        self._n = sum(len(s) for s in self._shards) + self.num_padded
        if level in (Shuffle.FILES, Shuffle.INFILE):
            self.sampler = FileShuffleSampler(level, [len(s) for s in self._shards], num_samples,
                                              num_shards, shard_id)
        self._table_cache = None
        self._check_sampler()

    def _check_columns(self, columns_list) -> list[str]:
        fields = list(self._schema.fields)
        if columns_list is None:
            return fields
        if not isinstance(columns_list, list) or not columns_list or \
                not all(isinstance(c, str) for c in columns_list):
            raise TypeError(f"MindDataset: columns_list must be a non-empty list of field "
                            f"names, got {columns_list!r}")
        unknown = [c for c in columns_list if c not in self._schema.fields]
        if unknown:
            raise ColumnError(f"MindDataset: columns_list names {unknown}, which the files do "
                              f"not have; their fields are {fields}")
        if len(set(columns_list)) != len(columns_list):
            raise ColumnError(f"MindDataset: columns_list {columns_list} repeats a column")
        return list(columns_list)

    def _check_padding(self, padded_sample, num_padded, num_shards):
        if padded_sample is None:
            if num_padded is not None:
                raise SamplerError("MindDataset: num_padded is given but padded_sample (the row "
                                   "to add) is not")
            return 0, None
        if num_padded is None:
            raise SamplerError("MindDataset: padded_sample is given but num_padded (how many "
                               "copies to add) is not")
        if not isinstance(padded_sample, dict):
            raise TypeError(f"MindDataset: padded_sample must be a dict of column -> value, got "
                            f"{type(padded_sample).__name__}")
        if not self._columns_given:
            raise ColumnError("MindDataset: padded_sample needs columns_list as well (the "
                              "columns the padded row fills)")
        missing = [c for c in self.columns_list if c not in padded_sample]
        if missing:
            raise ColumnError(f"MindDataset: padded_sample lacks the columns {missing} of "
                              f"columns_list {self.columns_list}")
        count = check_optional_int("num_padded", num_padded, 0, 2 ** 31 - 1)
        total = sum(len(s) for s in self._shards) + count
        if num_shards is not None and total % num_shards:
            raise SamplerError(f"MindDataset: {total} rows with the padding do not divide into "
                               f"{num_shards} shards; choose num_padded so that they do")
        row = tuple(_column_value(*self._schema.fields[c], padded_sample[c])
                    for c in self.columns_list)
        return count, row

    def _columns(self):
        return tuple(self.columns_list)

    def _row_count(self) -> int:
        return self._n

    def _table(self) -> Table:
        if self._table_cache is None:
            self._table_cache = RecordTable(self._shards, self.columns_list, self._padded_row,
                                            self.num_padded)
        return self._table_cache


__all__ = ["MindDataset", "Shuffle"]

"""A small in-memory dataset that follows MindSpore's dataset protocol, for the Model tests.

``Model`` reads a dataset through ``get_dataset_size()`` and
``create_tuple_iterator(num_epochs=...)`` (and users through ``create_dict_iterator`` and
``get_col_names``); an iterator made for ``num_epochs`` gives one pass per ``for`` loop over it,
and asking for more passes is an error, as in MindSpore. ``graphcell.dataset`` provides the real
thing; these tests do not depend on it.
"""
from __future__ import annotations

import numpy as np

import graphcell as ms


class ArrayDataset:
    """Columns of equal length, cut in order into batches of ``batch_size`` (the last one
    smaller unless ``drop_remainder``)."""

    def __init__(self, columns: dict[str, np.ndarray], batch_size: int, drop_remainder=False):
        self.columns = dict(columns)
        self.batch_size = batch_size
        n = len(next(iter(self.columns.values())))
        self.slices = [slice(i, min(i + batch_size, n)) for i in range(0, n, batch_size)
                       if not (drop_remainder and i + batch_size > n)]
        self.iterators_made = 0

    def get_dataset_size(self) -> int:
        return len(self.slices)

    def get_col_names(self) -> list[str]:
        return list(self.columns)

    def get_batch_size(self) -> int:
        return self.batch_size

    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=True):
        self.iterators_made += 1
        return _Passes(self, num_epochs, output_numpy, as_dict=False)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        self.iterators_made += 1
        return _Passes(self, num_epochs, output_numpy, as_dict=True)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    def batches(self) -> list[list[np.ndarray]]:
        return [[col[s] for col in self.columns.values()] for s in self.slices]


class _Passes:
    def __init__(self, ds: ArrayDataset, num_epochs: int, output_numpy: bool, as_dict: bool):
        self.ds, self.left, self.output_numpy, self.as_dict = ds, num_epochs, output_numpy, as_dict
        self.pos = None

    def __iter__(self):
        return self

    def __next__(self):
        if self.pos is None:
            if self.left == 0:
                raise RuntimeError("ArrayDataset: iterator used for more epochs than num_epochs")
            self.left -= 1
            self.pos = 0
        if self.pos == len(self.ds.slices):
            self.pos = None
            raise StopIteration
        s = self.ds.slices[self.pos]
        self.pos += 1
        row = [col[s] if self.output_numpy else ms.Tensor(col[s]) for col in
               self.ds.columns.values()]
        return dict(zip(self.ds.columns, row)) if self.as_dict else row

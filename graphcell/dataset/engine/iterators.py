"""Iterators over a dataset: rows as lists (``TupleIterator``) or dicts (``DictIterator``).

An iterator reads one epoch at a time. When an epoch ends it raises StopIteration; using it
again starts the next epoch (a new pass: shuffles differ), until ``num_epochs`` epochs were read
(-1: no limit) — then it raises, as MindSpore does. Values are graphcell Tensors (numpy arrays
with ``output_numpy=True``; string columns stay numpy arrays), and never share memory with the
source data (``do_copy``, MindSpore's switch for copying out of its own buffers, is accepted).

Example::

    >>> import graphcell.dataset as ds
    >>> it = ds.NumpySlicesDataset([1, 2], shuffle=False).create_tuple_iterator(num_epochs=2)
    >>> [[int(t) for (t,) in it] for _ in range(2)]
    [[1, 2], [1, 2]]
"""
from __future__ import annotations

from graphcell.dataset.core.errors import PipelineError
from graphcell.dataset.core.validate import check_bool, check_int, column_list
from graphcell.dataset.engine.rows import column_positions, rows_of
from graphcell.dataset.engine.run import Run
from graphcell.tensor import Tensor, _SUPPORTED


def _output(arr, output_numpy: bool):
    if arr.base is not None:  # a view of the source data (a row of a stacked column)
        arr = arr.copy()
    if output_numpy or arr.dtype not in _SUPPORTED:
        return arr
    return Tensor._wrap(arr)


class _Iterator:
    def __init__(self, dataset, num_epochs, output_numpy, do_copy, columns=None):
        num_epochs = check_int("num_epochs", num_epochs, -1)
        if num_epochs == 0:
            raise ValueError("num_epochs must be -1 (no limit) or a positive int, got 0")
        self._dataset = dataset
        self._epochs_left = num_epochs
        self._output_numpy = check_bool("output_numpy", output_numpy)
        check_bool("do_copy", do_copy)
        names = dataset._columns()
        wanted = column_list("columns", columns) or list(names)
        self._positions = column_positions(names, wanted, "create_tuple_iterator")
        self._names = wanted
        self._run = Run()
        self._rows = None

    def __iter__(self):
        return self

    def __next__(self):
        if self._rows is None:
            if self._epochs_left == 0:
                raise PipelineError(f"the iterator has read the num_epochs epochs it was created "
                                    f"for; create it with a larger num_epochs (or -1) to read "
                                    f"more")
            self._rows = iter(rows_of(self._dataset._stream(self._run)))
        try:
            row = next(self._rows)
        except StopIteration:
            self._rows = None
            if self._epochs_left > 0:
                self._epochs_left -= 1
            raise
        out = [_output(row[p], self._output_numpy) for p in self._positions]
        return self._shape(out)

    def _shape(self, values: list):
        return values

    def stop(self) -> None:
        """End the iteration; the iterator yields nothing more."""
        self._rows = iter(())
        self._epochs_left = 0


class TupleIterator(_Iterator):
    """Rows as lists of column values."""


class DictIterator(_Iterator):
    """Rows as ``{column name: value}``."""

    def _shape(self, values: list):
        return dict(zip(self._names, values))


Iterator = _Iterator  # MindSpore's name for the base class

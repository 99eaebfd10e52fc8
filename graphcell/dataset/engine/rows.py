"""Rows and columns: how Python values become column arrays, how rows are batched, and the
random-access tables that let a pass read whole batches at once.

A *row* is a tuple of numpy arrays, one per column. Values from user code become arrays as
MindSpore converts them: a Python int is Int64, a float Float64, a bool Bool, a str a string
array, a graphcell Tensor its array; anything numpy can only hold as ``object`` is refused.

A :class:`Table` holds the columns of a random-access source (stacked arrays, rows along the
first axis, or per-row arrays when the rows differ in shape). An :class:`Indexed` pass is a table
and the order of the rows it reads: operations that only reorder or select rows (``shuffle``,
``take``, ``skip``, ``repeat``, ``project``, ``rename``, a ``map`` of array-wise transforms) pass
it on, and ``batch`` gathers each batch with one fancy-indexing read per column — a pass never
copies the whole dataset.

Example::

    >>> import numpy as np
    >>> t = ArrayTable(("x",), (np.arange(6).reshape(3, 2),))
    >>> t.gather(np.array([2, 0]))[0].tolist()
    [[4, 5], [0, 1]]
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from graphcell.dataset.core.errors import ColumnError, PipelineError
from graphcell.tensor import Tensor

Row = tuple  # of np.ndarray

_SCALARS = (int, float, bool, str, bytes, np.ndarray, np.generic)


def to_array(value, where: str) -> np.ndarray:
    """One column value as an array (a new array unless ``value`` already is one)."""
    if isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, Tensor):
        return value.asnumpy()
    else:
        try:
            arr = np.array(value)
        except (ValueError, TypeError) as e:  # ragged nested lists
            raise TypeError(f"{where}: cannot make an array of {_short(value)} ({e})") from None
    if arr.dtype == object:
        raise TypeError(f"{where}: the value {_short(value)} is not numbers or strings (numpy "
                        f"makes it an array of Python objects); give an int, float, bool, str "
                        f"or a numpy array")
    return arr


def source_row(value, where: str) -> Row:
    """A row as a source returns it: a single value is one column, a tuple or list one value per
    column (MindSpore's convention for generators and ``__getitem__``)."""
    if isinstance(value, _SCALARS) or isinstance(value, Tensor):
        return (to_array(value, where),)
    if isinstance(value, dict):
        raise TypeError(f"{where}: returned a dict; return a tuple with one value per column")
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{where}: returned {type(value).__name__} {_short(value)}; return a "
                        f"numpy array, a number or a tuple of them (one per column)") from None
    return tuple(to_array(v, f"{where}, column {i}") for i, v in enumerate(items))


def function_outputs(value, where: str) -> Row:
    """What a ``map``/``per_batch_map`` function returned: a tuple is several columns, anything
    else (an array, a list, a number) one column."""
    if value is None:
        raise TypeError(f"{where}: returned None; return the new column value(s)")
    if isinstance(value, tuple):
        return tuple(to_array(v, f"{where}, output {i}") for i, v in enumerate(value))
    return (to_array(value, where),)


def stack_column(values: Sequence[np.ndarray], column: str, where: str) -> np.ndarray:
    """Rows of one column stacked into a batch; rows of different shapes are an error."""
    first = values[0].shape
    for v in values:
        if v.shape != first:
            raise PipelineError(
                f"{where}: the rows of column {column!r} have different shapes ({list(first)} "
                f"and {list(v.shape)}); batch needs rows of one shape — resize or pad them "
                f"with a map first, or use per_batch_map")
    return np.stack(values)


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --- tables: random-access columns --------------------------------------------------------------

class Table:
    """The columns of a random-access source. ``row(i)`` reads one row, ``gather(idx)`` a batch."""

    names: tuple[str, ...]

    def row(self, i: int) -> Row:
        raise NotImplementedError

    def gather(self, idx: np.ndarray) -> Row:
        raise NotImplementedError

    def select(self, positions: Sequence[int], names: Sequence[str]) -> "Table":
        """The columns at ``positions``, called ``names``."""
        return _Selected(self, tuple(positions), tuple(names))


class ArrayTable(Table):
    """Columns held in memory: a stacked array (rows on axis 0) or a list of per-row arrays."""

    def __init__(self, names: Sequence[str], columns: Sequence):
        self.names = tuple(names)
        self.columns = tuple(columns)

    def row(self, i: int) -> Row:
        return tuple(c[i, ...] if isinstance(c, np.ndarray) else c[i] for c in self.columns)

    def gather(self, idx: np.ndarray) -> Row:
        return tuple(np.take(c, idx, axis=0) if isinstance(c, np.ndarray)
                     else stack_column([c[j] for j in idx], name, "batch")
                     for c, name in zip(self.columns, self.names))

    def stacked(self, position: int) -> bool:
        return isinstance(self.columns[position], np.ndarray)


class _Selected(Table):
    def __init__(self, base: Table, positions: tuple[int, ...], names: tuple[str, ...]):
        self.base, self.positions, self.names = base, positions, names

    def row(self, i: int) -> Row:
        r = self.base.row(i)
        return tuple(r[p] for p in self.positions)

    def gather(self, idx: np.ndarray) -> Row:
        r = self.base.gather(idx)
        return tuple(r[p] for p in self.positions)


class MappedTable(Table):
    """A table whose rows pass through a ``map`` of array-wise transforms: ``row`` applies the
    transforms to one row, ``gather`` to a whole batch at once (the same arithmetic, so the
    results are identical)."""

    def __init__(self, base: Table, names: Sequence[str], apply_row: Callable[[Row], Row],
                 apply_batch: Callable[[Row], Row]):
        self.base, self.names = base, tuple(names)
        self._apply_row, self._apply_batch = apply_row, apply_batch

    def row(self, i: int) -> Row:
        return self._apply_row(self.base.row(i))

    def gather(self, idx: np.ndarray) -> Row:
        return self._apply_batch(self.base.gather(idx))


@dataclass
class Indexed:
    """One pass over a table: the rows ``order`` names, in that order."""

    table: Table
    order: np.ndarray

    def rows(self) -> Iterator[Row]:
        row = self.table.row
        for i in self.order.tolist():
            yield row(i)


def rows_of(stream) -> Iterator[Row]:
    """The rows of a pass, whichever form it took."""
    return stream.rows() if isinstance(stream, Indexed) else stream


def column_positions(names: Sequence[str], wanted: Sequence[str], op: str) -> list[int]:
    """The positions of ``wanted`` among ``names``; an unknown name is a ColumnError."""
    out = []
    for w in wanted:
        if w not in names:
            raise ColumnError(f"{op}: unknown column {w!r}; the dataset's columns are "
                              f"{list(names)}")
        out.append(list(names).index(w))
    return out

"""``nn.CellList`` and ``nn.SequentialCell``: cells held in order, named ``"0"``, ``"1"``, ...;
``nn.CellDict``: cells held by name.

The children's parameters are named by index under the container's prefix
(``layers.0.weight``), and renamed when an insertion or deletion moves a child. Slicing gives a new
container that shares the cells and leaves their names alone (MindSpore renames the shared cells;
that silently changes the names in the original network).

Example::

    >>> from graphcell import nn
    >>> seq = nn.SequentialCell([nn.Cell(), nn.Cell()])
    >>> len(seq), [name for name, _ in seq.cells_and_names()]
    (2, ['', '0', '1'])
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from graphcell.nn.cell import Cell

__all__ = ["CellList", "SequentialCell", "CellDict"]


def _check_cell(owner: str, cell, what: str = "each item") -> Cell:
    if not isinstance(cell, Cell):
        raise TypeError(f"{owner}: {what} must be a Cell, got {type(cell).__name__}")
    return cell


def _index(owner: str, length: int, index, inserting: bool = False, slices: bool = False) -> int:
    """``index`` as a position in ``[0, length)`` (``[0, length]`` when inserting)."""
    try:
        if isinstance(index, bool):
            raise TypeError
        index = operator.index(index)  # ints, numpy ints, 0-d integer Tensors
    except TypeError:
        kinds = "an int or a slice" if slices else "an int"
        raise TypeError(f"{owner}: an index must be {kinds}, got {type(index).__name__}") from None
    high = length + 1 if inserting else length
    if not -length <= index < high:
        bounds = f"[{-length}, {length}]" if inserting else f"[{-length}, {length})"
        raise IndexError(f"{owner}: index {index} is out of range {bounds} for {length} cell(s)")
    return index + length if index < 0 else index


class _OrderedCells(Cell):
    """What both containers share: children in order, renamed when they move.

    ``_names`` holds, per child, its own name (an OrderedDict entry of a SequentialCell) or None
    for a child keyed by its position.
    """

    def __init__(self, auto_prefix=True):
        super().__init__(auto_prefix=auto_prefix)
        object.__setattr__(self, "_names", [])

    def __len__(self) -> int:
        return len(self._cells)

    def __bool__(self) -> bool:
        return len(self._cells) != 0

    def __iter__(self):
        return iter(list(self._cells.values()))

    def _position(self, index, inserting: bool = False, slices: bool = False) -> int:
        return _index(self.cls_name, len(self), index, inserting, slices)

    def _name_child(self, key: str, cell: Cell) -> None:
        if self._auto_prefix:
            cell.update_parameters_name(f"{self._name_prefix}{key}.")

    def _append(self, cell: Cell, name=None) -> None:
        key = str(len(self)) if name is None else name
        self._names.append(name)
        self._cells[key] = cell
        self._name_child(key, cell)

    def _rebuild(self, cells: list, names: list) -> None:
        """Make the table from ``cells``; numbered children take their new position as key."""
        table = OrderedDict((str(i) if name is None else name, cell)
                            for i, (cell, name) in enumerate(zip(cells, names)))
        object.__setattr__(self, "_cells", table)
        object.__setattr__(self, "_names", list(names))
        for key, cell in table.items():
            self._name_child(key, cell)

    def __getitem__(self, index):
        if isinstance(index, slice):  # shares the cells and leaves their names alone
            new = type(self).__new__(type(self))
            _OrderedCells.__init__(new, self._auto_prefix)
            new._cells.update(list(self._cells.items())[index])
            new._names.extend(self._names[index])
            return new
        return list(self._cells.values())[self._position(index, slices=True)]

    def __setitem__(self, index, cell) -> None:
        _check_cell(self.cls_name, cell, "the new item")
        key = list(self._cells)[self._position(index)]
        self._cells[key] = cell
        self._name_child(key, cell)

    def __delitem__(self, index) -> None:
        cells, names = list(self._cells.values()), list(self._names)
        if isinstance(index, slice):
            del cells[index], names[index]
        else:
            pos = self._position(index, slices=True)
            del cells[pos], names[pos]
        self._rebuild(cells, names)

    def append(self, cell) -> None:
        """Add ``cell`` at the end."""
        self._append(_check_cell(self.cls_name, cell, "the appended item"))

    def insert(self, index, cell) -> None:
        """Insert ``cell`` before position ``index``; the cells after it move up one place."""
        _check_cell(self.cls_name, cell, "the inserted item")
        pos = self._position(index, inserting=True)
        cells, names = list(self._cells.values()), list(self._names)
        cells.insert(pos, cell)
        names.insert(pos, None)
        self._rebuild(cells, names)

    def set_grad(self, requires_grad=True) -> "_OrderedCells":
        """``set_grad`` on the container and every child."""
        super().set_grad(requires_grad)
        for cell in self._cells.values():
            cell.set_grad(requires_grad)
        return self


class CellList(_OrderedCells):
    """A list of cells: ``append``, ``extend``, ``insert``, indexing, ``len``, iteration.

    ``CellList(cells=None, auto_prefix=True)``. A CellList has no ``construct``; a network
    iterates it in its own ``construct``.

    Example::

        >>> from graphcell import nn
        >>> layers = nn.CellList([nn.Cell()])
        >>> layers.append(nn.Cell())
        >>> len(layers), layers[-1] is layers[1]
        (2, True)
    """

    def __init__(self, *args, **kwargs):
        auto_prefix = kwargs.pop("auto_prefix", True)
        if kwargs:
            raise TypeError(f"CellList: unexpected keyword argument(s) {', '.join(kwargs)}")
        if len(args) > 1:
            raise TypeError(f"CellList takes one list of cells, got {len(args)} arguments")
        super().__init__(auto_prefix=auto_prefix)
        if args:
            self.extend(args[0])

    def __iadd__(self, cells) -> "CellList":
        return self.extend(cells)

    def extend(self, cells) -> "CellList":
        """Add every cell of the iterable ``cells`` at the end."""
        if isinstance(cells, Cell) or not hasattr(cells, "__iter__"):
            raise TypeError(f"{self.cls_name}.extend: expected a list of cells, got "
                            f"{type(cells).__name__}")
        cells = list(cells)
        for i, cell in enumerate(cells):
            _check_cell(self.cls_name, cell, f"item {i}")
        for cell in cells:
            self._append(cell)
        return self

    def construct(self, *inputs):
        raise NotImplementedError("CellList has no construct; iterate over it in the construct "
                                  "of the cell that holds it")


class SequentialCell(_OrderedCells):
    """Cells run one after the other: ``construct(x)`` feeds each cell's output to the next.

    ``SequentialCell(cells)`` with a list or an OrderedDict ``{name: cell}``, or
    ``SequentialCell(cell1, cell2, ...)``.

    Example::

        >>> from collections import OrderedDict
        >>> from graphcell import nn
        >>> nn.SequentialCell(OrderedDict([("a", nn.Cell())]))
        SequentialCell(
          (a): Cell()
        )
    """

    def __init__(self, *args):
        super().__init__()
        for name, cell in _sequential_items(self.cls_name, args):
            self._append(cell, name)

    @property
    def cell_list(self) -> list:
        """The cells in order."""
        return list(self._cells.values())

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


def _sequential_items(owner: str, args: tuple) -> list:
    """(key or None, cell) pairs from SequentialCell's arguments; None means keyed by position."""
    if len(args) == 1 and isinstance(args[0], OrderedDict):
        return [(name, _check_cell(owner, cell, f"entry {name!r}")) for name, cell in args[0].items()]
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        cells = args[0]
    elif all(isinstance(a, Cell) for a in args):
        cells = args
    else:
        bad = next(a for a in args if not isinstance(a, Cell))
        raise TypeError(f"{owner}: expected a list or OrderedDict of cells, or cells as arguments; "
                        f"got {type(bad).__name__}")
    return [(None, _check_cell(owner, cell)) for cell in cells]


class CellDict(Cell):
    """Cells held by name, in insertion order: ``d[key]``, ``d[key] = cell``, ``del d[key]``,
    ``len``, iteration over the keys, ``in``, ``keys``, ``values``, ``items``, ``pop``, ``clear``,
    ``update``.

    ``CellDict(cells=None, auto_prefix=True)`` with a dict (or OrderedDict, or CellDict) or an
    iterable of (key, cell) pairs. Keys are non-empty strs without ``'.'`` that are not already
    attributes of the cell; the cells may not be containers (CellDict, CellList,
    SequentialCell). A child's parameters are named ``<prefix><key>.<path>``. A CellDict has no
    ``construct``: a network looks its cells up in its own ``construct``.

    Example::

        >>> from graphcell import nn
        >>> d = nn.CellDict({"act": nn.ReLU()})
        >>> d["fc"] = nn.Dense(2, 3)
        >>> list(d), "act" in d, [p.name for p in d.get_parameters()]
        (['act', 'fc'], True, ['fc.weight', 'fc.bias'])
    """

    def __init__(self, *args, **kwargs):
        auto_prefix = kwargs.pop("auto_prefix", True)
        if kwargs:
            raise TypeError(f"CellDict: unexpected keyword argument(s) {', '.join(kwargs)}")
        if len(args) > 1:
            raise TypeError(f"CellDict takes one dict or iterable of (key, cell) pairs, got "
                            f"{len(args)} arguments")
        super().__init__(auto_prefix=auto_prefix)
        if args:
            self.update(args[0])

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell) -> None:
        self._check_key(key)
        self._check_cell(cell)
        if self._auto_prefix:
            cell.update_parameters_name(f"{self._name_prefix}{key}.")
        self._cells[key] = cell

    def __delitem__(self, key) -> None:
        del self._cells[key]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells))

    def __contains__(self, key) -> bool:
        return key in self._cells

    def _check_key(self, key) -> None:
        owner = self.cls_name
        if not isinstance(key, str):
            raise TypeError(f"{owner}: a key must be a str, got {type(key).__name__}")
        if key not in self._cells and hasattr(self, key):
            raise KeyError(f"{owner}: the key {key!r} is an attribute of the cell")
        if "." in key or not key:
            raise KeyError(f"{owner}: a key must be non-empty and contain no '.', got {key!r}")

    def _check_cell(self, cell) -> None:
        owner = self.cls_name
        if not isinstance(cell, Cell):
            raise TypeError(f"{owner}: a value must be a Cell, got {type(cell).__name__}")
        if isinstance(cell, (CellDict, _OrderedCells)):
            raise TypeError(f"{owner}: a value cannot be a CellDict, CellList or SequentialCell, "
                            f"got {type(cell).__name__}")

    def clear(self) -> None:
        """Remove every cell."""
        self._cells.clear()

    def pop(self, key):
        """Remove the cell ``key`` and return it."""
        cell = self[key]
        del self[key]
        return cell

    def keys(self):
        """The keys, in insertion order."""
        return self._cells.keys()

    def values(self):
        """The cells, in insertion order."""
        return self._cells.values()

    def items(self):
        """The (key, cell) pairs, in insertion order."""
        return self._cells.items()

    def update(self, cells) -> None:
        """Add (or replace) the cells of a dict, CellDict or iterable of (key, cell) pairs."""
        owner = self.cls_name
        if isinstance(cells, (Mapping, CellDict)):
            pairs = list(cells.items())
        elif isinstance(cells, Iterable) and not isinstance(cells, Cell):
            pairs = []
            for i, pair in enumerate(cells):
                if not isinstance(pair, Iterable):
                    raise TypeError(f"{owner}.update: element #{i} must be a (key, cell) pair, "
                                    f"got {type(pair).__name__}")
                pair = tuple(pair)
                if len(pair) != 2:
                    raise ValueError(f"{owner}.update: element #{i} must have length 2, got "
                                     f"{len(pair)}")
                pairs.append(pair)
        else:
            raise TypeError(f"{owner}.update: expected a dict or an iterable of (key, cell) pairs, "
                            f"got {type(cells).__name__}")
        for key, cell in pairs:
            self[key] = cell

    def construct(self, *inputs):
        raise NotImplementedError("CellDict has no construct; look its cells up in the construct "
                                  "of the cell that holds it")

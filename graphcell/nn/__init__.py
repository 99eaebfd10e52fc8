"""``graphcell.nn``: cells, containers, and (from later issues) layers, losses and optimizers.

Example::

    >>> from graphcell import nn
    >>> class Net(nn.Cell):
    ...     def construct(self, x):
    ...         return x * 2
    >>> Net()(3)
    6
"""
from graphcell.nn.cell import Cell
from graphcell.nn.container import CellList, SequentialCell

__all__ = ["Cell", "CellList", "SequentialCell"]

"""``mindspore.nn.layer.container``: ``CellList``, ``SequentialCell``, ``CellDict``."""
from graphcell.nn.container import *  # noqa: F403
from graphcell.nn.container import __all__  # noqa: F401

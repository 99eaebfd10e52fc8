"""``mindspore.nn.layer``: MindSpore's import path of the layers (``from mindspore.nn.layer
import Dense``, ``from mindspore.nn.layer.activation import get_activation``). The layers live
in ``graphcell.nn.layers``; these modules re-export them.

Example::

    >>> from graphcell.nn.layer.activation import get_activation
    >>> get_activation('relu')
    ReLU()
"""
from graphcell.nn.container import *  # noqa: F403
from graphcell.nn.layers import *  # noqa: F403
from graphcell.nn.layers import __all__ as _layers

__all__ = ["CellList", "SequentialCell", "CellDict"] + _layers

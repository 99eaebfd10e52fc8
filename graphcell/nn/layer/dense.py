"""``mindspore.nn.layer.dense``: the layers of ``graphcell.nn.layers.dense``."""
from graphcell.nn.layers.dense import *  # noqa: F403
from graphcell.nn.layers.dense import __all__  # noqa: F401

"""``mindspore.nn.layer.pooling``: the layers of ``graphcell.nn.layers.pooling``."""
from graphcell.nn.layers.pooling import *  # noqa: F403
from graphcell.nn.layers.pooling import __all__  # noqa: F401

"""``mindspore.nn.layer.embedding``: the layers of ``graphcell.nn.layers.embedding``."""
from graphcell.nn.layers.embedding import *  # noqa: F403
from graphcell.nn.layers.embedding import __all__  # noqa: F401

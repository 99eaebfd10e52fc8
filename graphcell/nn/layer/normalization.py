"""``mindspore.nn.layer.normalization``: the layers of ``graphcell.nn.layers.normalization``."""
from graphcell.nn.layers.normalization import *  # noqa: F403
from graphcell.nn.layers.normalization import __all__  # noqa: F401

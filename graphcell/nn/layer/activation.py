"""``mindspore.nn.layer.activation``: the layers of ``graphcell.nn.layers.activation``."""
from graphcell.nn.layers.activation import *  # noqa: F403
from graphcell.nn.layers.activation import __all__  # noqa: F401

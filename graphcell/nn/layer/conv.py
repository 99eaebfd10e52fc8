"""``mindspore.nn.layer.conv``: the layers of ``graphcell.nn.layers.conv``."""
from graphcell.nn.layers.conv import *  # noqa: F403
from graphcell.nn.layers.conv import __all__  # noqa: F401

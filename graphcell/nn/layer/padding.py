"""``mindspore.nn.layer.padding``: the layers of ``graphcell.nn.layers.padding``."""
from graphcell.nn.layers.padding import *  # noqa: F403
from graphcell.nn.layers.padding import __all__  # noqa: F401

"""``mindspore.nn.layer.math``: the layers of ``graphcell.nn.layers.math``."""
from graphcell.nn.layers.math import *  # noqa: F403
from graphcell.nn.layers.math import __all__  # noqa: F401

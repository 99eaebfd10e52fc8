"""``mindspore.nn.layer.rnns``: the layers of ``graphcell.nn.layers.rnns``."""
from graphcell.nn.layers.rnns import *  # noqa: F403
from graphcell.nn.layers.rnns import __all__  # noqa: F401

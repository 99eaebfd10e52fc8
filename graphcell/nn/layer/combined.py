"""``mindspore.nn.layer.combined``: the layers of ``graphcell.nn.layers.combined``."""
from graphcell.nn.layers.combined import *  # noqa: F403
from graphcell.nn.layers.combined import __all__  # noqa: F401

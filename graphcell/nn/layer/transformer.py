"""``mindspore.nn.layer.transformer``: the layers of ``graphcell.nn.layers.transformer``."""
from graphcell.nn.layers.transformer import *  # noqa: F403
from graphcell.nn.layers.transformer import __all__  # noqa: F401

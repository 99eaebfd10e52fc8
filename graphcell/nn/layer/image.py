"""``mindspore.nn.layer.image``: the layers of ``graphcell.nn.layers.image``."""
from graphcell.nn.layers.image import *  # noqa: F403
from graphcell.nn.layers.image import __all__  # noqa: F401

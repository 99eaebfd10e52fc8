"""``mindspore.nn.layer.basic``: the layers of ``graphcell.nn.layers.basic``."""
from graphcell.nn.layers.basic import *  # noqa: F403
from graphcell.nn.layers.basic import __all__  # noqa: F401

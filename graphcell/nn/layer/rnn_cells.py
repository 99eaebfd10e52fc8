"""``mindspore.nn.layer.rnn_cells``: the layers of ``graphcell.nn.layers.rnn_cells``."""
from graphcell.nn.layers.rnn_cells import *  # noqa: F403
from graphcell.nn.layers.rnn_cells import __all__  # noqa: F401

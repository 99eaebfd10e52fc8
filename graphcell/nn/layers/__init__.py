"""``graphcell.nn`` layers: MindSpore's constructors, defaults, parameter names and printed forms.

One module per family, as MindSpore's ``mindspore.nn.layer``. Every layer is an ``nn.Cell`` whose
``construct`` calls ``ops`` functions or registry ops, so gradients, hooks and graph mode need
nothing layer-specific.
"""
from graphcell.nn.layers import (activation, adaptive_pool, basic, combined, conv, dense,
                                 embedding, image, math, normalization, padding, pooling,
                                 rnn_cells, rnns, transformer)
from graphcell.nn.layers.activation import *  # noqa: F403 - each module's __all__
from graphcell.nn.layers.adaptive_pool import *  # noqa: F403
from graphcell.nn.layers.basic import *  # noqa: F403
from graphcell.nn.layers.combined import *  # noqa: F403
from graphcell.nn.layers.conv import *  # noqa: F403
from graphcell.nn.layers.dense import *  # noqa: F403
from graphcell.nn.layers.embedding import *  # noqa: F403
from graphcell.nn.layers.image import *  # noqa: F403
from graphcell.nn.layers.math import *  # noqa: F403
from graphcell.nn.layers.normalization import *  # noqa: F403
from graphcell.nn.layers.padding import *  # noqa: F403
from graphcell.nn.layers.pooling import *  # noqa: F403
from graphcell.nn.layers.rnn_cells import *  # noqa: F403
from graphcell.nn.layers.rnns import *  # noqa: F403
from graphcell.nn.layers.transformer import *  # noqa: F403

_MODULES = (activation, adaptive_pool, basic, combined, conv, dense, embedding, image, math,
            normalization, padding, pooling, rnn_cells, rnns, transformer)
__all__ = [name for module in _MODULES for name in module.__all__]

"""``mindspore.nn.layer.pooling``: the layers of ``graphcell.nn.layers.pooling`` and
``adaptive_pool``."""
from graphcell.nn.layers.adaptive_pool import *  # noqa: F403
from graphcell.nn.layers.pooling import *  # noqa: F403
from graphcell.nn.layers import adaptive_pool as _adaptive, pooling as _pooling

__all__ = _pooling.__all__ + _adaptive.__all__

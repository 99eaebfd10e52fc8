"""``mindspore.nn.layer.timedistributed``: ``TimeDistributed``."""
from graphcell.nn.layers.combined import TimeDistributed

__all__ = ["TimeDistributed"]

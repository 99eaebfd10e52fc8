"""``mindspore.nn.layer.channel_shuffle``: ``ChannelShuffle``."""
from graphcell.nn.layers.basic import ChannelShuffle

__all__ = ["ChannelShuffle"]

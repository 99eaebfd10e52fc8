"""``mindspore.common.tensor``: ``Tensor`` (see ``graphcell.tensor``)."""
from graphcell.tensor import Tensor

__all__ = ["Tensor"]

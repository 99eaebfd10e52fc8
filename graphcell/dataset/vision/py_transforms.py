"""``mindspore.dataset.vision.py_transforms`` (MindSpore 1.x): the 2.x vision transforms.

Its ``Normalize`` worked on the CHW float images ``ToTensor`` makes, so here it defaults to
``is_hwc=False``.

Example::

    >>> import numpy as np
    >>> from graphcell.dataset.vision import py_transforms as P
    >>> P.Normalize([0.5], [0.5])(P.ToTensor()(np.zeros((2, 2, 1), np.uint8))).tolist()
    [[[-1.0, -1.0], [-1.0, -1.0]]]
"""
from graphcell.dataset.vision import *  # noqa: F401,F403
from graphcell.dataset.vision import __all__, __getattr__  # noqa: F401 - refusals say why
from graphcell.dataset.vision import transforms as _v


class Normalize(_v.Normalize):
    """``(x - mean) / std`` per channel of a CHW image (1.x ``py_transforms`` convention)."""

    def __init__(self, mean, std):
        super().__init__(mean, std, is_hwc=False)

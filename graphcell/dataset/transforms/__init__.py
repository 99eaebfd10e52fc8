"""``mindspore.dataset.transforms``: ``TypeCast``, ``Compose``, ``OneHot``, ``Fill``,
``Duplicate``, ``Concatenate``. The 1.x modules ``c_transforms`` and ``py_transforms`` are aliases.

Example::

    >>> from graphcell.dataset import transforms
    >>> transforms.Compose([transforms.Fill(2), transforms.TypeCast("float32")])([1, 2])
    array([2., 2.], dtype=float32)
"""
from graphcell.dataset.transforms import transforms
from graphcell.dataset.transforms.transforms import (Compose, Concatenate, Duplicate, Fill, OneHot,
                                                     TypeCast)
from graphcell.dataset import vision  # noqa: F401 - MindSpore's transforms package exposes it

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "OneHot", "TypeCast"]


def __getattr__(name: str):
    from graphcell.dataset import not_provided
    raise not_provided("mindspore.dataset.transforms", name, provided=__all__)

"""``mindspore.dataset.transforms.c_transforms`` (MindSpore 1.x): the 2.x transforms.

Example::

    >>> import graphcell.dataset.transforms.c_transforms as C
    >>> C.TypeCast is __import__("graphcell").dataset.transforms.TypeCast
    True
"""
from graphcell.dataset.transforms.transforms import (Compose, Concatenate, Duplicate, Fill, OneHot,
                                                     TypeCast)

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "OneHot", "TypeCast"]

from graphcell.dataset.transforms import __getattr__  # noqa: E402,F401 - refusals say why

"""``mindspore.dataset.transforms.py_transforms`` (MindSpore 1.x): the 2.x transforms.

Example::

    >>> from graphcell.dataset.transforms.py_transforms import Compose
    >>> Compose([lambda x: x + 1])(1)
    array(2)
"""
from graphcell.dataset.transforms.transforms import Compose, OneHot, TypeCast

__all__ = ["Compose", "OneHot", "TypeCast"]

from graphcell.dataset.transforms import __getattr__  # noqa: E402,F401 - refusals say why

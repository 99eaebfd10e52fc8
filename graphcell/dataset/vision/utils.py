"""``mindspore.dataset.vision.utils``: the interpolation and border modes.

Example::

    >>> from graphcell.dataset.vision import Inter, Border
    >>> Inter.LINEAR is Inter.BILINEAR, Border.REFLECT.value
    (True, 'reflect')
"""
from enum import Enum, IntEnum


class Inter(IntEnum):
    """Interpolation modes of ``Resize`` (MindSpore's values)."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = LINEAR = 2
    BICUBIC = CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, Enum):
    """How padding fills: a constant, the edge pixel, a reflection without or with the edge."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"

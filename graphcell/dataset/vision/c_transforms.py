"""``mindspore.dataset.vision.c_transforms`` (MindSpore 1.x): the 2.x vision transforms.

Example::

    >>> import graphcell.dataset.vision.c_transforms as CV
    >>> CV.Inter.LINEAR
    <Inter.BILINEAR: 2>
"""
from graphcell.dataset.vision import *  # noqa: F401,F403
from graphcell.dataset.vision import __all__, __getattr__  # noqa: F401 - refusals say why

"""``mindspore.dataset.vision``: image transforms on numpy arrays (HWC or HW), and the 1.x modules
``c_transforms`` / ``py_transforms`` as aliases.

Transforms that need PIL images or an image decoder are not provided: graphcell works on numpy
arrays and does not depend on Pillow.

Example::

    >>> import numpy as np
    >>> from graphcell.dataset import vision
    >>> vision.Resize((2, 4), vision.Inter.NEAREST)(np.zeros((4, 8, 3), np.uint8)).shape
    (2, 4, 3)
"""
from graphcell.dataset.vision import transforms, utils
from graphcell.dataset.vision.transforms import (CenterCrop, Crop, HorizontalFlip, HWC2CHW,
                                                 Normalize, Pad, RandomCrop,
                                                 RandomHorizontalFlip, RandomVerticalFlip,
                                                 Rescale, Resize, ToTensor, ToType,
                                                 VerticalFlip)
from graphcell.dataset.vision.utils import Border, Inter

__all__ = ["CenterCrop", "Crop", "HorizontalFlip", "HWC2CHW", "Normalize", "Pad", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Rescale", "Resize", "ToTensor",
           "ToType", "VerticalFlip", "Border", "Inter"]

_NEEDS_PIL = ("graphcell.dataset.vision works on numpy arrays and does not depend on Pillow; "
              "decode images with another library and pass numpy arrays")
WHY_NOT = {"ToPIL": _NEEDS_PIL, "Decode": _NEEDS_PIL, "DecodeVideo": _NEEDS_PIL,
           "RandomCropDecodeResize": _NEEDS_PIL}


def __getattr__(name: str):
    from graphcell.dataset import not_provided
    raise not_provided("mindspore.dataset.vision", name, WHY_NOT.get(name), provided=__all__)

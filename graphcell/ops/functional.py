"""``mindspore.ops.functional`` (imported as ``F``): MindSpore's functional namespace.

Every function of ``graphcell.ops``; MindSpore's ``F`` also holds a few Primitive instances under
lower-case names (``F.tensor_add``), which the family modules declare as functions.

Example::

    >>> import graphcell as ms
    >>> from graphcell.ops import functional as F
    >>> F.sum(ms.Tensor([1.0, 2.0]))
    Tensor(shape=[], dtype=Float32, value= 3)
"""
from graphcell.ops import FUNCTIONS as _FUNCTIONS

globals().update(_FUNCTIONS)


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.ops", name, "module 'graphcell.ops.functional'")

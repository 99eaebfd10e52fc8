"""``mindspore.ops.operations`` (imported as ``P``): every Primitive class of ``graphcell.ops``.

Example::

    >>> from graphcell.ops import operations as P
    >>> P.ReduceSum(keep_dims=True)
    Prim[ReduceSum]<keep_dims=True>
"""
from graphcell.ops import PRIMITIVES as _PRIMITIVES

globals().update(_PRIMITIVES)


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.ops", name, "module 'graphcell.ops.operations'")

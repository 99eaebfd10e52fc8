"""``graphcell.numpy``: MindSpore's ``mindspore.numpy``, numpy's functions on graphcell Tensors.

``import graphcell.numpy as mnp`` (or ``ms.numpy`` after ``import graphcell as ms``) runs code
written for ``mindspore.numpy``. Every function is a thin spelling of ``graphcell.ops`` with
numpy's argument names and defaults and mindspore.numpy's dtype rules (Python ints are Int32,
floats Float32; see ``utils``), so it runs eagerly in PyNative mode, compiles in graph mode and
differentiates through the ops it is made of. The submodules are mindspore.numpy's:
``array_creations``, ``array_ops``, ``math_ops``, ``logic_ops``, ``dtypes``, ``utils``.

Functions whose result's shape depends on the data (``unique``, ``argwhere``, ``intersect1d``,
``setdiff1d``, ``bincount`` without ``length``) run in PyNative mode; graph mode refuses them at
the user's line.

Example::

    >>> import graphcell as ms
    >>> import graphcell.numpy as mnp
    >>> x = mnp.arange(6).reshape(2, 3)
    >>> mnp.mean(mnp.where(x > 2, x, 0).astype(mnp.float32), axis=1)
    Tensor(shape=[2], dtype=Float32, value= [ 0.00000000e+00,  4.00000000e+00])
"""
from graphcell.numpy import array_creations, array_ops, dtypes, logic_ops, math_ops, utils
from graphcell.numpy.array_creations import *  # noqa: F401,F403 - the public names
from graphcell.numpy.array_ops import *  # noqa: F401,F403
from graphcell.numpy.dtypes import *  # noqa: F401,F403
from graphcell.numpy.logic_ops import *  # noqa: F401,F403
from graphcell.numpy.math_ops import *  # noqa: F401,F403

__all__ = sorted({*array_creations.__all__, *array_ops.__all__, *dtypes.__all__,
                  *logic_ops.__all__, *math_ops.__all__})


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.numpy", name, "module 'graphcell.numpy'")

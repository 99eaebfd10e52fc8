"""``mindspore.ops.composite`` (imported as ``C``): gradient transforms and composite operations.

Example::

    >>> import graphcell as ms
    >>> from graphcell.ops import composite as C
    >>> C.GradOperation()(lambda x: x * x)(ms.Tensor(3.0))
    Tensor(shape=[], dtype=Float32, value= 6)
"""
from graphcell.autodiff import GradOperation, grad, value_and_grad

__all__ = ["GradOperation", "grad", "value_and_grad"]


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.ops", name, "module 'graphcell.ops.composite'")

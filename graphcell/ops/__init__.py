"""``graphcell.ops``: functions and Primitive classes for every registry entry.

``ops.add(x, y)``, ``ops.gt(x, 0.1)``, ``ops.Add()(x, y)``, ``ops.MatMul(transpose_b=True)(x, w)``
all dispatch through the op registry; nothing here keeps its own table of ops.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor([0.1, 0.2, 0.3], ms.float32)
    >>> ops.select(ops.gt(x, 0.1), x, ops.fill(x.dtype, x.shape, 20.0)).asnumpy()
    array([20. ,  0.2,  0.3], dtype=float32)
"""
from graphcell.ops.primitive import Primitive, primitive_class
from graphcell.autodiff import GradOperation
from graphcell.runtime.hooks import HookBackward
from graphcell.ops import functional as _functional
from graphcell_ir.ops import REGISTRY as _REGISTRY


def _export_registry(namespace: dict) -> None:
    for opdef in _REGISTRY.values():
        fn = _functional.op_function(opdef)
        for name in (opdef.name, *opdef.aliases):
            namespace.setdefault(name, fn)
        if opdef.ms_name:
            namespace.setdefault(opdef.ms_name, primitive_class(opdef))


globals().update(_functional.ADAPTERS)
_export_registry(globals())
functional = _functional

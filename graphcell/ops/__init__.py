"""``graphcell.ops``: MindSpore's ``mindspore.ops``: functions, Primitive classes, Tensor methods.

Every name is an alias of one declaration (DESIGN §12): a registry primitive (``ops.add``,
``ops.Add()`` — derived from its ``OpDef``) or a function of a family module in
``graphcell.ops.function`` (``ops.stack``, with ``ops.Stack`` and Tensor methods declared next to
it). Nothing here keeps its own table of ops. ``ops.operations`` (``P``), ``ops.functional``
(``F``) and ``ops.composite`` (``C``) are MindSpore's import paths onto the same objects.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor([0.1, 0.2, 0.3], ms.float32)
    >>> ops.select(ops.gt(x, 0.1), x, ops.fill(x.dtype, x.shape, 20.0)).asnumpy()
    array([20. ,  0.2,  0.3], dtype=float32)
"""
import types as _types

from graphcell.ops.primitive import (Primitive, PrimitiveWithCheck, PrimitiveWithInfer,
                                     prim_attr_register, primitive, primitive_class)
from graphcell.ops.custom import Custom
from graphcell.autodiff import GradOperation
from graphcell.runtime.hooks import HookBackward
from graphcell.ops import _faces
from graphcell.ops import function as _function
from graphcell.tensor import Tensor as _Tensor
from graphcell_ir.ops import REGISTRY as _REGISTRY
from graphcell_ir.ops import functional as _F


def _registry_faces() -> tuple[dict, dict]:
    """``ops.<name>`` (and aliases) and ``ops.<MindSporeName>`` for every registry entry."""
    functions, primitives = {}, {}
    for opdef in _REGISTRY.values():
        fn = getattr(_F, opdef.name)
        for name in (opdef.name, *opdef.aliases):
            functions.setdefault(name, fn)
        if opdef.ms_name:
            primitives.setdefault(opdef.ms_name, primitive_class(opdef))
    return functions, primitives


def _install_methods(methods: dict) -> None:
    for name, fn in methods.items():
        setattr(_Tensor, name, fn if isinstance(fn, _types.FunctionType) else _as_method(fn, name))


def _as_method(fn, name: str):
    """A registry function (an object, which Python would not bind) as a Tensor method."""
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = getattr(fn, "__doc__", None)
    return method


_FACES = _faces.assemble(_function.MODULES)
_functions, _primitives = _registry_faces()
FUNCTIONS = {**_functions, **_FACES.functions}
"""Every functional name of ``ops`` (what ``ops.functional`` holds)."""
PRIMITIVES = {**_primitives, **_FACES.primitives, "GradOperation": GradOperation,
              "HookBackward": HookBackward, "Custom": Custom}
"""Every Primitive class of ``ops`` (what ``ops.operations`` holds)."""

globals().update(FUNCTIONS)
globals().update(PRIMITIVES)
_install_methods(_FACES.methods)

from graphcell.ops import operations, functional, composite  # noqa: E402  (MindSpore's paths)


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.ops", name, "module 'graphcell.ops'")

"""graphcell_ir's IR: types, locations, values/ops/blocks/functions/modules, the builder, walking,
the verifier and graph export.

The public names are re-exported here lazily: ``graphcell_ir.ops.registry`` imports
``graphcell_ir.ir.types`` while the registry is being built, so this package must not import the
op-aware modules (core, builder, ...) when it is first loaded.

Example::

    >>> from graphcell_ir.ir import Module, Function, Builder, verify, TensorType, float32
    >>> m = Module(); fn = m.add(Function("f"))
    >>> x = fn.add_arg(TensorType(float32, (2,)), "x")
    >>> b = Builder.at_end(fn.body); _ = b.return_(b.op("exp", x)); verify(m)
"""
from __future__ import annotations

import importlib
import sys
import types as _types

_EXPORTS = {
    "types": ("DType", "Type", "TensorType", "ScalarType", "TupleType", "NoneType", "NONE",
              "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "to_dtype", "type_of_value"),
    "loc": ("Loc", "UNKNOWN", "LIB", "GRAD", "format_loc"),
    "core": ("Value", "OpResult", "BlockArg", "Literal", "Op", "Block", "Region", "Function",
             "Module"),
    "structural": ("StructuralOpDef", "CONST", "IF", "WHILE", "YIELD", "RETURN", "CALL",
                   "MAKE_TUPLE", "TUPLE_GET", "STRUCTURAL", "resolve_opdef", "const_array"),
    "builder": ("Builder", "INLINE_CONST_LIMIT"),
    "walk": ("walk", "replace_op", "Cloner", "clone_function", "clone_module",
             "structurally_equal", "assert_structurally_equal"),
    "verify": ("verify",),
    "export": ("to_networkx", "to_dot", "to_svg"),
}
_WHERE = {name: mod for mod, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module 'graphcell_ir.ir' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"graphcell_ir.ir.{mod}"), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__


class _Package(_types.ModuleType):
    """Keeps ``graphcell_ir.ir.verify``/``.walk`` the functions when their modules are imported.

    Importing a submodule binds it on its package under its own name; two re-exported functions
    share a name with their module (``verify``, ``walk``), and the function should win.
    """

    def __setattr__(self, name, value):
        if name in _WHERE and isinstance(value, _types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

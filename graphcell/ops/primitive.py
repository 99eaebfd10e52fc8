"""``Primitive``: MindSpore's operator objects (``ops.Add()``, ``ops.ReduceSum(keep_dims=True)``).

A Primitive class is derived from a registry entry, never written by hand: the constructor takes
the entry's ``prim_init`` attributes, a call takes the operands followed by the remaining
attributes, exactly as MindSpore's Primitives do (``ops.Reshape()(x, (2, 3))``). Under PyNative a
call runs through the eager dispatcher; the graph-mode frontend reads ``.opdef`` and ``.init_attrs``.
"""
from __future__ import annotations

from graphcell.runtime.dispatch import apply
from graphcell_ir.ops.functional import split_args
from graphcell_ir.ops.registry import OpDef


class Primitive:
    """Base class of operator objects; subclasses are made by :func:`primitive_class`."""

    opdef: OpDef

    def __init__(self, *args, **kwargs):
        names = self.opdef.prim_init
        if len(args) > len(names):
            raise TypeError(f"{self.name}() takes at most {len(names)} argument(s) "
                            f"({', '.join(names) or 'none'}), got {len(args)}")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{self.name}() got an unexpected argument {k!r}; it takes "
                                f"{', '.join(names) or 'no arguments'}")
            given[k] = v
        for name in given:  # validate now, so a bad Primitive fails where it is made
            self.opdef.attr_index[name].kind.check(name, given[name])
        self.init_attrs = given

    @property
    def name(self) -> str:
        return self.opdef.display_name

    def __call__(self, *args):
        if self.opdef.variadic and len(args) >= 1 and isinstance(args[0], (tuple, list)):
            args = (*args[0], *args[1:])  # MindSpore passes variadic operands as one tuple
        operands, attrs = split_args(self.opdef, args, {})
        clash = set(attrs) & set(self.init_attrs)
        attrs.update(self.init_attrs)
        if clash:
            raise TypeError(f"{self.name}: {', '.join(sorted(clash))} was set when the Primitive "
                            "was created and cannot be passed again")
        self.opdef._check_arity(len(operands))
        return apply(self.opdef, operands, self.opdef.check_attrs(attrs))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.init_attrs.items())
        return f"Prim[{self.name}]" + (f"<{inner}>" if inner else "")


def primitive_class(opdef: OpDef) -> type[Primitive]:
    """The Primitive class of a registry entry, named by its MindSpore name."""
    doc = (f"MindSpore's ``{opdef.ms_name}``: the ``{opdef.name}`` primitive. Constructor "
           f"arguments: {', '.join(opdef.prim_init) or 'none'}; call arguments: "
           f"{', '.join(opdef.operands)}"
           + "".join(f", {a.name}" for a in opdef.attrs if a.name not in opdef.prim_init) + ".")
    return type(opdef.ms_name, (Primitive,), {"opdef": opdef, "__doc__": doc,
                                               "__module__": "graphcell.ops"})

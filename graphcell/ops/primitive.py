"""``Primitive``: MindSpore's operator objects (``ops.Add()``, ``ops.ReduceSum(keep_dims=True)``).

A Primitive class is never a second implementation of an op; it is one of two kinds of alias:

- :func:`primitive_class` derives one from a registry entry: the constructor takes the entry's
  ``prim_init`` attributes, a call takes the operands followed by the remaining attributes, exactly
  as MindSpore's Primitives do (``ops.Reshape()(x, (2, 3))``). Under PyNative a call runs through
  the eager dispatcher; the graph-mode frontend reads ``.opdef`` and ``.init_attrs``.
- :func:`primitive` makes one from a function of the functional API (``ops.Stack(axis)`` calls
  ``ops.stack(tensors, axis=axis)``): the constructor takes the parameters named in ``init``, a
  call passes its arguments on with them. The graph-mode frontend traces the function with the
  constructor's values bound (``.bound()``).

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor([[1.0, 2.0]])
    >>> ops.Stack(axis=1)([x, x]).shape, ops.Stack(1)
    ((1, 2, 2), Prim[Stack]<axis=1>)
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable

from graphcell.runtime.dispatch import apply
from graphcell_ir.ops.functional import split_args
from graphcell_ir.ops.registry import OpDef


class Primitive:
    """Base class of operator objects, with MindSpore's Primitive methods.

    Subclasses are made by :func:`primitive_class` (a registry entry) or :func:`primitive` (a
    function of the functional API). ``init_attrs`` holds the constructor's arguments by name;
    they are also readable as attributes (``ops.Softmax(axis=0).axis``), as in MindSpore.
    """

    init_names: tuple[str, ...] = ()
    init_defaults: dict = {}

    def __init__(self, *args, **kwargs):
        names = self.init_names
        if len(args) > len(names):
            raise TypeError(f"{self.name}() takes at most {len(names)} argument(s) "
                            f"({', '.join(names) or 'none'}), got {len(args)}")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{self.name}() got an unexpected argument {k!r}; it takes "
                                f"{', '.join(names) or 'no arguments'}")
            if k in given:
                raise TypeError(f"{self.name}() got multiple values for argument {k!r}")
            given[k] = v
        self.init_attrs = self._check_init(given)
        self.prim_attrs: dict = {}
        self.instance_name = ""

    def _check_init(self, given: dict) -> dict:
        return given

    @property
    def name(self) -> str:
        return type(self).__name__

    def __getattr__(self, key: str):
        # only reached when normal lookup fails: the constructor's arguments, then prim attrs
        d = self.__dict__
        if key in d.get("init_attrs", ()):
            return d["init_attrs"][key]
        if key in self.init_defaults:
            return self.init_defaults[key]
        if key in d.get("prim_attrs", ()):
            return d["prim_attrs"][key]
        raise AttributeError(f"{type(self).__name__!r} Primitive has no attribute {key!r}")

    # --- MindSpore's Primitive API: recorded, with no effect on a CPU in one process ------------

    @property
    def attrs(self) -> dict:
        return {**self.init_defaults, **self.init_attrs, **self.prim_attrs}

    def add_prim_attr(self, name: str, value) -> "Primitive":
        """Record an attribute (MindSpore passes these to its backends; here they are kept)."""
        self.prim_attrs[name] = value
        return self

    def del_prim_attr(self, name: str) -> "Primitive":
        self.prim_attrs.pop(name, None)
        return self

    def set_prim_instance_name(self, instance_name: str) -> "Primitive":
        self.instance_name = instance_name
        return self

    def set_device(self, device_target: str) -> "Primitive":
        """Accepted for compatibility: graphcell runs every primitive on the CPU."""
        return self.add_prim_attr("primitive_target", device_target)

    def shard(self, in_strategy=None, out_strategy=None) -> "Primitive":
        """Accepted for compatibility: a sharding strategy has no meaning in one process."""
        return self.add_prim_attr("in_strategy", in_strategy)

    def recompute(self, mode: bool = True) -> "Primitive":
        return self.add_prim_attr("recompute", mode)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.init_attrs.items())
        return f"Prim[{self.name}]" + (f"<{inner}>" if inner else "")


class RegistryPrimitive(Primitive):
    """A Primitive that is one registry op (``ops.Add``, ``ops.ReduceSum``)."""

    opdef: OpDef

    def _check_init(self, given: dict) -> dict:
        for name in given:  # validate now, so a bad Primitive fails where it is made
            self.opdef.attr_index[name].kind.check(name, given[name])
        return given

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


class FunctionPrimitive(Primitive):
    """A Primitive that calls a function of the functional API with its constructor's values."""

    function: Callable

    def bound(self) -> Callable:
        """The function with the constructor's arguments bound: what a call runs (and what the
        graph-mode frontend traces)."""
        return functools.partial(self.function, **self.init_attrs) if self.init_attrs \
            else self.function

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs, **self.init_attrs)


def primitive_class(opdef: OpDef) -> type[Primitive]:
    """The Primitive class of a registry entry, named by its MindSpore name."""
    doc = (f"MindSpore's ``{opdef.ms_name}``: the ``{opdef.name}`` primitive. Constructor "
           f"arguments: {', '.join(opdef.prim_init) or 'none'}; call arguments: "
           f"{', '.join(opdef.operands)}"
           + "".join(f", {a.name}" for a in opdef.attrs if a.name not in opdef.prim_init) + ".")
    defaults = {a.name: a.default for a in opdef.attrs if a.name in opdef.prim_init
                and not a.required}
    return type(opdef.ms_name, (RegistryPrimitive,), {
        "opdef": opdef, "init_names": tuple(opdef.prim_init), "init_defaults": defaults,
        "__doc__": doc, "__module__": "graphcell.ops"})


def primitive(name: str, function: Callable, init: tuple[str, ...] = (), doc: str = "") -> type:
    """A Primitive class ``name`` whose instances call ``function``.

    ``init`` names the keyword parameters of ``function`` the constructor takes (positionally in
    that order, or by name; unset ones keep ``function``'s defaults); the call's own arguments
    follow them. MindSpore's ``ops.Stack(axis=0)(tensors)`` is
    ``primitive("Stack", stack, init=("axis",))``. When a Primitive's call differs from the
    functional API's, ``function`` is a small adapter written next to it.
    """
    params = inspect.signature(function).parameters
    missing = [n for n in init if n not in params]
    if missing:
        raise TypeError(f"primitive {name}: {function.__name__}() has no parameter(s) "
                        f"{', '.join(missing)}")
    defaults = {n: params[n].default for n in init
                if params[n].default is not inspect.Parameter.empty}
    target = getattr(function, "__name__", name)
    return type(name, (FunctionPrimitive,), {
        "function": staticmethod(function), "init_names": tuple(init), "init_defaults": defaults,
        "__doc__": doc or f"MindSpore's ``{name}`` Primitive: calls ``ops.{target}`` with the "
                          f"constructor's {', '.join(init) or 'no'} argument(s).",
        "__module__": "graphcell.ops"})

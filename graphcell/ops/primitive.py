"""``Primitive``: MindSpore's operator objects (``ops.Add()``, ``ops.ReduceSum(keep_dims=True)``).

graphcell's own Primitive classes are never a second implementation of an op; each is one of two
kinds of alias:

- :func:`primitive_class` derives one from a registry entry: the constructor takes the entry's
  ``prim_init`` attributes, a call takes the operands followed by the remaining attributes, exactly
  as MindSpore's Primitives do (``ops.Reshape()(x, (2, 3))``). Under PyNative a call runs through
  the eager dispatcher; the graph-mode frontend reads ``.opdef`` and ``.init_attrs``.
- :func:`primitive` makes one from a function of the functional API (``ops.Stack(axis)`` calls
  ``ops.stack(tensors, axis=axis)``): the constructor takes the parameters named in ``init``, a
  call passes its arguments on with them. The graph-mode frontend traces the function with the
  constructor's values bound (``.bound()``).

A user's Primitive (MindSpore's ``Primitive``/``PrimitiveWithInfer``/``PrimitiveWithCheck``
subclasses, with :func:`prim_attr_register`) computes in its ``__call__``; graph mode compiles it or
runs it as Python when the graph runs (``graph/resolver.py``).

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

    graphcell's own Primitives are made by :func:`primitive_class` (a registry entry) or
    :func:`primitive` (a function of the functional API): their constructors take the op's
    arguments, held by name in ``init_attrs`` and readable as attributes
    (``ops.Softmax(axis=0).axis``), as in MindSpore. A user's subclass is MindSpore's
    ``Primitive(name)``: it calls ``super().__init__(name)`` (or uses :func:`prim_attr_register`)
    and computes in ``__call__``; graph mode compiles that ``__call__`` when it can, else runs it as
    Python when the graph runs (see :class:`PrimitiveWithInfer` for declared output types).
    """

    init_names: tuple[str, ...] = ()
    init_defaults: dict = {}

    def __init__(self, name: str | None = None):
        self._start(name)

    def _start(self, name: str | None) -> None:
        self.__dict__["_prim_name"] = name if name is not None else type(self).__name__
        self.init_attrs: dict = {}
        self.prim_attrs: dict = {}
        self.instance_name = ""

    def _check_init(self, given: dict) -> dict:
        return given

    @property
    def name(self) -> str:
        return self.__dict__.get("_prim_name") or type(self).__name__

    @name.setter
    def name(self, value: str) -> None:
        self.__dict__["_prim_name"] = value

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.name}: a Primitive subclass computes in __call__, which "
                        f"{type(self).__name__} does not define (graphcell has no kernel of that "
                        "name to run)")

    def init_prim_io_names(self, inputs, outputs) -> None:
        """Record the names of the inputs and outputs (MindSpore's; kept as attributes)."""
        self.add_prim_attr("input_names", inputs)
        self.add_prim_attr("output_names", outputs)

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


class _Declared(Primitive):
    """graphcell's own Primitives: the constructor takes the arguments named in ``init_names``."""

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
        self._start(None)
        self.init_attrs = self._check_init(given)


class RegistryPrimitive(_Declared):
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


class FunctionPrimitive(_Declared):
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


# --- a user's Primitives (MindSpore's classes) ----------------------------------------------------

class PrimitiveWithInfer(Primitive):
    """MindSpore's ``PrimitiveWithInfer``: a user's Primitive that declares the shapes and dtypes
    of its outputs with ``infer_shape(*input_shapes)`` and ``infer_dtype(*input_dtypes)``, and
    computes in ``__call__``. Graph mode runs ``__call__`` as Python when the graph runs, its
    outputs of the declared types (the inputs' when ``infer_*`` return None).

    Example::

        >>> import graphcell as ms
        >>> class Scale(PrimitiveWithInfer):
        ...     @prim_attr_register
        ...     def __init__(self, k=2.0):
        ...         self.init_prim_io_names(inputs=["x"], outputs=["y"])
        ...     def infer_shape(self, x):
        ...         return x
        ...     def infer_dtype(self, x):
        ...         return x
        ...     def __call__(self, x):
        ...         return x * self.k
        >>> op = Scale(3.0)
        >>> op, op(ms.Tensor([1.0])).asnumpy().tolist()
        (Prim[Scale]<k=3.0>, [3.0])
    """

    def infer_shape(self, *args):
        return None

    def infer_dtype(self, *args):
        return None

    def infer_value(self, *args):
        return None

    def output_types(self, shapes: list, dtypes: list) -> list[tuple]:
        """``[(shape, dtype), ...]`` of the outputs for inputs of ``shapes`` and ``dtypes`` (the
        first input's when ``infer_*`` give None); one pair per output."""
        shape = self.infer_shape(*shapes)
        dtype = self.infer_dtype(*dtypes)
        if shape is None:
            shape = shapes[0] if shapes else ()
        if dtype is None:
            dtype = dtypes[0] if dtypes else None
        if isinstance(dtype, (tuple, list)):   # several outputs
            shapes_out = shape if _several_shapes(shape) else [shape] * len(dtype)
            return [(tuple(s), d) for s, d in zip(shapes_out, dtype)]
        return [(tuple(shape), dtype)]


def _several_shapes(shape) -> bool:
    return isinstance(shape, (tuple, list)) and bool(shape) and \
        all(isinstance(s, (tuple, list)) for s in shape)


class PrimitiveWithCheck(Primitive):
    """MindSpore's ``PrimitiveWithCheck``: ``check_shape``/``check_dtype`` validate the inputs
    (called before ``__call__``); the outputs' types come from running it."""

    def check_shape(self, *args):
        return None

    def check_dtype(self, *args):
        return None


def prim_attr_register(fn):
    """MindSpore's decorator of a user Primitive's ``__init__``: the Primitive is named after its
    class and every argument of ``__init__`` (defaults included) becomes an attribute
    (``init_attrs``, ``attrs``, and ``self.<name>``)."""
    @functools.wraps(fn)
    def init(self, *args, **kwargs):
        Primitive.__init__(self, getattr(type(self), "substitute_name", type(self).__name__))
        bound = inspect.signature(fn).bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments[next(iter(arguments))]   # self
        for name, value in arguments.items():
            self.add_prim_attr(name, value)
            self.init_attrs[name] = value
        fn(self, *args, **kwargs)
    return init


def is_user_primitive(prim) -> bool:
    """A Primitive defined by the user (not one of graphcell's own, which are aliases of ops)."""
    return isinstance(prim, Primitive) and not isinstance(prim, _Declared)

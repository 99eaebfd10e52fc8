"""The Resolver protocol: how the frontend learns what a user's Python object means.

The frontend reads ``construct`` as Python source and meets Python objects: attributes of
``self``, globals and closure variables of the function, callables. graphcell_ir knows nothing
of Cell, Tensor or Parameter (DESIGN §2), so it asks a resolver — graphcell implements one in
``graphcell/graph/resolver.py`` — to classify each object into one of the records below, and acts
on the record alone.

How the frontend acts on each record:

- ``Static(value)``: a compile-time value (numbers, strings, None, tuples of statics, dtypes,
  shapes, ``self.training``...). Operations on statics are evaluated in Python while compiling.
- ``Param(key, type, name)``: a Parameter. It becomes a function argument marked ``param``
  (one per ``key``, the Parameter object itself, compared by identity). ``mutates`` ops (assign)
  rebind its current value in the frontend's environment; each mutated Param becomes an extra
  result, which the runtime writes back after the call (DESIGN §4).
- ``Constant(array)``: a tensor value captured from Python (a Tensor that is not a Parameter):
  a ``const`` op.
- ``Inline(function, self_obj, scope, library=False)``: Python source to parse and inline at the
  call site: a helper function, a method (``self_obj`` bound as its first argument; a bound method
  object as ``function`` is unwrapped the same way), a jit-decorated function. ``scope`` names the
  frame in locations (``Conv2d.construct``; empty: the function's ``__qualname__``).
  ``library=True`` marks framework code (graphcell's own layers): its ops get the ``lib`` mark, so
  ``locs="user"`` printing and error messages point at the user's line that called it.
- ``CellCall(cell, construct, forward_pre_hooks, forward_hooks, has_backward_hooks, bprop,
  bprop_params)``: calling a sub-cell: inline each forward-pre hook (``hook(cell, inputs)``; a
  non-None result replaces the inputs), then ``construct``, then each forward hook
  (``hook(cell, inputs, outputs)``), with the call chain ``Outer.construct>Inner.construct`` in
  every op's location. Backward hooks are the resolver's to express as hooks of this kind:
  graphcell's adds a last forward-pre hook and a last forward hook that put the values through a
  ``hook_backward`` op, whose gradient calls the backward hooks (``has_backward_hooks`` is
  unused, kept so old resolvers still work). ``bprop`` (an ``Inline`` of ``bprop(self, *inputs, out, dout)``) is the
  cell's custom backward: where the call is differentiated, ``construct`` becomes a Function of
  its own and ``bprop`` another, linked by the ``bprop`` attribute IR autodiff understands
  (``grads.py``, ``bprop.py``). ``bprop_params`` are the Parameters whose gradients ``bprop``
  returns in a dict, as ``(input_grads, {parameter: grad})`` (MindSpore's ``internal_params``).
- ``PrimitiveCall(opdef, attrs)``: a callable that is one registry op: a Primitive instance
  (``attrs`` are its constructor attributes; call arguments fill the operands, then the remaining
  attributes in declared order, as ``graphcell_ir.ops.functional.split_args`` does).
- ``Traced(function, is_property=False)``: a library function written against
  ``graphcell_ir.ops.functional`` (the ``ops`` adapters, Tensor methods): the frontend calls it
  with IR values while its Builder is the current emitter (``functional.using_emitter``). Statics
  pass through as Python values. ``is_property=True`` (only from ``tensor_method``) answers an
  attribute that is not called, such as ``x.T``: the frontend calls ``function(x)`` at once.
- ``StaticCall(function)``: a callable evaluated at compile time when all its arguments are static
  (``ms.Tensor([7, 8, 9])`` in ``construct``, ``np.sqrt(2)``); its result is classified again.
- ``GradTransform(function)``: a function that makes a gradient function (``grad``,
  ``value_and_grad``, a ``GradOperation`` instance): called while compiling with its arguments as
  Python objects — cells and functions as they are, Parameters as the Parameter objects — and its
  result is classified again (usually a ``GradCall``).
- ``GradCall(fn, positions, weights, sens_param, has_aux, pack, name)``: calling a gradient
  function of ``fn``: ``fn`` is compiled into a Function of its own (called with the call's
  arguments, as the frontend would call it), IR autodiff adds its gradient Function, and the call
  site calls that (``grads.py``). ``positions`` are the differentiated argument positions (None:
  every tensor argument, as ``GradOperation(get_all=True)``); ``weights`` the Parameters;
  ``sens_param`` takes the cotangent of the output as the last argument; ``has_aux`` differentiates
  the first returned value only. ``pack(value, position_grads, weight_grads)`` arranges what the
  call returns (default: the three as a tuple).
- ``Unsupported(reason)``: the frontend raises ``GraphSyntaxError`` at the use, with ``reason``.

``tensor_method(name)`` answers ``x.<name>`` on an IR tensor value (``x.sum``, ``x.astype``...):
a record as above (usually ``Traced`` with the unbound method), or ``None`` when there is no such
method. ``x.shape``, ``x.dtype`` and ``x.ndim`` are answered by the frontend from the value's type.

``is_tensor_class(cls)`` (optional: the frontend calls it only if the resolver has it, and takes
False otherwise) says whether a tensor value computed in the graph is an instance of ``cls``, so
that ``isinstance(x, Tensor)`` in ``construct`` (layers validate their inputs this way) is True.
Objects that are still Python objects (a Parameter read from ``self``) get Python's ``isinstance``.

``print_callback()`` (optional) returns the function ``print(...)`` in compiled code calls when the
graph runs, with the static arguments and the run-time values (numpy arrays, Python scalars) in
order, and print's keyword arguments; without it, Python's ``print`` gets the numpy values.

``read_attribute(obj, name)`` (optional) is how the frontend reads an attribute of a Python object
it meets (``self.scale``, ``getattr(self, "fc")``, ``hasattr``): it returns ``obj.<name>`` or
raises AttributeError, and lets the resolver note the read — graphcell guards the attributes a
compile read, so that changing one recompiles. Without it the frontend uses ``getattr``.
:func:`read_attribute` below is the call the frontend makes.

Later additions keep old resolvers working: new fields have defaults, new methods are optional.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops.registry import OpDef


@dataclass(frozen=True)
class Static:
    value: Any


@dataclass(frozen=True, eq=False)
class Param:
    key: Any
    type: TensorType
    name: str
    requires_grad: bool = True


@dataclass(frozen=True, eq=False)
class Constant:
    array: np.ndarray


@dataclass(frozen=True, eq=False)
class Inline:
    function: Callable
    self_obj: Any = None
    scope: str = ""
    library: bool = False


@dataclass(frozen=True, eq=False)
class CellCall:
    cell: Any
    construct: Inline
    forward_pre_hooks: tuple[Inline, ...] = ()
    forward_hooks: tuple[Inline, ...] = ()
    has_backward_hooks: bool = False
    bprop: Inline | None = None
    bprop_params: tuple = ()


@dataclass(frozen=True, eq=False)
class PrimitiveCall:
    opdef: OpDef
    attrs: dict = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Traced:
    function: Callable
    is_property: bool = False


@dataclass(frozen=True, eq=False)
class StaticCall:
    function: Callable


@dataclass(frozen=True, eq=False)
class GradTransform:
    function: Callable


def _default_pack(value, position_grads: tuple, weight_grads: tuple):
    return value, position_grads, weight_grads


@dataclass(frozen=True, eq=False)
class GradCall:
    fn: Any
    positions: tuple[int, ...] | None = (0,)
    weights: tuple = ()
    sens_param: bool = False
    has_aux: bool = False
    pack: Callable = _default_pack
    name: str = ""


@dataclass(frozen=True)
class Unsupported:
    reason: str


Resolved = (Static | Param | Constant | Inline | CellCall | PrimitiveCall | Traced | StaticCall
            | GradTransform | GradCall | Unsupported)


def read_attribute(resolver, obj: Any, name: str):
    """``obj.<name>`` as the frontend reads it: through ``resolver.read_attribute`` when the
    resolver has it (see the module docstring), else ``getattr``."""
    read = getattr(resolver, "read_attribute", None)
    return read(obj, name) if read is not None else getattr(obj, name)


class Resolver(Protocol):
    def classify(self, obj: Any) -> Resolved:
        """What the Python object ``obj`` means to the compiler."""

    def tensor_method(self, name: str) -> Resolved | None:
        """``x.<name>`` on a tensor value, or None when tensors have no such attribute."""

    # optional (see the module docstring): def is_tensor_class(self, cls) -> bool
    # optional: def print_callback(self) -> Callable[..., None]
    # optional: def read_attribute(self, obj, name) -> Any

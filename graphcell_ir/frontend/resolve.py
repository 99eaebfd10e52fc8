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
- ``Inline(function, self_obj, scope)``: Python source to parse and inline at the call site: a
  helper function, a method (``self_obj`` bound as its first argument), a jit-decorated function.
  ``scope`` names the frame in locations (``Conv2d.construct``).
- ``CellCall(cell, construct, forward_pre_hooks, forward_hooks, has_backward_hooks)``: calling a
  sub-cell: inline each forward-pre hook (``hook(cell, inputs)``; a non-None result replaces the
  inputs), then ``construct``, then each forward hook (``hook(cell, inputs, outputs)``), with the
  call chain ``Outer.construct>Inner.construct`` in every op's location.
  ``has_backward_hooks`` lets the frontend warn that backward hooks do not run in graph mode yet.
- ``PrimitiveCall(opdef, attrs)``: a callable that is one registry op: a Primitive instance
  (``attrs`` are its constructor attributes; call arguments fill the operands, then the remaining
  attributes in declared order, as ``graphcell_ir.ops.functional.split_args`` does).
- ``Traced(function)``: a library function written against ``graphcell_ir.ops.functional`` (the
  ``ops`` adapters, Tensor methods): the frontend calls it with IR values while its Builder is the
  current emitter (``functional.using_emitter``). Statics pass through as Python values.
- ``StaticCall(function)``: a callable evaluated at compile time when all its arguments are static
  (``ms.Tensor([7, 8, 9])`` in ``construct``, ``np.sqrt(2)``); its result is classified again.
- ``Unsupported(reason)``: the frontend raises ``GraphSyntaxError`` at the use, with ``reason``.

``tensor_method(name)`` answers ``x.<name>`` on an IR tensor value (``x.sum``, ``x.astype``...):
a record as above (usually ``Traced`` with the unbound method), or ``None`` when there is no such
method. ``x.shape``, ``x.dtype`` and ``x.ndim`` are answered by the frontend from the value's type.
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


@dataclass(frozen=True, eq=False)
class CellCall:
    cell: Any
    construct: Inline
    forward_pre_hooks: tuple[Inline, ...] = ()
    forward_hooks: tuple[Inline, ...] = ()
    has_backward_hooks: bool = False


@dataclass(frozen=True, eq=False)
class PrimitiveCall:
    opdef: OpDef
    attrs: dict = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Traced:
    function: Callable


@dataclass(frozen=True, eq=False)
class StaticCall:
    function: Callable


@dataclass(frozen=True)
class Unsupported:
    reason: str


Resolved = Static | Param | Constant | Inline | CellCall | PrimitiveCall | Traced | StaticCall | Unsupported


class Resolver(Protocol):
    def classify(self, obj: Any) -> Resolved:
        """What the Python object ``obj`` means to the compiler."""

    def tensor_method(self, name: str) -> Resolved | None:
        """``x.<name>`` on a tensor value, or None when tensors have no such attribute."""

"""Attribute writes in compiled code: ``self.count += 1``, ``self.last = x * 2``.

Python runs ``self.attr = value`` at once; graph mode keeps the write in the frontend's
environment while compiling and makes it happen after the compiled function has run:

- **While compiling**, the write rebinds the attribute *in the compiler's view*: every later read
  of ``obj.attr`` in this compile (in any inlined function) sees the new value, as Python would;
  a write under a tensor condition joins with the value of the other branch, as a variable does
  (``self.v = 1`` under ``if x.sum() > 2`` gives a run-time scalar).
- **After a successful run**, each attribute whose value changed is set on its object
  (``setattr``): a value known while compiling (a number, None, a string) as it is, a value
  computed in the graph as what the call returns for it (a Tensor, a Python number). A failed
  run sets nothing.

The written attributes travel like the written Parameters: their values computed in the graph are
extra results of the Function, after the returned ones (``CompiledFrontend.attr_writes``).
``self.param = value`` on a Parameter is ``assign`` (as MindSpore does); assigning a cell, an
attribute inside a ``while`` loop on a tensor (whose body runs an unknown number of times), or an
attribute of an object that is no cell (graphcell's cache guards the attributes of cells only, so
a later call would not see the change) is refused at the user's line. A hook that sets attributes
runs as Python instead (``host.py``).

A compile reads the attribute's value as it is when compiling; the runtime decides when to
compile again (graphcell's cache guards the attributes a compile read, so ``self.count += 1``
compiles again when ``count`` changed).

Example::

    >>> from graphcell_ir.frontend import compile_function, PythonResolver
    >>> from graphcell_ir.ir import TensorType, float32
    >>> from graphcell_ir.frontend import resolve as R
    >>> class Counter:                          # a cell, to this resolver
    ...     def __init__(self):
    ...         self.calls, self.last = 0, None
    ...     def step(self, x):
    ...         self.calls += 1
    ...         self.last = x * 2.0
    ...         return x + self.calls
    >>> class Cells(PythonResolver):
    ...     def classify(self, obj):
    ...         if isinstance(obj, Counter):
    ...             return R.CellCall(obj, R.Inline(Counter.step, obj))
    ...         return super().classify(obj)
    >>> c = Counter()
    >>> out = compile_function(Counter.step, c, [TensorType(float32, (2,))], Cells())
    >>> [(type(obj).__name__, name) for obj, name, _ in out.attr_writes]
    [('Counter', 'calls'), ('Counter', 'last')]
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from graphcell_ir.frontend import resolve as R
from graphcell_ir.frontend.errors import Kind
from graphcell_ir.frontend.exprs import describe
from graphcell_ir.frontend.scope import MISSING, Poison, has_poison, leaves
from graphcell_ir.ir.core import Value
from graphcell_ir.ops.registry import lookup

__all__ = ["AttrMixin", "Written"]


@dataclass(frozen=True, eq=False)
class Written:
    """An attribute written by the compiled code: ``obj.name``, and its value before."""

    obj: Any
    name: str
    original: Any


def attr_key(obj, name: str) -> tuple:
    """The key of ``obj.name`` among the compiler's bindings (Parameters' keys are ints)."""
    return ("attr", id(obj), name)


class AttrMixin:
    """Attribute writes (see the module docstring)."""

    def binding_base(self, key):
        """The value a binding has before any write: a Parameter's argument, or the original
        value of a written attribute."""
        if isinstance(key, tuple):
            return self.written[key].original
        return self.slots[key].arg

    def binding_name(self, key) -> str:
        if isinstance(key, tuple):
            w = self.written[key]
            return f"{type(w.obj).__name__}.{w.name}"
        return self.slots[key].record.name

    def written_value(self, obj, name: str):
        """The value compiled code wrote to ``obj.name`` (MISSING when it did not)."""
        key = attr_key(obj, name)
        if key not in self.written:
            return MISSING
        value = self.bindings.get(key, MISSING)
        if value is MISSING:
            value = self.written[key].original
        if value is MISSING:
            self.fail(None, f"{describe(obj)} has no attribute {name!r}")
        return value

    def assign_attr(self, target: ast.Attribute, value, node) -> None:
        """``obj.name = value`` (see the module docstring)."""
        obj = self.realize(self.eval(target.value), target.value)
        name = target.attr
        if isinstance(obj, Poison) or has_poison(value):
            return
        if isinstance(obj, Value) or self.is_tensor_object(obj):
            self.fail(target, f"assigning attribute {name!r} of a tensor is not supported in "
                              "graph mode", Kind.UNSUPPORTED)
        for kind, loc in reversed(self.ctl):
            if kind == "irloop":
                self.fail(target, f"assigning {describe(obj)}.{name} inside a while loop whose "
                                  f"condition is a tensor (line {loc.line}) is not supported in "
                                  "graph mode: the loop runs an unknown number of times",
                          Kind.UNSUPPORTED)
        current = getattr(obj, name, MISSING) if attr_key(obj, name) not in self.written \
            else MISSING
        if current is not MISSING and self.is_parameter_object(current):
            # self.weight = value: the Parameter takes the value, as ops.assign (MindSpore)
            self.emit(lookup("assign"), (self.realize(current, node),
                                         self.realize(value, node)), {}, node)
            return
        if self._is_cell(value) or self._is_cell(current):
            self.fail(target, f"assigning a cell to {describe(obj)}.{name} in compiled code is "
                              "not supported; create cells in __init__", Kind.UNSUPPORTED)
        if self.trials:   # a hook that sets attributes runs as Python, when PyNative does
            self.outside_effect(f"{type(obj).__name__}.{name} = ...")
        elif not self._is_cell(obj):
            self.fail(target, f"graph mode sets attributes of cells only (self.{name} = ... in "
                              f"construct); {describe(obj)} is no cell, and a compiled call "
                              "would not see its attribute change", Kind.UNSUPPORTED)
        key = attr_key(obj, name)
        if key not in self.written:
            self.written[key] = Written(obj, name, current)
        self.bindings[key] = value

    def _is_cell(self, v) -> bool:
        if v is MISSING or isinstance(v, Value) or type(v) in (tuple, list, dict):
            return False
        return isinstance(self.classify(v), R.CellCall)

    def attr_outputs(self, results: list) -> tuple:
        """``(obj, name, output spec)`` for every attribute whose value changed, appending the
        values computed in the graph to ``results`` (after the returned ones)."""
        out = []
        for key, w in self.written.items():
            value = self.bindings.get(key, w.original)
            if value is w.original:
                continue
            if any(isinstance(x, Poison) for x in leaves(value)):
                continue
            out.append((w.obj, w.name, self.output_spec(value, results)))
        return tuple(out)

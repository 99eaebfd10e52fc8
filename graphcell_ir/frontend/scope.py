"""What the frontend's environments hold, and the frames of the functions being inlined.

A variable of the Python code being compiled holds a *frontend value*, one of:

- an IR ``Value`` (``graphcell_ir.ir.Value``): something known only when the graph runs;
- a **static** Python object, known while compiling: numbers, strings, None, dtypes, shapes,
  ``self`` and its sub-cells, functions... Objects the resolver may see as tensors (a Parameter,
  a captured Tensor) stay raw Python objects in the environment and are *classified lazily*, at
  their use, so that ``w = self.w; ops.assign(self.w, v); w + 1`` reads the new value;
- a Python ``tuple``/``list``/``dict`` of frontend values (tuples are never IR values: the
  frontend keeps their structure and only the leaves are IR);
- one of the frontend's own objects below: ``Poison`` (the result of an expression that failed;
  its uses are silently poisoned, so one error is reported once), ``Undefined`` (a name bound on
  only some paths), ``Closure`` (a ``lambda`` or nested ``def``), ``BoundMethod`` (``x.sum`` on a
  tensor, waiting for its call).

Static and IR values never mix silently: every place that needs a compile-time value asks for
one (``require_static``) and reports a tensor where a constant is needed at the user's line.

A :class:`Frame` is one function being inlined: its parsed source, its variables, its globals and
closure, its place in the call chain (for locations), and the control state of the statements
being compiled (the ``levels`` of statement lists, and a pending ``return``/``break``/``continue``).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from graphcell_ir.frontend.source import ParsedFunction
from graphcell_ir.ir.core import Value
from graphcell_ir.ir.types import ObjectType
from graphcell_ir.ir.loc import Loc


class Poison:
    """The value of an expression that failed (already reported): uses of it are not reported."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<poison>"


POISON = Poison()


@dataclass(frozen=True, eq=False)
class Undefined:
    """A name that cannot be read any more: bound on some paths only (one branch of a tensor
    ``if``, a loop body), or with different types on two paths. Reading it reports ``message``
    (whose diagnostic kind is ``kind``)."""

    name: str
    message: str
    kind: Any = None


@dataclass(eq=False)
class Closure:
    """A ``lambda`` or nested ``def`` of the compiled code: inlined where it is called."""

    node: Any                      # ast.Lambda | ast.FunctionDef
    frame: "Frame"                 # the frame it was defined in (globals, closure, locations)
    captured: dict                 # the defining frame's variables when it was made
    signature: inspect.Signature   # defaults already evaluated
    name: str
    comprehension: dict = field(default_factory=dict)   # made in a comprehension: Frame's field


@dataclass(frozen=True, eq=False)
class BoundMethod:
    """``x.sum`` on a tensor value ``x``: a resolver record to call with ``x`` first."""

    record: Any
    self_value: Value
    name: str


class Missing:
    """A name that a branch does not bind (not the same as binding None)."""

    __slots__ = ()


MISSING = Missing()


# --- frames -----------------------------------------------------------------------------------

BLOCK, LOOP, BASE = "block", "loop", "base"


@dataclass(eq=False)
class Level:
    """A statement list being compiled: ``stmts[pos:]`` is still to come.

    ``kind`` says whether the continuation of an early ``return`` may cross it: ``BASE`` ends a
    function body (or a branch that already holds its continuation), ``LOOP`` is a loop body.
    ``loop``: for the body of an unrolled loop, where it is (:class:`ForRest` or
    :class:`WhileRest` resumes it); None for the body of a ``while`` on a tensor, which a
    continuation cannot cross.
    """

    stmts: list
    pos: int
    kind: str
    loop: "ForRest | WhileRest | None" = None


@dataclass(eq=False)
class ForRest:
    """A statement standing for the rest of an unrolled ``for`` loop: iteration ``index`` of
    ``node`` over ``items`` from the statements ``first`` on (its target already bound), then
    the remaining iterations and the ``else``. A continuation that leaves a loop body (an early
    ``return``, ``break`` or ``continue`` under a tensor condition) holds one per loop it
    leaves, so ``break`` and ``continue`` keep their meaning inside it."""

    node: Any          # the ast.For
    items: list
    index: int
    first: list

    _fields = ("first", "node")   # ast walkers (assigned_names, contains) see what it runs

    def __getattr__(self, name: str):
        # lineno, col_offset...: diagnostics point at the loop
        if name in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            return getattr(self.node, name)
        raise AttributeError(name)

    def resume(self, first: list) -> "ForRest":
        """This loop from this iteration on, its remaining statements being ``first``."""
        return ForRest(self.node, self.items, self.index, first)


@dataclass(eq=False)
class WhileRest:
    """The :class:`ForRest` of an unrolled ``while`` (its condition known while compiling):
    the statements ``first`` of the current iteration, then the loop again from its condition
    (``count`` iterations have run), then its ``else``."""

    node: Any          # the ast.While (already rewritten for its jumps, see jumps.py)
    count: int
    first: list

    _fields = ("first", "node")

    def __getattr__(self, name: str):
        if name in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            return getattr(self.node, name)
        raise AttributeError(name)

    def resume(self, first: list) -> "WhileRest":
        return WhileRest(self.node, self.count, first)


@dataclass(eq=False)
class Frame:
    """One function being compiled or inlined."""

    parsed: ParsedFunction
    globals: dict
    closure: dict
    scope: tuple[str, ...]
    caller: Loc | None
    marks: tuple[str, ...]
    vars: dict = field(default_factory=dict)
    levels: list[Level] = field(default_factory=list)
    jump: str | None = None            # "return" | "break" | "continue" while unwinding
    returned: Any = MISSING            # the value of the return being unwound
    self_obj: Any = None               # for zero-argument super()
    function: Any = None               # the Python function (for super()'s __class__)
    outer: "Frame | None" = None       # the defining frame of a lambda or nested def
    # while a comprehension is compiled: each name its generators bind -> the variables of the
    # innermost comprehension binding it (a lambda made there reads them, late-bound)
    comprehension: dict = field(default_factory=dict)

    def loc(self, node) -> Loc:
        return self.parsed.loc(node, self.scope, self.caller, self.marks)


# --- structure of frontend values --------------------------------------------------------------

def is_container(v) -> bool:
    return type(v) in (tuple, list, dict)


def leaves(v):
    """The non-container parts of a frontend value, depth first."""
    if type(v) in (tuple, list):
        for e in v:
            yield from leaves(e)
    elif type(v) is dict:
        for e in v.values():
            yield from leaves(e)
    else:
        yield v


def map_leaves(fn, v):
    """``v`` with every leaf replaced by ``fn(leaf)`` (containers rebuilt only when needed)."""
    t = type(v)
    if t is tuple or t is list:
        new = [map_leaves(fn, e) for e in v]
        return v if all(a is b for a, b in zip(new, v)) else t(new)
    if t is dict:
        new = {k: map_leaves(fn, e) for k, e in v.items()}
        return v if all(new[k] is v[k] for k in v) else new
    return fn(v)


def is_object(v) -> bool:
    """Whether ``v`` is a run-time Python object (an ``obj`` value of JIT-Fallback code)."""
    return isinstance(v, Value) and isinstance(v.type, ObjectType)


def has_poison(v) -> bool:
    return any(isinstance(x, Poison) for x in leaves(v))


def copy_containers(v):
    """A copy of the lists and dicts in ``v`` (a branch must not mutate the other's list)."""
    t = type(v)
    if t is list:
        return [copy_containers(e) for e in v]
    if t is dict:
        return {k: copy_containers(e) for k, e in v.items()}
    if t is tuple and any(type(e) in (list, dict, tuple) for e in v):
        return tuple(copy_containers(e) for e in v)
    return v


def copy_vars(vars: dict) -> dict:
    return {k: copy_containers(v) for k, v in vars.items()}

"""Guards: what a compiled entry assumed about the cells beyond its input signature.

A compile reads attributes of the cells it meets (``self.threshold``, ``self.conv1``,
``self.weight``; recorded by ``reads.py``) and compiles their forward hooks in. The entry is valid
while every such attribute is still the same object and the hook tables are unchanged (DESIGN
§10.9: graphcell recompiles when an attribute ``construct`` uses changes, where MindSpore keeps a
stale graph). What is guarded, per cell:

- each attribute read that lives in the cell's ``__dict__`` (numbers, strings, flags such as
  ``training``, Primitives, Tensors), and for a dict or list attribute also its items;
- each Parameter and sub-cell read by name (``_params`` / ``_cells`` entries);
- the hook tables of every cell the compile met (forward hooks are compiled in, backward hooks
  become ``hook_backward`` ops at the cell's boundaries: a new or removed hook changes the IR).
  A call checks one number for them all, ``runtime.hooks.CELL_HOOKS``, which every
  ``register_*_hook`` and ``handle.remove()`` sets anew; only when it moved are the tables
  compared (a hook on another cell changes nothing here, and the guard is refreshed);
  ``ops.HookBackward`` needs no guard: its op calls the object's ``hook_fn`` as it is when the
  gradient runs;
- the hooks of Parameters (``Parameter.register_hook``): one counter, bumped by any change.

Attributes resolved on the class (methods, properties) and mutable objects reached through other
objects (a list inside a plain Python object) are not guarded.

The check runs on every call, so it is generated as one straight-line Python function of identity
tests (the way torch.compile builds its guards). A failed identity test is then explained by
:meth:`Guards.explain`, which compares values: an attribute set again to an equal value (a new
float object ``0.1``) is no change, and the guard is refreshed instead of recompiling.

Example::

    >>> from graphcell import nn
    >>> cell = nn.Cell(); cell.scale = 2
    >>> g = Guards([cell], {id(cell): {"scale"}}, hooked=())
    >>> g.hold()
    True
    >>> cell.scale = 3
    >>> g.hold(), g.explain()
    (False, 'attribute changed: Cell.scale: 2 -> 3')
"""
from __future__ import annotations

from dataclasses import dataclass
from operator import eq, is_
from typing import Any, Iterable

from graphcell.graph.signature import short_value
from graphcell.runtime.hooks import CELL_HOOKS
from graphcell_ir.ir.types import DType

__all__ = ["Guards"]

_HOOK_TABLES = (("_forward_pre_hook", "forward-pre hooks"), ("_forward_hook", "forward hooks"),
                ("_backward_pre_hook", "backward-pre hooks"), ("_backward_hook", "backward hooks"))
_NOT_GUARDED = frozenset({"_graph_cache", "_forward_pre_hook", "_forward_hook",
                          "_backward_pre_hook", "_backward_hook", "_backward_callbacks",
                          "__class__", "__dict__"})
_SCALARS = (bool, int, float, complex, str, bytes, type(None), DType)
_MISSING = object()


@dataclass(frozen=True)
class _Check:
    kind: str          # "attr", "param", "cell" or "hooks"
    cell: Any
    name: str
    expected: Any      # the object (identity), or for "hooks" the tuple of hook keys
    items: tuple | None = None   # for a dict/list attribute: its items when compiled


def _snapshot(kind: str, cell, name: str) -> _Check:
    if kind == "version":   # cell: a one-element list counting changes
        return _Check(kind, cell, name, cell[0])
    d = cell.__dict__
    if kind == "hooks":
        return _Check(kind, cell, name, tuple(d.get(name) or ()))
    table = d if kind == "attr" else d["_params" if kind == "param" else "_cells"]
    value = table[name]
    return _Check(kind, cell, name, value, _items(value))


def _items(value) -> tuple | None:
    if isinstance(value, dict):
        return tuple(value.items())
    if isinstance(value, list):
        return tuple(value)
    return None


def _same_items(container, items: tuple) -> bool:
    now = _items(container)
    return now is not None and len(now) == len(items) and all(
        _same_item(a, b) for a, b in zip(now, items))


def _same_item(a, b) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == 2:  # dict items
        return a[0] == b[0] and a[1] is b[1]
    return a is b


class Guards:
    """The guards of one compiled entry (see the module docstring).

    ``cells`` are the cells the compile met, ``reads`` maps ``id(cell)`` to the attribute names
    read on it, ``hooked`` the cells whose forward hooks the compile included. ``versions``:
    ``(counter, what)`` pairs, one-element lists bumped when ``what`` changes (the hooks of
    Parameters, which live on the Parameters).
    """

    def __init__(self, cells: Iterable, reads: dict[int, set], hooked: Iterable,
                 versions: Iterable = ()):
        self._plan: list[tuple[str, Any, str]] = []
        for counter, what in versions:
            self._plan.append(("version", counter, what))
        for cell in cells:
            d = cell.__dict__
            for name in sorted(reads.get(id(cell), ())):
                kind = _kind(d, name)
                if kind is not None:
                    self._plan.append((kind, cell, name))
        for cell in hooked:
            for table, _ in _HOOK_TABLES:
                self._plan.append(("hooks", cell, table))
        self.refresh()

    def refresh(self) -> None:
        """Take the current values as the expected ones (after an equal-value reassignment, or
        hooks registered or removed on other cells: then only the counter's value is taken,
        without generating the check again). Only once :meth:`explain` found no change: the
        hook tables were compared there."""
        seen = getattr(self, "_hooks_seen", None)
        if seen is not None:
            seen[0] = CELL_HOOKS[0]
            if self.hold():
                return
        self._hooks_seen = [CELL_HOOKS[0]]   # before the tables: a change meanwhile fails
        self.checks = [_snapshot(kind, cell, name) for kind, cell, name in self._plan]
        self.hold = _generate(self.checks, self._hooks_seen)

    def hold(self) -> bool:  # replaced per instance by the generated function
        """True while every guarded attribute and hook table is as when compiled."""
        raise NotImplementedError

    def explain(self) -> str | None:
        """Why the guards fail, for the cache log; None when nothing really changed."""
        for check in self.checks:
            reason = _explain(check)
            if reason is not None:
                return reason
        return None

    def __len__(self) -> int:
        return len(self._plan)


def _kind(d: dict, name: str) -> str | None:
    if name in _NOT_GUARDED:
        return None
    if name in d:
        return "attr"
    if name in d.get("_params", ()):
        return "param"
    if name in d.get("_cells", ()):
        return "cell"
    return None  # found on the class: a method, a property or a class constant


def _generate(checks: list[_Check], hooks_seen: list):
    """One function ``hold()`` running every check as an identity test, stopping at the first
    that fails; a missing attribute (KeyError) fails too. The hook tables are one test of
    ``CELL_HOOKS`` against ``hooks_seen[0]``."""
    if not checks:
        return _always
    lines = ["def hold():", "    try:"]
    env: dict[str, Any] = {"is_": is_, "eq": eq, "cell_hooks": CELL_HOOKS,
                           "hooks_seen": hooks_seen}
    if any(c.kind == "hooks" for c in checks):
        lines.append("        if cell_hooks[0] != hooks_seen[0]: return False")
    current = None
    for i, c in enumerate(checks):
        if c.kind == "hooks":
            continue
        if c.cell is not current and c.kind != "version":
            env[f"c{i}"] = c.cell
            lines.append(f"        d = c{i}.__dict__")
            current = c.cell
        env[f"e{i}"] = c.expected
        if c.kind == "version":
            env[f"v{i}"] = c.cell
            lines.append(f"        if v{i}[0] != e{i}: return False")
            continue
        where = {"attr": "d", "param": "d['_params']", "cell": "d['_cells']"}[c.kind]
        test = f"{where}[{c.name!r}] is not e{i}"
        if c.items is not None:
            test += " or " + _items_changed(i, c, env)
        lines.append(f"        if {test}: return False")
    lines += ["    except KeyError:", "        return False", "    return True"]
    exec(compile("\n".join(lines), "<graphcell guards>", "exec"), env)  # noqa: S102 - own code
    return env["hold"]


def _items_changed(i: int, c: _Check, env: dict) -> str:
    """The test that the items of the dict or list ``e{i}`` are no longer those of ``c``
    (``_same_items``, as loops in C: a SequentialCell's table is checked on every call)."""
    if isinstance(c.expected, dict):
        env[f"ik{i}"] = tuple(k for k, _ in c.items)
        env[f"iv{i}"] = tuple(v for _, v in c.items)
        return (f"len(e{i}) != {len(c.items)} or not all(map(is_, e{i}.values(), iv{i})) "
                f"or not all(map(eq, e{i}, ik{i}))")
    env[f"iv{i}"] = c.items
    return f"len(e{i}) != {len(c.items)} or not all(map(is_, e{i}, iv{i}))"


def _always() -> bool:
    return True


def _explain(c: _Check) -> str | None:
    if c.kind == "version":
        return None if c.cell[0] == c.expected else f"{c.name} changed"
    d = c.cell.__dict__
    owner = type(c.cell).__name__
    if c.kind == "hooks":
        now = tuple(d.get(c.name) or ())
        if now == c.expected:
            return None
        what = dict(_HOOK_TABLES)[c.name]
        change = "registered" if len(now) > len(c.expected) else "removed" if len(now) < len(
            c.expected) else "replaced"
        return f"{what} {change} on {owner}"
    table = d if c.kind == "attr" else d.get("_params" if c.kind == "param" else "_cells", {})
    now = table.get(c.name, _MISSING)
    if now is _MISSING:
        return f"attribute removed: {owner}.{c.name}"
    if c.kind == "param" and now is not c.expected:
        return f"parameter replaced: {owner}.{c.name}"
    if c.kind == "cell" and now is not c.expected:
        return f"sub-cell replaced: {owner}.{c.name}"
    if c.items is not None and now is c.expected and not _same_items(now, c.items):
        return f"contents changed: {owner}.{c.name}"
    if _same_value(now, c.expected):
        return None
    if c.name == "training":
        return f"training flag changed: {owner}.training {c.expected} -> {now}"
    return f"attribute changed: {owner}.{c.name}: {short_value(c.expected)} -> {short_value(now)}"


def _same_value(a, b) -> bool:
    """Equal for compiling: the same object, or equal statics of the same type."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, _SCALARS):
        return a == b or (a != a and b != b)  # NaN equals NaN here
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return False

"""The static buffer plan of a function with fixed shapes: every intermediate tensor gets an
offset in one arena, allocated once per executable, and buffers are reused once dead.

``plan_function(fn)`` is a pure function of the IR. It numbers the body's ops, gives each tensor
result a live interval (the op defining it to its last use) and places the intervals in the arena
first-fit (:func:`place`), so two buffers overlap in memory only when their lifetimes do not.

- **Escaping values** (what ``return`` yields) are not in the arena: the caller keeps them, and
  memory the next call overwrites must never reach it; the runner allocates them fresh per call.
- **Views** (``views(op)`` names the operand: a reshape of contiguous memory, ``depend``, an
  ``assign`` taking a new value nobody else holds) take that operand's buffer: one buffer, living as long as its last member. A view of an argument or a
  constant is external too (no arena bytes).
- **Updates in place** (``into``: value -> argument, :mod:`.donate`'s choice): the value is
  written into that argument's bytes (the caller donated them): external, as a view is.
- **In place**: ``in_place(op, i)`` says whether ``op`` may write its result into operand ``i``'s
  bytes (an elementwise kernel reading element k before writing element k); the result then
  takes that operand's buffer when the operand dies at ``op`` and has the same size.

Example::

    >>> from graphcell_ir.ir import Builder, Function, TensorType, float32
    >>> fn = Function("f"); x = fn.add_arg(TensorType(float32, (4,)), "x")
    >>> b = Builder.at_end(fn.body)
    >>> y = b.op("neg", x); z = b.op("neg", y); w = b.op("neg", z); _ = b.return_(w)
    >>> p = plan_function(fn)
    >>> p.offset[y], p.offset[z], w in p.escaping, p.size
    (0, 64, True, 128)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from graphcell_ir.ir.core import Function, Literal, Op, Value
from graphcell_ir.ir.structural import CONST, FUSED
from graphcell_ir.ir.types import TensorType

ALIGN = 64
"""Every buffer starts at a multiple of this many bytes (a cache line; what SIMD loads like)."""


class PlanError(ValueError):
    """The function has no static plan: a value of no fixed shape, or control flow."""


@dataclass(frozen=True)
class Interval:
    """A buffer to place: ``size`` bytes live from op ``start`` to op ``end`` (both included)."""
    key: object
    size: int
    start: int
    end: int

    def overlaps(self, other: Interval) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass
class Plan:
    """Where each intermediate lives: ``offset[v]`` (bytes into the arena) for planned values;
    ``escaping`` the values the caller receives (fresh arrays), ``external`` those whose bytes
    belong to an argument or a constant (views of them); ``size`` the arena's bytes.
    ``buffers`` lists the placed intervals (what the tests check)."""
    size: int = 0
    offset: dict = field(default_factory=dict)
    escaping: set = field(default_factory=set)
    external: set = field(default_factory=set)
    buffers: list = field(default_factory=list)
    root: dict = field(default_factory=dict)    # value -> the value whose buffer it uses

    def shares(self, a: Value, b: Value) -> bool:
        """Whether ``a`` and ``b`` are one buffer (a view, or written in place)."""
        return self.root.get(a, a) is self.root.get(b, b)


def nbytes(v: Value) -> int:
    t = v.type
    return t.size * t.dtype.np_dtype.itemsize


def _aligned(n: int) -> int:
    return -(-max(n, 1) // ALIGN) * ALIGN


def place(intervals: list[Interval]) -> tuple[dict, int]:
    """First-fit offsets for ``intervals`` (key -> offset) and the arena's size: buffers whose
    intervals overlap never overlap in memory. Larger buffers are placed first, so small ones
    fill the gaps they leave. Pure: the same intervals give the same offsets."""
    order = sorted(intervals, key=lambda iv: (-iv.size, iv.start, iv.end))
    placed: list[tuple[int, int, Interval]] = []   # (offset, aligned size, interval)
    offsets, top = {}, 0
    for iv in order:
        busy = sorted((o, o + n) for o, n, other in placed if other.overlaps(iv))
        size, at = _aligned(iv.size), 0
        for lo, hi in busy:
            if at + size <= lo:
                break
            at = max(at, hi)
        placed.append((at, size, iv))
        offsets[iv.key] = at
        top = max(top, at + size)
    return offsets, top


def _no(*_args) -> None:
    return None


def plan_function(fn: Function, *, views: Callable[[Op], int | None] = _no,
                  in_place: Callable[[Op, int], bool] = _no, into: dict | None = None) -> Plan:
    """The static buffer plan of ``fn``'s body (see the module docstring). PlanError when a
    value has no static shape or an op other than ``fused`` has regions (control flow)."""
    ops = [op for op in fn.body if not op.is_terminator]
    term = fn.body.terminator
    escaping_values = [v for v in (term.operands if term is not None else ())
                       if not isinstance(v, Literal)]
    use = _last_uses(ops, escaping_values)
    root: dict[Value, Value] = {}
    members: dict[Value, list] = {}    # buffer root -> the values in it
    first: dict[Value, int] = {}       # buffer root -> the op defining it
    external: set[Value] = set(fn.args)

    def find(v: Value) -> Value:
        while v in root:
            v = root[v]
        return v

    def last(r: Value) -> int:
        return max(use.get(m, first.get(r, -1)) for m in members.get(r, [r]))

    for n, op in enumerate(ops):
        if op.regions and op.opdef is not FUSED:
            raise PlanError(f"{op.opdef.name} has regions: control flow has no static plan")
        for k, r in enumerate(op.results):
            if not isinstance(r.type, TensorType):
                raise PlanError(f"{op.opdef.name} gives a {r.type}, not a tensor of fixed shape")
            src = into.get(r) if into else None
            if src is None:
                src = _shared_operand(op, k, r, views, in_place, find, last, n, external)
            if src is not None:
                root[r] = src
                members.setdefault(src, [src]).append(r)
                if src in external:
                    external.add(r)
            elif op.opdef is CONST:
                external.add(r)
            else:
                first[r] = n
    escaping = {find(v) for v in escaping_values} - external
    buffers = [Interval(r, nbytes(r), first[r], last(r)) for r in first if r not in escaping]
    offsets, size = place(buffers)
    plan = Plan(size=size, buffers=buffers)
    for v in [*first, *root]:
        r = plan.root[v] = find(v)
        if r in external:
            plan.external.add(v)
        elif r in escaping:
            plan.escaping.add(v)
        else:
            plan.offset[v] = offsets[r]
    plan.external.update(fn.args)
    return plan


def _last_uses(ops: list[Op], returned: list[Value]) -> dict[Value, int]:
    """Each value's last reading op (its index); returned values live past the last op."""
    out: dict[Value, int] = {}
    for n, op in enumerate(ops):
        for v in op.operands:
            if not isinstance(v, Literal):
                out[v] = n
    for v in returned:
        out[v] = len(ops)
    return out


def _shared_operand(op: Op, k: int, result: Value, views, in_place, find, last, n,
                    external):
    """The buffer root ``result`` shares: operand ``views(op)``'s when ``op`` is a view (its
    result 0), or that of an operand ``op`` may overwrite, whose buffer nothing reads after
    ``op``, of the result's size and dtype, not an argument's or a constant's (the caller's
    memory), and not taken by an earlier result of ``op``."""
    src = views(op) if k == 0 else None
    if src is not None and not isinstance(op.operands[src], Literal):
        return find(op.operands[src])
    for i, v in enumerate(op.operands):
        if isinstance(v, Literal) or not isinstance(v.type, TensorType) or not in_place(op, i):
            continue
        r = find(v)
        if (r not in external and last(r) == n and nbytes(v) == nbytes(result) and v.type.dtype == result.type.dtype
                and all(find(res) is not r for res in op.results[:k])):
            return r
    return None

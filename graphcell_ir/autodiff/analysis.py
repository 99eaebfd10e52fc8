"""What the gradient transform needs to know about a function before it emits anything.

- :func:`active_values`: the values that depend on the arguments being differentiated (forward
  activity). Only they receive cotangents; everything else is a constant to the backward, so no
  dead gradient code is emitted for it. As in PyNative, activity stops at ``NONDIFF`` ops
  (comparisons, ``argmax``, ``fill``) and at Python scalars, and flows through integer tensors
  (gradients of integer arithmetic are integers).
- :func:`free_values`: the values a region uses but does not define (its captures). The backward
  of an ``if`` or ``while`` hands cotangents of exactly these back to the enclosing block.
- :func:`must_save`: ops whose results cannot be recomputed in the backward (random draws, side
  effects), so the forward has to keep them (see ``replay.py``).
- :func:`needed_values` / :func:`loop_needs`: which values of a block, and which carried values
  of a loop, computing some of its results takes (what a loop's backward saves and replays).
- :func:`trip_count`: how many iterations a counted ``while`` runs, when that is known while
  compiling (its backward then saves exactly that many slots).

Example::

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module('''func @f(%x: f32[2], %y: f32[2]) -> f32[2] {
    ...   %c = greater(%x, 0.0:f32) : bool[2]
    ...   %a = mul(%x, %y) : f32[2]
    ...   %b = select(%c, %y, %y) : f32[2]
    ...   return %a
    ... }
    ... ''')
    >>> fn = m["f"]
    >>> sorted(v.name_hint for v in active_values(fn, [fn.args[0]]))  # not c (compares), not b
    ['a', 'x']
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from graphcell_ir.ir.core import Block, Function, Literal, Op, Region, Value
from graphcell_ir.ir.structural import CALL, CONST, IF, WHILE
from graphcell_ir.ir.types import TensorType, TupleType, Type
from graphcell_ir.ir.walk import walk
from graphcell_ir.ops.registry import Kind, Trait, lookup

_LESS, _GREATER, _ADD = lookup("less"), lookup("greater"), lookup("add")


def differentiable_type(t: Type) -> bool:
    """Tensors (of any dtype but bool) and tuples holding one; Python scalars are constants."""
    if isinstance(t, TensorType):
        return not t.dtype.is_bool
    if isinstance(t, TupleType):
        return any(differentiable_type(e) for e in t.elements)
    return False


def active_values(fn: Function, wrt: Iterable[Value]) -> set[Value]:
    """The values of ``fn`` that depend on ``wrt`` through differentiable ops (a fixed point
    over ``while`` bodies)."""
    active = {v for v in wrt if differentiable_type(v.type)}
    _Activity(active).block(fn.body)
    return active


class _Activity:
    def __init__(self, active: set[Value]):
        self.active = active

    def any_active(self, values: Iterable[Value]) -> bool:
        return any(v in self.active for v in values if not isinstance(v, Literal))

    def mark(self, values: Iterable[Value]) -> bool:
        """Mark the differentiable ``values`` active; whether anything changed."""
        new = [v for v in values if v not in self.active and differentiable_type(v.type)]
        self.active.update(new)
        return bool(new)

    def block(self, block: Block) -> None:
        for op in block:
            if op.opdef is IF:
                self.if_(op)
            elif op.opdef is WHILE:
                self.while_(op)
            elif op.opdef is CALL or op.opdef.differentiable:
                if self.any_active(op.operands):
                    self.mark(op.results)

    def if_(self, op: Op) -> None:
        for region in op.regions:
            self.block(region.block)
        for i, r in enumerate(op.results):
            if any(self.any_active([yielded(region)[i]]) for region in op.regions):
                self.mark([r])

    def while_(self, op: Op) -> None:
        cond, body = (r.block for r in op.regions)
        while True:  # monotone: each round only adds values, so it ends
            before = len(self.active)
            for i, init in enumerate(op.operands):
                if self.any_active([init]) or self.any_active([yielded(op.regions[1])[i]]):
                    self.mark([body.args[i], cond.args[i]])
            self.block(body)
            if len(self.active) == before:
                break
        self.block(cond)
        self.mark([r for r, a in zip(op.results, body.args) if a in self.active])


def yielded(region: Region) -> tuple[Value, ...]:
    """The operands of the ``yield`` ending ``region``."""
    return region.block.terminator.operands


def free_values(op: Op) -> list[Value]:
    """The values ``op``'s regions use but do not define, in first-use order (literals aside)."""
    defined: set[Value] = set()
    for region in op.regions:
        defined.update(region.block.args)
    inner = [o for region in op.regions for o in walk(region)]
    for o in inner:
        defined.update(o.results)
        for region in o.regions:
            defined.update(region.block.args)
    seen: dict[Value, None] = {}
    for o in inner:
        for v in o.operands:
            if not isinstance(v, Literal) and v not in defined:
                seen.setdefault(v)
    return list(seen)


def must_save(op: Op) -> bool:
    """Whether recomputing ``op`` would not give its forward result again: it draws random
    numbers, or it is an effect (``assign``) that must happen exactly once."""
    if op.is_terminator:
        return False
    return op.opdef.kind is Kind.SIDE_EFFECT or op.opdef.has(Trait.RANDOM)


def needed_values(block: Block, positions, effects: bool = True) -> set[Value]:
    """The values ``block`` needs to compute what it yields at ``positions`` (and, with
    ``effects``, its effects): the closure over operands (and the captures of ops with regions)
    within ``block``, plus the outer values reached."""
    yields = block.terminator.operands
    todo = [yields[i] for i in positions]
    if effects:
        todo += [v for op in block if _has_effect(op) for v in [*op.operands, *_captures(op)]]
    needed: set[Value] = set()
    while todo:
        v = todo.pop()
        if v in needed or isinstance(v, Literal):
            continue
        needed.add(v)
        op = getattr(v, "op", None)
        if op is not None and op.parent is block:
            todo += [*op.operands, *_captures(op)]
    return needed


def _has_effect(op: Op) -> bool:
    """Whether ``op`` (or an op in its regions) must run whatever its results' fate."""
    return must_save(op) or any(must_save(o) for r in op.regions for o in walk(r))


def _captures(op: Op) -> list[Value]:
    return free_values(op) if op.regions else []


def trip_count(op: Op) -> int | None:
    """How many times the ``while`` ``op`` runs its body, when that is known while compiling:
    for a *counted* loop, whose condition is ``less(k, n)`` (or ``greater(n, k)``) on a carried
    ``k`` that starts at a constant and that the body steps by ``add(k, 1)``, ``n`` a constant.
    None for any other loop (its trip count depends on the data).

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module('''func @f(%x: f32[2]) -> f32[2] {
    ...   %0 = const() {value=2} : i64[]
    ...   %k, %y = while(%0, %x) : (i64[], f32[2]) cond(%a: i64[], %b: f32[2]) {
    ...     %1 = less(%a, 7:i64) : bool[]
    ...     yield %1
    ...   } do(%c: i64[], %d: f32[2]) {
    ...     %2 = add(%c, 1:i64) : i64[]
    ...     %3 = mul(%d, %d) : f32[2]
    ...     yield %2, %3
    ...   }
    ...   return %y
    ... }
    ... ''')
    >>> trip_count(next(op for op in m["f"].body if op.opdef.name == "while"))
    5
    """
    cond, body = (r.block for r in op.regions)
    test = getattr(cond.terminator.operands[0], "op", None)
    if test is None or test.parent is not cond or test.opdef not in (_LESS, _GREATER):
        return None
    k, n = test.operands if test.opdef is _LESS else reversed(test.operands)
    if k not in cond.args:
        return None
    i = cond.args.index(k)
    step = getattr(body.terminator.operands[i], "op", None)
    if step is None or step.parent is not body or step.opdef is not _ADD or \
            body.args[i] not in step.operands or \
            [_int_constant(v) for v in step.operands if v is not body.args[i]] != [1]:
        return None
    start, stop = _int_constant(op.operands[i]), _int_constant(n)
    if start is None or stop is None:
        return None
    return max(0, stop - start)


def _int_constant(v: Value) -> int | None:
    """The value of an integer literal or 0-d integer ``const``, else None."""
    if isinstance(v, Literal):
        x = v.value
    else:
        op = getattr(v, "op", None)
        if op is None or op.opdef is not CONST or "value" not in op.attrs:
            return None
        x = np.asarray(op.attrs["value"])
        if x.shape != () or x.dtype.kind not in "iu":
            return None
        x = x.item()
    return int(x) if isinstance(x, (int, np.integer)) and not isinstance(x, bool) else None


def loop_needs(op: Op, positions) -> tuple[list[int], set[Value]]:
    """For a ``while`` whose carried values at ``positions`` are wanted after each iteration:
    the carried values each iteration needs (closed: computing their next values needs only
    them), and the body values computing all of them takes. Effects do not count: a replay
    takes their results from the forward."""
    body = op.regions[1].block
    live = set(positions)
    while True:
        needed = needed_values(body, sorted(live), effects=False)
        carried = {i for i, a in enumerate(body.args) if a in needed}
        if carried <= live:
            return sorted(carried), needed
        live |= carried

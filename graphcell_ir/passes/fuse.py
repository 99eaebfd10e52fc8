"""``fuse``: group connected elementwise ops (and the reductions they feed) into ``fused`` ops.

A ``fused`` op (``graphcell_ir.ir.structural.FUSED``) holds a body region isolated from above:
its operands are the group's inputs, mirrored as block arguments; the body is the group's ops,
in their order; it yields the group's outputs. The backend turns each one into one kernel that
reads its inputs once and writes its outputs once (DESIGN §7); the interpreter runs the body.

Which ops join a group:
- ``Kind.ELEMENTWISE`` primitives (literal operands and broadcasting included) with tensor
  results, and ``Kind.REDUCTION`` primitives, which absorb their elementwise producers. A
  reduction ends a group: nothing in the group uses its result (a kernel cannot read a sum it is
  still accumulating), and a group's reductions all reduce the same axes of inputs of one
  shape (one loop nest accumulates them all: batch norm's gradient sums ``dy`` and
  ``dy * x_hat`` while it reads them once).
- Never an op with a side effect or a random draw, and a group never spans one: the block is cut
  into segments at every op with an effect (``support.has_effect``), and groups stay inside one,
  so no op is moved across an effect. The exception is a *deferred write*, an op that only gives
  a Parameter its new value (``opdef.mutates``: ``assign``): graph mode writes the mutated
  Parameters back after the whole call (DESIGN §4), and later reads take the assign's result
  (SSA), so no pure op can observe where it runs relative to one. It does not cut: an optimizer's
  update of one parameter (its moments, the parameter itself, each assigned in turn) is one
  kernel reading the gradient once, not one kernel per assign. Effects keep their order. A
  fusible op that reads such a write's result reads the written value instead (the same array
  when the types agree): ``p - lr * assign(accum, v)`` joins the group that computes ``v``.
- A value of one element (a learning rate, ``momentum > 0``, Adam's bias corrections) joins at
  most one group of larger domain: it never bridges two, so the updates of two parameters that
  read one shared scalar stay two kernels (a ``[1024]`` bias would otherwise join its
  ``[1024,1024]`` weight's kernel and be computed once per weight element).
- Small inline constants feeding the group are copied into the body (a scalar ``0.5`` is part of
  the kernel's arithmetic, not an input), and so are ops that read nothing (``fill``): each
  group that reads ``zeros_like(x)`` computes its zeros, so one ``fill`` that CSE shared between
  two parameters' updates neither joins one group nor bridges two.
- One iteration space per kernel: the result shapes of the group's elementwise ops and the input
  shapes of its reduction must all broadcast to one of them (``[3]`` feeding ``[2,3]`` and
  ``[4,3]`` sinks would need two loop nests, so those stay apart).
- No cycles: two groups are not merged when a path leaves the merged group through an op
  outside it (or through another group, which will be one op too) and comes back.

Groups are maximal under these rules, built by merging each op with its producers in program
order (union-find, with a reachability check for cycles). A group of one op is left alone.
Outputs are the group's results used outside it, so a value used both inside and after the
group is written once, not recomputed (a group may have several outputs). The fused op takes
the location of the group's last op and the name hints of its outputs; the block is then put
back in a topological order that keeps every other op's relative order.

Runs on every block, inside ``if``/``while`` regions too, but not inside existing ``fused``
bodies. Precondition: valid IR. Postcondition: valid IR with the same values bit for bit.
"""
from __future__ import annotations

import heapq
import math

from graphcell_ir.errors import ShapeError
from graphcell_ir.ir.builder import INLINE_CONST_LIMIT
from graphcell_ir.ir.core import Block, Function, Literal, Op, OpResult, Region, Value
from graphcell_ir.ir.structural import CONST, FUSED, YIELD, StructuralOpDef
from graphcell_ir.ir.types import ScalarType, TensorType
from graphcell_ir.ir.walk import Cloner
from graphcell_ir.ops.registry import Kind, Trait
from graphcell_ir.ops.shape_rules import broadcast_shapes, normalize_axes
from graphcell_ir.passes.support import ancestor_in, has_effect, per_function

FUSIBLE_KINDS = (Kind.ELEMENTWISE, Kind.REDUCTION)


@per_function
def fuse(fn: Function) -> bool:
    """See the module docstring."""
    return _fuse_blocks(fn.body)


def _fuse_blocks(block: Block) -> bool:
    changed = False
    for op in block.ops:
        if op.opdef is not FUSED:
            for r in op.regions:
                changed |= _fuse_blocks(r.block)
    return fuse_block(block) or changed


def fusible(op: Op) -> bool:
    """An op that may join a fusion group (see the module docstring)."""
    d = op.opdef
    if isinstance(d, StructuralOpDef) or d.kind not in FUSIBLE_KINDS or d.has(Trait.RANDOM):
        return False
    if op.regions or not op.results:
        return False
    if not all(isinstance(r.type, TensorType) for r in op.results):
        return False
    return all(isinstance(v, Literal) or isinstance(v.type, (TensorType, ScalarType))
               for v in op.operands)


def inlinable_const(v: Value) -> bool:
    """A small inline ``const``, or the result of a fusible op that reads nothing (``fill``):
    copied into every fused body that reads it instead of being an input."""
    if not isinstance(v, OpResult):
        return False
    if v.op.opdef is CONST:
        return "value" in v.op.attrs and v.op.attrs["value"].size <= INLINE_CONST_LIMIT
    return _reads_nothing(v.op)


def _reads_nothing(op: Op) -> bool:
    return not op.operands and fusible(op)


# --- grouping ----------------------------------------------------------------------------------

class _Groups:
    """Union-find over the fusible ops of one block, with what each group needs for the rules."""

    def __init__(self, block: Block):
        self.block = block
        self.ops = [op for op in block]
        self.pos = {op: i for i, op in enumerate(self.ops)}
        self.segment = _segments(self.ops)
        self.parent: dict[Op, Op] = {}
        self.members: dict[Op, list[Op]] = {}
        for op in self.ops:
            if fusible(op) and not _reads_nothing(op):   # those are copied into each group
                self.parent[op] = op
                self.members[op] = [op]

    def find(self, op: Op) -> Op:
        root = op
        while self.parent[root] is not root:
            root = self.parent[root]
        while self.parent[op] is not root:  # path compression
            self.parent[op], op = root, self.parent[op]
        return root

    def group_of(self, op: Op) -> list[Op]:
        return self.members[self.find(op)]

    def try_merge(self, producer: Op, consumer: Op) -> None:
        a, b = self.find(producer), self.find(consumer)
        if a is b or not self._may_merge(producer, consumer, a, b):
            return
        if len(self.members[a]) < len(self.members[b]):
            a, b = b, a
        self.parent[b] = a
        self.members[a] += self.members.pop(b)

    def _may_merge(self, producer: Op, consumer: Op, a: Op, b: Op) -> bool:
        if self.segment[producer] != self.segment[consumer]:
            return False  # an effect lies between them
        if _is_reduction(producer):
            return False  # a reduction ends its group
        if _bridges(producer, self.members[a], self.members[b]):
            return False
        merged = self.members[a] + self.members[b]
        if not _reductions_agree(merged) or _domain(merged) is None:
            return False
        if any(_is_reduction(op) and set(self._users(op)) & set(merged) for op in merged):
            return False  # a reduction's result would be read inside its own kernel
        return not self._leaves_and_returns(set(merged), max(self.pos[op] for op in merged))

    def _leaves_and_returns(self, group: set, last: int) -> bool:
        """Whether some path goes from ``group`` through an op outside it back into it. Only
        ops before ``last`` can lead back (groups so far hold only ops up to ``last``)."""
        stack = [u for op in group for u in self._users(op) if u not in group]
        seen: set[Op] = set()
        while stack:
            op = stack.pop()
            if op in seen or self.pos[op] > last:
                continue
            seen.add(op)
            if op in group:
                return True
            # another group becomes one op: leaving from any of its members counts
            for member in (self.group_of(op) if op in self.parent else [op]):
                seen.add(member)
                stack.extend(self._users(member))
        return False

    def _users(self, op: Op) -> list[Op]:
        out = []
        for r in op.results:
            for user in r.uses:
                a = ancestor_in(self.block, user)
                if a is not None:
                    out.append(a)
        return out

    def groups(self) -> list[list[Op]]:
        """Groups worth fusing (more than one op), each in program order."""
        out = [sorted(ms, key=self.pos.__getitem__) for ms in self.members.values()
               if len(ms) > 1]
        return sorted(out, key=lambda ms: self.pos[ms[0]])


def _is_reduction(op: Op) -> bool:
    return op.opdef.kind is Kind.REDUCTION


def _reductions_agree(ops: list[Op]) -> bool:
    """Whether the reductions among ``ops`` may share a kernel: they reduce the same axes of
    inputs of one shape, so one loop nest accumulates all of them while it reads the inputs
    once (batch norm's gradient: the sums of ``dy`` and of ``dy * x_hat`` in one pass)."""
    seen = set()
    for op in ops:
        if _is_reduction(op):
            shape = tuple(getattr(op.operands[0].type, "shape", ()))
            seen.add((shape, normalize_axes(op.attrs.get("axis"), len(shape))))
    return len(seen) <= 1


def _bridges(producer: Op, *groups: list[Op]) -> bool:
    """Whether merging would join two groups of larger domains through ``producer``'s value of
    one element (see the module docstring)."""
    if any(math.prod(r.type.shape) != 1 for r in producer.results):
        return False
    return all(any(math.prod(s) > 1 for s in _shapes(g)) for g in groups)


def deferred_write(op: Op) -> bool:
    """An op whose only effect is a Parameter's new value, written back after the call
    (``assign``): pure ops may move across it (see the module docstring)."""
    d = op.opdef
    return bool(getattr(d, "mutates", ())) and not op.regions and not d.has(Trait.RANDOM) \
        and not d.has(Trait.EXTERNAL)


def _read_through_writes(block: Block) -> bool:
    """Fusible ops of ``block`` that read a deferred write's result (``assign(variable, value)``
    returns ``value``) read ``value`` itself when its type is the result's; whether any did."""
    changed = False
    for op in block.ops:
        if not deferred_write(op) or len(op.operands) != 2 or len(op.results) != 1:
            continue
        (result,), value = op.results, op.operands[1]
        if isinstance(value, Literal) or value.type != result.type:
            continue
        readers = [u for u in result.uses if u.parent is block and fusible(u)]
        if readers:
            result.replace_all_uses_with(value, where=lambda user: user in readers)
            changed = True
    return changed


def _segments(ops: list[Op]) -> dict[Op, int]:
    """Segment number of each op; an op with an effect closes its segment, except a deferred
    write."""
    seg, out = 0, {}
    for op in ops:
        out[op] = seg
        if has_effect(op) and not deferred_write(op):
            seg += 1
    return out


def _shapes(ops: list[Op]) -> list[tuple[int, ...]]:
    """The shapes a group's iteration space must cover: its elementwise results, its
    reduction's inputs."""
    shapes = []
    for op in ops:
        if _is_reduction(op):
            shapes.extend(v.type.shape for v in op.operands if isinstance(v.type, TensorType))
        else:
            shapes.extend(r.type.shape for r in op.results)
    return shapes


def _domain(ops: list[Op]) -> tuple[int, ...] | None:
    """The group's iteration shape, or None when its shapes do not share one."""
    shapes = _shapes(ops)
    try:
        full = broadcast_shapes(*shapes)
    except ShapeError:
        return None
    return full if full in shapes else None


def fuse_block(block: Block) -> bool:
    """Fuse the ops of ``block`` (not of its regions); whether anything changed."""
    read_through = _read_through_writes(block)
    groups = _Groups(block)
    if len(groups.parent) < 2:
        return read_through
    for op in groups.ops:
        if op not in groups.parent:
            continue
        for v in op.operands:
            if isinstance(v, OpResult) and v.op in groups.parent:
                groups.try_merge(v.op, op)
    found = groups.groups()
    if not found:
        return read_through
    order_key = {op: (groups.segment[op], groups.pos[op]) for op in groups.ops}
    copied_consts: list[Op] = []
    for members in found:
        fused, consts = build_fused(members)
        order_key[fused] = order_key[members[0]]
        copied_consts += consts
        for op in reversed(members):
            op.erase()
    for c in copied_consts:  # a constant now only lives in the kernels that use it
        if c.parent is not None and not c.results[0].uses:
            c.erase()
    _reorder(block, order_key)
    return True


# --- building the fused op ---------------------------------------------------------------------

def build_fused(members: list[Op]) -> tuple[Op, list[Op]]:
    """Make the ``fused`` op for ``members`` (in program order), insert it before the first one
    and point every outside use of their results at it. Returns it and the constants copied into
    its body; the members are left, unused, for the caller to erase."""
    inside = set(members)
    inputs: list[Value] = []
    consts: list[Op] = []
    for op in members:
        for v in op.operands:
            if isinstance(v, Literal) or (isinstance(v, OpResult) and v.op in inside):
                continue
            if inlinable_const(v):
                if v.op not in consts:
                    consts.append(v.op)
            elif v not in inputs:
                inputs.append(v)
    outputs = [r for op in members for r in op.results
               if any(user not in inside for user in r.uses)]
    body = Block([v.type for v in inputs], [v.name_hint for v in inputs])
    cloner = Cloner(dict(zip(inputs, body.args)))
    for op in consts + members:
        body.append(cloner.op(op))
    loc = members[-1].loc
    body.append(Op(YIELD, [cloner.vmap[r] for r in outputs], (), None, (), loc))
    fused = Op(FUSED, inputs, [r.type for r in outputs], None, (Region(body),), loc)
    members[0].parent.insert_before(members[0], fused)
    for r, new in zip(outputs, fused.results):
        new.name_hint = r.name_hint
        r.replace_all_uses_with(new, where=lambda user: user not in inside)
    return fused, consts


# --- putting the block back in order -----------------------------------------------------------

def _reorder(block: Block, key: dict) -> None:
    """Sort ``block`` topologically, taking among the ready ops the one with the smallest
    ``key`` (segment, original position): the original order wherever it is still valid, and
    never an op moved into another segment (across an effect). Each effect also waits for the
    one before it, so the deferred writes sharing a segment keep their order. The terminator
    stays last."""
    term = block.terminator
    ops = [op for op in block if op is not term]
    index = {op: i for i, op in enumerate(ops)}
    waiting = {op: 0 for op in ops}
    users: dict[Op, list[Op]] = {op: [] for op in ops}
    for op in ops:
        for producer in {ancestor_in(block, v.op) for v in _values_read(op)
                         if isinstance(v, OpResult)}:
            if producer in index and producer is not op:
                waiting[op] += 1
                users[producer].append(op)
    effects = [op for op in ops if has_effect(op)]
    for before, after in zip(effects, effects[1:]):
        waiting[after] += 1
        users[before].append(after)
    ready = [(key[op], index[op], op) for op in ops if not waiting[op]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, _, op = heapq.heappop(ready)
        order.append(op)
        for user in users[op]:
            waiting[user] -= 1
            if not waiting[user]:
                heapq.heappush(ready, (key[user], index[user], user))
    assert len(order) == len(ops), "fusion made a cycle"
    if order == ops:
        return
    for op in order:
        op.detach()
        if term is None:
            block.append(op)
        else:
            block.insert_before(term, op)


def _values_read(op: Op):
    """The operands of ``op`` and of every op in its regions (values they capture)."""
    yield from op.operands
    for r in op.regions:
        for inner in r.block:
            yield from _values_read(inner)

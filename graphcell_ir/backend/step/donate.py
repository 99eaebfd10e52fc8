"""Which updates of a native step are written into their variable's own buffer (in place).

A train step ends with ``assign(p, v)`` for every Parameter and optimizer state it updates; the
caller (graphcell's executor) writes ``p``'s new value back after the call. When the caller
*donates* ``p``'s array (it holds nothing else that must keep the old value), the kernel computing
``v`` may write straight into ``p``'s bytes: no fresh array per call, no stream of writes to
memory not in the cache. :func:`updates_in_place` says which ``v`` may, by these rules (each
makes the in-place write give the bits a fresh buffer gives):

- **one update**: ``p`` is assigned once, and ``v`` (of ``p``'s type) is assigned to nothing
  else;
- **an elementwise map that reads ``p``**: ``v`` is a result of a fused group of elementwise
  ops (no reduction) or of a lone elementwise op, ``p`` one of its operands as it is (not a
  view), read at the index the result is written at (``p`` has the result's shape, which is
  the group's domain), and ``v`` depends on it. The kernel then loads ``p[i]`` before it stores
  ``v[i]`` (the store needs the load's value), each element once, so the kernel's ``noalias``
  (which lets LLVM move a load below a store to another pointer) cannot reorder the two, and
  no other index aliases;
- **every read of the old value first**: every other op reading ``p`` or a view of it (a
  reshape, a ``depend``) comes before ``v``'s op, and ``return`` does not give ``p`` back;
- **nothing can fail after**: ``v``'s op comes after ``after`` (the step's last op that may
  decline the call: an op run in Python, a label check), so a call the step declines has
  written nothing into its arguments, and the Python runner reruns it from the same values.

At run time the step's first segment declines a call whose argument an update is written into
is read-only or shares bytes with another argument (:func:`check_apart`).

Example::

    >>> from graphcell_ir.text import parse_module
    >>> fn = parse_module('''
    ... func @f(%p: f32[4], %g: f32[4]) -> f32[4] {
    ...   %v = sub(%p, %g) : f32[4]
    ...   %r = assign(%p, %v) : f32[4]
    ...   return %r
    ... }''')["f"]
    >>> into = updates_in_place(fn, {fn.args[0]})
    >>> sorted(v.name_hint for v in into), set(into.values()) == {fn.args[0]}
    (['r', 'v'], True)
"""
from __future__ import annotations

from typing import Callable

from graphcell_ir.backend.step.plan import nbytes
from graphcell_ir.ir.core import Function, Literal, Op, Value
from graphcell_ir.ir.structural import CONST, FUSED
from graphcell_ir.ops.effects import assign
from graphcell_ir.ops.registry import Kind

__all__ = ["updates_in_place", "check_apart"]

_WRITEABLE = 0x0400
"""numpy's NPY_ARRAY_WRITEABLE flag."""


def updates_in_place(fn: Function, donated, *, after: int = -1,
                     views: Callable[[Op], int | None] = lambda op: None) -> dict[Value, Value]:
    """``{value: argument}`` for the values of ``fn``'s body written into a donated argument's
    bytes (see the module docstring): each update's new value and its ``assign``'s result.
    ``donated``: the arguments whose arrays the caller gives up; ``after``: the index of the
    body's last op that may fail (none written in place at or before it); ``views(op)``: the
    operand whose buffer ``op``'s result is (the plan's)."""
    ops = [op for op in fn.body if not op.is_terminator]
    index = {op: n for n, op in enumerate(ops)}
    returned = set(fn.body.terminator.operands) if fn.body.terminator is not None else set()
    aliases = _views(ops, views)
    into: dict[Value, Value] = {}
    taken: set[Value] = set()
    for p in fn.args:
        if p not in donated:
            continue
        update = _the_update(p)
        if update is None:
            continue
        v, r = update.operands[1], update.results[0]
        if isinstance(v, Literal) or v in taken or v.type != p.type or r.type != p.type:
            continue
        producer = getattr(v, "op", None)
        if producer not in index or index[producer] <= after or \
                not _reads_same_index(producer, p, v):
            continue
        readers = [u for a in aliases.get(p, [p]) for u in a.uses if u is not update]
        if any(a in returned for a in aliases.get(p, [p])) or \
                any(u is not producer and index.get(u, len(ops)) >= index[producer]
                    for u in readers) or \
                any(u is producer and a is not p for a in aliases.get(p, [p])
                    for u in a.uses):
            continue
        into[v] = into[r] = p
        taken.add(v)
    return into


def _the_update(p: Value) -> Op | None:
    """The one ``assign`` writing ``p``, or None (none, or several)."""
    writes = [u for u in p.uses if u.opdef is assign and u.operands[0] is p]
    return writes[0] if len(writes) == 1 and p.uses.get(writes[0]) == 1 else None


def _views(ops: list[Op], views) -> dict[Value, list[Value]]:
    """Each value -> itself and every value that is a view of it (transitively)."""
    out: dict[Value, list[Value]] = {}
    root: dict[Value, Value] = {}
    for op in ops:
        i = views(op)
        if i is None or isinstance(op.operands[i], Literal):
            continue
        src = op.operands[i]
        base = root.get(src, src)
        root[op.results[0]] = base
        out.setdefault(base, [base]).append(op.results[0])
    return out


def _reads_same_index(op: Op, p: Value, v: Value) -> bool:
    """Whether ``op`` (computing ``v``) is an elementwise map over ``v``'s shape that reads
    operand ``p`` only as an operand of its own (``p`` of ``v``'s shape: the element ``v`` is
    written at), and ``v`` depends on that read."""
    if p.type.shape != v.type.shape:
        return False
    if op.opdef is FUSED:
        block = op.regions[0].block
        body = [o for o in block if not o.is_terminator]
        if any(o.opdef is not CONST and o.opdef.kind is not Kind.ELEMENTWISE or o.regions
               for o in body):
            return False
        # the loop runs over the largest shape: a smaller result (a one-element one) is
        # written at every index, and would read back what it wrote
        if any(getattr(r.type, "size", 0) > v.type.size for o in body for r in o.results):
            return False
        reads = {block.args[i] for i, x in enumerate(op.operands) if x is p}
        out = block.terminator.operands[op.results.index(v)]
        return bool(reads) and _depends(out, reads)
    return (op.opdef.kind is Kind.ELEMENTWISE and not op.regions and p in op.operands
            and len(op.results) == 1
            and all(getattr(x.type, "size", 1) <= v.type.size for x in op.operands))


def _depends(value: Value, on: set) -> bool:
    """Whether ``value`` is computed (within its block) from one of ``on``."""
    seen, todo = set(), [value]
    while todo:
        x = todo.pop()
        if x in on:
            return True
        producer = getattr(x, "op", None)
        if producer is None or x in seen:
            continue
        seen.add(x)
        todo.extend(o for o in producer.operands if not isinstance(o, Literal))
    return False


def check_apart(e, layout, bad) -> None:
    """Emit, in emitter ``e``'s first segment, a jump to ``bad`` (MISMATCH: the Python runner,
    writing fresh arrays, runs the call) unless every argument an update is written into
    (``e.into``) is writeable and shares no byte with another argument (the same array passed
    twice, a view of it): the in-place write would change what another operand reads. A loop
    over the pairs (a few nanoseconds each), not straight-line code: ResNet-18's step has ~190
    arguments. ``layout``: numpy's array struct (``abi.array_layout``)."""
    targets = sorted({e.arg_index[a] for a in e.into.values()})
    if not targets:
        return
    ir, b, i64 = e.ir, e.b, e.i64
    n = len(e.fn.args)
    lo, hi = b.alloca(ir.ArrayType(i64, n)), b.alloca(ir.ArrayType(i64, n))
    for j, (arg, a) in enumerate(zip(e.objects, e.fn.args)):
        start = b.ptrtoint(e.field(arg, layout.data, e.ptr), i64)
        b.store(start, b.gep(lo, [i64(0), i64(j)]))
        b.store(b.add(start, i64(max(nbytes(a), 1))), b.gep(hi, [i64(0), i64(j)]))
    for t in targets:
        flags = e.field(e.objects[t], layout.flags, e.i32)
        e.branch_unless(b.icmp_unsigned("!=", b.and_(flags, e.i32(_WRITEABLE)), e.i32(0)), bad)
    table = ir.GlobalVariable(e.module, ir.ArrayType(i64, len(targets)), f"{e.symbol}_donated")
    table.initializer = ir.Constant(ir.ArrayType(i64, len(targets)), targets)
    table.global_constant = True

    def target(k):
        t = b.load(b.gep(table, [i64(0), k]), typ=i64)
        t_lo, t_hi = (b.load(b.gep(x, [i64(0), t]), typ=i64) for x in (lo, hi))

        def other(j):
            j_lo, j_hi = (b.load(b.gep(x, [i64(0), j]), typ=i64) for x in (lo, hi))
            apart = b.or_(b.icmp_unsigned("<=", t_hi, j_lo), b.icmp_unsigned("<=", j_hi, t_lo))
            e.branch_unless(b.or_(apart, b.icmp_signed("==", j, t)), bad)
        e.loop(n, other)
    e.loop(len(targets), target)

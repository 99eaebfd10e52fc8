"""Small IR helpers the passes share: effects, constants, replacing values, counting.

Nothing here changes the IR on its own initiative; each helper does one mechanical job that
several passes need, so that every pass reads as its own algorithm. (Some would sit well in
``graphcell_ir/ir/walk.py``; they live here so the passes do not edit the IR core.)

- Effects: ``has_effect(op)`` — a side effect (``Kind.SIDE_EFFECT``), a draw from the random
  generator (``Trait.RANDOM``: dropping or reordering one changes the masks every later random op
  draws), or a region or callee that holds one. Passes never remove, merge or reorder such ops.
- Constants: ``constant_value(v)`` — the Python scalar of a literal or the array of a ``const``.
- ``replace_value(old, new)``: every use of ``old`` becomes ``new`` (a fresh literal per use).
- ``count_ops(target)``: the op count a ``PassReport`` shows.
- ``per_function(pass_fn)``: lift ``fn(Function) -> bool`` to ``fn(Module | Function) -> bool``.
"""
from __future__ import annotations

import functools
from typing import Callable, Iterator

import numpy as np

from graphcell_ir.ir.core import Block, Function, Literal, Module, Op, OpResult, Value
from graphcell_ir.ir.structural import CALL, CONST, FUSED, YIELD, const_array
from graphcell_ir.ops.registry import AttrKind, Kind, Trait

PassFn = Callable[[Module | Function], bool]


def per_function(pass_fn: Callable[[Function], bool]) -> PassFn:
    """``pass_fn`` on one Function, or on every function of a Module (changed if any changed)."""
    @functools.wraps(pass_fn)
    def run(target: Module | Function) -> bool:
        if isinstance(target, Function):
            return bool(pass_fn(target))
        changed = False
        for fn in target:
            changed |= bool(pass_fn(fn))
        return changed
    return run


# --- effects -----------------------------------------------------------------------------------

def has_effect(op: Op) -> bool:
    """Whether running ``op`` does more than compute its results (see the module docstring)."""
    return _has_effect(op, set())


def _has_effect(op: Op, visiting: set) -> bool:
    d = op.opdef
    if op.is_terminator:
        return False  # yield/return hand values back; they are kept by construction
    if d.kind is Kind.SIDE_EFFECT or d.has(Trait.RANDOM):
        return True
    if d is CALL:
        callee = _callee(op)
        if callee is None or callee in visiting:
            return True  # unknown or recursive: assume the worst
        visiting.add(callee)
        return any(_has_effect(inner, visiting) for inner in _walk_block(callee.body))
    return any(_has_effect(inner, visiting) for r in op.regions for inner in _walk_block(r.block))


def _callee(op: Op) -> Function | None:
    fn = op.function
    return fn.module.get(op.attrs["callee"]) if fn is not None and fn.module is not None else None


def _walk_block(block: Block) -> Iterator[Op]:
    for op in block:
        yield op
        for r in op.regions:
            yield from _walk_block(r.block)


def keeps_effect_alive(x: Op | Block) -> bool:
    """Whether op (or block) ``x`` holds the last uses of the result of a side-effecting op
    outside it (the verifier requires such results to be used, so erasing ``x`` would lose the
    effect)."""
    if isinstance(x, Block):
        ops = list(_walk_block(x))
    else:
        ops = [x, *(inner for r in x.regions for inner in _walk_block(r.block))]
    for inner in ops:
        for v in inner.operands:
            if isinstance(v, OpResult) and v.op.opdef.kind is Kind.SIDE_EFFECT \
                    and not within(v.op, x) and all(within(u, x) for u in v.uses):
                return True
    return False


def within(op: Op, x: Op | Block) -> bool:
    """Whether ``op`` is op ``x`` or nested in it, or sits in block ``x`` or nested in it."""
    while op is not None:
        if op is x or op.parent is x:
            return True
        op = op.parent_op
    return False


def is_removable(op: Op) -> bool:
    """An op that may be erased once its results are unused."""
    return not op.is_terminator and not has_effect(op) and not keeps_effect_alive(op)


def has_host_callback(op: Op) -> bool:
    """Whether ``op`` carries an opaque Python object (a user hook), which must not run while
    compiling."""
    return any(a.kind is AttrKind.ANY and op.attrs.get(a.name) is not None
               for a in op.opdef.attrs)


# --- constants ---------------------------------------------------------------------------------

NOT_CONSTANT = object()
"""What ``constant_value`` gives for a value not known while compiling."""


def constant_value(v: Value):
    """The compile-time value of ``v``: a literal's Python scalar (or None), a ``const`` op's
    array; ``NOT_CONSTANT`` otherwise (also for a ``const`` whose table entry is not loaded)."""
    if isinstance(v, Literal):
        return v.value
    if isinstance(v, OpResult) and v.op.opdef is CONST:
        arr = const_array(v.op)
        return NOT_CONSTANT if arr is None else arr
    return NOT_CONSTANT


def splat_value(v: Value):
    """The one value every element of constant ``v`` holds (a numpy scalar), else NOT_CONSTANT."""
    c = constant_value(v)
    if c is NOT_CONSTANT or c is None:
        return NOT_CONSTANT
    arr = np.asarray(c)
    if arr.size == 0:
        return NOT_CONSTANT
    first = arr.reshape(-1)[0]
    same = arr == first
    if arr.dtype.kind == "f":  # -0.0 == 0.0 numerically, but the rules care about the sign
        same &= np.signbit(arr) == np.signbit(first)
    return first if bool(np.all(same)) else NOT_CONSTANT


# --- rewiring ----------------------------------------------------------------------------------

def replace_value(old: Value, new: Value) -> None:
    """Make every use of ``old`` a use of ``new``; a literal is copied for each use site, as
    literals are per use."""
    if not isinstance(new, Literal):
        old.replace_all_uses_with(new)
        return
    for user in list(old.uses):
        user.set_operands([Literal(new.value, new.type) if v is old else v
                           for v in user.operands])


def ancestor_in(block: Block, op: Op) -> Op | None:
    """``op`` itself if it is in ``block``, else the op of ``block`` whose regions hold it."""
    while op is not None and op.parent is not block:
        op = op.parent_op
    return op


def rebuild_with_results(op: Op, keep: list[int]) -> Op:
    """Replace region-holding ``op`` by a copy with only the results numbered ``keep`` (the caller
    has already dropped the other yielded values); regions move over, uses are rewired."""
    regions = list(op.regions)
    for r in regions:
        r.parent = None
    op.regions = ()
    new = Op(op.opdef, op.operands, [op.results[i].type for i in keep], dict(op.attrs),
             regions, op.loc)
    op.parent.insert_before(op, new)
    for j, i in enumerate(keep):
        new.results[j].name_hint = op.results[i].name_hint
        op.results[i].replace_all_uses_with(new.results[j])
    op.erase()
    return new


def drop_yielded(block: Block, keep: list[int]) -> None:
    """Keep only the operands numbered ``keep`` of the yield ending ``block``."""
    term = block.terminator
    assert term is not None and term.opdef is YIELD
    term.set_operands([term.operands[i] for i in keep])


# --- counting ----------------------------------------------------------------------------------

def count_ops(target: Module | Function | Block) -> int:
    """Ops but terminators, at every depth; a ``fused`` op counts as one (its body is one
    kernel), so the count after fusion reads as the number of things the backend launches."""
    if isinstance(target, Module):
        return sum(count_ops(fn) for fn in target)
    block = target.body if isinstance(target, Function) else target
    n = 0
    for op in block:
        if op.is_terminator:
            continue
        n += 1
        if op.opdef is not FUSED:
            n += sum(count_ops(r.block) for r in op.regions)
    return n

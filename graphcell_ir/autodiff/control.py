"""The backward of ``if`` and ``while`` (the forward side is in ``replay.py``).

``if``::

    %y = if(%c) { A; yield %a } else { B; yield %b }
    -- backward, given dy --
    %dx... = if(%c) { replay A; backward of A from dy; yield cotangents of A's captures }
             else   { replay B; backward of B from dy; yield cotangents of B's captures }

The branches yield the union of the captures (values from outside) either backward reached, a
zero ``fill`` standing in where one branch did not reach a capture.

``while`` (the forward copy counted ``trip`` iterations and stacked entry values, see
``replay.py``)::

    %k, %dv..., %dcap... = while(%trip, dy..., zeros...) cond(%k, ...) { yield k > 0 } do(...) {
      %k1 = sub(%k, 1)
      entry values of iteration k1 = if (k1 < capacity) { take from the stacks }
                                     else { recompute from the last stacked slot }
      replay the body on them; backward of the body from dv
      yield %k1, cotangents of the body's arguments, dcap + cotangents of its captures
    }

``dv`` flows to the loop's initial values, ``dcap`` to the values the body captures. Only the
carried values that are active get a cotangent slot. A counted loop (``analysis.trip_count``)
has a slot per iteration and reads them directly. Past the capacity the entry values are
recomputed by running the body forward from the last stacked slot (exact, quadratic in the
overflow); for a body with random or side-effecting ops that is impossible, and the overflowing
iterations give NaN gradients instead (there is no runtime error op to raise with).
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.ir.core import Block, Literal, Op, Region, Value
from graphcell_ir.ir.structural import IF, WHILE
from graphcell_ir.ir.types import TensorType, Type
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import lookup
from graphcell_ir.autodiff.cotangent import accumulate, materialize_as
from graphcell_ir.autodiff.replay import Tape, WhileSaves, load


def _seed(bw, block: Block, positions, douts, ct: dict) -> None:
    """Cotangents ``douts`` on the values ``block`` yields at ``positions``."""
    yields = block.terminator.operands
    for i, d in zip(positions, douts):
        y = yields[i]
        if d is not None and not isinstance(y, Literal) and y in bw.active:
            accumulate(bw.b, ct, y, d)


def _join_type(key: Value, cts) -> Type:
    """The type a cotangent of ``key`` crossing a region boundary takes: what the rules gave
    when they agree (integer inputs may get float gradients, as in PyNative), else key's."""
    types = {g.type for g in cts if isinstance(g, Value)}
    return types.pop() if len(types) == 1 and isinstance(key.type, TensorType) else key.type


# --- if ----------------------------------------------------------------------------------------

def backward_if(bw, op: Op, exports: dict, tape: Tape, douts: list, ct: dict) -> None:
    b = bw.b
    new = Op(IF, (tape.new(op.operands[0]),), (), None, (Region(), Region()), b.loc)
    saved = {**tape.saved, **exports}
    branch_cts = []
    for src, dst in zip(op.regions, new.regions):
        bct: dict = {}
        with b.insertion_point(dst.block):
            sub = bw.replayer.block(src.block, tape.vmap.new_child(), saved, tape=True)
            _seed(bw, src.block, range(len(douts)), douts, bct)
            bw.block(sub, bct)
        branch_cts.append(bct)
    keys = list(dict.fromkeys([*branch_cts[0], *branch_cts[1]]))
    types = [_join_type(k, [c.get(k) for c in branch_cts]) for k in keys]
    for dst, bct in zip(new.regions, branch_cts):
        with b.insertion_point(dst.block):
            b.yield_(*[materialize_as(b, bct.get(k), t) for k, t in zip(keys, types)])
    new.set_result_types(types)
    b.insert(new)
    for k, r in zip(keys, new.results):
        accumulate(b, ct, k, r)


# --- while -------------------------------------------------------------------------------------

def backward_while(bw, op: Op, saves: WhileSaves, tape: Tape, douts: list, ct: dict) -> None:
    b = bw.b
    carried = [i for i, r in enumerate(op.results) if r in bw.active]
    inits = [saves.trip, *[materialize_as(b, douts[i], op.results[i].type) for i in carried]]
    types = [v.type for v in inits]
    new = Op(WHILE, inits, (), None, (Region(Block(types)), Region(Block(types))), b.loc)
    cond_block, body_block = (r.block for r in new.regions)
    for blk in (cond_block, body_block):
        blk.args[0].name_hint = "k"
    with b.insertion_point(cond_block):
        b.yield_(F.greater(cond_block.args[0], 0))
    first, captured = _backward_body(bw, op, saves, tape, body_block, carried)
    products = {k: g for k, g in captured.items() if _stackable_product(g, saves, body_block)}
    keys = [k for k in captured if k not in products]
    acc_types = [_join_type(k, [captured[k]]) for k in keys]
    factors = [v for g in products.values() for v in g.op.operands]
    stack_types = [TensorType(v.type.dtype, (saves.capacity, *v.type.shape)) for v in factors]
    with b.insertion_point(body_block):
        accs = [body_block.add_arg(t) for t in acc_types]
        stacks = [body_block.add_arg(t) for t in stack_types]
        for t in acc_types + stack_types:
            cond_block.add_arg(t)
        nexts = [_accumulate(a, materialize_as(b, captured[k], t)) for a, k, t in
                 zip(accs, keys, acc_types)]
        rows = [F.scatter_update(s, first[0], v, axis=0) for s, v in zip(stacks, factors)]
        b.yield_(*first, *nexts, *rows)
    new.set_operands([*new.operands, *[materialize_as(b, None, t) for t in acc_types],
                      *[materialize_as(b, None, t) for t in stack_types]])
    new.set_result_types(types + acc_types + stack_types)
    b.insert(new)
    for pos, i in enumerate(carried):
        v = op.operands[i]
        if not isinstance(v, Literal) and v in bw.active:
            accumulate(b, ct, v, new.results[1 + pos])
    results = new.results[1 + len(carried):]
    for k, r in zip(keys, results):
        accumulate(b, ct, k, r)
    filled = iter(results[len(keys):])
    for k, g in products.items():
        accumulate(b, ct, k, _product_of_stacks(g, next(filled), next(filled)))


STACKED_PRODUCT_MAX = 1 << 24
"""Elements (both factors, every iteration) up to which a capture's per-iteration product is
stacked and contracted once after the loop (64 MB in float32)."""


def _stackable_product(g, saves: WhileSaves, body: Block) -> bool:
    """Whether a capture's per-iteration cotangent ``g`` is ``a^T b`` (``matmul`` with
    ``transpose_a``, both 2-D: the gradient of a weight multiplied by a per-step value) made in
    the body of a counted loop. Summed over the iterations, it is one product of the stacked
    factors: ``A^T B`` with ``A``, ``B`` the iterations' rows one after the other. Stacking two
    rows per iteration and one GEMM after the loop replaces an outer product and an add of the
    whole weight per iteration (a recurrent layer's ``W_hh``: 400x100 per step)."""
    op = getattr(g, "op", None)
    if not saves.counted or op is None or op.opdef is not _MATMUL or op.parent is not body:
        return False
    if not op.attrs.get("transpose_a") or op.attrs.get("transpose_b"):
        return False
    a, bb = op.operands
    if any(not isinstance(v.type, TensorType) or len(v.type.shape) != 2 for v in (a, bb)):
        return False
    size = saves.capacity * (_numel(a.type) + _numel(bb.type))
    return len(g.uses) == 0 and size <= STACKED_PRODUCT_MAX


def _numel(t: TensorType) -> int:
    return int(np.prod(t.shape, dtype=np.int64))


def _product_of_stacks(g: Value, sa: Value, sb: Value) -> Value:
    """``sum_k a_k^T b_k`` as one ``matmul`` of the stacks ``sa`` (k, r, m), ``sb`` (k, r, n)."""
    (_, r, m), n = sa.type.shape, sb.type.shape[2]
    rows = sa.type.shape[0] * r
    return F.matmul(F.reshape(sa, shape=(rows, m)), F.reshape(sb, shape=(rows, n)),
                    transpose_a=True, transpose_b=False)


def _accumulate(acc: Value, g: Value) -> Value:
    """``acc + g``, the cotangent of a capture summed over the iterations. When ``g`` is rows
    scattered into zeros (``take``'s rule: a scan reading row k of its input), the rows are
    added into ``acc`` instead, so an iteration costs its rows, not the whole capture (the
    executable updates a loop-carried accumulator in place). The sum is the same but for the
    sign of zeros the rows do not touch."""
    op = getattr(g, "op", None)
    if op is not None and op.opdef is _SCATTER_ADD and g.type == acc.type:
        zeros = getattr(op.operands[0], "op", None)
        if zeros is not None and zeros.opdef is _FILL and zeros.attrs.get("value") == 0:
            return F.scatter_add(acc, op.operands[1], op.operands[2], **op.attrs)
    return F.add(acc, g)


_SCATTER_ADD, _FILL, _MATMUL = lookup("scatter_add"), lookup("fill"), lookup("matmul")


def _backward_body(bw, op: Op, saves: WhileSaves, tape: Tape, dst: Block, carried):
    """Fill the backward loop's body but its yield. Returns what the yield starts with (the
    counter and the carried cotangents) and the captures' cotangents of one iteration."""
    b = bw.b
    body = op.regions[1].block
    k, cts = dst.args[0], dst.args[1:]
    bct: dict = {}
    with b.insertion_point(dst):
        k1 = F.sub(k, 1)
        entry, exported = _entry_values(bw, op, saves, tape, k1)
        sub = bw.replayer.block(body, tape.vmap.new_child(entry), {**tape.saved, **exported},
                                tape=True, only=saves.needed)
        _seed(bw, body, carried, cts, bct)
        bw.block(sub, bct)
        nexts = [materialize_as(b, bct.pop(body.args[i], None), op.results[i].type)
                 for i in carried]
    for a in body.args:
        bct.pop(a, None)  # cotangents of inactive carried values: nowhere to go
    return [k1, *nexts], bct


def _entry_values(bw, op: Op, saves: WhileSaves, tape: Tape, k1: Value):
    """The body's arguments at the entry of iteration ``k1`` and its saved must-save values:
    read from the stacks below the capacity, recomputed (or NaN) above it."""
    b = bw.b
    body = op.regions[1].block
    keys = [body.args[i] for i in saves.stacks] + list(saves.exports)
    stacks = list(saves.stacks.values()) + list(saves.exports.values())
    if not keys:
        return {}, {}
    cap = saves.capacity

    def stored():
        index = F.reshape(k1, shape=(1,))
        return [load(s, index) for s in stacks]

    def overflow():
        if saves.exports:
            return [_poison(k.type) for k in keys]
        return _recompute(bw, op, saves, tape, k1)

    values = stored() if saves.counted else b.if_(F.less(k1, cap), stored, overflow)
    n = len(saves.stacks)
    return dict(zip(keys[:n], values[:n])), dict(zip(keys[n:], values[n:]))


def _poison(t: TensorType) -> Value:
    return F.fill(dtype=t.dtype, shape=tuple(t.shape), value=float("nan") if t.dtype.is_float else 0)


def _recompute(bw, op: Op, saves: WhileSaves, tape: Tape, k1: Value) -> list:
    """Entry values of iteration ``k1 >= capacity``: run the body forward from the last slot."""
    b = bw.b
    body = op.regions[1].block
    used = list(saves.stacks)
    last = b.const(np.array([saves.capacity - 1], np.int64))
    start = [load(saves.stacks[i], last) for i in used]
    steps = F.sub(k1, saves.capacity - 1)

    def cond(j, *_):
        return F.less(j, steps)

    def step(j, *cur):
        vmap = tape.vmap.new_child(dict(zip([body.args[i] for i in used], cur)))
        sub = bw.replayer.block(body, vmap, tape.saved, tape=False, only=saves.needed)
        return [F.add(j, 1), *[sub.yields[i] for i in used]]

    zero = b.const(np.array(0, np.int64))
    return list(b.while_([zero, *start], cond, step)[1:])

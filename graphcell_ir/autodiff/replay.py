"""Copying primal ops into the gradient Function: the forward, and its replays in the backward.

The transform never edits the function it differentiates. It copies ("replays") the primal ops
into the new Function and records, per copied block, a :class:`Tape`: the original block, the map
from original to copied values, and what each control-flow op saved. The backward (``backward.py``)
then walks a tape in reverse and calls the registry's bprop rules on the copied values.

What is saved and what is recomputed — the memory/compute trade-off of this design:

- **Straight-line code** in the function body runs once; the backward uses its values directly.
- **``if``**: the forward copy is a plain ``if``. Its backward is an ``if`` on the same predicate
  whose branches *replay* the taken branch's ops and then run their backward, so no branch value
  outlives the forward and untaken branches cost nothing; the price is running the taken branch
  twice. (Yielding every branch value would trade that compute for memory plus zero-filled
  placeholders for the untaken branch, as JAX's ``cond`` does.)
- **``while``**: the forward copy carries an iteration counter and,
  for every carried value the backward needs (``analysis.loop_needs``: those computing the
  active carried values — not, say, a counter only the condition reads), a buffer of
  ``loop_capacity + 1`` slots into which each iteration writes its entry value
  (``scatter_update`` at slot ``min(k, capacity)``; slot ``capacity`` is scratch). Shapes stay
  static; memory is ``(capacity + 1) x`` those carried values, whatever the trip count. The
  backward loop runs the trip count down, reads iteration ``k``'s entry values back (``take``),
  replays the part of the body they feed and runs its backward. Iterations past the capacity
  are still exact: their entry values are recomputed from the last slot by running the body
  forward again (quadratic in the overflow), see ``control.py``. A *counted* loop (its trip
  count known while compiling, ``analysis.trip_count``: the loops of ``ops.ForiLoop``/``Scan``
  and of recurrent layers) gets exactly one slot per iteration instead, and no overflow path. Only tensors can be stacked: a
  Python scalar or a tuple the backward needs is an AutodiffError.
- **Ops that cannot be recomputed** (``Trait.RANDOM`` draws such as dropout masks, and
  ``Kind.SIDE_EFFECT`` ops such as ``assign``) are *exported* instead: an ``if`` yields their
  results as extra results (zeros from the other branch), a ``while`` stacks them per iteration
  next to its carried values, and replays use the saved values. Such ops inside a loop that is
  itself nested in a region are not supported (AutodiffError).

Replays mark every op's location as gradient code (``Loc.with_mark(GRAD)``); the forward copy
keeps the original locations.
"""
from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass, field

import numpy as np

from graphcell_ir.errors import AutodiffError
from graphcell_ir.ir.builder import Builder
from graphcell_ir.ir.core import Block, Literal, Op, Region, Value
from graphcell_ir.ir.loc import GRAD, Loc
from graphcell_ir.ir.structural import IF, WHILE
from graphcell_ir.ir.types import ScalarType, TensorType, TupleType
from graphcell_ir.ir.walk import Cloner, walk
from graphcell_ir.ops import functional as F
from graphcell_ir.autodiff.analysis import loop_needs, must_save, trip_count


def grad_loc(loc: Loc) -> Loc:
    """The location of gradient code for an op at ``loc`` (unknown stays unknown).

    >>> from graphcell_ir.ir.loc import UNKNOWN
    >>> str(grad_loc(Loc("net.py", 9, 4, ("Net.construct",)))), grad_loc(UNKNOWN) is UNKNOWN
    ('net.py:9:4 Net [grad]', True)
    """
    return loc.with_mark(GRAD) if loc.known else loc


@dataclass
class WhileSaves:
    """What the forward copy of a ``while`` kept for its backward."""

    trip: Value                      # i64[]: how many iterations ran
    stacks: dict[int, Value]         # carried index -> (slots, *shape) entry values
    exports: dict[Value, Value]      # original must-save value in the body -> its stack
    capacity: int
    needed: set                      # the body values the backward replays (analysis.loop_needs)
    counted: bool = False            # capacity is the loop's known trip count: no overflow


@dataclass
class Tape:
    """One copied block: the original, the value map, and per op what its copy saved."""

    block: Block
    vmap: ChainMap
    saved: dict                      # original must-save values -> their forward values in scope
    replayed: bool = True            # whether the backward may replay this block's ops
    steps: list = field(default_factory=list)      # (original op, if exports | WhileSaves | None)
    exports: dict = field(default_factory=dict)    # must-save values copied in this block
    yields: list = field(default_factory=list)     # the copied terminator operands

    def new(self, v: Value) -> Value:
        """The copy of original value ``v`` (a fresh literal for a literal)."""
        return Cloner(self.vmap).value(v)


class Copier:
    """Copies blocks at ``builder``'s insertion point.

    ``tape=True`` copies a block the backward will walk: its active ``while`` ops stack their
    carried values. ``replayed=False`` marks a block whose ops the backward never replays (the
    function body, inactive regions in it); ``mark`` gives copies gradient locations (replays).
    """

    def __init__(self, builder: Builder, active: set, capacity: int, *, mark: bool):
        self.b = builder
        self.active = active
        self.capacity = capacity
        self.mark = mark

    def loc(self, loc: Loc) -> Loc:
        return grad_loc(loc) if self.mark else loc

    def block(self, src: Block, vmap: ChainMap, saved: dict, *, tape: bool,
              replayed: bool = True, only: set | None = None) -> Tape:
        """Copy ``src``; with ``only``, just the ops defining those values (a partial replay,
        whose yields are then not copied)."""
        t = Tape(src, vmap, saved, replayed)
        for op in src:
            if op.is_terminator:
                t.yields = [t.new(v) if only is None or isinstance(v, Literal) or v in only
                            else None for v in op.operands]
                break
            if only is not None and not any(r in only for r in op.results):
                continue
            if op.results and all(r in saved for r in op.results):
                vmap.update({r: saved[r] for r in op.results})  # replayed from the forward's
                t.steps.append((op, None))
                continue
            if op.opdef is IF:
                info = self.if_(op, t)
            elif op.opdef is WHILE:
                stack = tape and any(r in self.active for r in op.results)
                info = self.stacking_while(op, t) if stack else self.plain_while(op, t)
            else:
                info = self.op(op, t)
            t.steps.append((op, info))
        return t

    # -- one op --
    def op(self, op: Op, t: Tape) -> None:
        new = Cloner(t.vmap, self.loc).op(op)
        self.b.insert(new)
        if must_save(op):
            t.exports.update(zip(op.results, new.results))

    def _bind_results(self, op: Op, results, t: Tape) -> None:
        for r, nr in zip(op.results, results):
            nr.name_hint = r.name_hint
            t.vmap[r] = nr

    def _yield(self, block: Block, term: Op, values) -> None:
        """End ``block`` (a region being built) with a yield at ``term``'s location."""
        with self.b.insertion_point(block), self.b.at_loc(self.loc(term.loc)):
            self.b.yield_(*values)

    # -- if: a plain copy whose extra results carry the branches' must-save values --
    def if_(self, op: Op, t: Tape) -> dict:
        new = Op(IF, (t.new(op.operands[0]),), (), None, (Region(), Region()), self.loc(op.loc))
        subs = []
        for src, dst in zip(op.regions, new.regions):
            with self.b.insertion_point(dst.block):
                subs.append(self.block(src.block, t.vmap.new_child(), t.saved, tape=False,
                                       replayed=self.replays(op, t)))
        keys = list(dict.fromkeys([*subs[0].exports, *subs[1].exports]))
        for src, dst, sub in zip(op.regions, new.regions, subs):
            with self.b.insertion_point(dst.block), self.b.at_loc(grad_loc(op.loc)):
                extra = [sub.exports[k] if k in sub.exports else _placeholder(k, op) for k in keys]
            self._yield(dst.block, src.block.terminator, [*sub.yields, *extra])
        new.set_result_types([r.type for r in op.results] + [k.type for k in keys])
        self.b.insert(new)
        self._bind_results(op, new.results, t)
        exports = dict(zip(keys, new.results[len(op.results):]))
        t.exports.update(exports)
        return exports

    # -- while --
    def replays(self, op: Op, t: Tape) -> bool:
        """Whether the backward may replay ``op``'s regions."""
        return t.replayed or any(r in self.active for r in op.results)

    def plain_while(self, op: Op, t: Tape) -> None:
        types = [r.type for r in op.results]
        new = Op(WHILE, [t.new(v) for v in op.operands], types, None,
                 (Region(Block(types)), Region(Block(types))), self.loc(op.loc))
        for src, dst in zip(op.regions, new.regions):
            _name_args(src.block, dst.block)
            with self.b.insertion_point(dst.block):
                sub = self.block(src.block, t.vmap.new_child(dict(zip(src.block.args, dst.block.args))),
                                 t.saved, tape=False, replayed=self.replays(op, t))
            if sub.exports and self.replays(op, t):
                raise _nested_effect(op, next(iter(sub.exports)))
            self._yield(dst.block, src.block.terminator, sub.yields)
        self.b.insert(new)
        self._bind_results(op, new.results, t)

    def stacking_while(self, op: Op, t: Tape) -> WhileSaves:
        """The forward copy of a loop the backward differentiates: counts its iterations and
        stacks each iteration's entry values (and must-save values) into static buffers."""
        src_cond, src_body = (r.block for r in op.regions)
        used, needed = loop_needs(op, [i for i, r in enumerate(op.results) if r in self.active])
        exported = [r for o in walk(op.regions[1]) if must_save(o) for r in o.results
                    if r not in t.saved]
        for i in used:
            _require_tensor(src_body.args[i], op, f"carried value {i}, which the backward needs,")
        for v in exported:
            _require_tensor(v, op, "a random or side-effecting result")
        n, trips = len(op.operands), trip_count(op)
        cap = self.capacity if trips is None else trips
        slots = cap + 1 if trips is None else max(trips, 1)   # a counted loop needs no scratch
        with self.b.at_loc(grad_loc(op.loc)):
            counter = self.b.const(np.array(0, np.int64))
            bufs = [F.zeros_like(_stack_type(v.type, slots)) for v in
                    [src_body.args[i] for i in used] + exported]
        inits = [counter, *[t.new(v) for v in op.operands], *bufs]
        types = [v.type for v in inits]
        new = Op(WHILE, inits, (), None, (Region(Block(types)), Region(Block(types))),
                 self.loc(op.loc))
        for src, dst in zip(op.regions, new.regions):
            dst.block.args[0].name_hint = "k"
            _name_args(src.block, dst.block, offset=1)
        self._stacking_cond(src_cond, new.regions[0].block, t, n)
        self._stacking_body(op, new.regions[1].block, t, n, used, exported, trips is not None)
        new.set_result_types(types)
        self.b.insert(new)
        self._bind_results(op, new.results[1:], t)
        stacks = new.results[1 + n:]
        return WhileSaves(new.results[0], dict(zip(used, stacks)),
                          dict(zip(exported, stacks[len(used):])), cap, needed, trips is not None)

    def _stacking_cond(self, src: Block, dst: Block, t: Tape, n: int) -> None:
        with self.b.insertion_point(dst):
            sub = self.block(src, t.vmap.new_child(dict(zip(src.args, dst.args[1:1 + n]))), t.saved,
                             tape=False)
        if sub.exports:
            raise _nested_effect(src.parent.parent, next(iter(sub.exports)))
        self._yield(dst, src.terminator, sub.yields)

    def _stacking_body(self, op: Op, dst: Block, t: Tape, n: int, used, exported,
                       counted: bool) -> None:
        src = op.regions[1].block
        k, carried, bufs = dst.args[0], dst.args[1:1 + n], dst.args[1 + n:]
        b = self.b
        with b.insertion_point(dst), b.at_loc(grad_loc(op.loc)):
            slot = F.reshape(k if counted else F.minimum(k, self.capacity), shape=(1,))
            new_bufs = [_store(buf, slot, carried[i]) for buf, i in zip(bufs, used)]
        with b.insertion_point(dst):
            sub = self.block(src, t.vmap.new_child(dict(zip(src.args, carried))), t.saved, tape=False)
        with b.insertion_point(dst), b.at_loc(grad_loc(op.loc)):
            new_bufs += [_store(buf, slot, sub.exports[v]) for buf, v in zip(bufs[len(used):], exported)]
            k_next = F.add(k, 1)
        self._yield(dst, src.terminator, [k_next, *sub.yields, *new_bufs])


def _stack_type(t: TensorType, slots: int) -> TensorType:
    return TensorType(t.dtype, (slots,) + tuple(t.shape))


def _store(buf: Value, slot: Value, value: Value) -> Value:
    """``buf`` with ``value`` written at index ``slot`` (an i64[1]) of its first axis."""
    return F.scatter_update(buf, slot, F.expand_dims(value, axis=0), axis=0)


def load(buf: Value, index: Value) -> Value:
    """The slot of ``buf`` at ``index`` (an i64[1]), without the stacking axis."""
    return F.reshape(F.take(buf, index, axis=0), shape=tuple(buf.shape[1:]))


def _name_args(src: Block, dst: Block, offset: int = 0) -> None:
    for a, d in zip(src.args, dst.args[offset:]):
        d.name_hint = a.name_hint


def _placeholder(v: Value, op: Op) -> Value:
    _require_tensor(v, op, "a random or side-effecting result")
    return F.zeros_like(v.type)


def _require_tensor(v: Value, op: Op, what: str) -> None:
    if not isinstance(v.type, TensorType):
        hint = ("carry the tuple's elements as separate values" if isinstance(v.type, TupleType)
                else "carry it as a 0-d tensor: the IR has no op turning a saved tensor back into "
                     "a Python scalar" if isinstance(v.type, ScalarType) else "")
        raise AutodiffError(f"cannot differentiate the {op.opdef.name}{where(op)}: {what} has "
                            f"type {v.type}, and only tensors can be saved for the backward"
                            + (f" ({hint})" if hint else ""))


def _nested_effect(op: Op, v: Value) -> AutodiffError:
    return AutodiffError(
        f"cannot differentiate the {op.opdef.name}{where(op)}: it is nested in another region and "
        f"its body holds a random or side-effecting op ({v.op.opdef.display_name}{where(v.op)}), "
        "whose result the backward could not replay; move it out of the loop or unroll the loop")


def where(op: Op) -> str:
    """`` at <loc>`` for messages, or nothing when the location is unknown."""
    return f" at {op.loc}" if op.loc.known else ""



"""Walking, cloning and comparing IR.

- ``walk(x)``: every op in a Module, Function, Block, Region or Op, in text order (an op before the
  ops of its regions), without recursion.
- ``replace_op(op, values)``: point the op's users at ``values`` and erase it.
- ``free_values(op)``: the values an op's regions use but do not define (its captures).
- ``Cloner``: the op cloner (value map, fresh literals, locations mapped, regions whole);
  ``clone_function`` / ``clone_module``: deep copies (new values, same types, attrs and locs).
- ``structurally_equal`` / ``assert_structurally_equal``: the same IR up to value identity (and
  name hints): what ``parse(print(m))`` must give back.

Example::

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module("func @f(%x: f32[2]) -> f32[2] {\\n  %0 = neg(%x) : f32[2]\\n  return %0\\n}\\n")
    >>> [op.opdef.name for op in walk(m)]
    ['neg', 'return']
    >>> structurally_equal(m, clone_module(m))
    True
"""
from __future__ import annotations

import math
from collections.abc import MutableMapping
from typing import Callable, Iterator, Sequence

import numpy as np

from graphcell_ir.ir.core import (Block, BlockArg, Function, Literal, Module, Op, Region, Value)
from graphcell_ir.ir.loc import Loc


def walk(x: Module | Function | Block | Region | Op) -> Iterator[Op]:
    """Every op in ``x`` in text order: an op, then the ops of its regions, then the next op."""
    if isinstance(x, Module):
        for fn in x:
            yield from walk(fn.body)
        return
    if isinstance(x, Function):
        x = x.body
    elif isinstance(x, Region):
        x = x.block
    if isinstance(x, Op):
        yield x
        stack = [iter(r.block) for r in reversed(x.regions)]
    else:
        stack = [iter(x)]
    while stack:
        op = next(stack[-1], None)
        if op is None:
            stack.pop()
            continue
        yield op
        if op.regions:
            stack.extend(iter(r.block) for r in reversed(op.regions))


def replace_op(op: Op, values: Sequence[Value]) -> None:
    """Make every user of ``op``'s results use ``values`` instead, then erase ``op``."""
    if len(values) != len(op.results):
        raise ValueError(f"{op.opdef.name} has {len(op.results)} results, got {len(values)} values")
    for r, v in zip(op.results, values):
        r.replace_all_uses_with(v)
    op.erase()


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


# --- cloning -----------------------------------------------------------------------------------

class Cloner:
    """Copies ops: the one op cloner (functions, inlining, fusion and autodiff's replays use it).

    Operands are mapped through ``vmap`` (value -> its copy, any mutable mapping; the copies of
    the values the cloned ops define are added as they are made; a value not in it stays shared);
    each literal use gets a fresh ``Literal``; locations go through ``loc_of``; name hints and
    attributes are kept; regions are copied whole (block arguments, ops, terminators).

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module("func @f(%x: f32[2]) -> f32[2] {\\n  %0 = neg(%x) : f32[2]\\n  return %0\\n}\\n")
    >>> copies, out = Cloner().body(m["f"].body)
    >>> [op.opdef.name for op in copies], out[0] is copies[0].results[0]
    (['neg'], True)
    """

    def __init__(self, vmap: MutableMapping | None = None,
                 loc_of: Callable[[Loc], Loc] | None = None):
        self.vmap = {} if vmap is None else vmap
        self.loc_of = loc_of

    def value(self, v: Value) -> Value:
        """``v`` in the copy."""
        if isinstance(v, Literal):
            return Literal(v.value, v.type)
        return self.vmap.get(v, v)

    def op(self, op: Op) -> Op:
        """A copy of ``op`` (not attached to any block)."""
        new_regions = [self._region_shell(r) for r in op.regions]
        loc = op.loc if self.loc_of is None else self.loc_of(op.loc)
        new = Op(op.opdef, [self.value(v) for v in op.operands], [r.type for r in op.results],
                 dict(op.attrs), new_regions, loc)
        for r, nr in zip(op.results, new.results):
            nr.name_hint = r.name_hint
            self.vmap[r] = nr
        for r, nr in zip(op.regions, new_regions):
            self.into(r.block, nr.block)
        return new

    def _region_shell(self, r: Region) -> Region:
        block = Block()
        for a in r.block.args:
            self.vmap[a] = block.add_arg(a.type, a.name_hint, param=a.param)
        return Region(block)

    def into(self, src: Block, dst: Block) -> None:
        """Append copies of every op of ``src`` (its terminator included) to ``dst``."""
        for op in src:
            dst.append(self.op(op))

    def body(self, src: Block) -> tuple[list[Op], list[Value]]:
        """Copies of ``src``'s ops but its terminator (not attached), and the values the
        terminator hands back, mapped: what inlining ``src`` in place of an op gives."""
        copies, out = [], []
        for op in src:
            if op.is_terminator:
                out = [self.value(v) for v in op.operands]
                break
            copies.append(self.op(op))
        return copies, out


def clone_function(fn: Function, name: str | None = None) -> Function:
    """A deep copy of ``fn`` (not added to any module)."""
    out = Function(fn.name if name is None else name, fn.result_types, fn.attrs)
    cloner = Cloner()
    for a in fn.args:
        cloner.vmap[a] = out.add_arg(a.type, a.name_hint, param=a.param)
    cloner.into(fn.body, out.body)
    return out


def clone_module(m: Module) -> Module:
    """A deep copy of ``m``; the constant table is shared (arrays are treated as immutable)."""
    out = Module([clone_function(fn) for fn in m])
    out.consts = dict(m.consts)
    return out


# --- structural equality -----------------------------------------------------------------------

def structurally_equal(a, b, *, locs: bool = False, names: bool = False) -> bool:
    """Whether ``a`` and ``b`` (Modules or Functions) are the same IR up to value identity.

    Compared: functions and their signatures and attrs, op by op the OpDef, attributes, result
    types, which value each operand is (by position of definition), literals, regions; with
    ``locs=True`` also locations, with ``names=True`` also name hints.
    """
    return _diff(a, b, locs, names) is None


def assert_structurally_equal(a, b, *, locs: bool = False, names: bool = False) -> None:
    """Raise AssertionError describing the first difference between ``a`` and ``b``."""
    d = _diff(a, b, locs, names)
    if d is not None:
        raise AssertionError(f"IR differs: {d}")


def _diff(a, b, locs: bool, names: bool) -> str | None:
    if isinstance(a, Module) and isinstance(b, Module):
        if list(a.functions) != list(b.functions):
            return f"functions {list(a.functions)} vs {list(b.functions)}"
        for fa, fb in zip(a, b):
            d = _diff_function(fa, fb, locs, names)
            if d:
                return d
        return None
    if isinstance(a, Function) and isinstance(b, Function):
        return _diff_function(a, b, locs, names)
    return f"cannot compare {type(a).__name__} with {type(b).__name__}"


def _diff_function(fa: Function, fb: Function, locs: bool, names: bool) -> str | None:
    where = f"@{fa.name}"
    if fa.name != fb.name:
        return f"function names @{fa.name} vs @{fb.name}"
    if fa.result_types != fb.result_types:
        return f"{where}: result types {fa.result_types} vs {fb.result_types}"
    if not _same_value(fa.attrs, fb.attrs):
        return f"{where}: attrs {fa.attrs} vs {fb.attrs}"
    pairs: dict[Value, Value] = {}
    return _diff_block(fa.body, fb.body, pairs, where, locs, names)


def _diff_args(xa: Sequence[BlockArg], xb: Sequence[BlockArg], pairs, where, names) -> str | None:
    if len(xa) != len(xb):
        return f"{where}: {len(xa)} vs {len(xb)} block arguments"
    for i, (p, q) in enumerate(zip(xa, xb)):
        if p.type != q.type or p.param != q.param or (names and p.name_hint != q.name_hint):
            return (f"{where}: argument {i}: {p.type} param={p.param} {p.name_hint!r} vs "
                    f"{q.type} param={q.param} {q.name_hint!r}")
        pairs[p] = q
    return None


def _diff_block(ba: Block, bb: Block, pairs, where, locs, names) -> str | None:
    d = _diff_args(ba.args, bb.args, pairs, where, names)
    if d:
        return d
    if len(ba) != len(bb):
        return f"{where}: {len(ba)} vs {len(bb)} ops"
    for i, (p, q) in enumerate(zip(ba, bb)):
        d = _diff_op(p, q, pairs, f"{where}/{i}:{p.opdef.name}", locs, names)
        if d:
            return d
    return None


def _diff_op(p: Op, q: Op, pairs, where, locs, names) -> str | None:
    if p.opdef is not q.opdef:
        return f"{where}: op {p.opdef.name} vs {q.opdef.name}"
    if set(p.attrs) != set(q.attrs) or not all(_same_value(p.attrs[k], q.attrs[k]) for k in p.attrs):
        return f"{where}: attrs {dict(p.attrs)} vs {dict(q.attrs)}"
    if [r.type for r in p.results] != [r.type for r in q.results]:
        return f"{where}: result types {[str(r.type) for r in p.results]} vs {[str(r.type) for r in q.results]}"
    if names and [r.name_hint for r in p.results] != [r.name_hint for r in q.results]:
        return f"{where}: name hints {[r.name_hint for r in p.results]} vs {[r.name_hint for r in q.results]}"
    if locs and p.loc != q.loc:
        return f"{where}: loc {p.loc!r} vs {q.loc!r}"
    if len(p.operands) != len(q.operands):
        return f"{where}: {len(p.operands)} vs {len(q.operands)} operands"
    for i, (u, v) in enumerate(zip(p.operands, q.operands)):
        if isinstance(u, Literal) or isinstance(v, Literal):
            same = isinstance(u, Literal) and isinstance(v, Literal) and u.type == v.type \
                and _same_value(u.value, v.value)
        else:
            same = pairs.get(u) is v
        if not same:
            return f"{where}: operand {i} differs ({u!r} vs {v!r})"
    if len(p.regions) != len(q.regions):
        return f"{where}: {len(p.regions)} vs {len(q.regions)} regions"
    for j, (ra, rb) in enumerate(zip(p.regions, q.regions)):
        d = _diff_block(ra.block, rb.block, pairs, f"{where}/region{j}", locs, names)
        if d:
            return d
    for r, s in zip(p.results, q.results):
        pairs[r] = s
    return None


def _same_value(x, y) -> bool:
    """Attribute equality: arrays by dtype, shape and contents; NaN equals NaN."""
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.dtype == y.dtype \
            and x.shape == y.shape and bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))
    if isinstance(x, float) and isinstance(y, float):
        return x == y and math.copysign(1, x) == math.copysign(1, y) or (x != x and y != y)
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        return type(x) is type(y) and len(x) == len(y) and all(map(_same_value, x, y))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_same_value(x[k], y[k]) for k in x)
    return type(x) is type(y) and x == y

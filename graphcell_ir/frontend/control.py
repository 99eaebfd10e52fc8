"""Control flow that depends on tensors: IR ``if`` and ``while``, and early ``return``.

**if.** Both branches are compiled into the regions of one ``if`` op, each from a copy of the
environment. Afterwards every variable (and every Parameter's current value) the two branches
left different is *joined*: the ``if`` yields it from both regions and its result becomes the
variable's value. Both sides must have the same type; a Python number on one side and a scalar or
0-d tensor on the other is converted (``x = 0`` / ``x = t.sum()``). A variable bound in one
branch only, or with different types, becomes ``Undefined``: an error only if it is read later,
with a message saying why.

**early return.** When a branch of a tensor ``if`` contains ``return``, the statements that
follow the ``if`` (up to the end of the function) are compiled inside *both* branches, so each
branch ends by returning, and the ``if`` yields the returned value (and the Parameters' values).
This restructuring needs no "returned" flag and no dummy values of the right type; its price is
that the code after the ``if`` is compiled twice. Inside an unrolled ``for`` the continuation
holds the rest of the loop as a ``ForRest`` statement (the rest of this iteration, the remaining
iterations, the ``else``). A ``while`` body has no such continuation (its iterations are not
known while compiling): ``return`` under a tensor condition there is refused. (``break`` and
``continue`` never take a continuation: ``jumps.py`` turns them into flags, which keeps the IR
linear in the number of jumps.)

**while.** The carried values are the variables the body rebinds that exist before the loop,
plus the Parameters the body writes. Which Parameters are written, and which Python numbers must
become run-time scalars (``i = 0; while ...: i += 1``), is only known once the body is compiled,
so the body is compiled into a scratch block first (a *probe*), the carried set is grown, and
this repeats until it is stable; then the real ``while`` is built. A carried value whose type
changes in the body is an error naming the variable.
"""
from __future__ import annotations

import ast
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from graphcell_ir.frontend import jumps
from graphcell_ir.frontend.errors import Kind
from graphcell_ir.frontend.exprs import _OPS, describe
from graphcell_ir.frontend.scope import (BASE, BLOCK, LOOP, MISSING, POISON, Poison, Undefined,
                                         copy_vars, has_poison, map_leaves)
from graphcell_ir.frontend.source import contains, first, rebound_names
from graphcell_ir.ir.core import Block, Literal, Op, Region, Value
from graphcell_ir.ir.loc import UNKNOWN
from graphcell_ir.ir.structural import IF, WHILE
from graphcell_ir.ir.walk import walk
from graphcell_ir.ops.registry import Kind as OpKind
from graphcell_ir.ir.types import (ScalarType, TensorType, Type, bool_, float32, int64)

MAX_PROBES = 8
"""How many times a while body may be compiled to find its carried values."""


class _Slot:
    """Stands for result ``index`` of an ``if``/``while`` being built."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


@dataclass(eq=False)
class _Pair:
    """One value an ``if`` joins: what each branch gives, the joined type, a printer name."""

    then: Any
    orelse: Any
    type: Type
    name: str


class _Conflict(Exception):
    """Two branches give a value incompatible types (the message says how)."""


@dataclass(frozen=True, eq=False)
class LoopCode:
    """What an IR loop runs: ``test()`` gives the condition's value (``test_node`` is where its
    errors point), ``body()`` compiles one iteration into the frame's variables."""

    test: Callable[[], Any]
    test_node: Any
    body: Callable[[], None]


@dataclass(eq=False)
class _WhilePlan:
    names: list                                  # variables carried
    lift: dict = field(default_factory=dict)     # (name, leaf index) -> type of a lifted number
    params: list = field(default_factory=list)   # id(Parameter) of the Parameters carried


class ControlMixin:
    """Tensor-dependent control flow (see the module docstring)."""

    # -- helpers --
    @contextmanager
    def scratch(self):
        """Compile into a throwaway block: its ops are unlinked from their operands afterwards."""
        block = Block()
        saved_loc = self.b.loc
        try:
            with self.b.insertion_point(block):
                yield block
        finally:
            self.b.loc = saved_loc
            _drop(block)

    @contextmanager
    def under(self, kind: str, loc):
        self.ctl.append((kind, loc))
        try:
            yield
        finally:
            self.ctl.pop()

    def lift(self, v, t: Type, loc) -> Value:
        """``v`` as a value of type ``t``: a Python number becomes a literal or a 0-d ``fill``; a
        tensor whose shape differs from ``t``'s only by axes of size 1 is reshaped."""
        if isinstance(v, Value):
            if v.type != t and isinstance(t, TensorType):
                with self.b.at_loc(loc):
                    return self.b.create(_OPS["reshape"], (v,), {"shape": t.shape}).results[0]
            return v
        if isinstance(t, ScalarType):
            return Literal(v, t)
        with self.b.at_loc(loc):
            return self.b.create(_OPS["fill"], (), {"dtype": t.dtype, "shape": (),
                                                    "value": v}).results[0]

    # -- if --
    def ir_if(self, node: ast.If, pred: Value) -> None:
        if contains(node.body + node.orelse, ast.Return):
            self.if_returning(node, pred, self.take_continuation(node, node.body),
                              self.take_continuation(node, node.orelse, done=True))
        else:
            self.if_merging(node, pred)

    def take_continuation(self, node, branch: list, done: bool = False) -> list:
        """``branch`` followed by everything after ``node`` up to the end of the function, to be
        compiled inside the branch; ``done``: mark the enclosing statement lists as done (they
        are compiled in the branches now). Each unrolled ``for`` body left on the way becomes a
        :class:`ForRest` (:class:`WhileRest`) holding what follows, so the remaining iterations
        are compiled in the branch too and ``break``/``continue`` in it still leave that loop."""
        rest, taken = list(branch), []
        for level in reversed(self.frame.levels):
            if level.kind == LOOP and level.loop is None:
                self.fail(node, "an early 'return', 'break' or 'continue' under a tensor "
                                "condition inside a while loop body is not supported in graph "
                                "mode: assign the result to a variable and leave the loop by its "
                                "condition", Kind.UNSUPPORTED)
            rest.extend(level.stmts[level.pos:])
            if level.kind == LOOP:
                rest = [level.loop.resume(rest)]
            taken.append(level)
            if level.kind == BASE:
                break
        if done:
            for level in taken:
                level.pos = len(level.stmts)
        return rest

    def _branches(self, loc, runs) -> tuple[tuple[Region, Region], list]:
        """Run each of ``runs`` in a fresh region from a copy of the environment; returns the
        regions and, per branch, ``(vars, bindings, result)``."""
        frame = self.frame
        saved = frame.vars, self.bindings, frame.jump, frame.returned
        regions = (Region(), Region())
        states = []
        try:
            for region, run in zip(regions, runs):
                frame.vars, self.bindings = copy_vars(saved[0]), dict(saved[1])
                frame.jump, frame.returned = None, MISSING
                with self.b.insertion_point(region.block), self.under("cond", loc):
                    result = run()
                states.append((frame.vars, self.bindings, result))
        except BaseException:
            for r in regions:
                _drop(r.block)
            raise
        finally:
            frame.vars, self.bindings, frame.jump, frame.returned = saved
        return regions, states

    def if_merging(self, node: ast.If, pred: Value) -> None:
        loc = self.loc(node)

        def run(stmts):
            return lambda: self.exec_block(stmts, BASE)
        regions, ((vt, bt, _), (ve, be, _)) = self._branches(loc, [run(node.body),
                                                                   run(node.orelse)])
        pairs: list[_Pair] = []
        new_vars = dict(self.frame.vars)
        for name in dict.fromkeys([*vt, *ve]):
            a, b = vt.get(name, MISSING), ve.get(name, MISSING)
            if a is b:   # unchanged, or both branches bound the same object (flag = True)
                new_vars[name] = a
                continue
            if a is MISSING or b is MISSING:
                side = "then" if b is MISSING else "else"
                new_vars[name] = Undefined(name, f"variable {name!r} may be undefined here: it is "
                                           f"only assigned in the {side} branch of the if at "
                                           f"line {loc.line}", Kind.ERROR)
                continue
            mark = len(pairs)
            try:
                new_vars[name] = self.merge(a, b, name, pairs, node)
            except _Conflict as c:
                del pairs[mark:]
                new_vars[name] = Undefined(name, f"variable {name!r} {c} after the branches of "
                                           f"the if at line {loc.line}; a variable used after an "
                                           "if on a tensor must have the same type in both "
                                           "branches", Kind.TYPE)
        new_bind = self.merge_bindings(bt, be, pairs, node)
        results = self.build_if(loc, pred, regions, pairs)
        self.frame.vars = {k: _fill(v, results) for k, v in new_vars.items()}
        self.set_bindings({k: _fill(v, results) for k, v in new_bind.items()})

    def if_returning(self, node: ast.If, pred: Value, then_stmts: list, else_stmts: list) -> None:
        loc = self.loc(node)
        frame = self.frame

        def run(stmts):
            def go():
                self.exec_block(stmts, BASE)
                return frame.returned if frame.jump == "return" else None
            return go
        regions, ((_, bt, rt), (_, be, re)) = self._branches(loc, [run(then_stmts),
                                                                   run(else_stmts)])
        pairs: list[_Pair] = []
        try:
            value = self.merge(rt, re, "the returned value", pairs, node)
        except _Conflict as c:
            self.fail(node, f"the function returns {c} of this if on a tensor; both branches "
                            "must return values of the same types", Kind.TYPE)
        new_bind = self.merge_bindings(bt, be, pairs, node)
        results = self.build_if(loc, pred, regions, pairs)
        frame.returned = _fill(value, results)
        frame.jump = "return"
        self.set_bindings({k: _fill(v, results) for k, v in new_bind.items()})

    def ir_ifexp(self, node: ast.IfExp, pred: Value):
        loc = self.loc(node)
        regions, ((_, bt, a), (_, be, b)) = self._branches(
            loc, [lambda: self.eval(node.body), lambda: self.eval(node.orelse)])
        pairs: list[_Pair] = []
        try:
            value = self.merge(a, b, "the value", pairs, node)
        except _Conflict as c:
            self.fail(node, f"the conditional expression is {c} of its tensor condition; both "
                            "must have the same type", Kind.TYPE)
        new_bind = self.merge_bindings(bt, be, pairs, node)
        results = self.build_if(loc, pred, regions, pairs)
        self.set_bindings({k: _fill(v, results) for k, v in new_bind.items()})
        return _fill(value, results)

    def merge(self, a, b, what: str, pairs: list, node):
        """The join of ``a`` (then) and ``b`` (else): equal parts stay, containers are joined
        element-wise, differing leaves become ``_Slot``\\ s with a pair in ``pairs``."""
        if a is b:
            return a
        if isinstance(a, Poison) or isinstance(b, Poison):
            return POISON
        if isinstance(a, Undefined) or isinstance(b, Undefined):
            return a if isinstance(a, Undefined) else b
        a, b = self.realize(a, node), self.realize(b, node)
        if a is b or (not isinstance(a, Value) and not isinstance(b, Value)
                      and same_static(a, b)):
            return a
        ta, tb = type(a), type(b)
        if ta in (tuple, list) and ta is tb and len(a) == len(b):
            return ta(self.merge(x, y, f"{what}[{i}]", pairs, node)
                      for i, (x, y) in enumerate(zip(a, b)))
        if ta is dict and tb is dict and list(a) == list(b):
            return {k: self.merge(a[k], b[k], f"{what}[{k!r}]", pairs, node) for k in a}
        t = join_type(a, b)
        if t is None:
            raise _Conflict(f"is {describe(a)} after the then branch but {describe(b)} after the "
                            "else branch")
        pairs.append(_Pair(a, b, t, what))
        return _Slot(len(pairs) - 1)

    def merge_bindings(self, bt: dict, be: dict, pairs: list, node) -> dict:
        """The join of what the branches bound to Parameters and attributes (``attrs.py``)."""
        out = dict(self.bindings)
        for key in dict.fromkeys([*bt, *be]):
            base = self.binding_base(key)
            a, b = bt.get(key, base), be.get(key, base)
            if a is MISSING or b is MISSING:   # an attribute only one branch created
                w = self.written[key]
                out[key] = Undefined(w.name, f"attribute {w.name!r} of {describe(w.obj)} is only "
                                     "assigned in one branch of an if on a tensor", Kind.ERROR)
                continue
            try:
                out[key] = a if a is b else self.merge(a, b, self.binding_name(key), pairs, node)
            except _Conflict as c:
                self.fail(node, f"{self.binding_name(key)} {c} of this if on a tensor; an "
                                "attribute assigned under a tensor condition must have the same "
                                "type in both branches", Kind.TYPE)
        return out

    def build_if(self, loc, pred: Value, regions, pairs: list[_Pair]) -> tuple[Value, ...]:
        if not pairs and not any(_has_callback(r.block) for r in regions):
            # nothing joined: the branches computed nothing that is used (nor print)
            for r in regions:
                _drop(r.block)
            return ()
        for side, region in enumerate(regions):
            with self.b.insertion_point(region.block):
                vals = [self.lift(p.then if side == 0 else p.orelse, p.type, loc) for p in pairs]
                with self.b.at_loc(UNKNOWN):
                    self.b.yield_(*vals)
        op = Op(IF, (pred,), (), None, regions, loc)
        op.set_result_types([p.type for p in pairs])
        self.b.insert(op)
        for r, p in zip(op.results, pairs):
            r.name_hint = _hint(p.name)
        return op.results

    # -- while --
    def ir_while(self, node: ast.While) -> None:
        if jumps.has_jumps(node) and not contains(node.body, ast.Return):
            self.ir_while_with_jumps(node)
            return
        loc = self.loc(node)
        bad = first(node.body, ast.Return) or first(node.body, (ast.Break, ast.Continue),
                                                    into_loops=False)
        if bad is not None:
            word = {ast.Return: "return", ast.Break: "break", ast.Continue: "continue"}[type(bad)]
            self.fail(bad, f"'{word}' in a while loop whose condition is a tensor (line "
                           f"{loc.line}) is not supported in graph mode", Kind.UNSUPPORTED)
        frame = self.frame
        names = rebound_names(node.body)
        carried = [n for n in names if n in frame.vars
                   and not isinstance(frame.vars[n], (Undefined, Poison))]
        self.ir_loop(node, carried, LoopCode(lambda: self.eval(node.test), node.test,
                                             lambda: self.exec_block(node.body, LOOP)))
        for n in names:
            if n not in carried and not isinstance(frame.vars.get(n), Poison):
                frame.vars[n] = Undefined(n, f"variable {n!r} may be undefined here: it is only "
                                          f"assigned inside the while loop at line {loc.line}",
                                          Kind.ERROR)
        self.exec_block(node.orelse, BLOCK)

    def ir_loop(self, node, carried: list[str], code: "LoopCode") -> None:
        """An IR ``while`` running ``code`` that carries the variables ``carried`` (and what the
        probes find: Parameters the body writes, numbers it changes); afterwards the variables
        hold the loop's results. ``node`` is where errors point."""
        loc = self.loc(node)
        plan = _WhilePlan(carried)
        for _ in range(MAX_PROBES):
            with self.scratch():
                grew = self.build_while(node, loc, plan, code, probe=True)
            if not grew:
                break
        else:
            self.fail(node, "the loop-carried values of this while loop did not settle",
                      Kind.ERROR)
        self.build_while(node, loc, plan, code, probe=False)

    def ir_while_with_jumps(self, node: ast.While) -> None:
        """``break``/``continue`` as flags (``jumps.py``): the flags start as bool tensors so a
        branch setting one joins like any tensor variable; they are gone after the loop."""
        with self.b.at_loc(self.loc(node)):
            false = self.b.const(np.array(False))
        names = (jumps.FALSE, *jumps.flags(node))
        for name in names:
            self.frame.vars[name] = false
        try:
            self.ir_while(jumps.rewrite(node))
        finally:
            for name in names[1:]:
                self.frame.vars.pop(name, None)

    def build_while(self, node, loc, plan: _WhilePlan, code: "LoopCode", probe: bool):
        frame = self.frame
        before_vars, before_bind = frame.vars, self.bindings
        specs, inits, hints = [], [], []
        for name in plan.names:
            skel, lv = flatten(self.realize_deep(before_vars[name], node))
            pos = []
            for i, x in enumerate(lv):
                if isinstance(x, Value) or (name, i) in plan.lift:
                    pos.append(i)
                    inits.append(x if isinstance(x, Value) else
                                 self.lift(x, plan.lift[(name, i)], loc))
                    hints.append(name)
            specs.append((name, skel, lv, pos))
        for key in plan.params:
            inits.append(before_bind.get(key, self.slots[key].arg))
            hints.append(self.slots[key].record.name)
        types = [v.type for v in inits]
        arg_hints = [_hint(h) for h in hints]
        cond, body = Block(types, arg_hints), Block(types, arg_hints)

        def enter(block: Block, values) -> None:
            new_vars = copy_vars(before_vars)
            it = iter(values)
            for name, skel, lv, pos in specs:
                leaves_ = list(lv)
                for i in pos:
                    leaves_[i] = next(it)
                new_vars[name] = unflatten(skel, leaves_)
            bind = dict(before_bind)
            for key in plan.params:
                bind[key] = next(it)
            frame.vars = new_vars
            self.set_bindings(bind)

        try:
            enter(cond, cond.args)
            with self.b.insertion_point(cond), self.under("irloop", loc):
                c = self.truth(code.test(), code.test_node)
                if not isinstance(c, Value):
                    c = Literal(bool(c) if not isinstance(c, Poison) else False)
                with self.b.at_loc(UNKNOWN):
                    self.b.yield_(c)
            enter(body, body.args)
            with self.b.insertion_point(body), self.under("irloop", loc):
                code.body()
            after_vars, after_bind = frame.vars, self.bindings
        except BaseException:
            _drop(cond)
            _drop(body)
            raise
        finally:
            frame.vars, self.bindings = before_vars, before_bind
        try:
            outs, grew = self._carried_outputs(node, plan, specs, types, after_vars, after_bind,
                                               before_bind)
        finally:
            if probe:
                _drop(cond)
                _drop(body)
        if probe or outs is None:
            if outs is None and not probe:  # poisoned: every carried variable is poison
                for name in plan.names:
                    frame.vars[name] = POISON
            return grew
        if grew:
            self.fail(node, "internal compiler error: the loop-carried values changed after they "
                            "had settled", Kind.ERROR)
        with self.b.insertion_point(body):
            vals = [self.lift(x, t, loc) for x, t in outs]
            with self.b.at_loc(UNKNOWN):
                self.b.yield_(*vals)
        op = Op(WHILE, inits, types, None, (Region(cond), Region(body)), loc)
        self.b.insert(op)
        for r, h in zip(op.results, hints):
            r.name_hint = _hint(h)
        enter(Block(), op.results)
        return False

    def _carried_outputs(self, node, plan, specs, types, after_vars, after_bind, before_bind):
        """What the body gives for each carried value, checked; grows ``plan`` with numbers that
        must be carried and Parameters the body writes. ``(None, grew)`` when poisoned."""
        outs, grew, k = [], False, 0
        for name, skel, lv, pos in specs:
            out = after_vars.get(name, MISSING)
            if isinstance(out, Undefined):
                self.fail(node, out.message, out.kind)
            if out is MISSING or has_poison(out):
                return None, False
            out = self.realize_deep(out, node)
            skel2, lv2 = flatten(out)
            init = unflatten(skel, lv)
            if not same_skeleton(skel, skel2):
                before, after = describe(init), describe(out)
                what = (f"holds a different compile-time value ({before}) after the body of this "
                        "while loop than before it; a loop whose condition is a tensor runs its "
                        "body an unknown number of times, so it cannot change Python objects"
                        if before == after else
                        f"is {before} before this while loop but {after} after its body; a "
                        "loop-carried value must keep its structure and type")
                self.fail(node, f"variable {name!r} {what}", Kind.UNSUPPORTED)
            for i, (x0, x1) in enumerate(zip(lv, lv2)):
                if i in pos:
                    t = types[k]
                    k += 1
                    got = x1.type if isinstance(x1, Value) else None
                    if got != t and (got is not None or not liftable(x1, t)):
                        self.fail(node, f"variable {name!r} changes type from {t} to "
                                        f"{got if got is not None else describe(x1)} in the body "
                                        "of this while loop; a loop-carried value must keep its "
                                        "type (cast it, or start it with the right type)",
                                  Kind.UNSUPPORTED)
                    outs.append((x1, t))
                elif not same_static(x0, x1):
                    t = x1.type if isinstance(x1, Value) else join_type(x0, x1)
                    if t is None or not liftable(x0, t):
                        self.fail(node, f"variable {name!r} changes from {describe(x0)} to "
                                        f"{describe(x1)} in the body of this while loop; a "
                                        "loop-carried value must keep its type",
                                  Kind.UNSUPPORTED)
                    plan.lift[(name, i)] = t
                    grew = True
        for key in plan.params:
            outs.append((after_bind.get(key, self.slots[key].arg), types[k]))
            k += 1
        for key, v in after_bind.items():
            if isinstance(key, tuple):   # attributes: not written in such a loop (attrs.py)
                continue
            if key not in plan.params and v is not before_bind.get(key, self.slots[key].arg):
                if isinstance(v, Poison):
                    return None, False
                plan.params.append(key)
                grew = True
        return outs, grew


# --- frontend values as leaves and skeletons ---------------------------------------------

_HOLE = ("hole",)


def flatten(v) -> tuple[Any, list]:
    """``v``'s skeleton (containers and static non-number parts) and its leaves: IR values and
    Python numbers, the parts a loop may carry."""
    out: list = []

    def go(x):
        t = type(x)
        if t is tuple or t is list:
            return (t, tuple(go(e) for e in x))
        if t is dict:
            return (dict, tuple(x), tuple(go(e) for e in x.values()))
        if isinstance(x, Value) or t in (bool, int, float):
            out.append(x)
            return _HOLE
        return ("static", x)
    return go(v), out


def unflatten(skel, leaves_: list):
    it = iter(leaves_)

    def go(s):
        if s is _HOLE:
            return next(it)
        if s[0] == "static":
            return s[1]
        if s[0] is dict:
            return dict(zip(s[1], (go(e) for e in s[2])))
        return s[0](go(e) for e in s[1])
    return go(skel)


def same_skeleton(a, b) -> bool:
    if a is _HOLE or b is _HOLE:
        return a is b
    if a[0] != b[0] or len(a) != len(b):
        return False
    if a[0] == "static":
        return same_static(a[1], b[1])
    if a[0] is dict:
        return a[1] == b[1] and len(a[2]) == len(b[2]) and \
            all(same_skeleton(x, y) for x, y in zip(a[2], b[2]))
    return len(a[1]) == len(b[1]) and all(same_skeleton(x, y) for x, y in zip(a[1], b[1]))


def same_static(a, b) -> bool:
    """Whether two static values are the same while compiling (identical, or equal and of the
    same type; arrays only when identical)."""
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, np.ndarray):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False


def _number(x) -> bool:
    return type(x) in (bool, int, float)


def join_type(a, b) -> Type | None:
    """The type both ``a`` and ``b`` can be given (IR values, or Python numbers), or None."""
    a_ir, b_ir = isinstance(a, Value), isinstance(b, Value)
    if a_ir and b_ir:
        return a.type if a.type == b.type else _join_squeezable(a.type, b.type)
    if not a_ir and not b_ir:
        if not (_number(a) and _number(b)):
            return None
        if type(a) is type(b):
            return ScalarType(bool_ if type(a) is bool else int64 if type(a) is int else float32)
        if bool not in (type(a), type(b)):
            return ScalarType(float32)
        return None
    ir, st = (a, b) if a_ir else (b, a)
    return ir.type if liftable(st, ir.type) else None


def _join_squeezable(a: Type, b: Type) -> Type | None:
    """Two tensor types of one dtype whose shapes differ only by axes of size 1 (``bool[]`` and
    ``bool[1]``) join as the one of higher rank: MindSpore 2.10 gives the taken branch's shape
    (dynamic shapes); graph mode keeps one static shape with the same elements."""
    if not (isinstance(a, TensorType) and isinstance(b, TensorType)) or a.dtype is not b.dtype:
        return None
    if tuple(d for d in a.shape if d != 1) != tuple(d for d in b.shape if d != 1):
        return None
    return a if len(a.shape) >= len(b.shape) else b


def liftable(x, t: Type) -> bool:
    """Whether the Python number ``x`` can stand for a value of type ``t`` (a scalar or a 0-d
    tensor of a dtype of the same kind: a bool for bool, an int for ints and floats, a float for
    floats)."""
    if not _number(x):
        return False
    if isinstance(t, TensorType) and t.shape != ():
        return False
    if not isinstance(t, (ScalarType, TensorType)):
        return False
    d = t.dtype
    if type(x) is bool:
        return d is bool_
    if type(x) is int:
        return d.is_int or d.is_float
    return d.is_float


def _fill(v, results):
    return map_leaves(lambda x: results[x.index] if isinstance(x, _Slot) else x, v)


def _hint(name: str) -> str | None:
    name = name.split("@", 1)[0]  # a hidden variable ``<hint>@<where>`` (loops.py)
    return name if name.replace(".", "_").isidentifier() else None


def _has_callback(block: Block) -> bool:
    """Whether a branch acts (a host callback, any side effect), so its ``if`` must stay even
    when it assigns nothing."""
    return any(op.opdef.kind is OpKind.SIDE_EFFECT and not op.is_terminator for op in walk(block))


def _drop(block: Block) -> None:
    for op in block:
        op.drop_references()

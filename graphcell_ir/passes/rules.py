"""Rewrite rules for local algebra: patterns, named rules, rule sets, and the greedy driver.

A rule has a name (reported by ``GRAPHCELL_PRINT_RULES=1`` and counted in statistics), a pattern
rooted at one op, and a rewrite. Patterns are built from OpDef objects, never op names::

    X = var("X")
    rule("neg_neg", pat(NEG, pat(NEG, X)), lambda X: X)
    rule("mul_one_right", pat(MUL, X, const(1)), lambda X: X)

- ``var("X")`` matches any value and binds it (a second ``X`` in the pattern must be the same
  value);
- ``const(c)`` matches a literal or a ``const`` whose every element equals ``c`` (a float zero
  matches +0.0 only: ``x - (-0.0)`` is not ``x``);
- ``pat(opdef, *operands)`` matches a result of an op of that OpDef whose operands match
  (``pat(opdef, ...)`` with a literal ``...``: any operands, for variadic ops);
  ``pat(opdef, *operands, bind="I")`` also binds the matched op as ``I``.

The rewrite is a function whose parameter names pick what it is given: bound variables
(``X``), ``root`` (the matched op) and ``b`` (a Builder inserting before the root, at the root's
location, so new ops take the matched root's loc). It returns the replacement value, or None to
decline. Operands of commutative ops are not reordered automatically: a rule per side keeps
what fired readable (``mul_one_left``, ``mul_one_right``).

``apply_rules(fn, rules)`` is the driver: a worklist of the function's ops (regions included) run
to a fixed point, with a cap on the number of rewrites (a rule cycle stops with a warning instead
of hanging). A replacement must have the root's type exactly; otherwise it is discarded with any
ops the rewrite built. The root, and producers that die with it, are erased.
"""
from __future__ import annotations

import inspect
import sys
import warnings
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from graphcell_ir import switches
from graphcell_ir.ir.builder import Builder
from graphcell_ir.ir.core import Function, Literal, Op, OpResult, Value
from graphcell_ir.ir.walk import walk
from graphcell_ir.ops.registry import OpDef
from graphcell_ir.passes.dce import erase_if_dead
from graphcell_ir.passes.support import NOT_CONSTANT, replace_value, splat_value

PRINT_RULES_ENV = "GRAPHCELL_PRINT_RULES"


# --- patterns ----------------------------------------------------------------------------------

class Pattern:
    def match(self, v: Value, binds: dict) -> bool:
        raise NotImplementedError


@dataclass(frozen=True)
class Var(Pattern):
    name: str

    def match(self, v: Value, binds: dict) -> bool:
        bound = binds.get(self.name)
        if bound is None:
            binds[self.name] = v
            return True
        return bound is v


@dataclass(frozen=True)
class Const(Pattern):
    value: float | int

    def match(self, v: Value, binds: dict) -> bool:
        if isinstance(v, Literal) and isinstance(v.value, bool):
            return False  # True == 1 in Python; a bool literal is not the number one
        c = splat_value(v)
        if c is NOT_CONSTANT or c is None or isinstance(c, (bool, np.bool_)):
            return False
        if c != self.value:
            return False
        return not (self.value == 0 and np.signbit(c))


@dataclass(frozen=True)
class OpPattern(Pattern):
    opdef: OpDef
    operands: tuple[Pattern, ...]
    bind: str | None = None

    def match(self, v: Value, binds: dict) -> bool:
        return isinstance(v, OpResult) and self.match_op(v.op, binds)

    def match_op(self, op: Op, binds: dict) -> bool:
        if op.opdef is not self.opdef:
            return False
        if self.bind is not None:
            binds[self.bind] = op
        if self.operands == (...,):
            return True
        return len(op.operands) == len(self.operands) and \
            all(p.match(v, binds) for p, v in zip(self.operands, op.operands))


def var(name: str) -> Var:
    return Var(name)


def const(value: float | int) -> Const:
    return Const(value)


def pat(opdef: OpDef, *operands: Pattern, bind: str | None = None) -> OpPattern:
    return OpPattern(opdef, tuple(operands), bind)


# --- rules -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    """``pattern`` rooted at ``pattern.opdef``; ``rewrite`` as in the module docstring."""

    name: str
    pattern: OpPattern
    rewrite: Callable[..., Value | None]
    wants: tuple[str, ...] = field(default=(), compare=False)

    def apply(self, op: Op, b: Builder) -> Value | None:
        binds: dict = {}
        if not self.pattern.match_op(op, binds):
            return None
        extra = {"root": op, "b": b}
        return self.rewrite(**{k: binds[k] if k in binds else extra[k] for k in self.wants})


def rule(name: str, pattern: OpPattern, rewrite: Callable[..., Value | None]) -> Rule:
    wants = tuple(inspect.signature(rewrite).parameters)
    return Rule(name, pattern, rewrite, wants)


class RuleSet:
    """Named rules indexed by the OpDef of their root (tried in the order given)."""

    def __init__(self, name: str, rules: Sequence[Rule]):
        self.name = name
        self.rules = tuple(rules)
        names = [r.name for r in self.rules]
        if len(set(names)) != len(names):
            raise ValueError(f"rule set {name}: duplicate rule names")
        self.by_root: dict[OpDef, list[Rule]] = {}
        for r in self.rules:
            self.by_root.setdefault(r.pattern.opdef, []).append(r)


# --- the driver --------------------------------------------------------------------------------

class _RecordingBuilder(Builder):
    """A Builder that remembers the ops it inserted (to undo a rejected rewrite)."""

    def __init__(self, op: Op):
        super().__init__(op.parent, op, op.loc)
        self.made: list[Op] = []

    def insert(self, op: Op) -> Op:
        self.made.append(op)
        return super().insert(op)

    def undo(self) -> None:
        for op in reversed(self.made):
            if op.parent is not None and not any(r.uses for r in op.results):
                op.erase()


def apply_rules(fn: Function, rules: RuleSet, max_rewrites: int | None = None) -> Counter:
    """Rewrite ``fn`` with ``rules`` to a fixed point; returns how often each rule fired."""
    fired: Counter = Counter()
    report = switches.on(PRINT_RULES_ENV)
    worklist = deque(op for op in walk(fn) if op.opdef in rules.by_root)
    queued = set(worklist)
    cap = max_rewrites if max_rewrites is not None else 10 * len(queued) + 100
    while worklist:
        op = worklist.popleft()
        queued.discard(op)
        if op.function is not fn:
            continue  # erased (or inside an erased op) since it was queued
        for r in rules.by_root[op.opdef]:
            new_ops = _try_rule(r, op)
            if new_ops is None:
                continue
            fired[r.name] += 1
            if report:
                print(f"[{rules.name}] {r.name} fired on {op.opdef.name}"
                      f"{' at ' + str(op.loc) if op.loc.known else ''}", file=sys.stderr)
            if sum(fired.values()) >= cap:
                warnings.warn(f"{rules.name}: stopped after {cap} rewrites in @{fn.name}; do two "
                              "rules undo each other?", RuntimeWarning, stacklevel=2)
                return fired
            for follow in new_ops:
                if follow.opdef in rules.by_root and follow not in queued:
                    worklist.append(follow)
                    queued.add(follow)
            break
    return fired


def _try_rule(r: Rule, op: Op) -> list[Op] | None:
    """Apply ``r`` at ``op``; on success return the ops to look at again, else None."""
    if len(op.results) != 1:
        return None
    b = _RecordingBuilder(op)
    new = r.apply(op, b)
    old = op.results[0]
    if new is None or new is old or new.type != old.type:
        b.undo()
        return None
    if isinstance(new, OpResult) and new.op in b.made and new.name_hint is None:
        new.name_hint = old.name_hint
    users = list(old.uses)
    replace_value(old, new)
    erase_if_dead(op)
    return [m for m in b.made if m.parent is not None] + users

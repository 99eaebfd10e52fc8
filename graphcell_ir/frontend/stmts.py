"""Statements: assignment, unrolled loops, ``if`` dispatch, ``return``, ``raise``/``assert``, and
the statements graph mode does not support.

- Assignment binds names in the frame's variables; tuple/list targets unpack (nested, starred)
  tuples, lists, static iterables and tensors (along axis 0); ``x[k] = v`` on a tensor is
  ``setitem`` and rebinds ``x``; ``self.attr = v`` is set after the run (``attrs.py``).
- ``for`` is unrolled over anything iterable while compiling: ``range`` with static bounds,
  tuples, lists, a CellList or SequentialCell, the rows of a tensor. ``break``/``continue``/
  ``else`` work under static and tensor conditions alike (as flags, ``jumps.py``; a static
  condition keeps the flags static, so the loop unrolls as it always did).
- ``while`` with a static condition is unrolled; when the condition depends on a tensor,
  ``control.py`` builds an IR ``while`` (also when it only starts depending on one after some
  unrolled iterations: a ``break`` under a tensor condition in ``i = 0; while i < 10:`` makes the
  loop's break flag a bool value, and the rest of the loop an IR ``while``). An early ``return``
  under a tensor condition takes the rest of the unrolled loop into its branch, as in a ``for``.
- Loops unroll at most ``limits.unroll`` iterations (``limits.py``).
- ``raise`` and a failing ``assert`` are fine in branches that are statically dead (layers check
  their arguments this way); reached while compiling they are reported with their message, and
  a ``raise`` ends the compilation there (as it would end the program), so nothing after it
  adds errors that only follow from it.
"""
from __future__ import annotations

import ast
from contextlib import contextmanager

import numpy as np

from graphcell_ir.frontend import jumps
from graphcell_ir.frontend.errors import Kind, kind_of
from graphcell_ir.frontend.exprs import _OPS, describe
from graphcell_ir.frontend.scope import (BASE, BLOCK, LOOP, MISSING, POISON, ForRest, Poison,
                                         WhileRest)
from graphcell_ir.frontend.source import assigned_names, contains
from graphcell_ir.ir.core import Value
from graphcell_ir.ir.types import TensorType, bool_

_UNSUPPORTED = {
    ast.Try: "a 'try' statement", ast.With: "a 'with' statement",
    ast.AsyncWith: "an 'async with' statement", ast.AsyncFor: "an 'async for' loop",
    ast.AsyncFunctionDef: "an 'async def'", ast.Global: "a 'global' statement",
    ast.Nonlocal: "a 'nonlocal' statement", ast.Delete: "a 'del' statement",
    ast.ClassDef: "a class definition", ast.Import: "an 'import' statement",
    ast.ImportFrom: "an 'import' statement",
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED[ast.TryStar] = "a 'try' statement"
if hasattr(ast, "Match"):
    _UNSUPPORTED[ast.Match] = "a 'match' statement"


class StmtMixin:
    """``visit_<stmt>`` methods and assignment."""

    # -- simple statements --
    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant):
            return  # a docstring or a bare constant
        self.eval(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Assign(self, node):
        value = self.eval(node.value)
        for target in node.targets:
            self.assign(target, value, node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.eval(node.value), node)

    def visit_AugAssign(self, node):
        target, op = node.target, type(node.op)
        if isinstance(target, ast.Name):
            new = self.binop(op, self.lookup(target.id, target), self.eval(node.value), node)
            self.bind(target.id, new)
        elif isinstance(target, ast.Subscript):
            base = self.realize(self.eval(target.value), target.value)
            key = self.eval(target.slice)
            current = self.getitem(base, key, target) if isinstance(base, Value) else \
                self.visit_Subscript(ast.copy_location(
                    ast.Subscript(target.value, target.slice, ast.Load()), target))
            self.store_item(target, self.binop(op, current, self.eval(node.value), node), node)
        elif isinstance(target, ast.Attribute):
            current = self.visit_Attribute(ast.copy_location(
                ast.Attribute(target.value, target.attr, ast.Load()), target))
            self.assign_attr(target, self.binop(op, current, self.eval(node.value), node), node)
        else:
            self.assign(target, None, node)  # reports the unsupported target

    def visit_Return(self, node):
        frame = self.frame
        frame.returned = self.eval(node.value) if node.value is not None else None
        frame.jump = "return"

    def visit_Break(self, node):
        self.check_jump(node, "break")
        self.frame.jump = "break"

    def visit_Continue(self, node):
        self.check_jump(node, "continue")
        self.frame.jump = "continue"

    def check_jump(self, node, what: str) -> None:
        """``break``/``continue`` must leave an unrolled loop, not a tensor ``if`` or ``while``."""
        for kind, loc in reversed(self.ctl):
            if kind == "loop":
                return
            if kind == "cond":
                self.fail(node, f"'{what}' under a tensor condition (the if at line {loc.line}) "
                                "is not supported in graph mode", Kind.UNSUPPORTED)
            if kind == "irloop":
                self.fail(node, f"'{what}' in a while loop whose condition is a tensor (line "
                                f"{loc.line}) is not supported in graph mode", Kind.UNSUPPORTED)
            return

    def visit_FunctionDef(self, node):
        if node.decorator_list:
            self.fail(node, "a decorated nested function is not supported in graph mode",
                      Kind.UNSUPPORTED)
        self.bind(node.name, self.make_closure(node, node.name, node.body))

    def visit_Raise(self, node):
        self.check_not_under_tensor_condition(node, "'raise'")
        exc = None
        if node.exc is not None:
            exc = self.realize(self.eval(node.exc), node.exc)
        if isinstance(exc, type) and issubclass(exc, BaseException):
            try:
                exc = exc()
            except Exception:
                pass
        # compiling ends here, as the program would: what follows would only report this
        # error's consequences (an argument a check refused, used anyway)
        if isinstance(exc, BaseException):
            self.fail(node, f"{type(exc).__name__}: {exc}", kind_of(exc), exc, raised=True)
        self.fail(node, "'raise' reached while compiling", raised=True)

    def visit_Assert(self, node):
        t = self.truth(self.eval(node.test), node.test)
        if isinstance(t, Poison):
            return
        if isinstance(t, Value):
            self.fail(node, "'assert' on a tensor is not supported in graph mode: its value is "
                            "only known when the graph runs", Kind.UNSUPPORTED)
        if not t:
            self.check_not_under_tensor_condition(node, "a failing 'assert'")
            msg = self.eval(node.msg) if node.msg is not None else None
            self.fail(node, "AssertionError" + (f": {msg}" if msg is not None else ""), raised=True)

    def check_not_under_tensor_condition(self, node, what: str) -> None:
        for kind, loc in reversed(self.ctl):
            if kind in ("cond", "irloop"):
                self.fail(node, f"{what} under a tensor condition (line {loc.line}) is not "
                                "supported in graph mode: the condition is only known when the "
                                "graph runs", Kind.UNSUPPORTED)

    def visit_unsupported_stmt(self, node):
        self.fail(node, f"{_UNSUPPORTED[type(node)]} is not supported in graph mode",
                  Kind.UNSUPPORTED)

    # -- assignment --
    def assign(self, target, value, node) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target, value)
        elif isinstance(target, ast.Subscript):
            self.store_item(target, value, node)
        elif isinstance(target, ast.Attribute):
            self.assign_attr(target, value, node)
        else:
            self.fail(target, f"cannot assign to {type(target).__name__}", Kind.UNSUPPORTED)

    def bind(self, name: str, value) -> None:
        self.name_value(name, value)
        self.frame.vars[name] = value

    def unpack(self, target, value) -> None:
        if isinstance(value, Poison):
            for name in assigned_names([ast.Expr(target)]):
                self.frame.vars[name] = POISON
            return
        items = self.iterate(value, target, "unpacking")
        elts = target.elts
        star = next((i for i, e in enumerate(elts) if isinstance(e, ast.Starred)), None)
        if star is None:
            if len(items) != len(elts):
                self.fail(target, f"cannot unpack {describe(value)} ({len(items)} values) into "
                                  f"{len(elts)} targets", Kind.VALUE)
            for e, item in zip(elts, items):
                self.assign(e, item, target)
            return
        after = len(elts) - star - 1
        if len(items) < len(elts) - 1:
            self.fail(target, f"cannot unpack {len(items)} values into at least {len(elts) - 1} "
                              "targets", Kind.VALUE)
        for e, item in zip(elts[:star], items[:star]):
            self.assign(e, item, target)
        self.assign(elts[star].value, list(items[star:len(items) - after]), target)
        for e, item in zip(elts[star + 1:], items[len(items) - after:]):
            self.assign(e, item, target)

    def store_item(self, target: ast.Subscript, value, node) -> None:
        """``name[key] = value``: ``setitem`` on a tensor, a copy of a list or dict."""
        if not isinstance(target.value, ast.Name):
            self.fail(target, "assigning into an item is supported on a variable only "
                              "(x[i] = v), not on an attribute or an expression",
                      Kind.UNSUPPORTED)
        name = target.value.id
        base = self.realize(self.lookup(name, target.value), target.value)
        key = self.eval(target.slice)
        if isinstance(base, Poison) or isinstance(value, Poison):
            self.bind(name, POISON)
            return
        if isinstance(base, Value):
            value = self.realize(value, node)
            scatter = self.index_tensor(key, target, mask_ok=True)
            if scatter is None:
                new = self.emit(_OPS["setitem"], (base, value),
                                {"key": self.tensor_key(key, target)}, target)
            elif scatter[1].type.dtype is bool_:
                new = self.masked_store(base, scatter[1], value, target)
            else:
                axis, index = scatter
                new = self.emit(_OPS["scatter_update"],
                                (base, index, self.updates_for(base, value, target)),
                                {"axis": axis}, target)
        elif type(base) in (list, dict):
            key = self.require_static(key, target.slice, "an index into a list or dict")
            if self.is_outside(base):
                self.outside_effect(f"{name}[{key!r}] = ...")
            new = type(base)(base)
            try:
                new[key] = value
            except Exception as e:
                self.fail(target, f"{describe(base)}[{key!r}] = ...: {type(e).__name__}: {e}",
                          Kind.VALUE, e)
        else:
            self.fail(target, f"cannot assign into an item of {describe(base)} in graph mode",
                      Kind.UNSUPPORTED)
        self.bind(name, new)

    def masked_store(self, base: Value, mask: Value, value, node) -> Value:
        """``x[mask] = value`` with a value for every selected row (a number, or a tensor that
        broadcasts to one row ``x.shape[mask.ndim:]``): ``select(mask, value, x)``, the mask
        given trailing axes of 1 — no data-dependent shape on the way."""
        xt, mt = base.type, mask.type
        if mt.shape != xt.shape[:len(mt.shape)]:
            self.fail(node, f"boolean mask of shape {list(mt.shape)} does not match the indexed "
                            f"dimensions {list(xt.shape[:len(mt.shape)])} of a tensor of shape "
                            f"{list(xt.shape)}", Kind.VALUE)
        value = self.updates_for(base, value, node)
        row = xt.shape[len(mt.shape):]
        if len(value.type.shape) > len(row) or any(
                v not in (1, r) for v, r in zip(reversed(value.type.shape), reversed(row))):
            self.fail(node, f"x[mask] = value: in graph mode the value must be a number or "
                            f"broadcast to one selected row {list(row)}, got {describe(value)} "
                            "(a value per selected element has a data-dependent shape)",
                      Kind.UNSUPPORTED)
        if len(row):
            mask = self.emit(_OPS["reshape"], (mask,), {"shape": mt.shape + (1,) * len(row)},
                             node)
        return self.emit(_OPS["select"], (mask, value, base), {}, node)

    def updates_for(self, base: Value, value, node) -> Value:
        """The tensor ``x[i] = value`` writes, in ``x``'s dtype: a Python number becomes a 0-d
        tensor (broadcast by the op), as in PyNative."""
        if isinstance(value, Value) and isinstance(value.type, TensorType):
            if value.type.dtype is not base.type.dtype:
                value = self.emit(_OPS["cast"], (value,), {"dtype": base.type.dtype}, node)
            return value
        if isinstance(value, (bool, int, float, np.number)):
            self.b.loc = self.loc(node)
            return self.b.const(np.asarray(value, dtype=base.type.dtype.np_dtype))
        self.fail(node, f"x[index tensor] = {describe(value)}: the value must be a tensor or a "
                        "Python number", Kind.TYPE)

    # -- if --
    def visit_If(self, node):
        c = self.truth(self.eval(node.test), node.test)
        if isinstance(c, Poison):
            self.poison_both(node, node.body, node.orelse)
        elif isinstance(c, Value):
            self.ir_if(node, c)
        else:
            self.exec_block(node.body if c else node.orelse, BLOCK)

    # -- loops --
    def visit_For(self, node):
        src = self.realize(self.eval(node.iter), node.iter)
        if isinstance(src, Poison):
            self.poison_both(node, node.body, node.orelse)
            return
        items = self.iterate(src, node.iter, "a for loop")
        if len(items) > self.limits.unroll:
            self.fail(node.iter, self.limits.message(
                "unroll", f"this for loop would unroll {len(items)} iterations (for loops unroll "
                "while compiling; a while loop on a tensor condition stays a loop)"), Kind.LIMIT)
        if jumps.has_jumps(node):
            self.run_for_with_jumps(node, items)
        else:
            self.run_for(node, items, 0, None)

    def run_for_with_jumps(self, node: ast.For, items: list) -> None:
        """``break``/``continue`` as flags (``jumps.rewrite_for``), bound to False before the
        loop and gone after it."""
        with self.static_flags(node):
            self.run_for(jumps.rewrite_for(node), items, 0, None)

    @contextmanager
    def static_flags(self, node):
        """The jump flags of ``node`` (and the start value of its skip flag) bound to Python
        False while it is compiled: a jump decided while compiling keeps them static; one under
        a tensor condition turns them into bool values."""
        vars_ = self.frame.vars
        names = jumps.flags(node)
        saved_false = vars_.get(jumps.FALSE, MISSING)
        for name in (jumps.FALSE, *names):
            vars_[name] = False
        try:
            yield
        finally:
            vars_ = self.frame.vars
            for name in names:
                vars_.pop(name, None)
            if saved_false is MISSING:
                vars_.pop(jumps.FALSE, None)
            else:
                vars_[jumps.FALSE] = saved_false

    def visit_ForRest(self, rest: ForRest):
        """The rest of an unrolled loop, compiled inside a branch (``control.take_continuation``)."""
        self.run_for(rest.node, rest.items, rest.index, rest.first)

    def run_for(self, node: ast.For, items: list, start: int, first: list | None) -> None:
        """Iterations ``start``... of ``node`` over ``items``, then its ``else``; ``first``: the
        statements iteration ``start`` still runs (its target bound already), or None."""
        frame = self.frame
        self.ctl.append(("loop", self.loc(node)))
        try:
            for k in range(start, len(items)):
                body = node.body
                if k == start and first is not None:
                    body = first
                else:
                    self.assign(node.target, items[k], node)
                self.exec_block(body, LOOP, ForRest(node, items, k, []))
                if frame.jump == "continue":
                    frame.jump = None
                elif frame.jump == "break":
                    frame.jump = None
                    return
                elif frame.jump is not None:
                    return
        finally:
            self.ctl.pop()
        self.exec_block(node.orelse, BLOCK)

    def visit_While(self, node):
        if contains([node.test], ast.NamedExpr):
            self.fail(node.test, "an assignment expression (:=) in a while condition is not "
                                 "supported in graph mode", Kind.UNSUPPORTED)
        if jumps.has_jumps(node) and not isinstance(self.static_condition(node.test), Value):
            with self.static_flags(node):   # unrolled while the flags stay static
                self.run_while(jumps.rewrite(node), 0, None)
        else:   # (a loop on a tensor from the start: its flags are bool tensors, control.py)
            self.run_while(node, 0, None)

    def visit_WhileRest(self, rest: WhileRest):
        """The rest of an unrolled while loop, compiled inside a branch."""
        self.run_while(rest.node, rest.count, rest.first)

    def run_while(self, node: ast.While, start: int, first: list | None) -> None:
        """A while loop from iteration ``start`` (``first``: the statements that iteration still
        runs, or None). While its condition is known while compiling it is unrolled; once it
        depends on a tensor (from the start, or after a jump under a tensor condition turned
        the flags of ``jumps.rewrite`` into bool values), the rest is an IR ``while``."""
        frame = self.frame
        k, body = start, first
        while True:
            if body is None:
                c = self.static_condition(node.test)
                if isinstance(c, Poison):
                    self.poison_both(node, node.body, node.orelse)
                    return
                if isinstance(c, Value):
                    self.ir_while(node)
                    return
                if not c:
                    self.exec_block(node.orelse, BLOCK)
                    return
                if k >= self.limits.unroll:
                    self.fail(node, self.limits.message(
                        "unroll", f"this while loop's condition is known while compiling, so it "
                        f"is unrolled, and it was still true after {k} iterations (make the "
                        "condition depend on a tensor to keep a loop in the graph)"), Kind.LIMIT)
                body = node.body
            n_diags = len(self.diags)
            self.ctl.append(("loop", self.loc(node)))
            try:
                self.exec_block(body, LOOP, WhileRest(node, k, []))
            finally:
                self.ctl.pop()
            k, body = k + 1, None
            if frame.jump == "continue":
                frame.jump = None
            elif frame.jump is not None:   # break (the else is skipped) or return
                if frame.jump == "break":
                    frame.jump = None
                return
            if len(self.diags) > n_diags:
                return   # unrolling on would only report the same problems again

    def static_condition(self, test):
        """The condition of a while loop when it is known while compiling; else an IR value
        (whose ops are thrown away: the loop's cond region computes it again)."""
        frame = self.frame
        saved = frame.vars, self.bindings
        with self.scratch():
            c = self.truth(self.eval(test), test)
        if isinstance(c, Value):
            frame.vars, self.bindings = saved
        return c

    def poison_both(self, node, *bodies) -> None:
        """A statement whose condition or iterable failed: compile its bodies for their own
        problems, then poison every name they bind."""
        frame = self.frame
        saved = frame.vars, self.bindings, frame.jump, frame.returned
        for body in bodies:
            frame.vars, self.bindings = dict(saved[0]), dict(saved[1])
            with self.scratch():
                self.exec_block(body, BASE)
        frame.vars, self.bindings, frame.jump, frame.returned = saved
        self.poison(node)


for _t in _UNSUPPORTED:  # one visitor for every statement graph mode rejects
    setattr(StmtMixin, "visit_" + _t.__name__, StmtMixin.visit_unsupported_stmt)

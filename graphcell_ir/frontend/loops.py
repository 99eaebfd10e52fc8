"""Functional loops: MindSpore's ``ops.WhileLoop``, ``ops.ForiLoop`` and ``ops.Scan``, and
graphcell's stacked ``scan`` — a loop given as a function and a carry, compiled into one IR
``while`` instead of being unrolled.

A ``for`` over ``range`` unrolls, as in MindSpore, whose compiler unrolls every loop whose
condition is known while compiling; a loop over a long sequence then costs compile time in
proportion to its length. These primitives are MindSpore's way of asking for a loop that stays a
loop (``unroll=False``; ``WhileLoop`` always). The frontend compiles them with the machinery of a
``while`` on a tensor (``ControlMixin.ir_loop``), its state held in hidden variables of the
calling frame (names that are not identifiers, as ``jumps.py`` does):

- the **carry** (``init_val``/``init``): any structure of tensors and numbers. Numbers become 0-d
  tensors (int64, float32, bool), so the loop may change them and IR autodiff may save them;
  static leaves (None, strings) must come back unchanged, tensors with their types;
- a **counter** ``k``, an int64 0-d tensor counting from 0 (``ForiLoop``: from ``lower``, and it
  is ``loop_func``'s first argument). A loop ``k < n; k + 1`` from a constant is what IR autodiff
  recognises as counted (``autodiff/analysis.trip_count``): its backward saves one slot per
  iteration, no more;
- ``Scan``'s **inputs and outputs**: ``xs`` (a tensor scanned along its first axis, or a
  list/tuple of per-step values, stacked once) is read at step ``k`` with ``take``; each step's
  output ``y`` is written into a preallocated stacked tensor with ``scatter_update``. MindSpore's
  ``Scan`` returns the outputs as a list: graph mode gives the rows of the stacked tensors
  (``getitem``); graphcell's ``scan`` returns the stacked tensors themselves (what layers use:
  no per-step op outside the loop).

``unroll=True`` (MindSpore's default for ``ForiLoop`` and ``Scan``) with static bounds calls the
function once per step while compiling, as a Python loop would be unrolled.
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.frontend import resolve as R
from graphcell_ir.frontend.control import LoopCode, flatten, same_skeleton, unflatten
from graphcell_ir.frontend.errors import Kind
from graphcell_ir.frontend.exprs import describe
from graphcell_ir.frontend.scope import POISON, Poison, has_poison, map_leaves
from graphcell_ir.ir.core import Value
from graphcell_ir.ir.types import TensorType, int64
from graphcell_ir.ops import functional as F


class LoopMixin:
    """``call_loop``: a call of a :class:`~graphcell_ir.frontend.resolve.Loop` record."""

    def call_loop(self, rec: R.Loop, args: list, kwargs: dict, node):
        try:
            bound = rec.signature.bind(*args, **kwargs)
        except TypeError as e:
            self.fail(node, f"{rec.name}(): {e}", Kind.TYPE, e)
        bound.apply_defaults()
        a = bound.arguments
        if has_poison([a[p] for p in rec.kind.value if p in a]):
            return POISON
        kind = rec.kind
        if kind is R.LoopKind.WHILE:
            return self._while_loop(rec, node, a["cond_func"], a["loop_func"], a["init_val"])
        if kind is R.LoopKind.FORI:
            return self._fori_loop(rec, node, a)
        return self._scan(rec, node, a, stacked=kind is R.LoopKind.SCAN_STACKED)

    # -- the three loops --
    def _while_loop(self, rec, node, cond_func, loop_func, init):
        names = _Names(node)
        state = {names.carry: self._lift_numbers(init, node)}

        def test():
            return self.call(cond_func, [self.frame.vars[names.carry]], {}, node)

        def body():
            v = self.frame.vars
            new = self.call(loop_func, [v[names.carry]], {}, node)
            v[names.carry] = self._same_carry(rec, v[names.carry], new, node)
        return self._run_loop(node, names, state, test, body)[names.carry]

    def _fori_loop(self, rec, node, a: dict):
        lower = self.realize(a["lower"], node)
        upper = self.realize(a["upper"], node)
        fn, init = a["loop_func"], a["init_val"]
        for what, bound in (("lower", lower), ("upper", upper)):
            if not _int_bound(bound):
                self.fail(node, f"{rec.name}(): '{what}' must be an int or an integer tensor, "
                                f"got {describe(bound)}", Kind.TYPE)
        if self.require_static(a["unroll"], node, f"{rec.name}'s 'unroll'") and \
                not isinstance(lower, Value) and not isinstance(upper, Value):
            val = init
            for i in range(int(lower), int(upper)):
                val = self.call(fn, [i, val], {}, node)
            return val
        names = _Names(node)
        state = {names.k: self._counter(lower, node), names.carry: self._lift_numbers(init, node)}

        def test():
            return self.emit_f(node, F.less, self.frame.vars[names.k], upper)

        def body():
            v = self.frame.vars
            k = v[names.k]
            new = self.call(fn, [k, v[names.carry]], {}, node)
            v[names.carry] = self._same_carry(rec, v[names.carry], new, node)
            v[names.k] = self.emit_f(node, F.add, k, 1)
        return self._run_loop(node, names, state, test, body)[names.carry]

    def _scan(self, rec, node, a: dict, stacked: bool):
        fn, init = a["loop_func"], a["init"]
        xs = self._scan_inputs(rec, node, a["xs"])
        length = self._scan_length(rec, node, xs, a["length"])
        if not stacked and self.require_static(a["unroll"], node, f"{rec.name}'s 'unroll'"):
            return self._scan_unrolled(rec, node, fn, init, xs, length)
        reverse = stacked and bool(self.require_static(a["reverse"], node,
                                                       f"{rec.name}'s 'reverse'"))
        if stacked and length == 0:
            self.fail(node, f"{rec.name}(): there must be at least one step: the outputs' "
                            "shapes come from one", Kind.VALUE)
        names = _Names(node)
        carry = self._lift_numbers(init, node)
        y_skel, y_types = self._probe_outputs(rec, node, fn, carry, xs, length)
        with self.b.at_loc(self.loc(node)), F.using_emitter(self.emitter):
            bufs = tuple(F.fill(dtype=t.dtype, shape=(length, *t.shape), value=0)
                         for t in y_types)
        state = {names.k: self._counter(0, node), names.carry: carry, names.ys: bufs}

        def test():
            return self.emit_f(node, F.less, self.frame.vars[names.k], length)

        def body():
            v = self.frame.vars
            k = v[names.k]
            t = self.emit_f(node, F.sub, length - 1, k) if reverse else k
            out = self.call(fn, [v[names.carry], self._step_input(node, xs, t)], {}, node)
            new, y = self._carry_and_output(rec, node, out)
            v[names.carry] = self._same_carry(rec, v[names.carry], new, node)
            v[names.ys] = self._write_outputs(rec, node, v[names.ys], t, y, y_skel, y_types)
            v[names.k] = self.emit_f(node, F.add, k, 1)
        final = self._run_loop(node, names, state, test, body)
        ys = final[names.ys]
        if has_poison(ys):
            return POISON
        if stacked:
            return final[names.carry], unflatten(y_skel, list(ys))
        rows = [unflatten(y_skel, [self.emit_f(node, _row, buf, i) for buf in ys])
                for i in range(length)]
        return final[names.carry], rows

    def _scan_unrolled(self, rec, node, fn, init, xs, length: int):
        carry, ys = init, []
        for i in range(length):
            out = self.call(fn, [carry, self._step_input(node, xs, i)], {}, node)
            carry, y = self._carry_and_output(rec, node, out)
            ys.append(y)
        return carry, ys

    # -- running an IR loop on hidden variables --
    def _run_loop(self, node, names: "_Names", state: dict, test, body) -> dict:
        """Bind ``state`` (hidden name -> value) in the frame, build the IR loop, and return the
        final values; the hidden names are gone afterwards."""
        self.frame.vars.update(state)
        try:
            self.ir_loop(node, list(state), LoopCode(test, node, body))
            return {n: self.frame.vars.get(n, POISON) for n in state}  # the loop rebinds them
        finally:
            for n in state:
                self.frame.vars.pop(n, None)

    def emit_f(self, node, fn, *args, **attrs):
        """``fn`` (a function of the functional API) emitted here, at ``node``."""
        if any(isinstance(x, Poison) for x in args):
            return POISON
        self.b.loc = self.loc(node)
        with self.op_errors(node), F.using_emitter(self.emitter):
            return fn(*args, **attrs)

    def _counter(self, start, node) -> Value:
        """The loop counter's initial value: an int64 0-d tensor."""
        if isinstance(start, Value):
            if start.type != TensorType(int64, ()):
                with self.b.at_loc(self.loc(node)), F.using_emitter(self.emitter):
                    start = F.reshape(F.cast(start, dtype=int64), shape=())
            return start
        with self.b.at_loc(self.loc(node)):
            return self.b.const(np.array(int(start), np.int64))

    def _lift_numbers(self, init, node):
        """The carry with its Python numbers as 0-d tensors (bool, int64, float32)."""
        def lift(x):
            if type(x) in (bool, int, float):
                dtype = {bool: np.bool_, int: np.int64, float: np.float32}[type(x)]
                with self.b.at_loc(self.loc(node)):
                    return self.b.const(np.array(x, dtype))
            return x
        return map_leaves(lift, self.realize_deep(init, node))

    def _same_carry(self, rec, old, new, node):
        """``new`` (what ``loop_func`` returned) checked against the carry it was given."""
        new = self.realize_deep(new, node)
        if has_poison(new):
            return new
        new = self._lift_numbers(new, node)
        (s0, l0), (s1, l1) = flatten(old), flatten(new)
        problem = None
        if not same_skeleton(s0, s1):
            problem = f"{describe(new)} for a carry that is {describe(old)}"
        else:
            for i, (a, b) in enumerate(zip(l0, l1)):
                ta = a.type if isinstance(a, Value) else None
                tb = b.type if isinstance(b, Value) else None
                if ta != tb:
                    problem = (f"a carry whose part {i} is {describe(b)} where it was "
                               f"{describe(a)}")
                    break
        if problem is not None:
            self.fail(node, f"{rec.name}(): the loop function returned {problem}; the carry must "
                            "keep its structure and types from step to step", Kind.TYPE)
        return new

    # -- Scan's inputs and outputs --
    def _scan_inputs(self, rec, node, xs):
        """``xs`` as the scan reads it: None, a tensor (scanned along axis 0), or a list of
        per-step values with each part stacked into one tensor (``("steps", skeleton, stacks)``)."""
        xs = self.realize_deep(xs, node)
        if xs is None or isinstance(xs, Value):
            if isinstance(xs, Value) and not (isinstance(xs.type, TensorType) and xs.type.shape):
                self.fail(node, f"{rec.name}(): 'xs' must be a tensor of at least one dimension, "
                                f"a list, a tuple or None, got {describe(xs)}", Kind.TYPE)
            return xs
        if type(xs) not in (list, tuple):
            self.fail(node, f"{rec.name}(): 'xs' must be a list, a tuple, a tensor or None, got "
                            f"{describe(xs)}", Kind.TYPE)
        if not xs:
            return ("steps", None, [], 0)
        skel, first = flatten(xs[0])
        columns: list[list] = [[] for _ in first]
        for item in xs:
            s, lv = flatten(item)
            if not same_skeleton(skel, s):
                self.fail(node, f"{rec.name}(): every element of 'xs' must have the structure of "
                                "the first", Kind.TYPE)
            for col, leaf in zip(columns, lv):
                col.append(leaf)
        stacks = [self._stack_column(rec, node, col) for col in columns]
        return ("steps", skel, stacks, len(xs))

    def _stack_column(self, rec, node, column: list) -> Value:
        if all(type(x) in (bool, int, float) for x in column):
            with self.b.at_loc(self.loc(node)):
                return self.b.const(np.array(column, _NUMBER_DTYPE[type(column[0])]))
        if not all(isinstance(x, Value) for x in column):
            self.fail(node, f"{rec.name}(): the elements of 'xs' must hold tensors or numbers",
                      Kind.TYPE)
        return self.emit_f(node, lambda *c: F.concat(*[F.expand_dims(x, axis=0) for x in c],
                                                     axis=0), *column)

    def _scan_length(self, rec, node, xs, length) -> int:
        length = self.require_static(length, node, f"{rec.name}'s 'length'")
        if xs is None:
            n = length
        elif isinstance(xs, Value):
            n = xs.type.shape[0]
        else:
            n = xs[3]
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            self.fail(node, f"{rec.name}(): with xs None, 'length' must be a non-negative int, "
                            f"got {n!r}", Kind.TYPE)
        if length is not None and length != n:
            self.fail(node, f"{rec.name}(): 'length' is {length} but 'xs' has {n} elements",
                      Kind.VALUE)
        return n

    def _step_input(self, node, xs, t):
        """The scan's input at step ``t`` (an int, or an int64 0-d tensor)."""
        if xs is None:
            return None
        if isinstance(xs, Value):
            return self.emit_f(node, _row, xs, t)
        _, skel, stacks, _ = xs
        return unflatten(skel, [self.emit_f(node, _row, s, t) for s in stacks])

    def _carry_and_output(self, rec, node, out):
        out = self.realize_deep(out, node)
        if isinstance(out, Poison):
            return POISON, POISON
        if type(out) not in (tuple, list) or len(out) != 2:
            self.fail(node, f"{rec.name}(): the loop function must return a pair (carry, output), "
                            f"got {describe(out)}", Kind.TYPE)
        return out[0], out[1]

    def _probe_outputs(self, rec, node, fn, carry, xs, length: int):
        """The structure and types of one step's output, from the step compiled once into a
        scratch block (the loop's buffers are made before the loop)."""
        frame = self.frame
        saved = frame.vars, self.bindings
        frame.vars = dict(frame.vars)
        try:
            with self.scratch():
                zero = self._counter(0, node)
                out = self.call(fn, [carry, self._step_input(node, xs, zero)], {}, node)
                _, y = self._carry_and_output(rec, node, out)
                y = self._lift_numbers(y, node)
                skel, leaves_ = flatten(y)
        finally:
            frame.vars, self.bindings = saved
        types = []
        for i, leaf in enumerate(leaves_):
            if not (isinstance(leaf, Value) and isinstance(leaf.type, TensorType)):
                self.fail(node, f"{rec.name}(): a step's output must be made of tensors and "
                                f"numbers, but part {i} is {describe(leaf)}", Kind.TYPE)
            types.append(leaf.type)
        return skel, types

    def _write_outputs(self, rec, node, bufs, t, y, skel, types):
        y = self._lift_numbers(self.realize_deep(y, node), node)
        if has_poison(y) or has_poison(bufs):
            return POISON
        s, leaves_ = flatten(y)
        if not same_skeleton(s, skel) or [getattr(x, "type", None) for x in leaves_] != types:
            self.fail(node, f"{rec.name}(): the loop function's output changed from step to "
                            f"step ({describe(y)}); every step must give the same structure and "
                            "types", Kind.TYPE)
        return tuple(self.emit_f(node, F.scatter_update, buf, t, leaf, axis=0)
                     for buf, leaf in zip(bufs, leaves_))


_NUMBER_DTYPE = {bool: np.bool_, int: np.int64, float: np.float32}


class _Names:
    """The hidden variables of one loop: ``<part>@loop<line>:<col>`` is no Python identifier, so
    no user name clashes, and the call's position keeps loops at different places apart; the IR
    calls the values ``%k``, ``%carry``, ``%ys`` (``control._hint``)."""

    def __init__(self, node):
        where = f"{getattr(node, 'lineno', 0)}:{getattr(node, 'col_offset', 0)}"
        self.carry, self.k, self.ys = (f"{part}@loop{where}" for part in ("carry", "k", "ys"))


def _row(x, t):
    """Row ``t`` of ``x`` along axis 0 (``t`` an int or an int64 0-d tensor)."""
    if isinstance(t, int):
        return F.getitem(x, key=(t,))
    return F.take(x, t, axis=0)


def _int_bound(v) -> bool:
    if isinstance(v, Value):
        t = v.type
        return isinstance(t, TensorType) and t.dtype.is_int and t.size == 1
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

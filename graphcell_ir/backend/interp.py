"""The reference interpreter: runs IR op by op with the registry's numpy ``ref`` functions.

It is the oracle that passes and the compiled backend are tested against, so it is deliberately
simple: every primitive runs through ``opdef.ref``, ``if``/``while``/``fused`` run their regions,
``call`` runs the callee, ``const`` gives its array. To keep the cost per op low (a few
microseconds on tiny tensors), each function is compiled once into a list of closures over an
environment dict keyed by the IR values; literals and constants are put in that dict before the
first op runs.

``check_types=True`` compares every value an op produces with its IR type (an oracle for shape
rules against references). Constants are handed to ops as read-only arrays, so a reference that
writes into its input fails loudly instead of corrupting later runs.

Example::

    >>> from graphcell_ir.text import parse_module
    >>> import numpy as np
    >>> m = parse_module('''func @f(%x: f32[2]) -> f32[2] {
    ...   %0 = mul(%x, 3.0:f32) : f32[2]
    ...   return %0
    ... }
    ... ''')
    >>> interpret(m, np.array([1, 2], np.float32))
    array([3., 6.], dtype=float32)
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from graphcell_ir.errors import InterpError
from graphcell_ir.ir.core import Block, Function, Literal, Module, Op, Value
from graphcell_ir.ir.structural import CALL, CONST, FUSED, IF, WHILE, const_array
from graphcell_ir.ir.types import (NONE, ScalarType, TensorType, TupleType, Type,
                                   dtype_from_numpy)

Step = Callable[[dict], None]


def interpret(target: Module | Function, *args, fn: str | None = None, check_types: bool = False):
    """Run a function on numpy inputs: ``fn`` of a Module (its only function when omitted), or a
    Function. Returns the single result, or a tuple when there are zero or several."""
    if isinstance(target, Function):
        return Interpreter(target.module, check_types=check_types).run(target, *args)
    if fn is None:
        if len(target) != 1:
            raise InterpError(f"the module has {len(target)} functions; say which with fn=")
        fn = next(iter(target)).name
    return Interpreter(target, check_types=check_types).run(fn, *args)


class Interpreter:
    """Compiles each function on first use and runs it; reuse it to run many times."""

    def __init__(self, module: Module | None = None, *, check_types: bool = False,
                 max_iterations: int | None = None):
        self.module = module
        self.check_types = check_types
        self.max_iterations = max_iterations
        self._compiled: dict[Function, _Compiled] = {}

    def run(self, fn: Function | str, *args):
        if isinstance(fn, str):
            if self.module is None:
                raise InterpError(f"no module to find @{fn} in")
            try:
                fn = self.module[fn]
            except KeyError as e:
                raise InterpError(e.args[0]) from None
        results = self.compiled(fn)(args)
        return results[0] if len(results) == 1 else tuple(results)

    def compiled(self, fn: Function) -> _Compiled:
        c = self._compiled.get(fn)
        if c is None:
            c = self._compiled[fn] = _Compiled(fn, self)
        return c


class _Compiled:
    """One function as closures: ``self(args)`` returns the list of its results."""

    def __init__(self, fn: Function, interp: Interpreter):
        self.fn = fn
        self.interp = interp
        self.env0: dict = {}
        self.args = list(fn.args)
        self.body = self.block(fn.body)

    def __call__(self, args: Sequence) -> list:
        if len(args) != len(self.args):
            raise InterpError(f"@{self.fn.name} takes {len(self.args)} argument(s), got {len(args)}")
        env = dict(self.env0)
        for a, x in zip(self.args, args):
            env[a] = _check_arg(self.fn, a, x)
        return self.body(env)

    # -- compiling --
    def block(self, block: Block) -> Callable[[dict], list]:
        steps: list[tuple[Step, Op]] = []
        outs: tuple[Value, ...] = ()
        for op in block:
            if op.is_terminator:
                outs = op.operands
                break
            for v in op.operands:
                if isinstance(v, Literal):
                    self.env0[v] = v.value
            steps.append((self.step(op), op))
        for v in outs:
            if isinstance(v, Literal):
                self.env0[v] = v.value
        fns = [s for s, _ in steps]

        def run(env: dict) -> list:
            i = 0
            try:
                for i, step in enumerate(fns):
                    step(env)
            except InterpError:
                raise
            except Exception as e:
                op = steps[i][1]
                raise InterpError(f"{op.opdef.name}{_where(op)} in @{self.fn.name} failed: "
                                  f"{type(e).__name__}: {e}") from e
            return [env[v] for v in outs]
        return run

    def step(self, op: Op) -> Step:
        special = {IF: self.if_step, WHILE: self.while_step, CALL: self.call_step,
                   CONST: self.const_step, FUSED: self.fused_step}.get(op.opdef)
        step = special(op) if special is not None else _ref_step(op)
        return _checked(step, op) if self.interp.check_types else step

    def const_step(self, op: Op) -> Step:
        arr = const_array(op)
        if arr is None:
            raise InterpError(f"constant {op.attrs['ref']} is not loaded: give the table to "
                              "parse_module(consts=...) or fill module.consts")
        view = arr.view()
        view.setflags(write=False)
        self.env0[op.results[0]] = view
        return _nothing

    def if_step(self, op: Op) -> Step:
        cond, outs = op.operands[0], op.results
        then_run, else_run = self.block(op.regions[0].block), self.block(op.regions[1].block)

        def step(env: dict) -> None:
            vals = (then_run if env[cond] else else_run)(env)
            for r, x in zip(outs, vals):
                env[r] = x
        return step

    def while_step(self, op: Op) -> Step:
        inits, outs = op.operands, op.results
        cond_args, body_args = op.regions[0].block.args, op.regions[1].block.args
        cond_run, body_run = self.block(op.regions[0].block), self.block(op.regions[1].block)
        limit = self.interp.max_iterations

        def step(env: dict) -> None:
            vals, n = [env[v] for v in inits], 0
            while True:
                for a, x in zip(cond_args, vals):
                    env[a] = x
                if not cond_run(env)[0]:
                    break
                n += 1
                if limit is not None and n > limit:
                    raise InterpError(f"while{_where(op)} ran more than {limit} iterations")
                for a, x in zip(body_args, vals):
                    env[a] = x
                vals = body_run(env)
            for r, x in zip(outs, vals):
                env[r] = x
        return step

    def fused_step(self, op: Op) -> Step:
        """A fused kernel runs its body on its operands, op by op, like any block."""
        ins, outs, args = op.operands, op.results, op.regions[0].block.args
        body_run = self.block(op.regions[0].block)

        def step(env: dict) -> None:
            for a, v in zip(args, ins):
                env[a] = env[v]
            for r, x in zip(outs, body_run(env)):
                env[r] = x
        return step

    def call_step(self, op: Op) -> Step:
        name, ins, outs, interp = op.attrs["callee"], op.operands, op.results, self.interp
        module = interp.module
        callee = module.get(name) if module is not None else None
        if callee is None:
            raise InterpError(f"call to @{name}, which is not in the module")

        def step(env: dict) -> None:
            vals = interp.compiled(callee)([env[v] for v in ins])
            for r, x in zip(outs, vals):
                env[r] = x
        return step


def _where(op: Op) -> str:
    return f" at {op.loc}" if op.loc.known else ""


def _nothing(env: dict) -> None:
    return None


def _ref_step(op: Op) -> Step:
    ref, ins, outs, attrs = op.opdef.ref, op.operands, op.results, dict(op.attrs)
    if len(outs) == 1:
        out = outs[0]
        if attrs:
            def step(env: dict) -> None:
                env[out] = ref(*[env[v] for v in ins], **attrs)
        else:
            def step(env: dict) -> None:
                env[out] = ref(*[env[v] for v in ins])
        return step

    def step_many(env: dict) -> None:
        res = ref(*[env[v] for v in ins], **attrs)
        if not outs:
            return
        if not isinstance(res, tuple) or len(res) != len(outs):
            raise InterpError(f"{op.opdef.name}: the reference gave {type(res).__name__} for "
                              f"{len(outs)} results")
        for r, x in zip(outs, res):
            env[r] = x
    return step_many


def _checked(step: Step, op: Op) -> Step:
    def checked(env: dict) -> None:
        step(env)
        for i, r in enumerate(op.results):
            problem = type_mismatch(env[r], r.type)
            if problem:
                raise InterpError(f"{op.opdef.name}{_where(op)}: result {i} should be {r.type} but the "
                                  f"reference gave {problem}")
    return checked


def type_mismatch(x, t: Type) -> str | None:
    """None when runtime value ``x`` fits IR type ``t``; else a description of ``x``."""
    if isinstance(t, TensorType):
        if not isinstance(x, (np.ndarray, np.generic)):
            return f"a {type(x).__name__}"
        try:
            got = TensorType(dtype_from_numpy(x.dtype), tuple(np.shape(x)))
        except TypeError:
            return f"an array of dtype {x.dtype}"
        return None if got == t else str(got)
    if isinstance(t, ScalarType):
        kind = (bool,) if t.dtype.is_bool else (int,) if t.dtype.is_int else (float,)
        ok = isinstance(x, kind) and (t.dtype.is_bool or not isinstance(x, bool))
        return None if ok else f"{type(x).__name__} {x!r}"
    if isinstance(t, TupleType):
        if not isinstance(x, tuple) or len(x) != len(t.elements):
            return f"a {type(x).__name__}"
        for e, et in zip(x, t.elements):
            p = type_mismatch(e, et)
            if p:
                return f"a tuple holding {p}"
        return None
    if t == NONE:
        return None if x is None else f"a {type(x).__name__}"
    return None


def _check_arg(fn: Function, a, x):
    if isinstance(x, np.generic):
        x = np.asarray(x)
    problem = type_mismatch(x, a.type)
    if problem:
        raise InterpError(f"argument {a.index} of @{fn.name} should be {a.type}, got {problem}")
    return x

"""Hypothesis strategies for random dataflow graphs the passes have something to do on.

``graphs()`` builds a Module with ``@main`` (and sometimes ``@helper``, which main calls) out of
the registry's elementwise ops, reductions, matmuls and layout ops on a few compatible shapes,
with literals and constants (small inline ones and large ones in the constant table), plus
seeds for every pass: exact identities and inexact look-alikes (``x * 1``, ``x + 0``), layout
no-ops and chains, duplicated subexpressions, dead ops, constant-only subgraphs, an ``if`` on a
constant or a runtime predicate, calls, and the ops passes must respect (``assign`` on a
parameter, ``dropout``). Draws the shape rules reject are skipped, as in ``gcir_strategies``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent.parent / "text"))
import gcir_strategies as gen  # noqa: E402

from graphcell_ir.ir import (Builder, DType, Function, Loc, Module, OpResult,  # noqa: E402
                             ScalarType, TensorType, Value)
from graphcell_ir.ops import REGISTRY, AttrKind, Kind  # noqa: E402

F32, I32, BOOL = DType.float32, DType.int32, DType.bool_
ARG_TYPES = [TensorType(F32, (2, 3)), TensorType(F32, (3,)), TensorType(F32, (2, 1)),
             TensorType(F32, ()), ScalarType(F32), TensorType(I32, (2, 3)),
             TensorType(BOOL, (2, 3))]
ELEMENTWISE = sorted((op for op in REGISTRY.values() if op.kind is Kind.ELEMENTWISE),
                     key=lambda op: op.name)
REDUCTIONS = sorted((op for op in REGISTRY.values() if op.kind is Kind.REDUCTION),
                    key=lambda op: op.name)
OP = {name: REGISTRY[name] for name in (
    "mul", "add", "sub", "div", "neg", "cast", "reshape", "transpose", "broadcast_to",
    "expand_dims", "squeeze", "matmul", "greater", "assign", "dropout", "reduce_sum")}
LITERALS = st.sampled_from([0.0, -0.0, 1.0, 1, 0, 2.0, 0.5, -1.5, 3])
LOCS = [Loc("net.py", n, 4, ("Net.construct",)) for n in range(1, 6)]


class _Graph:
    def __init__(self, draw, module: Module):
        self.draw = draw
        self.m = module

    def pick(self, pool: list, pred=lambda v: True) -> Value | None:
        """A value of ``pool`` satisfying ``pred``, often a recent one (so chains form)."""
        options = [v for v in pool if pred(v)]
        if len(options) > 3 and self.draw(st.booleans()):
            options = options[-3:]
        return self.draw(st.sampled_from(options)) if options else None

    def operand(self, pool: list):
        if self.draw(st.integers(0, 5)) == 0:
            return self.draw(LITERALS)
        return self.pick(pool)

    def attrs(self, op) -> dict:
        return {a.name: self.draw(gen.ATTR_VALUES[a.kind]) for a in op.attrs
                if a.kind is not AttrKind.ANY and (a.required or self.draw(st.booleans()))}

    # -- one move each; each returns the new values --
    def elementwise(self, b: Builder, pool: list):
        op = self.draw(st.sampled_from(ELEMENTWISE))
        operands = [self.operand(pool) for _ in op.operands]
        return list(b.create(op, operands, self.attrs(op)).results)

    def reduction(self, b: Builder, pool: list):
        op = self.draw(st.sampled_from(REDUCTIONS))
        x = self.pick(pool, lambda v: isinstance(v.type, TensorType))
        axis = self.draw(st.one_of(st.none(), st.integers(-x.ndim, max(x.ndim - 1, 0))))
        return [b.op(op, x, axis=axis, keep_dims=self.draw(st.booleans()))]

    def matmul(self, b: Builder, pool: list):
        x = self.pick(pool, lambda v: v.type == TensorType(F32, (2, 3)))
        y = self.pick(pool, lambda v: isinstance(v.type, TensorType) and v.ndim == 2)
        return [b.op(OP["matmul"], x, y, transpose_b=self.draw(st.booleans()))]

    def layout(self, b: Builder, pool: list):
        x = self.pick(pool, lambda v: isinstance(v.type, TensorType))
        kind = self.draw(st.sampled_from(["reshape", "transpose", "broadcast_to", "expand_dims",
                                          "squeeze", "chain"]))
        if kind == "reshape":
            return [b.op(OP["reshape"], x, shape=self.draw(st.sampled_from(
                [x.shape, (-1,), (1,) + x.shape, tuple(reversed(x.shape))])))]
        if kind == "transpose":
            perm = self.draw(st.permutations(range(x.ndim)))
            return [b.op(OP["transpose"], x, perm=tuple(perm))]
        if kind == "broadcast_to":
            return [b.op(OP["broadcast_to"], x, shape=self.draw(st.sampled_from(
                [x.shape, (2,) + x.shape, (1,) + x.shape])))]
        if kind == "expand_dims":
            return [b.op(OP["expand_dims"], x, axis=self.draw(st.integers(0, x.ndim)))]
        if kind == "squeeze":
            return [b.op(OP["squeeze"], x)]
        y = b.op(OP["transpose"], x)  # a chain that simplify collapses
        return [b.op(OP["transpose"], y)]

    def seed(self, b: Builder, pool: list):
        """Patterns the rules look for, exact and not (often on an argument, where the inputs
        hold signed zeros, infinities and NaNs)."""
        on_args = self.draw(st.booleans())
        args = [v for v in pool if not isinstance(v, OpResult)] if on_args else pool
        x = self.pick(args, lambda v: isinstance(v.type, TensorType))
        kind = self.draw(st.sampled_from(["mul1", "one_mul", "add0", "sub0", "subneg0", "div1",
                                          "negneg", "castsame", "castcast", "dup"]))
        if kind == "mul1":
            return [b.op(OP["mul"], x, 1.0)]
        if kind == "one_mul":
            return [b.op(OP["mul"], np.ones(x.shape, x.dtype.np_dtype), x)]
        if kind in ("add0", "sub0", "subneg0"):
            zero = -0.0 if kind == "subneg0" else 0.0
            return [b.op(OP["add" if kind == "add0" else "sub"], x, zero)]
        if kind == "div1":
            return [b.op(OP["div"], x, 1)]
        if kind == "negneg":
            return [b.op(OP["neg"], b.op(OP["neg"], x))]
        if kind == "castsame":
            return [b.op(OP["cast"], x, dtype=x.dtype)]
        if kind == "castcast":
            mid = self.draw(st.sampled_from([DType.float64, DType.float16, DType.int32,
                                             DType.int64, DType.bool_]))
            return [b.op(OP["cast"], b.op(OP["cast"], x, dtype=mid), dtype=x.dtype)]
        op = self.draw(st.sampled_from(ELEMENTWISE))  # the same op twice, for cse
        operands = [self.operand(pool) for _ in op.operands]
        attrs = self.attrs(op)
        return [b.op(op, *operands, **attrs), b.op(op, *operands, **attrs)]

    def constant(self, b: Builder, pool: list):
        shape = self.draw(st.sampled_from([(), (3,), (2, 3), (5, 4)]))
        arr = np.random.default_rng(self.draw(st.integers(0, 99))).standard_normal(shape)
        c = b.const(arr.astype(np.float32))
        return [c, b.op(self.draw(st.sampled_from([OP["neg"], REGISTRY["exp"]])), c)]

    def effect(self, b: Builder, pool: list, param: Value):
        if self.draw(st.booleans()):
            v = self.pick(pool, lambda v: v.type == param.type)
            return [b.op(OP["assign"], param, v)]
        x = self.pick(pool, lambda v: isinstance(v.type, TensorType) and v.dtype.is_float)
        out, _mask = b.op(OP["dropout"], x, keep_prob=0.5)
        return [out]

    def branch(self, b: Builder, pool: list):
        pred = self.draw(st.sampled_from(["const", "runtime"]))
        if pred == "const":
            cond = b.const(np.array(self.draw(st.booleans())))
        else:
            s = b.op(OP["reduce_sum"], self.pick(pool, lambda v: v.type.dtype is F32
                                                 and isinstance(v.type, TensorType)))
            cond = b.op(OP["greater"], s, 0.0)
        x = self.pick(pool, lambda v: isinstance(v.type, TensorType) and v.dtype.is_float)
        arm = lambda: self.elementwise_on(b, x)  # noqa: E731
        return list(b.if_(cond, arm, arm))

    def elementwise_on(self, b: Builder, x: Value):
        ops = [REGISTRY[n] for n in ("exp", "neg", "sin", "tanh")]
        y = b.op(self.draw(st.sampled_from(ops)), x)
        return b.op(self.draw(st.sampled_from(ops)), y)

    def call(self, b: Builder, pool: list, helper: Function):
        args = [self.pick(pool, lambda v, t=a.type: v.type == t) for a in helper.args]
        return list(b.call(helper, *args))


MOVES = ["elementwise"] * 6 + ["reduction", "matmul", "layout", "layout", "seed", "seed",
                               "seed", "constant", "effect", "branch", "call"]


def _body(g: _Graph, fn: Function, n_ops: int, helper: Function | None) -> None:
    b = Builder.at_end(fn.body)
    pool = list(fn.args)
    param = fn.args[0]
    effects = []
    for _ in range(n_ops):
        b.loc = g.draw(st.sampled_from(LOCS))
        move = g.draw(st.sampled_from(MOVES))
        try:
            if move == "effect":
                made = g.effect(b, pool, param)
            elif move == "call":
                if helper is None:
                    continue
                made = g.call(b, pool, helper)
            else:
                made = getattr(g, move)(b, pool)
        except Exception:  # an invalid draw: a shape rule or the builder rejected it
            continue
        effects += [v for v in made if v.op.opdef.kind is Kind.SIDE_EFFECT]
        pool.extend(made)
    made = [v for v in pool[len(fn.args):] if v not in effects]
    if made and g.draw(st.booleans()):  # every leaf: each value computed shows in a result
        outs = [v for v in made if not v.uses]
    else:  # a few values: the rest is dead code
        outs = [g.draw(st.sampled_from(made or pool)) for _ in range(g.draw(st.integers(1, 3)))]
    b.return_(*outs, *effects)


@st.composite
def graphs(draw, max_ops: int = 14):
    """A Module whose ``@main`` takes a parameter ``%w: f32[2,3]`` and random arguments."""
    m = Module()
    g = _Graph(draw, m)
    helper = None
    if draw(st.booleans()):
        helper = m.add(Function("helper"))
        helper.add_arg(TensorType(F32, (2, 3)), "w", param=True)
        helper.add_arg(TensorType(F32, (3,)), "v")
        _body(g, helper, draw(st.integers(1, 4)), None)
    fn = m.add(Function("main"))
    fn.add_arg(TensorType(F32, (2, 3)), "w", param=True)
    for t in draw(st.lists(st.sampled_from(ARG_TYPES), min_size=1, max_size=3)):
        fn.add_arg(t, "x")
    fn.add_arg(TensorType(F32, (3,)), "v")
    _body(g, fn, draw(st.integers(1, max_ops)), helper)
    return m


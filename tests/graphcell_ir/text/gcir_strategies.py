"""Hypothesis strategies for random, well-formed IR modules drawn from the op registry.

``modules()`` builds a Module with a helper function and a main function that may call it. Ops
are drawn from the whole registry (so new ops are covered without changes here): operands come
from the values in scope or are random literals, attributes are drawn by their ``AttrKind``, and
draws whose shape rule rejects them are skipped. ``if``/``while`` nest up to ``max_depth``;
tuples, constants (inline and by reference) and calls appear too. Name hints and locations are
random, including ones the printer must sanitise or quote.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from graphcell_ir.ir import (Builder, DType, Function, Loc, Module, OpResult, ScalarType,
                             TensorType, Value)
from graphcell_ir.ir.structural import is_predicate
from graphcell_ir.ops import REGISTRY, AttrKind, Kind

F32, I64, I32, BOOL, F64 = DType.float32, DType.int64, DType.int32, DType.bool_, DType.float64
ARG_TYPES = [TensorType(F32, (2, 3)), TensorType(F32, (3,)), TensorType(F32, ()),
             TensorType(I64, (2, 3)), TensorType(I32, (3,)), TensorType(BOOL, (2, 3)),
             TensorType(F64, (1, 3)), TensorType(F32, (2, 1)), ScalarType(F32), ScalarType(I64)]
PRED = TensorType(BOOL, ())
HINTS = [None, None, None, "x", "y", "h", "x_1", "layers.1.weight", "0", "a b", "_", "\u00e9"]
FILES = ["net.py", "/home/u/net.py", "dir with space/n.py", "C:\\x\\y.py", "a:b.py"]
SCOPES = ["Net.construct", "Dense.construct", "<lambda>", "f", "grad"]
STRS = ["valid", "same", "pad", "mean", "sum", "none", 'q"uote\\', ""]


def _ops_usable():
    """Registry ops the generator can draw: no required ANY (opaque) attribute."""
    out = []
    for op in sorted(REGISTRY.values(), key=lambda o: o.name):
        if not any(a.required and a.kind is AttrKind.ANY for a in op.attrs):
            out.append(op)
    return out


OPS = _ops_usable()

floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
small_ints = st.integers(-2, 4)


def _index_elem():
    opt = st.one_of(st.none(), st.integers(-2, 3))
    return st.one_of(st.integers(-1, 1), st.none(),
                     st.builds(slice, opt, opt, st.one_of(st.none(), st.sampled_from([1, 2, -1]))))


ATTR_VALUES = {
    AttrKind.INT: small_ints,
    AttrKind.FLOAT: floats,
    AttrKind.BOOL: st.booleans(),
    AttrKind.STR: st.sampled_from(STRS),
    AttrKind.DTYPE: st.sampled_from(list(DType)),
    AttrKind.INTS: st.lists(small_ints, max_size=3).map(tuple),
    AttrKind.OPT_INTS: st.one_of(st.none(), st.lists(small_ints, max_size=3).map(tuple)),
    AttrKind.SCALAR: st.one_of(st.booleans(), st.integers(-3, 3), floats),
    AttrKind.INDEX: st.tuples(st.lists(_index_elem(), min_size=1, max_size=3),
                              st.booleans()).map(lambda p: tuple(p[0]) + ((Ellipsis,) if p[1] else ())),
}

literals = st.one_of(st.booleans(), st.integers(-5, 5), floats, st.just(None))


@st.composite
def locs(draw, depth: int = 0):
    file = draw(st.sampled_from(FILES))
    scope = tuple(draw(st.lists(st.sampled_from(SCOPES), max_size=3)))
    marks = tuple(draw(st.lists(st.sampled_from(["lib", "grad"]), max_size=2)))
    caller = draw(locs(depth + 1)) if depth < 2 and draw(st.booleans()) else None
    return Loc(file, draw(st.integers(1, 500)), draw(st.integers(0, 80)), scope, caller, marks)


def _loc_table() -> list[Loc]:
    """A fixed spread of locations (quoting, scope chains, marks, inlined callers), so drawing
    one costs a single choice."""
    out = []
    for i, file in enumerate(FILES):
        scope = tuple(SCOPES[: i % 4])
        site = Loc(FILES[(i + 1) % len(FILES)], 9 + i, 16, scope[:1])
        out += [Loc(file, 3 + i, i, scope),
                Loc(file, 40 + i, 4, scope, marks=("grad",) * (i % 3)),
                Loc(file, 120, 8, ("Dense.construct",), marks=("lib",)).inlined_at(site),
                Loc(file, 7, 0, scope, Loc(file, 8, 1, (), Loc("x.py", 1, 2, ("a", "b")))).with_mark("grad")]
    return out


LOCS = _loc_table()



def _writes(opdef) -> bool:
    """A side effect, or an op that writes its operand (``mutates``: ``inplace_write``): its
    result must reach the function's results, as the verifier requires."""
    return opdef.kind is Kind.SIDE_EFFECT or bool(opdef.mutates)

class _Gen:
    def __init__(self, draw, module: Module, with_locs: bool, max_depth: int):
        self.draw = draw
        self.m = module
        self.with_locs = with_locs
        self.max_depth = max_depth
        self.helper: Function | None = None

    def hint(self, v: Value) -> Value:
        v.name_hint = self.draw(st.sampled_from(HINTS))
        return v

    def relocate(self, b: Builder) -> None:
        if self.with_locs:
            b.loc = self.draw(st.sampled_from(LOCS))

    def function(self, name: str, arg_types: list, n_ops: int) -> Function:
        fn = self.m.add(Function(name))
        fn.add_arg(PRED, "p")
        for t in arg_types:
            self.hint(fn.add_arg(t, param=self.draw(st.booleans())))
        b = Builder.at_end(fn.body)
        pool = list(fn.args)
        self.ops(b, pool, n_ops, self.max_depth, top=True)
        unused_effects = [v for v in pool if isinstance(v, OpResult) and not v.uses
                          and _writes(v.op.opdef)]
        k = self.draw(st.integers(1, 3))
        rets = [self.draw(st.sampled_from(pool)) for _ in range(k)] + unused_effects
        self.relocate(b)
        b.return_(*rets)
        return fn

    def ops(self, b: Builder, pool: list, n: int, depth: int, top: bool = False) -> None:
        for _ in range(n):
            self.relocate(b)
            choice = self.draw(st.sampled_from(
                ["op"] * 6 + ["tuple", "const"] + (["if", "while"] if depth > 0 else [])
                + (["call"] if self.helper is not None else [])))
            try:
                made = getattr(self, "make_" + choice)(b, pool, depth, top)
            except Exception:  # an invalid draw: the shape rule or builder rejected it
                continue
            pool.extend(self.hint(v) for v in made)

    def operand(self, pool: list):
        if self.draw(st.integers(0, 9)) == 0:
            return self.draw(literals)
        return self.draw(st.sampled_from(pool))

    def make_op(self, b: Builder, pool: list, depth: int, top: bool):
        op = self.draw(st.sampled_from(OPS))
        if _writes(op) and not top:
            return []
        n = len(op.operands) - op.variadic + (self.draw(st.integers(1, 3)) if op.variadic else 0)
        operands = [self.operand(pool) for _ in range(n)]
        attrs = {}
        for a in op.attrs:
            if a.kind is not AttrKind.ANY and (a.required or self.draw(st.booleans())):
                attrs[a.name] = self.draw(ATTR_VALUES[a.kind])
        return list(b.create(op, operands, attrs).results)

    def make_tuple(self, b: Builder, pool: list, depth: int, top: bool):
        vals = [self.draw(st.sampled_from(pool)) for _ in range(self.draw(st.integers(1, 3)))]
        t = b.make_tuple(*vals)
        i = self.draw(st.integers(-len(vals), len(vals) - 1))
        return [t, b.tuple_get(t, i)]

    def make_const(self, b: Builder, pool: list, depth: int, top: bool):
        dtype = self.draw(st.sampled_from([np.float32, np.int64, np.bool_, np.float16]))
        shape = self.draw(st.sampled_from([(), (3,), (2, 3), (5, 4)]))
        seed = self.draw(st.integers(0, 2 ** 16))
        arr = np.random.default_rng(seed).standard_normal(shape) * 10
        if dtype in (np.float32, np.float16) and arr.size:
            arr.flat[0] = self.draw(st.sampled_from([np.nan, np.inf, -0.0, 1e-7, 3.0]))
        return [b.const(arr.astype(dtype))]

    def make_if(self, b: Builder, pool: list, depth: int, top: bool):
        cond = self.draw(st.sampled_from([v for v in pool if is_predicate(v.type)]))
        types = [self.draw(st.sampled_from(pool)).type for _ in range(self.draw(st.integers(0, 2)))]
        return list(b.if_(cond, lambda: self.branch(b, pool, types, depth),
                          lambda: self.branch(b, pool, types, depth)))

    def branch(self, b: Builder, pool: list, types: list, depth: int, args=()):
        inner = list(pool) + list(args)
        self.ops(b, inner, self.draw(st.integers(0, 3)), depth - 1)
        self.relocate(b)
        return [self.draw(st.sampled_from([v for v in inner if v.type == t])) for t in types]

    def make_while(self, b: Builder, pool: list, depth: int, top: bool):
        carried = [self.draw(st.sampled_from(pool)) for _ in range(self.draw(st.integers(1, 2)))]
        types = [v.type for v in carried]

        def cond(*args):
            inner = list(pool) + list(args)
            self.ops(b, inner, self.draw(st.integers(0, 2)), depth - 1)
            self.relocate(b)
            return self.draw(st.sampled_from([v for v in inner if is_predicate(v.type)]))

        return list(b.while_(carried, cond, lambda *args: self.branch(b, pool, types, depth, args)))

    def make_call(self, b: Builder, pool: list, depth: int, top: bool):
        args = [self.draw(st.sampled_from([v for v in pool if v.type == a.type]))
                for a in self.helper.args]
        return list(b.call(self.helper, *args))


@st.composite
def modules(draw, max_ops: int = 8, max_depth: int = 2, locs_mode: str = "random"):
    """A random well-formed Module: ``@helper`` and ``@main`` (which may call it)."""
    with_locs = draw(st.booleans()) if locs_mode == "random" else locs_mode == "always"
    m = Module()
    g = _Gen(draw, m, with_locs, max_depth)
    helper_types = draw(st.lists(st.sampled_from(ARG_TYPES), max_size=2))
    if draw(st.booleans()):
        g.helper = g.function("helper", helper_types, draw(st.integers(0, max_ops // 2)))
    extra = draw(st.lists(st.sampled_from(ARG_TYPES), min_size=1, max_size=3))
    g.function("main", helper_types + extra, draw(st.integers(1, max_ops)))
    if draw(st.booleans()):
        m["main"].attrs = draw(st.fixed_dictionaries(
            {"backward_of": st.sampled_from(["Net.construct", "a \"b\""])},
            optional={"order": st.integers(0, 3), "axes": st.lists(small_ints, max_size=2).map(tuple),
                      "flag": st.booleans(), "none": st.none()}))
    return m


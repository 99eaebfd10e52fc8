"""``Builder``: an insertion point and a current location; the one way passes create ops.

Every op it creates is typed by its OpDef's shape rule (``infer_types``), gets the builder's
``loc`` and is inserted at the insertion point. It is also an *Emitter* for the functional op API,
so bprop rules written as ``F.mul(dout, y)`` emit IR when the builder is installed::

    >>> from graphcell_ir.ir import Builder, Function, TensorType, float32
    >>> from graphcell_ir.ops import functional as F
    >>> fn = Function("f"); x = fn.add_arg(TensorType(float32, (2,)), "x")
    >>> b = Builder.at_end(fn.body)
    >>> with F.using_emitter(b):
    ...     y = F.mul(x, 2.0)           # the Python number becomes a literal operand 2.0:f32
    >>> (s,) = b.if_(b.op("greater", b.op("reduce_sum", y), 0.0),
    ...              lambda: y, lambda: b.op("neg", y))
    >>> _ = b.return_(s); str(s.type)
    'f32[2]'
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

import numpy as np

from graphcell_ir.errors import IRError, OpTypeError, ShapeError
from graphcell_ir.ir.core import Block, Function, Literal, Op, Region, Value
from graphcell_ir.ir.loc import UNKNOWN, Loc
from graphcell_ir.ir.structural import (CALL, CONST, IF, MAKE_TUPLE, RETURN, TUPLE_GET, WHILE,
                                        YIELD, StructuralOpDef, is_predicate)
from graphcell_ir.ir.types import TensorType, Type, dtype_from_numpy, type_problem
from graphcell_ir.ops.registry import OpDef, lookup

INLINE_CONST_LIMIT = 16
"""Constants with at most this many elements are written inline; larger ones go to the table."""


class Builder:
    """Creates ops at an insertion point (the end of a block, or before an op) with ``loc``."""

    def __init__(self, block: Block | None = None, before: Op | None = None, loc: Loc = UNKNOWN):
        self.block = block
        self.before = before
        self.loc = loc

    @classmethod
    def at_end(cls, block: Block, loc: Loc = UNKNOWN) -> Builder:
        return cls(block, None, loc)

    @classmethod
    def before_op(cls, op: Op, loc: Loc | None = None) -> Builder:
        """A builder inserting before ``op``, at ``op``'s location unless told otherwise."""
        return cls(op.parent, op, op.loc if loc is None else loc)

    # -- insertion point and location --
    def set_insertion_point(self, block: Block, before: Op | None = None) -> None:
        self.block, self.before = block, before

    @contextmanager
    def insertion_point(self, block: Block, before: Op | None = None) -> Iterator[Builder]:
        saved = self.block, self.before
        self.block, self.before = block, before
        try:
            yield self
        finally:
            self.block, self.before = saved

    @contextmanager
    def at_loc(self, loc: Loc) -> Iterator[Builder]:
        saved, self.loc = self.loc, loc
        try:
            yield self
        finally:
            self.loc = saved

    def insert(self, op: Op) -> Op:
        if self.block is None:
            raise IRError("the builder has no insertion point")
        if self.before is None:
            return self.block.append(op)
        return self.block.insert_before(self.before, op)

    # -- generic ops --
    def create(self, opdef: OpDef, operands: Sequence = (), attrs: dict | None = None, *,
               result_types: Sequence[Type] | None = None, regions: Sequence[Region] = ()) -> Op:
        """Create and insert an op; its result types come from ``opdef.infer_types`` unless given.

        Operands may be Values, Python scalars or None (literals), numpy arrays (constants) or
        tuples of these (``make_tuple``).
        """
        if result_types is None and isinstance(opdef, StructuralOpDef):
            raise IRError(f"{opdef.name}: use the builder's dedicated method, or give "
                          "result_types")
        values = [self.value(v) for v in operands]
        checked = opdef.check_attrs(dict(attrs) if attrs else {})
        if result_types is None:
            result_types = _as_types(opdef.infer_types(*(v.type for v in values), **checked))
            for t in result_types:
                problem = type_problem(t)
                if problem:  # fail here, at the user's line, not later in a pass or the parser
                    raise ShapeError(f"{opdef.display_name}: the operands and attributes give a "
                                     f"malformed result type: {problem}", opdef)
        return self.insert(Op(opdef, values, result_types, checked, regions, self.loc))

    def op(self, opdef: OpDef | str, *operands, **attrs):
        """Create an op and return its result (a tuple for several results, None for none).

        ``opdef`` may be a registry name: ``b.op("reduce_sum", x, axis=(0,))``.
        """
        if isinstance(opdef, str):
            opdef = lookup(opdef)
        return _results(self.create(opdef, operands, attrs))

    def emit(self, op: OpDef, args: tuple, attrs: dict):
        """The Emitter protocol of ``graphcell_ir.ops.functional``: ``F.add(a, b)`` lands here."""
        return _results(self.create(op, args, attrs))

    def value(self, v) -> Value:
        """``v`` as an IR value: literals for Python scalars and None, ``const`` for arrays."""
        if isinstance(v, Value):
            return v
        if v is None or isinstance(v, (bool, int, float)) and not isinstance(v, np.generic):
            return Literal(v)
        if isinstance(v, (np.ndarray, np.generic)):
            return self.const(v)
        if isinstance(v, (tuple, list)):
            return self.make_tuple(*v)
        raise OpTypeError(f"cannot use a {type(v).__name__} as an IR operand")

    # -- structural ops --
    def const(self, array) -> Value:
        """A constant tensor: inline when small, else in the module's constant table."""
        arr = np.array(array)  # a copy: later changes to the caller's array do not leak in
        t = TensorType(dtype_from_numpy(arr.dtype), tuple(arr.shape))
        if arr.size <= INLINE_CONST_LIMIT:
            attrs = {"value": arr}
        else:
            fn = self.block.function if self.block is not None else None
            if fn is None or fn.module is None:
                raise IRError("a large constant goes to the module's constant table: add the "
                              "function to a Module before creating it")
            attrs = {"ref": fn.module.add_const(arr)}
        return self.insert(Op(CONST, (), (t,), attrs, (), self.loc)).results[0]

    def make_tuple(self, *values) -> Value:
        return self.create(MAKE_TUPLE, values).results[0]

    def tuple_get(self, t: Value, index: int) -> Value:
        return self.create(TUPLE_GET, (t,), {"index": index}).results[0]

    def yield_(self, *values) -> Op:
        return self.insert(Op(YIELD, [self.value(v) for v in values], (), None, (), self.loc))

    def return_(self, *values) -> Op:
        """End the function body; sets the function's result types when it has none yet."""
        op = self.insert(Op(RETURN, [self.value(v) for v in values], (), None, (), self.loc))
        fn = self.block.function
        if fn is not None and fn.result_types is None and self.block is fn.body:
            fn.result_types = tuple(v.type for v in op.operands)
        return op

    def call(self, callee: Function, *args) -> tuple[Value, ...]:
        """Call another function of the module; returns its results."""
        if callee.result_types is None:
            raise IRError(f"@{callee.name} has no result types yet: build its return first")
        values = [self.value(a) for a in args]
        op = Op(CALL, values, callee.result_types, {"callee": callee.name}, (), self.loc)
        return self.insert(op).results

    def if_(self, cond, then_fn: Callable[[], object], else_fn: Callable[[], object]
            ) -> tuple[Value, ...]:
        """``if cond: then_fn() else: else_fn()``; each returns the value(s) its branch yields.

        The branches are built with this builder, inside the new regions; both must yield the
        same types. Returns the if's results.
        """
        cond = self.value(cond)
        if not is_predicate(cond.type):
            raise OpTypeError(f"if: the predicate must be bool or bool[], got {cond.type}")
        op = Op(IF, (cond,), (), None, (Region(), Region()), self.loc)
        with _discard_on_error(op):
            then_vals = self._fill(op.regions[0], then_fn)
            else_vals = self._fill(op.regions[1], else_fn)
            then_t, else_t = [v.type for v in then_vals], [v.type for v in else_vals]
            if then_t != else_t:
                raise OpTypeError(f"if: the then branch gives ({', '.join(map(str, then_t))}) but "
                                  f"the else branch gives ({', '.join(map(str, else_t))})")
        op.set_result_types(then_t)
        return self.insert(op).results

    def while_(self, inits: Sequence, cond_fn: Callable[..., object],
               body_fn: Callable[..., object]) -> tuple[Value, ...]:
        """``v = inits; while cond_fn(*v): v = body_fn(*v)``; returns the final carried values.

        ``cond_fn`` and ``body_fn`` receive the regions' block arguments (named like the inits).
        """
        values = [self.value(v) for v in inits]
        types = [v.type for v in values]
        hints = [v.name_hint for v in values]
        op = Op(WHILE, values, types, None, (Region(Block(types, hints)),
                                              Region(Block(types, hints))), self.loc)
        with _discard_on_error(op):
            pred = self._fill(op.regions[0], cond_fn)
            body = self._fill(op.regions[1], body_fn)
            if len(pred) != 1 or not is_predicate(pred[0].type):
                raise OpTypeError("while: the condition must give one bool or bool[] value, got "
                                  f"({', '.join(str(v.type) for v in pred)})")
            if [v.type for v in body] != types:
                raise OpTypeError(f"while: the body gives ({', '.join(str(v.type) for v in body)}) "
                                  f"but the carried values are ({', '.join(map(str, types))})")
        return self.insert(op).results

    def _fill(self, region: Region, fn: Callable[..., object]) -> list[Value]:
        with self.insertion_point(region.block):
            out = fn(*region.block.args)
            vals = [] if out is None else list(out) if isinstance(out, (tuple, list)) else [out]
            vals = [self.value(v) for v in vals]
            self.yield_(*vals)
        return vals


@contextmanager
def _discard_on_error(op: Op) -> Iterator[None]:
    """If building ``op``'s regions fails, forget the uses its half-built ops made."""
    try:
        yield
    except BaseException:
        op.drop_references()
        raise


def _as_types(inferred) -> tuple[Type, ...]:
    return inferred if isinstance(inferred, tuple) else (inferred,)


def _results(op: Op):
    r = op.results
    return r[0] if len(r) == 1 else (r if r else None)

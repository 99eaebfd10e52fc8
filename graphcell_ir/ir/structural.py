"""IR-structural ops: ``const``, ``if``, ``while``, ``yield``, ``return``, ``call``, ``fused``
(one kernel) and tuples.

Why these are not in the op registry: the registry (``graphcell_ir.ops``) declares *primitives*,
functions of their operands that PyNative runs eagerly, with a numpy ``ref``, a shape rule over
operand types and a vjp. The ops here are the IR's own structure: their types come from their
regions (``if``, ``while``), from another function (``call``), from a side table (``const``),
or they have none (``yield``, ``return``); PyNative never dispatches them, and autodiff
transforms them structurally (``if`` -> ``if``, ``while`` -> saved carried values) rather than
through a bprop rule. So they are declared here, next to the IR, as ``OpDef`` objects (a
subclass, ``StructuralOpDef``, adds what the text format and the verifier need), and
``Op.opdef`` is an ``OpDef`` for every op, structural or not. Passes test ``op.opdef is IF``.
``make_tuple``/``tuple_get`` are ordinary pure ops (infer + ref) that the registry does not have
yet; they live here until it does.

Shapes of the control-flow ops (``.gcir`` spelling)::

    %y = if(%c) : f32[4] {            then-region, no block args
      yield %a
    } else {                           else-region, no block args
      yield %b
    }  loc(...)

    %i2, %s2 = while(%i, %s) : (i64[], f32[]) cond(%i1: i64[], %s1: f32[]) {
      %c = less(%i1, 10:i64) : bool[]
      yield %c                         the cond region yields one bool predicate
    } do(%i3: i64[], %s3: f32[]) {
      ...
      yield %inext, %snext             the body yields the next carried values
    }  loc(...)

``while`` is Python's loop: ``v = inits; while cond(v): v = body(v)``; its results are the final
carried values. Both regions take the carried values as block arguments and may also use any value
defined before the ``while`` (regions are not isolated from above). The predicate of ``if`` and
``while`` is a ``bool`` scalar or a ``bool[]`` tensor.

``fused`` is one kernel made by elementwise fusion (``graphcell_ir.passes.fuse``): its value is
its body run on its operands. The body is isolated from above (it sees only its block arguments,
which mirror the operands, and literals), holds pure primitives and constants, and yields the
results::

    %y = fused(%x, %a) : f32[4,8] body(%x_1: f32[4,8], %a_1: f32[8]) {
      %0 = mul(%x_1, %a_1) : f32[4,8]
      %1 = tanh(%0) : f32[4,8]
      yield %1
    }  loc(...)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from graphcell_ir.errors import IRError, OpTypeError
from graphcell_ir.ir.core import Literal
from graphcell_ir.ir.types import (ScalarType, TensorType, TupleType, Type, dtype_from_numpy,
                                   bool_)
from graphcell_ir.ops import REGISTRY, lookup
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, OpDef, Trait, attr


@dataclass(frozen=True, eq=False)
class StructuralOpDef(OpDef):
    """An IR-level op: ``terminator`` ops end a block; ``region_names`` label its regions in
    the text; ``check(op)`` returns what is wrong with the op's structure and types, or None."""

    terminator: bool = False
    region_names: tuple[str, ...] = ()
    check: Callable | None = None

    def attrs_from_text(self, attrs: dict, result_types: tuple[Type, ...]) -> dict:
        """Turn attributes as parsed from text into their IR form (``const`` builds its array)."""
        return attrs


def _needs_builder(name: str):
    def infer(*args, **kwargs):
        raise IRError(f"the result types of {name} come from its regions or signature; create it "
                      f"with the Builder's {name} method")
    return infer


def _not_a_primitive(name: str):
    def ref(*args, **kwargs):
        raise IRError(f"{name} is IR structure, not a primitive: the interpreter runs it")
    return ref


def _structural_bprop(*args, **kwargs):
    raise IRError("control flow, calls and tuples are differentiated structurally by autodiff, "
                  "not by a bprop rule")


def _structural(name: str, operands=(), *, kind=Kind.OPAQUE, **fields) -> StructuralOpDef:
    return StructuralOpDef(name=name, operands=tuple(operands), kind=kind,
                           infer=_needs_builder(name), ref=_not_a_primitive(name),
                           bprop=fields.pop("bprop", _structural_bprop), **fields)


def _types(ts) -> str:
    return "(" + ", ".join(map(str, ts)) + ")"


def is_predicate(t: Type) -> bool:
    """A ``bool`` scalar or ``bool[]`` 0-d tensor: what ``if`` and ``while`` branch on."""
    return (isinstance(t, ScalarType) and t.dtype is bool_) or \
        (isinstance(t, TensorType) and t.dtype is bool_ and t.shape == ())


def _yielded(op, i: int):
    """The operands of the yield ending region ``i``, or None when it has none."""
    term = op.regions[i].block.terminator
    return None if term is None or term.opdef is not YIELD else term.operands


# --- if ----------------------------------------------------------------------------------------

def _check_if(op) -> str | None:
    if len(op.operands) != 1 or not is_predicate(op.operands[0].type):
        return ("expects one predicate operand of type bool or bool[], got "
                f"{_types(v.type for v in op.operands)}")
    if len(op.regions) != 2:
        return f"needs a then and an else region, has {len(op.regions)}"
    want = [r.type for r in op.results]
    for i, label in enumerate(("then", "else")):
        block = op.regions[i].block
        if block.args:
            return f"the {label} region must have no block arguments"
        got = _yielded(op, i)
        if got is None:
            return f"the {label} region does not end with yield"
        if [v.type for v in got] != want:
            return (f"the {label} region yields {_types(v.type for v in got)} but the if has "
                    f"results {_types(want)}")
    return None


IF = _structural("if", ("cond",), region_names=("then", "else"), check=_check_if)


# --- while -------------------------------------------------------------------------------------

def _check_while(op) -> str | None:
    carried = [v.type for v in op.operands]
    if [r.type for r in op.results] != carried:
        return (f"results {_types(r.type for r in op.results)} must have the types of the carried "
                f"values {_types(carried)}")
    if len(op.regions) != 2:
        return f"needs a cond and a body region, has {len(op.regions)}"
    for i, label in enumerate(("cond", "body")):
        args = [a.type for a in op.regions[i].block.args]
        if args != carried:
            return (f"the {label} region's arguments {_types(args)} must have the types of the "
                    f"carried values {_types(carried)}")
        if _yielded(op, i) is None:
            return f"the {label} region does not end with yield"
    pred = _yielded(op, 0)
    if len(pred) != 1 or not is_predicate(pred[0].type):
        return f"the cond region must yield one bool or bool[] predicate, yields {_types(v.type for v in pred)}"
    body = [v.type for v in _yielded(op, 1)]
    if body != carried:
        return f"the body region yields {_types(body)} but the carried values are {_types(carried)}"
    return None


WHILE = _structural("while", ("*carried",), region_names=("cond", "do"), check=_check_while)


# --- terminators -------------------------------------------------------------------------------

def _check_yield(op) -> str | None:
    parent = op.parent_op
    if parent is None or not getattr(parent.opdef, "region_names", ()):
        return "yield must end a region of if or while"
    return None


def _check_return(op) -> str | None:
    fn = op.parent.function if op.parent is not None else None
    if fn is None or op.parent is not fn.body:
        return "return must end a function body (use yield in regions)"
    got = [v.type for v in op.operands]
    if fn.result_types is not None and got != list(fn.result_types):
        return (f"returns {_types(got)} but @{fn.name} is declared to return "
                f"{_types(fn.result_types)}")
    return None


YIELD = _structural("yield", ("*values",), kind=Kind.SIDE_EFFECT, terminator=True,
                    check=_check_yield)
RETURN = _structural("return", ("*values",), kind=Kind.SIDE_EFFECT, terminator=True,
                     check=_check_return)


# --- call --------------------------------------------------------------------------------------

def _check_call(op) -> str | None:
    fn = op.function
    module = fn.module if fn is not None else None
    name = op.attrs["callee"]
    callee = module.get(name) if module is not None else None
    if callee is None:
        return f"calls @{name}, which is not a function of this module"
    args = [v.type for v in op.operands]
    params = [a.type for a in callee.args]
    if args != params:
        return f"passes {_types(args)} to @{name}, which takes {_types(params)}"
    results = [r.type for r in op.results]
    if callee.result_types is not None and results != list(callee.result_types):
        return f"has results {_types(results)} but @{name} returns {_types(callee.result_types)}"
    return None


CALL = _structural("call", ("*args",), attrs=(attr("callee", AttrKind.STR),), check=_check_call)


# --- const -------------------------------------------------------------------------------------

class _ConstDef(StructuralOpDef):
    """``const() {value=[[1.0,2.0]]}`` inline, or ``const() {ref="consts/0"}`` into the table."""

    def check_attrs(self, attrs: dict) -> dict:
        if set(attrs) == {"value"} and isinstance(attrs["value"], np.ndarray):
            return dict(attrs)
        if set(attrs) == {"ref"} and isinstance(attrs["ref"], str):
            return dict(attrs)
        raise IRError("const takes exactly one attribute: value (an array) or ref (a string key "
                      f"of the module's constant table); got {sorted(attrs)}")

    def attrs_from_text(self, attrs: dict, result_types: tuple[Type, ...]) -> dict:
        if set(attrs) != {"value"} or len(result_types) != 1 or \
                not isinstance(result_types[0], TensorType):
            return attrs  # check_attrs or the verifier says what is wrong
        t = result_types[0]
        arr = np.array(attrs["value"], dtype=t.dtype.np_dtype)
        if arr.shape != t.shape:
            if arr.size == 0 and _size(t.shape) == 0:
                arr = arr.reshape(t.shape)
            else:
                raise OpTypeError(f"the value has shape {list(arr.shape)} but the type is {t}")
        return {"value": arr}


def _size(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def const_array(op) -> np.ndarray | None:
    """The array of a ``const`` op: inline, or from its module's table (None if not loaded)."""
    if "value" in op.attrs:
        return op.attrs["value"]
    fn = op.function
    module = fn.module if fn is not None else None
    return module.consts.get(op.attrs["ref"]) if module is not None else None


def _check_const(op) -> str | None:
    if op.operands or len(op.results) != 1 or not isinstance(op.results[0].type, TensorType):
        return "takes no operands and has one tensor result"
    arr = const_array(op)
    if arr is None:
        return None  # a reference into a table that was not loaded: only the type is known
    t = op.results[0].type
    try:
        got = TensorType(dtype_from_numpy(arr.dtype), tuple(arr.shape))
    except TypeError as e:
        return str(e)
    if got != t:
        return f"its value is {got} but its result type is {t}"
    return None


CONST = _ConstDef(name="const", operands=(), kind=Kind.OPAQUE, infer=_needs_builder("const"),
                  ref=_not_a_primitive("const"), bprop=NONDIFF,
                  attrs=(attr("value", AttrKind.ANY, None), attr("ref", AttrKind.STR, None)),
                  check=_check_const)


# --- fused (one kernel, made by elementwise fusion) ---------------------------------------------

def _check_fused(op) -> str | None:
    block = op.regions[0].block if len(op.regions) == 1 else None
    if block is None:
        return f"needs one body region, has {len(op.regions)}"
    operands = [v.type for v in op.operands]
    if [a.type for a in block.args] != operands:
        return (f"the body's arguments {_types(a.type for a in block.args)} must have the types "
                f"of the operands {_types(operands)}")
    got = _yielded(op, 0)
    if got is None:
        return "the body does not end with yield"
    if [v.type for v in got] != [r.type for r in op.results]:
        return (f"the body yields {_types(v.type for v in got)} but the op has results "
                f"{_types(r.type for r in op.results)}")
    defined = set(block.args)
    for inner in block:
        if inner.opdef is not YIELD and not _fusable_body_op(inner):
            return f"its body may hold only pure primitives and constants, not {inner.opdef.name}"
        for v in inner.operands:  # a literal has no defining op: it is visible everywhere
            if v not in defined and not isinstance(v, Literal):
                return (f"its body uses a value defined outside it (in {inner.opdef.name}); a "
                        "fused body sees only its block arguments")
        defined.update(inner.results)
    return None


def _fusable_body_op(op) -> bool:
    d = op.opdef
    if d is CONST:
        return True
    return not (op.regions or isinstance(d, StructuralOpDef) or d.kind is Kind.SIDE_EFFECT
                or Trait.RANDOM in d.traits)


FUSED = _structural("fused", ("*inputs",), region_names=("body",), check=_check_fused)


# --- tuples (pure; would belong in the registry) -----------------------------------------------

def _tuple_get_infer(t: Type, *, index: int) -> Type:
    if not isinstance(t, TupleType):
        raise OpTypeError(f"tuple_get: operand must be a tuple, got {t}")
    if not -len(t.elements) <= index < len(t.elements):
        raise OpTypeError(f"tuple_get: index {index} is out of range for {t}")
    return t.elements[index]


MAKE_TUPLE = OpDef(name="make_tuple", operands=("*xs",), kind=Kind.OPAQUE,
                   infer=lambda *xs: TupleType(tuple(xs)), ref=lambda *xs: tuple(xs),
                   bprop=_structural_bprop, ms_name="MakeTuple")
TUPLE_GET = OpDef(name="tuple_get", operands=("t",), kind=Kind.OPAQUE,
                  attrs=(attr("index", AttrKind.INT),), infer=_tuple_get_infer,
                  ref=lambda t, *, index: t[index], bprop=_structural_bprop, ms_name="TupleGetItem")


STRUCTURAL: dict[str, OpDef] = {d.name: d for d in (CONST, IF, WHILE, YIELD, RETURN, CALL,
                                                     FUSED, MAKE_TUPLE, TUPLE_GET)}
"""The IR-level ops by their text spelling (the parser's first stop before the registry)."""


def resolve_opdef(name: str) -> OpDef:
    """The OpDef spelled ``name`` in the text: a structural op, else a registry entry.

    KeyError (naming close matches) when there is none.
    """
    op = STRUCTURAL.get(name)
    return op if op is not None else lookup(name)


def shadowed_registry_names() -> list[str]:
    """Registry entries whose names a structural op takes (a test keeps this empty)."""
    return sorted(set(STRUCTURAL) & set(REGISTRY))

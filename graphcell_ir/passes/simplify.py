"""``simplify``: local algebraic identities and canonical forms of layout ops, by rule table.

Every rule is exact in IEEE arithmetic for every input, NaN, infinities and signed zeros
included: ``x * 1 -> x``, ``x / 1 -> x`` and ``x - 0 -> x`` are; ``x + 0 -> x`` is not
(``-0.0 + 0.0`` is ``+0.0``) and neither is ``x * 0 -> 0`` (``inf * 0`` is NaN), so they are
absent. A rule only fires when its replacement has exactly the root's type (the driver checks),
which is what guards e.g. ``x * 1`` where the ``1`` would broadcast ``x`` or promote its dtype.

Canonical forms: ``bias_add`` is an ``add`` of the bias reshaped to broadcast along the channel
axis (its reference is exactly that; as an elementwise op it fuses with its neighbours: W1's
bias and ReLU in one pass); ``expand_dims``/``squeeze``, a ``transpose`` that only moves size-1 axes and a
``broadcast_to`` that only adds size-1 axes are all ``reshape``; chains of reshapes, of
transposes and of broadcasts collapse into one; no-op reshapes, transposes, broadcasts and casts
disappear; a cast through a dtype that holds every value of the source exactly is one cast.

Scatters into zeros: a sum of ``setitem``s into zero ``fill``s at basic keys that touch no
element twice (the gradient of a value read by several slices: attention's q, k and v of one
projection) is one chain of ``setitem``s into one zero fill, plus ``+0``: the sum's values are
``v + 0`` in each slice (``-0.0`` becomes ``+0.0``) and ``+0.0`` elsewhere, and so are the
chain's; the ``+0`` fuses with the reader of the sum, and the chain needs no full-size copy per
slice nor a pass over each operand of the sum.

Precondition: valid IR. Postcondition: valid IR computing the same values bit for bit; no rule
matches anywhere (up to the driver's cap); the matched roots and the ops that died with them
are erased, other dead ops are left for ``dce``.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from graphcell_ir.ir.core import Function, Literal, OpResult, Value
from graphcell_ir.ir.structural import MAKE_TUPLE, TUPLE_GET
from graphcell_ir.ir.types import DType, ScalarType, TensorType
from graphcell_ir.ops import REGISTRY
from graphcell_ir.ops.nn import channel_axis
from graphcell_ir.passes.rules import RuleSet, apply_rules, const, pat, rule, var
from graphcell_ir.passes.support import NOT_CONSTANT, per_function, splat_value

ADD, MUL, DIV, SUB, NEG = (REGISTRY[n] for n in ("add", "mul", "div", "sub", "neg"))
BIAS_ADD = REGISTRY["bias_add"]
LOGICAL_NOT, SELECT, CAST = (REGISTRY[n] for n in ("logical_not", "select", "cast"))
RESHAPE, TRANSPOSE, BROADCAST_TO = (REGISTRY[n] for n in ("reshape", "transpose", "broadcast_to"))
EXPAND_DIMS, SQUEEZE = REGISTRY["expand_dims"], REGISTRY["squeeze"]
SETITEM, FILL = REGISTRY["setitem"], REGISTRY["fill"]

X, C, B = var("X"), var("C"), var("B")


# --- guards and builders for the rules that need more than "return X" --------------------------

def same_type_as_root(X: Value, root) -> Value | None:
    """``X`` when the root computes a value of ``X``'s type (a reshape/broadcast/cast no-op)."""
    return X if X.type == root.results[0].type else None


def resolved_perm(perm, ndim: int) -> tuple[int, ...]:
    """``transpose``'s ``perm`` attribute as a full permutation (None or () reverses the axes)."""
    if not perm:
        return tuple(reversed(range(ndim)))
    return tuple(p % ndim if ndim else p for p in perm)


def transpose_noop(X: Value, root) -> Value | None:
    return X if resolved_perm(root.attrs["perm"], X.ndim) == tuple(range(X.ndim)) else None


def transpose_transpose(X: Value, inner, root, b) -> Value | None:
    """``transpose(transpose(x, p), q)`` is ``transpose(x, p[q[i]])``; ``x`` when that is the
    identity."""
    p = resolved_perm(inner.attrs["perm"], X.ndim)
    q = resolved_perm(root.attrs["perm"], X.ndim)
    composed = tuple(p[i] for i in q)
    if composed == tuple(range(X.ndim)):
        return X
    return b.op(TRANSPOSE, X, perm=composed)


def transpose_to_reshape(X: Value, root, b) -> Value | None:
    """A transpose that keeps the order of the axes longer than 1 moves no data: a reshape."""
    perm = resolved_perm(root.attrs["perm"], X.ndim)
    big_in = [i for i in range(X.ndim) if X.shape[i] != 1]
    big_out = [i for i in perm if X.shape[i] != 1]
    if big_in != big_out or perm == tuple(range(X.ndim)):
        return None
    return b.op(RESHAPE, X, shape=root.results[0].shape)


def as_reshape(X: Value, root, b) -> Value | None:
    """``expand_dims``/``squeeze`` (and a size-preserving ``broadcast_to``) are reshapes."""
    out = root.results[0].type
    if out.size != X.type.size or X.type == out:
        return None
    return b.op(RESHAPE, X, shape=out.shape)


def reshape_reshape(X: Value, root, b) -> Value:
    return b.op(RESHAPE, X, shape=root.results[0].shape)


def broadcast_broadcast(X: Value, root, b) -> Value:
    return b.op(BROADCAST_TO, X, shape=root.results[0].shape)


def bias_add_as_add(X: Value, B: Value, root, b) -> Value:
    """``bias_add(x, bias)`` is ``x + reshape(bias, (C, 1, ..., 1))`` aligned on the channel
    axis (the op checked both have one dtype, so ``add`` promotes nothing)."""
    c = channel_axis(X.ndim, root.attrs["data_format"])
    shape = (X.shape[c],) + (1,) * (X.ndim - 1 - c)
    return b.op(ADD, X, b.op(RESHAPE, B, shape=shape))


def lossless(src: DType, dst: DType) -> bool:
    """Whether every value of ``src`` is exactly a value of ``dst`` (so casting through ``dst``
    loses nothing). numpy calls int64 -> float64 "safe"; it is not, and neither is int32 ->
    float32: an integer fits a float when its bits fit the float's mantissa."""
    if src is dst or src.is_bool:
        return True
    if dst.is_bool or (src.is_float and not dst.is_float):
        return False
    if src.is_int and dst.is_float:
        info = np.iinfo(src.np_dtype)
        return info.bits - (info.min < 0) <= np.finfo(dst.np_dtype).nmant + 1
    return bool(np.can_cast(src.np_dtype, dst.np_dtype, casting="safe"))


def cast_cast(X: Value, inner, root, b) -> Value | None:
    """``cast(cast(x, mid), dst)`` is ``cast(x, dst)`` when ``mid`` holds ``x`` exactly. Not when
    a float ``mid`` goes to an integer ``dst``: numpy's float-to-int casts of NaN, infinities
    and out-of-range values depend on the source type, so the two could differ there."""
    mid, dst = inner.attrs["dtype"], root.attrs["dtype"]
    if not lossless(X.dtype, mid) or (mid.is_float and dst.is_int):
        return None
    if X.type == root.results[0].type:
        return X
    return b.op(CAST, X, dtype=dst)


def tuple_get_make_tuple(inner, root) -> Value | None:
    items = inner.operands
    i = root.attrs["index"]
    return items[i] if -len(items) <= i < len(items) else None


def _axis_indices(shape: tuple[int, ...], key) -> list[frozenset] | None:
    """The indices ``x[key]`` reads along each axis of an ``x`` of ``shape`` when ``key`` is
    basic indexing of ints, slices and one ``...`` (the elements it touches are their product),
    else None (``None`` entries, arrays, booleans: not analysed)."""
    key = key if isinstance(key, tuple) else (key,)
    if sum(e is Ellipsis for e in key) > 1 or not all(
            e is Ellipsis or isinstance(e, slice) or
            isinstance(e, (int, np.integer)) and not isinstance(e, (bool, np.bool_)) for e in key):
        return None
    explicit = len(key) - (Ellipsis in key)
    if explicit > len(shape):
        return None
    out = []
    for e in key:
        if e is Ellipsis:
            out += [frozenset(range(d)) for d in shape[len(out):len(out) + len(shape) - explicit]]
            continue
        d = shape[len(out)]
        if isinstance(e, slice):
            out.append(frozenset(range(*e.indices(d))))
        elif -d <= e < d:
            out.append(frozenset((int(e) % d,)))
        else:
            return None
    return out + [frozenset(range(d)) for d in shape[len(out):]]


def _zero_scatters(v: Value, pairs: list) -> Value | None:
    """The zero ``fill`` under ``v`` when ``v`` is ``setitem``s (each of a tensor of ``v``'s
    dtype, read by nothing else) into one, or such a chain ``+ 0``; appends its
    ``(value, key)``s to ``pairs``, first set first. None otherwise."""
    if not isinstance(v, OpResult):
        return None
    op = v.op
    if op.opdef is FILL:
        value = op.attrs["value"]
        return v if value == 0 and not np.signbit(value) else None
    if len(v.uses) != 1:   # another reader needs it: rewriting would copy, not save
        return None
    if op.opdef is ADD and splat_zero(op.operands[1]) and op.operands[0].type == v.type:
        return _zero_scatters(op.operands[0], pairs)
    if op.opdef is not SETITEM:
        return None
    x, value = op.operands
    if isinstance(value, Literal) or value.type != TensorType(v.type.dtype, value.type.shape):
        return None
    base = _zero_scatters(x, pairs)
    if base is not None:
        pairs.append((value, op.attrs["key"]))
    return base


def splat_zero(v: Value) -> bool:
    """Whether ``v`` is a constant of ``+0`` only."""
    c = splat_value(v)
    return c is not NOT_CONSTANT and c == 0 and not np.signbit(c)


def scatter_sum(P: Value, Q: Value, root, b) -> Value | None:
    """``setitem(0, a, k1) + setitem(0, b, k2)`` (or longer chains) with keys that touch no
    element twice is ``setitem(setitem(0, a, k1), b, k2) + 0`` (see the module docstring)."""
    out = root.results[0].type
    if P.type != out or Q.type != out or out.dtype.np_dtype.kind not in "fiu":
        return None
    pairs: list = []
    base = _zero_scatters(P, pairs)
    if base is None or base.type != out or _zero_scatters(Q, pairs) is None:
        return None
    touched: list[list[frozenset]] = []
    for _, key in pairs:
        axes = _axis_indices(out.shape, key)
        if axes is None or any(all(a & c for a, c in zip(axes, other)) for other in touched):
            return None
        touched.append(axes)
    chain = base
    for value, key in pairs:
        chain = b.op(SETITEM, chain, value, key=key)
    return b.op(ADD, chain, Literal(out.dtype.np_dtype.type(0).item(), ScalarType(out.dtype)))


RULES = RuleSet("simplify", [
    # arithmetic identities, exact in IEEE arithmetic
    rule("mul_one_right", pat(MUL, X, const(1)), lambda X: X),
    rule("mul_one_left", pat(MUL, const(1), X), lambda X: X),
    rule("div_one_right", pat(DIV, X, const(1)), lambda X: X),
    rule("sub_zero_right", pat(SUB, X, const(0)), lambda X: X),
    rule("neg_neg", pat(NEG, pat(NEG, X)), lambda X: X),
    rule("logical_not_not", pat(LOGICAL_NOT, pat(LOGICAL_NOT, X)), lambda X: X),
    rule("select_same", pat(SELECT, C, X, X), lambda X: X),
    # bias_add as the elementwise add it is
    rule("bias_add_as_add", pat(BIAS_ADD, X, B), bias_add_as_add),
    # casts
    rule("cast_noop", pat(CAST, X), same_type_as_root),
    rule("cast_cast_lossless", pat(CAST, pat(CAST, X, bind="inner")), cast_cast),
    # layout: no-ops first, then chains, then canonical forms
    rule("reshape_noop", pat(RESHAPE, X), same_type_as_root),
    rule("reshape_reshape", pat(RESHAPE, pat(RESHAPE, X)), reshape_reshape),
    rule("transpose_noop", pat(TRANSPOSE, X), transpose_noop),
    rule("transpose_transpose", pat(TRANSPOSE, pat(TRANSPOSE, X, bind="inner")),
         transpose_transpose),
    rule("transpose_to_reshape", pat(TRANSPOSE, X), transpose_to_reshape),
    rule("broadcast_to_noop", pat(BROADCAST_TO, X), same_type_as_root),
    rule("broadcast_to_broadcast_to", pat(BROADCAST_TO, pat(BROADCAST_TO, X)),
         broadcast_broadcast),
    rule("broadcast_to_reshape", pat(BROADCAST_TO, X), as_reshape),
    rule("expand_dims_to_reshape", pat(EXPAND_DIMS, X), as_reshape),
    rule("squeeze_to_reshape", pat(SQUEEZE, X), as_reshape),
    rule("squeeze_noop", pat(SQUEEZE, X), same_type_as_root),
    # a sum of disjoint scatters into zeros: one chain of scatters
    rule("scatter_sum", pat(ADD, var("P"), var("Q")), scatter_sum),
    # tuples
    rule("tuple_get_make_tuple", pat(TUPLE_GET, pat(MAKE_TUPLE, ..., bind="inner")),
         tuple_get_make_tuple),
])


def simplify_stats(fn: Function) -> Counter:
    """Run the rules on ``fn``; how often each fired."""
    return apply_rules(fn, RULES)


@per_function
def simplify(fn: Function) -> bool:
    """See the module docstring."""
    return bool(simplify_stats(fn))

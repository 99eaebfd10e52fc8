"""Cotangents while the transform runs: symbolic zeros, tuples, accumulation, materialisation.

A cotangent is ``None`` (a symbolic zero: nothing flows back), an IR ``Value`` of the primal
value's shape, or for a tuple-typed value a Python tuple of cotangents, one per element. Zeros
become ``fill`` ops only where a value is required: a region's ``yield`` (both branches of an
``if`` must yield something), a loop's carried cotangent, a custom bprop's ``dout``, and the
function's results (DESIGN.md §10.6: a gradient that does not reach the output is zeros of the
argument's shape). Inside straight-line code they stay ``None`` and cost nothing, as JAX's
``ad.Zero`` does.

Example::

    >>> from graphcell_ir.ir import Builder, Function, TensorType, float32
    >>> from graphcell_ir.ops import functional as F
    >>> fn = Function("f"); x = fn.add_arg(TensorType(float32, (2,)), "x")
    >>> b = Builder.at_end(fn.body)
    >>> with F.using_emitter(b):
    ...     add(None, x) is x, str(materialize(b, None, x.type).type)
    (True, 'f32[2]')
"""
from __future__ import annotations

from graphcell_ir.errors import BpropShapeError
from graphcell_ir.ir.builder import Builder
from graphcell_ir.ir.core import Literal, Value
from graphcell_ir.ir.types import NONE, ScalarType, TensorType, TupleType, Type
from graphcell_ir.ops import functional as F


def add(a, b):
    """The sum of two cotangents (``None`` is zero; tuples add element by element)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, tuple):
        return tuple(add(x, y) for x, y in zip(a, b))
    return F.add(a, b)


def structure(builder: Builder, g, t: Type):
    """``g`` in the transform's form: a tuple-typed Value is split into its elements."""
    if isinstance(t, TupleType) and isinstance(g, Value):
        return tuple(structure(builder, builder.tuple_get(g, i), e) for i, e in enumerate(t.elements))
    return g


def accumulate(builder: Builder, ct: dict, key: Value, g) -> None:
    """Add cotangent ``g`` to ``ct[key]``."""
    if g is None:
        return
    g = structure(builder, g, key.type)
    ct[key] = add(ct.get(key), g)


def materialize(builder: Builder, g, t: Type) -> Value:
    """A Value of type ``t`` (dtype aside) for cotangent ``g``: zeros for ``None``."""
    if isinstance(t, TupleType):
        parts = g if isinstance(g, tuple) else (None,) * len(t.elements)
        if isinstance(g, Value):
            return g
        return builder.make_tuple(*[materialize(builder, p, e) for p, e in zip(parts, t.elements)])
    if g is not None:
        return g
    if isinstance(t, TensorType):
        return F.zeros_like(t)
    if isinstance(t, ScalarType):  # placeholder inside a tuple: a Python scalar has no gradient
        return Literal(False if t.dtype.is_bool else 0, t)
    if t == NONE:
        return Literal(None)
    raise TypeError(f"no zero for values of type {t}")


def materialize_as(builder: Builder, g, t: Type) -> Value:
    """Like :func:`materialize`, and cast to ``t``'s dtype: the one type a loop-carried or
    branch-joined cotangent must keep."""
    if isinstance(t, TupleType) and not isinstance(g, Value):
        parts = g if isinstance(g, tuple) else (None,) * len(t.elements)
        return builder.make_tuple(*[materialize_as(builder, p, e) for p, e in zip(parts, t.elements)])
    v = materialize(builder, g, t)
    if isinstance(t, TensorType) and v.type != t:
        v = F.cast(v, dtype=t.dtype)
    return v


def check_shape(g, like: Value, what: str) -> None:
    """BpropShapeError unless gradient ``g`` has the shape of ``like`` (DESIGN.md §10.9)."""
    if g is None or isinstance(g, tuple) or isinstance(like.type, TupleType):
        return
    if not isinstance(g, Value):
        raise BpropShapeError(f"{what} is a {type(g).__name__}, not an IR value")
    if tuple(g.shape) != tuple(like.shape):
        raise BpropShapeError(f"{what} has shape {list(g.shape)} but its operand has shape "
                              f"{list(like.shape)}")

"""Estimated floating-point work of one op: the rules ``OpDef.cost`` points at, and the default
each ``Kind`` implies.

A rule is ``rule(operand_types, result_types, **attrs) -> int``, the op's FLOPs (a multiply-add
counts two) from the static types alone, as the shape rules work. Ops declare one next to their
entry (``defop(..., cost=per_output_element(5))``) when their ``kind`` does not say it: an
elementwise op does one operation per result element, a reduction one per input element, layout
ops and side effects none. An opaque op without a rule has no estimate (:func:`flops` returns
None) and summaries say which ops those are, rather than guess.

Example::

    >>> from graphcell_ir.ir.types import TensorType, float32
    >>> from graphcell_ir.ops import REGISTRY
    >>> a, b = TensorType(float32, (32, 400)), TensorType(float32, (120, 400))
    >>> flops(REGISTRY["matmul"], (a, b), (TensorType(float32, (32, 120)),),
    ...       {"transpose_a": False, "transpose_b": True})
    3072000
"""
from __future__ import annotations

from typing import Callable, Sequence

from graphcell_ir.ir.types import TensorType, Type

CostFn = Callable[..., int]


def elements(t: Type) -> int:
    """How many values a type holds: a tensor's size, 1 for a scalar, 0 for anything else."""
    if isinstance(t, TensorType):
        return t.size
    return 1 if getattr(t, "dtype", None) is not None and getattr(t, "shape", None) == () else 0


def nbytes(t: Type) -> int:
    """The bytes a tensor occupies (0 for values that are not tensors)."""
    return t.size * t.dtype.np_dtype.itemsize if isinstance(t, TensorType) else 0


def per_output_element(k: int = 1) -> CostFn:
    """``k`` operations per element of the largest result (softmax, one_hot, pooling windows)."""
    def rule(ins: Sequence[Type], outs: Sequence[Type], **attrs) -> int:
        return k * max((elements(t) for t in outs), default=0)
    rule.__qualname__ = f"per_output_element({k})"
    return rule


def per_input_element(k: int = 1) -> CostFn:
    """``k`` operations per element of the largest operand (reductions, losses)."""
    def rule(ins: Sequence[Type], outs: Sequence[Type], **attrs) -> int:
        return k * max((elements(t) for t in ins), default=0)
    rule.__qualname__ = f"per_input_element({k})"
    return rule


def window_cost(ins: Sequence[Type], outs: Sequence[Type], *, kernel_size=(1, 1), **attrs) -> int:
    """Pooling and its gradients: one operation per window element per element of the pooled
    (smaller) side."""
    ks = tuple(kernel_size or (1,))
    kh, kw = (ks[0], ks[0]) if len(ks) == 1 else ks[-2:]   # one size is both sides
    return kh * kw * min(elements(t) for t in (*ins, *outs) if elements(t))


def conv_cost(big: int, weight: TensorType) -> int:
    """A convolution, or one of its gradients: each element of ``big`` (the result, or the
    result gradient) meets ``Cin/group * KH * KW`` weights with a multiply-add."""
    per_out = weight.size // max(weight.shape[0], 1)
    return 2 * big * per_out


def flops(opdef, ins: Sequence[Type], outs: Sequence[Type], attrs: dict) -> int | None:
    """The op's estimated FLOPs: its own rule, else what its kind implies; None when neither
    says (an opaque op without a rule)."""
    from graphcell_ir.ops.registry import Kind
    rule = getattr(opdef, "cost", None)
    if rule is not None:
        return int(rule(tuple(ins), tuple(outs), **attrs))
    kind = getattr(opdef, "kind", None)
    if kind is Kind.ELEMENTWISE:
        return per_output_element()(ins, outs)
    if kind is Kind.REDUCTION:
        return per_input_element()(ins, outs)
    if kind in (Kind.LAYOUT, Kind.SIDE_EFFECT):
        return 0
    return None

"""A test-only emitter for the functional API: every ``F.<op>`` runs the op's numpy reference.

It lets the op tests run bprop rules without graphcell's runtime (the rules only need values with
``.shape`` and ``.dtype``). Every op the rules call is also checked: its inferred type must match
what its reference returned, so running the gradient tests checks ``infer``/``ref`` agreement on
the operand combinations that rules produce too.

    >>> from graphcell_ir.ops import functional as F
    >>> with F.using_emitter(NumpyEmitter()):
    ...     F.add(NpValue(np.ones(2)), 1.0).array
    array([2., 2.])
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.ir.types import ScalarType, TensorType, dtype_from_numpy, type_of_value
from graphcell_ir.ops import functional as F


class NpValue:
    """A numpy array seen through the interface bprop rules use: ``.shape`` and ``.dtype``."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = np.asarray(array)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.array.shape)

    @property
    def dtype(self):
        return dtype_from_numpy(self.array.dtype)

    def __repr__(self) -> str:
        return f"NpValue({self.array!r})"


def wrap(value):
    """numpy results -> NpValue (tuples element-wise); Python scalars and None stay as they are."""
    if isinstance(value, tuple):
        return tuple(wrap(v) for v in value)
    if isinstance(value, (np.ndarray, np.generic)):
        return NpValue(value)
    return value


def unwrap(value):
    if isinstance(value, tuple):
        return tuple(unwrap(v) for v in value)
    return value.array if isinstance(value, NpValue) else value


def check_result(op, types, out) -> None:
    """AssertionError unless ``out`` (a ref result) has the type(s) ``infer`` gave."""
    if isinstance(types, tuple):
        assert isinstance(out, tuple) and len(out) == len(types), \
            f"{op.name}: infer gives {len(types)} results, ref returned {type(out).__name__}"
        for t, o in zip(types, out):
            check_result(op, t, o)
        return
    got = type_of_value(out)
    if isinstance(got, TensorType) and isinstance(types, TensorType):
        assert got == types, f"{op.name}: infer says {types}, ref returned {got}"
    else:
        assert isinstance(types, ScalarType) and got == types, \
            f"{op.name}: infer says {types}, ref returned {type(out).__name__} {got}"


class NumpyEmitter:
    """Runs ``op.ref`` on unwrapped values; with ``check`` (default) also compares with infer."""

    def __init__(self, check: bool = True):
        self.check = check
        self.calls: list[str] = []

    def emit(self, op, args, attrs):
        raw = tuple(unwrap(a) for a in args)
        out = op.ref(*raw, **attrs)
        if self.check:
            types = op.infer_types(*(type_of_value(r) for r in raw), **attrs)
            check_result(op, types, out)
        self.calls.append(op.name)
        return wrap(out)


def run_bprop(op, operands: tuple, attrs: dict, out, dout, emitter: NumpyEmitter | None = None):
    """``op.bprop`` on numpy operands, forward results ``out`` and cotangents ``dout``; the
    gradients come back as numpy arrays (None where the rule gives none)."""
    with F.using_emitter(emitter or NumpyEmitter()):
        grads = op.bprop(*wrap(tuple(operands)), wrap(out), wrap(dout), **attrs)
    assert isinstance(grads, tuple) and len(grads) == len(operands), \
        f"{op.name}: bprop must return one gradient per operand ({len(operands)}), got {grads!r}"
    return tuple(unwrap(g) for g in grads)


class TapeEmitter(NumpyEmitter):
    """A NumpyEmitter that also records every op, so a computation made of F calls (a bprop
    rule, say) can itself be differentiated with the registry's rules: a minimal reverse-mode
    autodiff for testing gradients of gradients."""

    def __init__(self):
        super().__init__(check=True)
        self.nodes: list[tuple] = []

    def emit(self, op, args, attrs):
        out = super().emit(op, args, attrs)
        self.nodes.append((op, args, attrs, out))
        return out

    def record(self, op, args, attrs):
        """Run ``op`` on ``args`` (NpValues or numbers) as a taped forward op."""
        return self.emit(op, tuple(args), op.check_attrs(attrs))

    def vjp(self, seeds: dict, wrt) -> list:
        """Cotangents of the values ``wrt`` given cotangents ``seeds`` ({id(value): array})."""
        cot = dict(seeds)
        for op, args, attrs, out in reversed(self.nodes):
            outs = out if isinstance(out, tuple) else (out,)
            douts = [cot.get(id(o)) for o in outs]
            if all(d is None for d in douts) or not op.differentiable:
                continue
            grads = run_bprop(op, tuple(unwrap(a) for a in args), attrs, unwrap(out),
                              tuple(douts) if isinstance(out, tuple) else douts[0])
            for a, g in zip(args, grads):
                if isinstance(a, NpValue) and g is not None:
                    cot[id(a)] = cot[id(a)] + g if id(a) in cot else np.asarray(g)
        return [cot.get(id(w), np.zeros(w.shape, w.array.dtype)) for w in wrt]

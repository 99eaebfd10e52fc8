"""Eager execution of registry ops on Tensors: the one path every PyNative op takes.

``apply(op, args, attrs)`` unwraps Tensors to numpy arrays, runs the op's implementation (its
numpy reference, or the backend kernel ``graphcell_ir.backend.nnkernels`` has for it:
convolution, pooling gradients, large selects, small matmuls — the ones graph mode runs too),
wraps the results, and gives the tape its chance to record. ``ops.add``, ``ops.Add()(...)``,
``Tensor.__add__`` and bprop rules run under PyNative all end up here, so there is one place to
validate, one place to record gradients and one place to make fast.

Validation: the op's shape/dtype rule runs once per distinct input signature (cached), so a bad
call gets the registry's message (``Add: shapes [2,3] and [4] do not broadcast ...``) before any
numpy code runs, and a good call in a loop pays a dict lookup.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from graphcell.runtime import allocator
from graphcell_ir.backend import nnkernels
from graphcell_ir.errors import GraphcellError, OpError
from graphcell_ir.ir.types import ScalarType, TensorType, dtype_from_numpy, scalar_dtype
from graphcell_ir.ops.functional import set_default_emitter
from graphcell_ir.ops.registry import OpDef

# The seam for the tape (the PyNative autodiff issue fills it): called after every op with
# (op, args, attrs, outputs) when set. None means no gradient can be needed: nothing is recorded.
recorder: Callable[[OpDef, tuple, dict, Any], None] | None = None

# The seam for graphcell.profiler: while a profiler is active, every op's implementation runs
# through it as timer(op, impl, arrays, attrs) (it times the call). None: ops run directly.
timer: Callable[[OpDef, Any, Any, dict], Any] | None = None

_signatures: dict = {}
_impls: dict = {}
"""OpDef -> what runs it: the backend's kernel where it has a faster one (the same kernels the
graph-mode executable calls), else the numpy reference."""


def _type_of(v):
    from graphcell.tensor import Tensor
    if isinstance(v, Tensor):
        return TensorType(dtype_from_numpy(v._data.dtype), v._data.shape)
    if isinstance(v, np.ndarray):
        return TensorType(dtype_from_numpy(v.dtype), v.shape)
    if isinstance(v, (bool, int, float, np.generic)):
        return ScalarType(scalar_dtype(v))
    raise TypeError(f"expected a Tensor or a Python number, got {type(v).__name__}")


def _sig_part(v):
    data = getattr(v, "_data", v)
    if isinstance(data, np.ndarray):
        return data.dtype, data.shape
    return type(data)


def check(op: OpDef, args: tuple, attrs: dict):
    """Run the op's shape/dtype rule (cached per signature); returns the inferred type(s)."""
    try:
        key = (op, *map(_sig_part, args), *attrs.values())
        hit = _signatures.get(key)
    except TypeError:  # an unhashable attr (a slice in an index key): no cache
        key, hit = None, None
    if hit is None:
        allocator.tune()   # at the first op, not at import: recycle numpy's temporaries
        try:
            types = tuple(_type_of(a) for a in args)
        except TypeError as e:
            raise TypeError(f"{op.display_name}: {e}") from None
        hit = op.infer_types(*types, **attrs)
        if key is not None:
            _signatures[key] = hit
    return hit


def run(op: OpDef, args: tuple, attrs: dict):
    """Validate, then run the op's implementation on numpy values."""
    check(op, args, attrs)
    arrays = [getattr(a, "_data", a) for a in args]
    impl = _impls.get(op)
    if impl is None:
        impl = _impls[op] = nnkernels.implementation(op)
    try:
        if timer is None:
            return impl(*arrays, **attrs)
        return timer(op, impl, arrays, attrs)
    except (GraphcellError, OpError):
        raise
    except (ValueError, TypeError, IndexError, FloatingPointError) as e:
        raise type(e)(f"{op.display_name}: {e}") from e


def apply(op: OpDef, args: tuple, attrs: dict):
    """Run ``op`` eagerly and return Tensor result(s); ``attrs`` must be checked and complete."""
    from graphcell.tensor import Tensor
    out = run(op, args, attrs)
    wrapped = tuple(Tensor._wrap(o) for o in out) if isinstance(out, tuple) else Tensor._wrap(out)
    for i in op.mutates:  # assign: the variable takes the new value at once
        args[i]._data = wrapped._data
    if recorder is not None:
        recorder(op, args, attrs, wrapped)
    return wrapped


def apply_binary(op: OpDef, x, y):
    """``apply`` for a binary op without attributes: the Tensor operators' hot path.

    The same steps as ``apply`` (validate once per signature, reference, wrap, tape), inlined:
    ``x + y`` on small tensors is dominated by Python overhead, not arithmetic.
    """
    xd = x._data if hasattr(x, "_data") else x
    yd = y._data if hasattr(y, "_data") else y
    key = (op, xd.dtype if xd.__class__ is np.ndarray else xd.__class__,
           xd.shape if xd.__class__ is np.ndarray else None,
           yd.dtype if yd.__class__ is np.ndarray else yd.__class__,
           yd.shape if yd.__class__ is np.ndarray else None)
    if key not in _fast_signatures:
        check(op, (x, y), {})
        _fast_signatures.add(key)
    out = op.ref(xd, yd) if timer is None else timer(op, op.ref, (xd, yd), {})
    t = _new_tensor()
    t._data = out
    t._node = None
    if recorder is not None:
        recorder(op, (x, y), {}, t)
    return t


_fast_signatures: set = set()


def _new_tensor():
    global _new_tensor
    from graphcell.tensor import Tensor

    def new(cls=Tensor, make=object.__new__):
        return make(cls)
    _new_tensor = new
    return new()


class EagerEmitter:
    """The functional-API emitter of PyNative: ``F.mul(a, b)`` runs at once through ``apply``."""

    def emit(self, op: OpDef, args: tuple, attrs: dict):
        return apply(op, args, attrs)


EAGER = EagerEmitter()
set_default_emitter(EAGER)  # PyNative: F.<op>(...) on Tensors runs at once

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

import warnings
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
        if v._data is None:
            raise TypeError(f"{v!r} only declares an input of dynamic shape (for "
                            "Cell.set_inputs); it holds no value to compute with")
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


def _wrap(value):
    from graphcell.tensor import Tensor
    return Tensor._wrap(value)


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
    try:   # check()'s cache hit, inlined: the hot path of every op
        seen = (op, *map(_sig_part, args), *attrs.values()) in _signatures
    except TypeError:
        seen = False
    if not seen:
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
    out = run(op, args, attrs)
    if out.__class__ is _ndarray:   # the common case, inlined: Tensor._wrap's steps
        wrapped = _new_tensor()
        wrapped._data = out
        wrapped._node = None
    elif isinstance(out, tuple):
        wrapped = tuple(map(_wrap, out))
    else:
        wrapped = _wrap(out)
    for i in op.mutates:  # assign: the variable takes the new value at once
        args[i]._data = wrapped._data
    if recorder is not None:
        recorder(op, args, attrs, wrapped)
    return wrapped


def apply_binary(op: OpDef, x, y):
    """``apply`` for a binary op without attributes: the Tensor operators' hot path.

    The same steps as ``apply`` (validate once per signature, run, wrap, tape), inlined: ``x + y``
    on small tensors is dominated by Python overhead, not arithmetic. What runs is chosen once
    per signature too (:func:`_binary_impl`): the op's numpy ufunc itself where the reference
    would add nothing to it, else the reference.
    """
    xd = getattr(x, "_data", x)
    yd = getattr(y, "_data", y)
    if xd.__class__ is _ndarray and yd.__class__ is _ndarray:
        key = (op, xd.dtype, xd.shape, yd.dtype, yd.shape)
    else:   # a Python number: its class is its signature
        key = (op, getattr(xd, "dtype", xd.__class__), getattr(xd, "shape", None),
               getattr(yd, "dtype", yd.__class__), getattr(yd, "shape", None))
    impl = _binary_impls.get(key)
    if impl is None:
        impl = _binary_impls[key] = _binary_impl(op, x, y, xd, yd)
    out = impl(xd, yd) if timer is None else timer(op, impl, (xd, yd), {})
    t = _new_tensor()
    t._data = out
    t._node = None
    if recorder is not None:
        recorder(op, (x, y), {}, t)
    return t


def binary_method(op: OpDef, reflected: bool, tensor: type, operand: Callable):
    """``Tensor.__add__`` and its kind (``__radd__`` when ``reflected``): :func:`apply_binary`,
    with its commonest case inline — two plain Tensors of a signature seen before, no tape, no
    profiler. A call layer and the operand checks cost a fifth of ``z + y`` on small tensors
    (W4). ``operand(v)`` makes a non-Tensor a valid operand, or NotImplemented.

        >>> import graphcell as ms
        >>> ms.Tensor([1.0, 2.0]) + ms.Tensor([3.0, 4.0])
        Tensor(shape=[2], dtype=Float32, value= [ 4.00000000e+00,  6.00000000e+00])
    """
    impls, make = _binary_impls, object.__new__

    def method(self, other):
        if other.__class__ is tensor and timer is None and recorder is None:
            xd, yd = (other._data, self._data) if reflected else (self._data, other._data)
            try:
                impl = impls.get((op, xd.dtype, xd.shape, yd.dtype, yd.shape))
            except AttributeError:   # a Tensor without data (DynamicShape): the rule says so
                impl = None
            if impl is not None:
                t = make(tensor)
                t._data = impl(xd, yd)
                t._node = None
                return t
        elif not isinstance(other, tensor):
            other = operand(other)
            if other is NotImplemented:
                return NotImplemented
        return apply_binary(op, other, self) if reflected else apply_binary(op, self, other)
    method.__name__ = f"__r{op.name}__" if reflected else f"__{op.name}__"
    return method


_ndarray = np.ndarray
# The ufuncs called here directly are the references' own: silent on inf/nan as the references
# are (their filter is scoped to graphcell_ir.ops; numpy attributes a warning to its caller).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"graphcell\.runtime\.dispatch")
_binary_impls: dict = {}
"""(op, each operand's dtype and shape, or class) -> what computes it (see :func:`_binary_impl`).
An entry is written only after the op's shape/dtype rule accepted that signature."""


def _binary_impl(op: OpDef, x, y, xd, yd):
    """What computes ``op`` on operands of this signature, after its rule checked them: the
    reference's own ufunc (``op.ref.ufunc``) when the reference would add nothing to it — every
    array operand already has the result dtype, any other operand is a Python int or float, and
    the ufunc gives an array of the result dtype for them (numpy decides a ufunc's result type
    from its operands' dtypes, and a Python number's class: the same for every call of this
    signature; ``bool ** bool`` is int8, not bool) — else the reference."""
    result = check(op, (x, y), {})
    ufunc = getattr(op.ref, "ufunc", None)
    if ufunc is None or not isinstance(result, TensorType):
        return op.ref
    want = result.dtype.np_dtype
    arrays = [v for v in (xd, yd) if v.__class__ is np.ndarray]
    numbers = [v for v in (xd, yd) if v.__class__ is not np.ndarray]
    if not (arrays and all(a.dtype == want for a in arrays)
            and all(v.__class__ in (int, float) for v in numbers)):
        return op.ref
    try:
        with np.errstate(all="ignore"):
            out = ufunc(xd, yd)
    except Exception:   # noqa: BLE001 - the reference raises it, with the op's name
        return op.ref
    return ufunc if out.__class__ is np.ndarray and out.dtype == want else op.ref


def _new_tensor():
    global _new_tensor
    from graphcell.tensor import Tensor

    def new(cls=Tensor, make=object.__new__):
        return make(cls)
    _new_tensor = new
    return new()


class EagerEmitter:
    """The functional-API emitter of PyNative: ``F.mul(a, b)`` runs at once through ``apply``."""

    emit = staticmethod(apply)   # emit(op, args, attrs) is apply itself: a Python call less


EAGER = EagerEmitter()
set_default_emitter(EAGER)  # PyNative: F.<op>(...) on Tensors runs at once

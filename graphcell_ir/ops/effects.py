"""Ops whose meaning includes an effect or an ordering: ``assign``, ``depend``, the host
callbacks and calls, and ``stop_gradient``.

``assign(variable, value)`` is the one write to a Parameter. Its reference only computes the new
value; the PyNative runtime writes it into the Parameter, and graph mode rebinds the Parameter in
the frontend's environment and writes the mutated Parameters back after the call (DESIGN.md §4).
Being ``Kind.SIDE_EFFECT``, it is never reordered, merged or dropped by the passes.

``depend(value, expr)`` returns ``value`` and only adds an ordering edge: ``value`` is used after
``expr`` is computed (MindSpore's ``ops.depend``, typically ``ops.depend(loss, ops.assign(...))``).
Simplification must not forward its operand past it before scheduling.

``host_callback(*xs, fn=..., name=...)`` calls the Python function ``fn`` with the run-time values
of ``xs`` when the graph runs, in program order (``print`` in graph mode, DESIGN.md §9). It returns
its operands' values, or ``fn``'s replacement values when it returns some (one per operand, of the
same types). ``fn`` is an ``ANY`` attribute (printed ``@name``); ``name`` labels the op in text.
Being ``Kind.SIDE_EFFECT``, it is never reordered, merged, folded, fused or dropped; its gradient
is the identity (a straight-through rule: the callback observes, it does not compute).

``py_call(*xs, fn=..., name=..., types=...)`` is the general host call: ``fn`` runs on the
run-time values of ``xs`` (tensors as arrays, scalars as Python numbers, ``obj`` values as they
are) and gives values of the declared ``types`` (a tensor's shape and dtype are checked when it
runs: the graph's shapes are static). It is how graph mode runs Python it cannot compile — a
hook's body, JIT-Fallback code on run-time values, a user's Python primitive — with concrete
values, in program order (``Kind.SIDE_EFFECT``). Its gradient is ``fn.vjp``'s when ``fn`` has one
(``fn.vjp(*tensor results, *their cotangents)`` gives the cotangents of the float tensor
operands, as another ``py_call``); without it no gradient flows through, as MindSpore's JIT
Fallback stops gradients. Without ``fn`` (text read back without its host objects) it is the
identity, its types its operands'.

``hook_backward(*xs, fn=..., name=...)`` is the identity forward; its bprop rule calls ``fn`` on
the gradients flowing back through it, as one ``host_callback`` op — so PyNative (which runs the
rule eagerly) and IR autodiff (which emits it) share one rule, and the callback shows in the
gradient's IR. A gradient no cotangent reached is given to ``fn`` as zeros, as PyNative's hooks see
it. ``ops.HookBackward`` and the backward hooks of cells (at the cell's input and output
boundaries) are applications of it (``graphcell/runtime/hooks.py``). It is ``Kind.OPAQUE``: a
pure forward, never fused or folded (its ``fn`` is a host object), dropped when its value is
unused (PyNative does not call a hook whose value does not reach the output either). Its meaning
is in its gradient, so differentiate before optimising (as graph mode does): CSE may merge two
applications of one ``fn`` to one value, which would then call ``fn`` once.

``stop_gradient(x)`` is the identity, ``NONDIFF``: PyNative records nothing for it and IR
autodiff's activity analysis stops there, so no gradient flows through its result.

Example: the rule, emitted into IR by the gradient transform::

    >>> from graphcell_ir.text import parse_module, print_function
    >>> from graphcell_ir.autodiff import grad_function
    >>> m = parse_module('''func @f(%x: f32[2]) -> f32[] {
    ...   %0 = hook_backward(%x) {fn=none, name="h"} : f32[2]
    ...   %1 = reduce_sum(%0) {axis=none, keep_dims=false} : f32[]
    ...   return %1
    ... }
    ... ''')
    >>> print(print_function(grad_function(m, "f", wrt=[0]), locs="none"))
    func @f.grad(%x: f32[2]) -> f32[], f32[2] attributes {...} {
      %0 = hook_backward(%x) {fn=none, name="h"} : f32[2]
      %1 = reduce_sum(%0) {axis=none, keep_dims=false} : f32[]
      ...
      %dx = host_callback(%4) {fn=none, name="h"} : f32[2]
      return %1, %dx
    }
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import (ObjectType, ScalarType, TensorType, dtype_from_numpy, promote,
                                   promote_weak)
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, Trait, attr, defop
from graphcell_ir.ops.shape_rules import require_tensor, require_tensorish


def _assign_infer(variable, value):
    """Checked against MindSpore 2.10: the shapes must be equal (no broadcasting, no rank
    change), and the value's dtype must convert to the variable's without losing kind or width
    (Int64 into Float32 and Bool into Int32 are fine; Float32 into Float16 or Int32 is not)."""
    variable = require_tensor(variable, "variable")
    require_tensorish(value, "value")
    if isinstance(value, ScalarType):
        if variable.ndim:
            raise ShapeError(f"value must have the shape of variable {variable}, got a Python "
                             f"{value.dtype} scalar")
        widened = promote_weak(variable.dtype, value.dtype)
    else:
        if value.shape != variable.shape:
            raise ShapeError(f"value {value} must have the shape of variable {variable}")
        widened = promote(variable.dtype, value.dtype)
    if widened is not variable.dtype:
        raise OpTypeError(f"cannot assign a {value.dtype} value to a {variable.dtype} variable "
                          f"without losing precision; cast it first")
    return variable


def _assign_ref(variable, value):
    return np.array(value, dtype=variable.dtype, copy=True)  # a new buffer: the runtime keeps it


def bprop_assign(variable, value, out, dout):
    # the result is the value (cast); the variable's old contents do not reach it. (MindSpore
    # returns a zero gradient for the value; graphcell differentiates what assign computes.)
    if not isinstance(value, (bool, int, float)) and value.dtype.is_float:
        return None, F.cast_like(dout, value)
    return None, None


assign = defop("assign", ("variable", "value"), kind=Kind.SIDE_EFFECT, ms_name="Assign",
               infer=_assign_infer, ref=_assign_ref, bprop=bprop_assign, mutates=(0,),
               doc="Writes value into the Parameter variable and returns the new value (cast to "
                   "the variable's dtype).")


def _depend_infer(value, expr):
    return value


depend = defop("depend", ("value", "expr"), kind=Kind.OPAQUE, ms_name="Depend",
               infer=_depend_infer, ref=lambda value, expr: value,
               bprop=lambda value, expr, out, dout: (dout, None),
               doc="Returns value, computed after expr: an ordering edge, no arithmetic.")


def _host_callback_infer(*xs, fn=None, name=""):
    for i, t in enumerate(xs):
        if not isinstance(t, (TensorType, ScalarType)):
            raise OpTypeError(f"operand {i} must be a tensor or a scalar, got {t}")
    return xs[0] if len(xs) == 1 else tuple(xs)


def _host_callback_ref(*xs, fn=None, name=""):
    out = fn(*xs) if fn is not None else None
    if out is None:
        out = xs
    else:
        out = out if isinstance(out, (tuple, list)) else (out,)
        if len(out) != len(xs):
            raise OpTypeError(f"host_callback {name!r}: the callback returned {len(out)} "
                              f"value(s) for {len(xs)} operand(s)")
        out = tuple(_like(new, old, name) for new, old in zip(out, xs))
    return out[0] if len(xs) == 1 else tuple(out)


def _like(new, old, name):
    if isinstance(old, (bool, int, float)) and not isinstance(old, np.generic):
        return type(old)(np.asarray(new).item())
    arr = np.asarray(new)
    if arr.shape != np.shape(old):
        raise ShapeError(f"host_callback {name!r}: the callback replaced a value of shape "
                         f"{np.shape(old)} by one of shape {arr.shape}")
    return arr.astype(np.asarray(old).dtype, copy=True)


def bprop_host_callback(*args, fn=None, name=""):
    # identity (straight-through): the callback runs forward only and its replacement values
    # count as the operands themselves, as for jax.debug.callback's passed-through values
    xs, dout = args[:-2], args[-1]
    if len(xs) == 1:
        return (dout,)
    return tuple(dout) if dout is not None else (None,) * len(xs)


host_callback = defop("host_callback", ("*xs",), kind=Kind.SIDE_EFFECT, traits=(Trait.EXTERNAL,),
                      attrs=(attr("fn", AttrKind.ANY, None), attr("name", AttrKind.STR, "")),
                      infer=_host_callback_infer, ref=_host_callback_ref,
                      bprop=bprop_host_callback,
                      doc="Calls the Python function fn with the run-time values of xs, in "
                          "program order; returns them (or fn's replacements of the same types).")


def _hook_backward_infer(*xs, fn=None, name=""):
    for i, t in enumerate(xs):
        if not isinstance(t, TensorType):
            raise OpTypeError(f"operand {i} must be a tensor, got {t}")
    return xs[0] if len(xs) == 1 else tuple(xs)


def _hook_backward_ref(*xs, fn=None, name=""):
    return xs[0] if len(xs) == 1 else tuple(xs)


def bprop_hook_backward(*args, fn=None, name=""):
    # fn sees every gradient (zeros where none arrived) and may replace them: one host callback
    xs, dout = args[:-2], args[-1]
    douts = (dout,) if len(xs) == 1 else tuple(dout)
    douts = tuple(F.zeros_like(x) if d is None else d for x, d in zip(xs, douts))
    new = F.host_callback(*douts, fn=fn, name=name)
    return (new,) if len(xs) == 1 else tuple(new)


hook_backward = defop("hook_backward", ("*xs",), kind=Kind.OPAQUE,
                      attrs=(attr("fn", AttrKind.ANY, None), attr("name", AttrKind.STR, "")),
                      infer=_hook_backward_infer, ref=_hook_backward_ref,
                      bprop=bprop_hook_backward,
                      doc="The identity; its gradient calls fn on the gradients flowing back "
                          "(a host callback), which may replace them.")


def _stop_gradient_ref(x):
    return x


stop_gradient = defop("stop_gradient", ("x",), kind=Kind.OPAQUE, ms_name="StopGradient",
                      infer=lambda x: require_tensor(x, "x"), ref=_stop_gradient_ref,
                      bprop=NONDIFF,
                      doc="The identity whose result no gradient flows through (NONDIFF: both "
                          "autodiffs stop at it).")


# --- py_call: a Python function on the run-time values ------------------------------------------

def _py_call_infer(*xs, fn=None, name="", types=()):
    for i, t in enumerate(xs):
        if not isinstance(t, (TensorType, ScalarType, ObjectType)):
            raise OpTypeError(f"operand {i} must be a tensor, a scalar or a Python object, got {t}")
    if not types:
        return ()
    return types[0] if len(types) == 1 else tuple(types)


def _py_call_ref(*xs, fn=None, name="", types=()):
    if fn is None:   # no function: the identity (text read back without its host objects)
        out = xs
    else:
        out = fn(*xs)
        out = tuple(out) if isinstance(out, (tuple, list)) else (out,) if types else ()
    if len(out) != len(types):
        raise OpTypeError(f"py_call {name!r}: the function gave {len(out)} value(s), the graph "
                          f"expects {len(types)}")
    checked = tuple(_of_type(v, t, name) for v, t in zip(out, types))
    if not types:
        return None
    return checked[0] if len(types) == 1 else checked


def _of_type(v, t, name):
    """``v`` checked against the type the graph was compiled for (static shapes)."""
    if isinstance(t, ObjectType):
        return v
    if isinstance(t, ScalarType):
        if not isinstance(v, (bool, int, float, np.generic)):
            raise OpTypeError(f"py_call {name!r}: expected a Python {t.dtype} number, got "
                              f"{type(v).__name__}")
        return t.dtype.np_dtype.type(v).item()
    arr = np.asarray(v)
    if arr.shape != t.shape or arr.dtype != t.dtype.np_dtype:
        raise ShapeError(f"py_call {name!r}: expected a tensor {t} (the type graph mode compiled "
                         f"for), got {_describe_array(arr)}")
    return arr


def _describe_array(arr) -> str:
    try:
        return str(TensorType(dtype_from_numpy(arr.dtype), arr.shape))
    except Exception:  # noqa: BLE001 - an object array: describe it as numpy does
        return f"an array of dtype {arr.dtype} and shape {list(arr.shape)}"


def bprop_py_call(*args, fn=None, name="", types=()):
    # the function's own vjp (fn.vjp) when it has one, on the operands, results and their
    # cotangents: one host call giving the cotangents of the float tensor operands; without a
    # vjp no gradient flows through (MindSpore's JIT Fallback stops it there too)
    xs, out, dout = args[:-2], args[-2], args[-1]
    if fn is None:   # the identity: straight through, as host_callback
        return (dout,) if len(xs) == 1 else tuple(dout)
    vjp = getattr(fn, "vjp", None)
    diff = [i for i, x in enumerate(xs) if _is_float_tensor(x)]
    if vjp is None or not diff or not types:
        return (None,) * len(xs)
    outs = (out,) if len(types) == 1 else tuple(out)
    douts = (dout,) if len(types) == 1 else tuple(dout)
    douts = tuple(F.zeros_like(o) if d is None else d
                  for d, o, t in zip(douts, outs, types) if isinstance(t, TensorType))
    tensors = tuple(o for o, t in zip(outs, types) if isinstance(t, TensorType))
    grads = F.py_call(*tensors, *douts, fn=vjp, name=f"{name} [grad]",
                      types=tuple(TensorType(xs[i].dtype, tuple(xs[i].shape)) for i in diff))
    grads = (grads,) if len(diff) == 1 else tuple(grads)
    result: list = [None] * len(xs)
    for i, g in zip(diff, grads):
        result[i] = g
    return tuple(result)


def _is_float_tensor(x) -> bool:
    return not isinstance(x, (bool, int, float)) and getattr(x, "shape", None) is not None \
        and getattr(x, "dtype", None) is not None and x.dtype.is_float \
        and not isinstance(getattr(x, "type", None), ScalarType)


py_call = defop("py_call", ("*xs",), kind=Kind.SIDE_EFFECT,
                attrs=(attr("fn", AttrKind.ANY, None), attr("name", AttrKind.STR, ""),
                       attr("types", AttrKind.TYPES, ())),
                infer=_py_call_infer, ref=_py_call_ref, bprop=bprop_py_call,
                doc="Calls the Python function fn with the run-time values of xs, in program "
                    "order; its results have the given types (checked when it runs). Its gradient "
                    "is fn.vjp's, if fn has one.")

"""The Resolver protocol: how the frontend learns what a user's Python object means.

The frontend reads ``construct`` as Python source and meets Python objects: attributes of
``self``, globals and closure variables of the function, callables. graphcell_ir knows nothing
of Cell, Tensor or Parameter (DESIGN §2), so it asks a resolver — graphcell implements one in
``graphcell/graph/resolver.py`` — to classify each object into one of the records below, and acts
on the record alone.

How the frontend acts on each record:

- ``Static(value)``: a compile-time value (numbers, strings, None, tuples of statics, dtypes,
  shapes, ``self.training``...). Operations on statics are evaluated in Python while compiling.
- ``Param(key, type, name, requires_grad, hook)``: a Parameter. It becomes a function argument
  marked ``param`` (one per ``key``, the Parameter object itself, compared by identity). ``hook``
  (library code, value -> value) puts it through a ``hook_backward`` op where it is first read in
  something differentiated: its tensor hooks (``Parameter.register_hook``). ``mutates`` ops (assign)
  rebind its current value in the frontend's environment; each mutated Param becomes an extra
  result, which the runtime writes back after the call (DESIGN §4).
- ``Constant(array)``: a tensor value captured from Python (a Tensor that is not a Parameter):
  a ``const`` op.
- ``Inline(function, self_obj, scope, library=False)``: Python source to parse and inline at the
  call site: a helper function, a method (``self_obj`` bound as its first argument; a bound method
  object as ``function`` is unwrapped the same way), a jit-decorated function. ``scope`` names the
  frame in locations (``Conv2d.construct``; empty: the function's ``__qualname__``).
  ``library=True`` marks framework code (graphcell's own layers): its ops get the ``lib`` mark, so
  ``locs="user"`` printing and error messages point at the user's line that called it.
- ``CellCall(cell, construct, forward_pre_hooks, forward_hooks, has_backward_hooks, bprop,
  bprop_params)``: calling a sub-cell: inline each forward-pre hook (``hook(cell, inputs)``; a
  non-None result replaces the inputs), then ``construct``, then each forward hook
  (``hook(cell, inputs, outputs)``), with the call chain ``Outer.construct>Inner.construct`` in
  every op's location. Backward hooks are the resolver's to express as hooks of this kind:
  graphcell's adds a last forward-pre hook and a last forward hook that put the values through a
  ``hook_backward`` op, whose gradient calls the backward hooks (``has_backward_hooks`` is
  unused, kept so old resolvers still work). ``bprop`` (an ``Inline`` of ``bprop(self, *inputs, out, dout)``) is the
  cell's custom backward: where the call is differentiated, ``construct`` becomes a Function of
  its own and ``bprop`` another, linked by the ``bprop`` attribute IR autodiff understands
  (``grads.py``, ``bprop.py``). ``bprop_params`` are the Parameters whose gradients ``bprop``
  returns in a dict, as ``(input_grads, {parameter: grad})`` (MindSpore's ``internal_params``).
- ``PrimitiveCall(opdef, attrs)``: a callable that is one registry op: a Primitive instance
  (``attrs`` are its constructor attributes; call arguments fill the operands, then the remaining
  attributes in declared order, as ``graphcell_ir.ops.functional.split_args`` does).
- ``Traced(function, is_property=False)``: a library function written against
  ``graphcell_ir.ops.functional`` (the ``ops`` adapters, Tensor methods): the frontend calls it
  with IR values while its Builder is the current emitter (``functional.using_emitter``). Statics
  pass through as Python values. ``is_property=True`` (only from ``tensor_method``) answers an
  attribute that is not called, such as ``x.T``: the frontend calls ``function(x)`` at once.
- ``StaticCall(function)``: a callable evaluated at compile time when all its arguments are static
  (``ms.Tensor([7, 8, 9])`` in ``construct``, ``np.sqrt(2)``); its result is classified again.
- ``GradTransform(function)``: a function that makes a gradient function (``grad``,
  ``value_and_grad``, a ``GradOperation`` instance): called while compiling with its arguments as
  Python objects — cells and functions as they are, Parameters as the Parameter objects — and its
  result is classified again (usually a ``GradCall``).
- ``GradCall(fn, positions, weights, sens_param, has_aux, pack, name)``: calling a gradient
  function of ``fn``: ``fn`` is compiled into a Function of its own (called with the call's
  arguments, as the frontend would call it), IR autodiff adds its gradient Function, and the call
  site calls that (``grads.py``). ``positions`` are the differentiated argument positions (None:
  every tensor argument, as ``GradOperation(get_all=True)``); ``weights`` the Parameters;
  ``sens_param`` takes the cotangent of the output as the last argument; ``has_aux`` differentiates
  the first returned value only. ``pack(value, position_grads, weight_grads)`` arranges what the
  call returns (default: the three as a tuple).
- ``Loop(kind, signature, name)``: a functional loop (MindSpore's ``ops.WhileLoop``,
  ``ops.ForiLoop``, ``ops.Scan``; graphcell's stacked ``scan``): the call's arguments are bound
  with ``signature`` and read by the parameter names of its :class:`LoopKind`; the frontend
  compiles one IR ``while`` (``loops.py``) instead of unrolling. ``name`` is for messages.
- ``HookedArgument(type, hook)`` is an argument spec, not a record: a tensor input with tensor
  hooks, put through ``hook`` where a gradient function differentiates it.
- ``TensorHook(function)``: ``x.register_hook(fn)``, from ``tensor_method``: the frontend puts
  ``function(x, fn)`` right after ``x`` is defined and makes every use of ``x`` read it.
- ``Host(function)``: a callable that needs run-time values (``x.asnumpy``): the call runs as
  Python when the graph runs (JIT Fallback, ``host.py``) and gives an ``obj``. A ``StaticCall``
  given run-time values (``np.exp(x)``) runs that way too.
- ``PyPrimitive(function, infer, inline)``: a user's Python primitive (``host.py``): compiled
  inline when it can be, else run as Python when the graph runs, with the types ``infer`` gives.
- ``Unsupported(reason)``: the frontend raises ``GraphSyntaxError`` at the use, with ``reason``.

``tensor_method(name)`` answers ``x.<name>`` on an IR tensor value (``x.sum``, ``x.astype``...):
a record as above (usually ``Traced`` with the unbound method), or ``None`` when there is no such
method. ``x.shape``, ``x.dtype`` and ``x.ndim`` are answered by the frontend from the value's type.

``is_tensor_class(cls)`` (optional: the frontend calls it only if the resolver has it, and takes
False otherwise) says whether a tensor value computed in the graph is an instance of ``cls``, so
that ``isinstance(x, Tensor)`` in ``construct`` (layers validate their inputs this way) is True.
Objects that are still Python objects (a Parameter read from ``self``) get Python's ``isinstance``.

``print_callback()`` (optional) returns the function ``print(...)`` in compiled code calls when the
graph runs, with the static arguments and the run-time values (numpy arrays, Python scalars) in
order, and print's keyword arguments; without it, Python's ``print`` gets the numpy values.

``host_function(call)`` (optional) returns the Python callable a ``py_call`` op runs for a
``frontend.host.HostCall`` (a hook that does not compile as PyNative runs it, JIT-Fallback code on
run-time values): it gets the run-time values (arrays, Python numbers, objects) of the call's
``Slot`` entries and gives back those of ``call.result``'s Slots, of ``call.types``; with
``call.differentiable`` it records a tape, appends the ``i64[]`` token of that record, and has a
``vjp`` (see the ``py_call`` op). Without it, such code is refused.

Later additions keep old resolvers working: new fields have defaults, new methods are optional.
"""
from __future__ import annotations

import enum
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops.registry import OpDef


@dataclass(frozen=True)
class Static:
    value: Any


@dataclass(frozen=True, eq=False)
class Param:
    key: Any
    type: TensorType
    name: str
    requires_grad: bool = True
    hook: Callable | None = None


@dataclass(frozen=True, eq=False)
class TensorHook:
    """``x.register_hook(fn)`` (from ``tensor_method``): ``function(x, fn)`` is library code
    giving ``x`` through a ``hook_backward`` op whose gradient calls ``fn``; the frontend applies
    it where ``x`` is defined, so the hook sees the whole gradient of ``x``."""

    function: Callable


@dataclass(frozen=True, eq=False)
class HookedArgument:
    """An argument spec (``compile_function``'s ``arg_specs``): a tensor of ``type`` with tensor
    hooks, ``hook`` (library code, value -> value) putting it through a ``hook_backward`` op;
    applied where the argument is differentiated (a gradient function's call), so the hooks see
    its gradient."""

    type: TensorType
    hook: Callable


@dataclass(frozen=True, eq=False)
class Constant:
    array: np.ndarray


@dataclass(frozen=True, eq=False)
class Inline:
    function: Callable
    self_obj: Any = None
    scope: str = ""
    library: bool = False


@dataclass(frozen=True, eq=False)
class CellCall:
    cell: Any
    construct: Inline
    forward_pre_hooks: tuple[Inline, ...] = ()
    forward_hooks: tuple[Inline, ...] = ()
    has_backward_hooks: bool = False
    bprop: Inline | None = None
    bprop_params: tuple = ()
    # a DType (MindSpore's Cell.to_float): the call casts its float tensor inputs, and the
    # trainable float Parameters read from the cell while it runs, to it
    mixed_precision: Any = None


@dataclass(frozen=True, eq=False)
class PrimitiveCall:
    opdef: OpDef
    attrs: dict = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Traced:
    function: Callable
    is_property: bool = False


@dataclass(frozen=True, eq=False)
class StaticCall:
    function: Callable


@dataclass(frozen=True, eq=False)
class GradTransform:
    function: Callable


def _default_pack(value, position_grads: tuple, weight_grads: tuple):
    return value, position_grads, weight_grads


@dataclass(frozen=True, eq=False)
class GradCall:
    fn: Any
    positions: tuple[int, ...] | None = (0,)
    weights: tuple = ()
    sens_param: bool = False
    has_aux: bool = False
    pack: Callable = _default_pack
    name: str = ""


class LoopKind(enum.Enum):
    """The functional loops, with the parameter names a call is read by."""

    WHILE = ("cond_func", "loop_func", "init_val")              # ops.WhileLoop
    FORI = ("lower", "upper", "loop_func", "init_val", "unroll")  # ops.ForiLoop
    SCAN = ("loop_func", "init", "xs", "length", "unroll")        # ops.Scan: ys is a list
    SCAN_STACKED = ("loop_func", "init", "xs", "length", "reverse")  # ys stacked into tensors


@dataclass(frozen=True, eq=False)
class Loop:
    kind: LoopKind
    signature: inspect.Signature
    name: str


@dataclass(frozen=True, eq=False)
class Host:
    """A callable that needs run-time values (``x.asnumpy()``, ``x.item()``): called, it runs as
    Python when the graph runs (MindSpore's JIT Fallback), giving a Python object (``obj``)."""

    function: Callable


@dataclass(frozen=True, eq=False)
class PyPrimitive:
    """A user's Python primitive (MindSpore's ``Primitive``/``PrimitiveWithInfer`` subclasses,
    ``ops.Custom`` with a Python function): called on values known while compiling it runs then;
    otherwise ``inline`` (an ``Inline`` of its ``__call__``) is compiled when that works, else
    ``function`` runs as Python when the graph runs, its results of the types
    ``infer(argument types)`` gives (a Type or a tuple of them; None: one ``obj``)."""

    function: Callable
    infer: Callable | None = None
    inline: Inline | None = None


@dataclass(frozen=True)
class Unsupported:
    reason: str


Resolved = (Static | Param | Constant | Inline | CellCall | PrimitiveCall | Traced | StaticCall
            | GradTransform | GradCall | TensorHook | Host | PyPrimitive | Loop | Unsupported)


class Resolver(Protocol):
    def classify(self, obj: Any) -> Resolved:
        """What the Python object ``obj`` means to the compiler."""

    def tensor_method(self, name: str) -> Resolved | None:
        """``x.<name>`` on a tensor value, or None when tensors have no such attribute."""

    # optional (see the module docstring): def is_tensor_class(self, cls) -> bool
    # optional: def print_callback(self) -> Callable[..., None]
    # optional: def host_function(self, call: frontend.host.HostCall) -> Callable

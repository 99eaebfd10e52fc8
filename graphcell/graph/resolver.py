"""``GraphResolver``: what graphcell's Python objects mean to the compiler (DESIGN §2, §5).

The frontend parses ``construct`` and asks the resolver about every object it meets (attributes
of ``self``, globals, closure variables, callables); the records it answers with are defined in
``graphcell_ir.frontend.resolve``. The rules, in the order they are tried:

=================================================  =============================================
object                                             record
=================================================  =============================================
``Parameter``                                      ``Param`` (one per Parameter, by identity)
``Tensor``                                         ``Constant`` (its values, captured now)
numbers, str, None, dtypes, slices, modules,       ``Static``
tuples/lists/dicts, ``CellList``, plain objects
``Cell``                                           ``CellCall``: construct, forward hooks,
                                                   and the boundaries of its backward hooks
``SequentialCell``                                 ``CellCall`` of a loop over its cells
Primitive instance (``ops.Add()``)                 ``PrimitiveCall(opdef, init_attrs)``
a user's Primitive (``PrimitiveWithInfer``,        ``PyPrimitive``: run as Python when the graph
``ops.Custom``, a subclass with ``__call__``)       runs (declared outputs), or compiled
Primitive of a function (``ops.Stack(axis)``)      ``Traced`` (the function, init args bound)
registry function (``ops.add``, ``F.add``)         ``PrimitiveCall(opdef, {})``
graphcell library function (``ops.sum``, nn        ``Traced`` (called with IR values, see
helpers), ``Tensor`` methods                       ``traced.py``)
``Tensor``, Primitive and cell classes, numpy,     ``StaticCall`` (run while compiling)
builtins, ``initializer``, dtype helpers
``@jit`` functions and methods                     ``Inline`` of the wrapped function
user functions, methods, callable objects          ``Inline``
``cell.trainable_params()`` and the like           ``StaticCall`` (the Parameters, as objects)
``ops.HookBackward(fn)``, a cell's boundaries      ``Traced``: one ``hook_backward`` op
``ops.WhileLoop()``, ``ops.ForiLoop()``,           ``Loop``: one IR ``while``
``ops.Scan()``, graphcell's stacked ``scan``
``ms.grad``, ``ms.value_and_grad``, a              ``GradTransform`` (run while compiling)
``GradOperation`` instance
what they return (a ``GradFunction``)              ``GradCall``: compiled with IR autodiff
                                                   (``graphcell_ir/frontend/grads.py``)
a cell with a ``bprop`` method                     ``CellCall`` with ``bprop`` (and
                                                   ``bprop_params``: its ``internal_params``)
Parameter classes, hook registration              ``Unsupported`` with the reason
=================================================  =============================================

The resolver also remembers what it met — the Parameters (the compiled function's ``param``
arguments), the cells (whose attributes the compile cache guards) — for the bridge.

Example::

    >>> import graphcell as ms
    >>> from graphcell import nn, ops
    >>> r = GraphResolver()
    >>> r.classify(ops.Add()), r.classify(3)
    (PrimitiveCall(opdef=<OpDef add>, attrs={}), Static(value=3))
    >>> type(r.classify(nn.ReLU())).__name__
    'CellCall'
"""
from __future__ import annotations

import builtins
import functools
import inspect
import types
from typing import Any, Callable

import numpy as np

from graphcell.autodiff import NO_WEIGHTS, GradFunction, GradOperation
from graphcell.graph.reads import attribute_reads
from graphcell.graph.traced import GraphTensor, traced
from graphcell.nn.cell import Cell
from graphcell.nn.container import CellList, SequentialCell
from graphcell.ops.primitive import (FunctionPrimitive, Primitive, PrimitiveWithInfer,
                                     is_user_primitive)
from graphcell.parameter import Parameter
from graphcell.runtime.hooks import (CellBackward, HookBackward, cell_backward, mark,
                                     parameter_hooks, tensor_hooks_callback)
from graphcell.runtime.host import HostFunction
from graphcell.tensor import Tensor
from graphcell_ir.frontend.resolve import (CellCall, Constant, GradCall, GradTransform, Inline,
                                           Loop, Param, PrimitiveCall, Resolved, StaticCall,
                                           Static, Host, PyPrimitive, TensorHook, Traced,
                                           Unsupported)
from graphcell_ir.ir.types import DType, ScalarType, TensorType, dtype_from_numpy, to_dtype

__all__ = ["GraphResolver", "sequential_construct"]

_STATIC_TYPES = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis), slice, range,
                 DType, np.generic, np.dtype, types.ModuleType)
_CONTAINERS = (tuple, list, dict)

# Library modules whose functions are written against F: the frontend calls them (Traced).
_TRACED_MODULES = ("graphcell.ops", "graphcell.nn", "graphcell.numpy", "graphcell.amp",
                   "graphcell._indexing", "graphcell.tensor", "graphcell_ir.ops", "graphcell.parallel",
                   "graphcell.mint")
# Library modules whose functions compute Python values or Tensors from statics (StaticCall).
_STATIC_MODULES = ("graphcell.common", "graphcell.dtype", "graphcell.context",
                   "graphcell.communication", "numpy", "math", "operator", "functools",
                   "itertools")
_UNSUPPORTED_BUILTINS = {
    "print": "print() in graph mode: the values of tensors are not known while compiling; print "
             "in PyNative mode, or return the value and print it after the call",
    "input": "input() cannot run inside a compiled function",
    "open": "open() cannot run inside a compiled function",
    "exec": "exec() cannot run inside a compiled function",
    "eval": "eval() cannot run inside a compiled function",
    "breakpoint": "breakpoint() in graph mode: debug in PyNative mode "
                  "(set_context(mode=PYNATIVE_MODE)), where construct runs as Python",
}
# Tensor methods that need values, which do not exist while compiling.
_HOST_METHODS = ("asnumpy", "item", "tolist", "numpy")
"""Tensor methods that give Python values: JIT Fallback (run when the graph runs)."""
_VALUE_METHODS = ("__array__", "__bool__", "__float__", "__int__", "__index__", "__format__",
                  "__setitem__", "set_data", "init_data")
_GRAD_TRANSFORMS = ("grad", "value_and_grad")
_HOOK_REGISTRATION = ("register_forward_pre_hook", "register_forward_hook",
                      "register_backward_pre_hook", "register_backward_hook")
_PARAMETER_METHODS = ("trainable_params", "untrainable_params", "get_parameters",
                      "parameters_and_names", "parameters_dict")
"""Cell methods that list Parameters: evaluated while compiling (``GradOperation(get_by_list=
True)(self.net, self.net.trainable_params())``); the Parameters stay Python objects."""


def sequential_construct(self, input_data):
    """``SequentialCell.construct`` as the frontend compiles it: each cell after the other."""
    for cell in self.cell_list:
        input_data = cell(input_data)
    return input_data


def _print_tensors(*objects, **kwargs) -> None:
    builtins.print(*map(_as_tensors, objects), **kwargs)


def _as_tensors(x):
    """Run-time numpy values as Tensors, inside tuples and lists too (a hook prints ``inputs``)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return Tensor(x)
    if type(x) in (tuple, list):
        return type(x)(map(_as_tensors, x))
    return x


class GraphResolver:
    """Classifies objects for one compile and remembers the Parameters and cells it met.

    ``watch(cell)`` is called for every cell the compile meets and returns the set in which the
    resolver notes the names of the cell's attributes the compile reads (``reads.ReadRecorder``:
    the cache guards them); ``root`` is the compiled cell (it is met first) and names it in
    warnings.
    """

    def __init__(self, watch: Callable[[Any], set] | None = None, root: Any = None):
        self.params: list[Parameter] = []
        self.cells: list[Cell] = []
        self._param_records: dict[int, Param] = {}
        self._reads: dict[int, set] = {}   # id(cell) -> the names read on it (watch's sets)
        self._watch = watch
        self.root = root
        if isinstance(root, Cell):
            self._meet(root)

    # --- the protocol ----------------------------------------------------------------------------

    def classify(self, obj: Any) -> Resolved:
        """What ``obj`` means to the compiler (see the table in the module docstring)."""
        if isinstance(obj, _STATIC_TYPES):
            return Static(obj)
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if isinstance(obj, Cell):
            return self._cell(obj)
        if isinstance(obj, _CONTAINERS):
            return Static(obj)
        if isinstance(obj, (Primitive, types.FunctionType)) and \
                hasattr(type(obj) if isinstance(obj, Primitive) else obj, "__graphcell_loop__"):
            return _loop(obj)
        if isinstance(obj, Primitive):
            return _primitive(obj)
        if isinstance(obj, HookBackward):
            return Traced(obj)  # one hook_backward op, whose gradient calls the hook
        if isinstance(obj, GradFunction):
            return _grad_call(obj.request)
        if isinstance(obj, GradOperation):
            return GradTransform(obj)
        opdef = getattr(obj, "opdef", None)
        if opdef is not None and callable(obj) and not isinstance(obj, type):
            return PrimitiveCall(opdef, {})  # ops.add / F.add: one registry op
        jitted = getattr(obj, "__graphcell_jit__", None)
        if jitted is not None:
            return self._method_or_function(jitted, getattr(obj, "__self__", None))
        if isinstance(obj, type):
            return _class(obj)
        if isinstance(obj, types.FunctionType):
            return self._function(obj)
        if isinstance(obj, types.MethodType):
            return self._bound_method(obj)
        if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType, np.ufunc)):
            return _builtin(obj)
        return self._other(obj)

    def read_attribute(self, obj: Any, name: str):
        """``obj.<name>`` for the frontend; a read on a cell is noted (with what a property or
        method it names reads: ``reads.attribute_reads``) for the cache guards."""
        if isinstance(obj, Cell):
            self._meet(obj)
            self._reads[id(obj)].update(attribute_reads(type(obj), name))
        return getattr(obj, name)

    def tensor_method(self, name: str) -> Resolved | None:
        """``x.<name>`` on an IR tensor: a ``Traced`` Tensor method (None when there is none);
        a property (``x.T``, ``x.size``) is ``Traced(..., is_property=True)``."""
        return _tensor_method(name)

    def is_tensor_class(self, cls) -> bool:
        """Whether a tensor computed in the graph is an instance of ``cls`` (``isinstance(x,
        Tensor)`` in construct): True for ``Tensor`` and its bases, False for ``Parameter``."""
        return isinstance(cls, type) and issubclass(Tensor, cls)

    def host_function(self, call) -> Callable:
        """The callable of a ``py_call`` op: ``call.function`` run on the run-time values as
        PyNative runs it (``runtime/host.py``)."""
        return HostFunction(call)

    def print_callback(self) -> Callable:
        """The function ``print(...)`` in construct calls when the graph runs: Python's print,
        with the run-time numpy values as Tensors, so it prints what PyNative prints."""
        return _print_tensors

    # --- the kinds of objects ----------------------------------------------------------------

    def _tensor(self, t: Tensor) -> Resolved:
        if isinstance(t, Parameter):
            record = self._param_records.get(id(t))
            if record is None:
                d = t._data
                record = Param(t, TensorType(dtype_from_numpy(d.dtype), d.shape), t.name,
                               t.requires_grad, _parameter_hook(t))
                self._param_records[id(t)] = record
                self.params.append(t)
            return record
        if isinstance(t, GraphTensor):
            return Unsupported("a compiled tensor escaped from library code into a Python value")
        return Constant(t._data)

    def _meet(self, cell: Cell) -> None:
        if id(cell) not in self._reads:
            self._reads[id(cell)] = self._watch(cell) if self._watch is not None else set()
            self.cells.append(cell)

    def _cell(self, cell: Cell) -> Resolved:
        self._meet(cell)
        if isinstance(cell, CellList):
            return Static(cell)  # the frontend unrolls loops over it and indexes it statically
        construct = construct_of(cell)
        pre, post = _boundaries(cell)
        return CellCall(cell, Inline(construct, cell, f"{cell.cls_name}.construct",
                                     _is_library(construct)),
                        _hooks(cell, "_forward_pre_hook") + pre,
                        _hooks(cell, "_forward_hook") + post, False, *_bprop(cell),
                        mixed_precision=getattr(cell, "_mixed_precision", None))

    def _function(self, fn: types.FunctionType) -> Resolved:
        module = fn.__module__ or ""
        if module.startswith("graphcell.graph"):
            return Inline(fn, None, _scope(fn), library=True)
        if _in(module, _TRACED_MODULES):
            return Traced(traced(fn))
        if _in(module, _STATIC_MODULES):
            return StaticCall(fn)
        if _in(module, ("graphcell.testing",)):   # check_grads' helpers: plain Python
            return Inline(fn, None, _scope(fn), library=True)
        if _in(module, ("graphcell",)):
            if module == "graphcell.autodiff" and fn.__name__ in _GRAD_TRANSFORMS:
                return GradTransform(fn)
            return Unsupported(f"graphcell.{fn.__name__}() cannot be called inside a compiled "
                               "function")
        return Inline(fn, None, _scope(fn))

    def _method_or_function(self, fn: Callable, self_obj: Any) -> Resolved:
        if self_obj is None:
            return self._function(fn) if isinstance(fn, types.FunctionType) else self.classify(fn)
        if isinstance(self_obj, Cell):
            self._meet(self_obj)
        return Inline(fn, self_obj, f"{type(self_obj).__name__}.{fn.__name__}", _is_library(fn))

    def _bound_method(self, m: types.MethodType) -> Resolved:
        owner, fn = m.__self__, m.__func__
        if isinstance(owner, type):  # a classmethod: run it while compiling when it is a library's
            return StaticCall(m) if _in(owner.__module__, ("graphcell", "numpy")) else Inline(
                fn, owner, f"{owner.__name__}.{fn.__name__}")
        if isinstance(owner, Tensor):
            if isinstance(owner, (Parameter, GraphTensor)):
                return Unsupported(f"calling {m.__name__}() on a Parameter taken from Python; "
                                   "use self.<parameter> in construct")
            return StaticCall(m)  # a captured constant's method: evaluated while compiling
        if isinstance(owner, CellBackward):
            return Traced(m)  # a boundary of a cell's backward hooks: one hook_backward op
        if isinstance(owner, Cell) and fn.__name__ in _HOOK_REGISTRATION:
            return Unsupported(f"{fn.__name__}() in construct or a @jit function is not "
                               "supported in graph mode (as in MindSpore); register the hook "
                               "outside, e.g. in __init__")
        if isinstance(owner, Cell) and fn.__name__ in _PARAMETER_METHODS and \
                fn.__module__ == "graphcell.nn.cell":
            self._meet(owner)
            return StaticCall(m)  # self.trainable_params(): the Parameters, while compiling
        if isinstance(owner, Cell) or not _in(getattr(fn, "__module__", "") or "", _TRACED_MODULES) \
                or _holds_parameters(owner):
            # a library object that holds Parameters (amp's loss scalers) is inlined like a
            # cell's method, so that the Parameters it reads become the graph's arguments
            return self._method_or_function(fn, owner)
        return Traced(traced(m))

    def _other(self, obj: Any) -> Resolved:
        if callable(obj) and _in(getattr(obj, "__module__", "") or "", _STATIC_MODULES):
            return StaticCall(obj)   # numpy's function objects (np.sum): run while compiling
        if callable(obj):
            call = getattr(type(obj), "__call__", None)
            if isinstance(call, types.FunctionType):
                return self._method_or_function(call, obj)
            return Unsupported(f"a {type(obj).__name__} object cannot be called in graph mode")
        return Static(obj)  # a plain Python object: its attributes are read while compiling


def _loop(obj) -> Loop:
    """A functional loop (``ops.WhileLoop()``, ``ops.ForiLoop()``, ``ops.Scan()``, graphcell's
    stacked ``scan``): one IR ``while`` (``graphcell_ir/frontend/loops.py``)."""
    name = f"ops.{type(obj).__name__}" if isinstance(obj, Primitive) else obj.__name__
    return Loop(obj.__graphcell_loop__, inspect.signature(obj), name)
def _holds_parameters(obj) -> bool:
    return any(isinstance(v, Parameter) for v in getattr(obj, "__dict__", {}).values())


def _is_library(fn) -> bool:
    """graphcell's own code (a layer's construct, an optimizer's helper): its ops are marked
    ``lib``, so locations and errors point at the user's line that called it."""
    return _in(getattr(fn, "__module__", "") or "", ("graphcell", "graphcell_ir"))


def _in(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def construct_of(cell: Cell) -> Callable:
    """The Python function that is ``cell``'s construct (jit wrappers and containers unwrapped)."""
    own = cell.__dict__.get("construct")
    fn = own if own is not None else type(cell).construct
    fn = getattr(fn, "__graphcell_jit__", fn)
    if isinstance(cell, SequentialCell) and fn is SequentialCell.construct:
        return sequential_construct
    return fn


def _hooks(cell: Cell, table: str) -> tuple[Inline, ...]:
    hooks = cell.__dict__.get(table) or {}
    out = []
    for fn in hooks.values():
        if isinstance(fn, types.MethodType):
            out.append(Inline(fn.__func__, fn.__self__, _scope(fn)))
        else:
            out.append(Inline(fn, None, _scope(fn)))
    return tuple(out)


def _boundaries(cell: Cell) -> tuple[tuple[Inline, ...], tuple[Inline, ...]]:
    """The backward hooks of ``cell`` as a last forward-pre hook (the input boundary, with
    backward hooks) and a last forward hook (the output boundary, with backward or backward-pre
    hooks): where PyNative puts them (``runtime/hooks.py``), as ``hook_backward`` ops whose
    gradients call the hooks. No backward hooks: nothing."""
    d = cell.__dict__
    back, back_pre = bool(d.get("_backward_hook")), bool(d.get("_backward_pre_hook"))
    if not (back or back_pre):
        return (), ()
    backward, scope = cell_backward(cell), f"{cell.cls_name}.backward_hooks"
    pre = (Inline(input_boundary, backward, scope, library=True),) if back else ()
    return pre, (Inline(output_boundary, backward, scope, library=True),)


def input_boundary(backward, cell, inputs):
    """Compiled as the last forward-pre hook of a cell with backward hooks."""
    return backward.mark_inputs(*inputs)


def output_boundary(backward, cell, inputs, outputs):
    """Compiled as the last forward hook of a cell with backward(-pre) hooks."""
    return backward.mark_output(outputs)


def _scope(fn) -> str:
    """The name of ``fn``'s frame in locations: its qualified name without ``<locals>`` parts."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or "function"
    return name.split("<locals>.")[-1]


def _primitive(prim: Primitive) -> Resolved:
    if is_user_primitive(prim):
        return _user_primitive(prim)
    if isinstance(prim, FunctionPrimitive):  # ops.Stack(axis): the function it calls, traced
        return Traced(traced(prim.bound()))
    opdef = prim.opdef
    if opdef.variadic:  # MindSpore passes variadic operands as one tuple: ops.Concat()((x, y))
        return Traced(_variadic(prim))
    return PrimitiveCall(opdef, dict(prim.init_attrs))


def _user_primitive(prim: Primitive) -> Resolved:
    """A user's Primitive: a PrimitiveWithInfer (``ops.Custom``) runs as Python when the graph
    runs, with the outputs it declares; another one's ``__call__`` is compiled when it can be."""
    call = getattr(type(prim), "__call__", None)
    if call is Primitive.__call__ or not isinstance(call, types.FunctionType):
        return Unsupported(f"{prim.name}: a Primitive subclass computes in __call__, which "
                           f"{type(prim).__name__} does not define")
    if isinstance(prim, PrimitiveWithInfer):
        return PyPrimitive(prim, infer=_declared_types(prim))
    return PyPrimitive(prim, inline=Inline(call, prim, f"{type(prim).__name__}.__call__",
                                           _is_library(call)))


def _declared_types(prim: PrimitiveWithInfer) -> Callable:
    def infer(arg_types: list):
        shapes = [list(t.shape) if isinstance(t, (TensorType, ScalarType)) else t
                  for t in arg_types]
        dtypes = [t.dtype if isinstance(t, (TensorType, ScalarType)) else t for t in arg_types]
        out = tuple(TensorType(to_dtype(d), tuple(int(n) for n in shape))
                    for shape, d in prim.output_types(shapes, dtypes))
        return out[0] if len(out) == 1 else out
    return infer


def _variadic(prim: Primitive) -> Callable:
    from graphcell_ir.ops import functional as F
    opdef, init = prim.opdef, dict(prim.init_attrs)

    def call(*args):
        if args and isinstance(args[0], (tuple, list)):
            args = (*args[0], *args[1:])
        return F.bind(opdef, *args, **init)
    call.__qualname__ = call.__name__ = prim.name
    return call


def _class(cls: type) -> Resolved:
    if issubclass(cls, Parameter):
        return Unsupported("creating a Parameter inside a compiled function; create it in "
                           "__init__ and use self.<name> in construct")
    # Tensor, Primitive classes, HookBackward, int, tuple, np.float32... and cells: a cell made
    # in compiled code is made while compiling, once per compile (as MindSpore 2.10 does)
    return StaticCall(cls)


def _builtin(fn) -> Resolved:
    name = getattr(fn, "__name__", "")
    if getattr(fn, "__self__", None) is builtins and name in _UNSUPPORTED_BUILTINS:
        return Unsupported(_UNSUPPORTED_BUILTINS[name])
    return StaticCall(fn)


def _parameter_hook(param: Parameter):
    """The ``Param.hook`` of a Parameter with tensor hooks: its value through one
    ``hook_backward`` op calling the hooks it has when the gradient runs."""
    fns, callback = parameter_hooks(param)
    if not fns:
        return None
    return traced(lambda value: mark((value,), callback, f"{param.name} hooks")[0])


def _register_hook(x, hook_fn):
    """``x.register_hook(hook_fn)`` in compiled code (the frontend's ``TensorHook``)."""
    if not callable(hook_fn):
        if type(hook_fn).__name__ in ("Closure", "BoundMethod"):  # the frontend's own function
            raise TypeError("register_hook in compiled code takes a Python function defined "
                            "outside it (a lambda or def written in the compiled function "
                            "exists only while compiling)")
        raise TypeError(f"register_hook: hook_fn must be callable, got {type(hook_fn).__name__}")
    callback = tensor_hooks_callback(lambda: (hook_fn,), getattr(hook_fn, "__name__", "hook"))
    return mark((x,), callback, "register_hook")[0]


@functools.lru_cache(maxsize=None)   # per attribute name; lru_cache is thread-safe
def _tensor_method(name: str) -> Resolved | None:
    return _method_record(name)


def _method_record(name: str) -> Resolved | None:
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        return None
    if name == "register_hook":
        return TensorHook(traced(_register_hook))
    if name in _HOST_METHODS and hasattr(Tensor, name):
        return Host(getattr(Tensor, name))
    if name in _VALUE_METHODS:
        return Unsupported(f"x.{name}: the values of a tensor are not known while graph mode "
                           "compiles; compute with ops, or run in PyNative mode")
    attr = inspect.getattr_static(GraphTensor, name, None)
    if attr is None or name in ("__init__", "__new__", "__class__", "__slots__", "__dict__",
                                "__weakref__", "__module__", "__doc__"):
        return None
    if isinstance(attr, property):
        return Traced(traced(attr.fget), is_property=True)
    if isinstance(attr, (staticmethod, classmethod)):
        return StaticCall(getattr(GraphTensor, name))
    if callable(attr):
        return Traced(traced(getattr(GraphTensor, name)))
    return Static(attr)


def _bprop(cell: Cell) -> tuple:
    """``(Inline of bprop, internal_params)`` of a cell with a custom bprop, else ``(None, ())``."""
    fn = getattr(type(cell), "bprop", None)
    if not callable(fn):
        return None, ()
    params = tuple(getattr(cell, "internal_params", ()) or ())
    return Inline(fn, cell, f"{cell.cls_name}.bprop", _is_library(fn)), params


def _grad_call(request) -> GradCall | Unsupported:
    if NO_WEIGHTS in request.options:
        return Unsupported("GradOperation(get_by_list=True) without weights: graph mode needs "
                           "them, GradOperation(get_by_list=True)(net, net.trainable_params())")
    return GradCall(request.fn, request.positions, tuple(request.weights), request.sens_param,
                    request.has_aux, request.pack, request.name)

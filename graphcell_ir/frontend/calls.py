"""Calls: what ``f(*args, **kwargs)`` means depends on what ``f`` is.

- a ``lambda``/nested ``def`` of the compiled code, or a resolver ``Inline`` (helper functions,
  methods): its source is parsed and inlined here; arguments are bound with Python's own rules
  (``inspect.Signature.bind``: keywords, defaults, ``*args``, ``**kwargs``);
- ``CellCall``: the forward-pre hooks, ``construct`` and the forward hooks, inlined with the
  call chain in every op's location (``Net.construct>Dense.construct``); a hook that does not
  compile as PyNative runs it runs as Python when the graph runs (``host.py``);
- ``PrimitiveCall``: one registry op; the Primitive's constructor attributes are merged with the
  call's (``functional.split_args`` decides operands vs attributes);
- ``Traced``: a library function written against ``graphcell_ir.ops.functional``, run with IR
  values while this compiler is the emitter, so each ``F.<op>`` becomes an op here;
- ``StaticCall`` (and a callable ``Static``): evaluated while compiling when every argument is
  static; given run-time values it runs when the graph runs, as Python (JIT Fallback, ``host.py``);
- ``Host`` (``x.asnumpy()``...) and calls of run-time Python objects: JIT Fallback;
- ``GradTransform`` and ``GradCall``: making a gradient function, and calling it (``grads.py``);
- ``Loop``: a functional loop, one IR ``while`` (``loops.py``);
  a ``CellCall`` with a custom ``bprop`` where it is differentiated: ``bprop.py``;
- Python builtins (``len``, ``isinstance``, ``range``, ``enumerate``, ``super``...): see
  ``pybuiltins.py``.

An op's shape or dtype error, or an exception from a library or compile-time function, is
reported at the call's line (the internal exception is kept as the cause).
"""
from __future__ import annotations

import ast
import functools
import inspect
import types

from graphcell_ir.frontend import resolve as R
from graphcell_ir.frontend.errors import Kind, kind_of
from graphcell_ir.frontend.exprs import describe
from graphcell_ir.frontend.pybuiltins import builtin_handler
from graphcell_ir.frontend.scope import (POISON, BoundMethod, Closure, Frame, Poison, Undefined,
                                         has_poison, is_container, is_object, leaves)
from graphcell_ir.frontend.source import SourceUnavailable, parse_function, qualname
from graphcell_ir.ir.core import Value
from graphcell_ir.ir.loc import LIB
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.functional import split_args
from graphcell_ir.ops.registry import lookup


@functools.lru_cache(maxsize=4096)
def _signature(fn) -> inspect.Signature:
    return inspect.signature(fn)


def _call(function, *args, **kwargs):
    """Calls ``function``: the host function of a call of a run-time Python object."""
    return function(*args, **kwargs)


def _name_of(fn) -> str:
    if getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None):
        return qualname(fn)
    return type(fn).__name__


_PY_TYPES = (list, dict, tuple, str, bytes, int, float, bool, set, frozenset, range, slice)
"""Methods of these (``shape.index(3)``, ``names.append(x)``) are Python's, never resolved."""


class CallMixin:
    """``visit_Call`` and the ways to call things."""

    def visit_Call(self, node):
        func = self.eval(node.func)
        args, kwargs = self.call_args(node)
        return self.call(func, args, kwargs, node)

    def call_args(self, node) -> tuple[list, dict]:
        args: list = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value)
                if isinstance(v, Poison):
                    args.append(POISON)
                else:
                    args.extend(self.iterate(v, a, "'*' in a call"))
            else:
                args.append(self.eval(a))
        kwargs: dict = {}
        for kw in node.keywords:
            if kw.arg is not None:
                kwargs[kw.arg] = self.eval(kw.value)
                continue
            d = self.realize(self.eval(kw.value), kw.value)
            if isinstance(d, Poison):
                args.append(POISON)
                continue
            if type(d) is not dict:
                self.fail(kw.value, f"'**' in a call needs a dict, got {describe(d)}", Kind.TYPE)
            for k, v in d.items():
                if k in kwargs:
                    self.fail(kw.value, f"keyword argument {k!r} is given twice", Kind.TYPE)
                kwargs[k] = v
        return args, kwargs

    def call(self, func, args: list, kwargs: dict, node):
        if isinstance(func, Poison):
            return POISON
        handler = builtin_handler(func)
        if has_poison(args) or has_poison(list(kwargs.values())):
            if getattr(handler, "rejects", False):  # print(): unsupported whatever it prints
                handler(self, args, kwargs, node)
            return POISON
        if handler is not None:
            return handler(self, args, kwargs, node)
        if isinstance(func, Undefined):
            self.realize(func, node)
        if isinstance(func, Closure):
            return self.call_closure(func, args, kwargs, node)
        if is_object(func):   # a run-time Python object (JIT Fallback): called when run
            return self.fallback(_call, [func, *args], kwargs, node, "a call")
        if isinstance(func, BoundMethod):
            if isinstance(func.record, R.TensorHook):   # x.register_hook(fn)
                return self.hook_tensor(func.record, func.self_value, args, kwargs, node)
            return self.call_record(func.record, [func.self_value, *args], kwargs, node,
                                    func.name)
        owner = getattr(func, "__self__", None)
        if isinstance(func, (types.BuiltinMethodType, types.MethodWrapperType)) and \
                type(owner) in _PY_TYPES:
            if type(owner) in (list, dict):  # list.append etc. store frontend values as they are
                return self._container_method(func, args, kwargs, node)
            return self.call_static(func, args, kwargs, node, _name_of(func))
        if self.is_tensor_object(func):
            self.fail(node, "a tensor is not callable", Kind.TYPE)
        if is_container(func):
            self.fail(node, f"{describe(func)} is not callable", Kind.TYPE)
        return self.call_record(self.classify(func), args, kwargs, node, _name_of(func))

    def call_record(self, rec, args: list, kwargs: dict, node, name: str):
        if isinstance(rec, R.Inline):
            return self.inline(rec.function, rec.self_obj, rec.scope, args, kwargs, node,
                               rec.library)
        if isinstance(rec, R.CellCall):
            return self.call_cell(rec, args, kwargs, node)
        if isinstance(rec, R.PrimitiveCall):
            return self.call_primitive(rec, args, kwargs, node)
        if isinstance(rec, R.Traced):
            return self.call_traced(rec.function, args, kwargs, node, name)
        if isinstance(rec, R.StaticCall):
            return self.call_static(rec.function, args, kwargs, node, name)
        if isinstance(rec, R.GradCall):
            return self.call_grad(rec, args, kwargs, node)
        if isinstance(rec, R.GradTransform):
            return self.call_transform(rec, args, kwargs, node)
        if isinstance(rec, R.Loop):
            return self.call_loop(rec, args, kwargs, node)
        if isinstance(rec, R.Host):
            return self.fallback(rec.function, args, kwargs, node, f"{name}()")
        if isinstance(rec, R.PyPrimitive):
            return self.call_py_primitive(rec, args, kwargs, node, name)
        if isinstance(rec, R.Static) and callable(rec.value):
            return self.call_static(rec.value, args, kwargs, node, name)
        if isinstance(rec, R.Unsupported):
            self.fail(node, rec.reason, Kind.UNSUPPORTED)
        what = "a tensor" if isinstance(rec, (R.Param, R.Constant)) else repr(name)
        self.fail(node, f"{what} is not callable", Kind.TYPE)

    # -- inlining --
    def inline(self, fn, self_obj, scope: str, args: list, kwargs: dict, node,
               library: bool = False):
        """Parse ``fn`` and compile its body here, as if its code were written at ``node``."""
        if hasattr(fn, "__func__"):  # a bound method
            self_obj = fn.__self__ if self_obj is None else self_obj
            fn = fn.__func__
        try:
            parsed = parse_function(fn)
        except SourceUnavailable as e:
            self.fail(node, f"cannot compile the call to {_name_of(fn)}: {e}", Kind.UNSUPPORTED)
        if not isinstance(parsed.node, (ast.FunctionDef, ast.Lambda)):
            self.fail(node, f"{_name_of(fn)} is an async function, which graph mode does not "
                            "support", Kind.UNSUPPORTED)
        full = [self_obj, *args] if self_obj is not None else list(args)
        frame = self._frame_for(fn, parsed, self_obj, self.frame.scope + (scope or parsed.name,),
                                self.loc(node), (LIB,) if library else ())
        self._bind_arguments(frame, fn, full, kwargs, node)
        return self.run_frame(frame, parsed.node)

    def _bind_arguments(self, frame: Frame, fn, args: list, kwargs: dict, node) -> None:
        try:
            bound = _signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            self.fail(node, f"{frame.parsed.name}(): {e}", Kind.TYPE, e)
        except ValueError as e:  # no signature (a builtin)
            self.fail(node, f"cannot bind the arguments of {frame.parsed.name}: {e}", Kind.ERROR)
        bound.apply_defaults()
        frame.vars.update(bound.arguments)

    def call_closure(self, c: Closure, args: list, kwargs: dict, node):
        try:
            bound = c.signature.bind(*args, **kwargs)
        except TypeError as e:
            self.fail(node, f"{c.name}(): {e}", Kind.TYPE, e)
        bound.apply_defaults()
        d = c.frame
        frame = Frame(d.parsed, d.globals, d.closure, self.frame.scope + (c.name,),
                      self.loc(node), d.marks)
        frame.outer, frame.self_obj, frame.function = d, d.self_obj, d.function
        if c.comprehension:   # made in a comprehension: its variables, now, come first
            scope = Frame(d.parsed, d.globals, d.closure, d.scope, d.caller, d.marks,
                          vars={n: v[n] for n, v in c.comprehension.items() if n in v})
            scope.outer, frame.outer = d, scope
        frame.vars.update(bound.arguments)
        return self.run_frame(frame, c.node)

    def call_cell(self, rec: R.CellCall, args: list, kwargs: dict, node):
        """A sub-cell: forward-pre hooks, ``construct``, forward hooks (DESIGN §9, §10.4) — in
        the cell's precision when it has one (``mixed_precision``)."""
        dtype = rec.mixed_precision
        if dtype is None:
            return self._call_cell(rec, args, kwargs, node)
        args = [self.cast_floats(a, dtype, node) for a in args]
        kwargs = {k: self.cast_floats(v, dtype, node) for k, v in kwargs.items()}
        key = id(rec.cell)
        outer = self.cell_precision.get(key)
        self.cell_precision[key] = dtype
        try:
            return self._call_cell(rec, args, kwargs, node)
        finally:
            if outer is None:
                del self.cell_precision[key]
            else:
                self.cell_precision[key] = outer

    def cast_floats(self, v, dtype, node):
        """``v`` with its floating-point tensors (inside tuples and lists too) cast to
        ``dtype``."""
        if type(v) in (tuple, list):
            return type(v)(self.cast_floats(x, dtype, node) for x in v)
        v = self.realize(v, node)
        t = v.type if isinstance(v, Value) else None
        if isinstance(t, TensorType) and t.dtype.is_float and t.dtype != dtype:
            return self.emit(lookup("cast"), [v], {"dtype": dtype}, node)
        return v

    def param_in_precision(self, value, dtype, node):
        """A Parameter read from a cell running in precision ``dtype``: cast when trainable and
        floating-point of another dtype, else the Parameter as it is."""
        rec = self.classify(value)
        if not (rec.requires_grad and rec.type.dtype.is_float and rec.type.dtype != dtype):
            return value
        return self.emit(lookup("cast"), [self.param_value(rec, node)], {"dtype": dtype}, node)

    def _call_cell(self, rec: R.CellCall, args: list, kwargs: dict, node):
        inputs = tuple(args)
        for hook in rec.forward_pre_hooks:
            inputs = self.forward_hook(hook, rec.cell, inputs, None, node, pre=True)
        c = rec.construct
        self_obj = c.self_obj if c.self_obj is not None or hasattr(c.function, "__func__") \
            else rec.cell
        if rec.bprop is not None and self.grad_depth > 0:  # differentiated: bprop.py
            out = self.call_with_bprop(rec, self_obj, list(inputs), kwargs, node)
        else:
            out = self.inline(c.function, self_obj, c.scope, list(inputs), kwargs, node,
                              c.library)
        for hook in rec.forward_hooks:
            out = self.forward_hook(hook, rec.cell, inputs, out, node, pre=False)
        return out

    # -- ops and library functions --
    def call_primitive(self, rec: R.PrimitiveCall, args: list, kwargs: dict, node):
        op = rec.opdef
        args = [self.realize_deep(a, node) for a in args]
        kwargs = {k: self.realize_deep(v, node) for k, v in kwargs.items()}
        if any(is_object(x) for x in leaves([args, kwargs])):   # JIT Fallback values: eagerly
            return self.fallback(functools.partial(F.bind, op), args, {**kwargs, **rec.attrs},
                                 node, op.display_name)
        if op.variadic and args and type(args[0]) in (tuple, list):
            args = [*args[0], *args[1:]]  # MindSpore passes variadic operands as one tuple
        with self.op_errors(node):
            operands, attrs = split_args(op, tuple(args), kwargs)
        clash = set(attrs) & set(rec.attrs)
        if clash:
            self.fail(node, f"{op.display_name}: {', '.join(sorted(clash))} was set when the "
                            "Primitive was created and cannot be passed again", Kind.TYPE)
        attrs.update(rec.attrs)
        for k, v in attrs.items():
            self.require_static(v, node, f"attribute {k!r} of {op.display_name}")
        with self.op_errors(node):
            op._check_arity(len(operands))
        return self.emit(op, operands, attrs, node)

    def call_traced(self, fn, args: list, kwargs: dict, node, name: str):
        args = [self.realize_deep(a, node) for a in args]
        kwargs = {k: self.realize_deep(v, node) for k, v in kwargs.items()}
        if any(is_object(x) for x in leaves([args, kwargs])):   # JIT Fallback values: as Python
            return self.fallback(getattr(fn, "__wrapped__", fn), args, kwargs, node, f"{name}()")
        self.b.loc = self.loc(node)
        with self.op_errors(node, name), F.using_emitter(self.emitter):
            return fn(*args, **kwargs)

    def call_static(self, fn, args: list, kwargs: dict, node, name: str):
        """Call ``fn`` while compiling; every argument must be static."""
        args = [self.realize_deep(a, node) for a in args]
        kwargs = {k: self.realize_deep(v, node) for k, v in kwargs.items()}
        if any(isinstance(x, Value) for x in leaves([args, kwargs])):
            # values known only when the graph runs: the call runs then, as Python (JIT Fallback)
            return self.fallback(fn, args, kwargs, node, f"{name}()")
        for x in leaves([args, kwargs]):
            if isinstance(x, (Closure, BoundMethod)):
                self.fail(node, f"{describe(x)} cannot be passed to {name}(), which runs while "
                                "compiling", Kind.UNSUPPORTED)
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            self.fail(node, f"{name}() raised {type(e).__name__} while compiling: {e}",
                      kind_of(e), e)

    def _container_method(self, method, args: list, kwargs: dict, node):
        self.note_container_call(method)
        try:
            return method(*args, **kwargs)
        except Exception as e:
            self.fail(node, f"{_name_of(method)}(): {type(e).__name__}: {e}", kind_of(e), e)

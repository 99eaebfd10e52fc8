"""The frontend: the Python source of ``construct`` (and all it calls) -> verified, typed SSA IR.

:func:`compile_function` parses ``fn`` with ``ast``, inlines everything it calls that has Python
source (helper functions, methods, sub-cells with their forward hooks), evaluates at compile time
what is static (attributes of ``self``, numbers, shapes, ``self.training``) and emits IR for the
rest, asking a resolver (``resolve.py``) what each Python object means. The result is a verified
``Function`` in a ``Module``, specialised to the argument types given.

Example, with the small resolver for plain functions (``simple.PythonResolver``)::

    >>> from graphcell_ir.frontend import compile_function, PythonResolver
    >>> from graphcell_ir.ir import TensorType, float32
    >>> from graphcell_ir.ops import functional as F
    >>> from graphcell_ir.text import print_module
    >>> def f(x, n):
    ...     for _ in range(n):              # n is static: unrolled
    ...         x = F.relu(x) * 2.0
    ...     if x.sum() > 1.0:               # a tensor condition: an IR if
    ...         x = -x
    ...     return x, n
    >>> out = compile_function(f, None, (TensorType(float32, (3,)), 2), PythonResolver())
    >>> print(print_module(out.module, locs="none"), end="")
    func @f(%x: f32[3]) -> f32[3] {
      %0 = relu(%x) : f32[3]
      %x_1 = mul(%0, 2.0:f32) : f32[3]
      %1 = relu(%x_1) : f32[3]
      %x_2 = mul(%1, 2.0:f32) : f32[3]
      %2 = reduce_sum(%x_2) {axis=none, keep_dims=false} : f32[]
      %3 = greater(%2, 1.0:f32) : bool[]
      %x_3 = if(%3) : f32[3] {
        %x_4 = neg(%x_2) : f32[3]
        yield %x_4
      } else {
        yield %x_2
      }
      return %x_3
    }
    >>> out.output                          # the returned (x, n): a result and a static
    OutSeq(items=(OutResult(index=0), OutStatic(value=2)), kind=<class 'tuple'>)

How the code is organised (``AstToIR`` is one class assembled from mixins, one per concern):

- ``to_ir.py`` (here): the driver, the environments, classification of Python objects, params,
  constants, op emission and the statement loop;
- ``exprs.py``: expressions (operators, attributes, indexing, comprehensions);
- ``stmts.py``: statements (assignment, unrolled ``for``, static ``while``, ``raise``, the
  unsupported ones);
- ``control.py``: tensor-dependent ``if``/``while`` and early ``return`` (IR regions);
- ``loops.py``: functional loops (``ops.WhileLoop``, ``ops.ForiLoop``, ``ops.Scan``): one IR
  ``while`` built with ``control.py``'s machinery;
- ``calls.py`` and ``pybuiltins.py``: calls — inlining, sub-cells, Primitives, traced library
  functions, compile-time calls, Python builtins;
- ``grads.py``: gradients inside compiled code (``GradCall``: the differentiated call becomes a
  Function of its own, IR autodiff gives its gradient Function, the call site calls that);
- ``bprop.py``: a cell's custom ``bprop`` where the cell is differentiated;
- ``attrs.py``: attribute writes (``self.count += 1``), set after the run;
- ``host.py``: Python run as Python when the graph runs (``py_call``): hooks that do not compile
  as PyNative runs them, JIT Fallback on run-time values;
- ``limits.py``: the limits of inlining and unrolling.

Design decisions, in short (details in each module):

- **Static vs IR**: a variable holds an IR ``Value``, a static Python object, or a tuple/list/dict
  of those (``scope.py``). Python objects are classified by the resolver lazily, where they are
  used; Parameters become ``param`` arguments at their first use.
- **if**: a static condition picks a branch while compiling; a tensor condition builds an IR
  ``if`` that yields every variable (and Parameter) the branches bind differently; both must give
  the same type, else an error naming the variable.
- **return anywhere**: an early ``return`` under a tensor condition is compiled by moving the
  rest of the function into both branches (each then ends in a return) and making the ``if``
  yield the returned value: no flags, no dummy values. Not supported inside loop bodies.
- **while**: a static condition unrolls (with a cap); a tensor condition builds an IR ``while``
  whose carried values are the variables the body rebinds; the body is compiled once more per
  newly found carried value (a Parameter written by the body, a Python number that must become a
  run-time scalar) until the set is stable.
- **errors**: every problem becomes a diagnostic at the user's line; compiling goes on after a
  failed statement (its names are poisoned so that nothing is reported twice) and one error lists
  them all at the end.
"""
from __future__ import annotations

import ast
import warnings
from contextlib import contextmanager
from typing import Any, Sequence

import numpy as np

from graphcell_ir.errors import GraphCompileError, IRVerifyError, OpError
from graphcell_ir.frontend import resolve as R
from graphcell_ir.frontend.attrs import AttrMixin
from graphcell_ir.frontend.calls import CallMixin
from graphcell_ir.frontend.control import ControlMixin
from graphcell_ir.frontend.errors import (CompileAbort, Diagnostic, FrontendError, Kind,
                                          PoisonAbort, RaisedAbort, kind_of, raise_diagnostics)
from graphcell_ir.frontend.exprs import ExprMixin
from graphcell_ir.frontend.bprop import BpropMixin
from graphcell_ir.frontend.grads import GradMixin, prune
from graphcell_ir.frontend.host import HostMixin
from graphcell_ir.frontend.limits import Limits, python_stack_for
from graphcell_ir.frontend.loops import LoopMixin
from graphcell_ir.frontend.output import (CompiledFrontend, OutDict, OutResult, OutSeq,
                                          OutStatic)
from graphcell_ir.frontend.scope import (BASE, MISSING, POISON, BoundMethod, Closure, Frame,
                                         Level, Poison, Undefined, is_container, map_leaves)
from graphcell_ir.frontend.source import (ENTRY_TARGET, SourceUnavailable, assigned_names,
                                          entry_function, parse_function, qualname)
from graphcell_ir.frontend.stmts import StmtMixin
from graphcell_ir.ir.builder import Builder
from graphcell_ir.ir.core import Function, Module, OpResult, Value
from graphcell_ir.ir.loc import UNKNOWN, Loc
from graphcell_ir.ir.types import DType, Type
from graphcell_ir.ir.verify import verify
from graphcell_ir.ops.registry import Kind as OpKind

_PLAIN = (int, float, bool, str, bytes, complex, type(None), slice, type(Ellipsis), range, DType)
"""Types that are static by nature: never shown to the resolver."""


def compile_function(fn, self_obj, arg_specs: Sequence, resolver, *,
                     name: str | None = None, kwarg_specs: dict | None = None,
                     limits: Limits | None = None) -> CompiledFrontend:
    """Compile ``fn`` (called as ``fn(self_obj, *args, **kwargs)``, or ``fn(*args, **kwargs)``
    when ``self_obj`` is None) to IR, specialised to ``arg_specs`` (and ``kwarg_specs``).

    Each entry of ``arg_specs`` describes one positional argument: a ``Type`` (``TensorType``,
    or ``ScalarType`` for a run-time Python number) becomes a function argument (so does a
    ``resolve.HookedArgument``, a tensor with hooks); a tuple, list or dict is a structure whose
    leaves are described the same way; anything else is a static Python value the function is
    specialised to (a number, a cell...). ``kwarg_specs`` describes keyword arguments the same
    way (their IR arguments follow the positional ones, in the dict's order). ``resolver``
    classifies the Python objects the code meets (``resolve.py``). ``name`` names the IR
    function (default ``Class.method`` or the function's qualified name). ``limits`` bound the
    nesting of calls and the unrolling of loops (``limits.py``; default ``Limits()``).

    Raises a ``GraphCompileError`` (``GraphSyntaxError``, ``GraphTypeError``,
    ``GraphValueError``) listing every problem found, each at the user's file, line and column.
    See ``output.py`` for the layout of the result.
    """
    if name is None:
        name = (f"{type(self_obj).__name__}.{fn.__name__}" if self_obj is not None
                else qualname(fn))
    compiler = AstToIR(resolver, name, limits or Limits())
    with python_stack_for(compiler.limits):
        return compiler.compile(fn, self_obj, tuple(arg_specs), dict(kwarg_specs or {}))


def compile_call(target, arg_specs: Sequence, resolver, *, name: str,
                 arg_names: Sequence[str] = (), kwarg_specs: dict | None = None,
                 limits: Limits | None = None) -> CompiledFrontend:
    """Compile the call ``target(*args, **kwargs)`` of an object that has no Python source of
    its own — a gradient function (``ms.grad(f)``), a cell called with its hooks — exactly as
    the frontend compiles such a call in ``construct``: the resolver classifies ``target`` and
    the call is compiled by what it is. ``arg_specs``/``kwarg_specs`` are as for
    :func:`compile_function`; ``arg_names`` name the IR arguments (``x``, ``label``...).

    Example::

        >>> from graphcell_ir.frontend import PythonResolver
        >>> from graphcell_ir.ir import TensorType, float32
        >>> from graphcell_ir.text import print_module
        >>> def double(x):
        ...     return x * 2.0
        >>> out = compile_call(double, [TensorType(float32, (2,))], PythonResolver(),
        ...                    name="entry", arg_names=["x"])
        >>> print(print_module(out.module, locs="none"), end="")
        func @entry(%x: f32[2]) -> f32[2] {
          %0 = mul(%x, 2.0:f32) : f32[2]
          return %0
        }
    """
    compiler = AstToIR(resolver, name, limits or Limits())
    with python_stack_for(compiler.limits):
        return compiler.compile_entry(target, tuple(arg_specs), dict(kwarg_specs or {}),
                                      tuple(arg_names))


class _Emitter:
    """The functional API's emitter while a traced library function runs: ops go to the IR."""

    __slots__ = ("c",)

    def __init__(self, compiler: "AstToIR"):
        self.c = compiler

    def emit(self, op, args, attrs):
        return self.c.emit_op(op, args, attrs)

    def value(self, v):
        """A constant a traced function returns (``ops.eye(3)``) as a ``const`` op, so graph mode
        hands back a Tensor as PyNative does (``traced._result`` asks its emitter for this)."""
        return self.c.b.value(v)


class _ParamSlot:
    """A Parameter seen by this compilation: its record, its function argument, and whether its
    tensor hooks were applied (``host.hooked_param``)."""

    __slots__ = ("record", "arg", "hooked")

    def __init__(self, record: R.Param, arg: Value):
        self.record, self.arg, self.hooked = record, arg, False


class AstToIR(ExprMixin, StmtMixin, ControlMixin, LoopMixin, CallMixin, GradMixin, BpropMixin,
              AttrMixin, HostMixin):
    """Compiles one function; use :func:`compile_function`."""

    def __init__(self, resolver, name: str, limits: Limits | None = None):
        self.resolver = resolver
        self.limits = limits or Limits()
        self.name = name
        self.module = Module()
        self.fn = self.module.add(Function(name))
        self.b = Builder.at_end(self.fn.body)
        self.emitter = _Emitter(self)
        self.frame: Frame | None = None
        self.depth = 0
        self.diags: list[Diagnostic] = []
        self.warnings: list[str] = []
        self.ctl: list[tuple] = []             # ("loop"|"irloop"|"cond"|"frame", loc): see control
        self.slots: dict[int, _ParamSlot] = {}  # id(Parameter) -> slot, in order of first use
        self.bindings: dict = {}   # id(Parameter) -> current value when rebound; attrs.attr_key
        self.written: dict = {}    # attrs.attr_key -> attrs.Written: attributes the code wrote
        self.outside: dict = {}    # id -> the copies of Python lists/dicts read from outside
        self.trials: list = []     # host.trial: the outside effects of each trial in progress
        self.frames: list[Frame] = []   # the functions being compiled, outermost first
        self.arg_hooks: dict = {}  # argument -> its tensor hooks (R.HookedArgument)
        self.param_of: dict[Value, _ParamSlot] = {}
        self.mutated: dict[int, _ParamSlot] = {}
        self._classified: dict[int, tuple[Any, Any]] = {}
        self._consts: dict[int, tuple[Any, Value]] = {}
        self._last_const = None
        self._tensor_methods: dict[str, Any] = {}
        self._visitors: dict[type, Any] = {}
        self.grad_depth = 0                    # > 0 inside a differentiated call (grads.py)
        self.param_arg_factory = None          # how a Parameter gets its argument (bprop.py)
        self.cell_precision: dict[int, Any] = {}  # id(cell) -> DType while a to_float cell runs

    # -- driver --
    def compile(self, fn, self_obj, arg_specs: tuple, kwarg_specs: dict) -> CompiledFrontend:
        if hasattr(fn, "__func__") and self_obj is None:  # a bound method
            fn, self_obj = fn.__func__, fn.__self__
        try:
            parsed = parse_function(fn)
        except SourceUnavailable as e:
            raise GraphCompileError(f"graph mode needs the Python source of {self.name}: {e}") \
                from None
        paths: list[tuple[int, ...]] = []
        args = [self._argument(spec, (i,), hint, paths)
                for i, (spec, hint) in enumerate(zip(arg_specs, self._arg_names(parsed, self_obj,
                                                                                 len(arg_specs))))]
        kwargs = {k: self._argument(spec, (k,), k, paths) for k, spec in kwarg_specs.items()}
        if self_obj is not None:
            args.insert(0, self_obj)
        frame = self._frame_for(fn, parsed, self_obj, (self.name,), None, ())
        return self._run_entry(frame, lambda: self._bind_arguments(frame, fn, args, kwargs, None),
                               paths)

    def compile_entry(self, target, arg_specs: tuple, kwarg_specs: dict,
                      arg_names: tuple) -> CompiledFrontend:
        """See :func:`compile_call`."""
        names = [n if n.isidentifier() and n not in kwarg_specs else f"arg{i}"
                 for i, n in enumerate(list(arg_names)[:len(arg_specs)])]
        names += [f"arg{i}" for i in range(len(names), len(arg_specs))]
        paths: list[tuple[int, ...]] = []
        args = [self._argument(spec, (i,), n, paths)
                for i, (spec, n) in enumerate(zip(arg_specs, names))]
        kwargs = {k: self._argument(spec, (k,), k, paths) for k, spec in kwarg_specs.items()}
        parsed = entry_function(self.name, names, list(kwargs))
        frame = Frame(parsed, {ENTRY_TARGET: target}, {}, (self.name,), None, ())

        def bind():
            frame.vars.update(zip(names, args))
            frame.vars.update(kwargs)
        return self._run_entry(frame, bind, paths)

    def _run_entry(self, frame: Frame, bind, paths: list) -> CompiledFrontend:
        """Compile the body of ``frame`` (its arguments bound by ``bind()``) as the Function."""
        try:
            bind()
            out = self.run_frame(frame, frame.parsed.node)
        except (FrontendError, CompileAbort) as e:  # not in a statement, or a limit reached
            self.diags.append(e.diagnostic)
            out = None
        except PoisonAbort:
            out = None
        output, leaves = self._output(out)
        attr_writes = self.attr_outputs(leaves) if not self.diags else ()
        if not self.diags:
            self._finish(leaves)
        raise_diagnostics(self.diags, self.name)
        for text in self.warnings:
            warnings.warn(text, stacklevel=3)
        prune(self.module, self.fn)   # Functions left by gradients (grads.py) nothing calls
        try:
            verify(self.module)
        except IRVerifyError as e:
            raise GraphCompileError(f"internal error: the frontend built invalid IR for "
                                    f"{self.name}; please report it:\n{e}") from e
        return CompiledFrontend(self.module, self.fn, tuple(paths),
                                tuple(s.record for s in self.slots.values()),
                                tuple(s.record for s in self.mutated.values()), output,
                                tuple(self.warnings), attr_writes)

    def _arg_names(self, parsed, self_obj, n: int) -> list[str]:
        a = parsed.node.args
        names = [x.arg for x in a.posonlyargs + a.args][1 if self_obj is not None else 0:]
        star = a.vararg.arg if a.vararg is not None else "arg"
        return names[:n] + [f"{star}_{i}" for i in range(max(0, n - len(names)))]

    def _argument(self, spec, path: tuple[int, ...], hint: str, paths: list):
        if isinstance(spec, Type):
            paths.append(path)
            return self.fn.add_arg(spec, hint)
        if isinstance(spec, R.HookedArgument):   # Tensor.register_hook on an input
            paths.append(path)
            arg = self.fn.add_arg(spec.type, hint)
            self.arg_hooks[arg] = spec.hook
            return arg
        if type(spec) in (tuple, list):
            return type(spec)(self._argument(s, path + (i,), f"{hint}_{i}", paths)
                              for i, s in enumerate(spec))
        if type(spec) is dict:
            return {k: self._argument(s, path + (k,), f"{hint}_{k}" if isinstance(k, str)
                                      else f"{hint}_{i}", paths)
                    for i, (k, s) in enumerate(spec.items())}
        return spec

    def _output(self, out):
        """The returned value as an output spec and the list of its IR leaves."""
        leaves: list[Value] = []
        try:
            return self.output_spec(out, leaves), leaves
        except FrontendError as e:
            self.diags.append(e.diagnostic)
            return OutStatic(None), []

    def output_spec(self, value, leaves: list):
        """The output spec of ``value``, its IR leaves appended to ``leaves`` (``OutResult``
        indices count from the start of ``leaves``)."""
        def spec(v):
            v = self.realize(v, None)
            if isinstance(v, Value):
                leaves.append(v)
                return OutResult(len(leaves) - 1)
            if type(v) in (tuple, list):
                return OutSeq(tuple(spec(e) for e in v), type(v))
            if type(v) is dict:
                return OutDict(tuple(v), tuple(spec(e) for e in v.values()))
            if isinstance(v, (Poison, Undefined)):
                return OutStatic(None)
            return OutStatic(v)
        return spec(value)

    def _finish(self, leaves: list[Value]) -> None:
        results = list(leaves) + [self.current(slot) for slot in self.mutated.values()]
        with self.b.at_loc(UNKNOWN):
            self.b.return_(*results)

    # -- frames and statements --
    def _frame_for(self, fn, parsed, self_obj, scope, caller, marks, outer=None) -> Frame:
        closure = {}
        if getattr(fn, "__closure__", None):
            for n, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    closure[n] = cell.cell_contents
                except ValueError:  # an empty cell: the name is not bound yet
                    pass
        frame = Frame(parsed, getattr(fn, "__globals__", {}), closure, scope, caller, marks)
        frame.self_obj, frame.function, frame.outer = self_obj, fn, outer
        return frame

    def run_frame(self, frame: Frame, node):
        """Compile the body of ``node`` (FunctionDef or Lambda) in ``frame``; its return value."""
        if self.depth >= self.limits.call_depth:
            raise CompileAbort(self.diag_at(frame.caller, self.limits.message(
                "call_depth", f"calls nest {self.depth + 1} levels deep (is {frame.parsed.name} "
                "recursive? graph mode inlines every call while compiling)"), Kind.LIMIT))
        saved = self.frame
        self.frame = frame
        self.frames.append(frame)
        self.depth += 1
        self.ctl.append(("frame", None))
        try:
            if isinstance(node, ast.Lambda):
                return self.eval(node.body)
            self.exec_block(node.body, BASE)
            return frame.returned if frame.jump == "return" and frame.returned is not MISSING \
                else None
        finally:
            self.ctl.pop()
            self.depth -= 1
            self.frames.pop()
            self.frame = saved

    def exec_block(self, stmts: list, kind: str, loop=None) -> None:
        frame = self.frame
        level = Level(stmts, 0, kind, loop)
        frame.levels.append(level)
        try:
            while level.pos < len(level.stmts) and frame.jump is None:
                stmt = level.stmts[level.pos]
                level.pos += 1
                self.exec_stmt(stmt)
        finally:
            frame.levels.pop()

    def exec_stmt(self, stmt: ast.stmt) -> None:
        try:
            self.visitor(stmt)(stmt)
        except FrontendError as e:
            self.diags.append(e.diagnostic)
            self.poison(stmt)
            if e.raised:   # Python unwinds from here: what follows would only repeat it
                raise RaisedAbort() from None
        except RaisedAbort:
            self.poison(stmt)
            raise
        except PoisonAbort:
            self.poison(stmt)
        except CompileAbort:
            raise
        except RecursionError:  # Python's stack ran out before the call-depth limit
            raise CompileAbort(self.diag(stmt, self.limits.message(
                "call_depth", f"calls nest {self.depth} levels deep and exhaust Python's stack "
                "here"), Kind.LIMIT)) from None
        except Exception as e:  # a bug of the compiler: report it at the user's line, go on
            self.diags.append(self.diag(stmt, f"internal compiler error ({type(e).__name__}: "
                                        f"{e}); please report it", Kind.ERROR, e))
            self.poison(stmt)

    def poison(self, stmt: ast.stmt) -> None:
        """Bind the names a failed statement would have bound to POISON (reported once)."""
        if isinstance(stmt, ast.Delete):  # reported; the names keep their values
            return
        if isinstance(stmt, ast.Return):  # the function's result depends on the problem
            self.frame.jump, self.frame.returned = "return", POISON
            return
        for name in assigned_names([stmt]):
            self.frame.vars[name] = POISON

    def visitor(self, node):
        t = type(node)
        fn = self._visitors.get(t)
        if fn is None:
            fn = getattr(self, "visit_" + t.__name__, None) or self.visit_unknown
            self._visitors[t] = fn
        return fn

    def eval(self, node: ast.expr):
        return self.visitor(node)(node)

    def visit_unknown(self, node):
        what = type(node).__name__
        self.fail(node, f"{what} is not supported in graph mode", Kind.UNSUPPORTED)

    # -- diagnostics --
    def loc(self, node) -> Loc:
        return self.frame.loc(node)

    def diag(self, node, message: str, kind: Kind = Kind.ERROR, cause=None) -> Diagnostic:
        if node is None:
            return self.diag_at(self.b.loc, message, kind, cause)
        p = self.frame.parsed
        return Diagnostic(message, self.loc(node), kind, p.end_col(node), p.source_line(node),
                          cause)

    def diag_at(self, loc: Loc | None, message: str, kind: Kind = Kind.ERROR,
                cause=None) -> Diagnostic:
        return Diagnostic(message, loc if loc is not None else UNKNOWN, kind, cause=cause)

    def fail(self, node, message: str, kind: Kind = Kind.ERROR, cause=None, raised: bool = False):
        raise FrontendError(self.diag(node, message, kind, cause), raised)

    def warn(self, node, message: str) -> None:
        """A warning at ``node``, given (once) when the compile succeeds (a trial that is
        abandoned takes its warnings back, ``host.py``)."""
        text = self.diag(node, message).format()
        if text not in self.warnings:
            self.warnings.append(text)

    @contextmanager
    def op_errors(self, node, what: str | None = None):
        """Report an op's shape or dtype error (or a library function's error) at ``node``."""
        try:
            yield
        except (FrontendError, CompileAbort, RecursionError):
            raise
        except OpError as e:
            self.fail(node, str(e), kind_of(e), e)
        except Exception as e:   # Python code raised: in Python the function would stop here
            where = f"{what}: " if what else ""
            self.fail(node, f"{where}{type(e).__name__}: {e}", kind_of(e), e, raised=True)

    # -- Python objects --
    def classify(self, obj):
        """The resolver's record for ``obj`` (asked once per object per compilation)."""
        hit = self._classified.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        try:
            rec = self.resolver.classify(obj)
        except Exception as e:
            raise FrontendError(self.diag_at(self.b.loc, f"the resolver failed on "
                                             f"{_short_repr(obj)}: {type(e).__name__}: {e}",
                                             Kind.ERROR, e)) from None
        self._classified[id(obj)] = (obj, rec)
        return rec

    def realize(self, v, node):
        """``v`` as the compiler uses it: a raw Python object the resolver calls a Parameter or
        a Constant becomes its IR value, a ``Static`` its value; other objects stay as they are.
        Containers are not entered (see ``realize_deep``)."""
        if isinstance(v, (Value, Poison, Closure, BoundMethod)) or type(v) in _PLAIN or \
                is_container(v):
            return v
        if isinstance(v, Undefined):
            self.fail(node, v.message, v.kind or Kind.ERROR)
        if isinstance(v, np.ndarray) and v.dtype == object:
            return v
        rec = self.classify(v)
        if isinstance(rec, R.Static):
            return rec.value
        if isinstance(rec, R.Param):
            return self.param_value(rec, node)
        if isinstance(rec, R.Constant):
            return self.constant(v, rec.array, node)
        return v

    def realize_deep(self, v, node):
        return map_leaves(lambda x: self.realize(x, node), v)

    def is_tensor_object(self, v) -> bool:
        """Whether a raw Python object is a tensor to the compiler (a Parameter or Constant)."""
        if isinstance(v, Value):
            return True
        if type(v) in _PLAIN or is_container(v) or \
                isinstance(v, (Poison, Undefined, Closure, BoundMethod)):
            return False
        return isinstance(self.classify(v), (R.Param, R.Constant))

    # -- parameters and constants --
    def param_value(self, rec: R.Param, node) -> Value:
        key = id(rec.key)
        slot = self.slots.get(key)
        if slot is None:
            make = self.param_arg_factory
            arg = make(rec) if make is not None else self.fn.add_arg(rec.type, rec.name,
                                                                       param=True)
            slot = self.add_param_slot(rec, arg)
        if rec.hook is not None and not slot.hooked and node is not None and \
                self.grad_depth > 0 and key not in self.bindings:   # Parameter.register_hook
            slot.hooked = True
            self.set_binding(slot, self.hooked_param(rec, slot.arg, self.loc(node)))
        return self.bindings.get(key, slot.arg)

    def add_param_slot(self, rec: R.Param, arg: Value) -> _ParamSlot:
        """Make ``arg`` the argument of the Parameter of ``rec`` in the function being built."""
        slot = self.slots[id(rec.key)] = _ParamSlot(rec, arg)
        self.param_of[arg] = slot
        return slot

    def current(self, slot: _ParamSlot) -> Value:
        return self.bindings.get(id(slot.record.key), slot.arg)

    def set_binding(self, slot: _ParamSlot, value: Value) -> None:
        self.bindings[id(slot.record.key)] = value
        if isinstance(value, Value):
            self.param_of[value] = slot

    def set_bindings(self, bindings: dict) -> None:
        self.bindings = bindings
        for key, value in bindings.items():
            if isinstance(value, Value) and key in self.slots:
                self.param_of[value] = self.slots[key]

    def constant(self, obj, array, node) -> Value:
        """A captured tensor as a ``const`` op at the top of the function (one per object), so
        it dominates every use, whichever region first needs it."""
        hit = self._consts.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        body = self.fn.body
        before = self._last_const.next_op if self._last_const is not None else body.first
        loc = self.loc(node) if node is not None else self.b.loc
        with self.op_errors(node, "constant"):
            v = Builder(body, before, loc).const(np.asarray(array))
        self._last_const = v.op
        self._consts[id(obj)] = (obj, v)
        return v

    # -- emitting ops --
    def emit(self, opdef, operands, attrs, node):
        """Create ``opdef`` at ``node``'s location; shape errors are reported at ``node``."""
        self.b.loc = self.loc(node)
        with self.op_errors(node):
            return self.emit_op(opdef, tuple(operands), opdef.check_attrs(dict(attrs)))

    def emit_op(self, opdef, args: tuple, attrs: dict):
        """Create an op at the builder's location; an op that ``mutates`` a Parameter rebinds it."""
        if any(isinstance(a, Poison) for a in args):
            return POISON
        slots = []
        for i in opdef.mutates:
            slot = self.param_of.get(args[i]) if i < len(args) and \
                isinstance(args[i], Value) else None
            if slot is None and opdef.kind is not OpKind.SIDE_EFFECT:
                continue  # an in-place op on a value, not a Parameter: its result is the value
            if slot is None:
                raise FrontendError(self.diag_at(
                    self.b.loc, f"{opdef.display_name} writes its operand "
                    f"{opdef.operands[i]!r}, which must be a Parameter (such as self.weight), "
                    f"not a value computed in the graph", Kind.TYPE))
            slots.append(slot)
        op = self.b.create(opdef, args, attrs)
        for k, slot in enumerate(slots):
            new = op.results[k if len(op.results) > 1 else 0]
            self.set_binding(slot, new)
            key = id(slot.record.key)
            self.mutated.setdefault(key, slot)
        r = op.results
        return r[0] if len(r) == 1 else (tuple(r) if r else None)

    def name_value(self, name: str, v) -> None:
        """Give an op result the variable's name for the printer (the first name it gets)."""
        if isinstance(v, OpResult) and v.name_hint is None:
            v.name_hint = name


def _short_repr(obj) -> str:
    text = repr(obj)
    return text if len(text) <= 60 else text[:57] + "..."

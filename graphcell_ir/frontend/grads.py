"""Gradients inside compiled code: a ``GradCall`` becomes a gradient Function and a ``call``.

``ops.GradOperation(get_by_list=True)(self.network, weights)(x, label)`` in ``construct``, or
``ms.value_and_grad(net, None, weights)(x, y)`` in a ``@jit`` function, is compiled in three steps:

1. The gradient *transform* (``GradOperation(...)(net, weights)``, ``ms.grad(net, ...)``: a
   ``GradTransform`` record) runs while compiling, on Python objects: the result is a gradient
   function, which the resolver classifies as a ``GradCall``.
2. The call of the gradient function compiles the differentiated callable — called with the
   call's arguments, exactly as the frontend would call it (a cell with its forward hooks, a
   helper function, a lambda, even another gradient function) — into a **Function of its own** in
   the same module: one argument per tensor argument of the call, then one ``param`` argument per
   weight and per Parameter it reads (:meth:`GradMixin.compile_callee`).
3. ``graphcell_ir.autodiff.grad_function`` adds that Function's gradient Function, and the call
   site gets ``call @<callee>.grad(...)``: its results are the callee's outputs, one gradient per
   differentiated position and weight, then the Parameters the callee wrote (BatchNorm's moving
   statistics), which are rebound here as if the callee had been inlined. ``GradCall.pack``
   arranges what the Python call returns (MindSpore's rules live in graphcell, not here).

IR autodiff inlines the calls of what it differentiates, so a gradient of a gradient works: the
outer callee holds a ``call`` of the inner gradient Function, which the outer transform inlines
and differentiates in turn. The ``inline`` pass later inlines every call; :func:`prune` drops the
Functions nothing calls any more (the callee the gradient Function was copied from).

A tensor of the enclosing function that the differentiated callable reaches (a lambda reading
a list the enclosing code appended a tensor to; lambdas that capture tensor variables are refused
where they are made) becomes an extra argument of its Function, not differentiated.

Example: a resolver that calls ``grad_loss`` a gradient function of ``loss`` (graphcell's calls
``ms.grad(loss)`` one)::

    >>> from graphcell_ir.frontend import compile_function, PythonResolver
    >>> from graphcell_ir.frontend import resolve as R
    >>> from graphcell_ir.ir import TensorType, float32
    >>> from graphcell_ir.text import print_function
    >>> def loss(x):
    ...     return (x * x).sum()
    >>> class GradOfLoss:
    ...     pass
    >>> class Resolver(PythonResolver):
    ...     def classify(self, obj):
    ...         if isinstance(obj, GradOfLoss):   # returns (loss(x), d loss / dx)
    ...             return R.GradCall(loss, pack=lambda value, pos, ws: (value, pos[0]))
    ...         return super().classify(obj)
    >>> grad_loss = GradOfLoss()
    >>> def f(x):
    ...     return grad_loss(x)
    >>> out = compile_function(f, None, [TensorType(float32, (2,))], Resolver())
    >>> print(print_function(out.function, locs="none"), end="")
    func @f(%x: f32[2]) -> f32[], f32[2] {
      %0, %1 = call(%x) {callee="loss.grad"} : (f32[], f32[2])
      return %0, %1
    }
    >>> [fn.name for fn in out.module], out.module["loss.grad"].attrs["wrt"]
    (['f', 'loss.grad'], (0,))
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from graphcell_ir.autodiff import grad_function
from graphcell_ir.backend import report
from graphcell_ir.errors import GraphcellError, IRVerifyError
from graphcell_ir.frontend import resolve as R
from graphcell_ir.frontend.errors import FrontendError, Kind, PoisonAbort, kind_of
from graphcell_ir.frontend.exprs import describe
from graphcell_ir.frontend.output import OutDict, OutResult, OutSeq, Output, rebuild
from graphcell_ir.frontend.scope import MISSING, POISON, Closure, Poison, leaves, map_leaves
from graphcell_ir.ir.builder import Builder
from graphcell_ir.ir.core import BlockArg, Function, Literal, Module, OpResult, Value
from graphcell_ir.ir.loc import UNKNOWN, Loc
from graphcell_ir.ir.structural import CALL
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ir.verify import verify
from graphcell_ir.ir.walk import walk
from graphcell_ir.ops.registry import lookup

__all__ = ["GradMixin", "Callee", "prune", "relocate", "unique_name"]

_STATE = ("fn", "b", "slots", "bindings", "param_of", "mutated", "_consts", "_last_const", "ctl",
          "param_arg_factory")
"""What belongs to the Function being built (the rest of the compiler is shared)."""


@dataclass(eq=False)
class Callee:
    """A Python call compiled into a Function of its own (:meth:`GradMixin.compile_callee`).

    ``sources[i]`` says what the caller passes as argument ``i``: a Value of the caller, or the
    ``Param`` record of a Parameter (its current value at the call). ``inner`` are the call's
    arguments as the callee saw them (IR values replaced by the Function's arguments).
    ``output`` is the structure of the returned value; ``mutated`` the Parameters it writes,
    whose new values are its last results.
    """

    function: Function
    sources: list
    inner: list
    output: Output
    mutated: tuple
    n_outputs: int
    wrt: list = field(default_factory=list)


def unique_name(module: Module, name: str) -> str:
    """``name``, or ``name_1``, ``name_2``... if the module has it."""
    out, k = name, 0
    while out in module:
        k += 1
        out = f"{name}_{k}"
    return out


def callee_name(fn) -> str:
    """How the Function of a differentiated ``fn`` is named: ``Net`` (a cell: its class),
    ``loss_fn``, ``grad_f``; its gradient Function adds ``.grad``."""
    if isinstance(fn, Closure):
        name = fn.name
    elif hasattr(type(fn), "construct"):
        name = type(fn).__name__
    else:
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or \
            type(fn).__name__
    name = name.split("<locals>.")[-1]
    return "".join(ch if ch.isalnum() or ch in "._" else "_" for ch in name) or "fn"


def prune(module: Module, root: Function) -> None:
    """Drop the Functions of ``module`` that ``root`` does not reach through ``call`` ops and
    ``bprop`` attributes."""
    seen, todo = {root.name}, [root]
    while todo:
        fn = todo.pop()
        names = [op.attrs["callee"] for op in walk(fn) if op.opdef is CALL]
        if isinstance(fn.attrs.get("bprop"), str):
            names.append(fn.attrs["bprop"])
        for name in names:
            callee = module.get(name)
            if callee is not None and name not in seen:
                seen.add(name)
                todo.append(callee)
    for name in [n for n in module.functions if n not in seen]:
        module.remove(name)


def relocate(fn: Function, site: Loc) -> None:
    """Make the locations of ``fn``, compiled for a call at ``site``, relative to its own body:
    the frames lose ``site`` as their outermost caller (and its scope), which inlining the call
    (``Loc.inlined_at``) puts back."""
    for op in walk(fn):
        op.loc = _relative(op.loc, site)


def _relative(loc: Loc, site: Loc) -> Loc:
    if loc == site:     # an op of the call itself: inlining the call gives it the site back
        return UNKNOWN
    if not isinstance(loc, Loc) or loc.caller is None:
        return loc
    if loc.caller == site:
        caller = None
    else:
        caller = _relative(loc.caller, site)
        if caller is loc.caller:
            return loc
    n = len(site.scope)
    scope = loc.scope[n:] if loc.scope[:n] == site.scope else loc.scope
    return replace(loc, scope=scope, caller=caller)


def _owner(v: Value):
    if isinstance(v, OpResult):
        return v.op.function
    if isinstance(v, BlockArg):
        return v.block.function
    return None


class GradMixin:
    """``GradCall`` and ``GradTransform`` records, and compiling a call into its own Function."""

    grad_depth = 0              # > 0 while compiling something that will be differentiated
    param_arg_factory = None    # makes the argument of a Parameter met first (see bprop.py)

    # -- a Function of its own --
    @contextmanager
    def sub_function(self, name: str):
        """Build a new Function of the module (yielded) with its own parameters and constants;
        everything else (diagnostics, frames, resolver records) is shared."""
        saved = {k: getattr(self, k) for k in _STATE}
        fn = self.module.add(Function(unique_name(self.module, name)))
        self.fn, self.b = fn, Builder.at_end(fn.body, self.b.loc)
        attrs = {k: v for k, v in self.bindings.items() if isinstance(k, tuple)}
        self.slots, self.bindings, self.param_of, self.mutated = {}, attrs, {}, {}
        self._consts, self._last_const, self.ctl = {}, None, []
        self.param_arg_factory = None
        try:
            yield fn
        finally:
            inner = self.bindings
            for k, v in saved.items():
                setattr(self, k, v)
        self._attributes_from(inner, attrs)

    def _attributes_from(self, inner: dict, before: dict) -> None:
        """Attributes a Function of its own wrote: values known while compiling carry over to
        the caller; a value computed in it cannot leave it (not a result of it)."""
        for key, v in inner.items():
            if not isinstance(key, tuple) or v is before.get(key, MISSING):
                continue
            if any(isinstance(x, Value) for x in leaves(v)):
                w = self.written[key]
                raise FrontendError(self.diag_at(self.b.loc, (
                    f"{type(w.obj).__name__}.{w.name} is assigned a tensor inside a function "
                    "that is differentiated; graph mode sets only attributes known while "
                    "compiling there"), Kind.UNSUPPORTED))
            self.bindings[key] = v

    def compile_callee(self, name: str, args: list, run: Callable[[list], Any], node,
                       weights: tuple = ()) -> Callee | None:
        """Compile ``run(inner)`` into a new Function, where ``inner`` is ``args`` with every IR
        value replaced by an argument of the Function; ``weights`` (``Param`` records) get their
        ``param`` arguments first, in order. None when it failed (the diagnostics are recorded)."""
        n_diags = len(self.diags)
        with self.sub_function(name) as fn:
            source_of: dict = {}

            def argument(v):
                if not isinstance(v, Value):
                    return v
                a = fn.add_arg(v.type, v.name_hint)
                source_of[a] = v
                hook = self.arg_hooks.get(v)
                return a if hook is None else self.hooked_argument(hook, a, node)
            inner = [map_leaves(argument, a) for a in args]
            for w in weights:   # their arguments first, in order (a read comes later)
                self.param_value(w, None)
            try:
                out = run(inner)
            except FrontendError as e:
                self.diags.append(e.diagnostic)
                out = None
            except PoisonAbort:
                out = None
            if len(self.diags) > n_diags:
                return None
            output, results = self._output(out)
            if len(self.diags) > n_diags:
                return None
            self._finish(results)
            for slot in self.slots.values():
                source_of[slot.arg] = slot.record
            mutated = tuple(s.record for s in self.mutated.values())
        _capture(fn, source_of)
        relocate(fn, self.loc(node))
        try:
            verify(fn)
        except IRVerifyError as e:
            self.fail(node, f"internal error: the frontend built invalid IR for {name}; please "
                            f"report it:\n{e}")
        return Callee(fn, [source_of[a] for a in fn.args], inner, output, mutated, len(results))

    def call_operands(self, callee: Callee, node) -> list:
        """The caller's values for ``callee``'s arguments (a Parameter: its current value)."""
        return [self.param_value(s, node) if isinstance(s, R.Param) else s for s in callee.sources]

    def emit_call(self, fn: Function, operands: list, node) -> tuple:
        self.b.loc = self.loc(node)
        with self.op_errors(node):
            return self.b.call(fn, *operands)

    def write_back(self, callee: Callee, values) -> None:
        """The callee wrote these Parameters: their new values are ``values`` from now on."""
        for rec, v in zip(callee.mutated, values):
            self.param_value(rec, None)
            slot = self.slots[id(rec.key)]
            self.set_binding(slot, v)
            self.mutated.setdefault(id(rec.key), slot)

    # -- GradTransform --
    def call_transform(self, rec: R.GradTransform, args: list, kwargs: dict, node):
        """Run a gradient transform (``ms.grad(net, 0, weights)``) on Python objects."""
        args = [self.python_object(a, node) for a in args]
        kwargs = {k: self.python_object(v, node) for k, v in kwargs.items()}
        name = getattr(rec.function, "__name__", None) or type(rec.function).__name__
        try:
            return rec.function(*args, **kwargs)
        except Exception as e:
            self.fail(node, f"{name}: {type(e).__name__}: {e}", kind_of(e), e)

    def python_object(self, v, node):
        """``v`` as a Python object: a Parameter's value is the Parameter itself; other values
        computed in the graph cannot be passed to code that runs while compiling."""
        def leaf(x):
            if not isinstance(x, Value):
                return x
            slot = self.param_of.get(x)
            if slot is not None:
                return slot.record.key
            self.fail(node, f"{describe(x)} cannot be passed to a gradient transform, which runs "
                            "while compiling: pass Parameters, cells and functions",
                      Kind.UNSUPPORTED)
        return map_leaves(leaf, v)

    # -- GradCall --
    def call_grad(self, rec: R.GradCall, args: list, kwargs: dict, node):
        """The call of a gradient function: see the module docstring."""
        name = rec.name or f"grad of {callee_name(rec.fn)}"
        args, sens = list(args), None
        if rec.sens_param:
            if not args:
                self.fail(node, f"{name} (sens_param=True): the last argument must be the sens "
                                "(the output's gradient), got no arguments", Kind.TYPE)
            sens = self.realize_deep(args.pop(), node)
        values = [self.realize_deep(a, node) for a in args]
        kwargs = {k: self.realize_deep(v, node) for k, v in kwargs.items()}
        if any(isinstance(x, Poison) for x in leaves([values, sens, list(kwargs.values())])):
            return POISON
        positions = self._positions(rec, values, name, node)
        weights = tuple(self._weight(w, name, node) for w in rec.weights)
        self.grad_depth += 1
        try:   # (keyword arguments are passed on, not differentiated: captured by the callee)
            callee = self.compile_callee(callee_name(rec.fn), values,
                                         lambda inner: self.call(rec.fn, inner, kwargs, node),
                                         node, weights)
        finally:
            self.grad_depth -= 1
        if callee is None:
            raise PoisonAbort()
        callee.wrt = [callee.inner[p].index for p in positions] + \
            [self.param_index(callee, w) for w in weights]
        diff = self._diff_outputs(callee, rec.has_aux, name, node)
        gfn = self._gradient(callee, rec, diff, name, node)
        operands = self.call_operands(callee, node)
        if rec.sens_param:
            operands += self._sens(sens, callee, diff, name, node)
        results = self.emit_call(gfn, operands, node)
        n, k = callee.n_outputs, len(callee.wrt)
        self.write_back(callee, results[n + k:])
        value = rebuild(callee.output, results[:n])
        grads = results[n:n + k]
        try:
            return rec.pack(value, tuple(grads[:len(positions)]), tuple(grads[len(positions):]))
        except Exception as e:
            self.fail(node, f"{name}: {type(e).__name__}: {e}", kind_of(e), e)

    def param_index(self, callee: Callee, rec: R.Param) -> int:
        return next(i for i, s in enumerate(callee.sources) if s is rec or (
            isinstance(s, R.Param) and s.key is rec.key))

    def _positions(self, rec: R.GradCall, values: list, name: str, node) -> list[int]:
        if rec.positions is None:  # every tensor argument
            return [i for i, v in enumerate(values) if _is_tensor(v)]
        out = []
        for p in rec.positions:
            if not -len(values) <= p < len(values):
                self.fail(node, f"{name}: grad_position {p} is out of range for {len(values)} "
                                "argument(s)", Kind.VALUE)
            if not _is_tensor(values[p]):
                self.fail(node, f"{name}: argument {p % len(values)} must be a Tensor to be "
                                f"differentiated, got {describe(values[p])}", Kind.TYPE)
            out.append(p % len(values))
        return out

    def _weight(self, w, name: str, node) -> R.Param:
        rec = self.classify(w)
        if not isinstance(rec, R.Param):
            self.fail(node, f"{name}: weights must be Parameters, got {describe(w)}", Kind.TYPE)
        return rec

    def _diff_outputs(self, callee: Callee, has_aux: bool, name: str, node) -> list[int]:
        """The results differentiated: every tensor the function returns, in tuples, lists and
        dicts too (their sum is differentiated, as MindSpore does; Python numbers and strings
        give nothing), or those of the first returned value with ``has_aux``."""
        output = callee.output
        if has_aux:
            if not (isinstance(output, OutSeq) and output.kind is tuple and output.items):
                self.fail(node, f"{name} with has_aux=True: the function must return a tuple "
                                "(output, aux...)", Kind.TYPE)
            output = output.items[0]
        types = callee.function.result_types
        return [i for i in _result_indices(output) if isinstance(types[i], TensorType)]

    def _gradient(self, callee: Callee, rec: R.GradCall, diff: list, name: str, node) -> Function:
        fn = callee.function
        try:
            with report.timed("autodiff", fn.name):  # the compile report's autodiff phase
                return grad_function(self.module, fn, callee.wrt,
                                     sens="arg" if rec.sens_param else "ones", outputs=diff,
                                     n_mutated=len(callee.mutated),
                                     name=unique_name(self.module, f"{fn.name}.grad"))
        except GraphcellError as e:
            self.fail(node, f"{name}: cannot differentiate {fn.name}: {e}", kind_of(e), e)

    def _sens(self, sens, callee: Callee, diff: list, name: str, node) -> list:
        """The sens argument: one tensor per differentiated output, of its shape (cast to its
        dtype)."""
        given = _flat_tuple(sens)
        types = [callee.function.result_types[j] for j in diff]
        if len(given) != len(types):
            self.fail(node, f"{name}: sens has {len(given)} value(s) but the function returned "
                            f"{len(types)} output(s)", Kind.VALUE)
        out = []
        for s, t in zip(given, types):
            if not _is_tensor(s) or tuple(s.type.shape) != tuple(t.shape):
                self.fail(node, f"{name}: sens must match the output: expected a Tensor of shape "
                                f"{list(t.shape)}, got {describe(s)}", Kind.VALUE)
            if s.type.dtype != t.dtype:
                s = self.emit(lookup("cast"), [s], {"dtype": t.dtype}, node)
            out.append(s)
        return out


def _result_indices(spec: Output) -> list[int]:
    if isinstance(spec, OutResult):
        return [spec.index]
    if isinstance(spec, (OutSeq, OutDict)):
        return [i for s in spec.items for i in _result_indices(s)]
    return []


def _flat_tuple(v) -> list:
    return [x for item in v for x in _flat_tuple(item)] if type(v) is tuple else [v]


def _is_tensor(v) -> bool:
    return isinstance(v, Value) and isinstance(v.type, TensorType)


def _capture(fn: Function, source_of: dict) -> None:
    """Values of an enclosing function used by ``fn`` become extra arguments of ``fn``."""
    captured: dict = {}
    for op in list(walk(fn)):
        for i, v in enumerate(op.operands):
            if isinstance(v, Literal) or _owner(v) is fn:
                continue
            a = captured.get(v)
            if a is None:
                a = captured[v] = fn.add_arg(v.type, v.name_hint)
                source_of[a] = v
            op.set_operand(i, a)

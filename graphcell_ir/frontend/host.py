"""Python the graph does not compile, run as Python when the graph runs: host calls.

Graph mode compiles what it can; some Python has to run as Python, with the concrete values of
the run (DESIGN §12, "host callbacks are the escape hatch"):

- a cell's forward(-pre) **hook** whose body does what the compiled graph cannot — append to a
  list, call ``asnumpy``, mutate an object of the program: PyNative runs it as Python, so graph
  mode must too, with the same calls, values and order;
- **JIT Fallback** code on run-time values (``x.asnumpy()``, ``np.exp(x)``, ``x[x > 0]``), and
  a user's Python primitive. :meth:`HostMixin.fallback` runs such an expression as a host call
  with a warning; its value is an ``obj`` (any Python object). Whatever then touches an ``obj`` —
  an operator, an attribute, an index, a call — is JIT Fallback too; a condition on one is a
  host call giving a bool; a function may return one. No gradient flows through (as in
  MindSpore, whose JIT Fallback stops gradients).

:meth:`HostMixin.host_call` compiles the call ``function(*args, **kwargs)`` into one ``py_call``
op: the IR values among the arguments are its operands (each a :class:`Slot` of the call's
argument structure), ``result`` is the structure the call gives back (its IR values become the
op's results, of their types), and the resolver's optional ``host_function(call)`` makes the
Python callable the op runs (graphcell's wraps the run-time arrays as Tensors and runs the
function as PyNative would). Under a gradient (``grad_depth > 0``) the call is differentiable:
the host function records its own tape and gives the op's gradient through its ``vjp`` (the
op's last result is then an ``i64[]`` token naming that record).

**Hooks** (:meth:`HostMixin.forward_hook`) are tried inline first — compiled into the graph, as
MindSpore does — and run as a host call when that fails or would not behave as PyNative does:
a problem reported while compiling the body, or a change to Python state from outside the
compiled code (``seen.append(x)`` on a global list: compiled, it would change a copy). The trial
compiles into a scratch block and leaves no trace when it is abandoned.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from graphcell_ir.frontend.errors import CompileAbort, FrontendError, Kind, PoisonAbort
from graphcell_ir.frontend.exprs import describe
from graphcell_ir.frontend.scope import (BoundMethod, Closure, Poison, Undefined, is_object,
                                         leaves, map_leaves)
from graphcell_ir.ir.core import Block, OpResult, Value
from graphcell_ir.ir.types import OBJECT, ObjectType, ScalarType, TensorType, Type, int64
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import lookup

__all__ = ["HostMixin", "HostCall", "Slot", "TOKEN", "fill_slots"]

TOKEN = TensorType(int64, ())
"""The type of the last result of a differentiable host call: the key of its tape record."""

_MUTATORS = frozenset(("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
                       "update", "setdefault", "popitem", "__setitem__", "__delitem__"))
"""list/dict methods that change the object they are called on."""


@dataclass(frozen=True)
class Slot:
    """Where run-time value ``index`` goes in a host call's arguments or result."""

    index: int


@dataclass(frozen=True, eq=False)
class HostCall:
    """What the resolver's ``host_function`` turns into the callable of a ``py_call`` op.

    ``args``/``kwargs``: the call's arguments, with a :class:`Slot` for each run-time value (the
    op's operands, in order; ``inputs`` are their types) and Python objects as they are.
    ``result``: the structure the call
    must give back, a Slot for each result (of ``types[i]``) and Python values that must come
    back unchanged. ``differentiable``: record a tape and give ``vjp`` (then the op has one more
    result, the :data:`TOKEN`). ``name`` labels the op (``@name`` in the IR text).
    """

    function: Callable
    args: tuple
    kwargs: dict
    result: Any
    types: tuple
    differentiable: bool
    name: str
    inputs: tuple = ()


def fill_slots(template, values):
    """``template`` with each Slot replaced by ``values[slot.index]``."""
    if isinstance(template, Slot):
        return values[template.index]
    t = type(template)
    if t in (tuple, list):
        return t(fill_slots(x, values) for x in template)
    if t is dict:
        return {k: fill_slots(x, values) for k, x in template.items()}
    return template


class HostMixin:
    """Host calls and the trial of hooks (see the module docstring)."""

    # -- host calls --
    def host_call(self, function: Callable, args: list, kwargs: dict, result, name: str, node,
                  *, differentiable: bool | None = None, what: str = ""):
        """Compile ``function(*args, **kwargs)`` as a ``py_call`` giving back values of the
        structure and types of ``result`` (a frontend value); returns that value. ``name``
        labels the op, ``what`` names the code in messages (default: ``name``)."""
        make = getattr(self.resolver, "host_function", None)
        if make is None:
            self.fail(node, f"{what or name} would have to run as Python when the graph runs, "
                            "which this compiler's resolver does not support", Kind.UNSUPPORTED)
        operands: list[Value] = []
        arg_t = tuple(self._slots_of(a, operands, node) for a in args)
        kwarg_t = {k: self._slots_of(v, operands, node) for k, v in kwargs.items()}
        results: list = []
        result_t = self._slots_of(result, results, node)
        types = tuple(v if isinstance(v, Type) else v.type for v in results)
        if differentiable is None:
            differentiable = self.grad_depth > 0 and any(
                isinstance(v.type, TensorType) and v.type.dtype.is_float for v in operands)
        call = HostCall(function, arg_t, kwarg_t, result_t, types, differentiable, name,
                        tuple(v.type for v in operands))
        fn = make(call)
        out = self.emit(lookup("py_call"), operands,
                        {"fn": fn, "name": name, "types": types + ((TOKEN,) if differentiable
                                                                   else ())}, node)
        out = () if out is None else out if type(out) is tuple else (out,)
        return fill_slots(result_t, out)

    # -- a user's Python primitive --
    def call_py_primitive(self, rec, args: list, kwargs: dict, node, name: str):
        """``rec.function(*args)``: at once on values known while compiling; else its
        ``__call__`` compiled inline when that works, else run as Python when the graph runs,
        with the results' types from ``rec.infer`` (one ``obj`` without)."""
        args = [self.realize_deep(a, node) for a in args]
        kwargs = {k: self.realize_deep(v, node) for k, v in kwargs.items()}
        if not any(isinstance(x, Value) for x in leaves([args, kwargs])):
            return self.call_static(rec.function, args, kwargs, node, name)
        if rec.inline is not None:
            c = rec.inline
            ok, value = self.trial(lambda: self.inline(c.function, c.self_obj, c.scope, args,
                                                       kwargs, node, c.library))
            if ok:
                return value
        result = OBJECT
        if rec.infer is not None:
            types = [a.type if isinstance(a, Value) else a for a in args]
            with self.op_errors(node, f"{name}: inferring its outputs"):
                result = rec.infer(types)
        return self.host_call(rec.function, args, kwargs, result, name, node)

    # -- JIT Fallback --
    def fallback(self, function: Callable, args: list, kwargs: dict, node, what: str,
                 result: Type = OBJECT):
        """``function(*args, **kwargs)`` on run-time values, run as Python when the graph runs
        (MindSpore's JIT Fallback). Gives a value of type ``result`` (default ``obj``: any Python
        object). Where tensors of the graph enter such code (not for the operations on its
        ``obj`` values that follow) the user is warned once per line: it leaves the compiled
        graph, and no gradient flows through it."""
        if any(isinstance(v, Value) and not is_object(v) for v in leaves([args, kwargs])):
            self.warn(node, f"{what} runs as Python when the graph runs (JIT Fallback): it "
                            "leaves the compiled graph, and gradients do not flow through it")
        name = getattr(function, "__name__", None) or what
        return self.host_call(function, args, kwargs, result, name, node, differentiable=False,
                              what=what)

    def _slots_of(self, value, values: list, node):
        """``value`` with its IR values moved into ``values`` as Slots (Python objects stay);
        a Type in a result template stands for one result of that type."""
        if isinstance(value, Type):
            values.append(value)
            return Slot(len(values) - 1)
        if isinstance(value, Value):
            if not isinstance(value.type, (TensorType, ScalarType, ObjectType)):
                self.fail(node, f"{describe(value)} cannot be passed to Python code run when the "
                                "graph runs", Kind.UNSUPPORTED)
            values.append(value)
            return Slot(len(values) - 1)
        t = type(value)
        if t in (tuple, list):
            return t(self._slots_of(x, values, node) for x in value)
        if t is dict:
            return {k: self._slots_of(x, values, node) for k, x in value.items()}
        if isinstance(value, (Closure, BoundMethod, Poison, Undefined)):
            self.fail(node, f"{describe(value)} cannot be passed to Python code run when the graph "
                            "runs", Kind.UNSUPPORTED)
        return value

    # -- tensor hooks --
    def hook_tensor(self, rec, x: Value, args: list, kwargs: dict, node):
        """``x.register_hook(fn)``: ``x`` goes through ``rec.function(x, fn)`` right where it is
        defined, and every use of ``x`` — before this line too — reads the hooked value, so the
        hook sees the whole gradient of ``x`` (as in PyNative). Gives the hooked value (what
        MindSpore's graph mode returns)."""
        if len(args) != 1 or kwargs:
            self.fail(node, "register_hook() takes one argument, the hook function", Kind.TYPE)
        fn = self.python_object(args[0], node)
        for kind, loc in reversed(self.ctl):
            if kind in ("cond", "irloop"):
                self.fail(node, f"register_hook under a tensor condition (line {loc.line}) is not "
                                "supported in graph mode: register it where the tensor is made",
                          Kind.UNSUPPORTED)
        return self.redirect(x, lambda v: self.call_traced(rec.function, [v, fn], {}, node,
                                                           "register_hook"))

    def redirect(self, x: Value, make: Callable[[Value], Value]) -> Value:
        """``make(x)`` built right after ``x``'s definition; every use of ``x`` in the IR and in
        the variables of the functions being compiled then reads the new value."""
        if isinstance(x, OpResult):
            block, before = x.op.parent, x.op.next_op
        else:
            block = x.block
            before = block.first
        saved_loc, existing = self.b.loc, set(block)
        with self.b.insertion_point(block, before):
            new = make(x)
        self.b.loc = saved_loc
        made = set(block) - existing
        x.replace_all_uses_with(new, where=lambda op: op not in made)
        swap = {x: new}
        for frame in self.frames:
            frame.vars = {k: map_leaves(lambda v: swap.get(v, v) if isinstance(v, Value) else v,
                                        v) for k, v in frame.vars.items()}
        self.set_bindings({k: map_leaves(lambda v: swap.get(v, v) if isinstance(v, Value)
                                         else v, v) for k, v in self.bindings.items()})
        return new

    def hooked_param(self, rec, arg: Value, loc) -> Value:
        """A Parameter with tensor hooks, first read (at ``loc``) in something differentiated:
        its value goes through ``rec.hook`` at the top of the Function, so every read sees it."""
        body = self.fn.body
        saved_loc = self.b.loc
        self.b.loc = loc
        with self.b.insertion_point(body, body.first), F.using_emitter(self.emitter):
            new = rec.hook(arg)
        self.b.loc = saved_loc
        return new

    def hooked_argument(self, hook: Callable, arg: Value, node) -> Value:
        """An input with tensor hooks, differentiated: its value through ``hook`` at the top of
        the Function (its location: the call's, marked as a hook's)."""
        saved_loc = self.b.loc
        self.b.loc = self.loc(node).with_mark("hook")
        with self.b.insertion_point(self.fn.body, self.fn.body.first), \
                F.using_emitter(self.emitter):
            new = hook(arg)
        self.b.loc = saved_loc
        return new

    # -- hooks --
    def forward_hook(self, hook, cell, inputs: tuple, out, node, *, pre: bool):
        """Run a forward-pre hook (``pre``: ``hook(cell, inputs)``, giving new inputs) or a
        forward hook (``hook(cell, inputs, out)``, giving a new output): inlined when that
        behaves as PyNative, else as a host call."""
        args = [cell, inputs] if pre else [cell, inputs, out]
        replaced = inputs if pre else out

        def inline():
            return self.inline(hook.function, hook.self_obj, hook.scope, args, {}, node,
                               hook.library)
        if hook.library:   # the resolver's own (backward-hook boundaries): always compiled
            r = inline()
        else:
            ok, r = self.trial(inline)
            if not ok:
                runner = _pre_hook_runner(hook) if pre else _hook_runner(hook)
                return self.host_call(runner, args, {}, replaced, _hook_name(hook), node)
        if r is None:
            return replaced
        where = f"{type(cell).__name__} {'forward-pre' if pre else 'forward'} hook " \
                f"{_hook_name(hook)}"
        if pre:
            r = r if type(r) is tuple else (r,)
            self._check_hook_values(r, where, node)
            return r
        self._check_hook_values(r if type(r) is tuple else (r,), where, node)
        if (type(out) is tuple) != (type(r) is tuple) or (type(r) is tuple and len(r) != len(out)):
            self.fail(node, f"{where} returned {_shape_word(r)}, but the cell returns "
                            f"{_shape_word(out)}", Kind.VALUE)
        return r

    def _check_hook_values(self, values: tuple, where: str, node) -> None:
        """What PyNative accepts from a forward(-pre) hook: tensors, numbers, tuples, lists,
        None (``runtime/hooks.py``), with its message."""
        for v in values:
            if not (isinstance(v, (Value, bool, int, float, tuple, list, type(None)))
                    or self.is_tensor_object(v)):
                self.fail(node, f"{where} must return Tensors (or None to keep the values), got "
                                f"{type(v).__name__}", Kind.TYPE)

    def outside_effect(self, what: str) -> None:
        """Compiled code changes Python state from outside it (``what``): a trial in progress
        must give up (the code runs as Python instead); elsewhere the compiled code changes its
        own copy, as in MindSpore's graph mode."""
        if self.trials:
            self.trials[-1].append(what)

    def is_outside(self, obj) -> bool:
        return self.outside.get(id(obj)) is obj

    def note_container_call(self, method) -> None:
        owner = getattr(method, "__self__", None)
        if getattr(method, "__name__", "") in _MUTATORS and self.is_outside(owner):
            self.outside_effect(f"{type(owner).__name__}.{method.__name__}()")

    def trial(self, run: Callable[[], Any]) -> tuple[bool, Any]:
        """``(True, run())`` when ``run`` compiles without a problem and without an outside
        effect, its ops in place; else ``(False, None)`` and nothing of it is left."""
        state = self._trial_state()
        block = Block()
        self.trials.append([])
        ok, value = False, None
        try:
            with self.b.insertion_point(block):
                value = run()
            ok = len(self.diags) == state["diags"] and not self.trials[-1]
        except (FrontendError, PoisonAbort):  # a raise: Python raises when it runs
            ok = False
        except BaseException:
            self.trials.pop()
            self._roll_back(state, block)
            raise
        self.trials.pop()
        if not ok:
            self._roll_back(state, block)
            return False, None
        for op in list(block):
            self.b.insert(op.detach())
        return True, value

    def _trial_state(self) -> dict:
        return {"diags": len(self.diags), "warnings": len(self.warnings),
                "bindings": dict(self.bindings),
                "written": set(self.written), "mutated": dict(self.mutated),
                "slots": dict(self.slots), "args": len(self.fn.args),
                "consts": dict(self._consts), "last_const": self._last_const}

    def _roll_back(self, state: dict, block: Block) -> None:
        for op in block:
            op.drop_references()
        del self.diags[state["diags"]:]
        del self.warnings[state["warnings"]:]
        self.bindings, self.mutated = state["bindings"], state["mutated"]
        for key in [k for k in self.written if k not in state["written"]]:
            del self.written[key]
        for key, slot in list(self.slots.items()):
            if key not in state["slots"]:
                self.param_of.pop(slot.arg, None)
        self.slots = state["slots"]
        for key, (_, v) in list(self._consts.items()):
            if key not in state["consts"] and not v.has_uses:
                v.op.erase()
        self._consts, self._last_const = state["consts"], state["last_const"]
        body = self.fn.body
        while len(self.fn.args) > state["args"] and not self.fn.args[-1].has_uses:
            body.erase_arg(len(self.fn.args) - 1)


def _shape_word(v) -> str:
    """How hook messages name a value's structure: ``a tuple of 2``, ``Tensor``."""
    if type(v) is tuple:
        return f"a tuple of {len(v)}"
    return "Tensor" if isinstance(v, Value) else type(v).__name__


def _hook_name(hook) -> str:
    fn = hook.function
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or "hook"


def _call(hook, *args):
    return hook.function(hook.self_obj, *args) if hook.self_obj is not None \
        else hook.function(*args)


def _pre_hook_runner(hook) -> Callable:
    """A forward-pre hook as PyNative runs it: None keeps the inputs, one value is a 1-tuple."""
    def run(cell, inputs):
        r = _call(hook, cell, inputs)
        if r is None:
            return inputs
        return r if type(r) is tuple else (r,)
    run.__name__ = run.__qualname__ = _hook_name(hook)
    return run


def _hook_runner(hook) -> Callable:
    """A forward hook as PyNative runs it: None keeps the output."""
    def run(cell, inputs, out):
        r = _call(hook, cell, inputs, out)
        return out if r is None else r
    run.__name__ = run.__qualname__ = _hook_name(hook)
    return run

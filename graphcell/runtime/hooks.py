"""Hooks and custom ``bprop``: what a Cell call does beyond running ``construct``.

The boundaries follow MindSpore 2.x (DESIGN §9, §10.3), which match PyTorch's module hooks:

    inputs --forward-pre hooks--> [input boundary] --construct (or custom bprop)-->
           --forward hooks--> [output boundary] --> outputs

In the backward walk the output boundary sees ``grad_output`` (after the forward hooks) and runs
the backward-pre hooks; the input boundary sees ``grad_input`` (w.r.t. the inputs as they were
after the forward-pre hooks) and runs the backward hooks with both. A hook that returns a fresh
tensor (not computed from the cell's values) cuts the gradient: the fresh tensor is untracked.

A boundary is the registry op ``hook_backward`` (identity forward; its bprop rule calls a host
callback on the gradients, ``graphcell_ir/ops/effects.py``), applied to the tensors among the
values; ``ops.HookBackward(fn)`` is the same op with ``fn`` as the callback. PyNative runs the
rule on the tape and graph mode emits it in the gradient's IR, so both modes call the same
callbacks (:class:`GradCallback`) with the same values, and a hook's errors read the same. A
boundary costs one identity op when no gradient is taken; cells without hooks have none.
"""
from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Callable

import numpy as np

from graphcell.runtime import tape
from graphcell.tensor import Tensor
from graphcell_ir.errors import GraphcellError

_ids = itertools.count()
_cell_hook_changes = itertools.count(1)

CELL_HOOKS = [0]
"""Set anew whenever a hook is registered on a cell or a handle removes one: a compiled call
checks this one number instead of every hook table of every cell it met (``graph/guards.py``;
the tables are compared only when it moved)."""


def _cell_hooks_changed() -> None:
    CELL_HOOKS[0] = next(_cell_hook_changes)   # next() on a count is atomic: no lost update


class HookHandle:
    """Returned by every ``register_*_hook``; ``remove()`` unregisters that hook alone."""

    def __init__(self, hooks: OrderedDict, key: int):
        self._hooks = hooks
        self.handle_id = key

    def remove(self) -> None:
        self._hooks.pop(self.handle_id, None)

    def __repr__(self) -> str:
        return f"HookHandle(id={self.handle_id})"


class _CellHookHandle(HookHandle):
    def remove(self) -> None:
        if self._hooks.pop(self.handle_id, None) is not None:
            _cell_hooks_changed()


def _name(cell) -> str:
    return type(cell).__name__


def _fn_name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def _as_tuple(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def _identity_outputs(values: tuple) -> tuple:
    """Fresh Tensor objects over the same data (nodes need outputs distinct from inputs)."""
    return tuple(Tensor._wrap(v._data) if isinstance(v, Tensor) else v for v in values)


class BackwardTypeError(GraphcellError, TypeError):
    """A backward hook or custom bprop returned something that is not gradients."""


class BackwardValueError(GraphcellError, ValueError):
    """A backward hook or custom bprop returned gradients of the wrong number, shape or dtype."""


def _check_grads(replacement, expected: tuple, where: str) -> tuple:
    """A hook's replacement gradients: a tuple of Tensors matching ``expected`` in arity, shape
    and dtype. (GraphcellErrors, so the op runtime passes them on as they are.)"""
    got = _as_tuple(replacement) if isinstance(replacement, (tuple, Tensor)) else None
    if got is None:
        raise BackwardTypeError(f"{where} must return None or a tuple of Tensors, got "
                                f"{type(replacement).__name__}")
    if len(got) != len(expected):
        raise BackwardValueError(f"{where} returned {len(got)} gradient(s), expected "
                                 f"{len(expected)}")
    for i, (g, e) in enumerate(zip(got, expected)):
        if g is None:
            continue
        if not isinstance(g, Tensor):
            raise BackwardTypeError(f"{where}: gradient {i} must be a Tensor, got "
                                    f"{type(g).__name__}")
        if e is not None and g.shape != e.shape:
            raise BackwardValueError(f"{where}: gradient {i} has shape {list(g.shape)}, "
                                     f"expected {list(e.shape)}")
        if e is not None and g.dtype != e.dtype:  # MindSpore 2.10 refuses it too
            raise BackwardValueError(f"{where}: gradient {i} has dtype {g.dtype}, expected "
                                     f"{e.dtype}")
    return got


def _zeros_for(values: tuple, douts) -> tuple:
    from graphcell_ir.ops import functional as F
    return tuple(F.zeros_like(v) if d is None and isinstance(v, Tensor) else d
                 for v, d in zip(values, douts))


# --- the boundary op and its callbacks ---------------------------------------------------------

def is_tensor(v) -> bool:
    """A tensor in either world: a Tensor (PyNative) or an IR value of tensor type (graph mode)."""
    if isinstance(v, Tensor):
        return True
    from graphcell_ir.ir.core import Value
    from graphcell_ir.ir.types import TensorType
    return isinstance(v, Value) and isinstance(v.type, TensorType)


def layout_of(values: tuple) -> tuple[bool, ...]:
    """Which of ``values`` are tensors (only those pass through the ``hook_backward`` op)."""
    return tuple(is_tensor(v) for v in values)


def mark(values: tuple, callback: "GradCallback", name: str) -> tuple:
    """``values`` through one ``hook_backward`` op calling ``callback`` with their gradients.

    Written against the functional API, so it runs eagerly on Tensors (PyNative) and emits the op
    under the graph-mode frontend (the resolver calls it with IR values).
    """
    from graphcell_ir.ops import functional as F
    where = [i for i, v in enumerate(values) if is_tensor(v)]
    if not where:
        return values
    out = F.hook_backward(*(values[i] for i in where), fn=callback, name=name)
    out = (out,) if len(where) == 1 else tuple(out)
    result = list(values)
    for i, o in zip(where, out):
        result[i] = o
    return tuple(result)


class HookFailed(BaseException):
    """A hook raised ``error`` while a compiled function ran (see :func:`compiled_run`).

    A BaseException, so that neither the generated runner (which reruns a failed call on the
    reference interpreter, calling the earlier hooks again) nor the interpreter (which wraps
    errors in InterpError) catches it: the call stops at once and the caller re-raises ``error``,
    the exception PyNative gives for the same hook.
    """

    def __init__(self, error: BaseException):
        super().__init__(error)
        self.error = error


_compiled_runs = [0]
_kept: list = []   # the tape records of host calls made by the compiled runs in progress


def in_compiled_run() -> bool:
    return _compiled_runs[0] > 0


def keep_until_run_ends(records: dict) -> None:
    """Host calls' tape records (``runtime/host.py``) are dropped when the compiled run that
    made them ends, if their backward did not run (a forward-only use, an unused result)."""
    if _compiled_runs[0] and not any(r is records for r in _kept):
        _kept.append(records)


class compiled_run:
    """``with compiled_run(): exe(...)`` — a compiled function runs: a hook's exception stops it
    as :class:`HookFailed` and comes out as itself (parameters and caches untouched).

    >>> with compiled_run():
    ...     GradCallback(lambda grads: 1 / 0, (True,), "h")(np.ones(1))
    Traceback (most recent call last):
    ZeroDivisionError: division by zero
    """

    def __enter__(self):
        _compiled_runs[0] += 1

    def __exit__(self, kind, error, tb):
        _compiled_runs[0] -= 1
        if not _compiled_runs[0]:
            for records in _kept:
                records.clear()
            _kept.clear()
            if error is None:
                flush_backward_hooks()
            else:
                _pending.clear()
        if isinstance(error, HookFailed):
            raise error.error.with_traceback(error.error.__traceback__) from None
        return False


class GradCallback:
    """The ``fn`` of a ``hook_backward`` op: ``run(grads)`` on the gradients flowing back.

    Called by the ``host_callback`` of the op's gradient with numpy arrays (one per tensor among
    the marked values, ``layout``); ``run`` gets a tuple of Tensors with None where a value is
    not a tensor, and returns None (keep them) or replacement Tensors, which are given back as
    arrays (None entries as zeros). ``name`` is how the IR text shows it (``@name``).
    """

    def __init__(self, run: Callable[[tuple], tuple | None], layout: tuple[bool, ...], name: str):
        self._run = run
        self.layout = layout
        self.__name__ = name

    def __call__(self, *arrays):
        it = iter(arrays)
        grads = tuple(Tensor._wrap(np.array(next(it), copy=True)) if t else None
                      for t in self.layout)
        try:
            new = self._run(grads)
        except Exception as e:
            if _compiled_runs[0]:
                raise HookFailed(e) from None
            raise
        if new is None:
            return None
        return tuple(g._data if isinstance(g, Tensor) else np.zeros_like(old._data)
                     for g, old, t in zip(new, grads, self.layout) if t)

    def __repr__(self) -> str:
        return f"<GradCallback {self.__name__}>"


def has_grad_callbacks(module) -> bool:
    """Whether a compiled module calls hooks or other Python (ops whose ``fn`` is a
    :class:`GradCallback`, and ``py_call`` ops): its runs go through :class:`compiled_run`."""
    from graphcell_ir.ir.walk import walk
    from graphcell_ir.ops.registry import lookup
    py_call = lookup("py_call")
    return any(op.opdef is py_call or isinstance(op.attrs.get("fn"), GradCallback)
               for op in walk(module))


# --- HookBackward ------------------------------------------------------------------------------

class HookBackward:
    """``ops.HookBackward(hook_fn)``: identity forward; ``hook_fn(grads)`` sees (and may replace)
    the gradient flowing back through it, in PyNative and in graph mode.

    Example::

        hook = ops.HookBackward(lambda g: print("grad:", g))
        z = hook(x * y)      # prints the gradient of z when differentiated
    """

    def __init__(self, hook_fn: Callable, cell_id: str = ""):
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be callable, got {type(hook_fn).__name__}")
        self.hook_fn = hook_fn
        self.cell_id = cell_id
        self._callbacks: dict[tuple, GradCallback] = {}

    def __call__(self, *inputs):
        outputs = mark(inputs, self.callback(layout_of(inputs)), "HookBackward")
        return outputs[0] if len(outputs) == 1 else outputs

    def callback(self, layout: tuple[bool, ...]) -> GradCallback:
        """The op's callback for inputs laid out as ``layout`` (one per layout, so that the op's
        attributes stay the same from call to call). It calls ``hook_fn`` as it is when the
        gradient runs: assigning ``hook.hook_fn`` takes effect without recompiling."""
        cb = self._callbacks.get(layout)
        if cb is None:
            name = getattr(self.hook_fn, "__name__", None) or "hook"
            cb = self._callbacks[layout] = GradCallback(self._run, layout, name)
        return cb

    def _run(self, grads: tuple):
        fn = self.hook_fn
        replaced = fn(grads)
        if replaced is None:
            return None
        return _check_grads(replaced, grads, f"HookBackward hook {_fn_name(fn)}")


# --- tensor hooks ------------------------------------------------------------------------------

PARAMETER_HOOKS = [0]
"""Bumped when a Parameter's hooks change: compiled gradients read them (``graph/guards.py``)."""


class _ParameterHookHandle(HookHandle):
    def remove(self) -> None:
        if self._hooks.pop(self.handle_id, None) is not None:
            PARAMETER_HOOKS[0] += 1


def register_hook(tensor, hook_fn: Callable) -> HookHandle:
    """``Tensor.register_hook`` / ``Parameter.register_hook``: ``hook_fn(grad)`` sees the
    gradient of ``tensor`` (all of it, from every use) when a gradient is taken, and may
    return a Tensor that replaces it. Returns a handle whose ``remove()`` unregisters it."""
    if not callable(hook_fn):
        raise TypeError(f"register_hook: hook_fn must be callable, got {type(hook_fn).__name__}")
    hooks = getattr(tensor, "_hooks", None)
    if hooks is None:
        hooks = OrderedDict()
        tensor._hooks = hooks
    key = next(_ids)
    hooks[key] = hook_fn
    tape.TENSOR_HOOKS[0] += 1
    from graphcell.parameter import Parameter
    if isinstance(tensor, Parameter):
        PARAMETER_HOOKS[0] += 1
        return _ParameterHookHandle(hooks, key)
    return HookHandle(hooks, key)


def run_tensor_hooks(hooks, grad):
    """The gradient after each of ``hooks`` (in registration order) saw it, as PyNative and the
    compiled gradient's callbacks run them."""
    for fn in list(hooks):
        replaced = fn(grad)
        if replaced is not None:
            grad = _check_grads(replaced, (grad,), f"tensor hook {_fn_name(fn)}")[0]
    return grad


def tensor_hooks_callback(hooks: Callable[[], tuple], name: str) -> GradCallback:
    """The callback of the ``hook_backward`` op a tensor hook becomes in a compiled gradient;
    ``hooks()`` gives the hook functions when the gradient runs."""
    def run(grads: tuple):
        fns = hooks()
        if not fns:
            return None
        return (run_tensor_hooks(fns, grads[0]),)
    return GradCallback(run, (True,), name)


def input_hooks(fns: tuple):
    """A compiled function's input with tensor hooks ``fns``: its value through one
    ``hook_backward`` op that calls them (written against ``F``, for graph mode to trace)."""
    callback = tensor_hooks_callback(lambda: fns, "input hooks")

    def hook(value):
        return mark((value,), callback, "input hooks")[0]
    return hook


def parameter_hooks(param):
    """``(param's hooks now, the callback that runs them)`` for a compiled gradient (made once
    per Parameter, so the IR's callback stays the same object from compile to compile)."""
    cb = param.__dict__.get("_hooks_callback")
    if cb is None:
        cb = tensor_hooks_callback(lambda: tuple((getattr(param, "_hooks", None) or {}).values()),
                                   f"{param.name}.hooks")
        param.__dict__["_hooks_callback"] = cb
    return tuple((getattr(param, "_hooks", None) or {}).values()), cb


# --- cell hooks --------------------------------------------------------------------------------

class CellBackward:
    """The backward hooks of one cell, as the callbacks of its two boundaries.

    The output boundary's callback runs the backward-pre hooks and keeps ``grad_output`` for the
    input boundary's, which runs the backward hooks with it and then forgets it; when no input is
    differentiated the input boundary's never runs, and :func:`flush_backward_hooks` runs the
    backward hooks at the end of the backward walk with ``None`` gradients. Calls of one
    cell do not overlap (a cell does not call itself), and the backward of a call runs its output
    boundary before its input boundary, so one slot serves every call, in both modes.
    """

    def __init__(self, cell):
        self.cell = cell
        self._grad_output: tuple = ()
        self._callbacks: dict[tuple, GradCallback] = {}
        self._inputs: tuple[bool, ...] = ()

    def mark_inputs(self, *inputs) -> tuple:
        """The input boundary (after the forward-pre hooks), when the cell has backward hooks."""
        if not self.cell.__dict__.get("_backward_hook"):
            return inputs
        self._inputs = layout_of(inputs)
        return mark(inputs, self._callback("input", self._inputs),
                    f"{_name(self.cell)} backward hooks")

    def mark_output(self, out):
        """The output boundary (after the forward hooks), when the cell has backward(-pre) hooks."""
        d = self.cell.__dict__
        if not (d.get("_backward_pre_hook") or d.get("_backward_hook")):
            return out
        values = _as_tuple(out)
        marked = mark(values, self._callback("output", layout_of(values)),
                      f"{_name(self.cell)} backward-pre hooks")
        return marked if isinstance(out, tuple) else marked[0]

    def _callback(self, side: str, layout: tuple[bool, ...]) -> GradCallback:
        cb = self._callbacks.get((side, layout))
        if cb is None:
            run = self._output if side == "output" else self._input
            name = f"{_name(self.cell)}.{'backward_pre' if side == 'output' else 'backward'}_hooks"
            cb = self._callbacks[(side, layout)] = GradCallback(run, layout, name)
        return cb

    def _output(self, grads: tuple):
        cell, changed = self.cell, False
        for fn in list(cell._hook_dict("backward_pre").values()):
            replaced = fn(cell, grads)
            if replaced is not None:
                grads = _check_grads(replaced, grads,
                                     f"{_name(cell)} backward-pre hook {_fn_name(fn)}")
                changed = True
        self._grad_output = tuple(grads)
        if cell.__dict__.get("_backward_hook") and self not in _pending:
            _pending.append(self)
        return grads if changed else None

    def _input(self, grads: tuple):
        cell, changed = self.cell, False
        if self in _pending:
            _pending.remove(self)
        grad_output, self._grad_output = self._grad_output, ()
        for fn in list(cell._hook_dict("backward").values()):
            replaced = fn(cell, grads, grad_output)
            if replaced is not None:
                grads = _check_grads(replaced, grads, f"{_name(cell)} backward hook {_fn_name(fn)}")
                changed = True
        return grads if changed else None


_pending: list[CellBackward] = []
"""Cells whose output boundary's backward ran and whose input boundary's has not (yet)."""


def flush_backward_hooks() -> None:
    """At the end of a backward walk: the backward hooks of cells whose inputs were not
    differentiated (a network's first layer when only the weights are) run with ``None`` for
    each input's gradient, as MindSpore's PyNative mode calls them; both modes call this."""
    while _pending:
        backward = _pending.pop(0)
        backward._input(tuple(None for _ in backward._inputs))


def cell_backward(cell) -> CellBackward:
    """The :class:`CellBackward` of ``cell`` (made on first use, kept with the cell)."""
    d = cell.__dict__
    cb = d.get("_backward_callbacks")
    if cb is None:
        cb = CellBackward(cell)
        object.__setattr__(cell, "_backward_callbacks", cb)
    return cb


class CellHooks:
    """The hook registries of a Cell and the hooked call; ``nn.Cell`` inherits this."""

    def _hook_dict(self, kind: str) -> OrderedDict:
        name = f"_{kind}_hook"  # MindSpore's attribute names: _forward_pre_hook, ...
        hooks = self.__dict__.get(name)
        if hooks is None:
            hooks = OrderedDict()
            object.__setattr__(self, name, hooks)
        return hooks

    def _register(self, kind: str, fn: Callable) -> HookHandle:
        if not callable(fn):
            raise TypeError(f"{_name(self)}.register_{kind}_hook: expected a function, got "
                            f"{type(fn).__name__}")
        hooks = self._hook_dict(kind)
        key = next(_ids)
        hooks[key] = fn
        _cell_hooks_changed()
        return _CellHookHandle(hooks, key)

    def register_forward_pre_hook(self, hook_fn: Callable) -> HookHandle:
        """``hook_fn(cell, inputs)`` runs before ``construct``; it may return new inputs."""
        return self._register("forward_pre", hook_fn)

    def register_forward_hook(self, hook_fn: Callable) -> HookHandle:
        """``hook_fn(cell, inputs, outputs)`` runs after ``construct``; it may return new outputs."""
        return self._register("forward", hook_fn)

    def register_backward_pre_hook(self, hook_fn: Callable) -> HookHandle:
        """``hook_fn(cell, grad_output)`` sees the gradient arriving at the cell's output."""
        return self._register("backward_pre", hook_fn)

    def register_backward_hook(self, hook_fn: Callable) -> HookHandle:
        """``hook_fn(cell, grad_input, grad_output)`` sees the gradients at both boundaries."""
        return self._register("backward", hook_fn)

    def _has_hooks_or_bprop(self) -> bool:
        d = self.__dict__
        return bool(d.get("_forward_pre_hook") or d.get("_forward_hook") or d.get("_backward_pre_hook")
                    or d.get("_backward_hook")) or _has_custom_bprop(self)

    def _call_with_hooks(self, args: tuple, kwargs: dict, run: Callable):
        """Run ``run(*inputs, **kwargs)`` (construct) with every hook and a custom bprop."""
        inputs = self._run_forward_pre_hooks(args)
        backward = cell_backward(self) if self.__dict__.get("_backward_pre_hook") or \
            self.__dict__.get("_backward_hook") else None
        if backward is not None:
            inputs = backward.mark_inputs(*inputs)
        if _has_custom_bprop(self):
            out = _run_with_custom_bprop(self, inputs, kwargs, run)
        else:
            out = run(*inputs, **kwargs)
        out = self._run_forward_hooks(inputs, out)
        if backward is not None:
            out = backward.mark_output(out)
        return out

    def _run_forward_pre_hooks(self, args: tuple) -> tuple:
        inputs = args
        for fn in list(self._hook_dict("forward_pre").values()):
            result = fn(self, inputs)
            if result is not None:
                inputs = _as_tuple(result)
                _check_values(inputs, f"{_name(self)} forward-pre hook {_fn_name(fn)}")
        return inputs

    def _run_forward_hooks(self, inputs: tuple, out):
        for fn in list(self._hook_dict("forward").values()):
            result = fn(self, inputs, out)
            if result is not None:
                _check_values(_as_tuple(result), f"{_name(self)} forward hook {_fn_name(fn)}")
                if isinstance(out, tuple) != isinstance(result, tuple) or (
                        isinstance(out, tuple) and len(out) != len(result)):
                    raise ValueError(f"{_name(self)} forward hook {_fn_name(fn)} returned "
                                     f"{_describe(result)}, but the cell returns {_describe(out)}")
                out = result
        return out


def _describe(v) -> str:
    return f"a tuple of {len(v)}" if isinstance(v, tuple) else type(v).__name__


def _check_values(values: tuple, where: str) -> None:
    for v in values:
        if not isinstance(v, (Tensor, int, float, bool, tuple, list, type(None))):
            raise TypeError(f"{where} must return Tensors (or None to keep the values), got "
                            f"{type(v).__name__}")


# --- custom bprop ------------------------------------------------------------------------------

def _has_custom_bprop(cell) -> bool:
    return callable(getattr(type(cell), "bprop", None))


def _run_with_custom_bprop(cell, inputs: tuple, kwargs: dict, run: Callable):
    """Run construct untaped, and tape one node whose backward is ``cell.bprop``."""
    with tape.paused():
        out = run(*inputs, **kwargs)
    values = _as_tuple(out)
    outputs = _identity_outputs(values)
    params = tuple(getattr(cell, "internal_params", ()) or ())
    where = f"{_name(cell)}.bprop"

    def backward(douts):
        dout = _zeros_for(values, douts)
        dout = dout if isinstance(out, tuple) else dout[0]
        result = cell.bprop(*inputs, out, dout)
        input_grads, param_grads = _split_bprop_result(result, params, where)
        if isinstance(input_grads, tuple) and len(input_grads) == len(inputs):
            input_grads = tuple(_fit(g, x) for g, x in zip(input_grads, inputs))
        grads = _check_grads(input_grads, inputs, where)
        return grads + tuple(param_grads.get(p) for p in params)
    tape.record_custom(inputs + params, outputs, backward, where)
    return outputs if isinstance(out, tuple) else outputs[0]


def _split_bprop_result(result, params: tuple, where: str):
    if params and isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict):
        grads, by_param = result
        unknown = [k for k in by_param if not any(k is p for p in params)]
        if unknown:
            raise ValueError(f"{where} returned a gradient for a Parameter not in internal_params")
        return grads, by_param
    return result, {}


def _fit(g, x):
    """A bprop's gradient for input ``x`` as MindSpore's PyNative mode takes it: summed over the
    axes broadcasting added (a ``[3, 2]`` gradient of a ``[2]`` input) and cast to ``x``'s dtype;
    other shapes stay, for ``_check_grads`` to refuse."""
    if not isinstance(g, Tensor) or not isinstance(x, Tensor):
        return g
    from graphcell_ir.ops import functional as F
    if g.shape != x.shape and F.broadcasts_to(x.shape, g.shape):
        g = F.sum_to(g, x.shape)
    return g.astype(x.dtype) if g.dtype != x.dtype else g

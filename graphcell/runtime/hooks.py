"""PyNative hooks and custom ``bprop``: what a Cell call does beyond running ``construct``.

The boundaries follow MindSpore 2.x (DESIGN §9, §10.3), which match PyTorch's module hooks:

    inputs --forward-pre hooks--> [input boundary] --construct (or custom bprop)-->
           --forward hooks--> [output boundary] --> outputs

In the backward walk the output boundary sees ``grad_output`` (after the forward hooks) and runs
the backward-pre hooks; the input boundary sees ``grad_input`` (w.r.t. the inputs as they were
after the forward-pre hooks) and runs the backward hooks with both. Boundaries are identity nodes
on the tape, so they cost nothing when no gradient is being computed. A hook that returns a fresh
tensor (not computed from the cell's values) cuts the gradient: the fresh tensor is untracked.

``HookBackward(fn)`` is the same idea as an op: identity forward, ``fn(grads)`` in the backward.
"""
from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Callable

from graphcell.runtime import tape
from graphcell.tensor import Tensor

_ids = itertools.count()


class HookHandle:
    """Returned by every ``register_*_hook``; ``remove()`` unregisters that hook alone."""

    def __init__(self, hooks: OrderedDict, key: int):
        self._hooks = hooks
        self.handle_id = key

    def remove(self) -> None:
        self._hooks.pop(self.handle_id, None)

    def __repr__(self) -> str:
        return f"HookHandle(id={self.handle_id})"


def _name(cell) -> str:
    return type(cell).__name__


def _fn_name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def _as_tuple(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def _identity_outputs(values: tuple) -> tuple:
    """Fresh Tensor objects over the same data (nodes need outputs distinct from inputs)."""
    return tuple(Tensor._wrap(v._data) if isinstance(v, Tensor) else v for v in values)


def _check_grads(replacement, expected: tuple, where: str) -> tuple:
    """A hook's replacement gradients: a tuple of Tensors matching ``expected`` in arity and shape."""
    got = _as_tuple(replacement) if isinstance(replacement, (tuple, Tensor)) else None
    if got is None:
        raise TypeError(f"{where} must return None or a tuple of Tensors, got "
                        f"{type(replacement).__name__}")
    if len(got) != len(expected):
        raise ValueError(f"{where} returned {len(got)} gradient(s), expected {len(expected)}")
    for i, (g, e) in enumerate(zip(got, expected)):
        if g is None:
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"{where}: gradient {i} must be a Tensor, got {type(g).__name__}")
        if e is not None and g.shape != e.shape:
            raise ValueError(f"{where}: gradient {i} has shape {list(g.shape)}, expected "
                             f"{list(e.shape)}")
    return got


def _zeros_for(values: tuple, douts) -> tuple:
    from graphcell_ir.ops import functional as F
    return tuple(F.zeros_like(v) if d is None and isinstance(v, Tensor) else d
                 for v, d in zip(values, douts))


# --- HookBackward ------------------------------------------------------------------------------

class HookBackward:
    """``ops.HookBackward(hook_fn)``: identity forward; ``hook_fn(grads)`` sees (and may replace)
    the gradient flowing back through it.

    Example::

        hook = ops.HookBackward(lambda g: print("grad:", g))
        z = hook(x * y)      # prints the gradient of z when differentiated
    """

    def __init__(self, hook_fn: Callable, cell_id: str = ""):
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be callable, got {type(hook_fn).__name__}")
        self.hook_fn = hook_fn
        self.cell_id = cell_id

    def __call__(self, *inputs):
        outputs = _identity_outputs(inputs)
        where = f"HookBackward hook {_fn_name(self.hook_fn)}"

        def backward(douts):
            grads = _zeros_for(outputs, douts)
            replaced = self.hook_fn(tuple(grads))
            return grads if replaced is None else _check_grads(replaced, grads, where)
        tape.record_custom(inputs, outputs, backward, "HookBackward")
        return outputs[0] if len(outputs) == 1 else outputs


# --- cell hooks --------------------------------------------------------------------------------

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
        return HookHandle(hooks, key)

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
        back_pre = list(self._hook_dict("backward_pre").values())
        back = list(self._hook_dict("backward").values())
        record = {}  # grad_output seen at the output boundary, for the backward hooks
        if back:
            inputs = self._input_boundary(inputs, back, record)
        if _has_custom_bprop(self):
            out = _run_with_custom_bprop(self, inputs, kwargs, run)
        else:
            out = run(*inputs, **kwargs)
        out = self._run_forward_hooks(inputs, out)
        if back_pre or back:
            out = self._output_boundary(out, back_pre, record)
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

    def _output_boundary(self, out, back_pre: list, record: dict):
        values = _as_tuple(out)
        outputs = _identity_outputs(values)

        def backward(douts):
            grads = _zeros_for(values, douts)
            for fn in back_pre:
                replaced = fn(self, tuple(grads))
                if replaced is not None:
                    grads = _check_grads(replaced, grads, f"{_name(self)} backward-pre hook {_fn_name(fn)}")
            record["grad_output"] = tuple(grads)
            return grads
        tape.record_custom(values, outputs, backward, f"{_name(self)}:output")
        return outputs if isinstance(out, tuple) else outputs[0]

    def _input_boundary(self, inputs: tuple, back: list, record: dict) -> tuple:
        outputs = _identity_outputs(inputs)

        def backward(douts):
            grads = _zeros_for(inputs, douts)
            grad_output = record.get("grad_output", ())
            for fn in back:
                replaced = fn(self, tuple(grads), grad_output)
                if replaced is not None:
                    grads = _check_grads(replaced, grads, f"{_name(self)} backward hook {_fn_name(fn)}")
            return grads
        tape.record_custom(inputs, outputs, backward, f"{_name(self)}:input")
        return outputs


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
        grads = _check_grads(input_grads, inputs, where)
        grads = tuple(_cast_to(g, x) for g, x in zip(grads, inputs))
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


def _cast_to(g, x):
    if g is None or not isinstance(x, Tensor) or g.dtype == x.dtype:
        return g
    return g.astype(x.dtype)

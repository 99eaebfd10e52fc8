"""Gradients called in ``GRAPH_MODE``: ``ms.grad(net)(x)`` compiled as one IR function.

A :class:`~graphcell.autodiff.GradFunction` called in graph mode compiles a two-line function that
calls it, with the differentiated function's own parameter names::

    def gradient(x, label):
        return grad_fn(x, label)

so the frontend meets the call of a gradient function exactly as it does in ``construct`` or a
``@jit`` function (the resolver's ``GradCall``, compiled by ``graphcell_ir/frontend/grads.py``):
forward, backward and the Parameters written back form one IR function, run by the executor and
cached like any compiled call.

The cache is keyed by what is differentiated — the function or cell, the API and its options,
the positions, the weights (by identity), ``sens_param`` and ``has_aux`` — so
``ms.grad(net)(x)`` in a loop compiles once, although each ``ms.grad`` makes a new object. A
cell keeps its gradients' versions with its own (``graphcell.graph.cache_info(net)`` lists them).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> def f(x):
    ...     return ops.tanh(x).sum()
    >>> ms.set_context(mode=ms.GRAPH_MODE)
    >>> x = ms.Tensor(np.zeros(3, np.float32))
    >>> ms.grad(f)(x).asnumpy()
    array([1., 1., 1.], dtype=float32)
    >>> print(ms.grad(f).cache_log)
    grad.f: 0 hits, 1 compile
      compile 1: first call (x f32[3])
    >>> ms.set_context(mode=ms.PYNATIVE_MODE)
"""
from __future__ import annotations

import inspect
import linecache
import types
from typing import Callable

from graphcell.autodiff import GradFunction
from graphcell.graph.cache import Staged
from graphcell.graph.errors import user_facing
from graphcell.graph.jit import _GraphCache
from graphcell.graph.lowered import Lowered
from graphcell.graph.resolver import construct_of
from graphcell.nn.cell import Cell

__all__ = ["call", "lower", "staged"]

_TABLE = "_graphcell_gradients"
"""The attribute of a function (or gradient function) holding {request key: Staged}."""


@user_facing
def call(grad_fn, args: tuple):
    """``grad_fn(*args)`` in graph mode."""
    return staged(grad_fn)(args, {})


def lower(grad_fn, args: tuple) -> Lowered:
    """The IR of ``grad_fn(*args)``, compiled without running (``grad_fn.lower(*args)``)."""
    return staged(grad_fn).lower(args).lowered()


def staged(grad_fn) -> Staged:
    """The :class:`Staged` compiling ``grad_fn``'s calls (made on first use, then shared by every
    gradient function that differentiates the same thing the same way)."""
    request = grad_fn.request
    table = _table(request.fn, grad_fn)
    key = ("grad", getattr(request.fn, "__func__", None)) + request.key  # net vs net.construct
    s = table.get(key)
    if s is None:
        s = table[key] = Staged(_wrapper(grad_fn), None, _name(request))
    return s


def _table(fn, grad_fn) -> dict:
    """Where the gradients of ``fn`` keep their compiled versions: with the cell (its
    ``_graph_cache``), with the function (its ``__dict__``), else with ``grad_fn`` itself — never
    in a global table, so they go when ``fn`` goes."""
    owner = fn.__self__ if isinstance(fn, types.MethodType) else fn
    if isinstance(owner, Cell):
        cache = owner.__dict__.get("_graph_cache")
        if cache is None:
            cache = owner.__dict__["_graph_cache"] = _GraphCache()
        return cache
    d = getattr(fn, "__dict__", None) if not isinstance(fn, types.MethodType) else None
    if not isinstance(d, dict):
        d = grad_fn.__dict__
    return d.setdefault(_TABLE, {})


def _name(request) -> str:
    """``grad.Net``, ``value_and_grad.loss_fn``: the compiled function's name."""
    fn = request.fn
    if isinstance(fn, Cell):
        what = type(fn).__name__
    else:
        what = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or \
            type(fn).__name__
    what = what.split("<locals>.")[-1]
    what = "".join(ch if ch.isalnum() or ch in "._" else "_" for ch in what)
    return f"{request.api}.{what}"


# --- the wrapper ---------------------------------------------------------------------------------

def _wrapper(grad_fn) -> Callable:
    return _maker(_call_parameters(grad_fn.request))(grad_fn)


def _call_parameters(request) -> tuple[str, ...]:
    """The parameters of a gradient function's call: the differentiated function's, then
    ``sens`` with ``sens_param`` (``("*args",)`` when they cannot be written out)."""
    params = _parameters_of(request.fn)
    if request.sens_param and not any(p.startswith("*") for p in params):
        params = params + (_fresh("sens", params),)
    return params


def _parameters_of(fn) -> tuple[str, ...]:
    if isinstance(fn, GradFunction):   # a gradient of a gradient: its call's parameters
        return _call_parameters(fn.request)
    target, skip = (construct_of(fn), 1) if isinstance(fn, Cell) else (fn, 0)  # 1: self
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return ("*args",)
    out = []
    for p in list(sig.parameters.values())[skip:]:
        if p.kind is p.VAR_POSITIONAL:
            out.append(f"*{p.name}")
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
            out.append(p.name)
        else:  # defaults, keywords: the call passes what it is given
            return ("*args",)
    return tuple(out)


def _fresh(name: str, taken) -> str:
    while name in taken or "*" + name in taken:
        name = "_" + name
    return name


_makers: dict[tuple, Callable] = {}


def _maker(params: tuple[str, ...]) -> Callable:
    """``make(grad_fn)`` -> ``def gradient(<params>): return grad_fn(<params>)``, with its source
    registered in ``linecache`` so that the frontend can read it."""
    make = _makers.get(params)
    if make is None:
        arguments = ", ".join(params)
        source = (f"def _make(_graphcell_grad_fn):\n"
                  f"    def gradient({arguments}):\n"
                  f"        return _graphcell_grad_fn({arguments})\n"
                  f"    return gradient\n")
        filename = f"<graphcell: gradient ({arguments})>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace: dict = {}
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own four lines
        make = _makers[params] = namespace["_make"]
    return make

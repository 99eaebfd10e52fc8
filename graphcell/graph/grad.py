"""Gradients called in ``GRAPH_MODE``: ``ms.grad(net)(x)`` compiled as one IR function.

A :class:`~graphcell.autodiff.GradFunction` called in graph mode (or wrapped by ``ms.jit``) is
compiled through the frontend's direct entry (``graph/entry.py``): the frontend compiles the call
``grad_fn(x, label)`` exactly as it compiles that call in ``construct`` or a ``@jit`` function (the
resolver's ``GradCall``, ``graphcell_ir/frontend/grads.py``): forward, backward and the
Parameters written back form one IR function, run by the executor and cached like any compiled
call. The call binds its arguments as the differentiated function does (its parameter names name
the IR arguments), then ``sens`` with ``sens_param``.

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
import types

from graphcell.autodiff import GradFunction
from graphcell.graph.cache import Staged
from graphcell.graph.entry import Entry
from graphcell.graph.errors import user_facing
from graphcell.graph.cache import GraphCache
from graphcell.graph.lowered import Lowered
from graphcell.graph.resolver import construct_of
from graphcell.nn.cell import Cell

__all__ = ["call", "lower", "staged"]

_TABLE = "_graphcell_gradients"
"""The attribute of a function (or gradient function) holding {request key: Staged}."""


@user_facing
def call(grad_fn, args: tuple, kwargs: dict | None = None):
    """``grad_fn(*args, **kwargs)`` in graph mode."""
    return staged(grad_fn)(args, kwargs or {})


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
        s = table[key] = Staged(Entry(grad_fn, call_signature(request)), None, _name(request))
    return s


def _table(fn, grad_fn) -> dict:
    """Where the gradients of ``fn`` keep their compiled versions: with the cell (its
    ``_graph_cache``), with the function (its ``__dict__``), else with ``grad_fn`` itself — never
    in a global table, so they go when ``fn`` goes."""
    owner = fn.__self__ if isinstance(fn, types.MethodType) else fn
    if isinstance(owner, Cell):
        cache = owner.__dict__.get("_graph_cache")
        if cache is None:
            cache = owner.__dict__["_graph_cache"] = GraphCache()
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


# --- the call's signature ------------------------------------------------------------------------

def call_signature(request) -> inspect.Signature | None:
    """How a call of the gradient function binds its arguments: as the differentiated function's
    call, then ``sens`` with ``sens_param``; None when it cannot be read (``*args``)."""
    params = _parameters_of(request.fn)
    if params is None:
        return None
    if request.sens_param and not any(p.kind is p.VAR_POSITIONAL for p in params):
        names = {p.name for p in params}
        keywords = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD)
        sens = inspect.Parameter(_fresh("sens", names), inspect.Parameter.POSITIONAL_OR_KEYWORD)
        params = [p for p in params if p.kind not in keywords] + [sens] + \
            [p for p in params if p.kind in keywords]
    try:
        return inspect.Signature(params)
    except ValueError:   # sens after parameters with defaults: bind by position only
        return None


def _parameters_of(fn) -> list | None:
    if isinstance(fn, GradFunction):   # a gradient of a gradient: its call's parameters
        sig = call_signature(fn.request)
        return None if sig is None else list(sig.parameters.values())
    if isinstance(fn, Cell):
        fn = construct_of(fn)
        try:
            return list(inspect.signature(fn).parameters.values())[1:]
        except (TypeError, ValueError):
            return None
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None


def _fresh(name: str, taken) -> str:
    while name in taken:
        name = "_" + name
    return name

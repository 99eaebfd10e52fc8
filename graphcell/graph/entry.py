"""The function graph mode compiles for a call of a cell that has forward hooks.

MindSpore 2.x runs a cell's forward-pre and forward hooks in graph mode too (DESIGN §10.4). The
frontend compiles hooks where a cell is *called* (its ``CellCall`` record), so the call of the
outermost cell is compiled as a function that calls it::

    def __call__(self, x, y):
        return self(x, y)

generated with ``construct``'s own parameter names (so the IR arguments keep them) and registered
with ``linecache`` (so the frontend can read its source like any other function).

Example::

    >>> from graphcell import nn
    >>> import inspect
    >>> print(inspect.getsource(hooked_call(nn.Dense(2, 2))), end="")
    def __call__(self, x):
        return self(x)
"""
from __future__ import annotations

import inspect
import linecache
from typing import Callable

from graphcell.graph.resolver import construct_of

__all__ = ["hooked_call"]

_made: dict[tuple, Callable] = {}


def hooked_call(cell) -> Callable:
    """``__call__(self, <construct's parameters>)`` calling the cell, hooks and all."""
    params = _parameters(construct_of(cell))
    fn = _made.get(params)
    if fn is None:
        fn = _made[params] = _make(params)
    return fn


def _parameters(construct) -> tuple[str, ...]:
    """construct's parameters after ``self``, as source text (``x``, ``y=None``, ``*inputs``)."""
    try:
        sig = inspect.signature(construct)
    except (TypeError, ValueError):
        return ("*inputs",)
    out = []
    for p in list(sig.parameters.values())[1:]:
        if p.kind is p.VAR_POSITIONAL:
            out.append(f"*{p.name}")
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            out.append(p.name)
        else:  # keyword-only and **kwargs: graph mode binds arguments by position
            return ("*inputs",)
    return tuple(out)


def _make(params: tuple[str, ...]) -> Callable:
    arguments = ", ".join(params)
    source = f"def __call__(self{', ' if params else ''}{arguments}):\n    return self({arguments})\n"
    filename = f"<graphcell: call with hooks ({arguments})>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own two lines
    fn = namespace["__call__"]
    fn.__module__ = __name__
    return fn

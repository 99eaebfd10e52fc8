"""Calls graph mode compiles without Python source of their own: :class:`Entry`.

Most compiled functions have source (``construct``, a ``@jit`` function). Two calls do not:

- a cell called with its forward hooks (MindSpore 2.x runs them in graph mode too, DESIGN
  §10.4): the frontend compiles hooks where a cell is *called*, so the outermost cell's call is
  compiled as the call ``cell(*inputs)``;
- a gradient function (``ms.grad(f)``, ``ms.value_and_grad(net, None, weights)``, a
  ``GradOperation`` of a network) called in GRAPH_MODE or through ``ms.jit(grad_fn)``, and any
  other callable object given to ``ms.jit`` (a cell).

An :class:`Entry` names the object and how its calls bind their arguments; the bridge hands it to
the frontend's direct entry (``graphcell_ir.frontend.compile_call``), which compiles the call as
it would compile the same call written in ``construct``.

Example::

    >>> from graphcell import nn
    >>> e = hooked_call(nn.Dense(2, 2))
    >>> e.arg_names, str(e.signature)
    (('x',), '(x)')
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from graphcell.graph.resolver import construct_of

__all__ = ["Entry", "hooked_call", "entry_of"]


@dataclass(frozen=True, eq=False)
class Entry:
    """The call ``target(*args, **kwargs)``, bound as ``signature`` binds (no ``self``)."""

    target: Any
    signature: inspect.Signature | None

    @property
    def arg_names(self) -> tuple[str, ...]:
        """The names of the positional parameters (the IR arguments' names)."""
        if self.signature is None:
            return ()
        return tuple(p.name for p in self.signature.parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))

    @property
    def __name__(self) -> str:
        return getattr(self.target, "__name__", None) or type(self.target).__name__


def hooked_call(cell) -> Entry:
    """The call of ``cell`` itself, hooks and all, with ``construct``'s parameters."""
    return Entry(cell, _without_self(construct_of(cell)))


def entry_of(obj) -> Entry:
    """The call of a callable object (a gradient function, a cell), bound by its signature."""
    if hasattr(type(obj), "construct"):
        return hooked_call(obj)
    signature = getattr(obj, "call_signature", None)
    if signature is None:
        try:
            signature = inspect.signature(obj)
        except (TypeError, ValueError):
            signature = None
    return Entry(obj, signature)


def _without_self(construct) -> inspect.Signature | None:
    try:
        sig = inspect.signature(construct)
    except (TypeError, ValueError):
        return None
    return sig.replace(parameters=list(sig.parameters.values())[1:])

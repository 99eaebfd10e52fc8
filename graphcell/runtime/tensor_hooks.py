"""``Tensor.register_hook`` on the tape (PyNative): the hooks a gradient sees at a tensor.

A hook on a tensor the tape tracks lives on an identity node inserted after the tensor's
producer (:func:`register`); a hook on a tensor no gradient call tracks yet (an input) waits in
a table until a gradient call differentiates that tensor (:func:`apply_registered_hooks`, called
by ``graphcell.autodiff`` for each leaf it makes). ``ops/function/other_func.py`` installs the
``Tensor.register_hook`` method on top of this.

Example::

    >>> import graphcell as ms
    >>> seen = []
    >>> x = ms.Tensor([1.0, 2.0])
    >>> handle = register(x, lambda g: seen.append(g.asnumpy().tolist()))
    >>> _ = ms.grad(lambda t: (t * 3).sum())(x); seen
    [[3.0, 3.0]]
    >>> handle.remove()
"""
from __future__ import annotations

import itertools
import weakref

from graphcell.runtime.tape import Node
from graphcell.tensor import Tensor
from graphcell_ir.ops import functional as F


class _TensorHooks:
    """The backward of a hook node: the gradient arriving at a tensor, through its hooks in
    registration order (a hook returning None keeps the gradient), passed on unchanged in type."""

    __slots__ = ("hooks",)

    def __init__(self):
        self.hooks: dict[int, object] = {}

    def __call__(self, douts):
        g = douts[0]
        for hook in list(self.hooks.values()):
            new = hook(g)
            if new is not None:
                if not isinstance(new, Tensor) or tuple(new.shape) != tuple(g.shape):
                    raise ValueError(f"Tensor.register_hook: the hook must return None or a "
                                     f"Tensor of shape {list(g.shape)}, got {new!r}")
                g = F.cast_like(new, g)
        return (g,)


class _TensorHookHandle:
    """What ``Tensor.register_hook`` returns: ``remove()`` unregisters that hook."""

    def __init__(self, table: dict, key: int):
        self._table, self._key = table, key

    def remove(self) -> None:
        self._table.pop(self._key, None)


_hook_ids = itertools.count()
_pending_hooks: dict[int, tuple] = {}
"""``id(tensor) -> (weak reference, hooks)``: hooks registered on tensors no gradient call tracks
yet (inputs). Keyed by identity (a Tensor's ``==`` is elementwise); an entry goes with its
tensor."""


def _pending_table(t: Tensor) -> dict:
    key = id(t)
    entry = _pending_hooks.get(key)
    if entry is None or entry[0]() is not t:
        entry = _pending_hooks[key] = (weakref.ref(t, lambda _, k=key: _pending_hooks.pop(k, None)),
                                       {})
    return entry[1]


def _hook_node(t: Tensor) -> _TensorHooks:
    """The hook node of tracked tensor ``t``, made on first use: ``t`` becomes the output of an
    identity node whose input is a stand-in for t as its producer made it. The node's place in
    the backward order is just after the producer's (``seq`` + 0.5), so every consumer of ``t``
    has given its gradient before the hooks see the sum."""
    node = t._node
    if isinstance(node.backward, _TensorHooks):
        return node.backward
    stand_in = Tensor._wrap(t._data)
    stand_in._node = node
    node.outputs = tuple(stand_in if o is t else o for o in node.outputs)
    hooks = _TensorHooks()
    hook_node = Node((stand_in,), (t,), hooks, "register_hook")
    hook_node.seq = node.seq + 0.5
    t._node = hook_node
    return hooks


def apply_registered_hooks(original: Tensor, leaf: Tensor) -> None:
    """Called by the gradient functions for each input they differentiate: hooks registered on
    the user's tensor ``original`` before the call act on its leaf ``leaf``."""
    entry = _pending_hooks.get(id(original))
    if entry is not None and entry[0]() is original and entry[1]:
        hooks = _hook_node(leaf).hooks
        for key, hook in entry[1].items():
            hooks[key] = hook


def register(t: Tensor, hook) -> _TensorHookHandle:
    """Add ``hook(grad)`` to tensor ``t`` (see the module docstring); the handle removes it."""
    key = next(_hook_ids)
    if t._node is not None:
        table = _hook_node(t).hooks
    else:  # not tracked yet: a later gradient call that differentiates this tensor applies it
        table = _pending_table(t)
    table[key] = hook
    return _TensorHookHandle(table, key)

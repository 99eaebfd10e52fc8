"""The warnings graph mode gives, each once: hooks that do not run in a compiled call yet.

DESIGN §10.4: forward-pre and forward hooks run in graph mode (they are compiled in);
``HookBackward`` and backward hooks will once the hooks-in-graphs work lands. Until then a compiled
call ignores them and says so — once per cell (or per ``HookBackward`` object), not per call.

Example::

    >>> import warnings
    >>> from graphcell import nn
    >>> relu = nn.ReLU(); _ = relu.register_backward_hook(lambda c, gi, go: None)
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     backward_hooks(relu); backward_hooks(relu)
    >>> len(w), "ReLU" in str(w[0].message)
    (1, True)
"""
from __future__ import annotations

import os
import sys
import warnings
import weakref

__all__ = ["GraphModeWarning", "backward_hooks", "hook_backward"]


class GraphModeWarning(UserWarning):
    """Something in a compiled call behaves differently from PyNative mode."""


_warned: "weakref.WeakSet" = weakref.WeakSet()


def _once(obj, message: str) -> None:
    try:
        if obj in _warned:
            return
        _warned.add(obj)
    except TypeError:  # not weak-referenceable: warn every time rather than never
        pass
    warnings.warn(message, GraphModeWarning, stacklevel=_user_stacklevel())


_LIBRARY_DIRS = tuple(os.path.dirname(os.path.abspath(sys.modules[name].__file__)) + os.sep
                      for name in ("graphcell", "graphcell_ir"))


def _user_stacklevel() -> int:
    """The stacklevel of the innermost frame outside graphcell and graphcell_ir (the user's call)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARY_DIRS):
        frame, level = frame.f_back, level + 1
    return level


_messages: set[str] = set()


def once_per_message(message: str, category: type = UserWarning) -> None:
    """Warn with ``message`` unless it was given before (the warnings of a compile: the frontend
    gives them each time it compiles the code). Frontend warnings become GraphModeWarnings."""
    if message not in _messages:
        _messages.add(message)
        if category is UserWarning:
            category = GraphModeWarning
        warnings.warn(message, category, stacklevel=_user_stacklevel())


def backward_hooks(cell) -> None:
    """Warn (once for ``cell``) that its backward hooks do not run in graph mode yet."""
    _once(cell, f"{type(cell).__name__}: backward hooks (register_backward_hook / "
                f"register_backward_pre_hook) do not run in graph mode yet; the compiled call "
                f"ignores them. Use PyNative mode to see the gradients at this cell.")


def hook_backward(hook, root=None) -> None:
    """Warn (once for ``hook``) that ``ops.HookBackward`` is an identity in graph mode for now."""
    fn = getattr(hook, "hook_fn", None)
    name = getattr(fn, "__qualname__", None) or repr(fn)
    where = f" in {type(root).__name__}" if root is not None else ""
    _once(hook, f"ops.HookBackward({name}){where} does not run its hook in graph mode yet; the "
                f"compiled call treats it as the identity. Use PyNative mode to see the gradient.")

"""The warnings graph mode gives: the frontend's, once per message (not once per compile).

Every hook runs in graph mode now (DESIGN §10.4: forward-pre and forward hooks are compiled in;
``HookBackward`` and backward hooks run as host callbacks of the gradient), so what is left here
is the plumbing that turns a compile's warnings into :class:`GraphModeWarning` at the user's line.

Example::

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     once_per_message("a doctest warning"); once_per_message("a doctest warning")
    >>> len(w), w[0].category.__name__
    (1, 'GraphModeWarning')
"""
from __future__ import annotations

import os
import sys
import threading
import warnings

__all__ = ["GraphModeWarning", "once_per_message"]


class GraphModeWarning(UserWarning):
    """Something in a compiled call behaves differently from PyNative mode."""


_LIBRARY_DIRS = tuple(os.path.dirname(os.path.abspath(sys.modules[name].__file__)) + os.sep
                      for name in ("graphcell", "graphcell_ir"))


def _user_stacklevel() -> int:
    """The stacklevel of the innermost frame outside graphcell and graphcell_ir (the user's call)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARY_DIRS):
        frame, level = frame.f_back, level + 1
    return level


_messages: set[str] = set()
_lock = threading.Lock()   # compiles in several threads give their warnings once between them


def once_per_message(message: str, category: type = UserWarning) -> None:
    """Warn with ``message`` unless it was given before (the warnings of a compile: the frontend
    gives them each time it compiles the code). Frontend warnings become GraphModeWarnings."""
    with _lock:
        first = message not in _messages
        _messages.add(message)
    if first:
        if category is UserWarning:
            category = GraphModeWarning
        warnings.warn(message, category, stacklevel=_user_stacklevel())

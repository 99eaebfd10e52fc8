"""How graph-mode errors reach the user: the message carries the location, not the traceback.

A compile error (the ``GraphCompileError`` family) names the user's file, line and column and
shows the source line with a caret; an error while running (an index out of range in ``take``...)
names the op and the user's line. Neither needs the frames of the compiler or the interpreter, so
:func:`without_frames` drops them, from the error and from its causes, before it is raised again.

Example::

    >>> try:
    ...     raise ValueError("inner")
    ... except ValueError as inner:
    ...     err = RuntimeError("outer"); err.__cause__ = inner
    >>> without_frames(err).__cause__.__traceback__ is None
    True
"""
from __future__ import annotations

__all__ = ["without_frames"]


def without_frames(e: BaseException) -> BaseException:
    """``e`` with no traceback, nor on its causes (kept as objects: ``e.__cause__``)."""
    seen = set()
    cause = e.__cause__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        cause.__traceback__ = None
        cause = cause.__cause__
    return e.with_traceback(None)

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

import functools

from graphcell_ir.errors import GraphcellError

__all__ = ["without_frames", "user_facing"]


def without_frames(e: BaseException) -> BaseException:
    """``e`` with no traceback, nor on its causes (kept as objects: ``e.__cause__``)."""
    seen = set()
    cause = e.__cause__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        cause.__traceback__ = None
        cause = cause.__cause__
    return e.with_traceback(None)


def user_facing(fn):
    """Decorate graph mode's entry points (a cell call, a jit call, a compiled gradient): a
    graphcell error leaves them without the compiler's frames, so the traceback is the user's
    call and the message, which names the user's file, line and source (as JAX filters its
    internal frames)."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except GraphcellError as e:
            raise without_frames(e) from e.__cause__
    return entry

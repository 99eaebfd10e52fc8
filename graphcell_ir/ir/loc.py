"""Source locations of IR ops: a frozen frame with its chain of inlined call sites.

A ``Loc`` is where an op came from: ``file:line:col``, the scope chain of functions that were
inlined to reach it (``LeNet5.construct>Conv2d.construct``), the ``caller`` frame it was inlined
into (MLIR's ``CallSiteLoc``), and ``marks``: small tags such as ``"lib"`` (framework code, hidden
by the default ``locs="user"`` printing) and ``"grad"`` (an op that autodiff created for the op
at this location; a gradient of a gradient has it twice).

Example::

    >>> dense = Loc("nn/basic.py", 120, 8, ("Dense.construct",), marks=(LIB,))
    >>> site = Loc("net.py", 9, 16, ("Net.construct",))
    >>> inner = dense.inlined_at(site)
    >>> inner.scope, inner.user_frame() is inner.caller
    (('Net.construct', 'Dense.construct'), True)
    >>> str(inner.with_mark(GRAD))
    'net.py:9:16 Net>Dense [grad]'
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Iterator

LIB = "lib"
"""Mark of a frame in framework code (graphcell's own layers); ``locs="user"`` skips it."""
GRAD = "grad"
"""Mark of an op created by autodiff for the op at this location."""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Loc:
    """One source frame, with the frame it was inlined into as ``caller``.

    A chain of callers may be as long as the text that spells it (a parsed ``loc(...)`` of
    hundreds of frames): equality, hashing, ``repr`` and inlining walk it in a loop, never by
    recursion (the dataclass's own methods raised RecursionError at ~500 frames)."""

    file: str
    line: int
    col: int = 0
    scope: tuple[str, ...] = ()
    caller: Loc | None = None
    marks: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        """False only for ``UNKNOWN`` (and locations equal to it)."""
        return not (self.line == 0 and self.file == "" and self.col == 0 and self.caller is None
                    and not self.scope and not self.marks)

    def frames(self) -> Iterator[Loc]:
        """This frame, then its callers outwards."""
        loc: Loc | None = self
        while loc is not None:
            yield loc
            loc = loc.caller

    def user_frame(self) -> Loc:
        """The innermost frame not marked ``lib`` (the innermost frame when all are)."""
        for f in self.frames():
            if LIB not in f.marks:
                return f
        return self

    def inlined_at(self, call_site: Loc) -> Loc:
        """This loc as seen after inlining its function at ``call_site``.

        Every frame gets the call site's scope in front of its own, and the outermost frame gets
        ``call_site`` as its caller.
        """
        if not self.known:
            return call_site
        loc = call_site
        for f in reversed(list(self.frames())):   # outermost first: each becomes the next's caller
            loc = replace(f, scope=call_site.scope + f.scope, caller=loc)
        return loc

    def _fields(self) -> tuple:
        return (self.file, self.line, self.col, self.scope, self.marks)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Loc):
            return NotImplemented
        a, b = self, other
        while a is not b:
            if a is None or b is None or a._fields() != b._fields():
                return False
            a, b = a.caller, b.caller
        return True

    def __hash__(self) -> int:
        return hash(tuple(f._fields() for f in self.frames()))

    def __repr__(self) -> str:
        return f"Loc({format_loc(self, 'full')!r})"

    def with_mark(self, mark: str) -> Loc:
        """The same location with ``mark`` added (``loc.with_mark(GRAD)`` for backward ops)."""
        return replace(self, marks=self.marks + (mark,))

    def __str__(self) -> str:
        """The ``locs="user"`` spelling, as inside ``loc(...)`` in the text form."""
        return format_loc(self, "user")


UNKNOWN = Loc("", 0)
"""The location of ops whose origin is not known (text printed with ``locs="none"``)."""


def format_loc(loc: Loc, mode: str = "user") -> str:
    """The text inside ``loc(...)``: ``mode`` is ``"user"`` (the user's frame, its file's base
    name, the innermost scope chain and marks; the chain is shortened as
    :func:`_short_scope` says, ``LeNet5>Dense``, so the line stays short) or ``"full"`` (every frame, exactly, ``<-``
    between them)."""
    if mode == "full":
        return " <- ".join(_frame(f, f.file, f.scope, f.marks) for f in loc.frames())
    user = loc.user_frame()
    marks = tuple(m for m in loc.marks if m != LIB)
    return _frame(user, os.path.basename(user.file) or user.file, _short_scope(loc.scope), marks)


def _short_scope(scope: tuple[str, ...]) -> tuple[str, ...]:
    """The user view's scope chain: ``Net.construct`` is ``Net``, and a method of the class
    just before it is ``.method`` (``Loss.construct>Loss.get_loss`` is ``Loss>.get_loss``)."""
    out, owner = [], None
    for s in scope:
        cls, dot, method = s.rpartition(".")
        if dot and cls and method == "construct":
            out.append(cls)
        elif dot and cls and cls == owner:
            out.append("." + method)
        else:
            out.append(s)
        owner = cls if dot else None
    return tuple(out)


def _frame(f: Loc, file: str, scope: tuple[str, ...], marks: tuple[str, ...]) -> str:
    out = f"{_word(file, _is_path)}:{f.line}:{f.col}"
    if scope:
        out += " " + ">".join(_word(s, _is_ident) for s in scope)
    if marks:
        out += " [" + ",".join(_word(m, _is_ident) for m in marks) + "]"
    return out


_PATH = re.compile(r"[A-Za-z0-9_./\\+\-~]+")
_IDENT = re.compile(r"[A-Za-z0-9_.]+")


def _is_path(s: str) -> bool:
    return _PATH.fullmatch(s) is not None


def _is_ident(s: str) -> bool:
    return _IDENT.fullmatch(s) is not None


def _word(s: str, bare) -> str:
    """``s`` as is when ``bare(s)``, else as a JSON string (quotes, escapes)."""
    if bare(s):
        return s
    import json
    return json.dumps(s)  # ASCII-only, so the text stays one op per line

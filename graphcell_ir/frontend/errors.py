"""Diagnostics of the frontend: what went wrong, where, shown the way users wish compilers did.

The frontend never stops at the first problem. Each problem becomes a :class:`Diagnostic` (a
message, a kind and a source location with its chain of inlined calls); compilation goes on past
it where that makes sense, and at the end :func:`raise_diagnostics` raises one
``GraphSyntaxError`` / ``GraphTypeError`` / ``GraphValueError`` / ``GraphCompileError`` that lists
them all. Inside the frontend a problem travels as :class:`FrontendError` up to the statement
being compiled, which records it and goes on with the next statement.

A diagnostic prints as::

    net.py:14:9: 'try' statement is not supported in graph mode
        try:
        ^~~~
      in Net.construct

and, for code reached through inlined calls, with the call sites::

    layers.py:30:15: MatMul: shapes [4,3] and [2,5] do not fit (3 != 2)
            x = ops.matmul(x, self.weight)
                ^~~~~~~~~~~~~~~~~~~~~~~~~~
      in Net.construct>Dense.construct
      called from net.py:12:13: y = self.fc(x)
"""
from __future__ import annotations

import enum
import linecache
import os
from dataclasses import dataclass

from graphcell_ir.errors import (GraphCompileError, GraphLimitError, GraphSyntaxError,
                                 GraphTypeError, GraphValueError, OpError, ShapeError)
from graphcell_ir.ir.loc import Loc


class Kind(enum.Enum):
    """What kind of problem; it decides the class of the error raised at the end."""

    LIMIT = "limit"               # -> GraphLimitError (wins over the others)
    UNSUPPORTED = "unsupported"   # -> GraphSyntaxError (wins over the rest)
    TYPE = "type"                 # -> GraphTypeError
    VALUE = "value"               # -> GraphValueError
    ERROR = "error"               # -> GraphCompileError


@dataclass(frozen=True, eq=False)
class Diagnostic:
    """One problem: ``message`` at ``loc`` (file, 1-based line and column, scope chain, callers).

    ``end_col`` (exclusive, 1-based) extends the caret over the construct on its line;
    ``source_line`` is the line as written in the file; ``cause`` is the internal exception, if any.
    """

    message: str
    loc: Loc
    kind: Kind = Kind.ERROR
    end_col: int = 0
    source_line: str = ""
    cause: BaseException | None = None

    @property
    def file(self) -> str:
        return self.loc.file

    @property
    def line(self) -> int:
        return self.loc.line

    @property
    def col(self) -> int:
        return self.loc.col

    def format(self) -> str:
        loc = self.loc
        out = [f"{_short(loc.file)}:{loc.line}:{loc.col}: {self.message}"]
        src = self.source_line or _line_of(loc.file, loc.line)
        if src:
            out += _caret(src, loc.col, self.end_col)
        if loc.scope:
            out.append("  in " + ">".join(loc.scope))
        caller = loc.caller
        while caller is not None:
            text = _line_of(caller.file, caller.line).strip()
            out.append(f"  called from {_short(caller.file)}:{caller.line}:{caller.col}"
                       + (f": {text}" if text else ""))
            caller = caller.caller
        return "\n".join(out)

    def __str__(self) -> str:
        return self.format()


class FrontendError(Exception):
    """A problem found while compiling, on its way to the statement that records it.

    ``raised``: the problem is an exception Python code raised while compiling (a ``raise``, a
    failing ``assert``, a check in a called function), so in Python the rest of the function
    would not run: the statement that records it raises :class:`RaisedAbort`, which unwinds to
    the function being compiled, so what would only follow from the same mistake is not
    reported again.

    Internal to the frontend: users only ever see the GraphCompileError family.
    """

    def __init__(self, diagnostic: Diagnostic, raised: bool = False):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.raised = raised


class CompileAbort(Exception):
    """A problem after which compiling cannot usefully go on (a limit was reached): it is not
    recorded per statement but ends the compile with its diagnostic."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class PoisonAbort(Exception):
    """The statement being compiled depends on a problem already reported: abandon it quietly
    (its names are poisoned, nothing more is reported)."""


class RaisedAbort(PoisonAbort):
    """Python code raised while compiling (``FrontendError.raised``): as the exception would in
    Python, this unwinds every function up to the one being compiled, poisoning each statement
    on the way without reporting anything more."""


def kind_of(exc: BaseException) -> Kind:
    """The diagnostic kind for an exception raised by an op's shape rule or by user code."""
    if isinstance(exc, ShapeError) or (isinstance(exc, ValueError)
                                       and not isinstance(exc, OpError)):
        return Kind.VALUE
    if isinstance(exc, TypeError):
        return Kind.TYPE
    return Kind.ERROR


def _short(path: str) -> str:
    """A path relative to the working directory when it is below it (shorter messages)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return rel if not rel.startswith("..") else path


def _line_of(file: str, line: int) -> str:
    return linecache.getline(file, line).rstrip("\n") if file and line > 0 else ""


def _caret(src: str, col: int, end_col: int) -> list[str]:
    """The source line (indented by 4) and a caret line under columns [col, end_col)."""
    text = src.expandtabs(1).rstrip()
    start = max(col - 1, 0)
    width = max(1, min(end_col, len(text) + 1) - col) if end_col > col else 1
    return ["    " + text, "    " + " " * start + "^" + "~" * (width - 1)]


def _dedupe(diags) -> list[Diagnostic]:
    """A problem found twice (a loop body compiled twice, a duplicated branch) is shown once."""
    seen, out = set(), []
    for d in diags:
        key = (d.message, d.loc.file, d.loc.line, d.loc.col, d.loc.scope)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def error_class(diags: list[Diagnostic]) -> type[GraphCompileError]:
    if any(d.kind is Kind.LIMIT for d in diags):
        return GraphLimitError
    if any(d.kind is Kind.UNSUPPORTED for d in diags):
        return GraphSyntaxError
    return {Kind.TYPE: GraphTypeError, Kind.VALUE: GraphValueError}.get(diags[0].kind,
                                                                         GraphCompileError)


def raise_diagnostics(diags, what: str) -> None:
    """Raise one error listing every diagnostic (``what`` names the function being compiled)."""
    diags = _dedupe(diags)
    if not diags:
        return
    if len(diags) == 1:
        message = diags[0].format()
    else:
        body = "\n\n".join(f"({i}) {d.format()}" for i, d in enumerate(diags, 1))
        message = f"{len(diags)} problems while compiling {what} for graph mode:\n\n{body}"
    err = error_class(diags)(message, diags)
    cause = next((d.cause for d in diags if d.cause is not None), None)
    if isinstance(cause, OpError):
        # a shape rule's frames say nothing the message does not: keep the error, not its frames
        cause = cause.with_traceback(None)
    raise err from cause

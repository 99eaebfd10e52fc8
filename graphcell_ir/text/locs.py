"""Reading the inside of ``loc(...)``: frames of ``FILE:LINE:COL SCOPE>SCOPE [MARK,MARK]``
joined by ``<-`` (innermost first), as :func:`graphcell_ir.ir.loc.format_loc` writes them.

File names, scope names and marks are bare when they need no quoting and JSON strings otherwise.
"""
from __future__ import annotations

import json
import re

from graphcell_ir.errors import IRParseError
from graphcell_ir.ir.loc import Loc
from graphcell_ir.text.lexer import Source, Token

_LOC_TOKEN = re.compile(r'(?P<WS>\s+)|(?P<ARROW><-)|(?P<STR>"(?:[^"\\\n]|\\.)*")'
                        r'|(?P<WORD>[A-Za-z0-9_./\\+\-~]+)|(?P<P>[:>\[\],])')


def read_loc(source: Source, tok: Token) -> Loc:
    """The Loc spelled by a ``LOC`` token; IRParseError pointing into it when malformed."""
    return _LocReader(source, tok).read()


class _LocReader:
    """Reads the inside of one ``loc(...)`` token."""

    def __init__(self, source: Source, tok: Token):
        self.src = source
        self.base = tok[2] + 4
        body = tok[1][4:-1]
        self.toks: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(body):
            m = _LOC_TOKEN.match(body, pos)
            if m is None:
                raise self.fail(pos, f"unexpected character {body[pos]!r} in a location")
            if m.lastgroup != "WS":
                self.toks.append((m.lastgroup, m.group(), pos))
            pos = m.end()
        self.toks.append(("END", "", len(body)))
        self.i = 0

    def fail(self, offset: int, message: str) -> IRParseError:
        return self.src.error(self.base + offset, message)

    def take(self, kind: str, what: str, text: str | None = None):
        tok = self.toks[self.i]
        if tok[0] != kind or (text is not None and tok[1] != text):
            found = "')'" if tok[0] == "END" else repr(tok[1])
            raise self.fail(tok[2], f"expected {what} in the location, found {found}")
        self.i += 1
        return tok

    def at(self, kind: str, text: str | None = None) -> bool:
        tok = self.toks[self.i]
        return tok[0] == kind and (text is None or tok[1] == text)

    def word(self, what: str) -> str:
        if self.at("STR"):
            tok = self.take("STR", what)
            try:
                return json.loads(tok[1])
            except ValueError:
                raise self.fail(tok[2], "bad quoted name in the location") from None
        return self.take("WORD", what)[1]

    def number(self, what: str) -> int:
        tok = self.take("WORD", what)
        if not tok[1].isdigit() or len(tok[1]) > 18:
            raise self.fail(tok[2], f"expected {what} in the location, found {tok[1]!r}")
        return int(tok[1])

    def frame(self) -> dict:
        f = {"file": self.word("a file name")}
        self.take("P", "':' and a line number", ":")
        f["line"] = self.number("a line number")
        f["col"] = 0
        if self.at("P", ":"):
            self.i += 1
            f["col"] = self.number("a column number")
        scope: list[str] = []
        if self.at("WORD") or self.at("STR"):
            scope.append(self.word("a scope name"))
            while self.at("P", ">"):
                self.i += 1
                scope.append(self.word("a scope name"))
        f["scope"] = tuple(scope)
        marks: list[str] = []
        if self.at("P", "["):
            self.i += 1
            marks.append(self.word("a mark"))
            while self.at("P", ","):
                self.i += 1
                marks.append(self.word("a mark"))
            self.take("P", "']'", "]")
        f["marks"] = tuple(marks)
        return f

    def read(self) -> Loc:
        frames = [self.frame()]
        while self.at("ARROW"):
            self.i += 1
            frames.append(self.frame())
        self.take("END", "'<-' or the end")
        loc = None
        for f in reversed(frames):
            loc = Loc(f["file"], f["line"], f["col"], f["scope"], loc, f["marks"])
        return loc

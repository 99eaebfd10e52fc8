"""Tokens of ``.gcir`` text, and ``IRParseError`` positions.

The format is line oriented: ``NL`` tokens end ops, headers and region openers. A line continues
on the next when it ends in ``,`` or ``(``, and when the next starts with ``)`` or ``loc(`` (no
``NL`` token between them), so the printer can keep lines short. ``//`` starts a comment that
runs to the end of the line. A location ``loc(...)`` is one ``LOC`` token (its inside
is read by the parser's location reader), because file paths do not follow the token rules of the
rest of the text.

Token kinds: ``NL``, ``VALUE`` (``%x``), ``SYMBOL`` (``@f``, ``@"any name"``), ``LOC``,
``STRING`` (JSON), ``FLOAT`` (``1.0``, ``1e-05``, ``-inf``, ``nan``), ``INT``, ``ARROW`` (``->``),
``ELLIPSIS`` (``...``), ``NAME`` and single-character ``PUNCT`` (``( ) { } [ ] , : =``), then
``EOF``. A token is a tuple ``(kind, text, offset)``.

Example::

    >>> [t[:2] for t in lex("%0 = neg(%x) : f32[2]")][:4]
    [('VALUE', '%0'), ('PUNCT', '='), ('NAME', 'neg'), ('PUNCT', '(')]
"""
from __future__ import annotations

import bisect
import re

from graphcell_ir.errors import IRParseError

_STR = r'"(?:[^"\\\n]|\\.)*"'
_TOKEN = re.compile(r"[ \t\r\f\v]*(?:" + "|".join([  # leading blanks are skipped in the same match
    r"(?P<NL>\n)",
    r"(?P<COMMENT>//[^\n]*)",
    r"(?P<VALUE>%[A-Za-z0-9_.]+)",
    rf"(?P<SYMBOL>@(?:[A-Za-z0-9_.]+|{_STR}))",
    rf"(?P<LOC>loc\((?:[^()\"\n]|{_STR})*\))",
    rf"(?P<STRING>{_STR})",
    r"(?P<FLOAT>-?(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+|inf\b)|nan\b)",
    r"(?P<INT>-?[0-9]+)",
    r"(?P<ARROW>->)",
    r"(?P<ELLIPSIS>\.\.\.)",
    r"(?P<NAME>[A-Za-z_][A-Za-z0-9_]*)",
    r"(?P<PUNCT>[(){}\[\],:=])",
    r"(?P<END>\Z)",
]) + ")")

Token = tuple  # (kind, text, offset)
_CONTINUES_AFTER = (",", "(")   # a line ending in one of these goes on


class Source:
    """The text being parsed, for turning offsets into line, column and the line itself."""

    def __init__(self, text: str, filename: str = "<string>"):
        self.text = text
        self.filename = filename
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int, str]:
        """1-based line and column of ``offset``, and that line's text."""
        i = bisect.bisect_right(self._starts, offset) - 1
        start = self._starts[i]
        end = self.text.find("\n", start)
        line_text = self.text[start:] if end < 0 else self.text[start:end]
        return i + 1, offset - start + 1, line_text

    def error(self, offset: int, message: str) -> IRParseError:
        line, col, text = self.position(offset)
        return IRParseError(message, filename=self.filename, line=line, col=col,
                            source_line=text.expandtabs(1))


def lex(text: str, source: Source | None = None) -> list[Token]:
    """The tokens of ``text`` (whitespace and comments dropped), ending with ``EOF``."""
    source = source or Source(text)
    out: list[Token] = []
    append = out.append
    match = _TOKEN.match
    pos, n = 0, len(text)
    while pos < n:
        m = match(text, pos)
        if m is None:
            pos += len(text[pos:]) - len(text[pos:].lstrip(" \t\r\f\v"))
            raise source.error(pos, _bad_char_message(text, pos))
        kind = m.lastgroup
        if kind == "END":
            break
        if kind != "COMMENT":
            start = m.start(kind)
            if kind == "NAME" and m.group(kind) == "loc" and text.startswith("loc(", start):
                raise source.error(start, "unterminated location: expected loc(...) closed on the "
                                          "same line")
            if kind == "NL" and out and out[-1][0] == "PUNCT" and out[-1][1] in _CONTINUES_AFTER:
                pos = m.end()
                continue
            if kind == "LOC" or (kind == "PUNCT" and m.group(kind) == ")"):
                while out and out[-1][0] == "NL":   # a continuation line
                    out.pop()
            append((kind, m.group(kind), start))
        pos = m.end()
    append(("EOF", "", n))
    return out


def _bad_char_message(text: str, pos: int) -> str:
    c = text[pos]
    if c == '"':
        return "unterminated string: expected a closing '\"' on the same line"
    if c == "@":
        return "expected a function or object name after '@'"
    if c == "%":
        return "expected a value name after '%' (letters, digits, '_' or '.')"
    return f"unexpected character {c!r}"

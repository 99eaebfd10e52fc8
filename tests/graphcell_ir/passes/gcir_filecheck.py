"""A small FileCheck (the subset LLVM/MLIR pass tests use) for ``.gcir`` pass goldens.

Directives are ``//`` comment lines of the golden file, so the IR parser ignores them::

    // RUN: simplify,dce          passes/pipelines to run, as for ``python -m graphcell_ir -p``
    // LOCS: user                 how to print the output (default: none)
    // CHECK: text                found on a line at or after the previous match
    // CHECK-NEXT: text           found on the line right after the previous match
    // CHECK-SAME: text           found on the same line, after the previous match
    // CHECK-NOT: text            absent between the previous match and the next one (or the end)
    // CHECK-LABEL: text          like CHECK
    // CHECK-EMPTY:               the next line is empty

Patterns are literal text, except ``{{regex}}``; runs of blanks match any run of blanks, and
blanks at either end of a pattern are ignored.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_DIRECTIVE = re.compile(
    r"^\s*//\s*(CHECK-NEXT|CHECK-NOT|CHECK-SAME|CHECK-LABEL|CHECK-EMPTY|CHECK|RUN|LOCS):(.*)$")


class CheckFailure(AssertionError):
    """A CHECK directive did not hold; the message shows where in the output."""


@dataclass(frozen=True)
class Check:
    kind: str
    pattern: str
    line: int  # in the golden file, 1-based

    @property
    def regex(self) -> re.Pattern:
        return pattern_regex(self.pattern)

    def __str__(self) -> str:
        return f"line {self.line}: // {self.kind}: {self.pattern}"


@dataclass
class Golden:
    run: str = ""
    locs: str = "none"
    checks: list[Check] = field(default_factory=list)


def parse_golden(text: str) -> Golden:
    g = Golden()
    for i, line in enumerate(text.splitlines(), start=1):
        m = _DIRECTIVE.match(line)
        if not m:
            continue
        kind, rest = m.group(1), m.group(2).strip()
        if kind == "RUN":
            g.run = rest
        elif kind == "LOCS":
            g.locs = rest
        else:
            g.checks.append(Check(kind, rest, i))
    return g


def pattern_regex(pattern: str) -> re.Pattern:
    parts = re.split(r"\{\{(.*?)\}\}", pattern.strip())
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"(?:{part})")
        else:
            out.append(r"\s+".join(re.escape(w) for w in re.split(r"\s+", part)))
    return re.compile("".join(out))


def check(output: str, checks: list[Check]) -> None:
    """Raise CheckFailure unless ``output`` satisfies ``checks`` in order."""
    if not any(c.kind != "CHECK-NOT" for c in checks):
        raise CheckFailure("the golden has no positive CHECK directive")
    lines = output.splitlines()
    line, col = 0, 0          # where the next search starts
    last_line = -1            # the line of the previous match
    nots: list[Check] = []
    for c in checks:
        if c.kind == "CHECK-NOT":
            nots.append(c)
            continue
        if c.kind in ("CHECK", "CHECK-LABEL"):
            found = _search(lines, line, col, c.regex)
        elif c.kind == "CHECK-NEXT":
            found = _at(lines, last_line + 1, 0, c.regex)
        elif c.kind == "CHECK-SAME":
            found = _at(lines, last_line, col, c.regex)
        else:  # CHECK-EMPTY
            n = last_line + 1
            found = (n, 0, 0) if n < len(lines) and not lines[n].strip() else None
        if found is None:
            raise CheckFailure(_explain(f"{c} did not match", lines, last_line, output))
        _no_forbidden(nots, lines, (line, col), found[:2], output)
        nots = []
        last_line, line, col = found[0], found[0], found[2]
    _no_forbidden(nots, lines, (line, col), (len(lines), 0), output)


def _search(lines, line, col, regex):
    for n in range(line, len(lines)):
        found = _at(lines, n, col if n == line else 0, regex)
        if found:
            return found
    return None


def _at(lines, n, col, regex):
    if not 0 <= n < len(lines):
        return None
    m = regex.search(lines[n], col)
    return (n, m.start(), m.end()) if m else None


def _no_forbidden(nots, lines, start, end, output) -> None:
    for c in nots:
        for n in range(start[0], min(end[0] + 1, len(lines))):
            lo = start[1] if n == start[0] else 0
            hi = end[1] if n == end[0] else len(lines[n])
            if c.regex.search(lines[n][lo:hi]):
                raise CheckFailure(_explain(f"{c} matched", lines, n, output))


def _explain(what: str, lines, near: int, output: str) -> str:
    marked = "\n".join((">> " if i == near else "   ") + text for i, text in enumerate(lines))
    return f"{what} (>> marks the last line matched)\noutput:\n{marked}"

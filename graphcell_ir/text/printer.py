"""The ``.gcir`` printer: one op per line, types on every value, the loc last.

::

    func @Net.construct(%x: f32[4,3], %fc.weight: f32[2,3] param) -> f32[4,2] {
      %0 = matmul(%x, %fc.weight) {transpose_a=false, transpose_b=true} : f32[4,2]
          loc(net.py:9:16 Net.construct>Dense.construct)
      %c = greater(%0, 0.0:f32) : bool[4,2]  loc(net.py:10:11 Net.construct)
      return %0
    }

The text fits a screen: ``width`` (default :data:`WIDTH`, 100 columns) is the length a line
aims at. An op's location goes at the end of its line when it fits there, else on the next
line, indented under the op; an op longer than the width continues after a comma on lines
indented four more; a function header longer than the width puts one argument per line. The
lexer reads these continuations back (a line that ends in ``,`` or ``(``, or that starts with
``)`` or ``loc(``, continues the one before), so the layout never changes what parses.
``width=None`` prints every op on one line, whatever its length.

Names are chosen here and nowhere else, deterministically: each value takes its (sanitised)
``name_hint`` if no earlier value in text order took it, else the hint with ``_1``, ``_2``...;
values without a hint are numbered ``%0, %1, ...`` in text order. Parameters come first because
arguments are printed first. Attributes are printed sorted by key and complete (defaults too).

``locs`` selects how locations print: ``"user"`` (default: the user's frame and the scope chain),
``"full"`` (every inlined frame; round-trips exactly) or ``"none"``. ``hints=False`` ignores name
hints except on function arguments (canonical text, for cache keys and diffs).

Example::

    >>> from graphcell_ir.text import parse_module, print_module
    >>> text = "func @f(%x: f32[2]) -> f32[2] {\\n  %0 = neg(%x) : f32[2]\\n  return %0\\n}\\n"
    >>> print_module(parse_module(text)) == text
    True
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from graphcell_ir.ir.loc import format_loc
from graphcell_ir.text.values import (ObjectNames, format_attr, format_float, format_symbol,
                                      sanitize_name)

if TYPE_CHECKING:   # the printer reads IR objects; ir/core imports it for str(function)
    from graphcell_ir.ir.core import Block, Function, Literal, Module, Op, Value

LOC_MODES = ("user", "full", "none")
WIDTH = 100
"""The line length the printer aims at (``width=None``: one line per op, however long)."""
_UNKNOWN_TEXT = '"":0:0'
_CONTINUE = "    "   # what a continuation line is indented by, beyond its op


def print_module(m: Module, locs: str = "user", hints: bool = True,
                 width: int | None = WIDTH) -> str:
    """The text of a module: its functions, a blank line between them."""
    p = Printer(locs, hints, width)
    return "\n".join(p.function(fn) for fn in m)


def print_function(fn: Function, locs: str = "user", hints: bool = True,
                   width: int | None = WIDTH) -> str:
    return Printer(locs, hints, width).function(fn)


def print_op(op: Op, locs: str = "user") -> str:
    """The line(s) of one op, named as in its function (for messages and debugging)."""
    fn = op.function
    p = Printer(locs)
    names = name_values(fn) if fn is not None else {}
    lines: list[str] = []
    p._op(op, names, lines, 0, {})
    return "\n".join(lines)


def name_values(fn: Function, hints: bool = True) -> dict[Value, str]:
    """The printed name (without ``%``) of every value defined in ``fn``, in text order."""
    names: dict[Value, str] = {}
    used: set[str] = set()
    next_suffix: dict[str, int] = {}  # names are never freed, so probing resumes where it stopped
    counter = 0

    def claim(v: Value, hint: str | None) -> None:
        nonlocal counter
        base = sanitize_name(hint)
        if base is None:
            names[v] = str(counter)
            counter += 1
            return
        name, k = base, next_suffix.get(base, 0)
        if k:
            name = f"{base}_{k}"
        while name in used:
            k += 1
            name = f"{base}_{k}"
        next_suffix[base] = k
        used.add(name)
        names[v] = name

    for a in fn.args:
        claim(a, a.name_hint)
    for v in _defined_in_text_order(fn.body):
        claim(v, v.name_hint if hints else None)
    return names


def _defined_in_text_order(block: Block) -> Iterable[Value]:
    for op in block:
        yield from op.results
        for r in op.regions:
            yield from r.block.args
            yield from _defined_in_text_order(r.block)


class Printer:
    """Prints functions; caches type and loc spellings across them."""

    def __init__(self, locs: str = "user", hints: bool = True, width: int | None = WIDTH):
        if locs not in LOC_MODES:
            raise ValueError(f"locs must be one of {', '.join(LOC_MODES)}, got {locs!r}")
        if width is not None and (not isinstance(width, int) or width < 20):
            raise ValueError(f"width must be None or a line length of at least 20, got {width!r}")
        self.locs = locs
        self.hints = hints
        self.width = width
        self.objects = ObjectNames()
        self._types: dict = {}
        self._loc_text: dict = {}

    def function(self, fn: Function) -> str:
        lines, _, _ = self.function_lines(fn)
        return "\n".join(lines) + "\n"

    def function_lines(self, fn: Function) -> tuple[list[str], dict[Op, int], dict[Value, str]]:
        """The lines of ``fn``, the line index of each op, and the value names used."""
        names = name_values(fn, self.hints)
        lines = self._header(fn, names)
        where: dict[Op, int] = {}
        for op in fn.body:
            self._op(op, names, lines, 1, where)
        lines.append("}")
        return lines, where, names

    # -- pieces --
    def type(self, t) -> str:
        s = self._types.get(t)
        if s is None:
            s = self._types[t] = str(t)
        return s

    def _types_text(self, types) -> str:
        return self.type(types[0]) if len(types) == 1 else \
            "(" + ", ".join(self.type(t) for t in types) + ")"

    def _header(self, fn: Function, names: dict) -> list[str]:
        """``func @f(args) -> results {``; past the width, one argument per line."""
        args = [f"%{names[a]}: {self.type(a.type)}" + (" param" if a.param else "")
                for a in fn.args]
        tail = ")"
        if fn.result_types:
            tail += " -> " + ", ".join(self.type(t) for t in fn.result_types)
        if fn.attrs:
            tail += " attributes " + self._attrs(fn.attrs)
        tail += " {"
        head = f"func {format_symbol(fn.name)}("
        one = head + ", ".join(args) + tail
        if self.width is None or len(head + ", ".join(args)) < self.width or len(args) < 2:
            return self._wrap(one, "")   # the arguments fit: what is long wraps after a comma
        return [head, *(_CONTINUE + a + "," for a in args[:-1]), _CONTINUE + args[-1],
                *self._wrap(tail, "")]

    def _wrap(self, text: str, indent: str) -> list[str]:
        """``indent + text`` broken after commas into lines of at most the width where it can
        be; continuation lines are indented four more."""
        if self.width is None:
            return [indent + text]
        return [indent + line for line in wrap_at_commas(text, self.width - len(indent),
                                                         _CONTINUE)]

    def _place_loc(self, lines: list[str], indent: str, loc: str) -> None:
        """The loc at the end of the last line if it fits, else on a line of its own."""
        if not loc:
            return
        if self.width is None or len(lines[-1]) + len(loc) <= self.width:
            lines[-1] += loc
        else:
            lines.append(indent + _CONTINUE + loc.lstrip())

    def _attrs(self, attrs) -> str:
        return "{" + ", ".join(f"{k}={format_attr(attrs[k], self.objects)}"
                               for k in sorted(attrs)) + "}"

    def operand(self, v: Value, names: dict) -> str:
        name = names.get(v)
        if name is not None:
            return "%" + name
        if v.is_literal:
            return format_literal(v)
        return "%<undefined>"  # only malformed IR (shown in verifier messages) gets here

    def _loc(self, op: Op) -> str:
        loc = op.loc
        if self.locs == "none" or not loc.known:
            return ""
        text = self._loc_text.get(loc)
        if text is None:
            inner = format_loc(loc, self.locs)
            # the user-mode view of a location that only differs from UNKNOWN in hidden frames
            # or marks would read back as UNKNOWN: print it as what it reads back as
            text = self._loc_text[loc] = "" if inner == _UNKNOWN_TEXT else f"  loc({inner})"
        return text

    def _op(self, op: Op, names: dict, lines: list[str], depth: int, where: dict) -> None:
        indent = "  " * depth
        where[op] = len(lines)
        operands = ", ".join([self.operand(v, names) for v in op.operands])
        if op.is_terminator:
            lines.extend(self._wrap(f"{op.opdef.name}{' ' + operands if operands else ''}",
                                    indent))
            self._place_loc(lines, indent, self._loc(op))
            return
        head = ""
        if op.results:
            head += ", ".join(["%" + names.get(r, "<unnamed>") for r in op.results]) + " = "
        head += f"{op.opdef.name}({operands})"
        if op.attrs:
            head += " " + self._attrs(op.attrs)
        if op.results:
            head += " : " + self._types_text([r.type for r in op.results])
        if not op.regions:
            lines.extend(self._wrap(head, indent))
            self._place_loc(lines, indent, self._loc(op))
            return
        labels = getattr(op.opdef, "region_names", ())
        for i, region in enumerate(op.regions):
            args = region.block.args
            label = labels[i] if i < len(labels) else f"region{i}"
            opener = "" if i == 0 and not args else f" {label}" if not args else \
                f" {label}(" + ", ".join(f"%{names[a]}: {self.type(a.type)}" for a in args) + ")"
            lines.extend(self._wrap(f"{head if i == 0 else '}'}{opener} {{", indent))
            for inner in region.block:
                self._op(inner, names, lines, depth + 1, where)
        lines.append(f"{indent}}}")
        self._place_loc(lines, indent, self._loc(op))


def wrap_at_commas(text: str, width: int, indent: str = _CONTINUE) -> list[str]:
    """``text`` as lines of at most ``width`` characters, broken only after a ``", "`` outside
    string literals (the comma ends the line, the next line starts with ``indent``). A piece
    with no such comma in reach stays whole, however long.

    >>> wrap_at_commas("f(%a, %b, %c)", 9)
    ['f(%a, %b,', '    %c)']
    """
    breaks = _comma_breaks(text)
    if len(text) <= width or not breaks:
        return [text]
    lines: list[str] = []
    start, room, k = 0, width, 0
    while len(text) - start > room:
        fits = None
        while k < len(breaks) and breaks[k] - start <= room:
            fits = breaks[k]
            k += 1
        if fits is None:        # nothing in reach: break at the first comma past it
            if k == len(breaks):
                break
            fits = breaks[k]
            k += 1
        lines.append(("" if start == 0 else indent) + text[start:fits])
        start, room = fits + 1, width - len(indent)
    lines.append(("" if start == 0 else indent) + text[start:])
    return lines


def _comma_breaks(text: str) -> list[int]:
    """The positions just after each ``,`` that a space follows, outside ``"..."`` literals."""
    out, in_str, escaped = [], False, False
    for i, ch in enumerate(text):
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "," and text[i + 1:i + 2] == " ":
            out.append(i + 1)
    return out


def format_literal(v: Literal) -> str:
    """``0.5:f32``, ``3:i64``, ``true:bool``, ``none``."""
    x = v.value
    if x is None:
        return "none"
    if isinstance(x, bool):
        text = "true" if x else "false"
    elif isinstance(x, float):
        text = format_float(x)
    else:
        text = str(x)
    return f"{text}:{v.type}"

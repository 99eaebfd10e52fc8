"""A one-screen summary of a function's IR: what it takes, what it runs, what it costs.

:func:`summarize` counts the ops (by name and by ``Kind``), lists the fused groups with the ops
inside them (groups that hold the same ops are one line, with their count and source lines), the
arguments and their types, and estimates the work: FLOPs from the registry's cost rules
(``graphcell_ir.ops.cost``) and the bytes each op reads and writes, a fused group counting as
one op (what stays inside a fused kernel never goes to memory). Estimates, not measurements:
ops without a cost rule are named, not guessed.

Example::

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module('''func @f(%x: f32[4,3], %w: f32[2,3] param) -> f32[4,2] {
    ...   %0 = matmul(%x, %w) {transpose_a=false, transpose_b=true} : f32[4,2]
    ...   %1 = relu(%0) : f32[4,2]
    ...   return %1
    ... }
    ... ''')
    >>> s = summarize(m)
    >>> s.flops, s.bytes, dict(s.op_counts)
    (56, 168, {'matmul': 1, 'relu': 1})
    >>> print(s)
    @f: 1 input, 1 parameter (6 values, 24 B), 1 result, 2 ops
      inputs: %x f32[4,3]
      parameters: %w f32[2,3]
      results: f32[4,2]
      ops: matmul 1, relu 1
      by kind: contraction 1, elementwise 1
      estimated work: 56 FLOP, 168 B read and written
      heaviest: matmul 48 FLOP (86%), relu 8 FLOP (14%)
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from graphcell_ir.backend.naming import kernel_name
from graphcell_ir.ir.core import Block, Function, Module, Op
from graphcell_ir.ir.structural import FUSED, StructuralOpDef
from graphcell_ir.ops.cost import elements, flops as op_flops, nbytes
from graphcell_ir.text.printer import WIDTH, name_values, wrap_at_commas

__all__ = ["summarize", "Summary", "FusedGroup"]

HEAVIEST = 5
"""How many of the costliest ops (or fused-group kinds) the summary names."""


@dataclass(frozen=True)
class FusedGroup:
    """One fused kernel: its name (``backend/naming.kernel_name``: ``fused_17_relu_add_mul``,
    as the runner, the dump files and the profile call it), the ops inside (in order), its
    estimated cost and the user's source lines it came from."""

    name: str
    ops: tuple[str, ...]
    flops: int
    bytes: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Summary:
    """What :func:`summarize` found; ``str()`` is the one-screen text."""

    function: str
    inputs: tuple[tuple[str, str], ...]       # (printed name, type)
    params: tuple[tuple[str, str, int, int], ...]  # (printed name, type, values, bytes)
    results: tuple[str, ...]
    op_counts: Mapping[str, int]              # top-level ops by name (a fused group is one)
    kind_counts: Mapping[str, int]
    fused: tuple[FusedGroup, ...]
    flops: int
    bytes: int
    costs: tuple[tuple[str, int], ...]        # (what, FLOPs), costliest first
    no_cost_rule: tuple[str, ...]             # op names whose FLOPs are not estimated
    width: int = WIDTH

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def __repr__(self) -> str:
        return (f"<Summary @{self.function}: {sum(self.op_counts.values())} ops, "
                f"~{_si(self.flops)}FLOP, ~{_bytes(self.bytes)}>")

    def lines(self) -> list[str]:
        ops = sum(self.op_counts.values())
        values = sum(v for _, _, v, _ in self.params)
        out = [f"@{self.function}: {_n(len(self.inputs), 'input')}, "
               f"{_n(len(self.params), 'parameter')} ({values:,} values, "
               f"{_bytes(sum(b for *_, b in self.params))}), {_n(len(self.results), 'result')}, "
               f"{_n(ops, 'op')}"]
        out += self._listing("inputs", [f"{n} {t}" for n, t in self.inputs])
        out += self._listing("parameters", [f"{n} {t}" for n, t, *_ in self.params])
        out += self._listing("results", list(self.results))
        out += self._listing("ops", [f"{k} {v}" for k, v in _by_count(self.op_counts)])
        out += self._listing("by kind", [f"{k} {v}" for k, v in _by_count(self.kind_counts)])
        if self.fused:
            inside = sum(len(g.ops) for g in self.fused)
            out.append(f"  fused groups: {_n(len(self.fused), 'kernel')} holding {_n(inside, 'op')}")
            for ops, groups in _group_by_ops(self.fused):
                lines = sorted({ln for g in groups for ln in g.lines}, key=_line_key)
                head = f"    {len(groups)} x " if len(groups) > 1 else "    "
                text = f"{head}{', '.join(ops)}  ({_si(sum(g.flops for g in groups))}FLOP)"
                if lines:
                    text += "  " + _compact_lines(lines)
                out.append(_clip(text, self.width))
        out.append(f"  estimated work: {_si(self.flops)}FLOP, {_bytes(self.bytes)} read and written")
        if self.costs and self.flops:
            out += self._listing("heaviest", [f"{what} {_si(f)}FLOP ({100 * f / self.flops:.0f}%)"
                                              for what, f in self.costs[:HEAVIEST]])
        if self.no_cost_rule:
            out += self._listing("not estimated (no cost rule)", list(self.no_cost_rule))
        return out

    def _listing(self, label: str, items: list[str]) -> list[str]:
        if not items:
            return []
        return ["  " + line for line in wrap_at_commas(f"{label}: {', '.join(items)}",
                                                       self.width - 2)]


def summarize(target: Module | Function, width: int = WIDTH) -> Summary:
    """The :class:`Summary` of a function (of a module's first function)."""
    fn = target if isinstance(target, Function) else next(iter(target))
    names = name_values(fn)
    inputs = tuple((f"%{names[a]}", str(a.type)) for a in fn.args if not a.param)
    params = tuple((f"%{names[a]}", str(a.type), elements(a.type), nbytes(a.type))
                   for a in fn.args if a.param)
    tally = _Tally(names)
    tally.block(fn.body)
    return Summary(fn.name, inputs, params, tuple(map(str, fn.result_types)),
                   MappingProxyType(dict(tally.ops)), MappingProxyType(dict(tally.kinds)),
                   tuple(tally.fused), tally.flops, tally.bytes,
                   tuple(sorted(tally.costs.items(), key=lambda kv: -kv[1])),
                   tuple(sorted(tally.no_rule)), width)


class _Tally:
    """Walks the ops once, adding up counts and costs."""

    def __init__(self, names: dict):
        self.names = names
        self.ops: Counter = Counter()
        self.kinds: Counter = Counter()
        self.fused: list[FusedGroup] = []
        self.flops = 0
        self.bytes = 0
        self.costs: Counter = Counter()
        self.no_rule: set[str] = set()

    def block(self, block: Block) -> None:
        for op in block:
            if op.is_terminator:
                continue
            self.ops[op.opdef.name] += 1
            if op.opdef is FUSED:
                self.fused_group(op)
            elif isinstance(op.opdef, StructuralOpDef):
                for r in op.regions:   # if/while: the ops of every region, once
                    self.block(r.block)
            else:
                self.kinds[op.opdef.kind.value] += 1
                f = self.op_flops(op)
                self.flops += f
                self.bytes += _traffic(op)
                self.costs[op.opdef.name] += f

    def op_flops(self, op: Op) -> int:
        f = op_flops(op.opdef, [v.type for v in op.operands], [r.type for r in op.results],
                     dict(op.attrs))
        if f is None:
            self.no_rule.add(op.opdef.name)
            return 0
        return f

    def fused_group(self, op: Op) -> None:
        inner = [o for o in op.regions[0].block if not o.is_terminator]
        f = sum(self.op_flops(o) for o in inner)
        traffic = _traffic(op)
        lines = tuple(dict.fromkeys(_line(o) for o in inner if o.loc.known))
        name = kernel_name(op, self.names)   # the runner's, dump files' and profile's name
        self.fused.append(FusedGroup(name, tuple(o.opdef.name for o in inner), f, traffic, lines))
        self.kinds["fused"] += 1
        self.flops += f
        self.bytes += traffic
        self.costs["fused " + "+".join(dict.fromkeys(o.opdef.name for o in inner))] += f


def _traffic(op: Op) -> int:
    """Bytes an op reads (each distinct tensor operand once) and writes."""
    return sum(nbytes(v.type) for v in dict.fromkeys(op.operands)) + \
        sum(nbytes(r.type) for r in op.results)


def _line(op: Op) -> str:
    user = op.loc.user_frame()
    return f"{os.path.basename(user.file) or user.file}:{user.line}"


def _line_key(text: str):
    file, _, line = text.rpartition(":")
    return file, int(line) if line.isdigit() else 0


def _compact_lines(lines: list[str], most: int = 4) -> str:
    """``net.py:61,62,67 cell.py:3`` — lines grouped by file, at most ``most`` in all."""
    by_file: dict[str, list[str]] = {}
    for text in lines[:most]:
        file, _, line = text.rpartition(":")
        by_file.setdefault(file, []).append(line)
    out = " ".join(f"{f}:{','.join(ls)}" for f, ls in by_file.items())
    return out + (f" +{len(lines) - most} more" if len(lines) > most else "")


def _group_by_ops(groups) -> list[tuple[tuple[str, ...], list[FusedGroup]]]:
    """Fused groups holding the same ops, costliest kinds first."""
    by: dict[tuple[str, ...], list[FusedGroup]] = {}
    for g in groups:
        by.setdefault(g.ops, []).append(g)
    return sorted(by.items(), key=lambda kv: (-sum(g.flops for g in kv[1]), -len(kv[1])))


def _by_count(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _n(k: int, noun: str) -> str:
    return f"{k} {noun}{'' if k == 1 else 's'}"


def _si(x: float) -> str:
    """``1.2 M`` (with the unit's space), ``56 `` below a thousand."""
    for div, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g} {prefix}"
    return f"{x:.0f} "


def _bytes(n: int) -> str:
    for div, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= div:
            return f"{n / div:.3g} {unit}"
    return f"{n} B"


"""The IR as a graph: a networkx ``DiGraph``, Graphviz dot text, or SVG (through ``dot``, or
matplotlib when Graphviz is not installed).

Nodes are the function arguments and ops (region arguments and the ops of regions too, with a
``parent`` attribute naming the op that owns them); an edge goes from where a value is defined to
each op that uses it. Node ids are ``"@f/%x"`` for arguments and ``"@f/op3"`` for ops (numbered
in text order). Names are the printer's, so the graph and the text agree.

Example::

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module("func @f(%x: f32[2]) -> f32[2] {\\n  %0 = neg(%x) : f32[2]\\n  return %0\\n}\\n")
    >>> g = to_networkx(m)
    >>> g.nodes["@f/op0"]["op"], list(g.successors("@f/%x"))
    ('neg', ['@f/op0'])
    >>> to_dot(m).splitlines()[0]
    'digraph gcir {'
"""
from __future__ import annotations

import shutil
import subprocess
from typing import Iterator

from graphcell_ir.errors import GraphvizError
from graphcell_ir.ir.core import Block, Function, Module, Op, Value
from graphcell_ir.ir.loc import format_loc


def _functions(target: Module | Function) -> list[Function]:
    return list(target) if isinstance(target, Module) else [target]


class _Graph:
    """Nodes and edges of one function, and which region each node sits in."""

    def __init__(self, fn: Function):
        from graphcell_ir.text.printer import Printer, name_values
        self.fn = fn
        self.printer = Printer()
        self.names = name_values(fn)
        self.nodes: list[tuple[str, dict]] = []
        self.edges: dict[tuple[str, str], dict] = {}
        self.defs: dict[Value, str] = {}
        self.clusters: list[tuple[str, str, str | None]] = []  # (cluster id, label, parent cluster)
        self.cluster_of: dict[str, str | None] = {}
        self._count = 0
        for a in fn.args:
            self._arg(a, None, None)
        self._block(fn.body, None, None)

    def _id(self, what: str) -> str:
        return f"@{self.fn.name}/{what}"

    def _arg(self, a, parent: str | None, cluster: str | None) -> None:
        nid = self._id("%" + self.names[a])
        self.defs[a] = nid
        self.nodes.append((nid, {"kind": "arg", "name": "%" + self.names[a], "type": str(a.type),
                                 "param": a.param, "parent": parent,
                                 "label": f"%{self.names[a]}\n{a.type}"}))
        self.cluster_of[nid] = cluster

    def _block(self, block: Block, parent: str | None, cluster: str | None) -> None:
        for op in block:
            nid = self._id(f"op{self._count}")
            self._count += 1
            self._op(op, nid, parent, cluster)
            for i, region in enumerate(op.regions):
                labels = getattr(op.opdef, "region_names", ())
                cid = f"{nid}/r{i}"
                self.clusters.append((cid, f"{op.opdef.name} {labels[i] if i < len(labels) else i}",
                                      cluster))
                for a in region.block.args:
                    self._arg(a, nid, cid)
                self._block(region.block, nid, cid)

    def _op(self, op: Op, nid: str, parent: str | None, cluster: str | None) -> None:
        results = ", ".join("%" + self.names[r] for r in op.results)
        types = ", ".join(str(r.type) for r in op.results)
        loc = format_loc(op.loc) if op.loc.known else ""
        literals = [self.printer.operand(v, {}) for v in op.operands if v not in self.defs]
        label = (f"{results} = " if results else "") + op.opdef.name
        label += "\n" + types if types else ""
        label += "\n" + loc if loc else ""
        self.nodes.append((nid, {"kind": "op", "op": op.opdef.name, "results": results,
                                 "type": types, "loc": loc, "parent": parent,
                                 "literals": literals, "label": label}))
        self.cluster_of[nid] = cluster
        for i, v in enumerate(op.operands):
            src = self.defs.get(v)
            if src is None:
                continue  # a literal (kept on the node) or an undefined value
            e = self.edges.setdefault((src, nid), {"values": [], "operands": [],
                                                   "type": str(v.type)})
            e["values"].append("%" + self.names.get(v, "?"))
            e["operands"].append(i)
        for r in op.results:
            self.defs[r] = nid


def to_networkx(target: Module | Function):
    """A ``networkx.DiGraph`` of the IR (see the module docstring for node and edge attributes)."""
    import networkx as nx
    g = nx.DiGraph()
    for fn in _functions(target):
        graph = _Graph(fn)
        for nid, attrs in graph.nodes:
            g.add_node(nid, function=fn.name, **attrs)
        for (src, dst), attrs in graph.edges.items():
            g.add_edge(src, dst, **attrs)
    return g


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(target: Module | Function) -> str:
    """Graphviz dot text: one cluster per function and per region, one box per op."""
    out = ["digraph gcir {", '  node [shape=box, fontname="monospace", fontsize=10];',
           '  edge [fontname="monospace", fontsize=9];']
    for k, fn in enumerate(_functions(target)):
        graph = _Graph(fn)
        out.append(f"  subgraph {_q(f'cluster_fn{k}')} {{")
        out.append(f"    label={_q('@' + fn.name)};")
        out.extend(_cluster_lines(graph, None, "    "))
        out.append("  }")
        for (src, dst), attrs in graph.edges.items():
            out.append(f"  {_q(src)} -> {_q(dst)} [label={_q(', '.join(attrs['values']))}];")
    out.append("}")
    return "\n".join(out) + "\n"


def _cluster_lines(graph: _Graph, cluster: str | None, indent: str,
                   index: tuple[dict, dict] | None = None) -> Iterator[str]:
    if index is None:
        nodes: dict = {}
        subs: dict = {}
        for nid, attrs in graph.nodes:
            nodes.setdefault(graph.cluster_of[nid], []).append((nid, attrs))
        for cid, label, parent in graph.clusters:
            subs.setdefault(parent, []).append((cid, label))
        index = nodes, subs
    for nid, attrs in index[0].get(cluster, ()):
        shape = ", shape=ellipse" if attrs["kind"] == "arg" else ""
        yield f"{indent}{_q(nid)} [label={_q(attrs['label'])}{shape}];"
    for cid, label in index[1].get(cluster, ()):
        yield f"{indent}subgraph {_q('cluster_' + cid)} {{"
        yield f"{indent}  label={_q(label)}; style=dashed;"
        yield from _cluster_lines(graph, cid, indent + "  ", index)
        yield f"{indent}}}"


def to_svg(target: Module | Function, dot_program: str = "dot", engine: str | None = None) -> str:
    """SVG text: rendered by Graphviz's ``dot`` when it is on PATH (``engine="graphviz"``), else
    drawn with matplotlib (``engine="matplotlib"``, the optional extra ``pictures``: one
    function, its first when given a module; see ``graphcell_ir.ir.draw``). GraphvizError when
    the engine is missing or fails, saying what to install."""
    from graphcell_ir.ir.draw import svg_engine, to_svg_matplotlib
    if svg_engine(engine if engine or dot_program == "dot" else "graphviz") == "matplotlib":
        return to_svg_matplotlib(_functions(target)[0])
    exe = shutil.which(dot_program)
    if exe is None:
        raise GraphvizError(f"cannot draw SVG: the Graphviz program {dot_program!r} is not on PATH. "
                            "Install Graphviz (e.g. 'apt install graphviz' or 'brew install "
                            "graphviz'), or write the dot text with to_dot() / --emit dot and "
                            "render it elsewhere.")
    try:
        done = subprocess.run([exe, "-Tsvg"], input=to_dot(target), capture_output=True,
                              text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GraphvizError(f"running {exe} failed: {e}") from None
    if done.returncode != 0:
        raise GraphvizError(f"{exe} failed (exit {done.returncode}): {done.stderr.strip()}")
    return done.stdout

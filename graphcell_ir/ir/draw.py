"""The IR as an SVG picture without Graphviz: a layered layout drawn with matplotlib.

Graphviz's ``dot`` draws the best pictures (:func:`graphcell_ir.ir.export.to_svg` uses it when it
is on PATH), but it is a system program. This is the fallback that needs only a Python package,
matplotlib (the optional extra ``pictures``: ``pip install graphcell[pictures]``); the layout is
computed here.

One box per top-level op, in layers from the inputs down (an op sits one layer below its
deepest operand); a fused group is one box listing the ops inside it; arguments sit just above
their first use. Within a layer, boxes are ordered by where their operands are, so edges cross
less. Text stays text in the SVG (``svg.fonttype: none``), so the picture can be searched.

Example::

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module("func @f(%x: f32[2]) -> f32[2] {\\n  %0 = neg(%x) : f32[2]\\n  return %0\\n}\\n")
    >>> layered_nodes(m["f"])[1]["label"]
    '%0 = neg\\nf32[2]'
"""
from __future__ import annotations

import io

from graphcell_ir.errors import GraphvizError
from graphcell_ir.ir.core import Function, Op
from graphcell_ir.ir.structural import FUSED, RETURN

_COLORS = {"input": "#fff2b3", "param": "#e6e6e6", "fused": "#d5f5d5", "contraction": "#ffd9b3",
           "reduction": "#e0d5f5", "side_effect": "#f5d5d5"}
_DEFAULT_COLOR = "#dbe9f7"
_MAX_INNER = 6   # ops of a fused group listed in its box; the rest are counted


def matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def layered_nodes(fn: Function) -> list[dict]:
    """The boxes of ``fn``: each a dict with ``id``, ``label``, ``kind``, ``layer`` and
    ``inputs`` (the ids of the boxes it reads), arguments first, then ops in text order."""
    from graphcell_ir.text.printer import name_values
    names = name_values(fn)
    nodes: list[dict] = []
    where: dict = {}
    for a in fn.args:
        where[a] = len(nodes)
        nodes.append({"id": len(nodes), "label": f"%{names[a]}\n{a.type}",
                      "kind": "param" if a.param else "input", "layer": 0, "inputs": []})
    for op in fn.body:
        if op.is_terminator and op.opdef is not RETURN:
            continue
        srcs = list(dict.fromkeys(where[v] for v in op.operands if v in where))
        layer = 1 + max((nodes[s]["layer"] for s in srcs), default=0)
        node = {"id": len(nodes), "label": _op_label(op, names), "kind": _kind(op),
                "layer": layer, "inputs": srcs}
        for r in op.results:
            where[r] = node["id"]
        nodes.append(node)
    _lift_arguments(nodes)
    return nodes


def _kind(op: Op) -> str:
    if op.opdef is FUSED:
        return "fused"
    return getattr(op.opdef.kind, "value", "opaque")


def _op_label(op: Op, names: dict) -> str:
    results = ", ".join("%" + names[r] for r in op.results)
    head = (f"{results} = " if results else "") + op.opdef.name
    if op.opdef is FUSED:
        inner = [o.opdef.name for o in op.regions[0].block if not o.is_terminator]
        more = f" +{len(inner) - _MAX_INNER}" if len(inner) > _MAX_INNER else ""
        head += "\n" + ", ".join(inner[:_MAX_INNER]) + more
    types = ", ".join(str(r.type) for r in op.results)
    return head + ("\n" + types if types else "")


def _lift_arguments(nodes: list[dict]) -> None:
    """Each argument one layer above its first user (not all in one crowded top row)."""
    first_use: dict[int, int] = {}
    for n in nodes:
        for s in n["inputs"]:
            if nodes[s]["kind"] in ("input", "param"):
                first_use[s] = min(first_use.get(s, n["layer"]), n["layer"])
    for s, layer in first_use.items():
        nodes[s]["layer"] = layer - 1


def _positions(nodes: list[dict]) -> dict[int, tuple[float, float]]:
    """x by the mean x of a box's operands (barycentre), layer by layer; y by layer."""
    layers: dict[int, list[dict]] = {}
    for n in nodes:
        layers.setdefault(n["layer"], []).append(n)
    pos: dict[int, tuple[float, float]] = {}
    for layer in sorted(layers):
        row = layers[layer]
        wanted = []
        for i, n in enumerate(row):
            xs = [pos[s][0] for s in n["inputs"] if s in pos]
            wanted.append((sum(xs) / len(xs) if xs else float(i), i, n))
        wanted.sort(key=lambda t: (t[0], t[1]))
        x = float("-inf")
        for want, _, n in wanted:   # keep boxes at least one slot apart, near where they want
            x = max(want, x + 1.0)
            pos[n["id"]] = (x, -float(layer))
    return pos


def to_svg_matplotlib(fn: Function) -> str:
    """SVG text of ``fn`` drawn with matplotlib; GraphvizError (with what to install) when
    matplotlib is missing."""
    if not matplotlib_available():
        raise GraphvizError("cannot draw SVG: neither Graphviz's 'dot' program nor matplotlib is "
                            "installed. Install the optional extra (pip install "
                            "'graphcell[pictures]') or Graphviz, or write dot text (--format dot) "
                            "and render it elsewhere.")
    import matplotlib
    from matplotlib.figure import Figure
    nodes = layered_nodes(fn)
    pos = _positions(nodes)
    xs = [p[0] for p in pos.values()] or [0.0]
    layers = {n["layer"] for n in nodes} or {0}
    width_in = 2.4 * (max(xs) - min(xs) + 1)
    height_in = 0.75 * (max(layers) - min(layers) + 1) + 0.5
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "graphcell"}):
        fig = Figure(figsize=(max(width_in, 4.0), max(height_in, 2.0)))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
        ax.set_ylim(-max(layers) - 0.6, -min(layers) + 0.6)
        for n in nodes:
            x1, y1 = pos[n["id"]]
            for s in n["inputs"]:
                x0, y0 = pos[s]
                ax.annotate("", xy=(x1, y1 + 0.18), xytext=(x0, y0 - 0.18),
                            arrowprops={"arrowstyle": "->", "lw": 0.5, "color": "#555555"})
        for n in nodes:
            x, y = pos[n["id"]]
            style = "round,pad=0.3" if n["kind"] not in ("input", "param") else "round4,pad=0.3"
            ax.text(x, y, n["label"], ha="center", va="center", fontsize=6.5, family="monospace",
                    gid=f"node{n['id']}",
                    bbox={"boxstyle": style, "fc": _COLORS.get(n["kind"], _DEFAULT_COLOR),
                          "ec": "#444444", "lw": 0.6})
        ax.set_title(f"@{fn.name}", fontsize=9, family="monospace")
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def svg_engine(requested: str | None = None) -> str:
    """``"graphviz"`` when its ``dot`` is on PATH, else ``"matplotlib"``; ``requested`` wins."""
    import shutil
    if requested not in (None, "graphviz", "matplotlib"):
        raise ValueError(f"the SVG engine must be 'graphviz' or 'matplotlib', got {requested!r}")
    if requested:
        return requested
    return "graphviz" if shutil.which("dot") else "matplotlib"

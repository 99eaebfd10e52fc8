"""The import graph of graphcell's packages, and the cycles in it.

    python tools/import_graph.py [PACKAGE_DIR ...]      # default: graphcell_ir graphcell

Every ``import`` statement of every module counts, at module level or inside a function (a
function-level import is how a cycle hides: it still ties the two modules together) — but those
under ``if TYPE_CHECKING:``, which never run (annotations only). An edge
``a -> b`` means module ``a`` imports module ``b`` (``from pkg import name`` is an edge to
``pkg.name`` when that is a module, else to ``pkg``). A package's ``__init__`` that only
re-exports is a module like any other. Prints each strongly connected component of more than one
module (an import cycle), largest first, with the edges that close it; exits 1 when there is one.

The test ``tests/test_import_cycles.py`` keeps ``graphcell_ir`` and ``graphcell/graph`` free of
cycles with the same functions.

Example::

    >>> g = import_graph(["graphcell_ir"])
    >>> "graphcell_ir.ir.core" in g
    True
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]


def modules(package_dirs) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` under the package directories."""
    out = {}
    for d in package_dirs:
        base = (ROOT / d).resolve()
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base.parent).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imported(tree: ast.AST, name: str, is_package: bool, known) -> set[str]:
    """The modules of ``known`` that module ``name``'s source imports, anywhere in it."""
    found = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in _running(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(_nearest(alias.name, known))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else _nearest(base, known))
    found.discard(None)
    found.discard(name)
    return found


def _running(tree: ast.AST):
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:``."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _nearest(dotted: str, known) -> str | None:
    """``dotted`` or its closest enclosing module that is one of ``known``."""
    while dotted:
        if dotted in known:
            return dotted
        dotted = dotted.rpartition(".")[0]
    return None


def import_graph(package_dirs=("graphcell_ir", "graphcell")) -> nx.DiGraph:
    """The directed import graph of the packages' modules (see the module docstring)."""
    known = modules(package_dirs)
    g = nx.DiGraph()
    for name, path in known.items():
        g.add_node(name)
        tree = ast.parse(path.read_text(), str(path))
        for target in _imported(tree, name, path.name == "__init__.py", known):
            g.add_edge(name, target)
    return g


def cycles(g: nx.DiGraph, within: str | None = None) -> list[list[str]]:
    """The import cycles of ``g`` (strongly connected components of two modules or more),
    largest first; with ``within``, only those holding a module whose name starts with it."""
    out = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    if within is not None:
        out = [c for c in out if any(m == within or m.startswith(within + ".") for m in c)]
    return sorted(out, key=lambda c: (-len(c), c))


def describe(g: nx.DiGraph, cycle: list[str]) -> str:
    """A cycle as its modules and the imports among them."""
    members = set(cycle)
    edges = sorted((a, b) for a, b in g.subgraph(members).edges)
    return "\n".join([f"{len(cycle)} modules: {', '.join(cycle)}"]
                     + [f"  {a} -> {b}" for a, b in edges])


def main(argv=None) -> int:
    dirs = (argv if argv is not None else sys.argv[1:]) or ["graphcell_ir", "graphcell"]
    g = import_graph(dirs)
    found = cycles(g)
    for c in found:
        print(describe(g, c))
    print(f"{g.number_of_nodes()} modules, {g.number_of_edges()} imports, {len(found)} cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""Write ``docs/api_coverage.md``: which of MindSpore 2.10's public names graphcell provides.

    python tools/api_coverage.py          # rewrite the page
    python tools/api_coverage.py --check  # exit 1 if the page is stale (the test suite does this)

Reads MindSpore's ranked name list (``graphcell/_compat/mindspore_api.tsv``) and the list of
``mindspore.numpy``'s callables (``graphcell/_compat/mindspore_numpy_api.txt``) and of
``mindspore.mint``'s names (``graphcell/_compat/mindspore_mint_api.txt``; their own sections: the
ranked list does not cover them), asks graphcell which names exist, counts the golden cases
recorded from MindSpore per name (``tests/graphcell/api/cases``, ``goldens``) and the ``nn``
names that the other MindSpore-recorded suites exercise (optimizer steps, training runs, models:
``SUITE_SOURCES``), and takes the reasons for missing names from ``graphcell/_compat/gaps.py``.
"""
from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api_coverage.md"
API_TESTS = ROOT / "tests" / "graphcell" / "api"
NAMESPACES = ("mindspore.ops", "mindspore.Tensor", "mindspore.nn", "mindspore")
SUITE_SOURCES = ("tools/record_*_goldens.py", "tests/graphcell/*/*_cases.py",
                 "examples/models/*.py")
"""The code MindSpore runs to record the golden suites outside ``tests/graphcell/api`` (each
compared with graphcell in PyNative and graph mode by its own test): every ``nn.X`` it names
takes part in a recorded result."""


def owner(namespace: str):
    import importlib

    import graphcell
    if namespace.startswith("mindspore.mint"):
        return importlib.import_module("graphcell" + namespace[len("mindspore"):])
    return {"mindspore": graphcell, "mindspore.ops": graphcell.ops, "mindspore.nn": graphcell.nn,
            "mindspore.Tensor": graphcell.Tensor, "mindspore.numpy": graphcell.numpy}[namespace]


def provided(namespace: str, name: str) -> bool:
    return hasattr(owner(namespace), name)


def golden_counts() -> Counter:
    """Recorded golden cases per ``namespace.name`` (``ops.X``, ``P.X``, ``F.X`` count for ops)."""
    sys.path.insert(0, str(API_TESTS))
    import golden_cases as G
    spaces = {"ops": "mindspore.ops", "P": "mindspore.ops", "F": "mindspore.ops",
              "Tensor": "mindspore.Tensor", "nn": "mindspore.nn", "ms": "mindspore",
              "numpy": "mindspore.numpy", "mint": "mindspore.mint"}
    counts: Counter = Counter()
    for path in sorted((API_TESTS / "cases").glob("*.py")):
        golden = API_TESTS / "goldens" / f"{path.stem}.npz"
        records = G.read_goldens(golden)[0] if golden.exists() else {}
        for c in G.load_cases(path):
            if c.cid in records and c.attr.split(".")[0]:
                namespace, name = _split(spaces[c.space], c.attr)
                counts[f"{namespace}.{name}"] += 1
    return counts


def _split(namespace: str, attr: str) -> tuple[str, str]:
    """``("mindspore.mint", "nn.functional.gelu")`` -> ``("mindspore.mint.nn.functional",
    "gelu")``: mint's sub-namespaces are part of the target's path."""
    parts = attr.split(".")
    if namespace != "mindspore.mint":
        return namespace, parts[0]
    return ".".join([namespace, *parts[:-1]]), parts[-1]


def suite_names() -> dict[str, list[str]]:
    """``mindspore.nn.X`` -> the golden suites (source file stems) whose recorded runs use it."""
    found: dict[str, list[str]] = {}
    for pattern in SUITE_SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            if path.parent == API_TESTS:   # the API golden cases are counted by golden_counts
                continue
            for name in sorted(_nn_names_used(path.read_text())):
                found.setdefault(f"mindspore.nn.{name}", []).append(path.stem)
    return found


def _nn_names_used(source: str) -> set[str]:
    """The ``nn.X`` (or ``ms.nn.X``) classes the code refers to — in code, and in strings that
    are Python expressions (a case's ``make="nn.Momentum(params, 0.1, 0.9)"``, evaluated by both
    frameworks), not in docstrings or comments."""
    def is_nn(node) -> bool:
        return (isinstance(node, ast.Name) and node.id == "nn") or \
            (isinstance(node, ast.Attribute) and node.attr == "nn")

    def names(tree) -> set[str]:
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr[:1].isupper() and is_nn(node.value):
                found.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    found |= names(ast.parse(node.value.strip(), mode="eval"))
                except SyntaxError:   # prose
                    pass
        return found
    return names(ast.parse(source))


def golden_evidence() -> dict[str, str]:
    """``namespace.name`` -> what golden-tests it, as the page shows it: the number of golden
    cases, and the other suites that use it (``4``, ``optim_cases``, ``2; record_amp_goldens``)."""
    counts, suites = golden_counts(), suite_names()
    return {key: "; ".join(([str(counts[key])] if counts[key] else []) + suites.get(key, []))
            for key in set(counts) | set(suites)}


def render() -> str:
    from graphcell._compat import api_rows
    goldens = golden_evidence()
    rows = api_rows()
    lines = ["# MindSpore API coverage", "",
             "Generated by `python tools/api_coverage.py` from MindSpore 2.10's public names ranked by "
             "use (`graphcell/_compat/mindspore_api.tsv`: tier 1 = used in 5+ files of real "
             "MindSpore code, tier 2 = 1-4) and from graphcell itself; a test fails when this page "
             "is stale. *Golden-tested* names have cases whose results were recorded from "
             "MindSpore 2.10 and are compared in PyNative and graph mode (`tests/graphcell/api`), or "
             "take part in another suite recorded from MindSpore and compared in both modes "
             "(optimizer steps, training runs, models: `SUITE_SOURCES` of the tool); "
             "the share is of the names MindSpore 2.10's CPU build itself runs.", "",
             "| namespace | tier | names | refused by MindSpore CPU | provided | golden-tested | "
             "golden-tested share of the rest |", "|---|---|---|---|---|---|---|"]
    sections = []
    for ns in NAMESPACES:
        for tier in (1, 2):
            names = [(n, uses) for s, n, uses, t in rows if s == ns and t == tier]
            row, section = _tally(ns, tier, names, goldens)
            lines.append(row)
            sections += section
    from graphcell._compat import NUMPY_NAMESPACE, numpy_names
    names = [(n, "-") for n in numpy_names()]  # not ranked by use: one section, "all"
    row, section = _tally(NUMPY_NAMESPACE, "all", names, goldens)
    lines.append(row)
    sections += section
    from graphcell._compat import mint_names
    for ns, mint in mint_names().items():  # not ranked by use either
        row, section = _tally(ns, "all", [(n, "-") for n in mint], goldens)
        lines.append(row)
        sections += section
    return "\n".join(lines + [""] + sections) + "\n"


def _tally(ns, tier, names, goldens) -> tuple[str, list[str]]:
    """The summary table's row and the page's section for the ``(name, uses)`` pairs ``names``."""
    from graphcell._compat.gaps import GAPS
    have = {n for n, _ in names if provided(ns, n)}
    refused = {n for n, _ in names if _refused(GAPS, ns, n)}
    runnable = [n for n, _ in names if n not in refused]
    tested = sum(1 for n in runnable if n in have and goldens.get(f"{ns}.{n}"))
    share = f"{100 * tested / len(runnable):.1f} %" if runnable else "-"
    row = f"| `{ns}` | {tier} | {len(names)} | {len(refused)} | {len(have)} | {tested} | {share} |"
    return row, _section(ns, tier, names, have, refused, goldens, GAPS)


def _refused(gaps, ns: str, name: str) -> bool:
    return gaps.get(f"{ns}.{name}", "").startswith("MindSpore 2.10")


def _section(ns, tier, names, have, refused, goldens, gaps) -> list[str]:
    out = [f"## `{ns}`, tier {tier}", ""]
    ok = [f"`{n}`" + (f" ({goldens[f'{ns}.{n}']})" if goldens.get(f"{ns}.{n}") else "")
          for n, _ in names if n in have]
    out += [f"**Provided** ({len(ok)}; in brackets: golden cases, and the other golden suites "
            "that use it): " + (", ".join(ok) or "none"), ""]
    untested = [n for n, _ in names
                if n in have and n not in refused and not goldens.get(f"{ns}.{n}")]
    if untested:
        out += [f"**Provided, without golden cases** ({len(untested)}; tested by their own unit "
                "tests): " + ", ".join(f"`{n}`" for n in untested), ""]
    extra = [n for n, _ in names if n in have and n in refused]
    if extra:
        out += [f"**Refused by MindSpore 2.10's CPU build, provided by graphcell** ({len(extra)}):",
                "", "| name | MindSpore 2.10 |", "|---|---|"]
        out += [f"| `{n}` | {gaps[f'{ns}.{n}']} |" for n in extra]
        out.append("")
    missing = [(n, uses) for n, uses in names if n not in have]
    if missing:
        out += [f"**Not provided** ({len(missing)}):", "", "| name | files using it | why |",
                "|---|---|---|"]
        out += [f"| `{n}` | {uses} | {gaps.get(f'{ns}.{n}', 'not implemented yet')} |"
                for n, uses in missing]
        out.append("")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the page is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(f"{PAGE.relative_to(ROOT)} is stale: run python tools/api_coverage.py")
            return 1
        return 0
    PAGE.write_text(text)
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

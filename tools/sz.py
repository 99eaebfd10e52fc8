"""Lines of code per file and per package (after tinygrad's sz.py); warns above soft limits.

    python tools/sz.py
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("graphcell", "graphcell_ir")
FILE_SOFT_LIMIT = 600


def count(path: Path) -> int:
    """Non-blank, non-comment lines."""
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.lstrip().startswith("#"))


def main() -> int:
    total = 0
    for pkg in PACKAGES:
        files = sorted((ROOT / pkg).rglob("*.py"))
        rows = [(count(f), f.relative_to(ROOT)) for f in files]
        pkg_total = sum(n for n, _ in rows)
        total += pkg_total
        print(f"{pkg}: {pkg_total} lines in {len(rows)} files")
        for n, f in sorted(rows, reverse=True):
            flag = "  <-- above the soft limit" if n > FILE_SOFT_LIMIT else ""
            print(f"  {n:6d}  {f}{flag}")
    print(f"total: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""MindSpore's public names, and what graphcell says about the ones it does not provide.

``mindspore_api.tsv`` is a copy of MindSpore 2.10's public names ranked by use (the project's
priority list); ``mindspore_numpy_api.txt`` lists ``mindspore.numpy``'s callables and
``mindspore_mint_api.txt`` the names of ``mindspore.mint`` and its sub-namespaces, which the ranked
list does not cover. When user code asks ``graphcell.ops``, ``graphcell.nn``, ``graphcell.numpy``,
``graphcell`` or a Tensor for a name graphcell lacks, :func:`missing_attribute` tells a MindSpore
API not implemented yet (with the reason when ``gaps.GAPS`` has one) from a name MindSpore does not
have either, and points to ``docs/api_coverage.md``.

Example::

    >>> str(missing_attribute("mindspore.ops", "NoSuchOp", "module 'graphcell.ops'"))
    "module 'graphcell.ops' has no attribute 'NoSuchOp'"
"""
from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

from graphcell._compat.gaps import GAPS

COVERAGE_PAGE = "docs/api_coverage.md"
_TSV = Path(__file__).with_name("mindspore_api.tsv")
_NUMPY_NAMES = Path(__file__).with_name("mindspore_numpy_api.txt")
_MINT_NAMES = Path(__file__).with_name("mindspore_mint_api.txt")
NUMPY_NAMESPACE = "mindspore.numpy"


@lru_cache(maxsize=1)
def api_rows() -> tuple[tuple[str, str, int, int], ...]:
    """``(namespace, name, files_using, tier)`` for every name of the list."""
    with open(_TSV, newline="") as f:
        return tuple((r["namespace"], r["name"], int(r["files_using"]), int(r["tier"]))
                     for r in csv.DictReader(f, delimiter="\t"))


@lru_cache(maxsize=1)
def numpy_names() -> tuple[str, ...]:
    """``mindspore.numpy``'s public callables, in the order of ``mindspore_numpy_api.txt``."""
    lines = _NUMPY_NAMES.read_text().splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@lru_cache(maxsize=1)
def mint_names() -> dict[str, tuple[str, ...]]:
    """``mindspore.mint``'s namespaces (``"mindspore.mint.nn"``...) -> their public names, in the
    order of ``mindspore_mint_api.txt``."""
    found: dict[str, list[str]] = {}
    for line in _MINT_NAMES.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            namespace, name = line.split("\t")
            found.setdefault(namespace, []).append(name)
    return {ns: tuple(names) for ns, names in found.items()}


@lru_cache(maxsize=None)
def mindspore_names(namespace: str) -> frozenset[str]:
    """The public names MindSpore 2.10 has in ``namespace`` (``"mindspore.ops"``...)."""
    if namespace == NUMPY_NAMESPACE:
        return frozenset(numpy_names())
    if namespace in mint_names():
        return frozenset(mint_names()[namespace])
    return frozenset(name for ns, name, _, _ in api_rows() if ns == namespace)


def missing_attribute(namespace: str, name: str, owner: str) -> AttributeError:
    """The AttributeError for ``owner.name`` (``owner`` as Python words it: ``module 'x'``)."""
    reason = GAPS.get(f"{namespace}.{name}")  # also names the ranked list does not rank
    if name in mindspore_names(namespace) or reason:
        why = f": {reason}" if reason else " yet"
        return AttributeError(f"{namespace}.{name} is a MindSpore API that graphcell does not "
                              f"implement{why} (see {COVERAGE_PAGE} for what graphcell provides)")
    return AttributeError(f"{owner} has no attribute {name!r}")

"""The passes by name, and named pipelines as plain lists of pass names.

``resolve(["default"])`` or ``resolve(["simplify", "cse", "dce"])`` gives the ``Pass`` objects a
``PassManager`` runs; a pipeline name stands for its list. The order of ``DEFAULT``: ``inline``
first so every later pass sees whole functions; ``fold`` makes constants that ``simplify`` and
``dead_branch`` decide on; ``cse`` then ``dce`` clean up what those left; ``fuse`` last, on the
final set of ops.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Sequence

from graphcell_ir.errors import PassError
from graphcell_ir.passes.cse import cse
from graphcell_ir.passes.dce import dce
from graphcell_ir.passes.dead_branch import dead_branch
from graphcell_ir.passes.fold import fold
from graphcell_ir.passes.fuse import fuse
from graphcell_ir.passes.inline import inline
from graphcell_ir.passes.manager import Pass
from graphcell_ir.passes.simplify import simplify

PASSES = MappingProxyType({p.name: p for p in (
    Pass("inline", inline), Pass("fold", fold), Pass("simplify", simplify), Pass("cse", cse),
    Pass("dce", dce), Pass("dead_branch", dead_branch), Pass("fuse", fuse))})
"""Every pass, by the name used in pipelines, dumps (``04_cse.gcir``) and ``-p``."""

DEFAULT = ["inline", "fold", "simplify", "dead_branch", "cse", "dce", "fuse"]
"""What graph mode runs on a function before the backend."""

CLEANUP = ["simplify", "cse", "dce"]
"""Tidy IR without changing its control flow or fusing (after autodiff, for instance)."""

NO_FUSION = DEFAULT[:-1]
"""The default pipeline up to, not including, fusion (to read the IR the backend would fuse)."""

PIPELINES = MappingProxyType({"default": DEFAULT, "cleanup": CLEANUP, "no_fusion": NO_FUSION})


def resolve(names: Sequence[str]) -> list[Pass]:
    """The passes for ``names``: pass names and pipeline names, expanded in order."""
    out = []
    for name in names:
        if name in PIPELINES:
            out.extend(PASSES[n] for n in PIPELINES[name])
        elif name in PASSES:
            out.append(PASSES[name])
        else:
            raise PassError(f"unknown pass {name!r}; the passes are {', '.join(PASSES)} and the "
                            f"pipelines {', '.join(PIPELINES)}")
    return out


def parse_pipeline(text: str) -> list[str]:
    """``"simplify, cse,dce"`` -> ``["simplify", "cse", "dce"]`` (the ``-p`` spelling)."""
    return [n.strip() for n in text.split(",") if n.strip()]

"""Optimization passes, elementwise fusion and the pass manager.

Each pass is a function ``fn(module_or_function) -> bool`` in a module of its own (``cse.py``,
``fuse.py``...), with a docstring stating what it requires and guarantees. ``pipelines.py``
names them and lists pipelines; ``manager.py`` runs a pipeline with verification, reports and
dumps. From the command line: ``python -m graphcell_ir net.gcir -p simplify,cse,dce``.

Environment switches (read when a pipeline runs):

- ``GRAPHCELL_VERIFY=1``: verify the IR before the first pass and after every pass (a failure
  names the pass and shows the ops around the bad one). Also what ``verify_each=True`` does.
- ``GRAPHCELL_PRINT_AFTER=cse,fuse``: print the IR to stderr after the named passes (``all``:
  after every pass), whether or not they changed it.
- ``GRAPHCELL_PRINT_RULES=1``: ``simplify`` prints each rule that fires and where, to stderr.

Example::

    >>> from graphcell_ir.text import parse_module, print_module
    >>> m = parse_module('''func @f(%x: f32[3]) -> f32[3] {
    ...   %0 = mul(%x, 1.0:f32) : f32[3]
    ...   %1 = exp(%0) : f32[3]
    ...   %2 = mul(%1, 2.0:f32) : f32[3]
    ...   return %2
    ... }
    ... ''')
    >>> reports = run_pipeline(m, ["default"], verify_each=True)
    >>> [(r.name, r.ops_after) for r in reports if r.changed]
    [('simplify', 2), ('fuse', 1)]
"""
from __future__ import annotations

from typing import Sequence

from graphcell_ir.ir.core import Module
from graphcell_ir.passes.manager import Pass, PassManager, PassReport, format_reports
from graphcell_ir.passes.pipelines import DEFAULT, PASSES, PIPELINES, resolve


def run_pipeline(module: Module, names: Sequence[str] = ("default",),
                 **options) -> list[PassReport]:
    """Run the named passes/pipelines on ``module`` in place; ``options`` are PassManager's."""
    return PassManager(resolve(names), **options).run(module)


__all__ = ["Pass", "PassManager", "PassReport", "format_reports", "run_pipeline", "resolve",
           "PASSES", "PIPELINES", "DEFAULT"]

"""The frontend's limits: how deep calls may nest and how far loops may unroll.

Graph mode evaluates much of a program while compiling — it inlines every call and unrolls
``for`` loops and ``while`` loops whose condition is known — so a program that recurses or loops
without end would compile without end. Each of these has a limit; reaching it stops the compile
with a :class:`~graphcell_ir.errors.GraphLimitError` at the user's line that names the limit and
the setting that raises it:

- ``call_depth``: calls (functions, methods, sub-cells) nested more deeply than this, which is
  recursion in practice. graphcell reads it from MindSpore's ``max_call_depth`` context key;
- ``unroll``: iterations of one unrolled loop (a ``for`` loop, or a ``while`` loop whose
  condition is known while compiling); graphcell's ``max_unroll`` context key.

Example::

    >>> Limits().call_depth, Limits(unroll=5).unroll
    (1000, 5)
    >>> text = Limits().message("unroll", "this for loop would unroll 20000 iterations")
    >>> for part in text.split("; "):
    ...     print(part)
    this for loop would unroll 20000 iterations, more than max_unroll=10000
    raise the limit with set_context(max_unroll=...) if the program is meant to do that
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Limits", "python_stack_for"]

_SETTINGS = {"call_depth": "max_call_depth", "unroll": "max_unroll"}
"""The context key (graphcell's ``set_context``) that sets each limit."""

FRAMES_PER_CALL = 80
"""Python frames one inlined call may take in the frontend (measured: 15-30); the compile runs
with a Python recursion limit of at least ``call_depth`` times this."""
MAX_PYTHON_FRAMES = 400_000


@dataclass(frozen=True)
class Limits:
    """How far one compile may inline and unroll (see the module docstring)."""

    call_depth: int = 1000
    unroll: int = 10_000

    def message(self, limit: str, what: str) -> str:
        key = _SETTINGS[limit]
        return (f"{what}, more than {key}={getattr(self, limit)}; raise the limit with "
                f"set_context({key}=...) if the program is meant to do that")


@contextmanager
def python_stack_for(limits: Limits):
    """Python's recursion limit raised (for the compile) so that ``limits.call_depth`` nested
    calls fit; the frontend reports a call-depth error itself before Python would."""
    old = sys.getrecursionlimit()
    need = min(MAX_PYTHON_FRAMES, limits.call_depth * FRAMES_PER_CALL + 2000)
    if need > old:
        sys.setrecursionlimit(need)
    try:
        yield
    finally:
        if need > old:
            sys.setrecursionlimit(old)

"""The environment switches graphcell reads, declared once.

Every ``GRAPHCELL_*`` variable the library reads is a :class:`Switch` of :data:`SWITCHES`, with
its default and what it does, and is read through this module (``value``, ``on``, ``number``,
``words``): a test keeps the rest of the library from reading one directly, and
``docs/architecture.md`` lists them all, with the test suite's own (which live with the tests).

Example::

    >>> SWITCHES["GRAPHCELL_PROGRESS"].default
    '1'
    >>> on("GRAPHCELL_PROGRESS") in (True, False)
    True
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Switch:
    """One environment variable: its name, its value when unset, what it does."""

    name: str
    default: str
    doc: str


SWITCHES = MappingProxyType({s.name: s for s in (
    Switch("GRAPHCELL_CACHE_DIR", "",
           "where compiled kernels are kept (kernel sources, the object store, numba's cache); "
           "default: the user's cache directory + /graphcell"),
    Switch("GRAPHCELL_DISABLE_JIT", "0",
           "1: run kernels' and loops' source as Python instead of machine code (the third "
           "oracle; slow)"),
    Switch("GRAPHCELL_BACKEND", "",
           "interp: run compiled functions on the reference interpreter instead of the "
           "executable"),
    Switch("GRAPHCELL_KERNEL_THREADS", "",
           "threads the native kernel pool runs parallel loops on, the caller included (1: "
           "every loop serial; default: the CPUs the process may use)"),
    Switch("GRAPHCELL_NATIVE_STEP", "1",
           "0: run compiled functions with their generated Python runner instead of one native "
           "call (backend/step)"),
    Switch("GRAPHCELL_COMPILE_WORKER", "1",
           "0: compile every kernel's and loop's object in this process (no compile worker "
           "process beside it while a native step is built; none either when the process may "
           "use one core only)"),
    Switch("GRAPHCELL_BLAS_THREADS", "",
           "threads a GEMM or nn loop is split over (OpenBLAS single-threaded in each block): "
           "N fixes N, 0 leaves BLAS alone (no split); default: chosen by timing"),
    Switch("GRAPHCELL_LOG", "",
           "words: 'compile' prints the compile report (each phase, then a summary)"),
    Switch("GRAPHCELL_PROGRESS", "1",
           "0: no progress line for long compiles and no training progress bar"),
    Switch("GRAPHCELL_VERIFY", "0",
           "1: verify the IR before the first pass and after every pass"),
    Switch("GRAPHCELL_PRINT_AFTER", "",
           "pass names (comma-separated) after which the IR is printed to stderr"),
    Switch("GRAPHCELL_PRINT_RULES", "0",
           "1: simplify prints each rewrite rule that fires, to stderr"),
    Switch("GRAPHCELL_MALLOC_TUNING", "1",
           "0: leave glibc's malloc thresholds alone (graphcell raises them at the first "
           "PyNative op)"),
    Switch("GRAPHCELL_ARTIFACT_KEY", "",
           "the key that signs exported artifacts and makes their native code trusted at "
           "load (set_context(artifact_key=...) takes precedence)"),
)})
"""Every switch, by name."""

_OFF = ("", "0", "false", "no", "off")


def value(name: str) -> str:
    """The switch's value: the environment's (when set and not empty), else its default.
    KeyError for an undeclared name (declare it in :data:`SWITCHES`)."""
    default = SWITCHES[name].default
    return os.environ.get(name) or default


def on(name: str) -> bool:
    """Whether a yes/no switch is on (``0``, ``false``, ``no``, ``off`` and empty are off)."""
    return value(name).strip().lower() not in _OFF


def number(name: str) -> int | None:
    """A switch's value as a non-negative integer, or None when unset or not one."""
    text = value(name).strip()
    return int(text) if text.isdigit() else None


def words(name: str) -> list[str]:
    """A switch's value as words (comma- or space-separated)."""
    return value(name).replace(",", " ").split()

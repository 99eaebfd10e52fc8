"""The compile-cache log: hits, misses, and why each miss compiled (issue 5: "say WHY").

Every staged function (a ``@jit`` function, or a cell's construct in graph mode) keeps a
:class:`CacheLog`: the number of calls served from the cache, and one :class:`Compile` record per
compile with its reason — ``first call``, ``new input signature: x f32[2,3] -> f32[4,3]``,
``training flag changed: True -> False``, ``attribute changed: Threshold.value: 20 -> 30``,
``parameter shape changed: b f32[3] -> f32[4]``, ``forward hooks registered on ReLU``...

``graphcell.graph.cache_info()`` gathers the logs of every live staged function; pass a cell or a
``@jit`` function to get its own.

Example::

    >>> log = CacheLog("add_fn")
    >>> log.compiled("first call", "x f32[4,4], y f32[4,4]"); log.hit(); log.hit()
    >>> print(log)
    add_fn: 2 hits, 1 compile
      compile 1: first call (x f32[4,4], y f32[4,4])
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

__all__ = ["CacheLog", "Compile", "CacheInfo"]

MAX_RECORDS = 100
"""Compile records kept per function (the oldest are dropped; the counts stay exact)."""


@dataclass(frozen=True)
class Compile:
    """One compile: why it happened and for which inputs."""
    reason: str
    signature: str

    def __str__(self) -> str:
        return f"{self.reason} ({self.signature})" if self.signature else self.reason


class CacheLog:
    """Hits and compiles of one staged function. ``misses`` counts compiles."""

    __slots__ = ("name", "hits", "misses", "compiles", "__weakref__")

    def __init__(self, name: str):
        self.name = name
        self.hits = 0
        self.misses = 0
        self.compiles: list[Compile] = []
        _LOGS.add(self)

    def hit(self) -> None:
        self.hits += 1

    def compiled(self, reason: str, signature: str = "") -> None:
        self.misses += 1
        self.compiles.append(Compile(reason, signature))
        del self.compiles[:-MAX_RECORDS]

    @property
    def reasons(self) -> list[str]:
        """The reason of each compile, oldest first."""
        return [c.reason for c in self.compiles]

    def clear(self) -> None:
        self.hits = self.misses = 0
        self.compiles.clear()

    def __str__(self) -> str:
        def plural(n, word):
            return f"{n} {word}{'' if n == 1 else 's'}"
        lines = [f"{self.name}: {plural(self.hits, 'hit')}, {plural(self.misses, 'compile')}"]
        first = self.misses - len(self.compiles) + 1
        lines += [f"  compile {first + i}: {c}" for i, c in enumerate(self.compiles)]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<CacheLog {self.name}: {self.hits} hits, {self.misses} compiles>"


class LiveSet:
    """The live objects of a kind (weakly held), safe to add to and list from several threads
    (a WeakSet alone can change size while another thread lists it)."""

    def __init__(self):
        self._items: weakref.WeakSet = weakref.WeakSet()
        self._lock = threading.Lock()

    def add(self, item) -> None:
        with self._lock:
            self._items.add(item)

    def snapshot(self) -> list:
        with self._lock:
            return list(self._items)


_LOGS = LiveSet()


class CacheInfo:
    """The logs of several staged functions (``graphcell.graph.cache_info()``)."""

    def __init__(self, logs: list[CacheLog]):
        self.logs = logs

    @property
    def hits(self) -> int:
        return sum(log.hits for log in self.logs)

    @property
    def misses(self) -> int:
        return sum(log.misses for log in self.logs)

    @property
    def reasons(self) -> list[str]:
        return [r for log in self.logs for r in log.reasons]

    def __str__(self) -> str:
        return "\n".join(str(log) for log in self.logs) or "no compiled functions"

    def __repr__(self) -> str:
        return f"<CacheInfo: {len(self.logs)} functions, {self.hits} hits, {self.misses} compiles>"


def all_logs() -> list[CacheLog]:
    """Every live log, by name."""
    return sorted(_LOGS.snapshot(), key=lambda log: log.name)

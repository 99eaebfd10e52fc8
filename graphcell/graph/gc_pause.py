"""Python's cyclic garbage collector paused while graph mode compiles.

A compile allocates ~170k objects that live until it ends (ASTs, IR, llvmlite's IR, kernel
sources); the collector's passes over them, none of which frees anything, took 7-8% of a small
ViT train step's cold compile (0.77 -> 0.71 s, the frontend to the first run's kernel
compiles). What a compile leaves as garbage is collected at the next collection after it.

Example::

    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
"""
from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def collector_paused():
    """The collector off inside, as it was after (a user who turned it off keeps it off).
    Process wide: a compile in another thread at the same time may see it on again sooner,
    which costs time, never correctness."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()

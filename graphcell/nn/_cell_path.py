"""Which cell a PyNative error happened in: ``net.fc2 (Dense)``.

``Cell.__call__`` runs PyNative ``construct`` inside :func:`running`, which keeps the cells being
run on a per-thread stack. An error leaving the innermost cell gets one line naming that cell by
its path from the outermost cell that was called (``net`` stands for that cell; its class is
said too), as the parameters are named: ``fc2``, ``layers.1``. The error keeps its type; the
cells it passes through on the way out add nothing more, and an error in the called cell's own
``construct`` gets no line (the caller knows which cell it called).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> net = nn.SequentialCell([nn.Dense(5, 4), nn.Dense(3, 2)])
    >>> net(ms.Tensor(np.ones((2, 5), np.float32)))
    Traceback (most recent call last):
    ...
    ValueError: Dense: expected an input whose last axis has in_channels=3 values, got Float32 [2, 4]
      in net.1 (Dense), where net is the SequentialCell called
"""
from __future__ import annotations

import threading

_MARK = "_graphcell_cell_path"
_state = threading.local()


def _stack() -> list:
    stack = getattr(_state, "cells", None)
    if stack is None:
        stack = _state.cells = []
    return stack


class running:
    """``with running(cell):`` runs the body as ``cell``'s PyNative call; an error leaving it
    names the cell once. (A class, not a generator: it wraps every PyNative cell call.)"""

    __slots__ = ("cell", "stack")

    def __init__(self, cell):
        self.cell = cell

    def __enter__(self):
        self.stack = _stack()
        self.stack.append(self.cell)

    def __exit__(self, kind, e, tb) -> bool:
        stack = self.stack
        try:
            if e is not None and isinstance(e, Exception) and len(stack) > 1 \
                    and getattr(e, _MARK, None) is None:   # the called cell itself: no news
                _annotate(e, describe(stack))
        except Exception:  # noqa: BLE001 - naming the cell must never hide the user's error
            pass
        finally:
            stack.pop()
        return False   # the error goes on, its type unchanged


def describe(stack: list) -> str:
    """``net.fc2 (Dense), where net is the LeNet5 called`` for the innermost cell of ``stack``."""
    root, cell = stack[0], stack[-1]
    parts: list[str] = []
    for parent, child in zip(stack, stack[1:]):
        name = _name_in(parent, child)
        if name is None:      # called without being an attribute of the cell before it
            parts = []
            root = child
            continue
        if name:
            parts.append(name)
    path = ".".join(["net", *parts])
    return f"{path} ({type(cell).__name__}), where net is the {type(root).__name__} called"


def _name_in(parent, child) -> str | None:
    if parent is child:
        return ""
    for name, c in parent.cells_and_names():
        if c is child:
            return name
    return None


def _annotate(e: Exception, where: str) -> None:
    line = f"  in {where}"
    try:
        setattr(e, _MARK, where)
    except AttributeError:   # an exception type that takes no attributes: leave it alone
        return
    if type(e).__str__ is BaseException.__str__ and len(e.args) == 1 and isinstance(e.args[0], str):
        e.args = (f"{e.args[0]}\n{line}",)
    else:
        e.add_note(line)

"""The seam between the PyNative layer and graph mode, without an import cycle.

``nn.Cell`` and the gradient functions (``graphcell/autodiff.py``) run through ``graphcell.graph``
in ``GRAPH_MODE``, and ``graphcell.graph`` is built on them (it compiles cells, classifies
gradient functions): were they to import it, the two would import each other. So the low layer
asks :func:`graph` for the graph-mode package, and graphcell's composition root
(``graphcell/__init__.py``, which every ``import graphcell...`` runs first) hands it over once
with :func:`provide` — as ``runtime/dispatch.py`` hands graphcell_ir its eager emitter. It is set
once per process and never changes; asking before it is set is an error that says so.

Example::

    >>> import graphcell
    >>> graph().bridge.__name__, graph().grad.__name__
    ('graphcell.graph.bridge', 'graphcell.graph.grad')
"""
from __future__ import annotations

import threading

_graph = None
_lock = threading.Lock()


def provide(package) -> None:
    """Give the low layer the graph-mode package (``graphcell.graph``: its ``bridge`` runs cells,
    its ``grad`` gradient functions). Only the composition root calls it, once."""
    global _graph
    with _lock:
        if _graph is not None and _graph is not package:
            raise RuntimeError("graph mode is provided already, by another package")
        _graph = package


def graph():
    """The graph-mode package (see :func:`provide`)."""
    if _graph is None:
        raise RuntimeError("graph mode is not available: graphcell.graph was not provided "
                           "(import graphcell, whose __init__ provides it)")
    return _graph

"""Graph mode: compiling ``construct`` and ``@jit`` functions through graphcell_ir, and running them.

The pieces, in the order a call meets them (DESIGN §2):

- ``jit.py`` — ``graphcell.jit`` / ``ms_function``; ``bridge.py`` — ``GRAPH_MODE`` cell calls,
  ``Cell.compile`` (the seam in ``nn/cell.py``) and ``set_inputs``' checks; ``entry.py`` — calls
  compiled without source of their own (a cell with its hooks, a gradient function);
- ``cache.py`` — the compile cache and the hot path of a call; ``signature.py`` — input keys;
  ``guards.py`` and ``reads.py`` — which attributes a compile read, and whether they changed;
  ``log.py`` — hits, compiles and why;
- ``compile.py`` — frontend + passes + guards; ``resolver.py`` — what Python objects mean to the
  compiler; ``traced.py`` — library code run on IR values; ``warn.py`` — graph-mode warnings;
  ``errors.py`` — errors without the compiler's frames;
- ``executor.py`` — running the compiled function, writing Parameters back; ``lowered.py`` — the
  IR text; ``grad.py`` — gradient functions called in ``GRAPH_MODE``.

Gradients (``grad.py``): ``ms.grad``, ``ms.value_and_grad`` and ``ops.GradOperation`` called in
``GRAPH_MODE`` compile forward and backward as one IR function; called inside compiled code
(``construct``, a ``@jit`` function, ``TrainOneStepCell``) they are compiled in place by the
frontend (``graphcell_ir/frontend/grads.py``), with a cell's custom ``bprop``. While a PyNative
gradient is being recorded, cells and ``@jit`` functions run as Python, so the tape sees their ops.

Hooks (DESIGN §9, §10.4): forward-pre and forward hooks are compiled in where a cell is called
when that behaves as PyNative, else they run as Python on the run-time values (``py_call``, their
gradient through their own PyNative tape, ``runtime/host.py``); ``ops.HookBackward``, a cell's
backward-pre and backward hooks and tensor hooks (``Tensor``/``Parameter.register_hook``) become
``hook_backward`` ops whose gradients call the hooks through ``host_callback`` ops when the graph
runs — the same callbacks, arguments, order and replaced gradients as PyNative
(``runtime/hooks.py``), visible in the IR text. A network without hooks compiles as if hooks did
not exist. ``print`` of tensors prints the run-time values.

JIT Fallback (MindSpore's): Python that needs run-time values (``x.asnumpy()``, numpy on
tensors, ``x[mask]``) runs as Python when the graph runs, with a warning; attribute writes in
``construct`` are set after a successful run (``graphcell_ir/frontend/attrs.py``).

What graph mode does not do yet: numpy arrays as inputs.

Example::

    >>> import graphcell as ms
    >>> from graphcell import graph
    >>> isinstance(graph.cache_info(), graph.CacheInfo)
    True
"""
from __future__ import annotations

from graphcell.graph import bridge, grad   # what runtime/graph_mode.py gives the low layer
from graphcell.graph.jit import JitFunction, jit, ms_function
from graphcell.graph.log import CacheInfo, CacheLog, all_logs
from graphcell.graph.lowered import Lowered
from graphcell.graph.warn import GraphModeWarning

__all__ = ["jit", "ms_function", "JitFunction", "Lowered", "CacheInfo", "CacheLog",
           "GraphModeWarning", "cache_info", "clear_cache"]


def cache_info(obj=None) -> CacheInfo:
    """The compile-cache log of ``obj`` — a cell (its graph-mode calls and ``@jit`` methods) or a
    ``@jit`` function — or of every compiled function when ``obj`` is None.

    Each log lists the hits, and every compile with its reason (``first call``, ``new input
    signature: x f32[2,3] -> f32[4,3]``, ``training flag changed``...).
    """
    if obj is None:
        return CacheInfo(all_logs())
    log = getattr(obj, "cache_log", None)
    if isinstance(log, CacheLog):
        return CacheInfo([log])
    cache = getattr(obj, "__dict__", {}).get("_graph_cache") or {}
    return CacheInfo([staged.log for key, staged in cache.items() if key != "call"])


def clear_cache(obj=None) -> None:
    """Forget compiled versions: of ``obj`` (a cell or a ``@jit`` function), or all of them."""
    from graphcell.graph.cache import ALL, Staged
    if obj is None:
        for staged in ALL.snapshot():
            staged.clear()
        return
    staged = getattr(obj, "_staged", None)
    if isinstance(staged, Staged):
        staged.clear()
    for s in (getattr(obj, "__dict__", {}).get("_graph_cache") or {}).values():
        s.clear()

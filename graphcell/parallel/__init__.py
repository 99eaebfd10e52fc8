"""``graphcell.parallel`` — training over the processes of a job, data-parallel.

``ParallelMode`` and the auto-parallel context (``_auto_parallel_context.py``, also reachable as
``graphcell.set_auto_parallel_context``...), the gradient reducer ``TrainOneStepCell`` adds in
data-parallel mode (``grad_reducer.py``, ``graphcell.nn.DistributedGradReducer``), and copying
rank 0's weights to every process (``replicas.py``); operator-level sharding's API
(``shard.py``: one process runs the function whole, as MindSpore does). The processes themselves are
``graphcell.communication``'s; how to launch them is in ``docs/distributed.md``.
"""
from graphcell.parallel._auto_parallel_context import (ParallelMode, get_auto_parallel_context,
                                                       reset_auto_parallel_context,
                                                       set_auto_parallel_context)
from graphcell.parallel.shard import (Layout, get_algo_parameters, reset_algo_parameters,
                                      set_algo_parameters, shard)

__all__ = ["ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context", "DistributedGradReducer", "broadcast_parameters",
           "shard", "Layout", "set_algo_parameters", "get_algo_parameters",
           "reset_algo_parameters"]

# graphcell.context imports this package while graphcell.nn is not loaded yet: the names that
# need nn are loaded when first asked for
_LATER = {"DistributedGradReducer": "graphcell.parallel.grad_reducer",
          "broadcast_parameters": "graphcell.parallel.replicas"}


def __getattr__(name: str):
    if name in _LATER:
        import importlib
        value = getattr(importlib.import_module(_LATER[name]), name)
        globals()[name] = value
        return value
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.parallel", name, "module 'graphcell.parallel'")

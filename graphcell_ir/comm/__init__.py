"""The communication engine: collectives across the processes of a job, on numpy arrays.

The collective ops of the registry (``graphcell_ir/ops/collective.py``) name their group by a
string; their references look it up here (:func:`group`) and run it. Until :func:`start` the
world is this process alone and every collective is the identity, as in a world of one; after
it, an MPI job's (mpi4py, ``mpi.py``). graphcell's ``communication`` module is the user's face
of this engine (``init``, ``get_rank``, ``create_group``...).

Example::

    >>> import numpy as np
    >>> from graphcell_ir import comm
    >>> comm.group("hccl_world_group").all_gather(np.array([[1, 2]]))
    array([[1, 2]])
"""
from graphcell_ir.comm.world import (REDUCE_OPS, WORLD_GROUP_NAMES, CommStats, Group,
                                     LocalGroup, LocalWorld, World, group, is_world_name,
                                     release, start, world)
from graphcell_ir.errors import CommError, CommNotInstalledError

__all__ = ["REDUCE_OPS", "WORLD_GROUP_NAMES", "CommStats", "Group", "LocalGroup", "LocalWorld",
           "World", "group", "is_world_name", "release", "start", "world", "CommError",
           "CommNotInstalledError"]

"""``mindspore.communication``: start the job's communication and ask about its processes.

A data-parallel job is N copies of one script, launched with ``mpiexec -n N python train.py``
(``docs/distributed.md``). Each copy calls :func:`init`, which joins the MPI job (mpi4py and an
MPI library: ``pip install 'graphcell[distributed]'``); :func:`get_rank` and
:func:`get_group_size` then say which of the N it is. Before ``init`` — and in a script run
without ``mpiexec`` — the world is this process alone: rank 0 of 1, where every collective is
the identity, as MindSpore's ``get_rank()`` and ``get_group_size()`` answer before ``init``.

The engine underneath is ``graphcell_ir.comm``: these functions are its MindSpore face. Group
names are MindSpore's: the world is ``GlobalComm.WORLD_COMM_GROUP`` (any of ``hccl_world_group``,
``nccl_world_group``, ``mccl_world_group``), other groups are made by :func:`create_group` on
their members.

Example (one process, no ``init``)::

    >>> from graphcell.communication import get_rank, get_group_size, GlobalComm
    >>> get_rank(), get_group_size(), GlobalComm.INITED
    (0, 1, False)
"""
from __future__ import annotations

import os
import sys
import warnings

from graphcell_ir import comm
from graphcell_ir.comm import WORLD_GROUP_NAMES

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_local_rank", "get_group_size",
           "get_local_rank_size", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank", "create_group", "destroy_group",
           "get_process_group_ranks", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP",
           "MCCL_WORLD_COMM_GROUP"]

HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP = WORLD_GROUP_NAMES


class GlobalComm:
    """MindSpore's communication state: ``WORLD_COMM_GROUP`` (the world's name: ``hccl_world_group``
    until :func:`init`, then ``mccl_world_group``, the CPU backend's, as on MindSpore's CPU
    build), ``BACKEND`` and ``INITED``."""

    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


_BACKENDS = ("hccl", "nccl", "mccl")


def init(backend_name=None) -> None:
    """Join the job this process was launched in (``mpiexec -n N python script.py``).

    ``backend_name``: ``None`` or ``"mccl"`` (MindSpore's CPU backend); ``"hccl"``/``"nccl"`` warn
    and communicate over MPI on the CPU too. Needs mpi4py and an MPI library
    (``pip install 'graphcell[distributed]'``; the error says so). Without ``mpiexec`` the job is
    this process alone. After ``init``: numpy's BLAS uses the machine's cores divided among the
    job's processes on it, and an exception that ends one process ends the whole job (the
    others would wait for it in their next collective forever).
    """
    if backend_name is not None and not isinstance(backend_name, str):
        raise TypeError("For 'init', the argument 'backend_name' must be a string, but got "
                        f"{type(backend_name).__name__}")
    if backend_name is not None and backend_name not in _BACKENDS:
        raise RuntimeError("For 'init', the argument 'backend_name' must be one of 'hccl', "
                           f"'nccl' and 'mccl', but got {backend_name!r}")
    if backend_name in ("hccl", "nccl"):
        warnings.warn(f"init({backend_name!r}): graphcell runs on the CPU and communicates over "
                      "MPI (MindSpore's 'mccl'); continuing with MPI", RuntimeWarning,
                      stacklevel=2)
    world = comm.start("mpi")
    GlobalComm.BACKEND = "mccl"
    GlobalComm.WORLD_COMM_GROUP = MCCL_WORLD_COMM_GROUP
    GlobalComm.INITED = True
    for key, value in (("RANK_ID", world.rank), ("RANK_SIZE", world.size),
                       ("DEVICE_ID", world.local_rank)):
        os.environ.setdefault(key, str(value))   # what MindSpore's scripts read
    _share_cores(world)
    _abort_job_on_uncaught_exception(world)


def release() -> None:
    """End this process's part in the job: its groups are freed and collectives refuse to run
    until :func:`init` is called again. MPI itself is finalised when the process exits."""
    comm.release()
    GlobalComm.INITED = False


def _group(group, fn: str) -> str:
    if not isinstance(group, str):
        raise TypeError(f"For '{fn}', the argument 'group' must be type of string, but got "
                        f"'group' type : {type(group)}.")
    return group


def get_rank(group=GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank in ``group`` (0 before :func:`init`)."""
    return comm.group(_group(group, "get_rank")).rank


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of processes in ``group`` (1 before :func:`init`)."""
    return comm.group(_group(group, "get_group_size")).size


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank among the members of ``group`` on its machine."""
    return _local_members(_group(group, "get_local_rank")).index(comm.world().rank)


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of members of ``group`` on this process's machine."""
    return len(_local_members(_group(group, "get_local_rank_size")))


def _local_members(group: str) -> list[int]:
    world = comm.world()
    on_machine = set(world.node_ranks)
    return [r for r in comm.group(group).ranks if r in on_machine]


def get_world_rank_from_group_rank(group, group_rank_id) -> int:
    """The world rank of the process that is ``group_rank_id`` in ``group``."""
    ranks = comm.group(_group(group, "get_world_rank_from_group_rank")).ranks
    _rank_arg(group_rank_id, "group_rank_id", "get_world_rank_from_group_rank")
    if not 0 <= group_rank_id < len(ranks):
        raise ValueError(f"get_world_rank_from_group_rank: group {group!r} has ranks 0.."
                         f"{len(ranks) - 1}, got {group_rank_id}")
    return ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group) -> int:
    """The rank in ``group`` of the process whose world rank is ``world_rank_id``."""
    ranks = comm.group(_group(group, "get_group_rank_from_world_rank")).ranks
    _rank_arg(world_rank_id, "world_rank_id", "get_group_rank_from_world_rank")
    if world_rank_id not in ranks:
        raise ValueError(f"get_group_rank_from_world_rank: world rank {world_rank_id} is not in "
                         f"group {group!r} (world ranks {list(ranks)})")
    return ranks.index(world_rank_id)


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP) -> list[int]:
    """The world ranks of ``group``'s members, in group order."""
    return list(comm.group(_group(group, "get_process_group_ranks")).ranks)


def create_group(group, rank_ids, options=None) -> None:
    """Make a group called ``group`` of the world ranks ``rank_ids``. Only its members call it
    (``if get_rank() in rank_ids: create_group(name, rank_ids)``), each with the same arguments;
    ``options`` (MindSpore's HCCL settings) is accepted and ignored."""
    _group(group, "create_group")
    if not isinstance(rank_ids, list):
        raise TypeError("For 'create_group', the argument 'rank_ids' must be type of list, but "
                        f"got 'rank_ids' type : {type(rank_ids)}.")
    if not rank_ids:
        raise ValueError("For 'create_group', the argument 'rank_ids' must not be empty")
    for r in rank_ids:
        _rank_arg(r, "rank_ids", "create_group")
    comm.world().create_group(group, tuple(rank_ids))


def destroy_group(group) -> None:
    """Free the group called ``group`` (made by :func:`create_group`)."""
    comm.world().destroy_group(_group(group, "destroy_group"))


def _rank_arg(value, name: str, fn: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{fn}', the argument '{name}' must hold ints, got {value!r}")


def _share_cores(world) -> None:
    """numpy's BLAS with the machine's cores divided among the job's processes on it: N processes
    each starting all cores' threads would fight over them."""
    if world.local_size <= 1 or os.environ.get("GRAPHCELL_BLAS_THREADS"):
        return
    from graphcell_ir.backend import blas_threads
    blas_threads.limit(max(1, (os.cpu_count() or 1) // world.local_size))


def _abort_job_on_uncaught_exception(world) -> None:
    """An exception that ends this process ends the job, after its traceback is printed: the
    other processes would otherwise wait in their next collective forever."""
    if world.size <= 1 or getattr(sys.excepthook, "_graphcell_aborts", False):
        return
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        comm.world().abort(1)
    hook._graphcell_aborts = True
    sys.excepthook = hook

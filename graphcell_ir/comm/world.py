"""The process's communication world: its rank, its size, and its groups by name.

Until :func:`start` runs, the world is this process alone (:class:`LocalWorld`): rank 0 of 1,
where every collective is the identity (a copy), as it is in a world of one. :func:`start` makes
the world an MPI job's (``graphcell_ir.comm.mpi``); :func:`release` ends this process's part in
it. The current world is the one piece of state here, set by those calls, never at import.

A *group* runs the collectives on numpy arrays and returns new arrays; ranks inside a group are
the group's own (0 .. size-1), ``ranks`` lists the world ranks of its members. The names
MindSpore gives the world (``hccl_world_group``, ``nccl_world_group``, ``mccl_world_group``) all
mean the world group, so a script written for any backend runs.

Example::

    >>> import numpy as np
    >>> w = world()
    >>> w.rank, w.size, w.backend
    (0, 1, 'local')
    >>> w.group("hccl_world_group").all_reduce(np.array([1.0, 2.0]), "sum")
    array([1., 2.])
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from graphcell_ir.errors import CommError

__all__ = ["WORLD_GROUP_NAMES", "REDUCE_OPS", "Group", "LocalGroup", "World", "LocalWorld",
           "CommStats", "world", "group", "start", "release", "is_world_name"]

WORLD_GROUP_NAMES = ("hccl_world_group", "nccl_world_group", "mccl_world_group")
"""The names MindSpore gives the group of every process (Ascend, GPU, CPU)."""

REDUCE_OPS = ("sum", "max", "min", "prod", "avg")
"""MindSpore's ``ReduceOp`` values; ``avg`` is the sum divided by the group's size."""


def is_world_name(name: str) -> bool:
    return name in WORLD_GROUP_NAMES


@dataclass
class CommStats:
    """What the collectives of this process cost: calls, bytes sent in, seconds spent (waiting for
    the other processes included), per collective. ``reset()`` starts counting again."""

    calls: dict[str, int] = field(default_factory=dict)
    bytes: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def record(self, kind: str, nbytes: int, seconds: float) -> None:
        self.calls[kind] = self.calls.get(kind, 0) + 1
        self.bytes[kind] = self.bytes.get(kind, 0) + nbytes
        self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds

    def total_seconds(self) -> float:
        return sum(self.seconds.values())

    def total_bytes(self) -> int:
        return sum(self.bytes.values())

    def reset(self) -> None:
        self.calls.clear()
        self.bytes.clear()
        self.seconds.clear()


class Group:
    """A communication group: ``name``, ``ranks`` (the world ranks of its members), ``rank``
    (this process's rank in it) and ``size``; the collectives take and return numpy arrays.

    Subclasses implement the ``_`` methods on C-contiguous arrays; the public methods check the
    op, time the call into the world's :class:`CommStats` and name the group in errors.
    """

    def __init__(self, name: str, ranks: tuple[int, ...], rank: int, stats: CommStats):
        self.name, self.ranks, self.rank, self.stats = name, tuple(ranks), rank, stats

    @property
    def size(self) -> int:
        return len(self.ranks)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}: rank {self.rank} of {self.size}>"

    # --- the collectives ------------------------------------------------------------------------

    def all_reduce(self, x: np.ndarray, op: str) -> np.ndarray:
        """The elementwise reduction of every member's ``x``, on every member."""
        _check_op(op)
        return self._timed("all_reduce", x, lambda a: self._all_reduce(a, op))

    def all_gather(self, x: np.ndarray) -> np.ndarray:
        """Every member's ``x`` concatenated along axis 0, in rank order."""
        return self._timed("all_gather", x, self._all_gather)

    def broadcast(self, x: np.ndarray, root: int) -> np.ndarray:
        """Member ``root``'s ``x`` (a group rank), on every member."""
        self._check_root(root)
        return self._timed("broadcast", x, lambda a: self._broadcast(a, root))

    def reduce_scatter(self, x: np.ndarray, op: str) -> np.ndarray:
        """The reduction of every member's ``x``, cut along axis 0 into ``size`` blocks; member
        ``r`` gets block ``r``."""
        _check_op(op)
        if x.ndim == 0 or x.shape[0] % self.size:
            raise CommError(f"reduce_scatter over group {self.name!r} of {self.size}: the first "
                            f"dimension of shape {list(x.shape)} is not a multiple of {self.size}")
        return self._timed("reduce_scatter", x, lambda a: self._reduce_scatter(a, op))

    def reduce(self, x: np.ndarray, op: str, root: int) -> np.ndarray:
        """The reduction of every member's ``x`` on member ``root``; zeros on the others."""
        _check_op(op)
        self._check_root(root)
        return self._timed("reduce", x, lambda a: self._reduce(a, op, root))

    def barrier(self) -> None:
        """Return when every member has called it."""
        t0 = time.perf_counter()
        self._barrier()
        self.stats.record("barrier", 0, time.perf_counter() - t0)

    # --- helpers ----------------------------------------------------------------------------------

    def _timed(self, kind: str, x: np.ndarray, run) -> np.ndarray:
        a = np.asarray(x, order="C")   # (ascontiguousarray would make a 0-d array 1-d)
        t0 = time.perf_counter()
        out = run(a)
        self.stats.record(kind, a.nbytes, time.perf_counter() - t0)
        return out

    def _check_root(self, root: int) -> None:
        if not 0 <= root < self.size:
            raise CommError(f"root rank {root} is not in group {self.name!r} (ranks 0.."
                            f"{self.size - 1})")

    def _all_reduce(self, a, op):
        raise NotImplementedError

    def _all_gather(self, a):
        raise NotImplementedError

    def _broadcast(self, a, root):
        raise NotImplementedError

    def _reduce_scatter(self, a, op):
        raise NotImplementedError

    def _reduce(self, a, op, root):
        raise NotImplementedError

    def _barrier(self):
        raise NotImplementedError


def _check_op(op: str) -> None:
    if op not in REDUCE_OPS:
        raise CommError(f"unknown reduction {op!r}; expected one of {list(REDUCE_OPS)}")


class LocalGroup(Group):
    """A group of this process alone: every collective is a copy of its input (``avg`` of one
    value is the value)."""

    def _all_reduce(self, a, op):
        return a.copy()

    def _all_gather(self, a):
        return a.copy()

    def _broadcast(self, a, root):
        return a.copy()

    def _reduce_scatter(self, a, op):
        return a.copy()

    def _reduce(self, a, op, root):
        return a.copy()

    def _barrier(self):
        pass


class World:
    """The processes of a job: this one's ``rank`` of ``size``, its ``local_rank`` of the
    ``local_size`` processes on its machine (``node_ranks``: their world ranks), and the groups
    created so far."""

    backend = "local"

    def __init__(self, rank: int, size: int, node_ranks: tuple[int, ...], world_group: Group):
        self.rank, self.size = rank, size
        self.node_ranks = tuple(node_ranks)   # the world ranks on this process's machine
        self.local_rank, self.local_size = self.node_ranks.index(rank), len(self.node_ranks)
        self.stats = world_group.stats
        self._world_group = world_group
        self._groups: dict[str, Group] = {}
        self.released = False

    def group(self, name: str) -> Group:
        """The group called ``name`` (any of MindSpore's world names is the world)."""
        if self.released:
            raise CommError(f"communication was released (communication.release()); group "
                            f"{name!r} cannot be used any more in this process")
        if is_world_name(name):
            return self._world_group
        found = self._groups.get(name)
        if found is None:
            known = ", ".join(repr(n) for n in (WORLD_GROUP_NAMES[0], *self._groups))
            raise CommError(f"no communication group named {name!r} in this process (rank "
                            f"{self.rank}); known groups: {known}. Create it with "
                            "communication.create_group(name, rank_ids) on its members first")
        return found

    def create_group(self, name: str, ranks: tuple[int, ...]) -> Group:
        """A new group of the world ranks ``ranks`` (this process must be one of them; every
        member calls it, with the same arguments)."""
        if self.released:
            raise CommError("communication was released; no group can be created")
        if is_world_name(name):
            raise CommError(f"{name!r} is the name of the world group; choose another name")
        ranks = tuple(ranks)
        known = self._groups.get(name)
        if known is not None:
            if known.ranks != ranks:
                raise CommError(f"group {name!r} already exists with ranks {list(known.ranks)}, "
                                f"not {list(ranks)}")
            return known
        bad = [r for r in ranks if not 0 <= r < self.size]
        if bad:
            raise CommError(f"create_group({name!r}): ranks {bad} are not in the world of "
                            f"{self.size} process(es) (ranks 0..{self.size - 1})")
        if len(set(ranks)) != len(ranks):
            raise CommError(f"create_group({name!r}): rank_ids {list(ranks)} repeat a rank")
        if self.rank not in ranks:
            raise CommError(f"create_group({name!r}): this process (rank {self.rank}) is not in "
                            f"rank_ids {list(ranks)}; only the members of a group create it "
                            "(if get_rank() in rank_ids: create_group(...))")
        made = self._make_group(name, ranks)
        self._groups[name] = made
        return made

    def destroy_group(self, name: str) -> None:
        if is_world_name(name):
            raise CommError(f"{name!r} is the world group, which cannot be destroyed")
        if self._groups.pop(name, None) is None:
            raise CommError(f"no communication group named {name!r} to destroy")

    def _make_group(self, name: str, ranks: tuple[int, ...]) -> Group:
        return LocalGroup(name, ranks, ranks.index(self.rank), self.stats)

    def release(self) -> None:
        self._groups.clear()
        self.released = True

    def abort(self, code: int = 1) -> None:
        """End every process of the job (a failure on one rank would leave the others waiting
        in a collective forever)."""

    @property
    def user_groups(self) -> tuple[str, ...]:
        return tuple(self._groups)


class LocalWorld(World):
    """This process alone: rank 0 of 1."""

    def __init__(self):
        stats = CommStats()
        super().__init__(0, 1, (0,), LocalGroup(WORLD_GROUP_NAMES[0], (0,), 0, stats))


_current: list[World] = [LocalWorld()]


def world() -> World:
    """The current world (this process alone until :func:`start`)."""
    return _current[0]


def group(name: str) -> Group:
    """``world().group(name)``: what the collective ops' references call."""
    return _current[0].group(name)


def start(backend: str = "mpi") -> World:
    """Join the job this process was launched in (``mpiexec -n N python ...``) and make it the
    current world; a second call returns the same world. Without an MPI launcher, the job is this
    process alone (MPI's singleton start). ``backend``: ``"mpi"`` (the only one)."""
    if backend != "mpi":
        raise CommError(f"unknown communication backend {backend!r}; graphcell communicates over "
                        "MPI ('mpi')")
    current = _current[0]
    if current.backend == "mpi" and not current.released:
        return current
    from graphcell_ir.comm.mpi import MPIWorld
    _current[0] = MPIWorld.join()
    return _current[0]


def release() -> None:
    """End this process's part in the job: its groups are freed and collectives refuse to run."""
    _current[0].release()

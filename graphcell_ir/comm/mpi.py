"""The collectives over MPI, through mpi4py: the engine of a job launched with ``mpiexec``.

mpi4py is imported here only, when :func:`graphcell_ir.comm.start` asks for MPI (importing it
initialises MPI). Arrays travel as buffers (no pickling): ``Allreduce``, ``Allgather``,
``Bcast``, ``Reduce_scatter_block`` and ``Reduce`` on C-contiguous numpy arrays. MPI has no
float16 reduction, so float16 values are reduced in float32 and rounded back (as MindSpore's
gradient reducer casts them); ``avg`` is a sum divided by the group's size.

MPI's own errors (mpi4py raises ``MPI.Exception`` on the predefined communicators) become
:class:`CommError` naming the collective and the group. Processes that call collectives in
different orders or with different shapes wait for each other forever or get MPI's truncation
error: every rank must run the same program (graphcell compiles it identically on each).
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.comm.world import CommStats, Group, World, WORLD_GROUP_NAMES
from graphcell_ir.errors import CommError, CommNotInstalledError

__all__ = ["MPIWorld", "MPIGroup", "INSTALL_HINT"]

INSTALL_HINT = ("install the 'distributed' extra: pip install 'graphcell[distributed]' (it pulls "
                "mpi4py and the mpich MPI library from the package registry; any other MPI with "
                "mpi4py built against it works too)")


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise CommNotInstalledError("communication across processes needs mpi4py and an MPI "
                                    f"library, which are not installed: {INSTALL_HINT}") from e
    return MPI


def _op(MPI, op: str):
    return {"sum": MPI.SUM, "avg": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN,
            "prod": MPI.PROD}[op]


class MPIGroup(Group):
    """A group backed by an MPI communicator."""

    def __init__(self, name: str, ranks: tuple[int, ...], comm, stats: CommStats):
        super().__init__(name, ranks, comm.Get_rank(), stats)
        self.comm = comm
        self._MPI = _mpi()

    def _call(self, kind: str, run):
        try:
            return run()
        except self._MPI.Exception as e:
            raise CommError(f"{kind} over group {self.name!r} (rank {self.rank} of {self.size}) "
                            f"failed in MPI: {e.Get_error_string().strip()}") from None

    def _all_reduce(self, a, op):
        send, back = _widened(a)
        out = np.empty_like(send)
        self._call("all_reduce", lambda: self.comm.Allreduce(send, out, op=_op(self._MPI, op)))
        return back(self._averaged(out, op))

    def _all_gather(self, a):
        out = np.empty((self.size * a.shape[0], *a.shape[1:]), a.dtype)
        self._call("all_gather", lambda: self.comm.Allgather(a, out))
        return out

    def _broadcast(self, a, root):
        buf = a.copy()
        self._call("broadcast", lambda: self.comm.Bcast(buf, root=root))
        return buf

    def _reduce_scatter(self, a, op):
        send, back = _widened(a)
        out = np.empty((a.shape[0] // self.size, *a.shape[1:]), send.dtype)
        self._call("reduce_scatter",
                   lambda: self.comm.Reduce_scatter_block(send, out, op=_op(self._MPI, op)))
        return back(self._averaged(out, op))

    def _reduce(self, a, op, root):
        send, back = _widened(a)
        out = np.zeros_like(send)   # MPI writes only the root's: the others keep zeros
        self._call("reduce", lambda: self.comm.Reduce(send, out, op=_op(self._MPI, op),
                                                      root=root))
        return back(self._averaged(out, op))

    def _barrier(self):
        self._call("barrier", self.comm.Barrier)

    def _averaged(self, out, op):
        if op == "avg":
            out /= out.dtype.type(self.size)
        return out


def _widened(a: np.ndarray):
    """``a`` as MPI can reduce it, and how to turn the result back: float16 goes through
    float32."""
    if a.dtype == np.float16:
        return a.astype(np.float32), lambda r: r.astype(np.float16)
    return a, lambda r: r


class MPIWorld(World):
    """The world of an MPI job (``MPI.COMM_WORLD``)."""

    backend = "mpi"

    def __init__(self, comm, local_comm):
        self._MPI = _mpi()
        self.comm = comm
        stats = CommStats()
        size = comm.Get_size()
        world_group = MPIGroup(WORLD_GROUP_NAMES[0], tuple(range(size)), comm, stats)
        mine, everyone = local_comm.Get_group(), comm.Get_group()
        node = self._MPI.Group.Translate_ranks(mine, list(range(local_comm.Get_size())),
                                               everyone)
        mine.Free()
        everyone.Free()
        super().__init__(comm.Get_rank(), size, tuple(sorted(node)), world_group)

    @classmethod
    def join(cls) -> "MPIWorld":
        MPI = _mpi()
        comm = MPI.COMM_WORLD
        local = comm.Split_type(MPI.COMM_TYPE_SHARED)   # the processes sharing this machine
        return cls(comm, local)

    def _make_group(self, name: str, ranks: tuple[int, ...]) -> Group:
        # MPI_Comm_create_group is collective over the group's members only, as MindSpore's
        # create_group is called by the members
        everyone = self.comm.Get_group()
        members = everyone.Incl(list(ranks))
        try:
            sub = self.comm.Create_group(members)
        except self._MPI.Exception as e:
            raise CommError(f"create_group({name!r}, {list(ranks)}) failed in MPI: "
                            f"{e.Get_error_string().strip()}") from None
        finally:
            members.Free()
            everyone.Free()
        return MPIGroup(name, ranks, sub, self.stats)

    def destroy_group(self, name: str) -> None:
        found = self._groups.get(name)
        super().destroy_group(name)
        if isinstance(found, MPIGroup):
            found.comm.Free()

    def release(self) -> None:
        for g in self._groups.values():
            if isinstance(g, MPIGroup):
                g.comm.Free()
        super().release()

    def abort(self, code: int = 1) -> None:
        self.comm.Abort(code)

"""Collective communication: MindSpore's Primitives ``AllReduce``, ``AllGather``, ``Broadcast``,
``ReduceScatter`` and ``Reduce``, and its functions ``ops.all_reduce``, ``ops.all_gather``,
``ops.all_gather_into_tensor``, ``ops.broadcast``, ``ops.reduce_scatter``,
``ops.reduce_scatter_tensor``, ``ops.reduce`` and ``ops.barrier``.

The Primitives are the registry's collective ops (``graphcell_ir/ops/collective.py``) with
MindSpore 2.10's constructors: they run in PyNative and compile in graph mode, and have gradients
in both (the gradient of ``AllReduce``-sum is ``AllReduce``-sum, of ``AllGather`` is
``ReduceScatter``-sum...). ``Broadcast(root_rank)`` takes and returns a tuple of tensors, and its
``root_rank`` is a world rank, as in MindSpore; ``AllGather``/``ReduceScatter`` read the group's
size when they are called. ``ReduceOp.AVG`` and, on the CPU, ``MAX``/``MIN``/``PROD`` and
``ReduceScatter`` are supported (MindSpore 2.10's CPU build has only ``AllReduce``-sum,
``AllGather`` and ``Broadcast``); ``Reduce`` gives zeros of the input's shape on the processes
other than its ``dest_rank`` (MindSpore: a meaningless tensor of shape [1]).

The functions have MindSpore 2.10's ``mindspore.ops.communication`` signatures: they write their
result *into* their tensor arguments and return None (or, with ``async_op=True``, a
:class:`CommHandle` whose ``wait()`` returns at once: graphcell's collectives have finished when
the call returns). As in MindSpore they run in PyNative only; in graph mode use the Primitives.
Before ``communication.init()`` everything runs in a world of one process, where each collective
is the identity.

Example (one process)::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> x = ms.Tensor([1.0, 2.0])
    >>> ops.AllReduce()(x).asnumpy(), ops.AllGather()(x).shape
    (array([1., 2.], dtype=float32), (2,))
    >>> ops.all_reduce(x) is None
    True
"""
from __future__ import annotations

from graphcell.communication.management import GlobalComm
from graphcell.ops.function.other_func import ReduceOp
from graphcell.ops.primitive import FunctionPrimitive
from graphcell.runtime import dispatch
from graphcell.tensor import Tensor
from graphcell_ir import comm
from graphcell_ir.ops import functional as F

__all__ = ["AllReduce", "AllGather", "Broadcast", "ReduceScatter", "Reduce",
           "all_reduce", "all_gather", "all_gather_into_tensor", "broadcast", "reduce_scatter",
           "reduce_scatter_tensor", "reduce", "barrier", "CommHandle"]

_WORLD = GlobalComm.WORLD_COMM_GROUP


def _tensor(x, where: str, what: str = "input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{where}: '{what}' must be a Tensor, got {type(x).__name__}")
    return x


def _op(op, where: str) -> str:
    if not isinstance(op, str):
        raise TypeError(f"{where}: 'op' must be a str (ReduceOp), got {type(op).__name__}")
    if op not in comm.REDUCE_OPS:
        raise ValueError(f"{where}: 'op' must be one of {list(comm.REDUCE_OPS)} (ReduceOp), got "
                         f"{op!r}")
    return op


def _group(group, where: str) -> str:
    if group is None:
        return GlobalComm.WORLD_COMM_GROUP
    if not isinstance(group, str):
        raise TypeError(f"{where}: 'group' must be a str, got {type(group).__name__}")
    return group


def _group_rank(world_rank, group: str, where: str, what: str) -> int:
    """The rank in ``group`` of the process whose world rank is ``world_rank``."""
    if isinstance(world_rank, bool) or not isinstance(world_rank, int):
        raise TypeError(f"{where}: '{what}' must be an int, got {world_rank!r}")
    ranks = comm.group(group).ranks
    if world_rank not in ranks:
        raise ValueError(f"{where}: '{what}' {world_rank} is not a member of group {group!r} "
                         f"(world ranks {list(ranks)})")
    return ranks.index(world_rank)


# --- the Primitives ----------------------------------------------------------------------------

def _all_reduce_call(input_x, op=ReduceOp.SUM, group=_WORLD):
    _tensor(input_x, "AllReduce", "input_x")
    comm.group(group)   # an unknown group fails here: in graph mode, at the user's line
    return F.all_reduce(input_x, op=op, group=group)


def _all_gather_call(input_x, group=_WORLD):
    _tensor(input_x, "AllGather", "input_x")
    return F.all_gather(input_x, group=group, rank_size=comm.group(group).size)


def _broadcast_call(input_x, root_rank=0, group=_WORLD):
    if not isinstance(input_x, (tuple, list)):
        got = "a Tensor" if isinstance(input_x, Tensor) else type(input_x).__name__
        raise TypeError("Broadcast: 'input_x' must be a tuple of Tensors (ops.Broadcast(root)((x,"
                        f"))), got {got}")
    root = _group_rank(root_rank, group, "Broadcast", "root_rank")
    return tuple(F.broadcast(_tensor(x, "Broadcast", "input_x"), root_rank=root, group=group)
                 for x in input_x)


def _reduce_scatter_call(input_x, op=ReduceOp.SUM, group=_WORLD):
    _tensor(input_x, "ReduceScatter", "input_x")
    return F.reduce_scatter(input_x, op=op, group=group, rank_size=comm.group(group).size)


def _reduce_call(x, dest_rank=0, op=ReduceOp.SUM, group=_WORLD):
    _tensor(x, "Reduce", "x")
    comm.group(group)
    return F.reduce(x, op=op, root_rank=dest_rank, group=group)


class _Collective(FunctionPrimitive):
    """A collective Primitive: its arguments are checked when it is made, as MindSpore's are."""

    def _check_init(self, given: dict) -> dict:
        where = self.name
        if "op" in given:
            _op(given["op"], where)
        if "group" in given:
            _group(given["group"], where)
        for name in ("root_rank", "dest_rank"):
            if name in given and (isinstance(given[name], bool)
                                  or not isinstance(given[name], int) or given[name] < 0):
                raise TypeError(f"{where}: '{name}' must be a non-negative int, got "
                                f"{given[name]!r}")
        return given

    @property
    def rank_size(self) -> int:
        """The number of processes in the group (MindSpore's attribute)."""
        return comm.group(self.attrs["group"]).size

    @property
    def rank(self) -> int:
        """This process's rank in the group (MindSpore's attribute)."""
        return comm.group(self.attrs["group"]).rank


def _collective(name: str, function, init: tuple[str, ...], doc: str) -> type:
    defaults = {"op": ReduceOp.SUM, "group": _WORLD, "root_rank": 0, "dest_rank": 0}
    return type(name, (_Collective,), {
        "function": staticmethod(function), "init_names": init,
        "init_defaults": {k: defaults[k] for k in init}, "__doc__": doc,
        "__module__": "graphcell.ops"})


AllReduce = _collective("AllReduce", _all_reduce_call, ("op", "group"), """``AllReduce(op=ReduceOp.SUM,
    group=GlobalComm.WORLD_COMM_GROUP)(x)``: the elementwise ``op`` of every process's ``x``, on
    every process. Its gradient is ``AllReduce`` of the gradients (``sum``, ``avg``).""")
AllGather = _collective("AllGather", _all_gather_call, ("group",), """``AllGather(group=GlobalComm.
    WORLD_COMM_GROUP)(x)``: every process's ``x`` concatenated along axis 0, in rank order. Its
    gradient is ``ReduceScatter``-sum.""")
Broadcast = _collective("Broadcast", _broadcast_call, ("root_rank", "group"), """``Broadcast(
    root_rank, group=GlobalComm.WORLD_COMM_GROUP)((x, ...))``: the tuple of process
    ``root_rank``'s tensors (``root_rank`` a world rank), on every process. Its gradient is the
    sum of the gradients on the root process, zeros on the others.""")
ReduceScatter = _collective("ReduceScatter", _reduce_scatter_call, ("op", "group"), """``ReduceScatter(
    op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)(x)``: the reduction of every process's
    ``x`` cut along axis 0 into one block per process; process ``r`` gets block ``r``.""")
Reduce = _collective("Reduce", _reduce_call, ("dest_rank", "op", "group"), """``Reduce(dest_rank,
    op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)(x)``: the reduction of every process's
    ``x`` on process ``dest_rank`` (a rank of the group), zeros of ``x``'s shape on the others.""")


# --- MindSpore 2.10's functions: in place, PyNative only ----------------------------------------

class CommHandle:
    """What the functions return with ``async_op=True``. graphcell's collectives have finished
    when the call returns, so :meth:`wait` returns at once."""

    def wait(self) -> None:
        return None

    def __repr__(self) -> str:
        return "CommHandle(done)"


def _pynative(where: str) -> None:
    if F.current_emitter() is not dispatch.EAGER:
        raise TypeError(f"ops.{where} writes into its tensor arguments and runs in PyNative mode "
                        f"only (as in MindSpore 2.10); in graph mode use the Primitive "
                        f"(ops.AllReduce()(x), ops.AllGather()(x), ...), which returns the result")


def _done(async_op, where: str):
    if not isinstance(async_op, bool):
        raise TypeError(f"ops.{where}: 'async_op' must be a bool, got {type(async_op).__name__}")
    return CommHandle() if async_op else None


def _write(target: Tensor, value, where: str) -> None:
    if tuple(target.shape) != tuple(value.shape):
        raise ValueError(f"ops.{where}: the output tensor has shape {list(target.shape)}, the "
                         f"result has shape {list(value.shape)}")
    F.inplace_write(target, value)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """``ops.all_reduce(tensor, op='sum', group=None, async_op=False)``: ``tensor`` becomes the
    elementwise ``op`` of every process's ``tensor``."""
    _pynative("all_reduce")
    group, op = _group(group, "ops.all_reduce"), _op(op, "ops.all_reduce")
    _tensor(tensor, "ops.all_reduce", "tensor")
    _write(tensor, F.all_reduce(tensor, op=op, group=group), "all_reduce")
    return _done(async_op, "all_reduce")


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """``ops.all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False)``:
    ``output_tensor`` becomes every process's ``input_tensor`` concatenated along axis 0."""
    _pynative("all_gather_into_tensor")
    group = _group(group, "ops.all_gather_into_tensor")
    _tensor(output_tensor, "ops.all_gather_into_tensor", "output_tensor")
    _tensor(input_tensor, "ops.all_gather_into_tensor", "input_tensor")
    out = F.all_gather(input_tensor, group=group, rank_size=comm.group(group).size)
    _write(output_tensor, out, "all_gather_into_tensor")
    return _done(async_op, "all_gather_into_tensor")


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """``ops.all_gather(tensor_list, tensor, group=None, async_op=False)``: ``tensor_list[r]``
    becomes process ``r``'s ``tensor`` (one entry per process of the group)."""
    _pynative("all_gather")
    group = _group(group, "ops.all_gather")
    _tensor(tensor, "ops.all_gather", "tensor")
    size = comm.group(group).size
    if not isinstance(tensor_list, list) or len(tensor_list) != size:
        raise ValueError(f"ops.all_gather: 'tensor_list' must be a list of {size} Tensors (one "
                         f"per process of group {group!r}), got {tensor_list!r:.80}")
    flat = F.reshape(tensor, shape=(1, *tensor.shape))
    gathered = F.all_gather(flat, group=group, rank_size=size)
    for r, target in enumerate(tensor_list):
        _write(_tensor(target, "ops.all_gather", "tensor_list"),
               F.reshape(gathered[r], shape=tuple(tensor.shape)), "all_gather")
    return _done(async_op, "all_gather")


def broadcast(tensor, src, group=None, async_op=False):
    """``ops.broadcast(tensor, src, group=None, async_op=False)``: ``tensor`` becomes process
    ``src``'s (a world rank)."""
    _pynative("broadcast")
    group = _group(group, "ops.broadcast")
    _tensor(tensor, "ops.broadcast", "tensor")
    root = _group_rank(src, group, "ops.broadcast", "src")
    _write(tensor, F.broadcast(tensor, root_rank=root, group=group), "broadcast")
    return _done(async_op, "broadcast")


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):  # noqa: A002
    """``ops.reduce_scatter_tensor(output, input, op='sum', group=None, async_op=False)``:
    ``output`` becomes this process's block of the reduction of every process's ``input`` (cut
    along axis 0 into one block per process)."""
    _pynative("reduce_scatter_tensor")
    group, op = _group(group, "ops.reduce_scatter_tensor"), _op(op, "ops.reduce_scatter_tensor")
    _tensor(output, "ops.reduce_scatter_tensor", "output")
    _tensor(input, "ops.reduce_scatter_tensor", "input")
    out = F.reduce_scatter(input, op=op, group=group, rank_size=comm.group(group).size)
    _write(output, out, "reduce_scatter_tensor")
    return _done(async_op, "reduce_scatter_tensor")


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """``ops.reduce_scatter(output, input_list, op='sum', group=None, async_op=False)``:
    ``output`` becomes the reduction over the processes of their ``input_list[rank]``."""
    _pynative("reduce_scatter")
    group, op = _group(group, "ops.reduce_scatter"), _op(op, "ops.reduce_scatter")
    _tensor(output, "ops.reduce_scatter", "output")
    size = comm.group(group).size
    if not isinstance(input_list, list) or len(input_list) != size:
        raise ValueError(f"ops.reduce_scatter: 'input_list' must be a list of {size} Tensors "
                         f"(one per process of group {group!r}), got {input_list!r:.80}")
    stacked = F.concat(*(F.reshape(_tensor(t, "ops.reduce_scatter", "input_list"),
                                   shape=(1, *output.shape)) for t in input_list), axis=0)
    out = F.reduce_scatter(stacked, op=op, group=group, rank_size=size)
    _write(output, F.reshape(out, shape=tuple(output.shape)), "reduce_scatter")
    return _done(async_op, "reduce_scatter")


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """``ops.reduce(tensor, dst, op='sum', group=None, async_op=False)``: on process ``dst`` (a
    world rank) ``tensor`` becomes the reduction of every process's ``tensor``; the others'
    tensors are left as they were."""
    _pynative("reduce")
    group, op = _group(group, "ops.reduce"), _op(op, "ops.reduce")
    _tensor(tensor, "ops.reduce", "tensor")
    root = _group_rank(dst, group, "ops.reduce", "dst")
    out = F.reduce(tensor, op=op, root_rank=root, group=group)
    if comm.group(group).rank == root:
        _write(tensor, out, "reduce")
    return _done(async_op, "reduce")


def barrier(group=None, async_op=False):
    """``ops.barrier(group=None, async_op=False)``: returns when every process of the group has
    called it."""
    _pynative("barrier")
    comm.group(_group(group, "ops.barrier")).barrier()
    return _done(async_op, "barrier")

"""Collective communication across the processes of a job: ``all_reduce``, ``all_gather``,
``broadcast``, ``reduce_scatter`` and ``reduce`` (MindSpore's ``AllReduce``, ``AllGather``,
``Broadcast``, ``ReduceScatter``, ``Reduce``).

Each op names its group by a string attribute (``group="hccl_world_group"``: MindSpore's world
names all mean every process); its reference looks the group up in the communication engine
(``graphcell_ir.comm``) and runs the collective there, so PyNative, the reference interpreter and
the compiled executable all call the engine, once per op, in program order. Without
``comm.start()`` the world is this process alone and every collective is the identity.

- ``all_reduce(x) {op, group}``: the elementwise ``op`` (``sum``, ``max``, ``min``, ``prod``,
  ``avg``) of every process's ``x``, on every process.
- ``all_gather(x) {group, rank_size}``: every process's ``x`` concatenated along axis 0, in rank
  order. ``rank_size`` (the group's size, known when the op is made) fixes the result's shape;
  running it in a group of another size is an error.
- ``broadcast(x) {root_rank, group}``: process ``root_rank``'s ``x`` (a rank of the group).
- ``reduce_scatter(x) {op, group, rank_size}``: the reduction cut along axis 0 into
  ``rank_size`` blocks; process ``r`` gets block ``r``.
- ``reduce(x) {op, root_rank, group}``: the reduction on ``root_rank``, zeros on the others.

They are ``Kind.SIDE_EFFECT`` (the passes never fold, merge, reorder or drop them: every process
must run the same collectives in the same order) with ``Trait.EXTERNAL`` (a compiled call that
fails after one ran is not rerun).

Gradients treat the job's loss as the sum of every process's loss, so the gradient of a
collective is the collective that carries cotangents back: ``all_reduce``-sum's is
``all_reduce``-sum, ``all_gather``'s is ``reduce_scatter``-sum and back, ``broadcast``'s is
``reduce``-sum to the root (zeros elsewhere) and back. ``avg`` scales by ``1/size``; ``max``/``min``
share the gradient among the processes holding the extreme (as ``reduce_max`` shares it among tied
elements); ``prod``'s is the product of the other processes' values times the cotangent (exact
where some are zero, as ``reduce_prod``'s is).

Example (one process: the identity, and its gradient in IR)::

    >>> import numpy as np
    >>> from graphcell_ir.ops import REGISTRY
    >>> REGISTRY["all_reduce"].ref(np.array([1.0, 2.0]), op="sum", group="hccl_world_group")
    array([1., 2.])
    >>> from graphcell_ir.text import parse_module, print_function
    >>> from graphcell_ir.autodiff import grad_function
    >>> m = parse_module('''func @f(%x: f32[2]) -> f32[] {
    ...   %0 = all_reduce(%x) {group="hccl_world_group", op="sum"} : f32[2]
    ...   %1 = reduce_sum(%0) {axis=none, keep_dims=false} : f32[]
    ...   return %1
    ... }
    ... ''')
    >>> print(print_function(grad_function(m, "f", wrt=[0]), locs="none"))
    func @f.grad(%x: f32[2]) -> f32[], f32[2] attributes {...} {
      %0 = all_reduce(%x) {group="hccl_world_group", op="sum"} : f32[2]
      ...
      %dx = all_reduce(%4) {group="hccl_world_group", op="sum"} : f32[2]
      return %1, %dx
    }
"""
from __future__ import annotations

import numpy as np

from graphcell_ir import comm
from graphcell_ir.errors import CommError, OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.registry import AttrKind, Kind, Trait, attr, defop
from graphcell_ir.ops.shape_rules import require_tensor

WORLD = comm.WORLD_GROUP_NAMES[0]
_EFFECT = dict(kind=Kind.SIDE_EFFECT, traits=(Trait.EXTERNAL,))
_OP = attr("op", AttrKind.STR, "sum")
_GROUP = attr("group", AttrKind.STR, WORLD)
_RANK_SIZE = attr("rank_size", AttrKind.INT)
_ROOT = attr("root_rank", AttrKind.INT, 0)


# --- shape rules ---------------------------------------------------------------------------------

def _reducible(x, op: str):
    x = require_tensor(x, "x")
    if op not in comm.REDUCE_OPS:
        raise OpTypeError(f"op must be one of {list(comm.REDUCE_OPS)} (ReduceOp), got {op!r}")
    if x.dtype.is_bool:
        raise OpTypeError(f"x must be numeric, got {x}: cast Bool tensors to an integer dtype "
                          "to reduce them")
    if op == "avg" and not x.dtype.is_float:
        raise OpTypeError(f"op 'avg' needs a float tensor, got {x}")
    return x


def _check_rank_size(rank_size: int) -> None:
    if rank_size < 1:
        raise OpTypeError(f"rank_size must be at least 1, got {rank_size}")


def _check_root(root_rank: int) -> None:
    if root_rank < 0:
        raise OpTypeError(f"root_rank must be a rank of the group (>= 0), got {root_rank}")


def _all_reduce_infer(x, op="sum", group=WORLD):
    return _reducible(x, op)


def _all_gather_infer(x, group=WORLD, rank_size=1):
    x = require_tensor(x, "x")
    _check_rank_size(rank_size)
    if x.ndim == 0:
        raise ShapeError(f"x must have at least one dimension (it is gathered along axis 0), "
                         f"got {x}")
    return TensorType(x.dtype, (rank_size * x.shape[0], *x.shape[1:]))


def _broadcast_infer(x, root_rank=0, group=WORLD):
    _check_root(root_rank)
    return require_tensor(x, "x")


def _reduce_scatter_infer(x, op="sum", group=WORLD, rank_size=1):
    x = _reducible(x, op)
    _check_rank_size(rank_size)
    if x.ndim == 0 or x.shape[0] % rank_size:
        raise ShapeError(f"the first dimension of x must be a multiple of rank_size "
                         f"{rank_size} (it is cut into one block per process), got {x}")
    return TensorType(x.dtype, (x.shape[0] // rank_size, *x.shape[1:]))


def _reduce_infer(x, op="sum", root_rank=0, group=WORLD):
    _check_root(root_rank)
    return _reducible(x, op)


# --- references: the engine ------------------------------------------------------------------------

def _sized(group: str, rank_size: int, what: str):
    g = comm.group(group)
    if g.size != rank_size:
        raise CommError(f"{what} was made for a group of {rank_size} process(es); group "
                        f"{group!r} has {g.size}")
    return g


def _all_reduce_ref(x, op="sum", group=WORLD):
    return comm.group(group).all_reduce(np.asarray(x), op)


def _all_gather_ref(x, group=WORLD, rank_size=1):
    return _sized(group, rank_size, "AllGather").all_gather(np.asarray(x))


def _broadcast_ref(x, root_rank=0, group=WORLD):
    return comm.group(group).broadcast(np.asarray(x), root_rank)


def _reduce_scatter_ref(x, op="sum", group=WORLD, rank_size=1):
    return _sized(group, rank_size, "ReduceScatter").reduce_scatter(np.asarray(x), op)


def _reduce_ref(x, op="sum", root_rank=0, group=WORLD):
    return comm.group(group).reduce(np.asarray(x), op, root_rank)


# --- gradients -----------------------------------------------------------------------------------
# dL/dx_q = sum over processes r of dout_r * d out_r / d x_q. ``spread`` brings the cotangents to
# x's layout — summed where every process holds the same output (all_reduce), gathered where each
# holds its own block (reduce_scatter), the root's (reduce) — and ``_factor`` is d(reduction)/dx
# there. Position p of x is reduced with position p of every other process's x, so an all_reduce
# of an x-shaped tensor gives any cross-process quantity ``_factor`` needs at x's layout.

def _factor(x, dout, op: str, group: str, size: int, reduced=None):
    """d(op over the processes)/dx at x's layout; None for a sum. ``reduced``: the reduction at
    x's layout when the caller has it (all_reduce's own result)."""
    if op == "sum":
        return None
    if op == "avg":
        return 1.0 / size
    if op in ("max", "min"):  # the processes holding the extreme share the gradient
        if reduced is None:
            reduced = F.all_reduce(x, op=op, group=group)
        hit = F.cast_like(F.equal(x, reduced), dout)
        return F.div(hit, F.all_reduce(hit, op="sum", group=group))
    # prod: the product of the other processes' values, exact where some are 0 (as reduce_prod's)
    zero = F.equal(x, 0)
    nonzero = F.select(zero, F.ones_like(x), x)
    others = F.div(F.all_reduce(nonzero, op="prod", group=group), nonzero)
    zeros = F.all_reduce(F.cast_like(zero, x), op="sum", group=group)
    others_zero = F.greater(F.sub(zeros, F.cast_like(zero, x)), 0)
    return F.cast_like(F.select(others_zero, F.zeros_like(x), others), dout)


def _times(g, factor):
    return g if factor is None else F.mul(g, factor)


def bprop_all_reduce(x, out, dout, op="sum", group=WORLD):
    if op in ("sum", "avg"):
        return (F.all_reduce(dout, op=op, group=group),)
    total = F.all_reduce(dout, op="sum", group=group)
    return (_times(total, _factor(x, dout, op, group, 1, reduced=out)),)


def bprop_all_gather(x, out, dout, group=WORLD, rank_size=1):
    return (F.reduce_scatter(dout, op="sum", group=group, rank_size=rank_size),)


def bprop_reduce_scatter(x, out, dout, op="sum", group=WORLD, rank_size=1):
    spread = F.all_gather(dout, group=group, rank_size=rank_size)
    return (_times(spread, _factor(x, dout, op, group, rank_size)),)


def bprop_broadcast(x, out, dout, root_rank=0, group=WORLD):
    return (F.reduce(dout, op="sum", root_rank=root_rank, group=group),)


def bprop_reduce(x, out, dout, op="sum", root_rank=0, group=WORLD):
    spread = F.broadcast(dout, root_rank=root_rank, group=group)
    size = comm.group(group).size if op == "avg" else 1
    return (_times(spread, _factor(x, dout, op, group, size)),)


# --- the entries -------------------------------------------------------------------------------------

all_reduce = defop("all_reduce", ("x",), **_EFFECT, ms_name="AllReduce", attrs=(_OP, _GROUP),
                   prim_init=("op", "group"), infer=_all_reduce_infer, ref=_all_reduce_ref,
                   bprop=bprop_all_reduce,
                   doc="The elementwise reduction (op) of every process's x, on every process.")

all_gather = defop("all_gather", ("x",), **_EFFECT, ms_name="AllGather",
                   attrs=(_GROUP, _RANK_SIZE), prim_init=("group",), infer=_all_gather_infer,
                   ref=_all_gather_ref, bprop=bprop_all_gather,
                   doc="Every process's x concatenated along axis 0, in rank order; rank_size is "
                       "the group's size.")

broadcast = defop("broadcast", ("x",), **_EFFECT, ms_name="Broadcast", attrs=(_ROOT, _GROUP),
                  prim_init=("root_rank", "group"), infer=_broadcast_infer, ref=_broadcast_ref,
                  bprop=bprop_broadcast,
                  doc="Process root_rank's x (a rank of the group), on every process.")

reduce_scatter = defop("reduce_scatter", ("x",), **_EFFECT, ms_name="ReduceScatter",
                       attrs=(_OP, _GROUP, _RANK_SIZE), prim_init=("op", "group"),
                       infer=_reduce_scatter_infer, ref=_reduce_scatter_ref,
                       bprop=bprop_reduce_scatter,
                       doc="The reduction (op) of every process's x cut along axis 0 into "
                           "rank_size blocks; process r gets block r.")

reduce = defop("reduce", ("x",), **_EFFECT, ms_name="Reduce", attrs=(_OP, _ROOT, _GROUP),
               prim_init=("root_rank", "op", "group"), infer=_reduce_infer, ref=_reduce_ref,
               bprop=bprop_reduce,
               doc="The reduction (op) of every process's x on process root_rank; zeros on the "
                   "others.")

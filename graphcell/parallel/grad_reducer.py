"""``DistributedGradReducer``: sum (or average) the gradients over the processes of a
data-parallel job, in a few flat buckets.

Each process computes the gradients of its own shard of the batch; before the optimizer's update
the reducer makes every process hold the sum over the processes (divided by ``degree`` when
``mean``), so all of them apply the same update and their weights stay identical. With
``gradients_mean=True`` and equal shards that is exactly the gradient of the mean loss over the
whole batch, so N processes train as one process on the concatenated batch would.

Gradients are packed into *buckets* — one flat buffer per bucket, one ``all_reduce`` each —
instead of one collective per parameter: a collective costs a latency (tens of microseconds
between processes on one machine, more across machines) whatever its size. Buckets hold
gradients of one dtype in parameter order and end at ``comm_fusion``'s ``allreduce`` size
(default 64 MB, MindSpore's) or at the indices of ``all_reduce_fusion_config``; with
``comm_fusion={'openstate': False}`` each gradient is reduced alone. The reduction runs after the
backward pass: on this machine overlapping it with the backward pass did not pay
(``docs/distributed.md``).

The reducer is written against the functional ops, so the same code runs eagerly in PyNative and
is traced into the compiled training step in graph mode (a handful of ``concat``/``all_reduce``/
``getitem``/``reshape`` ops per bucket).

Example (one process: the gradients come back unchanged)::

    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> net = nn.Dense(3, 2)
    >>> reducer = nn.DistributedGradReducer(net.trainable_params(), mean=True, degree=1)
    >>> grads = tuple(ms.ops.ones_like(p) for p in net.trainable_params())
    >>> [g.shape for g in reducer(grads)], len(reducer.buckets)
    ([(2, 3), (2,)], 1)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphcell.communication.management import GlobalComm, get_group_size
from graphcell.nn.cell import Cell
from graphcell.parallel._auto_parallel_context import get_auto_parallel_context
from graphcell_ir.ir.types import float16, float32
from graphcell_ir.ops import functional as F

__all__ = ["DistributedGradReducer", "Bucket", "plan_buckets", "reduce_gradients"]

DEFAULT_BUCKET_MB = 64
"""MindSpore's automatic all-reduce fusion threshold."""


@dataclass(frozen=True)
class Bucket:
    """Gradients reduced together: their positions in the gradient tuple, shapes and sizes, in
    the order they are packed into one flat buffer of ``dtype``."""

    indices: tuple[int, ...]
    shapes: tuple[tuple[int, ...], ...]
    dtype: str

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(int(np.prod(s, dtype=np.int64)) for s in self.shapes)

    @property
    def nbytes(self) -> int:
        return sum(self.sizes) * np.dtype(self.dtype).itemsize


def plan_buckets(specs, split_indices=(), bucket_bytes: int | None = DEFAULT_BUCKET_MB << 20
                 ) -> tuple[Bucket, ...]:
    """Buckets for gradients of ``specs`` (``(shape, numpy dtype)`` per parameter, in order): one
    dtype per bucket, a new bucket at every index of ``split_indices`` and before a gradient that
    would take it past ``bucket_bytes`` (None: no limit; 0: every gradient alone)."""
    splits = set(split_indices)
    open_: dict[str, list[int]] = {}
    done: list[list[int]] = []
    size: dict[str, int] = {}
    for i, (shape, dtype) in enumerate(specs):
        dtype = np.dtype(dtype).name
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        if i in splits:
            done.extend(b for b in open_.values() if b)
            open_, size = {}, {}
        current = open_.get(dtype)
        if current and bucket_bytes is not None and size[dtype] + nbytes > bucket_bytes:
            done.append(current)
            current = None
        if not current:
            current = open_[dtype] = []
            size[dtype] = 0
        current.append(i)
        size[dtype] += nbytes
    done.extend(b for b in open_.values() if b)
    done.sort(key=lambda b: b[0])
    specs = list(specs)
    return tuple(Bucket(tuple(b), tuple(tuple(specs[i][0]) for i in b),
                        np.dtype(specs[b[0]][1]).name) for b in done)


def reduce_gradients(grads, buckets, group: str, scale: float, names=None) -> tuple:
    """``grads`` summed over the processes of ``group`` (times ``scale``), bucket by bucket.
    Written against the functional ops: eager in PyNative, traced in graph mode. ``names`` (the
    parameters', for messages): check that the gradients fit the buckets first."""
    if names is not None:
        _check(grads, buckets, names)
    grads = tuple(grads)
    out = list(grads)
    for bucket in buckets:
        if len(bucket.indices) == 1:
            (i,) = bucket.indices
            total = _scaled(F.all_reduce(_widened(grads[i]), op="sum", group=group), scale)
            out[i] = _as_dtype_of(total, grads[i])
            continue
        flat = F.concat(*(F.reshape(_widened(grads[i]), shape=(size,))
                          for i, size in zip(bucket.indices, bucket.sizes)), axis=0)
        total = _scaled(F.all_reduce(flat, op="sum", group=group), scale)
        start = 0
        for i, shape, size in zip(bucket.indices, bucket.shapes, bucket.sizes):
            part = F.getitem(total, key=(slice(start, start + size),))
            out[i] = _as_dtype_of(F.reshape(part, shape=shape), grads[i])
            start += size
    return tuple(out)


def _widened(grad):
    """Float16 is summed in Float32, as MindSpore's reducer does (fewer overflows)."""
    return F.cast(grad, dtype=float32) if grad.dtype == float16 else grad


def _as_dtype_of(reduced, grad):
    """Each gradient comes back in its own dtype, as in MindSpore."""
    return reduced if reduced.dtype == grad.dtype else F.cast(reduced, dtype=grad.dtype)


def _scaled(x, scale: float):
    return x if scale == 1.0 else F.mul(x, scale)   # a Python float keeps x's dtype


def _bucket_bytes() -> int | None:
    fusion = get_auto_parallel_context("comm_fusion")
    if not fusion.get("openstate", True):
        return 0
    allreduce = fusion.get("allreduce", {})
    if allreduce.get("mode") == "size":
        return int(float(allreduce["config"]) * (1 << 20))
    return DEFAULT_BUCKET_MB << 20


class DistributedGradReducer(Cell):
    """``DistributedGradReducer(parameters, mean=None, degree=None, fusion_type=1,
    group=GlobalComm.WORLD_COMM_GROUP)``: ``reducer(grads)`` returns the gradients of
    ``parameters`` summed over the processes of ``group``, divided by ``degree`` when ``mean``.

    ``mean`` defaults to the auto-parallel context's ``gradients_mean``, ``degree`` to the group's
    number of processes; ``fusion_type`` is accepted (the buckets are planned from the context's
    ``comm_fusion``/``all_reduce_fusion_config``, see the module docstring). ``buckets`` shows the
    plan. Gradients of another number or shape than ``parameters`` are a ValueError.
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1,
                 group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(auto_prefix=False)
        params = list(parameters)
        if mean is None:
            mean = get_auto_parallel_context("gradients_mean")
        if not isinstance(mean, bool):
            raise TypeError(f"DistributedGradReducer: 'mean' must be a bool or None, got {mean!r}")
        if not isinstance(group, str):
            raise TypeError(f"DistributedGradReducer: 'group' must be a str, got "
                            f"{type(group).__name__}")
        if degree is None:
            degree = get_group_size(group)
        elif isinstance(degree, bool) or not isinstance(degree, int) or degree <= 0:
            raise ValueError("For 'DistributedGradReducer', parameter 'degree' in "
                             f"DistributedGradReducer should large than 0 and be int, degree: "
                             f"{degree}.")
        self.mean, self.degree, self.group, self.fusion_type = mean, degree, group, fusion_type
        self._names = tuple(p.name for p in params)
        self._buckets = plan_buckets([(tuple(p.shape), p.dtype.np_dtype) for p in params],
                                     get_auto_parallel_context("all_reduce_fusion_config"),
                                     _bucket_bytes())
        self._scale = 1.0 / degree if mean else 1.0

    @property
    def buckets(self) -> tuple[Bucket, ...]:
        """How the gradients are packed: one ``all_reduce`` per bucket."""
        return self._buckets

    def construct(self, grads):
        return reduce_gradients(grads, self._buckets, self.group, self._scale, self._names)


def _check(grads, buckets, names) -> None:
    if not isinstance(grads, (tuple, list)) or len(grads) != len(names):
        n = len(grads) if isinstance(grads, (tuple, list)) else type(grads).__name__
        raise ValueError(f"DistributedGradReducer: expected a tuple of {len(names)} gradients "
                         f"(one per parameter it was made for), got {n}")
    for bucket in buckets:
        for i, shape in zip(bucket.indices, bucket.shapes):
            if tuple(grads[i].shape) != shape:
                raise ValueError(f"DistributedGradReducer: gradient {i} (of parameter "
                                 f"{names[i]!r}) has shape {list(grads[i].shape)}, expected "
                                 f"{list(shape)}")

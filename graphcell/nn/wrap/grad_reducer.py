"""``DistributedGradReducer``: the all-reduce of the gradients in data-parallel training.

graphcell runs in one process: the group has one member, the sum over the group is the
gradient itself, and ``mean=True`` divides by ``degree`` (1 unless given). The all-reduce itself
is the one method :meth:`DistributedGradReducer.allreduce`, which the data-parallel (MPI) work
replaces (with ``group_size``); everything around it — float16 summed in float32, the mean, the
filter of layer-wise-parallel parameters — is MindSpore's and stays.

Example::

    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> nn.DistributedGradReducer([w])((ms.Tensor([3.0]),))[0].asnumpy()
    array([3.], dtype=float32)
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int
from graphcell_ir.ir.types import float16, float32

__all__ = ["DistributedGradReducer", "group_size", "no_reduction"]

WORLD_COMM_GROUP = "hccl_world_group"


def group_size(group: str = WORLD_COMM_GROUP) -> int:
    """The number of processes in ``group``: 1 (graphcell trains in one process)."""
    return 1


def no_reduction(grads):
    """The gradient reducer of a training cell when the training is not data parallel (the
    ``nn.Identity`` MindSpore puts there): the gradients as they are."""
    return grads


class DistributedGradReducer(Cell):
    """``DistributedGradReducer(parameters, mean=None, degree=None, fusion_type=1,
    group='hccl_world_group')``: ``construct(grads)`` returns the gradients summed over the
    group — divided by ``degree`` with ``mean`` (default False, the parallel context's
    ``gradients_mean``) — in their own dtypes."""

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1,
                 group=WORLD_COMM_GROUP):
        super().__init__(auto_prefix=False)
        owner = self.cls_name
        self.mean = bool(mean) if mean is not None else False
        if degree is None:
            degree = group_size(group)
        elif not _is_int(degree) or degree <= 0:
            raise ValueError(f"{owner}: 'degree' must be a positive int, got {degree!r}")
        self.degree = int(degree)
        self.group = group
        self.fusion_type = fusion_type
        self.allreduce_filter = tuple(not getattr(p, "layerwise_parallel", False)
                                      for p in parameters)

    def allreduce(self, grad):
        """The sum of ``grad`` over the group's processes: ``grad`` itself in one process."""
        return grad

    def construct(self, grads):
        out = []
        for g, reduce in zip(grads, self.allreduce_filter):
            if not reduce:
                out.append(g)
                continue
            # float16 is summed in float32, as MindSpore's; float64 stays float64
            summed = self.allreduce(ops.cast(g, float32) if g.dtype == float16 else g)
            if self.mean and self.degree != 1:
                summed = summed * (1.0 / self.degree)
            out.append(summed if summed.dtype == g.dtype else ops.cast(summed, g.dtype))
        return tuple(out)

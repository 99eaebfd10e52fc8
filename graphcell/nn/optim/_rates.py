"""The cells an optimizer keeps for a learning rate or a weight decay that changes per step.

``_IteratorLearningRate`` reads a 1-D learning-rate Parameter at the step; ``_ConvertToCell``
gives a fixed rate the interface of a schedule (when other groups have dynamic rates);
``_WrappedWeightDecay`` multiplies a weight-decay schedule by the loss scale. MindSpore 2.10 keeps
the same cells under the same names.
"""
from __future__ import annotations

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.learning_rate_schedule import LearningRateSchedule
from graphcell.parameter import Parameter

__all__ = ["_IteratorLearningRate", "_ConvertToCell", "_WrappedWeightDecay"]


class _IteratorLearningRate(LearningRateSchedule):
    """Entry ``global_step`` of a 1-D learning-rate Parameter (the last one once they run out:
    MindSpore 2.10 raises a Gather index error there)."""

    def __init__(self, learning_rate, name: str):
        super().__init__()
        self.learning_rate = Parameter(learning_rate, name)

    def construct(self, global_step):
        last = self.learning_rate.shape[0] - 1
        return ops.gather(self.learning_rate, ops.minimum(global_step, last), 0)


class _ConvertToCell(LearningRateSchedule):
    """A fixed learning-rate Parameter behind a schedule's interface."""

    def __init__(self, learning_rate: Parameter):
        super().__init__()
        self.learning_rate = learning_rate

    def construct(self, global_step):
        # MindSpore's own expression, whose float32 rounding (0.1 -> 0.10000002) the optimizer's
        # updates then show
        return self.learning_rate + 1.0 - 1.0


class _WrappedWeightDecay(Cell):
    """A weight-decay cell of the step, times the loss scale."""

    def __init__(self, weight_decay: Cell, loss_scale: float = 1.0):
        super().__init__()
        self.weight_decay = weight_decay
        self.loss_scale = loss_scale

    def construct(self, global_step):
        return self.weight_decay(global_step) * self.loss_scale

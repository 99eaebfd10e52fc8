"""Learning-rate schedules: cells that give the learning rate of a step.

``construct(global_step)`` takes the optimizer's step counter (an Int32 tensor, the optimizer's
``global_step`` Parameter of shape ``(1,)``) and returns the rate as a Float32 tensor of the same
shape, computed in Float32 with MindSpore 2.10's formulas, so the rates equal MindSpore's. Any
optimizer accepts a schedule as its ``learning_rate``; it calls the schedule with its
``global_step`` before each update, in PyNative and in graph mode alike.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> lr = nn.ExponentialDecayLR(0.1, 0.5, decay_steps=2)
    >>> lr(ms.Tensor(np.array([2], np.int32))).asnumpy()
    array([0.05], dtype=float32)
"""
from __future__ import annotations

import math

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_int, check_bool
from graphcell_ir.ir.types import float32

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


class LearningRateSchedule(Cell):
    """The base class of learning-rate schedules: ``construct(global_step)`` returns the rate.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn, ops
        >>> class Halving(nn.LearningRateSchedule):
        ...     def construct(self, global_step):
        ...         return 0.1 * ops.pow(0.5, ops.cast(global_step, ms.float32))
        >>> Halving()(ms.Tensor(np.array([3], np.int32))).asnumpy()
        array([0.0125], dtype=float32)
    """

    def construct(self, global_step):
        raise NotImplementedError(f"{self.cls_name} must define construct(global_step)")


# --- argument checks (MindSpore's: floats must be floats, ints ints) ------------------------------

def _positive_float(value, name: str, owner: str, zero_ok: bool = False) -> float:
    if not isinstance(value, float):
        raise TypeError(f"{owner}: '{name}' must be a float, got {type(value).__name__} "
                        f"{value!r}")
    if value < 0 or (value == 0 and not zero_ok):
        kind = "non-negative" if zero_ok else "positive"
        raise ValueError(f"{owner}: '{name}' must be a {kind} float, got {value}")
    return value


def positive_int(value, name: str, owner: str) -> int:
    """An int above 0 (MindSpore's ``check_positive_int``)."""
    if not _is_int(value):
        raise TypeError(f"{owner}: '{name}' must be an int, got {type(value).__name__} {value!r}")
    if value <= 0:
        raise ValueError(f"{owner}: '{name}' must be a positive int, got {value}")
    return int(value)


def _decay_args(owner: str, learning_rate, decay_rate, decay_steps, is_stair):
    return (_positive_float(learning_rate, "learning_rate", owner),
            _positive_float(decay_rate, "decay_rate", owner),
            positive_int(decay_steps, "decay_steps", owner),
            check_bool(is_stair, "is_stair", owner))


def _steps(global_step):
    return ops.cast(global_step, float32)


# --- the schedules -------------------------------------------------------------------------------

class ExponentialDecayLR(LearningRateSchedule):
    """``ExponentialDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)``:
    ``learning_rate * decay_rate ** (step / decay_steps)`` (the exponent floored with
    ``is_stair``).
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate, self.decay_rate, self.decay_steps, self.is_stair = _decay_args(
            self.cls_name, learning_rate, decay_rate, decay_steps, is_stair)

    def construct(self, global_step):
        p = _steps(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate * ops.pow(self.decay_rate, p)


class NaturalExpDecayLR(LearningRateSchedule):
    """``NaturalExpDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)``:
    ``learning_rate * e ** (-decay_rate * step)`` (the step rounded down to a multiple of
    ``decay_steps`` with ``is_stair``).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> lr = nn.NaturalExpDecayLR(0.1, 0.5, 2, is_stair=True)
        >>> lr(ms.Tensor(np.array([3], np.int32))).asnumpy().round(6)   # 0.1 e^-1
        array([0.036788], dtype=float32)
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate, self.decay_rate, self.decay_steps, self.is_stair = _decay_args(
            self.cls_name, learning_rate, decay_rate, decay_steps, is_stair)

    def construct(self, global_step):
        p = _steps(global_step)
        if self.is_stair:
            p = ops.floor_divide(p, self.decay_steps) * self.decay_steps
        return self.learning_rate * ops.pow(math.e, -self.decay_rate * p)


class InverseDecayLR(LearningRateSchedule):
    """``InverseDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)``:
    ``learning_rate / (1 + decay_rate * step / decay_steps)`` (the ratio floored with
    ``is_stair``).
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate, self.decay_rate, self.decay_steps, self.is_stair = _decay_args(
            self.cls_name, learning_rate, decay_rate, decay_steps, is_stair)

    def construct(self, global_step):
        p = _steps(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate / (1 + self.decay_rate * p)


class CosineDecayLR(LearningRateSchedule):
    """``CosineDecayLR(min_lr, max_lr, decay_steps)``: from ``max_lr`` down to ``min_lr`` along a
    half cosine over ``decay_steps`` steps, then ``min_lr``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> lr = nn.CosineDecayLR(0.0, 0.1, 4)
        >>> lr(ms.Tensor(np.array([2], np.int32))).asnumpy()
        array([0.05], dtype=float32)
    """

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        owner = self.cls_name
        self.min_lr = _positive_float(min_lr, "min_lr", owner, zero_ok=True)
        self.max_lr = _positive_float(max_lr, "max_lr", owner)
        self.decay_steps = positive_int(decay_steps, "decay_steps", owner)
        if min_lr >= max_lr:
            raise ValueError(f"{owner}: 'max_lr' must be greater than 'min_lr', got max_lr "
                             f"{max_lr} and min_lr {min_lr}")
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step):
        p = ops.cast(ops.minimum(global_step, self.decay_steps), float32)
        return self.min_lr + self.delta * (1.0 + ops.sin(math.pi * (p / self.decay_steps + 0.5)))


class PolynomialDecayLR(LearningRateSchedule):
    """``PolynomialDecayLR(learning_rate, end_learning_rate, decay_steps, power,
    update_decay_steps=False)``: ``(learning_rate - end_learning_rate) * (1 - step /
    decay_steps) ** power + end_learning_rate``, the step held at ``decay_steps`` — or, with
    ``update_decay_steps``, ``decay_steps`` stretched to the next multiple past the step.
    """

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        owner = self.cls_name
        self.start_learning_rate = _positive_float(learning_rate, "learning_rate", owner)
        self.end_learning_rate = _positive_float(end_learning_rate, "end_learning_rate", owner,
                                                 zero_ok=True)
        self.decay_steps = positive_int(decay_steps, "decay_steps", owner)
        self.update_decay_steps = check_bool(update_decay_steps, "update_decay_steps", owner)
        self.power = _positive_float(power, "power", owner)
        self.diff_learning_rate = learning_rate - end_learning_rate

    def construct(self, global_step):
        step = _steps(global_step)
        decay_steps = self.decay_steps
        if self.update_decay_steps:
            decay_steps = decay_steps * ops.maximum(ops.ceil(step / decay_steps), 1)
        else:
            step = ops.minimum(step, decay_steps)
        p = step / decay_steps
        return self.diff_learning_rate * ops.pow(1.0 - p, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """``WarmUpLR(learning_rate, warmup_steps)``: ``learning_rate * min(step, warmup_steps) /
    warmup_steps``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.WarmUpLR(0.1, 4)(ms.Tensor(np.array([1], np.int32))).asnumpy()
        array([0.025], dtype=float32)
    """

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        self.learning_rate = _positive_float(learning_rate, "learning_rate", self.cls_name,
                                             zero_ok=True)
        self.warmup_steps = positive_int(warmup_steps, "warmup_steps", self.cls_name)

    def construct(self, global_step):
        warmed = ops.cast(ops.minimum(global_step, self.warmup_steps), float32)
        return self.learning_rate * (warmed / self.warmup_steps)

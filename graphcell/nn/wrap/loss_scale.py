"""Loss scaling: ``TrainOneStepWithLossScaleCell`` and the update cells of its scale,
``DynamicLossScaleUpdateCell`` and ``FixedLossScaleUpdateCell``.

A training step with loss scaling differentiates ``loss * scale`` (so small float16 gradients do
not underflow), divides the gradients by the scale, and skips the optimizer's update when a
gradient is not finite (an overflow). An update cell then adjusts the scale: the dynamic one
divides it by ``scale_factor`` after an overflow (not below 1) and multiplies it by
``scale_factor`` after ``scale_window`` steps without one, as MindSpore 2.10 does.

MindSpore 2.10's CPU build cannot run ``TrainOneStepWithLossScaleCell`` (its overflow check
uses the Ascend-only ``NPUGetFloatStatusV2``); graphcell checks the gradients themselves (all
finite), as MindSpore's GPU build does.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> net = nn.WithLossCell(nn.Dense(3, 1, weight_init='ones', bias_init='zeros'), nn.MSELoss())
    >>> opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    >>> scaler = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 10, scale_factor=2,
    ...                                        scale_window=1000)
    >>> step = nn.TrainOneStepWithLossScaleCell(net, opt, scale_sense=scaler)
    >>> x, y = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.zeros((2, 1), np.float32))
    >>> loss, overflow, scale = step(x, y)
    >>> float(loss), bool(overflow), float(scale)
    (9.0, False, 1024.0)
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import describe
from graphcell.nn.wrap.cell_wrapper import TrainOneStepCell
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, int32

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "TrainOneStepWithLossScaleCell", "all_finite"]


def all_finite(inputs):
    """``amp.all_finite(inputs)``: a Bool scalar Tensor, True when every element of every
    tensor of ``inputs`` (a tuple or list) is finite.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import amp
        >>> amp.all_finite((ms.Tensor([1.0]), ms.Tensor([np.inf]))).asnumpy()
        array(False)
    """
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    finite = ops.ones((), bool_)
    for x in inputs:
        finite = ops.logical_and(finite, ops.all(ops.isfinite(x)))
    return finite


class DynamicLossScaleUpdateCell(Cell):
    """``DynamicLossScaleUpdateCell(loss_scale_value, scale_factor, scale_window)``:
    ``construct(loss_scale, overflow)`` updates the ``loss_scale`` Parameter in place and returns
    ``overflow``. After an overflow the scale becomes ``max(scale / scale_factor, 1)``; after
    ``scale_window`` steps without one it is multiplied by ``scale_factor``. The steps are
    counted in the Int32 Parameters ``current_iterator_step`` (from 1) and
    ``last_overflow_iterator_step`` (0 at first).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> update = nn.DynamicLossScaleUpdateCell(loss_scale_value=8.0, scale_factor=2,
        ...                                        scale_window=1)
        >>> scale = ms.Parameter(ms.Tensor(8.0), name="scale")
        >>> _ = update(scale, ms.Tensor(True)); float(scale)         # an overflow: halved
        4.0
        >>> _ = update(scale, ms.Tensor(False)); float(scale)        # a quiet window: doubled
        8.0
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.scale_window = Tensor(np.int32(scale_window))
        self.scale_factor = Tensor(np.float32(scale_factor))
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(np.int32(1)), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(np.int32(0)), name="last_overflow_iterator_step")

    def get_loss_scale(self):
        """The scale it starts from (``loss_scale_value``)."""
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        shrunk = ops.select(overflow, ops.maximum(loss_scale / self.scale_factor, 1.0),
                            loss_scale)
        quiet = self.scale_window <= self.cur_iter - self.last_overflow_iter
        ops.assign(self.last_overflow_iter,
                   ops.select(ops.logical_or(overflow, quiet), self.cur_iter,
                              self.last_overflow_iter))
        grow = ops.logical_and(quiet, ops.logical_not(overflow))
        ops.assign(loss_scale, ops.select(grow, shrunk * self.scale_factor, shrunk))
        ops.assign(self.cur_iter, self.cur_iter + 1)
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """``FixedLossScaleUpdateCell(loss_scale_value)``: a scale that never changes;
    ``construct(loss_scale, overflow)`` returns ``overflow`` (an overflowing step is still
    skipped)."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        """The fixed scale."""
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """``TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)``: a training step with
    loss scaling; ``construct(*inputs)`` returns ``(loss, overflow, scale)`` — the loss, whether
    a gradient overflowed (then the update was skipped) and the scale the step used.

    ``scale_sense`` is an update cell (``DynamicLossScaleUpdateCell``,
    ``FixedLossScaleUpdateCell``: its ``get_loss_scale()`` starts the scale, and it updates the
    scale after each step) or a Float32 Tensor of shape ``()`` or ``(1,)`` (a scale that changes
    only through ``set_sense_scale``). The scale is the Parameter ``scale_sense``.
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        owner = self.cls_name
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            value = np.float32(scale_sense.get_loss_scale())
            self.scale_sense = Parameter(Tensor(value), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError(f"{owner}: 'scale_sense' must have shape () or (1,), got "
                                 f"{describe(scale_sense)}")
            self.scale_sense = Parameter(Tensor(scale_sense.asnumpy().astype(np.float32)),
                                         name="scale_sense")
        else:
            raise TypeError(f"{owner}: 'scale_sense' must be an update Cell or a Tensor, got "
                            f"{type(scale_sense).__name__}")

    def construct(self, *inputs):
        scaling_sens = self.scale_sense * 1.0   # the scale this step uses, before its update
        (_, loss), grads = self._scaled_loss_and_grads(scaling_sens, *inputs)
        grads = tuple(g * ops.cast(1.0 / scaling_sens, g.dtype) for g in grads)
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            self.optimizer(grads)
        return loss, cond, scaling_sens

    def set_sense_scale(self, sens):
        """Set the scale (a Tensor of its shape)."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"{self.cls_name}.set_sense_scale: 'sens' must be a Tensor, got "
                            f"{type(sens).__name__}")
        self.scale_sense.set_data(sens)

    def start_overflow_check(self, pre_cond, compute_input):
        """MindSpore's hook before the gradients (Ascend clears its float status there): the
        status placeholder and ``compute_input`` unchanged."""
        return ops.zeros((8,), int32), compute_input

    def get_overflow_status(self, status, compute_output):
        """True (a Bool tensor) when a value of ``compute_output`` is not finite."""
        return ops.logical_not(all_finite(compute_output))

    def process_loss_scale(self, overflow):
        """Let the update cell adjust the scale; whether this step overflowed."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow

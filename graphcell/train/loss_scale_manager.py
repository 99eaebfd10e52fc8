"""Loss-scale managers (``mindspore.train.loss_scale_manager``, also in ``mindspore.amp``): what
``Model`` and ``amp.build_train_network`` read to scale the loss of a mixed-precision step.

``FixedLossScaleManager(loss_scale=128.0, drop_overflow_update=True)`` keeps one scale;
``DynamicLossScaleManager(init_loss_scale=2**24, scale_factor=2, scale_window=2000)`` divides it
after an overflow and multiplies it after ``scale_window`` quiet steps. ``get_update_cell()``
gives the cell a ``TrainOneStepWithLossScaleCell`` updates the scale with (None for a fixed
scale that does not skip overflowing steps: then the scale is the step's ``sens``).

Example::

    >>> from graphcell import amp
    >>> manager = amp.DynamicLossScaleManager(init_loss_scale=8, scale_window=2)
    >>> for overflow in (False, False, True):
    ...     manager.update_loss_scale(overflow)
    >>> manager.get_loss_scale()
    8.0
"""
from __future__ import annotations

from graphcell.nn.layers._validate import _is_int, _is_number

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]


class LossScaleManager:
    """The interface of loss-scale managers: ``get_loss_scale()``, ``update_loss_scale(overflow)``
    and ``get_update_cell()``."""

    def get_loss_scale(self):
        """The current loss scale."""

    def update_loss_scale(self, overflow):
        """Adjust the scale after a step (``overflow``: whether a gradient overflowed)."""

    def get_update_cell(self):
        """The cell that updates the scale inside a training step, or None."""


class FixedLossScaleManager(LossScaleManager):
    """``FixedLossScaleManager(loss_scale=128.0, drop_overflow_update=True)``: one scale (>= 1).
    With ``drop_overflow_update`` an overflowing step is skipped (a
    ``FixedLossScaleUpdateCell``); without it the scale is the step's ``sens``, and the
    optimizer's ``loss_scale`` must be the same value."""

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if not _is_number(loss_scale):
            raise TypeError(f"FixedLossScaleManager: 'loss_scale' must be a number, got "
                            f"{type(loss_scale).__name__}")
        if loss_scale < 1:
            raise ValueError(f"FixedLossScaleManager: 'loss_scale' must be >= 1, got {loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        """Whether an overflowing step is skipped."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """A fixed scale does not change."""

    def get_update_cell(self):
        from graphcell.nn.wrap.loss_scale import FixedLossScaleUpdateCell
        if not self._drop_overflow_update:
            return None
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """``DynamicLossScaleManager(init_loss_scale=2**24, scale_factor=2, scale_window=2000)``.

    ``update_loss_scale(overflow)``: after an overflow the scale becomes ``max(scale /
    scale_factor, 1)``; when ``scale_window`` steps have passed since the last overflow it is
    multiplied by ``scale_factor``. More than 1000 overflows in a row raise a RuntimeError.
    """

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        owner = "DynamicLossScaleManager"
        if init_loss_scale < 1.0:
            raise ValueError(f"{owner}: 'init_loss_scale' must be >= 1, got {init_loss_scale}")
        if not _is_int(scale_window) or scale_window <= 0:
            raise ValueError(f"{owner}: 'scale_window' must be a positive int, got "
                             f"{scale_window!r}")
        if scale_factor <= 0:
            raise ValueError(f"{owner}: 'scale_factor' must be > 0, got {scale_factor}")
        self.loss_scale = init_loss_scale
        self.scale_window = scale_window
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow):
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"DynamicLossScaleManager: the loss overflowed {self.bad_step} "
                               f"steps in a row (more than {self.bad_step_max})")
        self.cur_iter += 1

    def get_drop_overflow_update(self) -> bool:
        """True: an overflowing step is skipped."""
        return True

    def get_update_cell(self):
        from graphcell.nn.wrap.loss_scale import DynamicLossScaleUpdateCell
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)

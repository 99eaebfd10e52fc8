"""``graphcell.amp`` (MindSpore's ``mindspore.amp``): mixed precision and loss scaling.

- mixed precision: ``auto_mixed_precision``, ``custom_mixed_precision``, ``build_train_network``,
  ``get_white_list``, ``get_black_list`` (``graphcell/train/amp.py``);
- loss-scale managers for ``Model`` and ``build_train_network``: ``LossScaleManager``,
  ``FixedLossScaleManager``, ``DynamicLossScaleManager`` (``graphcell/train/
  loss_scale_manager.py``);
- loss scalers for hand-written training steps: ``LossScaler``, ``StaticLossScaler``,
  ``DynamicLossScaler`` (below), and ``all_finite``.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import amp
    >>> scaler = amp.DynamicLossScaler(scale_value=2.0 ** 10, scale_factor=2, scale_window=1)
    >>> float(scaler.scale(ms.Tensor(0.5)))
    512.0
    >>> grads = (ms.Tensor([np.inf]),)
    >>> _ = scaler.adjust(amp.all_finite(grads)); float(scaler.scale_value)   # halved
    512.0
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from graphcell import ops
from graphcell.nn.layers._validate import _is_int, _is_number
from graphcell.nn.wrap.loss_scale import all_finite
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell.train.amp import (auto_mixed_precision, build_train_network,
                                 custom_mixed_precision, get_black_list, get_white_list)
from graphcell.train.loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,
                                                LossScaleManager)
from graphcell_ir.ir.types import bool_, float32

__all__ = ["DynamicLossScaleManager", "LossScaleManager", "FixedLossScaleManager",
           "build_train_network", "DynamicLossScaler", "StaticLossScaler", "LossScaler",
           "auto_mixed_precision", "all_finite", "custom_mixed_precision", "get_white_list",
           "get_black_list"]


def _scaled(inputs, factor):
    """Every tensor of ``inputs`` (a Tensor or a tuple/list of them) times ``factor`` in its own
    dtype."""
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_scaled(x, factor) for x in inputs)
    return inputs * ops.cast(factor, inputs.dtype)


def _scale_parameter(scale_value) -> Parameter:
    if isinstance(scale_value, bool) or not _is_number(scale_value):
        raise TypeError(f"the loss scaler's 'scale_value' must be a float or an int, got "
                        f"{type(scale_value).__name__}")
    if scale_value < 1.0:
        raise ValueError(f"the loss scaler's 'scale_value' must be >= 1, got {scale_value}")
    return Parameter(Tensor(np.float32(scale_value)), name="scale_value")


class LossScaler(ABC):
    """The interface of loss scalers: ``scale(inputs)``, ``unscale(inputs)`` and
    ``adjust(grads_finite)``."""

    @abstractmethod
    def scale(self, inputs):
        """``inputs`` (a loss, or gradients) multiplied by the scale."""

    @abstractmethod
    def unscale(self, inputs):
        """``inputs`` divided by the scale."""

    @abstractmethod
    def adjust(self, grads_finite):
        """Update the scale after a step whose gradients were (not) all finite."""


class StaticLossScaler(LossScaler):
    """``StaticLossScaler(scale_value)``: one scale (>= 1), the 0-d Parameter ``scale_value``;
    ``adjust`` changes nothing and returns False."""

    def __init__(self, scale_value):
        self.scale_value = _scale_parameter(scale_value)

    def scale(self, inputs):
        return _scaled(inputs, self.scale_value)

    def unscale(self, inputs):
        return _scaled(inputs, 1.0 / self.scale_value)

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(LossScaler):
    """``DynamicLossScaler(scale_value, scale_factor, scale_window)``: ``adjust(grads_finite)``
    divides the scale by ``scale_factor`` (not below 1) after non-finite gradients and multiplies
    it by ``scale_factor`` after ``scale_window`` finite steps in a row (while the product is
    finite); the count is the Int32 Parameter ``counter``."""

    def __init__(self, scale_value, scale_factor, scale_window):
        self.scale_value = _scale_parameter(scale_value)
        for name, value in (("scale_window", scale_window), ("scale_factor", scale_factor)):
            if not _is_int(value) or value <= 0:
                raise ValueError(f"DynamicLossScaler: '{name}' must be a positive int, got "
                                 f"{value!r}")
        self.scale_window = int(scale_window)
        self.scale_factor = int(scale_factor)
        self.counter = Parameter(Tensor(np.int32(0)), name="counter")

    def scale(self, inputs):
        return _scaled(inputs, self.scale_value)

    def unscale(self, inputs):
        return _scaled(inputs, 1.0 / self.scale_value)

    def adjust(self, grads_finite):
        finite = ops.cast(grads_finite, bool_)
        grown = self.scale_value * self.scale_factor
        full_window = self.counter == self.scale_window - 1
        kept = ops.select(ops.logical_and(full_window, ops.isfinite(grown)), grown,
                          self.scale_value)
        shrunk = ops.maximum(ops.ones((), float32), self.scale_value / self.scale_factor)
        new_scale = ops.select(finite, kept, shrunk)
        ops.assign(self.scale_value, new_scale)
        ops.assign(self.counter, ((self.counter + 1) % self.scale_window) *
                   ops.cast(finite, self.counter.dtype))
        return True

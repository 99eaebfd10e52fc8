"""The training network ``Model`` builds for an ``amp_level`` (MindSpore's
``amp.build_train_network``), with the levels, options and checks of MindSpore 2.10.

graphcell has no float16 mixed precision yet (``amp.auto_mixed_precision`` belongs to the nn
work): levels ``"O1"``, ``"O2"``, ``"O3"`` and ``"auto"`` are accepted and the network trains in
float32, as at ``"O0"``, with a :class:`MixedPrecisionWarning` saying so. ``"O2"``'s default
dynamic loss scaling is not needed in float32 and is left out (MindSpore 2.10's CPU build refuses
``"O2"`` for that scaling); a fixed loss scale (``loss_scale_manager`` with
``get_update_cell() is None``) is honoured as the step's ``sens``.

Example::

    >>> from graphcell import nn
    >>> from graphcell.train._amp import build_train_network
    >>> net = nn.Dense(2, 1)
    >>> step = build_train_network(net, nn.SGD(net.trainable_params()), nn.MSELoss())
    >>> type(step).__name__, step.training
    ('TrainOneStepCell', True)
"""
from __future__ import annotations

import warnings

__all__ = ["LEVELS", "BOOST_LEVELS", "MixedPrecisionWarning", "build_train_network",
           "check_levels", "casts_outputs"]

LEVELS = ("O0", "O1", "O2", "O3", "auto")
BOOST_LEVELS = ("O0", "O1", "O2")
_OPTIONS = ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager")


class MixedPrecisionWarning(UserWarning):
    """An amp level asked for float16 compute, which graphcell does not do yet (it computes in
    float32)."""


def check_levels(level, boost_level, where: str) -> None:
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(f"{where}: 'amp_level' must be one of {list(LEVELS)}, got {level!r}")
    if not isinstance(boost_level, str) or boost_level not in BOOST_LEVELS:
        raise ValueError(f"{where}: 'boost_level' must be one of {list(BOOST_LEVELS)}, got "
                         f"{boost_level!r}")


def casts_outputs(level: str) -> bool:
    """Whether the evaluation network casts float16 outputs to float32 (MindSpore: O2, O3, auto)."""
    return level in ("O2", "O3", "auto")


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """``TrainOneStepCell(WithLossCell(network, loss_fn), optimizer, sens)`` (no ``WithLossCell``
    without ``loss_fn``), in training mode; ``kwargs``: ``cast_model_type``,
    ``keep_batchnorm_fp32``, ``loss_scale_manager``."""
    from graphcell.nn.optim import Optimizer
    from graphcell.nn.wrap import TrainOneStepCell, WithLossCell
    where = "build_train_network"
    check_levels(level, boost_level, where)
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{where}: 'optimizer' must be an nn.Optimizer, got "
                        f"{type(optimizer).__name__}")
    unknown = sorted(set(kwargs) - set(_OPTIONS))
    if unknown:
        raise ValueError(f"{where}: unknown options {unknown}; expected some of {list(_OPTIONS)}")
    wants_half = level != "O0" or str(kwargs.get("cast_model_type", "")) == "Float16"
    if wants_half and str(kwargs.get("cast_model_type", "")) != "Float32":
        warnings.warn(f"amp_level={level!r}: graphcell has no float16 mixed precision yet, so the "
                      "network trains in float32 (as with amp_level='O0')",
                      MixedPrecisionWarning, stacklevel=3)
    sens = _fixed_loss_scale(kwargs.get("loss_scale_manager"))
    net = WithLossCell(network, loss_fn) if loss_fn is not None else network
    return TrainOneStepCell(net, optimizer, sens).set_train()


def _fixed_loss_scale(manager) -> float | None:
    """The ``sens`` of a fixed loss scale manager (None without one)."""
    if manager is None:
        return None
    if not (hasattr(manager, "get_loss_scale") and hasattr(manager, "get_update_cell")):
        raise TypeError("build_train_network: 'loss_scale_manager' must be a LossScaleManager "
                        f"(get_loss_scale, get_update_cell), got {type(manager).__name__}")
    if manager.get_update_cell() is not None:
        raise ValueError("build_train_network: only a fixed loss scale without overflow checks "
                         "(FixedLossScaleManager(drop_overflow_update=False)) is supported; "
                         "dynamic loss scaling is not, as on MindSpore's CPU build")
    return float(manager.get_loss_scale())

"""Dynamic learning rates: lists of one rate per step, which any optimizer accepts as its
``learning_rate`` (step ``i`` uses entry ``i``).

Python floats computed with MindSpore 2.10's formulas (so the lists equal MindSpore's); the
epoch of step ``i`` is ``floor(i / step_per_epoch)``.

Example::

    >>> from graphcell import nn
    >>> nn.piecewise_constant_lr([2, 5], [0.1, 0.05])
    [0.1, 0.1, 0.05, 0.05, 0.05]
"""
from __future__ import annotations

import math

from graphcell.nn.layers._validate import check_bool
from graphcell.nn.learning_rate_schedule import positive_int

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def _float(value, name: str, owner: str, zero_ok: bool = False) -> float:
    if not isinstance(value, float):
        raise TypeError(f"{owner}: '{name}' must be a float, got {type(value).__name__} "
                        f"{value!r}")
    if value < 0 or (value == 0 and not zero_ok):
        kind = "non-negative" if zero_ok else "positive"
        raise ValueError(f"{owner}: '{name}' must be a {kind} float, got {value}")
    return value


def _steps(owner: str, total_step, step_per_epoch, epochs, epochs_name: str) -> None:
    positive_int(total_step, "total_step", owner)
    positive_int(step_per_epoch, "step_per_epoch", owner)
    positive_int(epochs, epochs_name, owner)


def _epoch(i: int, step_per_epoch: int) -> int:
    return math.floor(i / step_per_epoch)


def piecewise_constant_lr(milestone, learning_rates):
    """``piecewise_constant_lr(milestone, learning_rates)``: ``learning_rates[i]`` for the steps
    from ``milestone[i - 1]`` up to ``milestone[i]`` (the last milestone is the step count)."""
    owner = "piecewise_constant_lr"
    for name, value in (("milestone", milestone), ("learning_rates", learning_rates)):
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"{owner}: '{name}' must be a list or tuple, got "
                            f"{type(value).__name__}")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"{owner}: 'milestone' and 'learning_rates' must have one size, got "
                         f"{len(milestone)} and {len(learning_rates)}")
    rates, last = [], 0
    for i, (stop, rate) in enumerate(zip(milestone, learning_rates)):
        positive_int(stop, f"milestone[{i}]", owner)
        if not isinstance(rate, float):
            raise TypeError(f"{owner}: 'learning_rates[{i}]' must be a float, got "
                            f"{type(rate).__name__} {rate!r}")
        if stop < last:
            raise ValueError(f"{owner}: milestone[{i}] ({stop}) must not be below "
                             f"milestone[{i - 1}] ({last})")
        rates += [rate] * (stop - last)
        last = stop
    return rates


def _decay_args(owner, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                is_stair) -> None:
    _steps(owner, total_step, step_per_epoch, decay_epoch, "decay_epoch")
    _float(learning_rate, "learning_rate", owner)
    _float(decay_rate, "decay_rate", owner)
    check_bool(is_stair, "is_stair", owner)


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """``learning_rate * decay_rate ** (epoch / decay_epoch)`` per step (the ratio floored with
    ``is_stair``).

    Example::

        >>> from graphcell import nn
        >>> nn.exponential_decay_lr(0.1, 0.5, 4, 1, 2, is_stair=True)
        [0.1, 0.1, 0.05, 0.05]
    """
    _decay_args("exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        ratio = _epoch(i, step_per_epoch) / decay_epoch
        out.append(learning_rate * decay_rate ** (math.floor(ratio) if is_stair else ratio))
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """``learning_rate * e ** (-decay_rate * epoch)`` per step (the epoch rounded down to a
    multiple of ``decay_epoch`` with ``is_stair``)."""
    _decay_args("natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        epoch = _epoch(i, step_per_epoch)
        if is_stair:
            epoch = math.floor(epoch / decay_epoch) * decay_epoch
        out.append(learning_rate * math.e ** (-decay_rate * epoch))
    return out


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """``learning_rate / (1 + decay_rate * epoch / decay_epoch)`` per step (the ratio floored
    with ``is_stair``)."""
    _decay_args("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        epoch = _epoch(i, step_per_epoch)
        if is_stair:
            out.append(learning_rate / (1 + decay_rate * math.floor(epoch / decay_epoch)))
        else:
            out.append(learning_rate / (1 + decay_rate * epoch / decay_epoch))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """``min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * epoch / decay_epoch))`` per step, the
    epoch held at ``decay_epoch``."""
    owner = "cosine_decay_lr"
    _float(min_lr, "min_lr", owner, zero_ok=True)
    _float(max_lr, "max_lr", owner)
    _steps(owner, total_step, step_per_epoch, decay_epoch, "decay_epoch")
    if min_lr >= max_lr:
        raise ValueError(f"{owner}: 'max_lr' must be greater than 'min_lr', got max_lr {max_lr} "
                         f"and min_lr {min_lr}")
    delta = 0.5 * (max_lr - min_lr)
    return [min_lr + delta * (1 + math.cos(math.pi * min(_epoch(i, step_per_epoch), decay_epoch)
                                           / decay_epoch))
            for i in range(total_step)]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch,
                        power, update_decay_epoch=False):
    """``(learning_rate - end_learning_rate) * (1 - epoch / decay_epoch) ** power +
    end_learning_rate`` per step, the epoch held at ``decay_epoch`` — or, with
    ``update_decay_epoch``, ``decay_epoch`` stretched to the next multiple past the epoch."""
    owner = "polynomial_decay_lr"
    _float(learning_rate, "learning_rate", owner)
    _float(end_learning_rate, "end_learning_rate", owner, zero_ok=True)
    _float(power, "power", owner)
    _steps(owner, total_step, step_per_epoch, decay_epoch, "decay_epoch")
    check_bool(update_decay_epoch, "update_decay_epoch", owner)
    delta = learning_rate - end_learning_rate
    out = []
    for i in range(total_step):
        epoch = _epoch(i, step_per_epoch)
        if update_decay_epoch:
            span = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            span, epoch = decay_epoch, min(decay_epoch, epoch)
        out.append(delta * (1 - epoch / span) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """``learning_rate * min(epoch, warmup_epoch) / warmup_epoch`` per step.

    Example::

        >>> from graphcell import nn
        >>> nn.warmup_lr(0.1, 6, 2, 2)
        [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
    """
    owner = "warmup_lr"
    _float(learning_rate, "learning_rate", owner, zero_ok=True)
    _steps(owner, total_step, step_per_epoch, warmup_epoch, "warmup_epoch")
    return [learning_rate * min(warmup_epoch, _epoch(i, step_per_epoch)) / warmup_epoch
            for i in range(total_step)]

"""MindSpore's private helpers of ``mindspore.parallel._utils`` that training code reads (model-zoo
``TrainOneStepCell`` subclasses import them): the parallel mode, the mean flag, the number of
processes the mean divides by, this process's rank.

Example::

    >>> from graphcell.parallel._utils import _get_device_num, _get_parallel_mode
    >>> _get_parallel_mode(), _get_device_num()
    ('stand_alone', 1)
"""
from __future__ import annotations

from graphcell.communication.management import get_group_size, get_rank
from graphcell.parallel._auto_parallel_context import ParallelMode, get_auto_parallel_context, is_set

__all__ = ["_get_parallel_mode", "_get_gradients_mean", "_get_device_num", "_get_global_rank",
           "_get_parameter_broadcast", "is_data_parallel"]


def _get_parallel_mode() -> str:
    return get_auto_parallel_context("parallel_mode")


def _get_gradients_mean() -> bool:
    return get_auto_parallel_context("gradients_mean")


def _get_device_num() -> int:
    """1 in stand-alone mode; else ``device_num`` when it was set, the number of processes
    otherwise."""
    if _get_parallel_mode() == ParallelMode.STAND_ALONE:
        return 1
    return get_auto_parallel_context("device_num") if is_set("device_num") else get_group_size()


def _get_global_rank() -> int:
    if _get_parallel_mode() == ParallelMode.STAND_ALONE:
        return 0
    return get_auto_parallel_context("global_rank") if is_set("global_rank") else get_rank()


def _get_parameter_broadcast() -> bool:
    return get_auto_parallel_context("parameter_broadcast")


def is_data_parallel() -> bool:
    """Whether gradients are reduced over the processes (``DATA_PARALLEL``, ``HYBRID_PARALLEL``)."""
    return _get_parallel_mode() in (ParallelMode.DATA_PARALLEL, ParallelMode.HYBRID_PARALLEL)

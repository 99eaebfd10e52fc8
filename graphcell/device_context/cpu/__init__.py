"""``mindspore.device_context.cpu``: the CPU, graphcell's device.

Example::

    >>> from graphcell.device_context import cpu
    >>> cpu.is_available(), cpu.device_count()
    (True, 1)
"""
from graphcell.device_context.cpu import op_tuning
from graphcell.device_context.cpu.op_tuning import threads_num

__all__ = ["is_available", "device_count", "threads_num", "op_tuning"]


def is_available() -> bool:
    """True: graphcell always runs on the CPU."""
    return True


def device_count() -> int:
    """1: the CPU counts as one device (its cores are threads of it)."""
    return 1

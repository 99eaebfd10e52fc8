"""``mindspore.device_context``: per-device settings and queries (``device_context.cpu``,
``.gpu``, ``.ascend``). graphcell runs on the CPU: ``cpu`` is the device; ``gpu`` and ``ascend``
answer that they are not available, as MindSpore's CPU build does.

Example::

    >>> import graphcell as ms
    >>> ms.device_context.cpu.is_available(), ms.device_context.gpu.is_available()
    (True, False)
"""
from graphcell.device_context import ascend, cpu, gpu

__all__ = ["cpu", "gpu", "ascend"]

"""The queries of a device this build does not run on (MindSpore's CPU build answers them the
same way)."""
from __future__ import annotations


def absent_device(target: str):
    """``(is_available, device_count)`` of a device graphcell does not run on."""

    def is_available() -> bool:
        """False: graphcell runs on the CPU only."""
        return False

    def device_count() -> int:
        """Refused, as MindSpore's CPU build refuses it: the device does not exist."""
        raise RuntimeError(f"Device_target {target} not exist.")

    return is_available, device_count

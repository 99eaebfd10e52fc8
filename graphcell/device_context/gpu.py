"""``mindspore.device_context.gpu``: graphcell does not run on GPU; its queries say so."""
from graphcell.device_context._absent import absent_device

__all__ = ["is_available", "device_count"]

is_available, device_count = absent_device("GPU")

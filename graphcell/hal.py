"""``mindspore.hal``: devices, streams, events and memory statistics, for graphcell's one device.

graphcell runs every op on the CPU, synchronously, in the calling thread: work is done when the
call returns. So a stream orders nothing beyond program order, ``synchronize`` has nothing to
wait for, and an :class:`Event` records the host time at which everything before it finished —
``elapsed_time`` between two events is the wall time of the work between them. graphcell keeps
no memory pool (tensors are numpy arrays, freed by Python), so the pool statistics are zero,
as MindSpore's CPU build reports them.

Example::

    >>> from graphcell import hal
    >>> start, end = hal.Event(enable_timing=True), hal.Event(enable_timing=True)
    >>> start.record(); total = sum(range(1000)); end.record()
    >>> start.elapsed_time(end) >= 0.0
    True
"""
from __future__ import annotations

import time

__all__ = ["Stream", "StreamCtx", "Event", "current_stream", "default_stream", "set_cur_stream",
           "communication_stream", "synchronize", "device_count", "is_available",
           "is_initialized", "get_device_name", "get_device_properties", "get_device_capability",
           "get_arch_list", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "memory_stats", "memory_summary", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "empty_cache"]

_TARGETS = ("CPU", "GPU", "Ascend")


def _target(name: str, device_target) -> str:
    if device_target is None:
        return "CPU"
    if device_target not in _TARGETS:
        raise ValueError(f"hal.{name}: device_target must be one of {list(_TARGETS)}, got "
                         f"{device_target!r}")
    return device_target


def _device_id(name: str, device_id) -> None:
    if not isinstance(device_id, int) or isinstance(device_id, bool):
        raise TypeError(f"hal.{name}: the argument 'device_id' must be int, got "
                        f"{type(device_id).__name__}")


# --- devices ---------------------------------------------------------------------------------------

def is_available(device_target) -> bool:
    """Whether graphcell can run on ``device_target``: True for ``"CPU"`` only."""
    return _target("is_available", device_target) == "CPU"


def is_initialized(device_target) -> bool:
    """Whether the device runtime was started: never, the CPU needs none."""
    _target("is_initialized", device_target)
    return False


def device_count(device_target=None) -> int:
    """1 for the CPU, 0 for a device graphcell does not run on."""
    return 1 if _target("device_count", device_target) == "CPU" else 0


def get_device_name(device_id, device_target=None) -> str:
    """``"CPU"``: the one device."""
    _device_id("get_device_name", device_id)
    return _target("get_device_name", device_target)


def get_device_properties(device_id, device_target=None):
    """None on the CPU, as in MindSpore (device properties describe accelerators)."""
    _device_id("get_device_properties", device_id)
    _target("get_device_properties", device_target)
    return None


def get_device_capability(device_id, device_target=None):
    """None on the CPU, as in MindSpore (a compute capability is a GPU's)."""
    _device_id("get_device_capability", device_id)
    _target("get_device_capability", device_target)
    return None


def get_arch_list(device_target=None):
    """None on the CPU, as in MindSpore."""
    _target("get_arch_list", device_target)
    return None


def synchronize() -> None:
    """Wait for the device's work: on graphcell's CPU every op has finished when it returns."""


# --- streams and events ----------------------------------------------------------------------------

class Event:
    """A point in a stream's work. ``record()`` marks it (the host time, since all work before it
    is done), ``elapsed_time(end)`` gives the milliseconds to ``end``."""

    def __init__(self, enable_timing=False, blocking=False):
        self.enable_timing, self.blocking = bool(enable_timing), bool(blocking)
        self._time: float | None = None

    def record(self, stream=None) -> None:
        self._time = time.perf_counter()

    def wait(self, stream=None) -> None:
        """Make ``stream`` wait for this event: it already has."""

    def synchronize(self) -> None:
        """Wait for the event: it has happened when ``record`` returned."""

    def query(self) -> bool:
        """Whether the recorded work is done: always, once recorded."""
        return True

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds from this event to ``end_event`` (both recorded, with timing)."""
        if not isinstance(end_event, Event):
            raise TypeError(f"Event.elapsed_time: expected an Event, got "
                            f"{type(end_event).__name__}")
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Event.elapsed_time: both events must be created with "
                               "enable_timing=True")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Event.elapsed_time: both events must be recorded first")
        return (end_event._time - self._time) * 1000.0


class Stream:
    """A queue of device work. graphcell runs work where it is issued, so every stream is
    ordered with every other; the API is there so stream code runs unchanged."""

    _count = 0

    def __init__(self, priority=0, **kwargs):
        self.priority = priority
        self.device_name, self.device_id = "CPU", 0
        self.id = Stream._count
        Stream._count += 1

    def record_event(self, event: Event | None = None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event: Event) -> None:
        """Wait for ``event``: it happened when it was recorded."""

    def wait_stream(self, stream: Stream) -> None:
        """Wait for ``stream``'s work: it is done."""

    def synchronize(self) -> None:
        """Wait for this stream's work: it is done."""

    def query(self) -> bool:
        return True

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("Stream", self.id))

    def __repr__(self) -> str:
        return f"Stream(device_name={self.device_name}, device_id:{self.device_id}, " \
               f"stream id:{self.id})"


class _Streams:
    default = Stream()
    current = default


def default_stream() -> Stream:
    """The stream work goes to unless another is made current."""
    return _Streams.default


def communication_stream() -> Stream:
    """The stream collectives use: the default one (collectives run where they are called)."""
    return _Streams.default


def current_stream() -> Stream:
    """The stream made current by :func:`set_cur_stream` or :class:`StreamCtx`."""
    return _Streams.current


def set_cur_stream(stream: Stream) -> None:
    if not isinstance(stream, Stream):
        raise TypeError(f"hal.set_cur_stream: expected a Stream, got {type(stream).__name__}")
    _Streams.current = stream


class StreamCtx:
    """``with hal.StreamCtx(stream):`` makes ``stream`` current inside the block."""

    def __init__(self, ctx_stream: Stream | None):
        if ctx_stream is not None and not isinstance(ctx_stream, Stream):
            raise TypeError(f"hal.StreamCtx: expected a Stream or None, got "
                            f"{type(ctx_stream).__name__}")
        self.stream, self.previous = ctx_stream, None

    def __enter__(self):
        self.previous = _Streams.current
        if self.stream is not None:
            _Streams.current = self.stream
        return self

    def __exit__(self, *exc):
        _Streams.current = self.previous
        return False


# --- memory --------------------------------------------------------------------------------------

def _zero(name: str):
    def stat(device_target=None) -> int:
        _target(name, device_target)
        return 0
    stat.__name__ = name
    stat.__doc__ = "0: graphcell keeps no memory pool (see the module)."
    return stat


memory_allocated = _zero("memory_allocated")
max_memory_allocated = _zero("max_memory_allocated")
memory_reserved = _zero("memory_reserved")
max_memory_reserved = _zero("max_memory_reserved")


def memory_stats(device_target=None) -> dict:
    """``{}``: graphcell keeps no memory pool."""
    _target("memory_stats", device_target)
    return {}


def memory_summary(device_target=None) -> str:
    """MindSpore's table of the pool's statistics (all 0 B: graphcell keeps no pool)."""
    _target("memory_summary", device_target)
    rows = ["Reserved memory", "Allocated memory", "Idle memory", "Eager free memory",
            "Max reserved memory", "Max allocated memory"]
    rule = "|" + "-" * 45 + "|"
    lines = ["|" + "=" * 45 + "|", f"|{'Memory summary':^45}|", "|" + "=" * 45 + "|",
             f"| {'Metric':<20} | {'Data':<20} |"]
    for row in rows:
        lines += [rule, f"| {row:<20} | {'0 B':>8}{'':<12} |"]
    lines.append("|" + "=" * 45 + "|")
    return "\n".join(lines) + "\n"


def reset_peak_memory_stats(device_target=None) -> None:
    _target("reset_peak_memory_stats", device_target)


def reset_max_memory_allocated(device_target=None) -> None:
    _target("reset_max_memory_allocated", device_target)


def reset_max_memory_reserved(device_target=None) -> None:
    _target("reset_max_memory_reserved", device_target)


def empty_cache() -> None:
    """Release the pool's cached memory: there is no pool."""

"""``mindspore.profiler``: ``Profiler``, the 2.x ``profile`` context, ``schedule``,
``tensorboard_trace_handler``, ``ProfilerActivity``, ``ProfilerLevel``.

While a profiler records, every PyNative op is timed at the dispatch point
(``runtime/dispatch.timer``) and every kernel and op of compiled steps through their timed
runners (``graphcell_ir.backend.profile``); ``analyse()`` (or the trace handler) writes what
MindSpore 2.10's CPU profiler writes (``_writer.py``). When no profiler records, the dispatch
point costs one ``is None`` test.

    >>> prof = Profiler(output_path="./prof")        # doctest: +SKIP
    >>> net(x); prof.stop(); prof.analyse()            # doctest: +SKIP
"""
from __future__ import annotations

import os
import time
from enum import Enum

from graphcell.profiler._writer import write_run
from graphcell.runtime import dispatch
from graphcell_ir.backend import profile as _profile

__all__ = ["Profiler", "profile", "schedule", "tensorboard_trace_handler", "ProfilerActivity",
           "ProfilerLevel", "ProfilerAction"]


class ProfilerActivity(Enum):
    """What to profile; graphcell profiles the CPU (``NPU``/``GPU`` record nothing here)."""

    NPU = "NPU"
    GPU = "GPU"
    CPU = "CPU"


class ProfilerLevel(Enum):
    """MindSpore's collection levels; graphcell collects the same per-op timings at each."""

    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ProfilerAction(Enum):
    """What a :class:`schedule` says a step does."""

    NONE = 0
    WARM_UP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def _count(name: str, v, least: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < least:
        raise ValueError(f"schedule: {name} must be an int >= {least}, got {v!r}")
    return v


class schedule:  # noqa: N801  (MindSpore's name)
    """``schedule(*, wait, active, warmup=0, repeat=0, skip_first=0)``: step -> action. After
    ``skip_first`` steps, cycles of ``wait`` idle, ``warmup`` and ``active`` recorded steps (the
    last one saves), ``repeat`` times (0: for ever).

    >>> s = schedule(wait=1, active=2)
    >>> [s(i).name for i in range(3)]
    ['NONE', 'RECORD', 'RECORD_AND_SAVE']
    """

    def __init__(self, *, wait: int, active: int, warmup: int = 0, repeat: int = 0,
                 skip_first: int = 0):
        self.wait, self.active = _count("wait", wait, 0), _count("active", active, 1)
        self.warmup, self.repeat = _count("warmup", warmup, 0), _count("repeat", repeat, 0)
        self.skip_first = _count("skip_first", skip_first, 0)

    def __call__(self, step: int) -> ProfilerAction:
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if self.repeat and step // cycle >= self.repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < self.wait:
            return ProfilerAction.NONE
        if at < self.wait + self.warmup:
            return ProfilerAction.WARM_UP
        return ProfilerAction.RECORD_AND_SAVE if at == cycle - 1 else ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str | None = None, worker_name: str | None = None,
                              analyse_flag: bool = True, async_mode: bool = False):
    """An ``on_trace_ready`` callback writing each recorded cycle's files under ``dir_name``
    (default ``./data``)."""
    if dir_name is not None and not isinstance(dir_name, (str, os.PathLike)):
        raise TypeError(f"tensorboard_trace_handler: dir_name must be a path, got "
                        f"{type(dir_name).__name__}")
    target = os.fspath(dir_name) if dir_name is not None else "./data"

    def handler(prof) -> None:
        if analyse_flag:
            prof._write(target)
    return handler


class _Recording:
    """One profiler's recorder, wired to the dispatch point and the compiled runners."""

    def __init__(self):
        self.recorder = _profile.Recorder()
        self.token = None
        self.sites: dict = {}
        self.offset = time.time_ns() - time.perf_counter_ns()

    @property
    def on(self) -> bool:
        return self.token is not None

    def start(self) -> None:
        if self.on:
            return
        if dispatch.timer is not None:
            raise RuntimeError("another graphcell profiler is recording: stop it first")
        dispatch.timer = self.time_op
        self.token = _profile.start(self.recorder)

    def stop(self) -> None:
        if not self.on:
            return
        _profile.stop(self.token)
        self.token = None
        if dispatch.timer == self.time_op:
            dispatch.timer = None

    def time_op(self, op, impl, arrays, attrs):
        start = time.perf_counter_ns()
        out = impl(*arrays, **attrs)
        took = time.perf_counter_ns() - start
        site = self.sites.get(op)
        if site is None:
            site = self.sites[op] = _profile.Site(op.ms_name or op.name, "op", (op.name,), (), (), None)
        self.recorder.add(_profile.Event(None, site, start, took,
                                         _profile.nbytes(arrays) + _profile.nbytes(out)))
        return out


class Profiler:
    """``Profiler(output_path="./data", start_profile=True, **kwargs)``: records from
    construction (or ``start()``) to ``stop()``; ``analyse()`` writes MindSpore's CPU files.
    Other MindSpore keyword arguments (``profiler_level``, ``activities``, ...) are accepted;
    graphcell records the same CPU timings whatever they say."""

    def __init__(self, output_path: str = "./data", start_profile: bool = True, **kwargs):
        if not isinstance(output_path, (str, os.PathLike)):
            raise TypeError(f"Profiler: output_path must be a path, got "
                            f"{type(output_path).__name__}")
        self.output_path = os.fspath(output_path)
        self._rec = _Recording()
        self._steps = 0
        self.run_dir: str | None = None   # the directory the last analyse() wrote
        if start_profile:
            self.start()

    @property
    def events(self) -> list:
        return self._rec.recorder.events

    def start(self) -> None:
        """Start recording."""
        self._rec.start()

    def stop(self) -> None:
        """Stop recording (what was recorded is kept for ``analyse()``)."""
        self._rec.stop()

    def step(self) -> None:
        """Mark the end of one training step (for the per-step frequency column)."""
        self._steps += 1

    def analyse(self, offline_path=None, pretty: bool = False, step_list=None,
                mode: str = "sync") -> None:
        """Write the recorded timings as MindSpore's CPU profiler does (under ``output_path``)."""
        self.stop()
        self._write(self.output_path)

    def _write(self, path: str) -> str:
        self.run_dir = write_run(path, list(self.events), self._steps, self._rec.offset)
        return self.run_dir

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class profile(Profiler):  # noqa: N801  (MindSpore's name)
    """``with profile(activities=..., schedule=schedule(...),
    on_trace_ready=tensorboard_trace_handler(dir)) as prof: ... prof.step()``: records the
    steps the schedule marks, handing each finished cycle to ``on_trace_ready``."""

    def __init__(self, activities=None, with_stack: bool = False, profile_memory: bool = False,
                 data_process: bool = False, parallel_strategy: bool = False,
                 start_profile: bool = True, hbm_ddr: bool = False, pcie: bool = False,
                 sync_enable: bool = True, record_shapes: bool = False, schedule=None,
                 on_trace_ready=None, experimental_config=None):
        if schedule is not None and not callable(schedule):
            raise TypeError("profile: schedule must be a mindspore.profiler.schedule")
        if on_trace_ready is not None and not callable(on_trace_ready):
            raise TypeError("profile: on_trace_ready must be callable "
                            "(e.g. tensorboard_trace_handler(dir))")
        self.schedule, self.on_trace_ready = schedule, on_trace_ready
        self.step_num = 0
        super().__init__(output_path="./data", start_profile=False)
        self._started = start_profile

    def _action(self) -> ProfilerAction:
        return self.schedule(self.step_num) if self.schedule else ProfilerAction.RECORD

    def _follow_schedule(self) -> None:
        if self._action() in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._rec.start()
        else:
            self._rec.stop()

    def start(self) -> None:
        self._started = True
        self._follow_schedule()

    def step(self) -> None:
        """End the current step: save a finished cycle, then start the next step's action."""
        if self._action() is ProfilerAction.RECORD_AND_SAVE:
            self._hand_over()
        self._steps += 1
        self.step_num += 1
        if self._started:
            self._follow_schedule()

    def _hand_over(self) -> None:
        self._rec.stop()
        if self.on_trace_ready is not None and self.events:
            self.on_trace_ready(self)
        self._rec.recorder.events.clear()
        self._steps = 0

    def stop(self) -> None:
        self._started = False
        was_on = self._rec.on
        self._rec.stop()
        if was_on and self.schedule is None and self.on_trace_ready is not None and self.events:
            self.on_trace_ready(self)

    def __enter__(self):
        if self._started:
            self.start()
        return self

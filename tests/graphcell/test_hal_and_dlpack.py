"""``graphcell.hal`` (graphcell's one synchronous CPU device, MindSpore's CPU answers) and
``graphcell.utils.dlpack`` (zero-copy exchange)."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import graphcell as ms
from graphcell import hal
from graphcell.utils import dlpack

MS_SUMMARY = Path(__file__).parent / "data" / "hal_memory_summary.txt"


def test_device_queries_as_mindspores_cpu_build_answers():
    assert hal.is_available("CPU") and not hal.is_available("GPU")
    assert hal.device_count() == 1 and hal.device_count("GPU") == 0
    assert not hal.is_initialized("CPU")
    assert hal.get_device_name(0) == "CPU" and hal.get_device_properties(0) is None
    assert hal.get_arch_list() is None and hal.synchronize() is None
    with pytest.raises(TypeError, match="'device_id' must be int"):
        hal.get_device_name("CPU")
    with pytest.raises(ValueError, match="device_target must be one of"):
        hal.device_count("TPU")


def test_memory_statistics_are_those_of_no_pool():
    assert hal.memory_allocated() == hal.max_memory_reserved("CPU") == 0
    assert hal.memory_stats() == {}
    assert hal.memory_summary() == MS_SUMMARY.read_text()  # MindSpore 2.10's CPU text


def test_events_time_the_work_between_them():
    start, end = hal.Event(enable_timing=True), hal.Event(enable_timing=True)
    start.record()
    time.sleep(0.02)
    end.record()
    assert 15.0 <= start.elapsed_time(end) < 2000.0 and end.query()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        hal.Event().elapsed_time(end)
    with pytest.raises(RuntimeError, match="recorded"):
        hal.Event(enable_timing=True).elapsed_time(end)


def test_streams_are_made_current_by_a_context():
    s = hal.Stream()
    assert hal.current_stream() == hal.default_stream() != s
    with hal.StreamCtx(s):
        assert hal.current_stream() == s
        event = s.record_event()
    assert hal.current_stream() == hal.default_stream() and event.query()
    assert repr(s).startswith("Stream(device_name=CPU, device_id:0, stream id:")


def test_dlpack_shares_memory_both_ways():
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    capsule = dlpack.to_dlpack(x)
    y = dlpack.from_dlpack(capsule)
    x.asnumpy()[0] = 7.0
    np.testing.assert_array_equal(y.asnumpy(), [7.0, 1.0, 2.0])
    assert not y.asnumpy().flags.writeable  # a DLPack 0.x capsule cannot grant writes
    with pytest.raises(ValueError, match="used already"):
        dlpack.from_dlpack(capsule)
    source = np.arange(4.0).reshape(2, 2)
    z = dlpack.from_dlpack(source)
    source[1, 1] = -1.0
    assert z.dtype == ms.float64 and z.asnumpy()[1, 1] == -1.0
    assert float((z * 2).sum()) == 4.0  # (0 + 1 + 2 - 1) * 2


def test_dlpack_refuses_what_it_cannot_share():
    with pytest.raises(TypeError, match="DLPack capsule or an object with __dlpack__"):
        dlpack.from_dlpack([1.0])
    with pytest.raises(TypeError, match="expected a Tensor"):
        dlpack.to_dlpack(np.ones(2))

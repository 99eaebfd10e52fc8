"""mindspore.profiler: Profiler and profile write the files MindSpore 2.10's CPU profiler writes
(names, columns, trace shape checked against the sample it wrote: ms_sample/, recorded by
tools/record_profiler_sample.py), one trace event per op call, in PyNative and graph mode."""
import csv
import glob
import json
import os

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from graphcell.profiler import (Profiler, ProfilerAction, ProfilerActivity, profile, schedule,
                                tensorboard_trace_handler)
from graphcell.runtime import dispatch

SAMPLE = os.path.join(os.path.dirname(__file__), "ms_sample")
FILES = ("FRAMEWORK/cpu_op_type_info_0.csv", "FRAMEWORK/cpu_op_detail_info_0.csv",
         "FRAMEWORK/cpu_op_execute_timestamp_0.txt", "ASCEND_PROFILER_OUTPUT/trace_view.json")


def _header(path):
    with open(path, newline="") as f:
        return next(csv.reader(f))


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _trace_ops(run):
    with open(os.path.join(run, FILES[3])) as f:
        trace = json.load(f)
    return trace, [e for e in trace if e["ph"] == "X"]


def _check_like_mindspore(run):
    for f in FILES:
        assert os.path.isfile(os.path.join(run, f)), f
    for f in FILES[:2]:
        assert _header(os.path.join(run, f)) == _header(os.path.join(SAMPLE, f))
    trace, ops = _trace_ops(run)
    _, sample_ops = _trace_ops(SAMPLE)
    assert set(ops[0]) == set(sample_ops[0])
    assert [e["name"] for e in trace if e["ph"] == "M"] == \
        [e["name"] for e in _trace_ops(SAMPLE)[0] if e["ph"] == "M"][:5]
    for line in open(os.path.join(run, FILES[2])).read().splitlines():
        name, side, calls = line.split(";")
        assert side == "HostCpuOps" and all(len(c.split(",")) == 3 for c in calls.split())
    return ops


@pytest.fixture
def pynative():
    before = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=before)


def test_pynative_profiler_writes_mindspores_files_one_event_per_op_call(tmp_path, pynative):
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    x = Tensor(np.ones((4, 3), np.float32))
    prof = Profiler(output_path=str(tmp_path))
    for _ in range(2):
        ms.ops.relu(net(x))
    prof.stop()
    assert dispatch.timer is None
    ms.ops.relu(net(x))            # not recorded
    prof.analyse()
    (run,) = glob.glob(str(tmp_path / "*_ascend_ms"))
    ops = _check_like_mindspore(run)
    names = [e["name"] for e in ops]
    assert names.count("MatMul") == 2 and names.count("ReLU") == 2
    detail = {r["op_name"]: r for r in _rows(os.path.join(run, FILES[1]))}
    assert detail["MatMul"]["op_occurrences"] == "2" and detail["MatMul"]["op_side"] == "Host"
    types = {r["op_type"]: r for r in _rows(os.path.join(run, FILES[0]))}
    assert set(types) == set(r["op_type"] for r in detail.values())
    assert abs(sum(float(r["percent"]) for r in types.values()) - 1) < 1e-3


def test_graph_mode_steps_are_profiled_per_kernel(tmp_path):
    before = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        ms.set_seed(0)
        net = nn.SequentialCell([nn.Dense(64, 128), nn.ReLU(), nn.Dense(128, 4)])
        x = Tensor(np.ones((64, 64), np.float32))
        net(x)
        with Profiler(output_path=str(tmp_path)) as prof:
            net(x)
            net(x)
        prof.analyse()
    finally:
        ms.set_context(mode=before)
    ops = _check_like_mindspore(prof.run_dir)
    names = [e["name"] for e in ops]
    assert names and all(n.startswith("SequentialCell.") and "/" in n for n in names)
    assert all(names.count(n) == 2 for n in names)   # every site ran in both calls
    assert any("/matmul_" in n for n in names) and all("source" in e["args"] for e in ops)


def test_profile_with_schedule_hands_each_cycle_to_the_trace_handler(tmp_path, pynative):
    x = Tensor(np.ones((2, 2), np.float32))
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, active=2, repeat=1),
                 on_trace_ready=tensorboard_trace_handler(str(tmp_path))) as prof:
        for step in range(4):
            ms.ops.exp(x + step)
            prof.step()
    (run,) = glob.glob(str(tmp_path / "*_ascend_ms"))
    ops = _check_like_mindspore(run)
    assert [e["name"] for e in ops].count("Exp") == 2   # steps 1 and 2 only
    assert dispatch.timer is None


def test_schedule_actions_and_bad_arguments():
    s = schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    assert [s(i) for i in range(6)] == [ProfilerAction.NONE, ProfilerAction.NONE,
                                        ProfilerAction.WARM_UP, ProfilerAction.RECORD,
                                        ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE]
    with pytest.raises(ValueError, match="active must be an int >= 1"):
        schedule(wait=0, active=0)
    with pytest.raises(TypeError, match="output_path"):
        Profiler(output_path=3)


def test_one_profiler_at_a_time(tmp_path, pynative):
    first = Profiler(output_path=str(tmp_path))
    try:
        with pytest.raises(RuntimeError, match="another graphcell profiler"):
            Profiler(output_path=str(tmp_path))
    finally:
        first.stop()
    assert dispatch.timer is None

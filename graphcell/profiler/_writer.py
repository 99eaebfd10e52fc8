"""The files MindSpore 2.10's CPU profiler writes, from graphcell's profile events.

Same layout, file names and columns as MindSpore's ``analyse()`` output (checked against a
sample it wrote: ``tests/graphcell/profiler/ms_sample/``, recorded by
``tools/record_profiler_sample.py``), with graphcell's op names: a PyNative op by its MindSpore
primitive name (``MatMul``), a compiled step's kernel or op by its one name
(``fused_17_relu_add_mul``, ``backend/naming.py``) under its function (``full_op_name``
``TrainOneStepCell.construct/fused_17_relu_add_mul``)::

    <output_path>/<host>_<pid>_<timestamp>_ascend_ms/
        FRAMEWORK/cpu_op_type_info_0.csv, cpu_op_detail_info_0.csv, cpu_op_execute_timestamp_0.txt
        ASCEND_PROFILER_OUTPUT/trace_view.json      (a Chrome trace: one "X" event per op call)
"""
from __future__ import annotations

import csv
import json
import os
import socket
import time
from collections import OrderedDict

__all__ = ["write_run"]

TYPE_COLUMNS = ["op_type", "type_occurrences", "execution_frequency(per-step)",
                "total_compute_time", "avg_time(ms)", "percent"]
DETAIL_COLUMNS = ["op_side", "op_type", "op_name", "full_op_name", "op_occurrences",
                  "op_total_time(ms)", "op_avg_time(ms)", "total_proportion", "subgraph", "pid"]


def _names(event) -> tuple[str, str, str]:
    """(op_type, op_name, full_op_name) of one event."""
    site = event.site
    if event.function is None:   # a PyNative op: its primitive's name
        return site.name, site.name, site.name
    op_type = "Fused" if site.name.startswith("fused_") else site.ops[0] if site.ops else "Op"
    return op_type, site.name, f"{event.function}/{site.name}"


def write_run(output_path: str, events: list, steps: int, epoch_offset_ns: int) -> str:
    """Write one profiling run's files under ``output_path``; returns the run's directory.
    ``epoch_offset_ns`` turns ``perf_counter_ns`` starts into nanoseconds since the epoch."""
    stamp = time.strftime("%Y%m%d%H%M%S") + f"{int(time.time() * 1000) % 1000:03d}"
    run = os.path.join(output_path, f"{socket.gethostname()}_{os.getpid()}_{stamp}_ascend_ms")
    framework = os.path.join(run, "FRAMEWORK")
    trace_dir = os.path.join(run, "ASCEND_PROFILER_OUTPUT")
    os.makedirs(framework, exist_ok=True)
    os.makedirs(trace_dir, exist_ok=True)
    by_op: OrderedDict = OrderedDict()
    for e in events:
        by_op.setdefault(_names(e), []).append(e)
    total_ms = sum(e.duration_ns for e in events) / 1e6 or 1.0
    _write_detail(framework, by_op, total_ms)
    _write_types(framework, by_op, total_ms, max(steps, 1))
    _write_timestamps(framework, by_op, epoch_offset_ns)
    _write_trace(trace_dir, by_op, epoch_offset_ns)
    return run


def _ms(events) -> float:
    return sum(e.duration_ns for e in events) / 1e6


def _write_detail(d: str, by_op, total_ms: float) -> None:
    with open(os.path.join(d, "cpu_op_detail_info_0.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(DETAIL_COLUMNS)
        for (op_type, name, full), evs in by_op.items():
            t = _ms(evs)
            subgraph = full.split("/")[0] if "/" in full else "Default"
            w.writerow(["Host", op_type, name, full, len(evs), round(t, 6),
                        round(t / len(evs), 6), round(t / total_ms, 6), subgraph, os.getpid()])


def _write_types(d: str, by_op, total_ms: float, steps: int) -> None:
    types: OrderedDict = OrderedDict()
    for (op_type, _, _), evs in by_op.items():
        types.setdefault(op_type, []).extend(evs)
    with open(os.path.join(d, "cpu_op_type_info_0.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(TYPE_COLUMNS)
        for op_type, evs in types.items():
            t = _ms(evs)
            w.writerow([op_type, len(evs), max(len(evs) // steps, 1), round(t, 6),
                        round(t / len(evs), 6), round(t / total_ms, 6)])


def _write_timestamps(d: str, by_op, offset: int) -> None:
    with open(os.path.join(d, "cpu_op_execute_timestamp_0.txt"), "w") as f:
        for (_, _, full), evs in by_op.items():
            calls = "".join(f"{e.start_ns + offset},{e.duration_ns / 1e6:.6f},0 " for e in evs)
            f.write(f"{full};HostCpuOps;{calls}\n")


def _write_trace(d: str, by_op, offset: int) -> None:
    def meta(name: str, args: dict) -> dict:
        return {"ph": "M", "name": name, "pid": 2, "tid": 0, "args": args}
    trace = [meta("process_name", {"name": "CPU OP"}), meta("process_sort_index", {"sort_index": 2}),
             meta("process_labels", {"labels": "CPU"}), meta("thread_name", {"name": "Thread 0"}),
             meta("thread_sort_index", {"sort_index": 0})]
    for (_, _, full), evs in by_op.items():
        for e in evs:
            args = {"type": "HostCpuOps"}
            if e.site.sources:
                args["source"] = ", ".join(e.site.sources)
            trace.append({"ph": "X", "name": full, "pid": 2, "tid": 0,
                          "ts": f"{(e.start_ns + offset) / 1e3:.3f}", "dur": f"{e.duration_ns / 1e3:.3f}",
                          "cat": "", "args": args})
    with open(os.path.join(d, "trace_view.json"), "w") as f:
        json.dump(trace, f)

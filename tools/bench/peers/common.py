"""What every peer program shares (run by the peer's interpreter, which has numpy and its own
framework, not graphcell): reading the parent's ``.npz`` and workload spec, timing, and running
each train-step workload with its first two losses.

A peer program is ``python <peer>.py <arrays.npz> <spec.json> [flags]``; it prints one JSON
object as its last line::

    {"steps": {key: {"time": [median, min], "compile": s, "losses": [l1, l2]}
                    | {"error": "what failed"}},
     "extra": {row name: [median, min]}}

``compile`` is the first two calls minus two steady steps (the first call compiles; a second
call may compile again once optimizer state exists).
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np

C, A = 0.7978845608, 0.044715     # W3's GELU-tanh constants


def measure(f, n=20):
    """``[median, min]`` seconds of ``n`` calls of ``f`` after one warm-up call."""
    f()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return [float(np.median(ts)), float(np.min(ts))]


def load():
    """``(arrays, spec)`` from the command line."""
    with open(sys.argv[2]) as f:
        return dict(np.load(sys.argv[1])), json.load(f)


def params(D: dict, w: dict) -> list:
    """The workload's weights, in graphcell's parameter order."""
    out, i = [], 0
    while f"{w['key']}/p{i}" in D:
        out.append(D[f"{w['key']}/p{i}"])
        i += 1
    return out


def check_shapes(name: str, got: list, want: list) -> None:
    got, want = [tuple(s) for s in got], [tuple(a.shape) for a in want]
    if got != want:
        raise ValueError(f"{name}: parameter shapes {got} differ from graphcell's {want}")


def one_line(e: BaseException) -> str:
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0][:300] if lines else ''}"


def run_steps(spec: dict, D: dict, make_step) -> dict:
    """For each workload, ``make_step(w, D)`` gives ``(step, loss_of)``: ``step()`` runs one
    synchronous train step and returns its loss, ``loss_of(r)`` turns that into a float."""
    out = {}
    for w in spec["workloads"]:
        try:
            step, loss_of = make_step(w, D)
            t0 = time.perf_counter()
            l1 = step()
            t1 = time.perf_counter()
            l2 = step()
            t2 = time.perf_counter()
            timing = measure(step, w["repeats"])
            out[w["key"]] = {"time": timing, "compile": (t2 - t0) - 2 * timing[0],
                             "losses": [loss_of(l1), loss_of(l2)]}
        except Exception as e:  # noqa: BLE001 - a peer's failure is the row's note, not a crash
            out[w["key"]] = {"error": one_line(e)}
        print(f"{w['key']}: {out[w['key']]}", file=sys.stderr, flush=True)
    return out


def report(steps: dict, extra: dict) -> None:
    print(json.dumps({"steps": steps, "extra": extra}))

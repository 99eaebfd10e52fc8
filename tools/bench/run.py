"""Issue 21's benchmarks: ``python -m tools.bench [--only W1,RESBLOCK] [--quick] [--no-peers]``
prints one table, graphcell and its peers side by side, measured in the same run.

Rows (``--only`` keys; the default runs all but R18COMPILE):

- W3: GELU-tanh over 4M float32, forward and gradient, in GB/s (:mod:`tools.bench.w3`);
- W1 (MLP 784-1024-1024-10 b128, SGD; plus its forward), W2 (LeNet5, Momentum), RESBLOCK (a
  ResNet basic block, b32 32x32 c32), MLP256 (784-256-256-10 b128), MLP64B1 (784-64-64-10,
  batch 1: per-step overhead), RESNET18 (32x32 stem, b8), TRANSFORMER (an encoder layer, d256
  h4 ffn1024 seq 64 b8): train steps, described once in :mod:`tools.bench.workloads`, in
  GRAPH_MODE and PyNative;
- W4: PyNative ``x + y`` on [4] float32 per op, without and with a tape (:mod:`tools.bench.w4`);
- W5: the W2 step's compile latency, cold and warm (:mod:`tools.bench.w5`), against JAX's and
  torch.compile's first two steps minus two steady ones;
- R18COMPILE: the RESNET18 step's cold compile against MindSpore 2.10's graph mode, fresh
  processes (``tools/bench_model_compile.py``; ``--compile-repeat`` of them, median):
  graphcell's first call minus its second, MindSpore's ``step.compile()`` (its steady step takes
  ~20 s here, whose noise swamps first minus second).

Peers (:mod:`tools.bench.peers`): PyTorch eager, torch.compile and JAX jit, each in its own
process from the same weights and inputs; numpy rows are references, not peers. Each row: the
median and min of the workload's repeats after a warm-up; graphcell rows get the ratio of their
median to the best peer's. Every train step's loss after one update is checked against the
peers' (``workloads.check_losses``): a difference is printed and the command exits with status 1.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.bench import graphcell_steps, peers, timing, w1, w3, w4, w5, workloads  # noqa: E402
from tools.bench.timing import Timing  # noqa: E402

STEP_KEYS = [w.key for w in workloads.WORKLOADS]
ALL = ["W3", "W1", "W2", "RESBLOCK", "MLP256", "MLP64B1", "W4", "RESNET18", "TRANSFORMER", "W5",
       "R18COMPILE"]
DEFAULT = [k for k in ALL if k != "R18COMPILE"]
PEER_PREFIXES = ("torch", "jax", "mindspore")
TITLES = {"W3 fwd": "W3 GELU-tanh 4M f32 forward", "W3 grad": "W3 GELU-tanh 4M f32 gradient",
          "W1 fwd": "W1 MLP 784-1024-1024-10 b128 forward",
          "W4 add": "W4 PyNative x + y [4] f32, per op",
          "W4 add taped": "W4 same under grad (fwd + bwd), per op",
          "W5 cold": "W5 LeNet5 step compile, cold", "W5 warm": "W5 LeNet5 step compile, warm",
          "R18COMPILE": "R18COMPILE ResNet-18 32x32 b8 train step, cold compile",
          **{w.key: f"{w.key} {w.title} train step" for w in workloads.WORKLOADS}}


def is_peer(framework: str) -> bool:
    return framework.startswith(PEER_PREFIXES)


def seconds(t: float) -> str:
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e6:.2f} us"


def table(rows: list) -> str:
    """Rows ``(group, framework, Timing | seconds | None, bytes | None[, note])``, grouped in
    :data:`ALL`'s order, graphcell's with the ratio to the group's best peer."""
    groups: dict[str, list] = {}
    for r in rows:   # the workload modules' rows have no note
        groups.setdefault(r[0], []).append(tuple(r) + (None,) * (5 - len(r)))
    order = [g for k in ALL for g in TITLES if g.split()[0] == k and g in groups]
    lines = [f"{'workload / framework':44} {'median':>10} {'min':>10} {'GB/s':>6} {'vs best':>8}"]
    for g in order:
        best = min(((_median(t), fw) for _, fw, t, _, _ in groups[g]
                    if is_peer(fw) and t is not None), default=None)   # None: the peer failed
        lines.append(TITLES[g] + (f"  (best peer: {best[1]})" if best else ""))
        for _, fw, t, size, note in groups[g]:
            if t is None:
                lines.append(f"  {fw:42} {'-':>10} {'-':>10} {'':6} {'':8}  {note or ''}")
                continue
            med, lo = (t.median, t.min) if isinstance(t, Timing) else (t, t)
            rate = f"{size / med / 1e9:6.1f}" if size else ""
            ratio = f"{med / best[0]:7.2f}x" if best and fw.startswith("graphcell") else ""
            lines.append(f"  {fw:42} {seconds(med):>10} {seconds(lo):>10} {rate:>6} {ratio:>8}"
                         + (f"  {note}" if note else ""))
    return "\n".join(lines)


def _median(t) -> float:
    return t.median if isinstance(t, Timing) else t


def peer_rows(results: dict, only: set, losses: dict) -> list:
    """The peers' rows; their losses go into ``losses[key][peer]``."""
    rows = []
    for peer, res in results.items():
        if "error" in res:
            rows += [(k, peer, None, None, f"peer failed: {res['error']}") for k in only
                     if k in STEP_KEYS]
            continue
        for k, r in res["steps"].items():
            if "error" in r:
                rows.append((k, peer, None, None, f"failed: {r['error']}"))
                continue
            if k in only:
                rows.append((k, peer, Timing(*r["time"]), None, None))
                losses.setdefault(k, {})[peer] = r["losses"]
            if k == "W2" and "W5" in only and peer != "torch eager":
                rows.append(("W5 cold", peer, r["compile"], None, "first 2 steps - 2 steady"))
        for name, (med, lo) in res["extra"].items():
            if name.split()[0] in only:
                size = w3.BYTES if name.startswith("W3") else None
                rows.append((name, peer, Timing(med, lo), size, None))
    return rows


def compile_rows(repeat: int) -> list:
    """R18COMPILE: graphcell's and MindSpore's cold compile of the ResNet-18 step."""
    from tools import bench_model_compile as bmc
    frameworks = ["graphcell"] + (["mindspore"] if os.path.exists(bmc.MINDSPORE_PYTHON) else [])
    cells = bmc.medians(frameworks, "resnet18_cifar", repeat, explicit_compile={"mindspore"})
    names = {"graphcell": "graphcell GRAPH_MODE", "mindspore": "mindspore 2.10 GRAPH_MODE"}
    how = {"graphcell": "first - second call", "mindspore": "step.compile()"}
    return [("R18COMPILE", names[f], c["compile"], None,
             f"{how[f]}; steady step {seconds(c['second'])}") for f, c in zip(frameworks, cells)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(DEFAULT),
                    help=f"comma-separated rows of {','.join(ALL)} (default: %(default)s)")
    ap.add_argument("--no-peers", action="store_true", help="skip PyTorch and JAX")
    ap.add_argument("--peers", default=",".join(peers.PEERS),
                    help="comma-separated peers (default: %(default)s)")
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes, two repeats: checks the harness, measures nothing")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure everything this many times, peers and graphcell taking turns")
    ap.add_argument("--json", metavar="PATH",
                    help="also write the rows and the load averages to PATH as JSON")
    ap.add_argument("--compile-repeat", type=int, default=1,
                    help="R18COMPILE: fresh processes per framework (median)")
    args = ap.parse_args(argv)
    only = {w.strip().upper() for w in args.only.split(",")}
    unknown = only - set(ALL)
    if unknown:
        ap.error(f"--only: unknown rows {sorted(unknown)} (known: {','.join(ALL)})")
    load_at_start = os.getloadavg()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in load_at_start)}", flush=True)

    steps = [w for w in workloads.WORKLOADS if w.key in only or (w.key == "W2" and "W5" in only)]
    steps = [workloads.quick(w) for w in steps] if args.quick else steps
    if args.quick:
        timing.SETTLE_SECONDS = 0.0
    data = {}
    for w in steps:
        data.update(workloads.arrays(w, graphcell_steps.parameter_shapes(w)))
    if "W3" in only:
        data["w3_x"] = w3.data()

    failures, rounds, losses = [], [], {}
    for i in range(args.rounds):
        if args.rounds > 1:
            print(f"(round {i + 1} of {args.rounds})", file=sys.stderr, flush=True)
        rows, round_losses = one_round(args, only, steps, data, failures)
        rounds.append(rows)
        losses = losses or round_losses
    rows = merge(rounds)
    if "R18COMPILE" in only:
        rows += compile_rows(args.compile_repeat)

    mismatches = [m for key, ls in losses.items() for m in workloads.check_losses(key, ls)]
    if args.quick:
        print("--quick: tiny sizes, two repeats (the titles give the full sizes)")
    if args.rounds > 1:
        print(f"{args.rounds} rounds: each row's median is the median of the rounds' medians, "
              "its min the min of all")
    print(table(rows))
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not args.no_peers and not any(is_peer(r[1]) for r in rows):
        print("(PyTorch and JAX not available: peers not measured)")
    if args.json:
        write_json(args.json, rows, load_at_start, mismatches + failures)
    for m in mismatches:
        print(f"LOSS MISMATCH: {m}")
    for f in failures:
        print(f"FAILED: {f}")
    return 1 if mismatches or failures else 0


def one_round(args, only: set, steps: list, data: dict, failures: list) -> tuple[list, dict]:
    """Every requested row measured once: ``(rows, {workload: {framework: losses}})``; a
    graphcell train step that fails is noted in ``failures`` and its row."""
    rows, losses = [], {}
    if not args.no_peers and (steps or "W3" in only):
        with tempfile.TemporaryDirectory() as d:
            npz = os.path.join(d, "bench.npz")
            np.savez(npz, **data)
            spec = {"workloads": [w.spec() for w in steps]}
            results = peers.run(npz, spec, selected_peers(args))
        rows += peer_rows(results, only, losses)
    if "W3" in only:
        rows += w3.numpy_rows(data["w3_x"]) + w3.graphcell_rows(data["w3_x"])
    if "W1" in only and not args.quick:
        rows += w1.numpy_rows(data) + w1.graphcell_rows(data)
    for w in steps:
        if w.key not in only:
            continue
        try:
            timings, ours = graphcell_steps.rows(w, data)
        except Exception as e:  # noqa: BLE001 - the other rows still get measured and printed
            failures.append(f"{w.key} graphcell: {type(e).__name__}: {e}")
            rows.append((w.key, "graphcell", None, None, f"FAILED: {type(e).__name__}"))
            continue
        rows += [(w.key, fw, t, None, None) for fw, t in timings]
        losses.setdefault(w.key, {}).update(ours)
    if "W4" in only:
        rows += w4.rows(with_peers=not args.no_peers and "torch eager" in selected_peers(args))
    if "W5" in only:
        rows += w5.latency_rows()
    return rows, losses


def write_json(path: str, rows: list, load_at_start, problems: list) -> None:
    """The rows as ``{"rows": [{workload, framework, median, min, note}], ...}``."""
    out = []
    for r in rows:
        group, fw, t, _, note = tuple(r) + (None,) * (5 - len(r))
        med, lo = ((t.median, t.min) if isinstance(t, Timing) else (t, t)) if t is not None \
            else (None, None)
        out.append({"workload": group, "framework": fw, "median": med, "min": lo, "note": note})
    Path(path).write_text(json.dumps({"load_at_start": load_at_start,
                                      "load_at_end": os.getloadavg(), "rows": out,
                                      "problems": problems}, indent=1))


def selected_peers(args) -> list:
    names = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = set(names) - set(peers.PEERS)
    if unknown:
        known = ", ".join(peers.PEERS)
        raise SystemExit(f"--peers: unknown peers {sorted(unknown)} (known: {known})")
    return names


def merge(rounds: list) -> list:
    """One row per (workload, framework): the median of the rounds' medians, the min of their
    mins (a failed round's note is kept)."""
    by_row: dict[tuple, list] = {}
    for rows in rounds:
        for r in rows:
            r = tuple(r) + (None,) * (5 - len(r))
            by_row.setdefault(r[:2], []).append(r)
    merged = []
    for (group, fw), rs in by_row.items():
        ts = [r[2] for r in rs if r[2] is not None]
        note = next((r[4] for r in rs if r[4]), None)
        if not ts:
            merged.append((group, fw, None, rs[0][3], note))
        elif isinstance(ts[0], Timing):
            merged.append((group, fw, Timing(float(np.median([t.median for t in ts])),
                                             min(t.min for t in ts)), rs[0][3], note))
        else:
            merged.append((group, fw, float(np.median(ts)), rs[0][3], note))
    return merged


if __name__ == "__main__":
    sys.exit(main())

"""An AOT-loaded train step in a fresh process against the same step compiled in-process:
issue 21's "an AOT-loaded step as fast as the in-process one", for the workloads of
``tools/bench`` (W2, RESBLOCK, RESNET18 by default; their weights and inputs).

    python tools/bench_aot_fresh.py [--only W2,RESBLOCK,RESNET18] [--processes 4] [--calls 40]

Each workload's step is exported once here (``ms.export``, native code included), then timed
in fresh processes (``python -c``, this checkout first on the path):

- ``loaded``: ``ms.load(path, native=True)`` (the artifact's code only: the process reports
  whether it compiled anything, and whether the loaded executable runs its native step);
- ``in-process``: the same step built and compiled in graph mode (kernels from the warm cache);
- ``paired``: one process that loads the artifact first (so its objects are the ones linked),
  then compiles the step in-process, and calls the two in turn: the same machine load for both.

``loaded`` and ``in-process`` processes alternate, ``--processes`` of each; each reports the
median of ``--calls`` steady calls (after 3 warm-up calls), in wall time and in the process's
CPU time (all its threads: less sensitive to other jobs than the wall time). Printed: the
median of those medians per mode, the paired medians, and the ratios loaded / in-process.
Timings on a shared machine are noisy: compare the columns of one run (the load is printed),
and rerun with ``GRAPHCELL_KERNEL_THREADS=1`` when the second core is busy.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

CHILD = """
import json, statistics, sys, time
mode, key, path, data_path, calls = sys.argv[1:6]
calls = int(calls)
import numpy as np
import graphcell as ms
from graphcell_ir.backend import objects
from tools.bench import graphcell_steps as G
from tools.bench.workloads import BY_KEY
w = BY_KEY[key]
data = dict(np.load(data_path))

def in_process():
    step, inputs = G.train_step(w, data)
    ms.set_context(mode=ms.GRAPH_MODE)
    return (lambda: step(*inputs)), step

def loaded():
    _, inputs = G.train_step(w, data)   # the inputs only (the artifact holds the weights)
    cell = ms.load(path, native=True, trust_native_code=True)   # made by the parent
    return (lambda: cell(*inputs)), cell

def timed(call, wall, cpu):
    t, c = time.perf_counter(), time.process_time()
    call()
    cpu.append(time.process_time() - c)
    wall.append(time.perf_counter() - t)

out = {}
if mode == "paired":
    first, cell = loaded()
    for _ in range(3):
        first()
    out["compiled_at_load"] = len(objects.cache_stats().misses)
    second, _ = in_process()
    for _ in range(3):
        second()
    times = {"loaded": ([], []), "in-process": ([], [])}
    for _ in range(calls):
        timed(first, *times["loaded"])
        timed(second, *times["in-process"])
else:
    call, cell = (loaded if mode == "loaded" else in_process)()
    for _ in range(3):
        call()
    out["compiled_at_load"] = len(objects.cache_stats().misses) if mode == "loaded" else None
    times = {mode: ([], [])}
    for _ in range(calls):
        timed(call, *times[mode])
for m, (wall, cpu) in times.items():   # medians: wall time, CPU time of the process
    out[m] = (statistics.median(wall), statistics.median(cpu))
if mode != "in-process":   # the loaded GraphCell's executable: its native step, or None
    out["native_step"] = getattr(cell._executable._run.run, "step", None) is not None
print(json.dumps(out))
"""


def child(mode: str, key: str, path: str, data: str, calls: int) -> dict:
    import json
    env = {**os.environ, "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD, mode, key, path, data,
                          str(calls)], capture_output=True, text=True, env=env, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"{key} {mode}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def export(key: str, out: str) -> tuple[str, str]:
    """The artifact of workload ``key``'s train step and its data file (weights, inputs)."""
    import numpy as np
    import graphcell as ms
    from tools.bench import graphcell_steps as G
    from tools.bench.workloads import BY_KEY, arrays
    w = BY_KEY[key]
    data = arrays(w, G.parameter_shapes(w))
    data_path = os.path.join(out, f"{key}.npz")
    np.savez(data_path, **data)
    step, inputs = G.train_step(w, data)
    return ms.export(step, *inputs, file_name=os.path.join(out, key)), data_path


def bench(key: str, processes: int, calls: int, out: str) -> None:
    path, data = export(key, out)
    child("in-process", key, path, data, 2)   # warms the kernel cache
    runs = {"loaded": [], "in-process": []}
    compiled, native = set(), set()
    for _ in range(processes):
        for mode in runs:
            got = child(mode, key, path, data, calls)
            runs[mode].append(got[mode])
            if mode == "loaded":
                compiled.add(got["compiled_at_load"])
                native.add(got["native_step"])
    paired = child("paired", key, path, data, calls)
    for i, what in enumerate(("wall", "CPU")):
        med = {m: statistics.median(v[i] for v in runs[m]) for m in runs}
        spread = {m: f"{1000 * min(v[i] for v in runs[m]):.3f}-"
                     f"{1000 * max(v[i] for v in runs[m]):.3f}" for m in runs}
        pl, pi = paired["loaded"][i], paired["in-process"][i]
        print(f"{key:9} {what:4} fresh processes: loaded {1000 * med['loaded']:8.3f} ms "
              f"[{spread['loaded']}]  in-process {1000 * med['in-process']:8.3f} ms "
              f"[{spread['in-process']}]  ratio {med['loaded'] / med['in-process']:.3f};  "
              f"paired: loaded {1000 * pl:8.3f} ms  in-process {1000 * pi:8.3f} ms  "
              f"ratio {pl / pi:.3f}")
    print(f"{'':9} loaded runs its native step: {sorted(native)}; compiles at load: "
          f"{sorted(compiled)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="W2,RESBLOCK,RESNET18")
    ap.add_argument("--processes", type=int, default=4, help="fresh processes of each mode")
    ap.add_argument("--calls", type=int, default=40, help="steady calls timed per process")
    args = ap.parse_args()
    print("load:", os.getloadavg())
    out = tempfile.mkdtemp(prefix="bench-aot-fresh-")
    for key in args.only.split(","):
        bench(key, args.processes, args.calls, out)


if __name__ == "__main__":
    main()

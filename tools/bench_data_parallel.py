"""Data-parallel scaling on this machine: step time and communication share for 1, 2 and 4
processes, and the gradient bytes each process all-reduces per step.

    python tools/bench_data_parallel.py [--procs 1,2,4] [--models lenet5,mlp]
                                        [--modes graph,pynative] [--steps 30]

needs the ``distributed`` extra (``mpiexec`` comes with the mpich package). For each process count
it starts ``mpiexec -n N python tools/bench_data_parallel.py worker ...``; every process trains
its own batch (weak scaling: the per-process batch is fixed, the global batch grows with N) with
``DATA_PARALLEL`` + ``gradients_mean=True``, and rank 0 reports:

- ``step ms``: the median wall time of a training step (after warm-up, compile included there),
  the slowest process setting the pace (the all-reduce waits for it);
- ``comm ms`` / ``comm %``: the time a step spends inside collectives (the engine's own clock,
  ``graphcell_ir.comm.world().stats``: moving the bytes *and* waiting for the other processes),
  and its share of the step;
- ``allreduce ms``: one all-reduce of the whole gradient right after a barrier — the transfer
  alone;
- ``samples/s``: N x batch / step time; ``grad bytes``: what each process sends into the
  all-reduce per step (every trainable parameter's gradient);
- the overlap probe (N > 1): a step without communication, the all-reduce alone, and both
  started together (the all-reduce in a second thread) — what overlapping communication with the
  backward pass could save at most on this machine.

The models are the benchmark suite's (``tools/bench``): ``lenet5`` is W2 (the seed's LeNet5,
batch 32 of 1x32x32, Momentum) and ``mlp`` is W1 (784-1024-1024-10, batch 128, SGD).
``docs/distributed.md`` shows a run and what it means.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _step(model: str):
    """``(train step, x, y, batch)`` for a model of the benchmark suite."""
    sys.path.insert(0, str(ROOT))
    import graphcell as ms
    from graphcell import nn
    if model == "lenet5":
        from tools.bench import w2
        step, x, y = w2.train_step(w2.weights())
        return step, x, y
    from tools.bench import w1
    data = w1.weights()
    net = w1.mlp(data)
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=w1.LR))
    step.set_train()
    return step, ms.Tensor(data["w1_x"]), ms.Tensor(data["w1_y"])


def worker(model: str, mode: str, steps: int) -> None:
    import graphcell as ms
    from graphcell.communication import get_group_size, get_rank, init
    from graphcell_ir import comm
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_seed(0)
    step, x, y = _step(model)
    world, group = comm.world(), comm.group("hccl_world_group")
    t0 = time.perf_counter()
    step(x, y)                                     # compiles (graph mode) and warms the caches
    first = time.perf_counter() - t0
    for _ in range(3):
        step(x, y)
    times, comm_times = [], []
    for _ in range(steps):
        group.barrier()
        world.stats.reset()
        t0 = time.perf_counter()
        step(x, y)
        times.append(time.perf_counter() - t0)
        comm_times.append(world.stats.seconds.get("all_reduce", 0.0))
    grad_bytes = sum(p.asnumpy().nbytes for p in step.weights)
    flat = np.ones(grad_bytes // 4, np.float32)
    transfer = []
    for _ in range(10):
        group.barrier()
        t0 = time.perf_counter()
        group.all_reduce(flat, "sum")
        transfer.append(time.perf_counter() - t0)
    row = {"model": model, "mode": mode, "procs": size, "batch": int(x.shape[0]),
           "first_s": first, "step_ms": 1e3 * float(np.median(times)),
           "comm_ms": 1e3 * float(np.median(comm_times)),
           "allreduce_ms": 1e3 * float(np.median(transfer)), "grad_bytes": int(grad_bytes),
           "buckets": len(step.grad_reducer.buckets)}
    all_rows = group.all_gather(np.array([row["step_ms"]]))
    row["step_ms_slowest_rank"] = float(all_rows.max())
    if size > 1:
        row.update(overlap_probe(model, group, flat))
    if rank == 0:
        print("ROW " + json.dumps(row), flush=True)


def overlap_probe(model: str, group, flat: np.ndarray, repeats: int = 15) -> dict:
    """Could the all-reduce hide behind the backward pass here? Time a step that communicates
    nothing (``compute``), the gradient's all-reduce alone (``allreduce``), and both started
    together, the all-reduce in a second thread (``both``; MPI and the kernels release the GIL).
    Overlap can save at most ``compute + allreduce - both``."""
    import threading

    import graphcell as ms
    ms.reset_auto_parallel_context()                 # a step without the reducer
    step, x, y = _step(model)
    step(x, y)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)

    def timed(run) -> float:
        out = []
        for _ in range(repeats):
            group.barrier()
            t0 = time.perf_counter()
            run()
            out.append(time.perf_counter() - t0)
        return 1e3 * float(np.median(out))

    def both():
        t = threading.Thread(target=group.all_reduce, args=(flat, "sum"))
        t.start()
        step(x, y)
        t.join()
    return {"compute_ms": timed(lambda: step(x, y)),
            "allreduce_alone_ms": timed(lambda: group.all_reduce(flat, "sum")),
            "both_ms": timed(both)}


def mpiexec() -> str:
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable) + os.pathsep +
                         os.environ.get("PATH", ""))
    if found is None:
        sys.exit("mpiexec not found: pip install 'graphcell[distributed]' (mpi4py + mpich)")
    return found


def launch(args) -> list[dict]:
    rows = []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get(
        "PYTHONPATH")])), "GRAPHCELL_PROGRESS": "0"}
    for model in args.models.split(","):
        for mode in args.modes.split(","):
            for n in (int(p) for p in args.procs.split(",")):
                cmd = [mpiexec(), "-n", str(n), sys.executable, __file__, "worker", model, mode,
                       str(args.steps)]
                run = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT,
                                     timeout=1800)
                found = [line[4:] for line in run.stdout.splitlines() if line.startswith("ROW ")]
                if run.returncode or not found:
                    sys.exit(f"{' '.join(cmd)} failed:\n{run.stdout}\n{run.stderr}")
                rows.append(json.loads(found[0]))
                print(_format(rows[-1], rows), flush=True)
    probes = [r for r in rows if "both_ms" in r]
    if probes:
        print("\noverlap probe (ms): a step without communication, the gradient's all-reduce "
              "alone, both at once (all-reduce in a thread)\n\n| model | mode | procs | compute | "
              "allreduce | both | overlap could save |\n|---|---|---|---|---|---|---|")
        for r in probes:
            saved = r["compute_ms"] + r["allreduce_alone_ms"] - r["both_ms"]
            print(f"| {r['model']} | {r['mode']} | {r['procs']} | {r['compute_ms']:.2f} | "
                  f"{r['allreduce_alone_ms']:.2f} | {r['both_ms']:.2f} | {saved:.2f} "
                  f"({100 * saved / r['step_ms']:.0f} % of a step) |")
    return rows


HEADER = ("| model | mode | procs | batch/proc | step ms | comm ms | comm % | allreduce ms | "
          "samples/s | speed-up | grad bytes | buckets |\n|---|---|---|---|---|---|---|---|---|"
          "---|---|---|")


def _format(row: dict, rows: list[dict]) -> str:
    base = next(r for r in rows if r["model"] == row["model"] and r["mode"] == row["mode"])
    rate = row["procs"] * row["batch"] / row["step_ms"] * 1e3
    base_rate = base["procs"] * base["batch"] / base["step_ms"] * 1e3
    return (f"| {row['model']} | {row['mode']} | {row['procs']} | {row['batch']} | "
            f"{row['step_ms']:.2f} | {row['comm_ms']:.2f} | "
            f"{100 * row['comm_ms'] / row['step_ms']:.0f} % | {row['allreduce_ms']:.2f} | "
            f"{rate:.0f} | {rate / base_rate:.2f}x | {row['grad_bytes']:,} | {row['buckets']} |")


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["worker"]:
        return worker(argv[1], argv[2], int(argv[3]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procs", default="1,2,4")
    parser.add_argument("--models", default="lenet5,mlp")
    parser.add_argument("--modes", default="graph,pynative")
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPU(s); load average {os.getloadavg()[0]:.1f}\n{HEADER}", flush=True)
    launch(args)


if __name__ == "__main__":
    main()

"""Record what MindSpore 2.10 computes in a 2-process data-parallel job, for graphcell's tests.

    /opt/msvenv/bin/python tools/record_distributed_goldens.py

launches itself twice with MindSpore's ``msrun`` (``--worker_num=2``, a free local port); each
process writes ``tests/graphcell/distributed/goldens/rank<r>.npz``:

- ``coll/<mode>/<name>``: ``AllReduce``, ``AllGather``, ``Broadcast`` (roots 0 and 1) of the
  inputs of ``dp_cases.collective_inputs``, and the gradient of ``sum(AllReduce(x) * w)``, in
  PyNative (``pynative``) and graph mode (``graph``). MindSpore 2.10's CPU build has no
  ``ReduceScatter`` kernel (so no gradient of ``AllGather`` either) and only the sum reduction.
- ``ctx/*``: ``get_auto_parallel_context('device_num')`` after setting data-parallel mode without
  it, and the ``mean``/``degree`` a ``TrainOneStepCell`` picks.
- ``reducer/<mean>``: ``nn.DistributedGradReducer(params, mean)`` applied to per-rank gradients.
- ``train/<kind>/<mean>/<mode>/losses`` and ``.../<parameter>``: ``dp_cases.train`` in
  ``DATA_PARALLEL`` mode (``gradients_mean`` = mean) for each of ``dp_cases.CASES``: the per-step
  losses of the process and its final weights.

The networks, weights and data are ``tests/graphcell/distributed/dp_cases.py`` (numpy only), read
by both frameworks.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "tests" / "graphcell" / "distributed"
GOLDENS = CASES_DIR / "goldens"
sys.path.insert(0, str(CASES_DIR))

import dp_cases  # noqa: E402


def launch() -> None:
    """Run this file as 2 MindSpore workers and wait for them."""
    msrun = shutil.which("msrun", path=os.path.dirname(sys.executable)) or "msrun"
    GOLDENS.mkdir(parents=True, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    logs = tempfile.mkdtemp(prefix="msrun-")
    # the workers are started as `python`: the venv's own first on PATH
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep +
           os.environ.get("PATH", "")}
    cmd = [msrun, f"--worker_num={dp_cases.RANKS}", f"--local_worker_num={dp_cases.RANKS}",
           f"--master_port={port}", f"--log_dir={logs}", "--join=True", __file__, "record"]
    done = subprocess.run(cmd, env=env, cwd=ROOT)
    for log in sorted(Path(logs).glob("worker_*.log")):
        lines = [line for line in log.read_text().splitlines()
                 if not line.startswith(("[WARNING]", "[INFO]"))]
        print(f"--- {log.name}\n" + "\n".join(lines[-20:]))
    if done.returncode:
        sys.exit(f"msrun failed ({done.returncode}); logs in {logs}")
    print(f"wrote {sorted(p.name for p in GOLDENS.glob('rank*.npz'))} in {GOLDENS}")


def record_collectives(ms, rank: int, out: dict) -> None:
    ops, nn = ms.ops, ms.nn
    inputs = dp_cases.collective_inputs(rank)
    x, w = ms.Tensor(inputs["x"]), ms.Tensor(inputs["w"])

    class Collectives(nn.Cell):
        def __init__(self):
            super().__init__()
            self.all_reduce, self.all_gather = ops.AllReduce(), ops.AllGather()
            self.bcast0, self.bcast1 = ops.Broadcast(0), ops.Broadcast(1)

        def construct(self, t):
            return (self.all_reduce(t), self.all_gather(t), self.bcast0((t,))[0],
                    self.bcast1((t,))[0])

    class WeightedSum(nn.Cell):
        def __init__(self):
            super().__init__()
            self.all_reduce = ops.AllReduce()

        def construct(self, t, weight):
            return (self.all_reduce(t) * weight).sum()

    for mode, flag in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
        ms.set_context(mode=flag)
        outs = Collectives()(x)
        for name, value in zip(("all_reduce", "all_gather", "broadcast0", "broadcast1"), outs):
            out[f"coll/{mode}/{name}"] = value.asnumpy()
        grad = ms.grad(WeightedSum(), grad_position=0)(x, w)
        out[f"coll/{mode}/grad_all_reduce"] = grad.asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)


def record_context(ms, rank: int, out: dict) -> None:
    nn = ms.nn
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    out["ctx/device_num_unset"] = np.int64(ms.get_auto_parallel_context("device_num"))
    net = nn.Dense(2, 1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    out["ctx/step_mean"] = np.bool_(step.mean)
    out["ctx/step_degree"] = np.int64(step.degree)
    out["ctx/step_reducer_flag"] = np.bool_(step.reducer_flag)
    for mean in (True, False):
        reducer = nn.DistributedGradReducer(net.trainable_params(), mean=mean)
        grads = (ms.Tensor(np.full((1, 2), rank + 1.0, np.float32)),
                 ms.Tensor(np.array([10.0 * (rank + 1)], np.float32)))
        for i, g in enumerate(reducer(grads)):
            out[f"reducer/{mean}/{i}"] = g.asnumpy()
    ms.reset_auto_parallel_context()


def record_training(ms, rank: int, out: dict) -> None:
    for kind, mean in dp_cases.CASES:
        for mode, flag in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
            ms.set_context(mode=flag)
            ms.reset_auto_parallel_context()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                         gradients_mean=mean)
            losses, weights = dp_cases.train(ms, kind, rank, dp_cases.RANKS)
            key = f"train/{kind}/{mean}/{mode}"
            out[f"{key}/losses"] = np.array(losses, np.float64)
            for name, value in weights.items():
                out[f"{key}/{name}"] = value
    ms.reset_auto_parallel_context()
    ms.set_context(mode=ms.PYNATIVE_MODE)


def worker() -> None:
    import mindspore as ms
    from mindspore.communication import get_group_size, get_rank, init
    init()
    rank, size = get_rank(), get_group_size()
    assert size == dp_cases.RANKS, size
    ms.set_seed(0)
    out: dict = {}
    record_collectives(ms, rank, out)
    record_context(ms, rank, out)
    record_training(ms, rank, out)
    np.savez_compressed(GOLDENS / f"rank{rank}.npz", **out)
    print(f"rank {rank}: {len(out)} arrays", flush=True)


if __name__ == "__main__":
    worker() if sys.argv[1:] == ["record"] else launch()

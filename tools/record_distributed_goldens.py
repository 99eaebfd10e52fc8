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

The programs, networks, weights and data are ``tests/graphcell/distributed/dp_cases.py`` (numpy
only, each program taking the framework as ``ms``): graphcell's test worker runs the same ones.
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


def worker() -> None:
    import mindspore as ms
    from mindspore.communication import get_group_size, get_rank, init
    init()
    rank, size = get_rank(), get_group_size()
    assert size == dp_cases.RANKS, size
    ms.set_seed(0)
    out: dict = {}
    dp_cases.record_collectives(ms, rank, out)
    dp_cases.record_context(ms, rank, out)
    dp_cases.record_training(ms, rank, out)
    np.savez_compressed(GOLDENS / f"rank{rank}.npz", **out)
    print(f"rank {rank}: {len(out)} arrays", flush=True)


if __name__ == "__main__":
    worker() if sys.argv[1:] == ["record"] else launch()

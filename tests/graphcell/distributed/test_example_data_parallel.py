"""``examples/train_data_parallel.py``: LeNet on the digits data in 2 processes reaches exactly
the accuracy one process does (the same steps on the same global batches), with the same
per-epoch losses."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("mpi4py", reason="the 'distributed' extra (mpi4py, mpich) is not installed")
pytest.importorskip("sklearn", reason="the 'examples' extra (scikit-learn) is not installed")

import mpi_job  # noqa: E402

EXAMPLE = mpi_job.ROOT / "examples" / "train_data_parallel.py"


def _run(n, *args):
    run = mpi_job.run(n, EXAMPLE, *args, timeout=300)
    assert run.returncode == 0, f"{n} process(es) failed:\n{run.stdout}\n{run.stderr}"
    losses = re.findall(r"^epoch \d+/\d+: loss ([0-9.]+)", run.stdout, re.MULTILINE)
    accuracy = re.search(r"^final test accuracy: ([0-9.]+)$", run.stdout, re.MULTILINE)
    assert losses and accuracy, run.stdout
    return [float(v) for v in losses], float(accuracy.group(1)), run.stdout


def test_two_processes_train_as_one_process():
    if mpi_job.mpiexec() is None:
        pytest.skip("no mpiexec found (the mpich package of the 'distributed' extra provides it)")
    one_losses, one_accuracy, _ = _run(None, "--epochs", "2")
    two_losses, two_accuracy, out = _run(2, "--epochs", "2")
    assert "in 2 shard(s), batches of 16 per process (32 per step)" in out
    assert two_losses == pytest.approx(one_losses, abs=2e-4)
    assert two_accuracy == pytest.approx(one_accuracy, abs=1 / 450 + 1e-9)  # at most one image
    assert one_accuracy > 0.5

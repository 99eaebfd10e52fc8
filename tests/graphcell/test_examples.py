"""The scripts in ``examples/`` run to completion in a fresh process and print what they promise."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
THRESHOLD_REPR = ("Tensor(shape=[3], dtype=Float32, value= [ 2.00000000e+01,  2.00000003e-01,  "
                  "3.00000012e-01])")
QUICK_MIN_ACCURACY = 0.80   # --quick (3 epochs) reaches about 0.89
FULL_MIN_ACCURACY = 0.95


def run_example(name, *args, timeout=300):
    # the checkout on PYTHONPATH too, so the examples run from a checkout that is not installed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(EXAMPLES.parent),
                                                                       os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True,
                         text=True, timeout=timeout, cwd=EXAMPLES.parent, env=env)
    assert run.returncode == 0, f"{name} exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    return run.stdout


def final_accuracy(out):
    match = re.search(r"^final test accuracy: ([0-9.]+)$", out, re.MULTILINE)
    assert match, f"no final accuracy line in:\n{out}"
    return float(match.group(1))


def test_quickstart():
    out = run_example("quickstart.py")
    assert THRESHOLD_REPR in out
    names = re.findall(r"^(\w+):$", out, re.MULTILINE)  # parameters_and_names() headers
    assert names == ["w", "b"]


def test_train_lenet_digits_quick():
    pytest.importorskip("sklearn")
    out = run_example("train_lenet_digits.py", "--quick", timeout=120)
    assert len(re.findall(r"^epoch \d+/\d+: loss [0-9.]+, test accuracy", out, re.MULTILINE)) >= 1
    assert final_accuracy(out) > QUICK_MIN_ACCURACY


@pytest.mark.slow
def test_train_lenet_digits_full():
    pytest.importorskip("sklearn")
    out = run_example("train_lenet_digits.py", timeout=300)
    assert final_accuracy(out) >= FULL_MIN_ACCURACY

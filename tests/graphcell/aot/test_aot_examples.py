"""examples/export_and_load.py and examples/inspect_ir.py run in a fresh process."""
import os
import re
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def run_example(name, *args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(EXAMPLES.parent),
                                                                       os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True,
                         text=True, timeout=180, cwd=EXAMPLES.parent, env=env)
    assert run.returncode == 0, f"{name} exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    return run.stdout


def test_export_and_load(tmp_path):
    out = run_example("export_and_load.py", "--out", str(tmp_path))
    assert "inference outputs equal: True" in out and "trained weights equal: True" in out
    losses = re.findall(r"^step \d: loss loaded ([0-9.]+), in-process ([0-9.]+)$", out, re.MULTILINE)
    assert len(losses) == 3 and all(a == b for a, b in losses)
    assert (tmp_path / "lenet5.gcpkg").exists() and (tmp_path / "lenet5_train.gcpkg").exists()


def test_inspect_ir(tmp_path):
    out = run_example("inspect_ir.py", "--out", str(tmp_path))
    assert out.count("// ----- IR after") == 9
    written = list(tmp_path.iterdir())
    assert len(written) == 1 and written[0].suffix in (".svg", ".dot")

"""Starting an MPI job from a test: the ``mpiexec`` of the ``distributed`` extra and the
environment a job needs to import this checkout."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def mpiexec() -> str | None:
    """The ``mpiexec`` next to this Python (the mpich wheel installs it there), else on PATH."""
    here = os.path.dirname(sys.executable)
    return shutil.which("mpiexec", path=here + os.pathsep + os.environ.get("PATH", ""))


def run(n: int | None, script, *args, timeout: float = 240, cwd=None) -> subprocess.CompletedProcess:
    """``script`` in ``n`` processes under mpiexec (``n=None``: plain Python, one process), with
    this checkout importable and progress bars off."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), "GRAPHCELL_PROGRESS": "0"}
    cmd = [sys.executable, str(script), *map(str, args)]
    if n is not None:
        cmd = [mpiexec(), "-n", str(n), *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=cwd or ROOT)

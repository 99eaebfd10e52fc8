"""graphcell measured as installed: its modules' bytecode is compiled before a cold-compile child
process runs, as pip compiles it when it installs a package.

The peers' cold compiles (JAX, PyTorch, MindSpore, all installed by pip) never compile their own
Python modules; this checkout is an editable install and the machine sets
``PYTHONDONTWRITEBYTECODE=1``, so without this every module graphcell imports lazily during its
first call would be compiled from source inside the measured compile (~25 ms of W5's ~470 ms,
measured on 26 Nov 2026). The bytecode goes to a temporary ``PYTHONPYCACHEPREFIX`` tree (made
once per bench process, removed at its exit), never into the checkout. Only graphcell's child
processes get it: under a prefix, Python looks for every module's bytecode there, so a peer would
compile its own modules from source instead.

Example::

    >>> env = installed_env({"PATH": "/usr/bin"})
    >>> Path(env["PYTHONPYCACHEPREFIX"]).is_dir()
    True
"""
from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("graphcell", "graphcell_ir")


def installed_env(env: dict) -> dict:
    """``env`` plus a ``PYTHONPYCACHEPREFIX`` holding the compiled bytecode of graphcell's
    packages."""
    return dict(env, PYTHONPYCACHEPREFIX=_bytecode())


@functools.lru_cache(maxsize=1)
def _bytecode() -> str:
    prefix = tempfile.mkdtemp(prefix="gc-bench-pyc-")
    atexit.register(shutil.rmtree, prefix, True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(ROOT / p) for p in PACKAGES)],
                   env={"PYTHONPYCACHEPREFIX": prefix, "PATH": ""}, check=True,
                   capture_output=True)
    return prefix

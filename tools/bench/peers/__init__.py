"""The peers, each in its own process: PyTorch eager, ``torch.compile`` and JAX jit — the
programs in this directory, run by an interpreter that has the framework (this one, else
``/opt/torchvenv``; a peer whose framework is absent is left out). Every peer loads the same
weights and inputs from the ``.npz`` the parent writes and the workloads from a JSON spec
(``common.py`` describes the protocol); a peer or a workload that fails becomes a note in the
table, not a crash.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PEER_PY = "/opt/torchvenv/bin/python"
HERE = Path(__file__).resolve().parent
TIMEOUT = 3600

# name in the table: (module it needs, program, flags)
PEERS = {
    "torch eager": ("torch", "torch_peer.py", []),
    "torch.compile": ("torch", "torch_peer.py", ["--compile"]),
    "jax jit": ("jax", "jax_peer.py", []),
}


def python_for(module: str) -> str | None:
    """An interpreter that imports ``module``: this one, else the peers' venv, else None."""
    try:
        __import__(module)
        return sys.executable
    except ImportError:
        pass
    if not os.path.exists(PEER_PY):
        return None
    ok = subprocess.run([PEER_PY, "-c", f"import {module}"], capture_output=True)
    return PEER_PY if ok.returncode == 0 else None


def cold_cache_env(cache: str) -> dict:
    """The environment with the peers' compile caches in a new, empty directory, so that their
    first steps compile cold, as graphcell's W5 cold does (torch.compile keeps compiled graphs
    in /tmp/torchinductor_<user> across processes otherwise; JAX's persistent cache is off
    unless configured)."""
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "inductor"))
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    return env


def run(npz: str, spec: dict, names=PEERS) -> dict:
    """``{peer: {"steps": {...}, "extra": {...}} | {"error": text}}`` for each installed peer
    (``common.py`` gives the shape of a peer's answer)."""
    spec_path = Path(npz).with_suffix(".json")
    spec_path.write_text(json.dumps(spec))
    results = {}
    for name in names:
        module, program, flags = PEERS[name]
        py = python_for(module)
        if py is None:
            continue
        print(f"(running peer {name}...)", file=sys.stderr, flush=True)
        try:
            with tempfile.TemporaryDirectory(prefix="bench-peer-cache-") as cache:
                out = subprocess.run([py, str(HERE / program), npz, str(spec_path), *flags],
                                     capture_output=True, text=True, timeout=TIMEOUT, cwd=HERE,
                                     env=cold_cache_env(cache))
        except subprocess.TimeoutExpired:
            results[name] = {"error": f"timed out after {TIMEOUT} s"}
            continue
        if out.returncode:
            tail = out.stderr.strip().splitlines()[-1:] or ["(no output)"]
            results[name] = {"error": f"exit {out.returncode}: {tail[0][:300]}"}
            continue
        results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    return results

"""The kernel disk cache: a second process hits, a corrupt file is rebuilt, concurrent writers."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graphcell_ir.backend import kernels
from graphcell_ir.backend.lower import lower_fused
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.passes.manager import PassManager
from graphcell_ir.passes.pipelines import DEFAULT, resolve
from graphcell_ir.text import parse_module

SRC = """func @f(%x: f32[4,8], %a: f32[8]) -> (f32[4,8], f32[4]) {
  %0 = mul(%x, %a) : f32[4,8]
  %1 = tanh(%0) : f32[4,8]
  %2 = reduce_sum(%1) {axis=[1]} : f32[4]
  return %1, %2
}
"""

SCRIPT = f"""
import numpy as np
from graphcell_ir.backend import kernels
from graphcell_ir.backend.lower import lower_fused
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.passes.manager import PassManager
from graphcell_ir.passes.pipelines import DEFAULT, resolve
from graphcell_ir.text import parse_module
m = parse_module('''{SRC}''')
PassManager(resolve(DEFAULT)).run(m)
op = next(o for o in m["f"].body if o.opdef is FUSED)
k = kernels.compile_kernel(lower_fused(op), jit=True)
x = np.ones((4, 8), np.float32)
y, s = k(x, np.full(8, 0.5, np.float32))
assert np.allclose(s, 8 * np.tanh(0.5))
st = kernels.cache_stats()
print(st.disk_hits, len(st.misses))
"""


def _run(cache: Path, native: bool = True) -> tuple[int, int]:
    """(disk hits, compiles) of a fresh process; ``native=False``: numba's own cache alone
    (native objects, test_jit_native_cache.py, would answer before it)."""
    env = dict(os.environ, GRAPHCELL_CACHE_DIR=str(cache),
               GRAPHCELL_NATIVE_CACHE="1" if native else "0")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    hits, misses = out.stdout.split()
    return int(hits), int(misses)


def test_second_process_hits_the_disk_cache(tmp_path):
    assert _run(tmp_path) == (0, 1)
    assert _run(tmp_path) == (1, 0)


def test_corrupt_kernel_file_is_rebuilt(tmp_path):
    _run(tmp_path, native=False)
    (path,) = (tmp_path / "kernels").glob("k_*.py")
    path.write_text(path.read_text()[:50] + "\n)garbage(\n")
    assert _run(tmp_path, native=False) == (0, 1)
    assert _run(tmp_path, native=False) == (1, 0)


def test_corrupt_numba_index_is_rebuilt(tmp_path):
    _run(tmp_path, native=False)
    for f in (tmp_path / "kernels" / "__pycache__").iterdir():
        f.write_bytes(b"not a pickle")
    hits, misses = _run(tmp_path, native=False)
    assert (hits, misses) in ((0, 1), (1, 0))  # numba ignores a bad index, or we rebuilt it


def test_concurrent_writers(tmp_path):
    env = dict(os.environ, GRAPHCELL_CACHE_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
    assert len(list((tmp_path / "kernels").glob("k_*.py"))) == 1
    assert not list((tmp_path / "kernels").glob("*.tmp"))
    assert _run(tmp_path) == (1, 0)


def test_memory_cache_and_miss_reasons(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    kernels.reset_cache()
    m = parse_module(SRC)
    PassManager(resolve(DEFAULT)).run(m)
    op = next(o for o in m["f"].body if o.opdef is FUSED)
    ks = lower_fused(op)
    k = kernels.compile_kernel(ks, jit=False)
    k(np.ones((4, 8), np.float32), np.ones(8, np.float32))
    kernels.compile_kernel(ks, jit=False)
    st = kernels.cache_stats()
    assert st.memory_hits == 1 and len(st.misses) == 1 and "jit disabled" in st.misses[0]
    assert "tanh" in str(st)

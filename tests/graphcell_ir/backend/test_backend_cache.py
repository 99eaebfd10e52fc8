"""The kernel caches: a second process links the object store's code, a corrupt file is rebuilt,
concurrent writers; numba's fallback keeps its own cache beside the kernel's source file."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

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
import sys
import numpy as np
from graphcell_ir.backend import kernels, objects
from graphcell_ir.backend.lower import lower_fused
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.passes.manager import PassManager
from graphcell_ir.passes.pipelines import DEFAULT, resolve
from graphcell_ir.text import parse_module
if "--numba" in sys.argv:   # as in a process that cannot link native code: numba runs it
    objects.usable = lambda: "the test asks for numba"
m = parse_module('''{SRC}''')
PassManager(resolve(DEFAULT)).run(m)
op = next(o for o in m["f"].body if o.opdef is FUSED)
k = kernels.compile_kernel(lower_fused(op), jit=True)
x = np.ones((4, 8), np.float32)
y, s = k(x, np.full(8, 0.5, np.float32))
assert np.allclose(s, 8 * np.tanh(0.5)), s
st = kernels.cache_stats()
print(st.disk_hits, len(st.misses), "numba" in sys.modules)
"""


def _run(cache: Path, numba: bool = False) -> tuple[int, int, bool]:
    """(disk hits, compiles, numba imported) of a fresh process with cache dir ``cache``."""
    env = dict(os.environ, GRAPHCELL_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", SCRIPT] + (["--numba"] if numba else []),
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    hits, misses, imported = out.stdout.split()
    return int(hits), int(misses), imported == "True"


def test_second_process_links_the_stored_object(tmp_path):
    assert _run(tmp_path) == (0, 1, False)
    assert _run(tmp_path) == (1, 0, False)
    assert len(list((tmp_path / "objects").glob("*.o"))) == 1


def test_numba_fallback_keeps_its_cache_beside_the_kernel_file(tmp_path):
    assert _run(tmp_path, numba=True) == (0, 1, True)
    (path,) = (tmp_path / "kernels").glob("k_*.py")
    assert list((tmp_path / "kernels" / "__pycache__").glob(f"{path.stem}.*.nbc"))
    text = path.read_text()
    path.write_text(text[:50] + "\n)garbage(\n")   # corrupt: rewritten, numba's entry dropped
    assert _run(tmp_path, numba=True)[2] and path.read_text() == text
    for f in (tmp_path / "kernels" / "__pycache__").iterdir():
        f.write_bytes(b"not a pickle")   # numba ignores a bad index, or the kernel is rebuilt
    assert _run(tmp_path, numba=True)[2]


def test_concurrent_writers(tmp_path):
    env = dict(os.environ, GRAPHCELL_CACHE_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
    assert len(list((tmp_path / "objects").glob("*.o"))) == 1
    assert not list((tmp_path / "objects").glob("*.tmp"))
    assert _run(tmp_path) == (1, 0, False)


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

"""The JIT's native objects (graphcell_ir.backend.native, "the JIT's disk cache"): a process
that compiled kernels and loops — with graphcell's code generator (the default, no numba) or
with numba (GRAPHCELL_CODEGEN=0) — leaves their machine code in GRAPHCELL_CACHE_DIR; a second
process links it with llvmlite and never imports numba, with the same results; both compilers
give the same bits; a corrupt object or one for another CPU is not used but rebuilt; arguments
of other kinds are refused by the code itself and run by numba."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from graphcell_ir.backend import kernels
from graphcell_ir.backend import native as N
from graphcell_ir.backend.native import jit_cache

# a fused group (tanh, mul), a lone relu kernel, and three nn loops (im2col, max_pool_grad, col2im)
SRC = """func @f(%x: f32[2,1,12,12], %w: f32[3,1,5,5], %g: f32[2,3,4,4]) -> (f32[2,3,4,4], f32[2,3,8,8], f32[2,1,12,12]) {
  %c = conv2d(%x, %w) {out_channel=3, kernel_size=[5,5], mode=1, pad_mode="valid", pad=[0,0,0,0], stride=[1,1], dilation=[1,1], group=1, data_format="NCHW"} : f32[2,3,8,8]
  %r = relu(%c) : f32[2,3,8,8]
  %p = max_pool2d(%r) {kernel_size=[2,2], strides=[2,2], pad_mode="valid", data_format="NCHW"} : f32[2,3,4,4]
  %t = tanh(%p) : f32[2,3,4,4]
  %u = mul(%t, %g) : f32[2,3,4,4]
  %d = max_pool2d_grad(%r, %u) {kernel_size=[2,2], strides=[2,2], pad_mode="valid", data_format="NCHW"} : f32[2,3,8,8]
  %e = conv2d_backprop_input(%d, %w) {input_size=[2,1,12,12], pad_mode="valid", pad=[0,0,0,0], stride=[1,1], dilation=[1,1], group=1} : f32[2,1,12,12]
  return %u, %d, %e
}
"""

SCRIPT = f"""
import hashlib, json, sys
import numpy as np
from graphcell_ir.backend import executable, kernels
from graphcell_ir.passes.manager import PassManager
from graphcell_ir.passes.pipelines import DEFAULT, resolve
from graphcell_ir.text import parse_module
executable.LONE_MIN_SIZE = 0   # the small relu is a kernel too
m = parse_module('''{SRC}''')
PassManager(resolve(DEFAULT)).run(m)
exe = executable.compile_executable(m, m["f"], kernel_min_size=0)
rng = np.random.default_rng(5)
args = [rng.standard_normal(a.type.shape).astype(np.float32) for a in m["f"].args]
outs = exe(args)
st = kernels.cache_stats()
print(json.dumps({{"sha": [hashlib.sha256(np.ascontiguousarray(o).tobytes()).hexdigest()
                           for o in outs],
                  "fallbacks": exe.fallbacks, "kernels": len(exe.kernels),
                  "disk": st.disk_hits, "native": st.native_hits, "misses": st.misses,
                  "numba": "numba" in sys.modules}}))
"""


def _run(cache, **env) -> dict:
    env = dict(os.environ, GRAPHCELL_CACHE_DIR=str(cache), GRAPHCELL_NATIVE_CACHE="1", **env)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


N_CODE = 5   # native objects: the fused group, relu, im2col, max_pool_grad, col2im


COMPILERS = {"codegen": {"GRAPHCELL_CODEGEN": "1"}, "numba": {"GRAPHCELL_CODEGEN": "0"}}


@pytest.fixture(scope="module", params=sorted(COMPILERS))
def filled(request, tmp_path_factory):
    """A cache directory a first (cold) process filled with one compiler, what that process
    computed, and the compiler's environment."""
    env = COMPILERS[request.param]
    d = tmp_path_factory.mktemp(f"jit-native-cold-{request.param}")
    cold = _run(d, **env)
    assert cold["numba"] == (request.param == "numba"), "numba imported (or not) unexpectedly"
    assert cold["native"] == 0 and len(cold["misses"]) == N_CODE
    assert not cold["fallbacks"] and cold["kernels"] == 2
    return d, cold, env


@pytest.fixture
def cache(filled, tmp_path):
    d = tmp_path / "cache"
    shutil.copytree(filled[0], d)
    return d


def _objects(d):
    return sorted((d / "native-jit").glob("*.o"))


def test_second_process_links_native_code_without_numba(filled, cache, monkeypatch):
    assert len(_objects(cache)) == N_CODE
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(cache))
    assert kernels.disk_summary()["native objects"] == N_CODE   # graphcell info --cache
    warm = _run(cache, **filled[2])
    assert warm["sha"] == filled[1]["sha"]   # the cold process's code, linked: the same bits
    assert not warm["numba"], "a warm process imported numba"
    assert warm["native"] == warm["disk"] == N_CODE and warm["misses"] == []


def test_both_compilers_give_the_same_bits(tmp_path):
    runs = {name: _run(tmp_path / name, **env) for name, env in COMPILERS.items()}
    assert runs["codegen"]["sha"] == runs["numba"]["sha"]


def test_disabled_jit_still_runs_python(filled, cache):
    plain = _run(cache, GRAPHCELL_DISABLE_JIT="1", **filled[2])
    assert plain["native"] == 0 and not plain["numba"]
    assert all("plain Python" in m for m in plain["misses"])
    assert plain["kernels"] == 2


def test_corrupt_native_object_is_rebuilt(filled, cache):
    first, *rest = _objects(cache)
    first.write_bytes(first.read_bytes()[:-100] + b"x" * 100)   # the hash no longer matches
    rest[0].write_bytes(rest[0].read_bytes()[:40])             # truncated inside its header
    again = _run(cache, **filled[2])
    assert again["sha"] == filled[1]["sha"] and again["numba"] == filled[1]["numba"]
    assert again["native"] == N_CODE - 2 and len(again["misses"]) == 2
    assert all("corrupt" in m for m in again["misses"]), again["misses"]
    fixed = _run(cache, **filled[2])   # rewritten by the rebuild
    assert fixed["native"] == N_CODE and not fixed["numba"] and fixed["sha"] == filled[1]["sha"]


def test_native_object_for_another_cpu_is_not_used(filled, cache):
    path = _objects(cache)[0]
    raw = path.read_bytes()
    end = raw.index(b"\n", len(jit_cache._MAGIC))
    header = json.loads(raw[len(jit_cache._MAGIC):end])
    header["target"][2] += ",+graphcell-madeup-feature"
    path.write_bytes(jit_cache._MAGIC + json.dumps(header).encode() + raw[end:])
    again = _run(cache, **filled[2])
    assert again["sha"] == filled[1]["sha"] and again["native"] == N_CODE - 1
    (miss,) = again["misses"]
    assert "not for this CPU" in miss and "graphcell-madeup-feature" in miss


def test_arguments_of_other_kinds_are_refused_by_the_code(tmp_path, monkeypatch):
    """In process: the entry checks rank, dtype and C order itself; the kernel then runs the
    numba dispatcher, with the same result as the native code gives for the right arrays."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    import numba
    from graphcell_ir.backend.lower import KernelSource, Output
    src = "def kernel(x0, out0):\n    for i in range(x0.shape[0]):\n        out0[i] = x0[i] * 2\n"
    f4 = np.dtype(np.float32)
    ks = KernelSource(src, ((6,),), (), (Output((6,), f4, (6,), f4),), False,
                      ("mul",), ("float32",))
    kinds = N.kernel_kinds(ks)
    assert kinds == (("array", "float32", 1), ("array", "float32", 1))
    fn = numba.njit(kernels._numba_kernel(ks, []).py_func)
    x, out = np.arange(6, dtype=np.float32), np.empty(6, np.float32)
    fn(x, out)
    N.store_jit(ks.key, kinds, N.emit_jit(fn, ks.key, kinds))
    found = N.load_jit(ks.key, kinds)
    assert found.fn is not None
    got = np.zeros(6, np.float32)
    assert found.fn(x, got) and np.array_equal(got, out)
    for bad in (x.astype(np.float64), x.reshape(2, 3), np.arange(12, dtype=np.float32)[::2]):
        assert found.fn(bad, got) is False
    wrapped = kernels._Native(found.fn, ks)   # what compile_kernel returns runs them anyway
    wrapped(np.arange(12, dtype=np.float32)[::2], got)
    np.testing.assert_array_equal(got, np.arange(0, 24, 4, dtype=np.float32))
    assert N.load_jit(ks.key, (("array", "float64", 1),) * 2).why == "no native object on disk"
    # an object whose kernel calls a symbol this process lacks would call the stub: not used
    (path,) = (tmp_path / "native-jit").glob("*.o")
    raw = path.read_bytes()
    end = raw.index(b"\n", len(jit_cache._MAGIC))
    header = json.loads(raw[len(jit_cache._MAGIC):end])
    header["needs"].append("graphcell_no_such_symbol")
    path.write_bytes(jit_cache._MAGIC + json.dumps(header).encode() + raw[end:])
    assert "lacks (graphcell_no_such_symbol)" in N.load_jit(ks.key, kinds).why


def test_operands_in_another_order_run_the_native_code_on_copies(tmp_path, monkeypatch):
    """A view in another order (ViT's concatenation of transposed patches, numpy lays it out
    like its inputs) runs the native code on a C-ordered copy: no numba compile for it (seconds
    of a cold train step); another dtype or rank still goes to numba."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    import numba
    from graphcell_ir.backend.lower import KernelSource, Output
    src = ("def kernel(x0, out0):\n    for i in range(x0.shape[0]):\n"
           "        for j in range(x0.shape[1]):\n            out0[i, j] = x0[i, j] + 1\n")
    f4 = np.dtype(np.float32)
    ks = KernelSource(src, ((3, 4),), (), (Output((3, 4), f4, (3, 4), f4),), False,
                      ("add",), ("float32",))
    kinds = N.kernel_kinds(ks)
    fn = numba.njit(kernels._numba_kernel(ks, []).py_func)
    x = np.arange(12, dtype=np.float32).reshape(4, 3).T   # (3, 4), Fortran order
    out = np.empty((3, 4), np.float32)
    fn(np.ascontiguousarray(x), out)
    N.store_jit(ks.key, kinds, N.emit_jit(fn, ks.key, kinds))
    wrapped = kernels._Native(N.load_jit(ks.key, kinds).fn, ks)
    got = np.zeros((3, 4), np.float32)
    wrapped(x, got)
    np.testing.assert_array_equal(got, x + 1)
    assert wrapped.numba is None, "numba compiled a kernel for a transposed operand"
    wrapped(x.astype(np.float64), got)   # another dtype: the code refuses it, numba runs it
    np.testing.assert_array_equal(got, x + 1)
    assert wrapped.numba is not None


def test_code_that_needs_numbas_runtime_is_refused_and_remembered(tmp_path, monkeypatch):
    """A function that allocates calls numba's allocator: no native object (its stubs would be
    called); the refusal is on disk, so later processes use numba's own cache for it."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    import numba

    @numba.njit(error_model="numpy")
    def allocating(x0, out0):
        t = np.empty(x0.shape[0], np.float32)
        for i in range(x0.shape[0]):
            t[i] = x0[i] + 1
        for i in range(x0.shape[0]):
            out0[i] = t[i]
    x, out = np.arange(4, dtype=np.float32), np.empty(4, np.float32)
    allocating(x, out)
    kinds = (("array", "float32", 1), ("array", "float32", 1))
    with pytest.raises(N.NativeError, match="numba's runtime"):
        N.emit_jit(allocating, "allocating", kinds)
    kernels.store_native(allocating, "allocating", kinds)   # what a compile does
    found = N.load_jit("allocating", kinds)
    assert found.fn is None and found.refused and "numba's runtime" in found.why

"""The JIT's native objects (graphcell_ir.backend.objects, native/store.py): a process that
compiled kernels and loops with graphcell's code generator leaves their machine code in the object
store; a second process links it and never compiles or imports numba, with the same results; the
code generator gives numba's bits (numba, the oracle, runs the same program); a corrupt object or
one for another target is not used but rebuilt; arguments of other kinds are refused by the code
itself; a refusal of the code generator is remembered and numba runs that kernel."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from graphcell_ir.backend import codegen, kernels, objects
from graphcell_ir.backend import native as N
from graphcell_ir.backend.native import store as store_module

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
from graphcell_ir.backend import executable, kernels, objects
from graphcell_ir.passes.manager import PassManager
from graphcell_ir.passes.pipelines import DEFAULT, resolve
from graphcell_ir.text import parse_module
if "--numba" in sys.argv:   # the oracle: as in a process that cannot link native code
    objects.usable = lambda: "the test asks for numba"
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


def _run(cache, *flags, **env) -> dict:
    # the runner's kernels are what the cache is checked with (the native step's are others)
    env = dict(os.environ, GRAPHCELL_CACHE_DIR=str(cache), GRAPHCELL_NATIVE_STEP="0", **env)
    out = subprocess.run([sys.executable, "-c", SCRIPT, *flags], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


N_CODE = 5   # native objects: the fused group, relu, im2col, max_pool_grad, col2im


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A cache directory a first (cold) process filled, and what that process computed."""
    d = tmp_path_factory.mktemp("jit-native-cold")
    cold = _run(d)
    assert not cold["numba"], "the code generator's process imported numba"
    assert cold["native"] == 0 and len(cold["misses"]) == N_CODE
    assert not cold["fallbacks"] and cold["kernels"] == 2
    return d, cold


@pytest.fixture
def cache(filled, tmp_path):
    d = tmp_path / "cache"
    shutil.copytree(filled[0], d)
    return d


def _objects(d):
    return sorted((d / "objects").glob("*.o"))


def test_second_process_links_native_code_without_compiling(filled, cache, monkeypatch):
    assert len(_objects(cache)) == N_CODE
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(cache))
    assert kernels.disk_summary()["native objects"] == N_CODE   # graphcell info --cache
    warm = _run(cache)
    assert warm["sha"] == filled[1]["sha"]   # the cold process's code, linked: the same bits
    assert not warm["numba"], "a warm process imported numba"
    assert warm["native"] == warm["disk"] == N_CODE and warm["misses"] == []


def test_the_code_generator_gives_numbas_bits(filled, tmp_path):
    oracle = _run(tmp_path, "--numba")
    assert oracle["numba"] and oracle["native"] == 0
    assert all("numba (the test asks for numba)" in m for m in oracle["misses"])
    assert oracle["sha"] == filled[1]["sha"]


def test_disabled_jit_still_runs_python(filled, cache):
    plain = _run(cache, GRAPHCELL_DISABLE_JIT="1")
    assert plain["native"] == 0 and not plain["numba"]
    assert all("plain Python" in m for m in plain["misses"])
    assert plain["kernels"] == 2


def test_corrupt_native_object_is_rebuilt(filled, cache):
    first, *rest = _objects(cache)
    first.write_bytes(first.read_bytes()[:-100] + b"x" * 100)   # the hash no longer matches
    rest[0].write_bytes(rest[0].read_bytes()[:40])             # truncated inside its header
    again = _run(cache)
    assert again["sha"] == filled[1]["sha"] and not again["numba"]
    assert again["native"] == N_CODE - 2 and len(again["misses"]) == 2
    assert all("corrupt" in m for m in again["misses"]), again["misses"]
    fixed = _run(cache)   # rewritten by the rebuild
    assert fixed["native"] == N_CODE and fixed["sha"] == filled[1]["sha"]


def _edit_header(path, edit) -> None:
    raw = path.read_bytes()
    magic = store_module._MAGIC
    end = raw.index(b"\n", len(magic))
    header = json.loads(raw[len(magic):end])
    edit(header)
    path.write_bytes(magic + json.dumps(header).encode() + raw[end:])


def test_native_object_for_another_cpu_is_not_used(filled, cache):
    _edit_header(_objects(cache)[0],
                 lambda h: h["target"].__setitem__(2, h["target"][2] + ",+graphcell-madeup"))
    again = _run(cache)
    assert again["sha"] == filled[1]["sha"] and again["native"] == N_CODE - 1
    (miss,) = again["misses"]
    assert "not for this target" in miss and "graphcell-madeup" in miss


def _twice_kernel():
    from graphcell_ir.backend.lower import KernelSource, Output
    src = "def kernel(x0, out0):\n    for i in range(x0.shape[0]):\n        out0[i] = x0[i] * 2\n"
    f4 = np.dtype(np.float32)
    return KernelSource(src, ((6,),), (), (Output((6,), f4, (6,), f4),), False, ("mul",),
                        ("float32",))


def test_arguments_of_other_kinds_are_refused_by_the_code(tmp_path, monkeypatch):
    """In process: the entry checks rank, dtype and C order itself; the kernel then finds code
    for the arguments' own kinds, with the result the right arrays give."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    ks = _twice_kernel()
    kinds = N.kernel_kinds(ks)
    assert kinds == (("array", "float32", 1), ("array", "float32", 1))
    fn, why = objects.jit_function(ks.module_text, "kernel", kinds, ks.key)
    assert why == ""
    x, got = np.arange(6, dtype=np.float32), np.zeros(6, np.float32)
    assert fn(x, got) and np.array_equal(got, 2 * x)
    for bad in (x.astype(np.float64), x.reshape(2, 3), np.arange(12, dtype=np.float32)[::2]):
        assert fn(bad, got) is False
    wrapped = kernels._Native(fn, ks)   # what compile_kernel returns runs them anyway
    wrapped(np.arange(12, dtype=np.float32)[::2], got)   # strided: the code on a C copy
    np.testing.assert_array_equal(got, np.arange(0, 24, 4, dtype=np.float32))
    assert wrapped.others is None, "a strided operand compiled the kernel again"
    wrapped(np.arange(6, dtype=np.float64), got)   # float64 operand: its own native code
    np.testing.assert_array_equal(got, np.arange(0, 12, 2, dtype=np.float32))
    assert (("array", "float64", 1), ("array", "float32", 1)) in wrapped.others.by_kinds
    # an object whose code calls a symbol this process lacks is not linked, but rebuilt
    (path,) = [p for p in (tmp_path / "objects").glob("*.o")
               if N.jit_id(ks.key, kinds) in p.name]
    _edit_header(path, lambda h: h["needs"].append("graphcell_no_such_symbol"))
    objects.store().forget()
    again, _ = objects.jit_function(ks.module_text, "kernel", kinds, ks.key)
    assert again is not None
    assert "lacks (graphcell_no_such_symbol)" in kernels.cache_stats().misses[-1]


def test_operands_in_another_order_run_the_native_code_on_copies(tmp_path, monkeypatch):
    """A 2-D view in another order (ViT's concatenation of transposed patches: numpy lays it
    out like its inputs) runs the native code on a C-ordered copy, not on code compiled again
    for its layout (seconds of a cold train step); another dtype still gets code of its own."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    from graphcell_ir.backend.lower import KernelSource, Output
    src = ("def kernel(x0, out0):\n    for i in range(x0.shape[0]):\n"
           "        for j in range(x0.shape[1]):\n            out0[i, j] = x0[i, j] + 1\n")
    f4 = np.dtype(np.float32)
    ks = KernelSource(src, ((3, 4),), (), (Output((3, 4), f4, (3, 4), f4),), False,
                      ("add",), ("float32",))
    fn, why = objects.jit_function(ks.module_text, "kernel", N.kernel_kinds(ks), ks.key)
    assert why == ""
    wrapped = kernels._Native(fn, ks)
    x = np.arange(12, dtype=np.float32).reshape(4, 3).T   # (3, 4), Fortran order
    got = np.zeros((3, 4), np.float32)
    wrapped(x, got)
    np.testing.assert_array_equal(got, x + 1)
    assert wrapped.others is None, "a transposed operand compiled the kernel again"
    wrapped(x.astype(np.float64), got)   # another dtype: the code refuses it, its own code runs
    np.testing.assert_array_equal(got, x + 1)
    assert wrapped.others is not None


def test_a_refusal_is_remembered_and_numba_runs_the_kernel(tmp_path, monkeypatch):
    """A kernel outside the code generator's subset: the refusal is stored (a later process
    does not try again) and numba runs the kernel, with Python's result."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    kernels.reset_cache()
    from graphcell_ir.backend.lower import KernelSource, Output
    src = ("def kernel(x0, out0):\n    for i in range(x0.shape[0]):\n"
           "        out0[i] = x0[i] ** 3\n")   # a float to an integer power: numba's own loop
    f8 = np.dtype(np.float64)
    ks = KernelSource(src, ((4,),), (), (Output((4,), f8, (4,), f8),), False, ("pow",),
                      ("float64",))
    k = kernels.compile_kernel(ks, jit=True)
    (got,) = k(np.array([-2, 0, 3, 0.5]))
    np.testing.assert_array_equal(got, [-8, 0, 27, 0.125])
    (miss,) = kernels.cache_stats().misses
    assert "numba (not in the code generator's subset" in miss
    assert list((tmp_path / "objects").glob("*.err"))
    objects.store().forget()   # as a later process: the refusal is read, nothing compiled
    fn, why = objects.jit_function(ks.module_text, "kernel", N.kernel_kinds(ks), ks.key)
    assert fn is None and why.startswith("not in the code generator's subset")
    assert len(kernels.cache_stats().misses) == 1


def test_the_lean_entry_checks_every_array_with_one_shared_check(tmp_path, monkeypatch):
    """The object entry checks each array by a call of one check function of its module (not
    the checks inlined per array), and still answers MISMATCH, without running, for an array
    of another dtype, rank or order in any position — operand or output, after a scalar."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    src = ("def axpy(x, a, y, out):\n    for i in range(x.shape[0]):\n"
           "        out[i] = a * x[i] + y[i]\n")
    kinds = (("array", "float32", 1), ("scalar", "float64"), ("array", "float64", 1),
             ("array", "float32", 1))
    text = codegen.lower_module(src, "axpy", kinds, "entry", layout=N.array_layout())
    assert text.count('define internal i1 @"gc.array_check"') == 1
    entry = text.split('define i32 @"entry"')[1]
    assert entry.count('call i1 @"gc.array_check"') == 3
    fn, why = objects.jit_function(src, "axpy", kinds, "test-lean-entry")
    assert why == ""
    x, y = np.arange(4, dtype=np.float32), np.ones(4)
    out = np.zeros(4, np.float32)
    assert fn.cfunc(x, 2.0, y, out) == N.OK
    np.testing.assert_array_equal(out, 2 * x + 1)
    good = [x, 2.0, y, out]
    for at in (0, 2, 3):
        a = good[at]
        other_dtype = a.astype(np.float64 if a.dtype == np.float32 else np.float32)
        for bad in (other_dtype, a.reshape(2, 2), np.repeat(a, 2)[::2]):
            args = list(good)
            args[at] = bad
            before = out.copy()
            assert fn.cfunc(*args) == N.MISMATCH, (at, bad.dtype, bad.shape, bad.strides)
            np.testing.assert_array_equal(out, before)   # nothing ran


def test_a_loop_called_first_by_two_threads_at_once_compiles_once(tmp_path, monkeypatch):
    """A convolution's first call runs its blocks on two threads at once: each thread's first
    ``L.im2col`` must not compile the loop again (ResNet-18's cold compile compiled each of
    its four convolution loops twice), and both get the loop's result."""
    import threading
    import time

    from graphcell_ir.backend import loops
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    compiles, real = [], objects.jit_function

    def slow_compile(*args, **kwargs):   # widen the window in which the threads race
        compiles.append(args[1])
        time.sleep(0.05)
        return real(*args, **kwargs)
    monkeypatch.setattr(objects, "jit_function", slow_compile)
    L = loops.NativeLoops()
    cond = np.array([1, 0, 1, 0, 1], bool)
    a, b = np.arange(5, dtype=np.float32), -np.arange(5, dtype=np.float32)
    outs = [np.zeros(5, np.float32) for _ in range(2)]
    start = threading.Barrier(2)

    def first_call(out):
        start.wait()
        L.select(cond, a, b, out)
    threads = [threading.Thread(target=first_call, args=(o,)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert compiles == ["select"]
    for out in outs:
        np.testing.assert_array_equal(out, np.where(cond, a, b))

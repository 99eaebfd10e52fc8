"""The native thread pool (``native/pool.py``) and the kernels that run on it: chunks cover the
range once, many and concurrent callers, the serial paths (one thread, below the threshold, a
busy pool), fork and interpreter exit; fused kernels above and below the threshold against the
reference interpreter, and a parallel reduction bit-identical to one thread."""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from graphcell_ir.backend import codegen, lower, objects
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.backend.native import pool as P
from graphcell_ir.text import parse_module

pytestmark = pytest.mark.skipif(objects.usable() is not None or not codegen.available(),
                                reason="no native code here")

TASK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)

AXPY = lower.HEADER + """def kernel(x0, out0):
    k0 = float32(0.5)
    for i0 in prange(x0.shape[0]):
        out0[i0] = float32(x0[i0] * k0 + float32(1.0))
"""
FLOAT1 = ("array", "float32", 1)


def _recorded(p, n: int, work: int) -> list:
    """The chunks ``parallel_for`` runs for ``n`` items (a Python task: it takes the GIL)."""
    seen, lock = [], threading.Lock()

    def task(ctx, lo, hi):
        with lock:
            seen.append((lo, hi, threading.get_ident()))
    fn = TASK(task)
    p.parallel_for(ctypes.cast(fn, ctypes.c_void_p), None, n, work)
    return seen


@pytest.mark.parametrize("n", [2, 3, 7, 8, 100, 12345])
def test_chunks_cover_the_range_once(pool, n):
    seen = _recorded(pool, n, 1 << 40)
    covered = sorted((lo, hi) for lo, hi, _ in seen)
    assert covered[0][0] == 0 and covered[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:]))
    assert len(covered) == min(n, pool.threads * P.CHUNKS_PER_THREAD)


def test_small_work_one_thread_or_one_item_run_serially_on_the_caller(pool):
    me = threading.get_ident()
    assert _recorded(pool, 100, P.MIN_WORK - 1) == [(0, 100, me)]
    assert _recorded(pool, 1, 1 << 40) == [(0, 1, me)]
    pool.limit(1)
    assert _recorded(pool, 100, 1 << 40) == [(0, 100, me)]


def test_a_loop_inside_a_chunk_runs_serially_instead_of_waiting(pool):
    """A chunk that calls parallel_for (the pool is busy) runs it on its own thread."""
    inner = []

    def task(ctx, lo, hi):
        inner.append(_recorded(pool, 10, 1 << 40))
    fn = TASK(task)
    pool.parallel_for(ctypes.cast(fn, ctypes.c_void_p), None, 4, 1 << 40)
    assert len(inner) == 4 and all(len(chunks) == 1 and chunks[0][:2] == (0, 10)
                                   for chunks in inner)


def _late_worker_call(pool) -> list:
    """One parallel call whose worker chunk comes back late (a descheduled worker, as on a
    busy machine): the caller's first chunk waits until the worker has taken one, which then
    takes far longer than twice the caller's share. The chunks' threads."""
    me, started, began, seen = threading.get_ident(), threading.Event(), [], []

    def task(ctx, lo, hi):
        seen.append(threading.get_ident())
        if threading.get_ident() == me:
            if not began:
                began.append(time.perf_counter())
                started.wait(5.0)
        elif not started.is_set():
            started.set()
            own = time.perf_counter() - began[0] if began else 0.0
            time.sleep(0.02 + 3 * own)
    fn = TASK(task)
    pool.parallel_for(ctypes.cast(fn, ctypes.c_void_p), None, 8, 1 << 40)
    return seen


def test_a_late_worker_makes_the_next_calls_serial_doubling_while_late(pool):
    """``BACKOFF_FIRST`` serial calls after a late one, twice as many after the next late one,
    and the first length again after a call on time (the Python pool's rule: test_nnkernels)."""
    me = threading.get_ident()
    assert len(set(_late_worker_call(pool))) == 2
    assert (pool.state[P._BACKOFF], pool.state[P._BACKOFF_NEXT]) == \
        (P.BACKOFF_FIRST, 2 * P.BACKOFF_FIRST)
    for _ in range(P.BACKOFF_FIRST):
        assert _recorded(pool, 100, 1 << 40) == [(0, 100, me)]   # serial, on the caller
    assert len(set(_late_worker_call(pool))) == 2
    assert pool.state[P._BACKOFF] == 2 * P.BACKOFF_FIRST
    pool.state[P._BACKOFF] = 0
    assert len(_recorded(pool, 100, 1 << 40)) > 1   # on time: split, and the back-off reset
    assert pool.state[P._BACKOFF_NEXT] == P.BACKOFF_FIRST


def _axpy():
    fn, why = objects.jit_function(AXPY, "kernel", (FLOAT1, FLOAT1), "test-pool-axpy",
                                   parallel=True, noalias=True)
    assert fn is not None, why
    return fn


def test_many_calls_and_concurrent_callers_get_the_serial_results(pool):
    fn = _axpy()
    x = np.random.default_rng(0).standard_normal(P.MIN_WORK * 2).astype(np.float32)
    want = x * np.float32(0.5) + np.float32(1.0)
    out = np.empty_like(x)
    for _ in range(300):
        out[:] = 0
        assert fn(x, out)
        np.testing.assert_array_equal(out, want)
    bad = []

    def caller():
        mine = np.empty_like(x)
        for _ in range(50):
            mine[:] = 0
            fn(x, mine)
            if not np.array_equal(mine, want):
                bad.append(1)
    threads = [threading.Thread(target=caller) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a caller hangs"
    assert not bad


def test_workers_are_native_loops_that_stop_and_restart(pool):
    assert pool.threads == 2 and all(t.is_alive() for t in pool.workers)
    pool.stop()
    assert pool.workers == [] and _recorded(pool, 10, 1 << 40)[0][:2] == (0, 10)
    pool.start()
    pool.limit(2)
    assert len(_recorded(pool, 1000, 1 << 40)) == 2 * P.CHUNKS_PER_THREAD


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_runs_kernels(pool):
    fn = _axpy()
    x = np.arange(P.MIN_WORK * 2, dtype=np.float32)
    pid = os.fork()
    if pid == 0:   # the child: the parent's workers do not exist here
        code = 1
        try:
            out = np.empty_like(x)
            P.ensure_started()
            fn(x, out)
            code = 0 if np.array_equal(out, x * np.float32(0.5) + np.float32(1.0)) else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    pytest.fail("the forked child hangs")


@pytest.mark.parametrize("threads", ["1", "2"])
def test_the_interpreter_exits_with_the_pool_running(tmp_path, threads):
    code = ("import numpy as np\n"
            "from graphcell_ir.backend import objects\n"
            "from graphcell_ir.backend.native import pool\n"
            f"src = {AXPY!r}\n"
            "fn, why = objects.jit_function(src, 'kernel', (('array', 'float32', 1),) * 2, 'x',"
            " parallel=True, noalias=True)\n"
            "x = np.ones(1 << 20, np.float32); out = np.empty_like(x); fn(x, out)\n"
            "assert (out == 1.5).all()\n"
            "print(pool.pool().threads, len(pool.pool().workers))\n")
    env = dict(os.environ, GRAPHCELL_CACHE_DIR=str(tmp_path), GRAPHCELL_KERNEL_THREADS=threads,
               PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [threads, str(int(threads) - 1)]


# --- fused kernels on the pool, against the reference interpreter -------------------------------

BN_STATS = """func @f(%x: f32[{n},16,32,32], %m: f32[1,16,1,1]) -> f32[{n},16,32,32], f32[1,16,1,1] {{
  %0, %1 = fused(%x, %m) : (f32[{n},16,32,32], f32[1,16,1,1]) body(%a: f32[{n},16,32,32], %b: f32[1,16,1,1]) {{
    %2 = sub(%a, %b) : f32[{n},16,32,32]
    %3 = mul(%2, %2) : f32[{n},16,32,32]
    %4 = reduce_sum(%3) {{axis=[0,2,3], keep_dims=true}} : f32[1,16,1,1]
    %5 = relu(%2) : f32[{n},16,32,32]
    yield %5, %4
  }}
  return %0, %1
}}
"""


@pytest.mark.parametrize("n", [2, 128])   # 32k elements (serial) and 2M (the pool)
def test_fused_reduction_above_and_below_the_threshold_is_the_interpreters(pool, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, 16, 32, 32)).astype(np.float32)
    x[0, 3, 4, 5] = np.nan
    m = rng.standard_normal((1, 16, 1, 1)).astype(np.float32)
    module = parse_module(BN_STATS.format(n=n))
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    (kernel,) = exe.kernels
    assert kernel.ks.parallel == (x.size >= lower.PARALLEL_MIN)
    if kernel.ks.parallel:   # over tiles of the kept channel axis, the loops in memory order
        assert "for t1 in prange(" in kernel.ks.source
        assert kernel.ks.source.index("for i0 ") < kernel.ks.source.index("for i1 ")
    got = exe([x, m])
    want = interpret(module, x, m)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-5, equal_nan=True)
    assert np.isnan(got[1][0, 3, 0, 0]) and not np.isnan(got[1][0, 4, 0, 0])
    pool.limit(1)
    serial = exe([x, m])
    for g, s in zip(got, serial):   # the same summation order on any number of threads
        np.testing.assert_array_equal(g, s)


GELU = """func @f(%x: f32[{n}]) -> f32[{n}] {{
  %0 = fused(%x) : f32[{n}] body(%a: f32[{n}]) {{
    %1 = mul(%a, %a) : f32[{n}]
    %2 = mul(%1, %a) : f32[{n}]
    %3 = mul(%2, 0.044715:f32) : f32[{n}]
    %4 = add(%a, %3) : f32[{n}]
    %5 = mul(%4, 0.7978846:f32) : f32[{n}]
    %6 = tanh(%5) : f32[{n}]
    %7 = add(%6, 1.0:f32) : f32[{n}]
    %8 = mul(%a, %7) : f32[{n}]
    %9 = mul(%8, 0.5:f32) : f32[{n}]
    yield %9
  }}
  return %0
}}
"""


@pytest.mark.parametrize("n", [1000, 1 << 21])
def test_fused_elementwise_above_and_below_the_threshold_is_the_interpreters(pool, n):
    x = np.linspace(-6, 6, n).astype(np.float32)
    x[:3] = [np.nan, np.inf, -np.inf]
    module = parse_module(GELU.format(n=n))
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    (kernel,) = exe.kernels
    assert kernel.ks.parallel == (n >= lower.PARALLEL_MIN)
    (got,) = exe([x])
    (want,) = [interpret(module, x)]
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6, equal_nan=True)


def test_without_a_pool_a_parallel_kernel_is_left_to_the_fallback(pool, monkeypatch):
    """When the pool cannot be built, what calls it is not linked: ``(None, why)``, so the
    kernel runs on the fallback (numba) instead of failing."""

    def broken():
        raise OSError("no futex today")
    monkeypatch.setattr(P, "pool", broken)
    fn, why = objects.jit_function(AXPY, "kernel", (FLOAT1, FLOAT1), "test-pool-broken",
                                   parallel=True, noalias=True)
    assert fn is None and "thread pool could not be built (OSError: no futex today)" in why


def test_the_kernels_inner_loop_is_vectorised():
    """What a save_graphs dump shows for a fused elementwise kernel on the pool: its body works
    on vectors of floats (noalias arrays, a chunk's index known non-negative)."""
    module = parse_module(GELU.format(n=1 << 19))
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    (kernel,) = exe.kernels
    text = codegen.optimized_ir(kernel.ks.module_text, "kernel", (FLOAT1, FLOAT1),
                                parallel=True, noalias=True)
    body = text[text.index("prange.body"):]
    assert "fmul <" in body and "x float>" in body and "gather" not in body


ADD = """func @f(%x: f32[{n}], %y: f32[{n}]) -> f32[{n}] {{
  %0 = fused(%x, %y) : f32[{n}] body(%a: f32[{n}], %b: f32[{n}]) {{
    %1 = add(%a, %b) : f32[{n}]
    yield %1
  }}
  return %0
}}
"""


def _jobs(p) -> int:
    """How many jobs the pool has published (the job number of its job word)."""
    return int(p.state[P._WORD]) >> 32


@pytest.mark.parametrize("third, parallel", [(P.MIN_WORK // 3 + 1, True),
                                             (P.MIN_WORK // 4, False)])
def test_a_kernels_work_is_the_elements_of_all_its_arrays(pool, third, parallel):
    """Three arrays of a third of the threshold each are the pool's (an optimizer update's
    several arrays, none large alone); a quarter each is not: the threshold compares the
    elements the kernel touches, not its largest array. Both give the serial results."""
    x = np.arange(third, dtype=np.float32)
    module = parse_module(ADD.format(n=third))
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    (kernel,) = exe.kernels
    assert kernel.ks.parallel
    exe([x, x])   # compiled, and the pool's back-off, if armed, counted down below
    pool.state[P._BACKOFF] = 0
    before = _jobs(pool)
    (got,) = exe([x, -x])
    assert (_jobs(pool) > before) == parallel
    np.testing.assert_array_equal(got, np.zeros_like(x))

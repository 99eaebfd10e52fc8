"""The native step's callees compile on the compile thread while the step is emitted
(``step/code.py``): the same step, the same fallbacks when one fails there, nothing of a failed
compile kept."""
from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

from graphcell_ir.backend import codegen
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.backend.lower import Unsupported
from graphcell_ir.backend.step import code
from graphcell_ir.backend.step.emit import build
from graphcell_ir.passes import run_pipeline
from graphcell_ir.text import parse_module

pytestmark = pytest.mark.skipif(not codegen.available(),
                                reason="this llvmlite cannot run the code generator")

STEP = """
func @step(%x: f32[8,16], %y: i32[8], %w: f32[10,16], %lr: f32[]) -> f32[], f32[10,16], f32[8,10] {
  %z = matmul(%x, %w) {transpose_b=true} : f32[8,10]
  %l = sparse_softmax_cross_entropy(%z, %y) : f32[8]
  %m = reduce_mean(%l) {axis=none, keep_dims=false} : f32[]
  %p = softmax(%z) {axis=[-1]} : f32[8,10]
  %o = one_hot(%y) {depth=10, on_value=1.0, off_value=0.0, axis=-1, dtype=f32} : f32[8,10]
  %d = sub(%p, %o) : f32[8,10]
  %dw = matmul(%d, %x) {transpose_a=true} : f32[10,16]
  %sw = mul(%dw, %lr) : f32[10,16]
  %nw = sub(%w, %sw) : f32[10,16]
  return %m, %nw, %p
}
"""


def _module():
    module = parse_module(STEP)
    run_pipeline(module)
    return module


def _inputs():
    rng = np.random.default_rng(3)
    return [rng.standard_normal((8, 16)).astype(np.float32), (np.arange(8) % 10).astype(np.int32),
            (rng.standard_normal((10, 16)) * 0.1).astype(np.float32), np.array(0.5, np.float32)]


def _check(module, run) -> None:
    args = _inputs()
    for got, want in zip(run(args), interpret(module["step"], *args)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.fixture
def empty_store(monkeypatch, tmp_path):
    """An empty object store: every callee is compiled."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")


@pytest.fixture
def cross_entropy_refused_by_llvm(monkeypatch):
    """LLVM fails on the cross-entropy loop's object (as it would on a bug of the generator) while
    ``refusing["on"]``, on either compile lane (in this process or in the compile worker)."""
    from graphcell_ir.backend.codegen.worker import CompileWorker
    refusing = {"on": True}

    def refused(compile_):
        def object_code(*args):
            if refusing["on"] and "gc.sparse_softmax_cross_entropy_rows" in args[-3]:
                raise RuntimeError("LLVM refused it")
            return compile_(*args)
        return object_code
    monkeypatch.setattr(codegen, "object_code", refused(codegen.object_code))
    monkeypatch.setattr(CompileWorker, "object_code", refused(CompileWorker.object_code))
    return refusing


def test_the_callees_compile_on_the_compile_thread(empty_store, monkeypatch):
    threads = []
    run = code.objects.Compile.run

    def recorded(self, *args):
        threads.append(threading.current_thread().name)
        return run(self, *args)
    monkeypatch.setattr(code.objects.Compile, "run", recorded)
    module = _module()
    step = build(module["step"])
    assert threads and all(t.startswith("graphcell-compile") for t in threads)
    assert threading.current_thread().name not in threads
    _check(module, step)


def test_a_callee_failing_on_the_compile_thread_runs_in_python(empty_store,
                                                                cross_entropy_refused_by_llvm):
    """As when it failed on the build's own thread: the op runs in Python between native
    segments (its Python callable compiles the same loop, refused by LLVM again: numba's or
    the runner's, as before), the results are the same."""
    module = _module()
    exe = compile_executable(module, "step")
    assert exe.step_fallback is None
    # (softmax's loop is compiled from the same module text: refused with it)
    assert exe.run.step.host_ops == ("sparse_softmax_cross_entropy", "softmax")
    _check(module, exe)


def test_without_python_ops_a_callee_failing_there_means_no_step(empty_store,
                                                                 cross_entropy_refused_by_llvm):
    with pytest.raises(Unsupported, match=r"loop sparse_softmax_cross_entropy_rows: no native "
                                          r"code \(the code generator failed \(RuntimeError: "
                                          r"LLVM refused it\)\)"):
        build(_module()["step"])


def test_a_failed_compile_is_neither_stored_nor_remembered(empty_store,
                                                           cross_entropy_refused_by_llvm):
    """Neither an object nor a refusal in the store: the next build compiles it (and the
    failure is logged, not cached, as on the build's own thread)."""
    assert compile_executable(_module(), "step").run.step.host_ops == \
        ("sparse_softmax_cross_entropy", "softmax")
    cross_entropy_refused_by_llvm["on"] = False
    module = _module()
    step = compile_executable(module, "step").run.step
    assert step.host_ops == ()
    _check(module, step)


def test_the_switch_interval_is_short_during_builds_and_restored_after():
    before = sys.getswitchinterval()
    short = pytest.approx(min(before, code.SWITCH_INTERVAL))
    with code.switching_often():
        assert sys.getswitchinterval() == short
        with code.switching_often():   # another build at once (another thread)
            pass
        assert sys.getswitchinterval() == short
    assert sys.getswitchinterval() == before


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork here")
def test_a_forked_child_builds_steps_on_a_compile_thread_of_its_own(empty_store):
    """The child has the parent's executor object but not its thread: it makes its own."""
    import os
    import select
    import signal
    build(_module()["step"])   # the parent's compile thread exists
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: build with a fresh store, report, leave at once
        ok = b"0"
        try:
            os.environ["GRAPHCELL_CACHE_DIR"] = os.environ["GRAPHCELL_CACHE_DIR"] + "-child"
            module = _module()
            _check(module, build(module["step"]))
            ok = b"1"
        finally:
            os.write(write, ok)
            os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], 120)   # (the parent's thread: a deadlock)
    if not ready:
        os.kill(pid, signal.SIGKILL)
    got = os.read(read, 1) if ready else b"deadlocked"
    os.waitpid(pid, 0)
    assert got == b"1"


def test_a_pool_that_cannot_be_built_means_python_for_the_ops_on_it(empty_store, monkeypatch):
    """The pool's build fails on the compile thread: the step is emitted again, the product
    that would run in blocks on the pool runs in Python — the pool tried once, not again and
    again."""
    from graphcell_ir.backend import nnkernels
    from graphcell_ir.backend.native import pool
    monkeypatch.setattr(nnkernels, "BLAS_WAKES", 1000)
    monkeypatch.setattr(nnkernels, "GEMM_UNIT", 100 * 80 * 96 // 8)   # blocks on the pool
    calls = []

    def broken():
        calls.append(1)
        assert len(calls) < 3, "the pool asked for again and again"   # (ends the build)
        raise RuntimeError("no pool here")
    monkeypatch.setattr(pool, "started", broken)
    module = parse_module("""
func @f(%x: f32[100,96], %y: f32[96,80]) -> f32[100,80] {
  %r = matmul(%x, %y) : f32[100,80]
  %s = add(%r, %r) : f32[100,80]
  return %s
}
""")
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None and exe.run.step.host_ops == ("matmul",)
    assert len(calls) == 1
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((100, 96), np.float32), rng.standard_normal((96, 80), np.float32)
    np.testing.assert_allclose(exe([x, y])[0], 2 * (x @ y), rtol=1e-5, atol=1e-4)

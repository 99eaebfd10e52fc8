"""The compile worker (``codegen/worker.py``): a second compile lane in a process of its own
while a native step is built (``step/code.py``). Its objects are the process's own, byte for
byte; LLVM's errors come back as they are raised here; a worker that dies (killed, LLVM
aborted) costs the build nothing and never the user's process; a step built with it gives the
runner's bits; the switch off (or one core) means no worker."""
from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from graphcell_ir.backend import blas_threads, codegen, objects
from graphcell_ir.backend.codegen import worker
from graphcell_ir.backend.codegen.worker import CompileWorker, WorkerCrashed, WorkerTarget
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.native.target import host_target
from graphcell_ir.backend.step import code
from graphcell_ir.text import parse_module

pytestmark = pytest.mark.skipif(not codegen.available(),
                                reason="this llvmlite cannot run the code generator")

STEP = """
func @f(%x: f32[4,3,12,12], %w: f32[6,3,3,3], %d: f32[4,6,10,10], %y: i32[4], %v: f32[6,10]) -> f32[], f32[6,3,3,3], f32[4,3,12,12], f32[4,10] {
  %c = conv2d(%x, %w) {out_channel=6, kernel_size=[3,3], mode=1, pad_mode="valid", pad=[0,0,0,0], stride=[1,1], dilation=[1,1], group=1, data_format="NCHW"} : f32[4,6,10,10]
  %r = relu(%c) : f32[4,6,10,10]
  %s = reduce_mean(%r) {axis=[2,3], keep_dims=false} : f32[4,6]
  %z = matmul(%s, %v) : f32[4,10]
  %l = sparse_softmax_cross_entropy(%z, %y) : f32[4]
  %m = reduce_mean(%l) {axis=none, keep_dims=false} : f32[]
  %p = softmax(%z) {axis=[-1]} : f32[4,10]
  %dw = conv2d_backprop_filter(%d, %x) {filter_size=[6,3,3,3], pad_mode="valid", pad=[0,0,0,0], stride=[1,1], dilation=[1,1], group=1} : f32[6,3,3,3]
  %dx = conv2d_backprop_input(%d, %w) {input_size=[4,3,12,12], pad_mode="valid", pad=[0,0,0,0], stride=[1,1], dilation=[1,1], group=1} : f32[4,3,12,12]
  return %m, %dw, %dx, %p
}
"""

ABORTS_LLVM = """
declare <16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float>, <16 x float>, i16)
define <16 x float> @f(<16 x float> %x) {
  %r = call <16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float> %x, <16 x float> %x, i16 -1)
  ret <16 x float> %r
}
"""
"""An AVX-512 intrinsic for a CPU without AVX-512: LLVM's instruction selection aborts the
process ("Do not know how to split the result of this operator!")."""


def _inputs():
    rng = np.random.default_rng(5)
    shapes = [(4, 3, 12, 12), (6, 3, 3, 3), (4, 6, 10, 10)]
    return [rng.standard_normal(s).astype(np.float32) for s in shapes] + \
        [np.array([1, 7, 3, 9], np.int32), rng.standard_normal((6, 10)).astype(np.float32)]


def _same_bits(a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert (a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")).all()


@pytest.fixture
def empty_store(monkeypatch, tmp_path):
    """An empty object store: every callee is compiled."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")


@pytest.fixture
def a_worker():
    """A compile worker of the test's own, ended after it."""
    w = CompileWorker()
    yield w
    w.stop()


@pytest.fixture
def lanes_through_a_worker(monkeypatch, a_worker):
    """The process's compile lanes replaced by lanes that compile every object in the worker
    (the compile thread's lane too): which lane takes which object does not decide what a test
    sees."""
    monkeypatch.setattr(code, "_in_process", a_worker.object_code)
    lanes = code._CompileThread(worker=a_worker)
    monkeypatch.setattr(code, "_THREAD", lanes)
    yield a_worker
    lanes.stop()


def _recorded_compiles(monkeypatch) -> list:
    """The (text, target, optimise?) of every object compiled from now on, and the step
    modules' texts (optimise False)."""
    seen = []
    run, step_object = objects.Compile.run, code.ProcessCode.step_object

    def recorded(self, *args):
        seen.append((self.text, self.target, self.optimize))
        return run(self, *args)

    def recorded_step(self, text):
        seen.append((text, host_target(), False))
        return step_object(self, text)
    monkeypatch.setattr(objects.Compile, "run", recorded)
    monkeypatch.setattr(code.ProcessCode, "step_object", recorded_step)
    return seen


def test_the_workers_objects_are_this_processs_byte_for_byte(empty_store, monkeypatch,
                                                             a_worker):
    seen = _recorded_compiles(monkeypatch)
    compile_executable(parse_module(STEP), "f")
    # every pipeline: O2 (loops, kernels), none (the step's module), short (the direct kernels)
    assert len(seen) > 5 and {o for *_, o in seen} == {True, False, codegen.SHORT}
    for text, target, optimize in seen:
        here = codegen.object_code(text, target, optimize)
        there = a_worker.object_code(text, target, optimize)
        assert there == here
    assert a_worker.running()


def test_an_llvm_error_in_the_worker_is_the_error_raised_here(a_worker):
    text = "define i32 @f() {\n  ret i64 0\n}\n"
    with pytest.raises(Exception) as here:
        codegen.object_code(text, host_target())
    with pytest.raises(Exception) as there:
        a_worker.object_code(text, host_target())
    assert type(there.value) is type(here.value)
    assert str(there.value) == str(here.value) and "ret i64" in str(there.value)
    assert a_worker.running() and a_worker.deaths == 0


def test_a_killed_worker_is_replaced_and_asked_again(a_worker):
    text = "define i32 @f() {\n  ret i32 7\n}\n"
    want = codegen.object_code(text, host_target())
    assert a_worker.start()
    first = a_worker.pid
    os.kill(first, signal.SIGKILL)
    assert a_worker.object_code(text, host_target()) == want
    assert a_worker.running() and a_worker.pid != first and a_worker.deaths == 1


def test_llvm_aborting_kills_the_worker_not_this_process(a_worker):
    """Compiled here, the module would abort this process; through the worker it has no
    object (twice dead on it: not a worker killed by chance), and the next object compiles."""
    t = host_target()
    features = ",".join(f for f in t.features.split(",") if "avx512" not in f) + ",-avx512f"
    with pytest.raises(WorkerCrashed, match="died twice"):
        a_worker.object_code(ABORTS_LLVM, WorkerTarget(t.triple, "x86-64", features), False)
    assert a_worker.deaths == 2
    text = "define i32 @f() {\n  ret i32 7\n}\n"
    assert a_worker.object_code(text, t) == codegen.object_code(text, t)


@pytest.mark.parametrize("found_dead", [False, True], ids=["dies-when-asked", "found-dead"])
def test_after_too_many_deaths_objects_compile_here(a_worker, monkeypatch, found_dead):
    """``found_dead``: the worker is dead (reaped) before the next request — a death too."""
    monkeypatch.setattr(worker, "MAX_DEATHS", 1)
    assert a_worker.start()
    os.kill(a_worker.pid, signal.SIGKILL)
    if found_dead:
        a_worker._process.wait()
    text = "define i32 @f() {\n  ret i32 7\n}\n"
    assert a_worker.object_code(text, host_target()) == codegen.object_code(text, host_target())
    assert not a_worker.running() and a_worker.deaths == 1


def test_a_step_built_through_the_worker_gives_the_runners_bits(empty_store, monkeypatch,
                                                                lanes_through_a_worker):
    names = []
    run = objects.Compile.run

    def recorded(self, object_code=None):
        names.append(threading.current_thread().name)
        return run(self, object_code)
    monkeypatch.setattr(objects.Compile, "run", recorded)
    _check_the_whole_step_runs_natively_with_the_runners_bits(monkeypatch)
    assert "graphcell-compile-worker" in names


def _check_the_whole_step_runs_natively_with_the_runners_bits(monkeypatch) -> None:
    exe = compile_executable(parse_module(STEP), "f")
    assert exe.step_fallback is None and exe.run.step.host_ops == ()
    args = _inputs()
    got = blas_threads.single(lambda: exe.run.step(args))
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    for g, p in zip(got, compile_executable(parse_module(STEP), "f")(args)):
        _same_bits(g, p)


def test_a_build_goes_on_when_the_worker_is_killed(empty_store, monkeypatch,
                                                   lanes_through_a_worker):
    assert lanes_through_a_worker.start()
    first = lanes_through_a_worker.pid
    os.kill(first, signal.SIGKILL)
    _check_the_whole_step_runs_natively_with_the_runners_bits(monkeypatch)
    assert lanes_through_a_worker.pid not in (None, first)


def test_an_object_failing_in_the_worker_runs_its_op_in_python(empty_store, monkeypatch,
                                                               lanes_through_a_worker):
    """LLVM refuses the cross-entropy loop's text in the worker: as when it did here (the op a
    host op between native segments; test_step_compile_thread)."""
    lower = codegen.lower_module

    def unparsable(*args, **kwargs):
        text = lower(*args, **kwargs)
        return text + "\nthis is not LLVM IR\n" \
            if "gc.sparse_softmax_cross_entropy_rows" in text else text
    monkeypatch.setattr(codegen, "lower_module", unparsable)
    exe = compile_executable(parse_module(STEP), "f")
    assert exe.step_fallback is None
    # (softmax's loop is compiled from the same module text: refused with it)
    assert exe.run.step.host_ops == ("sparse_softmax_cross_entropy", "softmax")
    assert lanes_through_a_worker.running() and lanes_through_a_worker.deaths == 0


def test_the_worker_starts_for_an_object_to_compile_not_for_a_warm_build(empty_store,
                                                                          monkeypatch):
    """A build whose callees are all stored compiles only the step's own module (on the
    compile thread): a worker started for it would take the second core from the user's first
    calls while it imports llvmlite."""
    def build_on_fresh_lanes():
        lanes = code._CompileThread(worker=CompileWorker())
        monkeypatch.setattr(code, "_THREAD", lanes)
        try:
            assert compile_executable(parse_module(STEP), "f").step_fallback is None
            return lanes.worth_a_worker.is_set(), lanes.worker.running()
        finally:
            lanes.stop()
    assert build_on_fresh_lanes()[0]                      # cold: objects to compile
    assert build_on_fresh_lanes() == (False, False)       # warm: the store has them all


def test_a_compile_beginning_with_a_new_cache_starts_the_worker_at_once(empty_store, tmp_path,
                                                                        monkeypatch):
    """An empty object store: the build will compile every object, so the worker starts when
    the compile begins (beside the front end); with objects stored, native steps off or the
    interpreter backend, it waits for the first object the store lacks."""
    def soon_on_fresh_lanes():
        lanes = code._CompileThread(worker=CompileWorker())
        monkeypatch.setattr(code, "_THREAD", lanes)
        try:
            code.compiling_soon()
            started = lanes.worth_a_worker.is_set()
            if started:
                deadline = time.monotonic() + 60
                while not lanes.worker.running() and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert lanes.worker.running()
            return started
        finally:
            lanes.stop()
    assert soon_on_fresh_lanes()
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    assert not soon_on_fresh_lanes()
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    monkeypatch.setenv("GRAPHCELL_BACKEND", "interp")
    assert not soon_on_fresh_lanes()
    monkeypatch.delenv("GRAPHCELL_BACKEND")
    (tmp_path / "objects").mkdir()
    (tmp_path / "objects" / "an-object.o").write_bytes(b"")
    assert not soon_on_fresh_lanes()


@pytest.mark.parametrize("switch,cpus", [("0", {0, 1}), ("1", {0})], ids=["off", "one-core"])
def test_no_worker_when_switched_off_or_on_one_core(monkeypatch, switch, cpus):
    monkeypatch.setenv("GRAPHCELL_COMPILE_WORKER", switch)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: cpus)
    assert not worker.wanted()
    lanes = code._CompileThread()
    try:
        assert lanes.worker is None
        assert lanes.submit(lambda object_code: object_code).result() is code._in_process
    finally:
        lanes.stop()


def test_the_worker_is_wanted_by_default_on_two_cores(monkeypatch):
    monkeypatch.delenv("GRAPHCELL_COMPILE_WORKER", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert worker.wanted()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_does_not_hold_the_parents_pipes_to_its_worker(a_worker):
    import select
    assert a_worker.start()
    process = a_worker._process
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write, b"1" if process.stdin.closed and process.stdout.closed else b"0")
        finally:
            os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], 60)
    got = os.read(read, 1) if ready else b"no answer"
    os.waitpid(pid, 0)
    assert got == b"1"
    text = "define i32 @f() {\n  ret i32 7\n}\n"
    assert a_worker.object_code(text, host_target()) == codegen.object_code(text, host_target())
    assert not process.stdin.closed


@pytest.mark.parametrize("interpreter", ["/nonexistent/python", "/bin/true"],
                         ids=["no-interpreter", "exits-at-once"])
def test_a_worker_that_does_not_start_means_compiling_here(monkeypatch, interpreter):
    """Tried once: a worker that cannot run, or ends before it is ready, is not started again
    for every object."""
    if not os.path.exists("/bin/true") and interpreter == "/bin/true":
        pytest.skip("no /bin/true here")
    monkeypatch.setattr(worker.sys, "executable", interpreter)
    w = CompileWorker()
    assert not w.start()
    text = "define i32 @f() {\n  ret i32 7\n}\n"
    assert w.object_code(text, host_target()) == codegen.object_code(text, host_target())
    monkeypatch.undo()
    assert not w.start() and not w.running()


def test_the_longest_expected_call_goes_first_then_arrival_order_then_the_end():
    """The lanes take the longest waiting compile first (the two lanes end together), equal
    ones in the order they came, the end of the lanes after every call."""
    queue = code._Queue()
    short, long_, other_short, medium = (code._Call(None, (), True, s)
                                         for s in (0.01, 0.05, 0.01, 0.02))
    for call in (short, long_):
        queue.put(call)
    queue.put(code._STOP)
    for call in (other_short, medium):
        queue.put(call)
    assert [queue.get() for _ in range(5)] == [long_, medium, short, other_short, code._STOP]


def test_a_compiles_expected_time_grows_with_its_ir_and_its_pipeline():
    text = "define void @f() {\n  ret void\n}\n"
    assert codegen.expected_seconds(text * 2) > codegen.expected_seconds(text) > \
        codegen.expected_seconds(text, codegen.SHORT) > codegen.expected_seconds(text, False) > 0


def test_the_worker_lane_takes_only_what_it_can_compile_and_urgent_calls_go_first():
    """The pool's build (LLVM in this process) stays for the compile thread; the step's
    module, submitted last, is compiled first."""
    queue = code._Queue()
    pool, kernel, step = (code._Call(None, (), portable) for portable in (False, True, True))
    queue.put(pool)
    queue.put(kernel)
    queue.put(step, urgent=True)
    assert queue.get(portable_only=True) is step
    assert queue.get(portable_only=True) is kernel
    assert queue.get() is pool


def test_a_worker_whose_owner_is_gone_exits_quietly():
    """The owner ended before the worker was ready (a graph compile that failed in the
    frontend, the worker started beside it): no traceback on the user's terminal."""
    import subprocess
    import sys
    process = subprocess.Popen([sys.executable, "-m", worker.__name__], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=worker._environment())
    process.stdout.close()
    process.stdin.close()
    assert process.wait(60) == 0
    assert process.stderr.read() == b""

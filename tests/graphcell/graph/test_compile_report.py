"""The compile report (``set_context(compile_report=True)``): every phase of a graph-mode compile
with its time — frontend, autodiff, each pass, kernel generation, codegen (or numba) — the kernel cache
hits, and the progress line a long compile shows on a terminal."""
import io
import re
import time

import numpy as np
import pytest

import graphcell as ms
from graphcell import context, nn, ops
from graphcell_ir.backend import kernels, report


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.full(16, 0.5, np.float32)), name="w")

    def construct(self, x):
        return (ops.tanh(x * self.w) * 3.0 - x).sum()


class TTY(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def graph_mode(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    kernels.reset_cache()
    context.set_context(mode=context.GRAPH_MODE)
    yield
    context.set_context(mode=context.PYNATIVE_MODE, compile_report=False)


def _grad_call():
    x = ms.Tensor(np.linspace(-1, 1, 16).astype(np.float32))
    return ms.grad(Net())(x)


def test_report_lists_every_phase_and_the_cache_hits(graph_mode, capsys):
    context.set_context(compile_report=True)
    _grad_call()
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("[graphcell compile]")]
    names = [re.match(r"\[graphcell compile\] ([^:]+):", ln).group(1) for ln in lines]
    assert "frontend" in names and "autodiff" in names
    passes = [n for n in names if n.startswith("pass ")]
    assert "pass fuse" in passes and "pass cse" in passes
    assert any(n.startswith("lower @") for n in names)
    assert any(n.startswith("codegen") for n in names)   # graphcell's code generator
    summary = lines[-1]
    assert "compiled in" in summary
    for group in ("frontend", "autodiff", "passes", "kernel generation", "codegen", "first run"):
        assert group in summary, summary
    counts = re.search(r"kernels: (\d+) compiled, (\d+) from the disk cache, (\d+) from memory",
                       summary)
    assert counts and int(counts.group(1)) >= 1  # an empty cache directory: compiled


def test_report_times_numba_when_there_is_no_native_code(graph_mode, capsys, monkeypatch):
    from graphcell_ir.backend import objects
    monkeypatch.setattr(objects, "usable", lambda: "no native code in this test")
    context.set_context(compile_report=True)
    _grad_call()
    summary = capsys.readouterr().err.strip().splitlines()[-1]
    assert "numba" in summary and "codegen" not in summary, summary


def test_second_process_like_run_reports_disk_hits(graph_mode, capsys):
    _grad_call()                   # fills the disk cache
    kernels.reset_cache()          # forget the in-memory kernels, as a new process would
    context.set_context(compile_report=True)
    _grad_call()
    summary = capsys.readouterr().err.strip().splitlines()[-1]
    compiled, disk, _ = map(int, re.search(r"(\d+) compiled, (\d+) from the disk cache, "
                                           r"(\d+) from memory", summary).groups())
    assert compiled == 0 and disk >= 1, summary


def test_report_off_prints_nothing(graph_mode, capsys):
    _grad_call()
    assert "[graphcell compile]" not in capsys.readouterr().err


def test_progress_line_on_a_terminal(graph_mode, monkeypatch):
    tty = TTY()
    monkeypatch.setattr("sys.stderr", tty)
    monkeypatch.setattr(report, "PROGRESS_AFTER", 0.0)
    _grad_call()
    out = tty.getvalue()
    assert "\r[graphcell] compiling " in out
    assert out.endswith("\r\x1b[K")  # erased at the end: the terminal is left clean


def test_no_progress_line_without_a_terminal(graph_mode, monkeypatch):
    plain = io.StringIO()
    monkeypatch.setattr("sys.stderr", plain)
    monkeypatch.setattr(report, "PROGRESS_AFTER", 0.0)
    _grad_call()
    assert "\r" not in plain.getvalue()


def test_a_failed_compile_ends_its_session(graph_mode):
    class Bad(nn.Cell):
        def construct(self, x):
            return ops.matmul(x, x)  # f32[16] @ f32[16]: not a matrix product

    with pytest.raises(Exception):
        Bad()(ms.Tensor(np.ones((3, 4), np.float32)))
    assert report.active() is None


def test_timed_phases_exclude_the_phases_inside_them():
    s = report.begin("outer")
    try:
        with report.timed("frontend"):
            with report.timed("autodiff"):
                time.sleep(0.05)
        totals = s.totals()
    finally:
        s.end()
    assert totals["autodiff"] >= 0.05 and 0 <= totals["frontend"] < 0.05
    assert report.active() is None


def _finishes(fn, seconds=20.0) -> bool:
    """Whether ``fn()`` returns within ``seconds`` (run in a daemon thread: a hang fails)."""
    import threading
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    t.join(seconds)
    return not t.is_alive()


def test_sessions_suspended_and_resumed_out_of_order_never_loop():
    """Two compiles interleaved as two threads interleave them (A starts, B starts, A and B
    finish compiling, A runs first): the old shared chain of sessions became a loop and ending
    A spun forever (issue 22, defect 3)."""
    def interleaved():
        a = report.begin("a")
        b = report.begin("b")
        a.suspend()
        b.suspend()
        a.resume()
        a.end()
        b.resume()
        b.end()
    assert _finishes(interleaved)
    assert report.active() is None


def test_each_thread_reports_to_its_own_session():
    import threading
    sessions, barrier = {}, threading.Barrier(4)

    def compile_in_thread(k):
        s = report.begin(f"c{k}")
        barrier.wait()
        with report.timed(f"phase{k}"):
            pass
        s.suspend()
        barrier.wait()
        s.resume()
        report.phase(f"run{k}", 0.0)
        s.end()
        sessions[k] = (s, report.active())

    threads = [threading.Thread(target=compile_in_thread, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert not any(t.is_alive() for t in threads)
    for k, (s, after) in sessions.items():
        assert [name for name, _ in s.phases] == [f"phase{k}", f"run{k}"] and after is None

"""The thread tuner: it times calls under each candidate split count, keeps the faster, measures
again as the load changes, holds OpenBLAS on one thread during a call and always gives the
user's setting back."""
from __future__ import annotations

import time

import pytest

from graphcell_ir.backend import blas_threads as B


class FakeBlas:
    def __init__(self, n: int):
        self.n, self.history = n, []

    def set(self, n):
        self.n = n
        self.history.append(n)

    def get(self):
        return self.n


@pytest.fixture
def blas(monkeypatch):
    fake = FakeBlas(4)
    monkeypatch.setattr(B, "_API", (fake.set, fake.get))
    monkeypatch.delenv("GRAPHCELL_BLAS_THREADS", raising=False)
    monkeypatch.setenv("GRAPHCELL_KERNEL_THREADS", "4")   # the CPUs, as the tuner sees them
    return fake


def _work(fake, slow_with: int):
    def run():
        assert fake.n == 1   # OpenBLAS single-threaded inside
        time.sleep(0.004 if B.split_threads() == slow_with else 0.0005)
        return B.split_threads()
    return run


@pytest.mark.parametrize("slow_with,best", [(4, 1), (1, 4)])
def test_keeps_the_faster_count_and_restores_the_users(blas, slow_with, best):
    t = B.Tuner()
    assert t.candidates == (1, 4)
    seen = [t(_work(blas, slow_with)) for _ in range(1 + B.WARMUP + 2 * B.PROBES + 5)]
    assert t.choice == best and seen[-5:] == [best] * 5
    assert blas.n == 4  # the user's count is back after every call


def test_measures_again_after_retune_calls(blas, monkeypatch):
    monkeypatch.setattr(B, "RETUNE", 20)
    t = B.Tuner()
    for _ in range(19):
        t(_work(blas, slow_with=4))
    assert t.choice == 1
    for _ in range(1 + 2 * B.PROBES):  # the load changed: 1 thread is now the slow one
        t(_work(blas, slow_with=1))
    assert t.choice == 4


def test_nested_calls_run_under_the_outer_choice(blas):
    outer, inner = B.Tuner(), B.Tuner()
    assert outer(lambda: inner(B.split_threads)) == outer.choice == 4  # the outer's count
    assert inner.calls == 0 and blas.history == [1, 4]  # the inner one set and timed nothing
    assert B.split_threads() == 4   # outside a call: the CPUs


@pytest.mark.parametrize("setting,want,outside", [("0", (), None), ("3", (3,), 3)])
def test_environment_setting(blas, monkeypatch, setting, want, outside):
    monkeypatch.setenv("GRAPHCELL_BLAS_THREADS", setting)
    t = B.Tuner()
    assert t.candidates == want and B.split_threads() == outside
    t(lambda: None)
    assert blas.history == ([] if setting == "0" else [1, 4])   # 0: BLAS left alone


@pytest.mark.parametrize("times,default,want", [
    ({1: [1.0] * 5, 2: [1.0] * 5}, 2, 2),                   # a tie keeps the split
    ({1: [0.95] * 5, 2: [1.0] * 5}, 2, 2),                  # 5% better: within the margin
    ({1: [0.85] * 5, 2: [1.0] * 5}, 2, 1),                  # 15% better: the split is off
    ({1: [0.5, 0.5, 9.0, 9.0, 0.5], 2: [1.0] * 5}, 2, 1),   # the median, not the mean
    ({1: [0.5, 9.0, 9.0, 9.0, 0.5], 2: [1.0] * 5}, 2, 2),   # two fast probes of five: no
    ({1: [5.2] * 5, 2: [3.3] * 5}, 2, 2),                   # idle: the split wins
    ({1: [1.0] * 5, 2: [0.5] * 5, 4: [0.3] * 5}, 4, 4),     # the default is the fastest
    ({1: [0.2] * 5, 2: [0.5] * 5, 4: [1.0] * 5}, 4, 1),     # the fastest of those that beat it
    ({1: [0.5] * 5}, 1, 1),                                  # one candidate
])
def test_decide_keeps_the_split_unless_one_thread_is_clearly_faster(times, default, want):
    assert B.decide(times, default) == want


def test_an_idle_machines_noise_never_settles_on_one_thread(blas):
    """Probes of a product twice as fast split, with one stalled split call among them (an
    interrupt on an idle machine): the choice stays on the split."""
    stalls = iter([False] * 8 + [True] + [False] * 100)

    def run():
        time.sleep(0.004 if B.split_threads() == 1 else 0.002)
        if B.split_threads() == 4 and next(stalls):
            time.sleep(0.02)
    t = B.Tuner()
    for _ in range(1 + B.WARMUP + 2 * B.PROBES):
        t(run)
    assert t.choice == 4


def test_one_cpu_means_no_split(blas, monkeypatch):
    monkeypatch.setenv("GRAPHCELL_KERNEL_THREADS", "1")
    t = B.Tuner()
    assert t.candidates == (1,) and t(B.split_threads) == 1


def test_without_openblas_the_split_is_still_tuned(monkeypatch):
    monkeypatch.setattr(B, "_API", None)
    monkeypatch.setenv("GRAPHCELL_KERNEL_THREADS", "2")
    monkeypatch.delenv("GRAPHCELL_BLAS_THREADS", raising=False)
    t = B.Tuner()
    assert t.candidates == (1, 2) and t(lambda: 7) == 7
    assert B.single(lambda: 8) == 8


@pytest.mark.parametrize("xs", [[3.0], [5.0, 1.0, 4.0], [2.0, 9.0, 1.0, 7.0],
                                [4.0, 4.0, 1.0, 8.0, 0.5]])
def test_the_tuners_median_is_numpys(xs):
    import numpy as np
    assert B._median(xs) == float(np.median(xs))

"""Fixtures shared by the backend's tests."""
import pytest

from graphcell_ir.backend import lower
from graphcell_ir.backend.native import pool as P


@pytest.fixture
def pool(monkeypatch, tmp_path):
    """The native kernel pool, started and held at 2 threads (an empty kernel cache)."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    p = P.started()
    before = p.limit(2)
    yield p
    p.limit(before)


@pytest.fixture
def every_call_parallel(monkeypatch, pool):
    """Every kernel parallel and the pool splitting every call, on 2 threads."""
    monkeypatch.setattr(lower, "PARALLEL_MIN", 1)
    monkeypatch.setattr(lower, "PARALLEL_MIN_TILED", 1)
    old = pool.state[P._MIN_WORK]
    pool.state[P._MIN_WORK] = 0
    yield pool
    pool.state[P._MIN_WORK] = old

"""Fixtures shared by the backend's tests."""
import pytest

from graphcell_ir.backend.native import pool as P


@pytest.fixture
def pool(monkeypatch, tmp_path):
    """The native kernel pool, started and held at 2 threads (an empty kernel cache)."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    p = P.started()
    before = p.limit(2)
    yield p
    p.limit(before)

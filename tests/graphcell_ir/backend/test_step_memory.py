"""The native step's buffers (step/memory.py): from numpy's huge-page threshold on, mappings of
their own that never ask for huge pages; below it, numpy's arrays; their pages faulted in at the
build (``fault_in``), not at the first call."""
from __future__ import annotations

import ctypes
import mmap
import sys

import numpy as np
import pytest

from graphcell_ir.backend.interp import interpret
from graphcell_ir.backend.step import emit, memory
from graphcell_ir.text import parse_module


def _owner(a: np.ndarray):
    """What holds ``a``'s memory: None when numpy allocated it."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a.base.obj if isinstance(a.base, memoryview) else a.base


def test_a_buffer_from_the_threshold_is_a_private_mapping_and_a_smaller_one_numpys():
    n = memory.HUGE_PAGE_REQUEST // 4
    big = memory.empty((n // 256, 256), np.float32)
    assert isinstance(_owner(big), mmap.mmap)
    assert big.flags.c_contiguous and big.flags.writeable and big.ctypes.data % mmap.PAGESIZE == 0
    big[...] = 1.5
    assert float(big.sum()) == 1.5 * n
    small = memory.empty((n - 1,), np.float32)
    assert _owner(small) is None and small.flags.owndata


LARGE_INTERMEDIATE = """
func @f(%x: f32[2048, 1024]) -> f32[1024] {
  %e = exp(%x) : f32[2048, 1024]
  %t = transpose(%e) {perm = [1, 0]} : f32[1024, 2048]
  %s = reduce_sum(%t) {axis = [1], keep_dims = false} : f32[1024]
  return %s
}
"""


def test_a_step_keeps_its_large_buffers_in_mappings_and_computes_the_same(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    fn = parse_module(LARGE_INTERMEDIATE)["f"]
    step = emit.build(fn)
    large = [a for a in step.keep if isinstance(a, np.ndarray) and a.nbytes >= 8 << 20]
    assert large and all(isinstance(_owner(a), mmap.mmap) for a in large)
    x = np.linspace(-1, 1, 2048 * 1024, dtype=np.float32).reshape(2048, 1024)
    (got,) = step([x])
    want = interpret(fn, x)
    np.testing.assert_allclose(got, want[0] if isinstance(want, (list, tuple)) else want,
                               rtol=1e-5)


def _resident_fraction(a: np.ndarray) -> float:
    """The fraction of the whole pages inside ``a`` that are in memory (``mincore``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    page = mmap.PAGESIZE
    start = -(-a.ctypes.data // page) * page
    end = (a.ctypes.data + a.nbytes) // page * page
    flags = np.zeros((end - start) // page, np.uint8)
    assert libc.mincore(start, end - start, flags.ctypes.data) == 0, ctypes.get_errno()
    return float((flags & 1).mean())


def _populate_supported() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    probe = mmap.mmap(-1, mmap.PAGESIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    address = np.frombuffer(probe, np.uint8).ctypes.data
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return libc.madvise(address, mmap.PAGESIZE, memory.MADV_POPULATE_WRITE) == 0


populating = pytest.mark.skipif(not _populate_supported(),
                                reason="the kernel lacks madvise(MADV_POPULATE_WRITE) (Linux 5.14)")


@populating
def test_fault_in_maps_its_own_buffers_pages_and_keeps_every_arrays_bytes():
    fresh = memory.empty((3 << 20,), np.float32)    # 12 MB, never written
    assert _resident_fraction(fresh) < 0.5
    written = memory.empty((2 << 20,), np.float32)
    written[...] = np.arange(written.size, dtype=np.float32)
    numpys = np.arange(1 << 20, dtype=np.float64)   # not empty()'s: skipped
    memory.fault_in([fresh[1:], written, numpys, "not an array", None])
    assert _resident_fraction(fresh[1024:]) == 1.0
    np.testing.assert_array_equal(written, np.arange(written.size, dtype=np.float32))
    np.testing.assert_array_equal(numpys, np.arange(1 << 20, dtype=np.float64))


@populating
def test_a_step_build_faults_its_buffers_in_on_a_thread_of_its_own(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    started, start = [], memory.fault_in_soon
    monkeypatch.setattr(memory, "fault_in_soon", lambda arrays: started.append(start(arrays))
                        or started[-1])
    fn = parse_module(LARGE_INTERMEDIATE)["f"]
    step = emit.build(fn)
    assert len(started) == 1 and started[0].daemon
    started[0].join()
    large = [a for a in step.keep if isinstance(a, np.ndarray) and a.nbytes >= 8 << 20]
    assert large and all(_resident_fraction(a) == 1.0 for a in large)

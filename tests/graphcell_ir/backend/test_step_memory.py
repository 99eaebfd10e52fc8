"""The native step's buffers (step/memory.py): from numpy's huge-page threshold on, mappings of
their own that never ask for huge pages; below it, numpy's arrays."""
from __future__ import annotations

import mmap

import numpy as np

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

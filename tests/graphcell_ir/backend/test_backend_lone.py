"""Lone elementwise ops (no fused group) whose kernel beats numpy run as one-op kernels; broadcast
operands of fused groups are read by index, not materialised; an ``assign`` of a kernel's new
buffer takes it without a copy. Each against the reference interpreter."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.backend.executable import LONE_MIN_SIZE, compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.text import parse_module


def _run(text: str, *args, jit: bool = True):
    m = parse_module(text)
    exe = compile_executable(m, "f", jit=jit, kernel_min_size=0)
    got = exe(list(args))
    want = interpret(m, *args)
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-6, equal_nan=True)
    return exe


@pytest.mark.parametrize("op,jit", [("relu", True), ("sqrt", True), ("sigmoid", False),
                                    ("erf", False)])
def test_lone_op_is_a_kernel_when_big(op, jit):
    n = LONE_MIN_SIZE
    x = np.linspace(-3, 3, n).astype(np.float32)
    x[:3] = [np.nan, np.inf, -0.0]
    text = f"func @f(%x: f32[{n}]) -> f32[{n}] {{\n  %0 = {op}(%x) : f32[{n}]\n  return %0\n}}\n"
    exe = _run(text, x, jit=jit)
    assert len(exe.kernels) == 1 and f"# {op} (kernel" in exe.source


def test_small_or_unlisted_lone_ops_keep_numpy(monkeypatch):
    # without a native step (with one, the runner calls the step's kernels: test_native_step)
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    small = "func @f(%x: f32[8]) -> f32[8] {\n  %0 = relu(%x) : f32[8]\n  return %0\n}\n"
    assert not _run(small, np.arange(8, dtype=np.float32) - 4).kernels
    n = LONE_MIN_SIZE
    exp = f"func @f(%x: f32[{n}]) -> f32[{n}] {{\n  %0 = exp(%x) : f32[{n}]\n  return %0\n}}\n"
    assert not _run(exp, np.zeros(n, np.float32)).kernels


BROADCAST = """func @f(%x: f32[64,32], %b: f32[32]) -> f32[64,32] {
  %0 = broadcast_to(%b) {shape=[64,32]} : f32[64,32]
  %1 = fused(%x, %0) : f32[64,32] body(%a: f32[64,32], %c: f32[64,32]) {
    %2 = mul(%a, %c) : f32[64,32]
    %3 = add(%2, 1.0:f32) : f32[64,32]
    yield %3
  }
  return %1
}
"""


@pytest.mark.parametrize("jit", [False, True])
def test_a_broadcast_feeding_a_kernel_is_not_materialised(jit):
    rng = np.random.default_rng(0)
    exe = _run(BROADCAST, rng.standard_normal((64, 32)).astype(np.float32),
               rng.standard_normal(32).astype(np.float32), jit=jit)
    assert "broadcast_to" not in exe.source and len(exe.kernels) == 1
    assert exe.kernels[0].shapes[1] == (1, 32)  # the kernel reads the [32] input by index


def test_a_broadcast_is_materialised_when_its_group_falls_back():
    m = parse_module(BROADCAST)
    exe = compile_executable(m, "f", jit=False, kernel_min_size=10**9)  # every group falls back
    assert "broadcast_to" in exe.source and not exe.kernels
    x, b = np.ones((64, 32), np.float32), np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(exe([x, b])[0], interpret(m, x, b))


ASSIGN = """func @f(%w: f32[256], %g: f32[256]) -> f32[256], f32[256] {
  %0 = fused(%w, %g) : f32[256] body(%a: f32[256], %c: f32[256]) {
    %1 = mul(%c, 0.5:f32) : f32[256]
    %2 = sub(%a, %1) : f32[256]
    yield %2
  }
  %3 = assign(%w, %0) : f32[256]
  return %3, %g
}
"""


def test_assign_takes_a_kernel_buffer_without_copying():
    w, g = np.ones(256, np.float32), np.arange(256, dtype=np.float32)
    exe = _run(ASSIGN, w, g, jit=False)
    assert "assign (the kernel's new buffer)" in exe.source
    new, _ = exe([w, g])
    assert new is not w and w[0] == 1  # a new array; w itself untouched

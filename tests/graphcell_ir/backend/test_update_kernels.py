"""Optimizer updates fused into one kernel per parameter (``passes/fuse.py``: an assign is a
deferred write) against the reference interpreter: SGD with a momentum tensor (MindSpore's
``ops.SGD``: the stat of its first step, Nesterov, weight decay) and Adam, at sizes that run on
the kernel pool, on the Python runner and in the native step, over several steps with the new
values fed back."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.passes import run_pipeline
from graphcell_ir.text import parse_module

pytestmark = pytest.mark.skipif(
    not __import__("graphcell_ir.backend.codegen", fromlist=["available"]).available(),
    reason="this llvmlite cannot run the code generator")

N = 1024 * 1024   # a 1024x1024 weight: the update kernel is parallel (>= MIN_WORK)

SGD = """
func @sgd(%w: f32[1024,1024] param, %acc: f32[1024,1024] param, %stat: f32[1024,1024] param, %g: f32[1024,1024], %lr: f32[] param, %u: f32[] param) -> f32[1024,1024], f32[1024,1024], f32[1024,1024] {
  %wd = mul(%w, 0.01:f32) : f32[1024,1024]
  %gd = add(%g, %wd) : f32[1024,1024]
  %first = greater(%stat, 0.0:f32) : bool[1024,1024]
  %0 = mul(%acc, %u) : f32[1024,1024]
  %1 = mul(%gd, 0.9:f32) : f32[1024,1024]
  %2 = add(%0, %1) : f32[1024,1024]
  %v = select(%first, %gd, %2) : f32[1024,1024]
  %3 = mul(%v, %u) : f32[1024,1024]
  %nest = add(%gd, %3) : f32[1024,1024]
  %moving = greater(%u, 0.0:f32) : bool[]
  %v1 = select(%moving, %v, %acc) : f32[1024,1024]
  %4 = logical_and(%moving, %first) : bool[1024,1024]
  %z = fill() {dtype=f32, shape=[1024,1024], value=0} : f32[1024,1024]
  %s1 = select(%4, %z, %stat) : f32[1024,1024]
  %stat_1 = assign(%stat, %s1) : f32[1024,1024]
  %step = select(%moving, %nest, %gd) : f32[1024,1024]
  %acc_1 = assign(%acc, %v1) : f32[1024,1024]
  %5 = mul(%step, %lr) : f32[1024,1024]
  %6 = sub(%w, %5) : f32[1024,1024]
  %w_1 = assign(%w, %6) : f32[1024,1024]
  return %w_1, %acc_1, %stat_1
}
"""

ADAM = """
func @adam(%w: f32[1024,1024] param, %m: f32[1024,1024] param, %v: f32[1024,1024] param, %g: f32[1024,1024], %p1: f32[] param, %p2: f32[] param, %lr: f32[] param) -> f32[1024,1024], f32[1024,1024], f32[1024,1024], f32[], f32[] {
  %0 = mul(%p1, 0.9:f32) : f32[]
  %p1_1 = assign(%p1, %0) : f32[]
  %1 = mul(%p2, 0.999:f32) : f32[]
  %p2_1 = assign(%p2, %1) : f32[]
  %2 = sub(1.0:f32, %p2_1) : f32[]
  %3 = sqrt(%2) : f32[]
  %4 = mul(%lr, %3) : f32[]
  %5 = sub(1.0:f32, %p1_1) : f32[]
  %rate = div(%4, %5) : f32[]
  %6 = mul(%m, 0.9:f32) : f32[1024,1024]
  %7 = mul(%g, 0.1:f32) : f32[1024,1024]
  %8 = add(%6, %7) : f32[1024,1024]
  %m_1 = assign(%m, %8) : f32[1024,1024]
  %9 = mul(%v, 0.999:f32) : f32[1024,1024]
  %10 = square(%g) : f32[1024,1024]
  %11 = mul(%10, 0.001:f32) : f32[1024,1024]
  %12 = add(%9, %11) : f32[1024,1024]
  %v_1 = assign(%v, %12) : f32[1024,1024]
  %13 = mul(%m_1, %rate) : f32[1024,1024]
  %14 = sqrt(%v_1) : f32[1024,1024]
  %15 = add(%14, 1e-08:f32) : f32[1024,1024]
  %16 = div(%13, %15) : f32[1024,1024]
  %17 = sub(%w, %16) : f32[1024,1024]
  %w_1 = assign(%w, %17) : f32[1024,1024]
  return %w_1, %m_1, %v_1, %p1_1, %p2_1
}
"""


def _sgd_inputs(momentum: float):
    rng = np.random.default_rng(0)
    stat = np.ones(N, np.float32)
    stat[::3] = -1.0                  # MindSpore keeps a stat that is not positive
    return [rng.standard_normal((1024, 1024)).astype(np.float32),
            np.zeros((1024, 1024), np.float32), stat.reshape(1024, 1024),
            rng.standard_normal((1024, 1024)).astype(np.float32),
            np.array(0.01, np.float32), np.array(momentum, np.float32)]


def _adam_inputs():
    rng = np.random.default_rng(1)
    return [rng.standard_normal((1024, 1024)).astype(np.float32),
            np.zeros((1024, 1024), np.float32), np.zeros((1024, 1024), np.float32),
            rng.standard_normal((1024, 1024)).astype(np.float32),
            np.array(1.0, np.float32), np.array(1.0, np.float32),
            np.array(1e-3, np.float32)]


CASES = [("sgd", SGD, lambda: _sgd_inputs(0.9), {0: 0, 1: 1, 2: 2}),
         ("sgd", SGD, lambda: _sgd_inputs(0.0), {0: 0, 1: 1, 2: 2}),
         ("adam", ADAM, _adam_inputs, {0: 0, 1: 1, 2: 2, 3: 4, 4: 5})]


@pytest.mark.parametrize("native", [False, True], ids=["runner", "native_step"])
@pytest.mark.parametrize("name, text, inputs, feed", CASES, ids=["sgd", "sgd_no_momentum",
                                                                 "adam"])
def test_one_update_kernel_with_the_interpreters_results(monkeypatch, native, name, text,
                                                         inputs, feed):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1" if native else "0")
    module = parse_module(text)
    reference = parse_module(text)
    run_pipeline(module)
    kernels = [op for op in module[name].body if op.opdef is FUSED]
    assert len(kernels) == 1                  # the whole update, every state, one kernel
    exe = compile_executable(module, name)
    assert (getattr(exe.run, "step", None) is not None) == native, exe.step_fallback
    args, expect_args = inputs(), inputs()
    for _ in range(3):   # the new values go back in, as the write-back does
        got = exe(list(args))
        expect = interpret(reference[name], *expect_args)
        for g, e in zip(got, expect):
            np.testing.assert_allclose(g, e, rtol=2e-6, atol=1e-7)
            assert g.dtype == e.dtype and g.shape == e.shape
        for out, arg in feed.items():
            args[arg], expect_args[arg] = got[out], expect[out]

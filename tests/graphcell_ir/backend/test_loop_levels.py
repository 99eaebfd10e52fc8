"""Where a fused kernel computes each value (``lower._Lowering.run``): a load, op or store in
the loop of the innermost axis it depends on — batch norm's per-channel ``sqrt`` and division
once per channel, not per element —, several reductions of one domain in one loop nest
(``passes.fuse``), and an outlined ``prange`` loop's task given only the locals bound outside
the loop (``codegen.parallel``). Against the reference interpreter, serially and with the pool
splitting every call; the native step against the Python runner, bit for bit."""
from __future__ import annotations

import re

import numpy as np
import pytest

from graphcell_ir.backend import codegen
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.passes import run_pipeline
from graphcell_ir.text import parse_module

pytestmark = pytest.mark.skipif(not codegen.available(),
                                reason="this llvmlite cannot run the code generator")

X = "f32[4,6,5,7]"
C = "f32[1,6,1,1]"
BN_GRAD = f"""
func @f(%dy: {X}, %x: {X}, %v: {C}, %g: {C}) -> {X}, f32[6], f32[6], {C} {{
  %o, %s, %t, %k = fused(%dy, %x, %v, %g) : ({X}, f32[6], f32[6], {C}) body(%a: {X}, %b: {X},
      %c: {C}, %d: {C}) {{
    %e = add(%c, 1e-05:f32) : {C}
    %q = sqrt(%e) : {C}
    %r = div(1.0:f32, %q) : {C}
    %k1 = mul(%d, %r) : {C}
    %n = mul(%b, %r) : {X}
    %s1 = reduce_sum(%a) {{axis=[0,2,3], keep_dims=false}} : f32[6]
    %p = mul(%a, %n) : {X}
    %t1 = reduce_sum(%p) {{axis=[0,2,3], keep_dims=false}} : f32[6]
    %o1 = mul(%p, %k1) : {X}
    yield %o1, %s1, %t1, %k1
  }}
  return %o, %s, %t, %k
}}
"""


def _args(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((4, 6, 5, 7)).astype(np.float32),
            rng.standard_normal((4, 6, 5, 7)).astype(np.float32),
            rng.random((1, 6, 1, 1)).astype(np.float32),
            rng.standard_normal((1, 6, 1, 1)).astype(np.float32)]


def _check(module, exe, args):
    got = exe([a.copy() for a in args])
    want = interpret(module, *args)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        if w.ndim == 1:   # the sums: float64 accumulators against numpy's float32 sum
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
        else:             # float32 add/sqrt/div/mul, correctly rounded: the same bits
            np.testing.assert_array_equal(g, w)




@pytest.mark.parametrize("parallel", [False, True])
def test_per_channel_values_are_computed_in_the_channel_loop(request, parallel):
    if parallel:
        request.getfixturevalue("every_call_parallel")
    module = parse_module(BN_GRAD)
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    _check(module, exe, _args())
    (kernel,) = exe.kernels
    assert kernel.ks.parallel == parallel
    lines = kernel.ks.source.splitlines()
    fors = [i for i, line in enumerate(lines) if line.lstrip().startswith("for ")]
    inner, channel = fors[-1], fors[-2]
    depth = lambda i: len(lines[i]) - len(lines[i].lstrip())  # noqa: E731
    by_op = {re.search(r"# (\w+)$", line).group(1): i for i, line in enumerate(lines)
             if re.search(r"# (\w+)$", line)}
    for op in ("add", "sqrt", "div"):   # once per channel: in its loop, before the inner one
        assert channel < by_op[op] < inner and depth(by_op[op]) == depth(channel) + 4, op
    per_channel_store = next(i for i, line in enumerate(lines) if "out" in line
                             and "= v" in line and "[0, i1, 0]" in line)
    assert channel < per_channel_store < inner
    assert by_op["reduce_sum"] > inner   # the sums accumulate every element


def test_reductions_of_one_domain_share_a_kernel_with_the_runners_bits(monkeypatch):
    text = f"""
func @f(%dy: {X}, %x: {X}) -> f32[6], f32[6], f32[1,6,1,1], {X} {{
  %e = exp(%dy) : {X}
  %s = reduce_sum(%e) {{axis=[0,2,3], keep_dims=false}} : f32[6]
  %p = mul(%e, %x) : {X}
  %t = reduce_sum(%p) {{axis=[0,2,3], keep_dims=false}} : f32[6]
  %q = mul(%p, %x) : {X}
  %u = reduce_mean(%q) {{axis=[0,2,3], keep_dims=true}} : f32[1,6,1,1]
  %y = mul(%p, 2.0:f32) : {X}
  return %s, %t, %u, %y
}}
"""
    args = _args(1)[:2]
    results = []
    for native in ("1", "0"):
        monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", native)
        module = parse_module(text)
        run_pipeline(module)
        fused = [op for op in module["f"].body if op.opdef is FUSED]
        assert len(fused) == 1
        body = [o.opdef.name for o in fused[0].regions[0].block]
        assert sorted(n for n in body if n.startswith("reduce")) == \
            ["reduce_mean", "reduce_sum", "reduce_sum"], body
        exe = compile_executable(module, "f")
        assert (getattr(exe.run, "step", None) is not None) == (native == "1")
        results.append([np.asarray(r) for r in exe([a.copy() for a in args])])
        want = interpret(parse_module(text), *args)
        for g, w in zip(results[-1], want):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-5)
    for step, runner in zip(*results):
        np.testing.assert_array_equal(step, runner)


PARALLEL = """
import math
from numpy import float32
def kernel(x0, out0):
    k0 = float32(2)
    for i0 in prange(x0.shape[0]):
        for i1 in range(x0.shape[1]):
            x0_1 = x0[i0, i1]
            v2 = float32(x0_1 * k0)
            out0[i0, i1] = v2
"""


def test_an_outlined_loop_passes_only_the_locals_bound_before_it():
    kinds = [("array", "float32", 2), ("array", "float32", 2)]
    text = codegen.lower_module(PARALLEL, "kernel", kinds, "k", entry="pointers",
                                parallel=True, noalias=True)
    body = next(line for line in text.splitlines() if "prange.body\"(" in line
                and line.startswith("define"))
    # x0 and out0 (a pointer and two extents each), k0; then the start and the chunk's bounds.
    # Not the loop's own i0, i1, x0_1, v2.
    assert body.count("%\".") == 3 + 3 + 1 + 3, body


def test_an_outlined_loop_is_given_values_so_the_kernel_keeps_no_locals_in_memory():
    kinds = [("array", "float32", 2), ("array", "float32", 2)]
    text = codegen.optimized_ir(PARALLEL, "kernel", kinds, parallel=True, noalias=True)
    allocas = [line.strip() for line in text.splitlines() if " alloca " in line]
    # the context's 7 values and the loop's start, nothing else (no slot per local)
    assert len(allocas) == 1 and "[8 x ptr]" in allocas[0], allocas

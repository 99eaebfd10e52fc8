"""A fused group's outputs that do not span its domain are written once per element, not by
every iteration of a parallel loop (``lower._Lowering.run``): a one-element output (Adam's beta
powers, a ``momentum > 0`` flag) is loaded, computed and stored before the loop nest; an output
broadcast along the parallel axis is stored only at that axis's index 0. Against the reference
interpreter, with every kernel parallel and the pool splitting every call."""
from __future__ import annotations

import re

import numpy as np
import pytest

from graphcell_ir.backend import codegen, lower
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.text import parse_module

pytestmark = pytest.mark.skipif(not codegen.available(),
                                reason="this llvmlite cannot run the code generator")

ONE_ELEMENT = """
func @f(%p: f32[1], %w: f32[64,32], %g: f32[64,32]) -> f32[1], f32[64,32] {
  %0, %1 = fused(%p, %w, %g) : (f32[1], f32[64,32]) body(%a: f32[1], %x: f32[64,32], %y: f32[64,32]) {
    %2 = mul(%a, 0.9:f32) : f32[1]
    %3 = sub(1.0:f32, %2) : f32[1]
    %4 = sqrt(%3) : f32[1]
    %5 = mul(%y, %4) : f32[64,32]
    %6 = sub(%x, %5) : f32[64,32]
    yield %2, %6
  }
  return %0, %1
}
"""

BROADCAST_ROW = """
func @f(%p: f32[1], %w: f32[64,32], %b: f32[1,32]) -> f32[1], f32[64,32], f32[1,32] {
  %0, %1, %2 = fused(%p, %w, %b) : (f32[1], f32[64,32], f32[1,32]) body(%a: f32[1], %x: f32[64,32], %c: f32[1,32]) {
    %3 = mul(%a, 0.9:f32) : f32[1]
    %4 = add(%c, %3) : f32[1,32]
    %5 = mul(%x, %3) : f32[64,32]
    %6 = sub(%5, %4) : f32[64,32]
    yield %3, %6, %4
  }
  return %0, %1, %2
}
"""


def _source(exe) -> list[str]:
    (kernel,) = exe.kernels
    assert kernel.ks.parallel
    return kernel.ks.source.splitlines()


def _run(text: str, args):
    module = parse_module(text)
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    got = exe([a.copy() for a in args])
    want = interpret(module, *args)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)   # float32 mul/sub/sqrt: correctly rounded
    return exe


def _parallel_source(text: str, p: float, third: tuple, seed: int) -> tuple[list[str], int]:
    """Run ``text``'s function on ``[p]``, a (64, 32) weight and a ``third`` operand against the
    interpreter; its kernel's source lines and the index of its ``prange`` line."""
    rng = np.random.default_rng(seed)
    args = [np.array([p], np.float32), rng.standard_normal((64, 32)).astype(np.float32),
            rng.standard_normal(third).astype(np.float32)]
    lines = _source(_run(text, args))
    return lines, next(i for i, line in enumerate(lines) if "prange(" in line)


def test_a_one_element_output_is_computed_and_stored_before_the_parallel_loop(
        every_call_parallel):
    lines, loop = _parallel_source(ONE_ELEMENT, 0.81, (64, 32), seed=0)
    before, inside = lines[:loop], lines[loop + 1:]
    # its load, its arithmetic and its store: once, at the function's top level
    assert any(re.fullmatch(r"    out0\[0(, 0)*\] = v\d+", line) for line in before)
    assert any(line.startswith("    x0_1 = x0[0]") for line in before)
    assert any("math.sqrt" in line for line in before)
    assert not any("out0" in line or "x0[" in line or "math.sqrt" in line for line in inside)
    assert any(line.strip().startswith("out1[i0] = ") for line in inside)


def test_an_output_broadcast_along_the_parallel_axis_is_stored_at_its_index_0(
        every_call_parallel):
    lines, loop = _parallel_source(BROADCAST_ROW, 0.5, (1, 32), seed=1)
    assert "for i0 in prange(" in lines[loop]          # the parallel axis: the rows
    guard = next(i for i, line in enumerate(lines) if "out2[" in line)
    assert lines[guard - 1].strip() == "if i0 == 0:" and guard > loop
    assert any(re.fullmatch(r"    out0\[0(, 0)*\] = v\d+", line) for line in lines[:loop])


def test_a_one_element_domain_is_left_as_it_was():
    """One iteration writes each element once already: nothing moves out of the loop."""
    text = ONE_ELEMENT.replace("64,32", "1,1")
    module = parse_module(text)
    (op,) = [o for o in module["f"].body if o.opdef.name == "fused"]
    src = lower.lower_fused(op).source.splitlines()
    loop = next(i for i, line in enumerate(src) if line.lstrip().startswith("for "))
    assert not any("out0" in line or "x0[" in line for line in src[1:loop])


TILED = """
func @f(%x: f32[16,24], %c: f32[16,1]) -> f32[24], f32[16,1] {
  %0, %1 = fused(%x, %c) : (f32[24], f32[16,1]) body(%a: f32[16,24], %b: f32[16,1]) {
    %2 = mul(%a, %b) : f32[16,24]
    %3 = reduce_sum(%2) {axis=[0], keep_dims=false} : f32[24]
    %4 = mul(%b, 2.0:f32) : f32[16,1]
    yield %3, %4
  }
  return %0, %1
}
"""


def test_a_column_next_to_a_bias_gradient_in_tiles_is_stored_by_the_first_tile(
        monkeypatch, every_call_parallel):
    """The parallel axis is the columns, in tiles (a reduction over the rows): the (16, 1)
    output is stored at column 0 only, by the thread running the first tile."""
    monkeypatch.setattr(lower, "TILE", 3)
    rng = np.random.default_rng(2)
    args = [rng.standard_normal((16, 24)).astype(np.float32),
            rng.standard_normal((16, 1)).astype(np.float32)]
    module = parse_module(TILED)
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    got, want = exe([a.copy() for a in args]), interpret(module, *args)
    np.testing.assert_allclose(got[0], want[0], rtol=2e-6, atol=1e-5)   # a float64 sum
    np.testing.assert_array_equal(got[1], want[1])
    lines = _source(exe)
    assert any("for t1 in prange(" in line for line in lines)
    store = next(i for i, line in enumerate(lines) if "out1[" in line)
    assert lines[store - 1].strip() == "if i1 == 0:"


ONE_ELEMENT_UNDER_A_UNIT_AXIS = """
func @f(%s: f32[1,1,1], %g: f32[1,5,7], %c: f32[1,1,7]) -> f32[1,5,7] {
  %0 = fused(%s, %g, %c) : (f32[1,5,7]) body(%a: f32[1,1,1], %y: f32[1,5,7], %b: f32[1,1,7]) {
    %1 = mul(%a, %y) : f32[1,5,7]
    %2 = mul(%1, %b) : f32[1,5,7]
    yield %2
  }
  return %0
}
"""


def test_a_one_element_value_under_a_unit_axis_of_the_domain_is_read_at_index_0(
        every_call_parallel):
    """The domain's first axis has extent 1, so the loop nest indexes the one-element operand
    along it with that loop's variable; read before the loops it must be index 0 (the loop
    variable does not exist yet: an interpolate gradient read garbage and gave zeros)."""
    rng = np.random.default_rng(3)
    args = [np.array([[[1.5]]], np.float32), rng.standard_normal((1, 5, 7)).astype(np.float32),
            rng.standard_normal((1, 1, 7)).astype(np.float32)]
    module = parse_module(ONE_ELEMENT_UNDER_A_UNIT_AXIS)
    exe = compile_executable(module, "f", jit=True, kernel_min_size=0)
    (got,) = exe([a.copy() for a in args])
    np.testing.assert_array_equal(got, interpret(module, *args))   # one result: the array
    (op,) = [o for o in module["f"].body if o.opdef.name == "fused"]
    src = lower.lower_fused(op).source.splitlines()
    loop = next(i for i, line in enumerate(src) if line.lstrip().startswith("for "))
    assert any(line.strip().startswith("x0_1 = x0[") for line in src[1:loop])
    assert not any(re.search(r"\bi\d+\b", line) for line in src[1:loop])

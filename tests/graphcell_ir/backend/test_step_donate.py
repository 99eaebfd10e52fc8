"""Updates written into donated arguments (``backend/step/donate.py``, ``emit.build(donated=)``):
which updates may be written in place, the bits of a step that does so (the same as a step
writing fresh arrays), and the calls it declines (an argument overlapping another, a read-only
one), and a host op after an update (the update then goes to a fresh array)."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.backend.step.donate import updates_in_place
from graphcell_ir.backend.step.emit import _view_of
from graphcell_ir.passes import run_pipeline
from graphcell_ir.text import parse_module

from test_native_step import STEP, _inputs

pytestmark = pytest.mark.skipif(
    not __import__("graphcell_ir.backend.codegen", fromlist=["available"]).available(),
    reason="this llvmlite cannot run the code generator")


def _fn(text: str):
    return parse_module(text)["f"]


def _in_place(text: str, *names, after=-1):
    fn = _fn(text)
    donated = {a for a in fn.args if a.name_hint in names}
    return sorted(v.name_hint for v in updates_in_place(fn, donated, after=after,
                                                        views=_view_of))


UPDATE = """
func @f(%p: f32[4], %g: f32[4]) -> f32[4] {
  %v = sub(%p, %g) : f32[4]
  %r = assign(%p, %v) : f32[4]
  return %r
}"""


def test_an_elementwise_update_of_a_donated_argument_is_in_place():
    assert _in_place(UPDATE, "p") == ["r", "v"]
    assert _in_place(UPDATE) == []                  # not donated: a fresh array
    assert _in_place(UPDATE, "p", after=0) == []    # an op that may decline comes at or after it


@pytest.mark.parametrize("text", [
    # the old value is read after the update's kernel
    """func @f(%p: f32[4], %g: f32[4]) -> f32[4], f32[4] {
  %v = sub(%p, %g) : f32[4]
  %q = mul(%p, 2.0:f32) : f32[4]
  %r = assign(%p, %v) : f32[4]
  return %r, %q
}""",
    # ... through a view of it
    """func @f(%p: f32[4], %g: f32[4]) -> f32[4], f32[2,2] {
  %s = reshape(%p) {shape=[2,2]} : f32[2,2]
  %v = sub(%p, %g) : f32[4]
  %q = neg(%s) : f32[2,2]
  %r = assign(%p, %v) : f32[4]
  return %r, %q
}""",
    # the old value is returned
    """func @f(%p: f32[4], %g: f32[4]) -> f32[4], f32[4] {
  %v = sub(%p, %g) : f32[4]
  %r = assign(%p, %v) : f32[4]
  return %r, %p
}""",
    # not an elementwise map: a product reads every element of the old value
    """func @f(%p: f32[4,4], %g: f32[4,4]) -> f32[4,4] {
  %v = matmul(%g, %p) : f32[4,4]
  %r = assign(%p, %v) : f32[4,4]
  return %r
}""",
    # two updates of one variable
    """func @f(%p: f32[4], %g: f32[4]) -> f32[4] {
  %v = sub(%p, %g) : f32[4]
  %r = assign(%p, %v) : f32[4]
  %w = sub(%r, %g) : f32[4]
  %s = assign(%p, %w) : f32[4]
  return %s
}""",
])
def test_updates_that_cannot_be_in_place_get_fresh_arrays(text):
    assert _in_place(text, "p") == []


def _fused_in_place(text: str) -> list:
    module = parse_module(text)
    run_pipeline(module)
    fn = module["f"]
    assert any(op.opdef.name == "fused" for op in fn.body)
    return sorted(v.name_hint for v in updates_in_place(fn, {fn.args[0]}, views=_view_of))


def test_a_fused_update_is_in_place_when_it_reads_the_old_value_at_its_own_index():
    assert _fused_in_place("""func @f(%p: f32[4], %g: f32[4], %lr: f32[]) -> f32[4] {
  %s = mul(%g, %lr) : f32[4]
  %v = sub(%p, %s) : f32[4]
  %r = assign(%p, %v) : f32[4]
  return %r
}""") == ["r", "v"]
    # the group reads the old value, but the new one does not depend on that read: the
    # kernel's noalias would let LLVM load it after the store
    assert _fused_in_place("""func @f(%p: f32[4], %g: f32[4]) -> f32[4], f32[4] {
  %v = neg(%g) : f32[4]
  %a = mul(%p, %v) : f32[4]
  %r = assign(%p, %v) : f32[4]
  return %r, %a
}""") == []
    # a one-element update in a group over [4]: it would be written at every index
    assert _fused_in_place("""func @f(%p: f32[1], %g: f32[4]) -> f32[1], f32[4] {
  %s = add(%p, 1.0:f32) : f32[1]
  %t = mul(%g, %s) : f32[4]
  %r = assign(%p, %s) : f32[1]
  return %r, %t
}""") == []


def _pair(monkeypatch, text, name, donated):
    """The executable with ``donated`` and the one without (fresh arrays)."""
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    modules = [parse_module(text), parse_module(text)]
    for m in modules:
        run_pipeline(m)
    return (modules[0], compile_executable(modules[0], name, donated=donated),
            compile_executable(modules[1], name))


def test_a_train_step_updates_its_donated_arguments_in_place_with_the_same_bits(monkeypatch):
    module, exe, fresh = _pair(monkeypatch, STEP, "step", donated=(2, 3))
    assert exe.step_fallback is None
    args, args_fresh = _inputs(), _inputs()
    for _ in range(4):
        w, b = args[2], args[3]
        got, expect = exe(args), fresh(args_fresh)
        assert got[1] is w and got[2] is b          # the new values are the arguments
        for g, e in zip(got, expect):
            np.testing.assert_array_equal(g, e)     # bit for bit
        args_fresh[2], args_fresh[3] = expect[1], expect[2]
    assert not np.shares_memory(got[0], args[2]) and not np.shares_memory(got[3], args[2])


def test_an_argument_overlapping_another_or_read_only_takes_the_runners_path(monkeypatch):
    module, exe, _ = _pair(monkeypatch, STEP, "step", donated=(2, 3))
    args = _inputs()
    shared = args[2].ravel().copy()
    overlapping = [args[0], args[1], shared.reshape(10, 16), shared[150:], args[4]]   # b: w's row
    read_only = [a.copy() for a in args]
    read_only[3].setflags(write=False)
    for case in (overlapping, read_only):
        before = [a.copy() for a in case]
        assert exe.run.step(case) is None           # declined before anything ran
        got = exe(case)                             # the runner: fresh arrays
        expect = interpret(module["step"], *before)
        for g, e in zip(got, expect):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
        for a, k in zip(case, before):
            np.testing.assert_array_equal(a, k)


HOST_AFTER = """
func @f(%p: f32[3,4], %g: f32[3,4]) -> f32[3,4], f32[3,4] {
  %v = sub(%p, %g) : f32[3,4]
  %r = assign(%p, %v) : f32[3,4]
  %e = exp(%g) : f32[3,4]
  %c = cumsum(%e) {axis=1, exclusive=false, reverse=false} : f32[3,4]
  return %r, %c
}"""


def test_an_update_before_a_host_op_goes_to_a_fresh_array(monkeypatch):
    # the host op may fail: the runner would rerun the call from an updated argument
    module, exe, fresh = _pair(monkeypatch, HOST_AFTER, "f", donated=(0,))
    assert exe.run.step.host_ops == ("cumsum",)
    p = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    g = np.full((3, 4), 0.25, np.float32)
    kept = p.copy()
    got = exe([p, g])
    assert got[0] is not p
    np.testing.assert_array_equal(p, kept)
    for a, e in zip(got, fresh([kept, g])):
        np.testing.assert_array_equal(a, e)


def test_a_one_element_update_in_a_larger_group_keeps_its_bits(monkeypatch):
    text = """
func @f(%p: f32[1], %g: f32[4]) -> f32[1], f32[4] {
  %s = add(%p, 1.0:f32) : f32[1]
  %t = mul(%g, %s) : f32[4]
  %r = assign(%p, %s) : f32[1]
  return %r, %t
}"""
    module, exe, fresh = _pair(monkeypatch, text, "f", donated=(0,))
    p, g = np.array([2.0], np.float32), np.arange(4, dtype=np.float32)
    got, expect = exe([p.copy(), g]), fresh([p.copy(), g])
    for a, e in zip(got, expect):
        np.testing.assert_array_equal(a, e)
    np.testing.assert_array_equal(got[0], [3.0])

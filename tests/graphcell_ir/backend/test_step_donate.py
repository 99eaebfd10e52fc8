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


SGD_LIKE = """
func @f(%p: f32[512,512], %accum: f32[512,512], %g: f32[512,512],
        %m: f32[], %lr: f32[]) -> f32[512,512], f32[512,512] {
  %on = greater(%m, 0.0:f32) : bool[]
  %a1 = mul(%accum, %m) : f32[512,512]
  %a2 = add(%a1, %g) : f32[512,512]
  %a = select(%on, %a2, %accum) : f32[512,512]
  %d = select(%on, %a2, %g) : f32[512,512]
  %s = mul(%d, %lr) : f32[512,512]
  %v = sub(%p, %s) : f32[512,512]
  %r1 = assign(%accum, %a) : f32[512,512]
  %r2 = assign(%p, %v) : f32[512,512]
  return %r1, %r2
}"""


def _vector_stores(ir_text: str) -> dict[str, int]:
    """Per function of optimised LLVM IR: its vector stores."""
    counts, name = {}, None
    for line in ir_text.splitlines():
        if line.startswith("define "):
            name = line.split("@")[1].split("(")[0]
            counts[name] = 0
        elif name is not None and line.strip().startswith("store <"):
            counts[name] += 1
    return counts


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_an_update_chosen_by_a_one_element_flag_streams_only_what_it_changes(monkeypatch,
                                                                             momentum):
    """SGD's shape: ``accum`` is updated only when ``momentum > 0``. In place, the step's
    kernel writes its loops once per value of the flag; at momentum 0 the accumulator is
    neither read nor written (its store of its own element folds away), and either way the
    bits are those of the step writing fresh arrays."""
    from graphcell_ir.backend import codegen
    from graphcell_ir.backend.native import abi
    from graphcell_ir.backend.step import emit
    lowered = []

    def recording(op, *args, **kwargs):
        ks = lower_fused(op, *args, **kwargs)
        lowered.append((kwargs.get("in_place"), ks))
        return ks
    lower_fused = emit.lower_fused
    monkeypatch.setattr(emit, "lower_fused", recording)
    module, exe, fresh = _pair(monkeypatch, SGD_LIKE, "f", donated=(0, 1))
    assert exe.step_fallback is None
    rng = np.random.default_rng(5)
    make = lambda: [rng.standard_normal((512, 512)).astype(np.float32) for _ in range(3)] + \
        [np.array(momentum, np.float32), np.array(0.1, np.float32)]  # noqa: E731
    args = make()
    args_fresh = [np.array(a) for a in args]
    for _ in range(3):
        p, accum = args[0], args[1]
        got, expect = exe(args), fresh(args_fresh)
        assert got[0] is accum and got[1] is p
        for a, e in zip(got, expect):
            np.testing.assert_array_equal(a, e)
        args_fresh[0], args_fresh[1] = expect[1], expect[0]
    (in_place, ks), = [(i, k) for i, k in lowered if i]
    assert "    if " in ks.source and "    else:" in ks.source
    kinds = [("array", d, len(s)) for d, s in abi.signature(ks, ks.in_dtypes)]
    stores = _vector_stores(codegen.optimized_ir(ks.module_text, "kernel", kinds,
                                                 parallel=ks.parallel, noalias=True))
    assert ks.parallel    # (512 x 512: a task per copy of the loops, read apart here)
    flag_on, flag_off = (n for f, n in stores.items() if f != "kernel")
    assert 0 < flag_off < flag_on   # momentum 0 stores the parameter only; momentum > 0 both

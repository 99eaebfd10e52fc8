"""Basic ``getitem`` and ``setitem`` run in the native step (``step/layout.indexing``):
strided copies into the step's own buffers, with the interpreter's values bit for bit, over
slices (steps, negative steps), integers, ``None`` and ``...``; a result of one element and a
broadcast value stay ops run in Python (``getitem``'s key is basic indexing only: gathers are
``take``)."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.backend.step.layout import basic_view
from graphcell_ir.ir import Builder, Function, TensorType
from graphcell_ir.ir.types import bool_, float32, float64, int32

pytestmark = pytest.mark.skipif(
    not __import__("graphcell_ir.backend.codegen", fromlist=["available"]).available(),
    reason="this llvmlite cannot run the code generator")

KEYS = [
    (Ellipsis, slice(256 // 64, 8)),
    (slice(1, 3), Ellipsis),
    (slice(None, None, 2), slice(1, None, 3), slice(None, None, -1)),
    (1, slice(None), slice(2, 6)),
    (None, slice(1, 4), 2),
    (slice(3, 0, -1), None, Ellipsis, 5),
]
DTYPES = {"f32": (float32, np.float32), "f64": (float64, np.float64), "i32": (int32, np.int32),
          "bool": (bool_, np.bool_)}


def _module(op: str, key, dtype):
    shape = (4, 5, 8)
    target = np.empty(shape)[key].shape
    fn = Function("f")
    x = fn.add_arg(TensorType(dtype, shape), "x")
    b = Builder.at_end(fn.body)
    y = b.op("neg", x) if dtype is not bool_ else b.op("logical_not", x)   # an arena buffer
    if op == "getitem":
        r = b.op("getitem", y, key=key)
    else:
        v = fn.add_arg(TensorType(dtype, target), "v")
        r = b.op("setitem", y, v, key=key)
    out = b.op("logical_not", r) if dtype is bool_ else b.op("neg", r)
    b.return_(out, r)
    from graphcell_ir.ir import Module
    m = Module()
    m.add(fn)
    return m, target


def _array(shape, np_dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10).astype(np_dtype) if np_dtype is not np.bool_ \
        else rng.random(shape) > 0.5


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("key", KEYS, ids=str)
@pytest.mark.parametrize("op", ["getitem", "setitem"])
def test_basic_indexing_runs_natively_with_the_interpreters_bits(monkeypatch, op, key, dtype):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    ir_dtype, np_dtype = DTYPES[dtype]
    module, target = _module(op, key, ir_dtype)
    exe = compile_executable(module, "f")
    assert exe.step_fallback is None and exe.run.step.host_ops == ()
    args = [_array((4, 5, 8), np_dtype, 0)] + ([_array(target, np_dtype, 1)]
                                                if op == "setitem" else [])
    for got, expect in zip(exe.run.step(args), interpret(module["f"], *args)):
        assert got.dtype == expect.dtype and got.shape == expect.shape
        np.testing.assert_array_equal(got, expect)


def test_one_element_and_a_broadcast_value_run_in_python(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    fn = Function("f")
    x = fn.add_arg(TensorType(float32, (4, 6)), "x")
    v = fn.add_arg(TensorType(float32, (6,)), "v")
    b = Builder.at_end(fn.body)
    y = b.op("neg", x)
    g = b.op("getitem", y, key=(1, 2))
    s = b.op("setitem", y, v, key=(slice(1, 3), Ellipsis))   # v broadcast over two rows
    b.return_(b.op("neg", g), b.op("neg", s))
    from graphcell_ir.ir import Module
    module = Module()
    module.add(fn)
    exe = compile_executable(module, "f")
    assert exe.run.step.host_ops == ("getitem", "setitem")
    args = [_array((4, 6), np.float32, 0), _array((6,), np.float32, 1)]
    for got, expect in zip(exe(args), interpret(module["f"], *args)):
        np.testing.assert_array_equal(got, expect)


def test_a_basic_view_is_numpys_offset_and_strides():
    base = np.arange(4 * 5 * 8).reshape(4, 5, 8)
    for key in KEYS:
        offset, strides, shape = basic_view(base.shape, key)
        view = base[key]
        assert shape == view.shape
        at = np.array(offset) + sum(np.indices(shape)[k] * s for k, s in enumerate(strides))
        np.testing.assert_array_equal(base.ravel()[at], view)
    assert basic_view((4, 6), (1, 2)) is None   # one element: numpy gives a scalar


def _compiled(build, *arg_types):
    from graphcell_ir.ir import Module
    fn = Function("f")
    args = [fn.add_arg(TensorType(dt, shape), f"a{i}") for i, (dt, shape) in enumerate(arg_types)]
    b = Builder.at_end(fn.body)
    b.return_(*build(b, *args))
    module = Module()
    module.add(fn)
    return module, compile_executable(module, "f")


@pytest.mark.parametrize("starts,whole", [((6, 3, 0), True), ((6, 0), False)])
def test_a_chain_of_setitems_writes_into_one_buffer_with_the_interpreters_bits(
        monkeypatch, starts, whole):
    # the gradient of q, k and v sliced from one projection: setitems into one zero fill, each
    # written in place (no full copy per setitem), the last read by a kernel; the fill itself
    # is not run when the slices write every element (else the zeros between them stay)
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    from graphcell_ir.backend.step.emit import _in_place, _view_of
    from graphcell_ir.backend.step.layout import written_over
    from graphcell_ir.backend.step.plan import plan_function

    def build(b, *parts):
        z = b.op("fill", dtype=float32, shape=(4, 2, 9), value=0.0)
        chain = z
        for part, lo in zip(parts, starts):
            chain = b.op("setitem", chain, b.op("neg", part), key=(Ellipsis, slice(lo, lo + 3)))
        return b.op("neg", chain), b.op("mul", chain, 2.0)
    module, exe = _compiled(build, *[(float32, (4, 2, 3))] * len(starts))
    assert exe.step_fallback is None and exe.run.step.host_ops == ()
    fn = module["f"]
    plan = plan_function(fn, views=_view_of, in_place=_in_place)
    fill, *setitems = [op.results[0] for op in fn.body if op.opdef.name in ("fill", "setitem")]
    assert all(plan.shares(fill, s) for s in setitems)
    assert written_over(plan, fill) == whole
    for seed in range(2):   # a second call: the arena holds the first call's values
        args = [_array((4, 2, 3), np.float32, seed + k) for k in range(len(starts))]
        for got, expect in zip(exe.run.step(args), interpret(fn, *args)):
            np.testing.assert_array_equal(got, expect)


def test_a_setitem_whose_value_is_a_view_of_its_target_copies_first(monkeypatch):
    # x[::-1] = x written in place would read elements it already overwrote
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")

    def build(b, x):
        y = b.op("neg", x)
        flat = b.op("reshape", y, shape=(6,))
        r = b.op("setitem", flat, b.op("reshape", y, shape=(6,)), key=(slice(None, None, -1),))
        return (b.op("neg", r),)
    module, exe = _compiled(build, (float32, (2, 3)))
    assert exe.step_fallback is None and exe.run.step.host_ops == ()
    x = _array((2, 3), np.float32, 0)
    (got,) = exe.run.step([x])
    np.testing.assert_array_equal(got, x.reshape(-1)[::-1])
    np.testing.assert_array_equal(got, interpret(module["f"], x))   # one result: no list

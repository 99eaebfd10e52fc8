"""The ONNX lowering of each registry op (``graphcell_ir/backend/onnx``), differentially: for every
op in ``LOWERINGS`` and every dtype of its sample row, drawn operands go through a one-op IR
function, its ONNX model runs in onnxruntime, and the result must be the op's numpy reference.

The structural tests (the table is keyed by registry OpDefs; an op outside it is an
OnnxExportError at its source line) run without the onnx extra; the differential ones need
``onnx`` and ``onnxruntime`` (``pip install -e ".[onnx]"``).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from graphcell_ir.backend.onnx import LOWERINGS, lower_function
from graphcell_ir.errors import OnnxExportError
from graphcell_ir.ir import Builder, Function, Module, TensorType
from graphcell_ir.ir.loc import Loc
from graphcell_ir.ir.types import dtype_from_numpy
from graphcell_ir.ops import REGISTRY
from samples import SAMPLES, Gen

EXAMPLES = settings(max_examples=4, deadline=None, derandomize=True)
ORT_CPU_LACKS = {("relu", "int64"), ("erf", "float64"), ("tan", "float64"), ("asin", "float64"),
                 ("acos", "float64"), ("atan", "float64"), ("sinh", "float64"),
                 ("cosh", "float64"), ("asinh", "float64"), ("acosh", "float64"),
                 ("atanh", "float64"), ("conv2d", "float64"), ("avg_pool2d", "float64")}
"""Valid ONNX (the checker passes) that onnxruntime's CPU provider has no kernel for; a test
checks that it still has none, so a newer onnxruntime moves them back to the differential test."""
CASES = [pytest.param(op.name, dt, id=f"{op.name}-{dt}") for op in LOWERINGS
         for dt in SAMPLES[op.name].dtypes if (op.name, dt) not in ORT_CPU_LACKS]


def test_the_table_is_keyed_by_registry_entries():
    assert all(REGISTRY.get(op.name) is op for op in LOWERINGS)


def one_op_module(name: str, operands, attrs):
    """``@f``: array operands become arguments ``a0, a1, ...``, Python scalars stay literals."""
    fn = Function("f")
    operands = [np.asarray(v) if isinstance(v, np.generic) else v for v in operands]
    args = [fn.add_arg(TensorType(dtype_from_numpy(v.dtype), v.shape), f"a{i}")
            if isinstance(v, np.ndarray) else v for i, v in enumerate(operands)]
    b = Builder.at_end(fn.body)
    out = b.op(name, *args, **attrs)
    b.return_(*(out if isinstance(out, tuple) else (out,)))
    return Module([fn]), fn


def run_onnx(module, fn, operands):
    ort = pytest.importorskip("onnxruntime")
    from graphcell_ir.backend.onnx import to_model
    model = to_model(lower_function(module, fn, len(fn.args), {}))
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {f"a{i}": v for i, v in enumerate(operands)
                           if isinstance(v, np.ndarray)})


@pytest.mark.parametrize("name, dtype", CASES)
@EXAMPLES
@given(data=st.data())
def test_onnxruntime_gives_the_reference(name, dtype, data):
    pytest.importorskip("onnx")
    op = REGISTRY[name]
    operands, attrs = SAMPLES[name].make(Gen(data), dtype)
    operands = [np.asarray(v) if isinstance(v, np.generic) else v for v in operands]
    module, fn = one_op_module(name, operands, attrs)
    try:
        got = run_onnx(module, fn, operands)
    except OnnxExportError as e:   # attributes or dtypes the lowering refuses, by design
        assert "cannot be written as ONNX" in str(e)
        return
    expected = op.ref(*operands, **_attrs_of(fn))   # with the defaults the op filled in
    expected = expected if isinstance(expected, tuple) else (expected,)
    for e, g in zip(expected, got):
        e = np.asarray(e)
        assert g.dtype == e.dtype and g.shape == e.shape
        tol = 1e-5 if e.dtype == np.float32 else 1e-9   # float64: other formulas, other rounding
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("name, dtype", sorted(ORT_CPU_LACKS))
@settings(max_examples=1, deadline=None, derandomize=True, phases=[Phase.generate])
@given(data=st.data())
def test_what_onnxruntime_cannot_run_is_still_checked_onnx(name, dtype, data):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    operands, attrs = SAMPLES[name].make(Gen(data), dtype)
    module, fn = one_op_module(name, operands, attrs)
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.NotImplemented):
        run_onnx(module, fn, operands)   # to_model ran onnx.checker first


def _attrs_of(fn):
    return dict(next(iter(fn.body)).attrs)


def test_an_op_without_mapping_names_the_op_and_its_line():
    fn = Function("f")
    x = fn.add_arg(TensorType(dtype_from_numpy(np.float32), (3,)), "x")
    b = Builder.at_end(fn.body)
    b.loc = Loc(__file__, 1, 1, ("Net.construct",))
    y = b.op("lgamma", x)
    b.return_(y)
    with pytest.raises(OnnxExportError, match=r"test_onnx_lowering.py:1:1: Lgamma \(IR op "
                                              r"'lgamma'\) has no ONNX mapping") as e:
        lower_function(Module([fn]), fn, 1, {})
    assert '"""The ONNX lowering' in str(e.value)   # the source line, under the location

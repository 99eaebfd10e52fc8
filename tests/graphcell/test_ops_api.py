"""graphcell.ops: functions and Primitive classes derived from the registry."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.ops.primitive import FunctionPrimitive
from graphcell_ir.ops import REGISTRY


def test_every_registry_entry_has_a_function_and_ms_named_primitive():
    for opdef in REGISTRY.values():
        fn = getattr(ops, opdef.name)
        # a family module may give the name MindSpore's signature; else it is the entry itself
        assert getattr(fn, "opdef", opdef) is opdef or fn.__module__.startswith("graphcell.ops.function")
        if opdef.ms_name:  # or a family module's Primitive with MindSpore's semantics
            prim = getattr(ops, opdef.ms_name)       # (RealDiv, Gather, MatMul; ops.Exp calls ops.exp)
            assert getattr(prim, "opdef", None) is opdef or issubclass(prim, FunctionPrimitive)


def test_primitives_take_init_attrs_then_operands_and_call_attrs():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert ops.Add()(x, x).asnumpy().tolist() == (x.asnumpy() * 2).tolist()
    assert ops.ReduceSum(keep_dims=True)(x, 1).shape == (2, 1)
    assert ops.ReduceSum()(x, (0, 1)).shape == ()
    assert ops.Reshape()(x, (3, 2)).shape == (3, 2)
    assert ops.Transpose()(x, (1, 0)).shape == (3, 2)
    assert ops.MatMul(transpose_b=True)(x, x).shape == (2, 2)
    assert ops.Cast()(x, ms.int32).dtype == ms.int32
    assert ops.Concat(1)((x, x)).shape == (2, 6)
    assert ops.Fill()(ms.float32, (2, 2), 3).asnumpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert repr(ops.ReduceSum(keep_dims=True)) == "Prim[ReduceSum]<keep_dims=True>"


def test_primitive_rejects_unknown_or_bad_init_args():
    with pytest.raises(TypeError, match="unexpected argument 'axis'"):
        ops.ReduceSum(axis=1)
    with pytest.raises(TypeError, match="keep_dims"):
        ops.ReduceSum(keep_dims="yes")


def test_functional_api_mindspore_signatures():
    x = Tensor([0.1, 0.2, 0.3], ms.float32)
    assert ops.gt(x, 0.1).asnumpy().tolist() == [False, True, True]
    filled = ops.fill(x.dtype, x.shape, 20)
    assert filled.dtype == ms.float32 and filled.asnumpy().tolist() == [20.0] * 3
    np.testing.assert_allclose(ops.select(ops.gt(x, 0.1), x, filled).asnumpy(), [20.0, 0.2, 0.3])
    assert ops.sum(Tensor(np.ones((2, 3))), dim=1, keepdim=True).shape == (2, 1)
    assert ops.mean(Tensor(np.ones((2, 3))), 0).shape == (3,)
    assert ops.matmul(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 4), np.float32))).shape == (2, 4)
    assert ops.zeros((2, 2)).dtype == ms.float32 and ops.ones_like(x).asnumpy().tolist() == [1.0] * 3
    np.testing.assert_allclose(ops.softmax(x).asnumpy().sum(), 1.0, rtol=1e-6) if hasattr(ops, "softmax") else None


def test_functional_attr_errors_name_the_op():
    with pytest.raises(TypeError, match="getitem: unknown attribute"):
        ops.getitem(Tensor([1.0]), key=(0,), bogus=1)
    with pytest.raises(TypeError, match="reshape.* unexpected keyword argument 'bogus'"):
        ops.reshape(Tensor([1.0]), shape=(1,), bogus=1)
    with pytest.raises(TypeError, match="Select: cond must be a Bool tensor"):
        ops.select(Tensor([1, 0]), Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))

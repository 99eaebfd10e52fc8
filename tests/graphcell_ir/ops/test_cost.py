"""Estimated FLOPs: the rules declared next to their ops and what each Kind implies."""
from __future__ import annotations

from graphcell_ir.ir.types import TensorType, float32, float64, int32
from graphcell_ir.ops import REGISTRY
from graphcell_ir.ops.cost import flops, nbytes


def t(*shape, dtype=float32):
    return TensorType(dtype, shape)


def test_matmul_counts_a_multiply_add_per_result_element_per_k():
    attrs = {"transpose_a": False, "transpose_b": False}
    assert flops(REGISTRY["matmul"], (t(4, 3), t(3, 5)), (t(4, 5),), attrs) == 2 * 4 * 5 * 3
    attrs = {"transpose_a": True, "transpose_b": False}
    assert flops(REGISTRY["matmul"], (t(3, 4), t(3, 5)), (t(4, 5),), attrs) == 2 * 4 * 5 * 3
    assert flops(REGISTRY["matmul"], (t(2, 4, 3), t(2, 3, 5)), (t(2, 4, 5),),
                 {"transpose_a": False, "transpose_b": False}) == 2 * 2 * 4 * 5 * 3


def test_conv2d_and_its_gradients_count_the_same_multiply_adds():
    x, w, y = t(32, 1, 32, 32), t(6, 1, 5, 5), t(32, 6, 28, 28)
    forward = 2 * (32 * 6 * 28 * 28) * (1 * 5 * 5)
    assert flops(REGISTRY["conv2d"], (x, w), (y,), {}) == forward
    assert flops(REGISTRY["conv2d_backprop_input"], (y, w), (x,), {}) == forward
    assert flops(REGISTRY["conv2d_backprop_filter"], (y, x), (w,), {}) == forward


def test_pooling_counts_each_window_element_of_the_pooled_side():
    x, y = t(2, 3, 8, 8), t(2, 3, 4, 4)
    assert flops(REGISTRY["max_pool2d"], (x,), (y,), {"kernel_size": (2,)}) == 4 * y.size
    assert flops(REGISTRY["max_pool2d_grad"], (x, y), (x,), {"kernel_size": (2, 2)}) == 4 * y.size


def test_kinds_imply_a_cost_and_opaque_ops_without_a_rule_have_none():
    assert flops(REGISTRY["add"], (t(4, 3), t(3)), (t(4, 3),), {}) == 12
    assert flops(REGISTRY["reduce_sum"], (t(4, 3),), (t(),), {}) == 12
    assert flops(REGISTRY["reshape"], (t(4, 3),), (t(12),), {}) == 0
    assert REGISTRY["sort"].cost is None and REGISTRY["sort"].kind.value == "opaque"
    assert flops(REGISTRY["sort"], (t(4),), (t(4), t(4, dtype=int32)), {}) is None


def test_bytes_follow_the_dtype():
    assert nbytes(t(4, 3)) == 48 and nbytes(t(4, 3, dtype=float64)) == 96 and nbytes(t()) == 4

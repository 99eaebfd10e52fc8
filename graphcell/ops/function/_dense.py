"""``ops.dense`` (exported by ``nn_func``, MindSpore's module for it), in a module of its own
because ``attention_func`` uses it too and ``nn_func`` re-exports ``attention_func``'s
``multi_head_attention_forward`` (MindSpore's path): both import it from here, with no cycle."""
from __future__ import annotations

from graphcell.ops.function import _nn_utils as U
from graphcell_ir.ops import functional as F

__all__: list = []   # an ops name through nn_func's __all__


def dense(input, weight, bias=None):  # noqa: A002
    """``ops.dense(input, weight, bias=None)``: ``input @ weight.T + bias`` over the last axis of
    ``input`` (``weight`` is (out, in), or (in,) for one output without that axis)."""
    name = "ops.dense"
    U.tensor(name, input)
    U.tensor(name, weight, "weight")
    if weight.ndim not in (1, 2):
        raise ValueError(f"{name}: 'weight' must be 1-D or 2-D, got shape {list(weight.shape)}")
    if input.ndim == 0 or input.shape[-1] != weight.shape[-1]:
        raise ValueError(f"{name}: the last axis of 'input' (shape {list(input.shape)}) must match "
                         f"the in-features of 'weight' (shape {list(weight.shape)})")
    lead = tuple(input.shape[:-1])
    x2 = F.reshape(input, (-1, input.shape[-1]))
    if weight.ndim == 1:
        y = F.reshape(F.matmul(x2, F.reshape(weight, (-1, 1))), lead)
    else:
        y = F.reshape(F.matmul(x2, weight, transpose_b=True), lead + (weight.shape[0],))
    return y if bias is None else F.add(y, bias)

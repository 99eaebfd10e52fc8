"""Multi-head attention: MindSpore 2.10's ``ops.function.nn_func.multi_head_attention_forward``,
the function ``nn.MultiheadAttention`` (and the Transformer layers) call.

Inputs are sequence-first ``(L, N, E)`` (or unbatched ``(L, E)``). The steps: the input
projections (one packed matmul for self-attention), the optional ``bias_k``/``bias_v`` row and
zero row appended to the keys and values, the masks turned into one additive mask (True or
``-inf`` where a position may not be attended), ``softmax(q k^T / sqrt(head_dim) + mask) v`` per
head — with MindSpore's scaling, ``q / d^(1/4)`` times ``k^T / d^(1/4)`` — dropout on the
weights when training, then the output projection.

Where graphcell differs from MindSpore 2.10 (``docs/decisions.md``): a boolean
``key_padding_mask`` with a float ``attn_mask`` masks the padded keys (MindSpore adds the bools
as 1.0), and ``is_causal`` masks the positions after each query (MindSpore adds a lower
triangle of ones).
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.function.nn_func import dense as linear
from graphcell.ops.function.normalization_func import dropout
from graphcell_ir.ir.types import bool_, float32, uint8
from graphcell_ir.ops import functional as F

__all__: list = []   # MindSpore exports it from ops.function.nn_func only (it is imported there)

_NAME = "multi_head_attention_forward"


def _check_shapes(query, key, value, key_padding_mask, attn_mask) -> bool:
    """Whether the inputs are batched (3-D); a ValueError naming the bad input otherwise."""
    U.float_tensor(_NAME, query, "query")
    U.float_tensor(_NAME, key, "key")
    U.float_tensor(_NAME, value, "value")
    if query.ndim not in (2, 3):
        raise ValueError(f"{_NAME}: 'query' must be 2-D (unbatched) or 3-D (batched), got shape "
                         f"{list(query.shape)}")
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise ValueError(f"{_NAME}: 'key' and 'value' must have the rank of 'query' "
                         f"({query.ndim}), got {key.ndim} and {value.ndim}")
    batched = query.ndim == 3
    if key_padding_mask is not None and key_padding_mask.ndim != (2 if batched else 1):
        raise ValueError(f"{_NAME}: 'key_padding_mask' must be {2 if batched else 1}-D for a "
                         f"{'batched' if batched else 'unbatched'} query, got shape "
                         f"{list(key_padding_mask.shape)}")
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        raise ValueError(f"{_NAME}: 'attn_mask' must be 2-D or 3-D, got shape "
                         f"{list(attn_mask.shape)}")
    return batched


def _projections(query, key, value, in_proj_weight, in_proj_bias, separate, k_is_v, q_is_k):
    """``q, k, v``: one matmul for self-attention, two for a shared key/value, else three."""
    e = query.shape[-1]
    if separate is not None:
        q_w, k_w, v_w = separate
        for what, w, width in (("q_proj_weight", q_w, e), ("k_proj_weight", k_w, key.shape[-1]),
                               ("v_proj_weight", v_w, value.shape[-1])):
            if w is None or tuple(w.shape) != (e, width):
                raise ValueError(f"{_NAME}: '{what}' must have shape {[e, width]}, got "
                                 f"{None if w is None else list(w.shape)}")
        b = [None] * 3 if in_proj_bias is None else _rows(in_proj_bias, (e, e, e))
        return linear(query, q_w, b[0]), linear(key, k_w, b[1]), linear(value, v_w, b[2])
    if in_proj_weight is None:
        raise ValueError(f"{_NAME}: 'in_proj_weight' is None and use_separate_proj_weight is "
                         "False")
    if k_is_v and q_is_k:
        return tuple(_columns(linear(query, in_proj_weight, in_proj_bias), 3))
    w = _rows(in_proj_weight, (e, e, e))
    b = [None] * 3 if in_proj_bias is None else _rows(in_proj_bias, (e, e, e))
    if k_is_v:
        kv = linear(key, F.concat(w[1], w[2], axis=0),
                    None if in_proj_bias is None else F.concat(b[1], b[2], axis=0))
        return (linear(query, w[0], b[0]), *_columns(kv, 2))
    return linear(query, w[0], b[0]), linear(key, w[1], b[1]), linear(value, w[2], b[2])


def _rows(x, sizes):
    """``x`` cut along axis 0 into parts of ``sizes``."""
    out, start = [], 0
    for n in sizes:
        out.append(F.getitem(x, key=(slice(start, start + n),)))
        start += n
    return out


def _columns(x, n: int) -> list:
    """``x`` cut into ``n`` equal parts along its last axis."""
    size = x.shape[-1] // n
    return [F.getitem(x, key=(Ellipsis, slice(k * size, (k + 1) * size))) for k in range(n)]


def _pad_key_axis(mask):
    """One more key position (the bias or zero row appended to the keys): never masked."""
    if mask is None:
        return None
    pad = F.fill(dtype=mask.dtype, shape=tuple(mask.shape[:-1]) + (1,), value=0)
    return F.concat(mask, pad, axis=-1)


def _additive(mask, dtype):
    """A boolean mask (True: may not attend) as ``-inf``/0 of ``dtype``; a float one as it is."""
    if mask.dtype is bool_:
        zeros = F.fill(dtype=dtype, shape=tuple(mask.shape), value=0)
        return F.select(mask, F.fill(dtype=dtype, shape=tuple(mask.shape), value=float("-inf")),
                        zeros)
    return mask if mask.dtype is dtype else F.cast(mask, dtype=dtype)


def _attn_mask(attn_mask, tgt: int, src: int, bsz: int, heads: int):
    if attn_mask.dtype is uint8:
        attn_mask = F.cast(attn_mask, dtype=bool_)
    elif not (attn_mask.dtype.is_float or attn_mask.dtype is bool_):
        raise ValueError(f"{_NAME}: 'attn_mask' must be a float, uint8 or bool tensor, got "
                         f"{attn_mask.dtype}")
    want = (tgt, src) if attn_mask.ndim == 2 else (bsz * heads, tgt, src)
    if tuple(attn_mask.shape) != want:
        raise ValueError(f"{_NAME}: 'attn_mask' must have shape {list(want)}, got "
                         f"{list(attn_mask.shape)}")
    return F.expand_dims(attn_mask, axis=0) if attn_mask.ndim == 2 else attn_mask


def _key_padding(key_padding_mask, bsz: int, heads: int, src: int):
    if not (key_padding_mask.dtype is bool_ or key_padding_mask.dtype.is_float):
        raise ValueError(f"{_NAME}: 'key_padding_mask' must be a bool or float tensor, got "
                         f"{key_padding_mask.dtype}")
    if tuple(key_padding_mask.shape) != (bsz, src):
        raise ValueError(f"{_NAME}: 'key_padding_mask' must have shape {[bsz, src]}, got "
                         f"{list(key_padding_mask.shape)}")
    tiled = F.broadcast_to(F.reshape(key_padding_mask, (bsz, 1, 1, src)),
                           shape=(bsz, heads, 1, src))
    return F.reshape(tiled, (bsz * heads, 1, src))


def _combine(attn_mask, key_padding_mask, dtype):
    if attn_mask is None:
        return key_padding_mask
    if key_padding_mask is None:
        return attn_mask
    if attn_mask.dtype is bool_ and key_padding_mask.dtype is bool_:
        return F.logical_or(attn_mask, key_padding_mask)
    return F.add(_additive(attn_mask, dtype), _additive(key_padding_mask, dtype))


def _heads(x, length: int, bsz: int, heads: int, head_dim: int):
    """``(length, bsz, heads * head_dim)`` -> ``(bsz * heads, length, head_dim)``."""
    return F.transpose(F.reshape(x, (length, bsz * heads, head_dim)), perm=(1, 0, 2))


def _static(name: str, t, bsz: int, heads: int, head_dim: int):
    if t.shape[0] != bsz * heads or t.shape[2] != head_dim:
        raise ValueError(f"{_NAME}: '{name}' must have shape [{bsz * heads}, src_len, "
                         f"{head_dim}], got {list(t.shape)}")
    return t


def scaled_dot_product_attention(q, k, v, mask, dropout_p: float, training: bool,
                                 is_causal: bool = False):
    """``(softmax(q k^T / sqrt(d) + mask) v, the weights)`` over the last two axes, scaled as
    MindSpore does (``d^(1/4)`` on each side); ``mask`` additive (or None)."""
    scale = math.sqrt(math.sqrt(q.shape[-1]))
    scores = F.matmul(F.div(q, scale), F.div(k, scale), transpose_b=True)
    if is_causal:   # no query attends to the keys after its own position
        tgt, src = scores.shape[-2], scores.shape[-1]
        ahead = U.constant(np.triu(np.ones((tgt, src), np.bool_), 1), bool_)
        scores = F.add(scores, _additive(ahead, scores.dtype))
    if mask is not None:
        scores = F.add(scores, mask)
    weights = F.softmax(scores, axis=(scores.ndim - 1,))
    weights = dropout(weights, dropout_p, training)
    return F.matmul(weights, v), weights


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                                 out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False,
                                 k_is_v=False, q_is_k=False, dtype=float32):
    """MindSpore 2.10's ``multi_head_attention_forward``: ``(attn_output, attn_weights)`` for
    ``query`` ``(L, N, E)``, ``key``/``value`` ``(S, N, E_k/E_v)`` (or unbatched without N); the
    weights ``(N, L, S)`` averaged over the heads, or ``(N, heads, L, S)``. ``k_is_v``/``q_is_k``
    say the inputs are the same tensor (one packed projection); ``dtype`` is accepted (the
    computation keeps the inputs' dtype).

    >>> import numpy as np
    >>> import graphcell as ms
    >>> x = ms.Tensor(np.ones((3, 2, 4), np.float32))
    >>> w, b = ms.Tensor(np.eye(4, dtype=np.float32)), ms.Tensor(np.zeros(4, np.float32))
    >>> out, weights = multi_head_attention_forward(
    ...     x, x, x, 4, 2, ms.Tensor(np.ones((12, 4), np.float32)), None, None, None, False, 0.0,
    ...     w, b, training=False)
    >>> out.shape, weights.shape
    ((3, 2, 4), (2, 3, 3))
    """
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask)
    if not batched:
        query, key, value = (F.expand_dims(t, axis=1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = F.expand_dims(key_padding_mask, axis=0)
    tgt, bsz, embed = query.shape
    heads = U.int_arg(_NAME, num_heads, "num_heads")
    if embed != embed_dim_to_check:
        raise ValueError(f"{_NAME}: 'query' has {embed} features, embed_dim is "
                         f"{embed_dim_to_check}")
    head_dim = embed // heads
    if heads < 1 or head_dim * heads != embed:
        raise ValueError(f"{_NAME}: embed_dim {embed} is not divisible by num_heads {heads}")
    same = tuple(key.shape[:2]) == tuple(value.shape[:2]) if use_separate_proj_weight else \
        tuple(key.shape) == tuple(value.shape)
    if not same:
        raise ValueError(f"{_NAME}: 'key' (shape {list(key.shape)}) and 'value' (shape "
                         f"{list(value.shape)}) do not match")
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _projections(query, key, value, in_proj_weight, in_proj_bias, separate, k_is_v,
                           q_is_k)
    if attn_mask is not None:
        attn_mask = _attn_mask(attn_mask, tgt, key.shape[0], bsz, heads)
    if (bias_k is None) != (bias_v is None):
        raise ValueError(f"{_NAME}: give both bias_k and bias_v, or neither")
    if bias_k is not None:
        if static_k is not None or static_v is not None:
            raise ValueError(f"{_NAME}: bias_k and bias_v cannot be added to static_k/static_v")
        k = F.concat(k, F.broadcast_to(bias_k, shape=(1, bsz, embed)), axis=0)
        v = F.concat(v, F.broadcast_to(bias_v, shape=(1, bsz, embed)), axis=0)
        attn_mask, key_padding_mask = _pad_key_axis(attn_mask), _pad_key_axis(key_padding_mask)
    q = _heads(q, tgt, bsz, heads, head_dim)
    k = _heads(k, k.shape[0], bsz, heads, head_dim) if static_k is None else \
        _static("static_k", static_k, bsz, heads, head_dim)
    v = _heads(v, v.shape[0], bsz, heads, head_dim) if static_v is None else \
        _static("static_v", static_v, bsz, heads, head_dim)
    if add_zero_attn:
        zero = F.fill(dtype=k.dtype, shape=(bsz * heads, 1, head_dim), value=0)
        k, v = F.concat(k, zero, axis=1), F.concat(v, zero, axis=1)
        attn_mask, key_padding_mask = _pad_key_axis(attn_mask), _pad_key_axis(key_padding_mask)
    src = k.shape[1]
    if key_padding_mask is not None:
        key_padding_mask = _key_padding(key_padding_mask, bsz, heads, src)
    mask = _combine(attn_mask, key_padding_mask, q.dtype)
    if mask is not None:
        mask = _additive(mask, q.dtype)
        mask = F.expand_dims(mask, axis=0) if mask.shape[0] == 1 else \
            F.reshape(mask, (bsz, heads, -1, src))
    q, k, v = (F.reshape(t, (bsz, heads, -1, head_dim)) for t in (q, k, v))
    out, weights = scaled_dot_product_attention(q, k, v, mask, dropout_p, training, is_causal)
    out = F.reshape(F.transpose(out, perm=(2, 0, 1, 3)), (tgt * bsz, embed))
    out = F.reshape(linear(out, out_proj_weight, out_proj_bias), (tgt, bsz, -1))
    if average_attn_weights:
        weights = F.div(F.reduce_sum(weights, axis=(1,), keep_dims=False), heads)
    if not batched:
        out = F.reshape(out, (tgt, out.shape[-1]))
        weights = F.reshape(weights, tuple(weights.shape[1:]))
    return out, weights

"""Attention layers: ``MultiheadAttention``, ``TransformerEncoderLayer``,
``TransformerDecoderLayer``, ``TransformerEncoder``, ``TransformerDecoder``, ``Transformer`` —
MindSpore 2.10's constructors, Parameters (names, shapes, initialisation) and calls.

- ``MultiheadAttention`` owns ``in_proj_weight`` ``(3E, E)`` (or ``q/k/v_proj_weight`` when
  ``kdim``/``vdim`` differ from ``embed_dim``), ``in_proj_bias`` (zeros), ``out_proj`` (a
  ``Dense``), ``bias_k``/``bias_v`` with ``add_bias_kv``, and calls
  ``ops.function.nn_func.multi_head_attention_forward``. Inputs are sequence-first unless
  ``batch_first``; a call returns ``(output, weights)``, or ``(output,)`` with
  ``need_weights=False``.
- The encoder and decoder layers are post-norm (``norm_first=False``) or pre-norm blocks of
  attention and a ``dense1 -> activation -> dense2`` feed-forward, each followed by dropout.
- ``TransformerEncoder``/``TransformerDecoder`` hold ``num_layers`` copies of a layer built with
  the given layer's settings (as MindSpore: the given layer's own weights are not used, and the
  copies start equal); ``Transformer`` re-initialises every Parameter of two or more
  dimensions with ``XavierUniform``.

Where graphcell differs from MindSpore 2.10 (``docs/decisions.md``): ``activation`` may be an
``nn.ReLU`` or ``nn.GELU`` instance, as MindSpore's documentation says (its code refuses them).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)
    >>> encoder = nn.TransformerEncoder(layer, num_layers=2)
    >>> encoder(ms.Tensor(np.ones((5, 3, 8), np.float32))).shape
    (5, 3, 8)
"""
from __future__ import annotations

import copy
import math

from graphcell import ops
from graphcell.common.initializer import (HeUniform, Uniform, XavierNormal, XavierUniform,
                                          initializer)
from graphcell.nn.cell import Cell
from graphcell.nn.container import CellList
from graphcell.nn.layers._validate import check_bool, check_float, check_positive_int, describe
from graphcell.nn.layers.basic import Dropout
from graphcell.nn.layers.dense import Dense
from graphcell.nn.layers.normalization import LayerNorm
from graphcell.ops.function.attention_func import multi_head_attention_forward
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import bool_, float32

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]


def _check_mask(mask, name: str, owner: str) -> None:
    if mask is not None and not (isinstance(mask, Tensor) and
                                 (mask.dtype is bool_ or mask.dtype.is_float)):
        raise ValueError(f"{owner}: '{name}' must be a bool or float Tensor, got "
                         f"{describe(mask)}")


class MultiheadAttention(Cell):
    """``MultiheadAttention(embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
    add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=float32)``, called as
    ``(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True)``."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=float32):
        super().__init__()
        owner = self.cls_name
        self.embed_dim = check_positive_int(embed_dim, "embed_dim", owner)
        self.num_heads = check_positive_int(num_heads, "num_heads", owner)
        self.kdim = embed_dim if kdim is None else check_positive_int(kdim, "kdim", owner)
        self.vdim = embed_dim if vdim is None else check_positive_int(vdim, "vdim", owner)
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout = check_float(dropout, "dropout", owner, low=0, high=1, high_open=True)
        self.batch_first = check_bool(batch_first, "batch_first", owner)
        self.add_zero_attn = check_bool(add_zero_attn, "add_zero_attn", owner)
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise ValueError(f"{owner}: 'embed_dim' ({embed_dim}) must be divisible by "
                             f"'num_heads' ({num_heads})")
        dtype = float32 if dtype is None else dtype
        self.dtype = dtype
        self.in_proj_weight = self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(
                initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype), "in_proj_weight")
        else:
            for name, width in (("q", embed_dim), ("k", self.kdim), ("v", self.vdim)):
                setattr(self, f"{name}_proj_weight", Parameter(
                    initializer(XavierUniform(), (embed_dim, width), dtype), f"{name}_proj_weight"))
        self.in_proj_bias = None
        if check_bool(has_bias, "has_bias", owner):
            self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype),
                                          "in_proj_bias")
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias,
                              weight_init=HeUniform(math.sqrt(5)),
                              bias_init=Uniform(1 / math.sqrt(embed_dim)), dtype=dtype)
        self.bias_k = self.bias_v = None
        if check_bool(add_bias_kv, "add_bias_kv", owner):
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_v")

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        _check_mask(key_padding_mask, "key_padding_mask", self.cls_name)
        k_is_v, q_is_k = key is value, query is key   # the same tensor: one packed projection
        batched = query.ndim == 3
        if self.batch_first and batched:
            query, key, value = (t.swapaxes(1, 0) for t in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, k_is_v=k_is_v, q_is_k=q_is_k,
            dtype=self.dtype)
        if self.batch_first and batched:
            out = out.swapaxes(1, 0)
        if need_weights:
            return out, weights
        return (out,)


def _activation(activation, owner: str):
    """``'relu'``/``'gelu'``, ``ops.relu``/``ops.gelu``, or an ``nn.ReLU``/``nn.GELU`` cell."""
    if isinstance(activation, str):
        if activation not in ("relu", "gelu"):
            raise ValueError(f"{owner}: 'activation' must be 'relu' or 'gelu', got "
                             f"{activation!r}")
        return ops.relu if activation == "relu" else ops.gelu
    if isinstance(activation, Cell):
        if type(activation).__name__ not in ("ReLU", "GELU"):
            raise ValueError(f"{owner}: an 'activation' Cell must be nn.ReLU or nn.GELU, got "
                             f"{activation}")
        return activation
    if activation is ops.relu or activation is ops.gelu:
        return activation
    raise ValueError(f"{owner}: 'activation' must be 'relu', 'gelu', ops.relu, ops.gelu, "
                     f"nn.ReLU or nn.GELU, got {activation!r}")


class _Block(Cell):
    """What the encoder and decoder layers share: the feed-forward, the norms, the dropouts, and
    the settings ``TransformerEncoder``/``Decoder`` rebuild a layer from."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                 batch_first, norm_first, dtype, decoder: bool):
        super().__init__()
        owner = self.cls_name
        self.d_model = check_positive_int(d_model, "d_model", owner)
        self.nhead = check_positive_int(nhead, "nhead", owner)
        self.dim_feedforward = check_positive_int(dim_feedforward, "dim_feedforward", owner)
        self.dropout_num = dropout
        self.activation1 = activation          # as given: TransformerEncoder rebuilds from it
        self.activation = _activation(activation, owner)
        self.layernorm_eps = layer_norm_eps
        self.batch_first = batch_first
        self.norm_first = check_bool(norm_first, "norm_first", owner)
        self.dtype = dtype
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        if decoder:   # MindSpore's order of the Parameters: both attentions first
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                     batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, weight_init=HeUniform(math.sqrt(5)),
                            bias_init=Uniform(1 / math.sqrt(d_model)), dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, weight_init=HeUniform(math.sqrt(5)),
                            bias_init=Uniform(1 / math.sqrt(dim_feedforward)), dtype=dtype)
        for k in range(1, 4 if decoder else 3):
            setattr(self, f"norm{k}", LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
            setattr(self, f"dropout{k}", Dropout(p=dropout))

    def settings(self) -> tuple:
        return (self.d_model, self.nhead, self.dim_feedforward, self.dropout_num,
                self.activation1, self.layernorm_eps, self.batch_first, self.norm_first)

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x, dropout):
        return dropout(self.dense2(self.dropout(self.activation(self.dense1(x)))))


class TransformerEncoderLayer(_Block):
    """``TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation='relu', layer_norm_eps=1e-5, batch_first=False, norm_first=False,
    dtype=float32)``, called as ``(src, src_mask=None, src_key_padding_mask=None)``."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout=0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=float32):
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                         batch_first, norm_first, dtype, decoder=False)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_mask(src_key_padding_mask, "src_key_padding_mask", self.cls_name)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            return x + self._ff_block(self.norm2(x), self.dropout2)
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
        return self.norm2(x + self._ff_block(x, self.dropout2))


class TransformerDecoderLayer(_Block):
    """``TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation='relu', layer_norm_eps=1e-5, batch_first=False, norm_first=False,
    dtype=float32)``, called as ``(tgt, memory, tgt_mask=None, memory_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None)``."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout=0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=float32):
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                         batch_first, norm_first, dtype, decoder=True)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            return x + self._ff_block(self.norm3(x), self.dropout3)
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
        return self.norm3(x + self._ff_block(x, self.dropout3))

    def _mha_block(self, x, memory, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout2(x)


def _copies(layer: _Block, cls: type, num_layers, owner: str) -> CellList:
    """``num_layers`` equal layers built with ``layer``'s settings (MindSpore's rule)."""
    if not isinstance(layer, cls):
        raise TypeError(f"{owner}: expected a {cls.__name__}, got {type(layer).__name__}")
    n = check_positive_int(num_layers, "num_layers", owner)
    fresh = cls(*layer.settings(), dtype=layer.dtype)
    return CellList([copy.deepcopy(fresh) for _ in range(n)])


class TransformerEncoder(Cell):
    """``TransformerEncoder(encoder_layer, num_layers, norm=None)``: ``num_layers`` layers like
    ``encoder_layer`` (fresh weights, equal in every layer), then ``norm`` if given; called as
    ``(src, src_mask=None, src_key_padding_mask=None)``."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _copies(encoder_layer, TransformerEncoderLayer, num_layers, self.cls_name)
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_mask(src_key_padding_mask, "src_key_padding_mask", self.cls_name)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Cell):
    """``TransformerDecoder(decoder_layer, num_layers, norm=None)``: as
    :class:`TransformerEncoder`, called as ``(tgt, memory, tgt_mask=None, memory_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None)``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _copies(decoder_layer, TransformerDecoderLayer, num_layers, self.cls_name)
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Cell):
    """``Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
    dim_feedforward=2048, dropout=0.1, activation='relu', custom_encoder=None,
    custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
    dtype=float32)``, called as ``(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None)``."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout=0.1,
                 activation="relu", custom_encoder=None, custom_decoder=None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=float32):
        super().__init__()
        settings = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                    batch_first, norm_first)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*settings, dtype=dtype),
                                              num_encoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps,
                                                        dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*settings, dtype=dtype),
                                              num_decoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps,
                                                        dtype=dtype))
        for p in self.get_parameters():
            if p.ndim > 1:
                p.set_data(initializer(XavierUniform(), p.shape, p.dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        axis = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[axis] != tgt.shape[axis]:
            raise ValueError(f"{self.cls_name}: 'src' and 'tgt' must have the same batch size, "
                             f"got {src.shape[axis]} and {tgt.shape[axis]}")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"{self.cls_name}: 'src' and 'tgt' must have d_model="
                             f"{self.d_model} features, got {src.shape[-1]} and "
                             f"{tgt.shape[-1]}")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

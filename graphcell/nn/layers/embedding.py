"""Embedding layers: ``Embedding``, ``EmbeddingExt``, ``EmbeddingLookup`` and
``MultiFieldEmbeddingLookup``, each owning an ``embedding_table`` (``weight`` for
``EmbeddingExt``) drawn, by default, from ``Normal(0.01)``.

Constructors, checks and printed forms are MindSpore 2.10's. A lookup's gradient with respect to
the table is dense here (MindSpore's ``EmbeddingLookup`` gives one row per index; the sums are
the same). graphcell runs in one process: the parallel ``slice_mode`` options are accepted and
change nothing.
"""
from __future__ import annotations

from graphcell import ops
from graphcell.common.initializer import Normal, initializer
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import (_is_int, _is_number, check_bool, check_positive_int,
                                           describe)
from graphcell.ops.function.nn_func import clip_by_axis_norm
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, int32, int64, to_dtype

__all__ = ["Embedding", "EmbeddingExt", "EmbeddingLookup", "MultiFieldEmbeddingLookup"]


def _int(value, name: str, owner: str) -> int:
    if not _is_int(value):
        raise TypeError(f"{owner}: '{name}' must be an int, got {type(value).__name__} {value!r}")
    return int(value)


def _int_indices(ids, owner: str, what: str = "ids") -> None:
    if not isinstance(ids, Tensor) or not ids.dtype.is_int:
        raise TypeError(f"{owner}: '{what}' must be an integer tensor, got {describe(ids)}")


class Embedding(Cell):
    """``Embedding(vocab_size, embedding_size, use_one_hot=False, embedding_table='normal',
    dtype=float32, padding_idx=None)``: row ``i`` of ``embedding_table`` (vocab_size,
    embedding_size) for each index ``i``; the output has shape ``ids.shape + (embedding_size,)``.
    ``use_one_hot`` computes it as ``one_hot(ids) @ table``; ``padding_idx`` zeroes that row of
    the initial table.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> emb = nn.Embedding(5, 3)
        >>> emb(ms.Tensor([[0, 4]], ms.int32)).shape
        (1, 2, 3)
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=float32, padding_idx=None):
        super().__init__()
        owner = self.cls_name
        self.vocab_size = _int(vocab_size, "vocab_size", owner)
        self.embedding_size = _int(embedding_size, "embedding_size", owner)
        self.use_one_hot = check_bool(use_one_hot, "use_one_hot", owner)
        self.dtype = to_dtype(dtype)
        if self.dtype.is_bool:
            raise TypeError(f"{owner}: 'dtype' must be a number type, got {self.dtype}")
        table = initializer(embedding_table, (self.vocab_size, self.embedding_size))
        self.padding_idx = padding_idx
        if padding_idx is not None:
            if not _is_int(padding_idx) or not 0 <= padding_idx < self.vocab_size:
                raise ValueError(f"{owner}: 'padding_idx' must be an int in [0, {vocab_size}), "
                                 f"got {padding_idx!r}")
            values = table.asnumpy().copy()
            values[padding_idx] = 0
            table = Tensor(values)
        self.embedding_table = Parameter(table, name="embedding_table")
        self._on = Tensor(1.0, self.dtype)
        self._off = Tensor(0.0, self.dtype)

    def construct(self, ids):
        _int_indices(ids, self.cls_name)
        flat = ops.reshape(ids, (-1,))
        if self.use_one_hot:
            rows = ops.matmul(ops.one_hot(flat, self.vocab_size, self._on, self._off),
                              self.embedding_table)
        else:
            rows = ops.gather(self.embedding_table, flat, 0)
        return ops.reshape(rows, tuple(ids.shape) + (self.embedding_size,))

    def extend_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")


class EmbeddingExt(Cell):
    """``EmbeddingExt(num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
    norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False,
    dtype=None)``: PyTorch's ``Embedding`` — the rows of ``weight`` (drawn from N(0, 1), the
    ``padding_idx`` row zeroed, or ``_weight``), the ``padding_idx`` row getting no gradient.
    ``max_norm``, ``scale_grad_by_freq`` and ``sparse`` are refused (as ``ops.embedding``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.EmbeddingExt(5, 3)(ms.Tensor([1, 2])).shape
        (2, 3)
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, dtype=None):
        super().__init__()
        owner = self.cls_name
        if check_bool(sparse, "sparse", owner):
            raise ValueError(f"{owner}: sparse=True is not supported")
        self.num_embeddings = _int(num_embeddings, "num_embeddings", owner)
        self.embedding_dim = _int(embedding_dim, "embedding_dim", owner)
        self.dtype = float32 if dtype is None else to_dtype(dtype)
        shape = (self.num_embeddings, self.embedding_dim)
        self.padding_idx = padding_idx
        if _weight is None:
            values = initializer(Normal(1.0, 0.0), shape, self.dtype).asnumpy().copy()
            if padding_idx is not None:
                if not _is_int(padding_idx) or not -shape[0] <= padding_idx < shape[0]:
                    raise ValueError(f"{owner}: 'padding_idx' must be an int in "
                                     f"[{-shape[0]}, {shape[0]}), got {padding_idx!r}")
                values[padding_idx] = 0
            weight = Tensor(values)
        else:
            if tuple(_weight.shape) != shape:
                raise ValueError(f"{owner}: '_weight' must have shape {list(shape)}, got "
                                 f"{list(_weight.shape)}")
            weight = _weight
        self.weight = Parameter(weight, name="weight", requires_grad=not _freeze)
        if max_norm is not None and not isinstance(max_norm, float):
            raise TypeError(f"{owner}: 'max_norm' must be a float, got {max_norm!r}")
        if norm_type is not None and not isinstance(norm_type, float):
            raise TypeError(f"{owner}: 'norm_type' must be a float, got {norm_type!r}")
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = check_bool(scale_grad_by_freq, "scale_grad_by_freq", owner)

    def construct(self, input):  # noqa: A002
        return ops.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq)

    def extend_repr(self) -> str:
        return (f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, "
                f"padding_idx={self.padding_idx}, max_norm={self.max_norm}, "
                f"norm_type={self.norm_type}, scale_grad_by_freq={self.scale_grad_by_freq}, "
                f"dtype={self.dtype}")


class EmbeddingLookup(Cell):
    """``EmbeddingLookup(vocab_size, embedding_size, param_init='normal', target='CPU',
    slice_mode='batch_slice', manual_shapes=None, max_norm=None, sparse=True, dtype=float32)``:
    the rows ``indices`` of ``embedding_table``; with ``target='CPU'`` (the default) an index
    outside the table gives a row of zeros. ``max_norm`` clips each looked-up row's Euclidean
    norm. ``target='CPU'`` needs ``sparse=True``, as in MindSpore.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.EmbeddingLookup(4, 2)(ms.Tensor([[1, 3]], ms.int32)).shape
        (1, 2, 2)
    """

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", manual_shapes=None, max_norm=None, sparse=True,
                 dtype=float32):
        super().__init__()
        owner = self.cls_name
        self.sparse = check_bool(sparse, "sparse", owner)
        self.vocab_size = check_positive_int(vocab_size, "vocab_size", owner)
        self.embedding_size = check_positive_int(embedding_size, "embedding_size", owner)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"{owner}: 'target' must be 'CPU' or 'DEVICE', got {target!r}")
        if not sparse and target == "CPU":
            raise ValueError(f"{owner}: 'sparse' must be True when 'target' is 'CPU'")
        self.target = target
        self.slice_mode = slice_mode
        self.embedding_table = Parameter(
            initializer(param_init, (self.vocab_size, self.embedding_size), dtype),
            name="embedding_table")
        self.max_norm = None
        if max_norm is not None:
            if not _is_number(max_norm) or max_norm <= 0:
                raise ValueError(f"{owner}: 'max_norm' must be a positive float, got "
                                 f"{max_norm!r}")
            self.max_norm = float(max_norm)
        self._lookup = ops.EmbeddingLookup()

    def construct(self, indices):
        _int_indices(indices, self.cls_name, "indices")
        return self._rows(indices, self.embedding_table)

    def _rows(self, indices, table):
        """The looked-up rows (``table`` is ``self.embedding_table``, passed in: graph mode hands
        Parameters to helpers as arguments)."""
        if self.target == "CPU":
            out = self._lookup(table, indices, 0)
        else:
            out = ops.gather(table, indices, 0)
        if self.max_norm is not None:
            out = clip_by_axis_norm(out, self.max_norm, tuple(range(indices.ndim, out.ndim)))
        return out


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """``MultiFieldEmbeddingLookup(vocab_size, embedding_size, field_size, param_init='normal',
    target='CPU', slice_mode='batch_slice', feature_num_list=None, max_norm=None, sparse=True,
    operator='SUM', dtype=float32)``: ``construct(input_indices, input_values, field_ids)``
    (each (batch, n)) looks up the rows, weights them by ``input_values`` and merges those of
    each field of each sample with ``operator`` (``'SUM'``, ``'MEAN'`` over the weights' absolute
    values, ``'MAX'`` over the entries of nonzero weight): (batch, field_size, embedding_size).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> net = nn.MultiFieldEmbeddingLookup(5, 2, field_size=3)
        >>> ids = ms.Tensor([[1, 4, 2]], ms.int32)
        >>> net(ids, ms.Tensor([[1.0, 0.5, 2.0]]), ms.Tensor([[0, 0, 2]], ms.int32)).shape
        (1, 3, 2)
    """

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", feature_num_list=None, max_norm=None, sparse=True,
                 operator="SUM", dtype=float32):
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode,
                         feature_num_list, max_norm, sparse, dtype=dtype)
        self.field_size = check_positive_int(field_size, "field_size", self.cls_name)
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"{self.cls_name}: 'operator' must be 'SUM', 'MAX' or 'MEAN', got "
                             f"{operator!r}")
        self.operator = operator

    def construct(self, input_indices, input_values, field_ids):
        owner = self.cls_name
        for what, t, kinds in (("input_indices", input_indices, (int32, int64)),
                               ("input_values", input_values, (float32,)),
                               ("field_ids", field_ids, (int32,))):
            if not isinstance(t, Tensor) or t.ndim != 2:
                raise ValueError(f"{owner}: '{what}' must be 2-D, got {describe(t)}")
            if t.dtype not in kinds:
                raise TypeError(f"{owner}: '{what}' must be {' or '.join(map(str, kinds))}, got "
                                f"{t.dtype}")
        batch = input_indices.shape[0]
        segments = batch * self.field_size
        # field f of sample b is segment b * field_size + f
        offsets = ops.reshape(ops.range(0, segments, self.field_size), (batch, 1))
        segment_ids = ops.reshape(field_ids + ops.cast(offsets, int32), (-1,))
        rows = self._rows(input_indices, self.embedding_table)
        weights = ops.reshape(input_values, (batch, input_indices.shape[1], 1))
        weighted = ops.reshape(weights * rows, (-1, self.embedding_size))
        if self.operator == "MAX":
            # entries of zero weight never win: they take the lowest float32
            weighted = weighted + ops.reshape(ops.cast(weights == 0, float32) * -3.402823466e+38,
                                              (-1, 1))
            merged = ops.unsorted_segment_max(weighted, segment_ids, segments)
            counts = ops.unsorted_segment_sum(ops.abs(ops.reshape(input_values, (-1,))),
                                              segment_ids, segments)
            merged = merged * ops.expand_dims(ops.cast(counts != 0, float32), -1)
        else:
            merged = ops.unsorted_segment_sum(weighted, segment_ids, segments)
            if self.operator == "MEAN":
                counts = ops.unsorted_segment_sum(ops.abs(ops.reshape(input_values, (-1,))),
                                                  segment_ids, segments)
                counts = ops.expand_dims(counts, -1)
                merged = ops.select(counts == 0, ops.zeros_like(merged),
                                    merged / ops.select(counts == 0, ops.ones_like(counts),
                                                        counts))
        return ops.reshape(merged, (batch, self.field_size, -1))

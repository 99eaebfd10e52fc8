"""Embedding layers beyond the golden cases: the table's gradient (dense; MindSpore 2.10 returns
one row per index without the indices), ``max_norm`` (MindSpore's ClipByNorm takes the wrong
norms), the merged fields of ``MultiFieldEmbeddingLookup`` and ``EmbeddingExt`` (no CPU kernel in
MindSpore 2.10), checked against numpy in both modes."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import ParameterTuple, Tensor, nn
from layer_helpers import both_modes

RNG = np.random.default_rng(0)
IDS = np.array([[0, 3, 3], [5, 1, 0]], np.int32)


def _table_gradient(cell, *args, cot):
    weights = ParameterTuple(cell.trainable_params())

    def loss(*xs):
        return (cell(*xs) * Tensor(cot)).sum()
    eager = ms.grad(loss, None, weights)(*args)[0].asnumpy()
    compiled = ms.jit(lambda *xs: ms.grad(loss, None, weights)(*xs))(*args)[0].asnumpy()
    return eager, compiled


@pytest.mark.parametrize("make", [lambda t: nn.EmbeddingLookup(6, 3, param_init=Tensor(t)),
                                  lambda t: nn.Embedding(6, 3, embedding_table=Tensor(t)),
                                  lambda t: nn.Embedding(6, 3, True, embedding_table=Tensor(t))])
def test_lookup_gradients_scatter_add_the_cotangents(make):
    table = RNG.normal(size=(6, 3)).astype(np.float32)
    cot = RNG.normal(size=(2, 3, 3)).astype(np.float32)
    want = np.zeros_like(table)
    np.add.at(want, IDS, cot)
    for grad in _table_gradient(make(table), Tensor(IDS), cot=cot):
        np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-7)


def test_lookup_outside_the_table_gives_zeros():
    table = RNG.normal(size=(4, 2)).astype(np.float32)
    ids = np.array([[1, 4], [-1, 3]], np.int32)
    for out in both_modes(nn.EmbeddingLookup(4, 2, param_init=Tensor(table)), Tensor(ids)):
        np.testing.assert_array_equal(out.asnumpy(), [[table[1], [0, 0]], [[0, 0], table[3]]])


def test_lookup_max_norm_clips_each_row():
    table = RNG.normal(0, 2, size=(6, 4)).astype(np.float32)
    rows = table[IDS].astype(np.float64)
    norms = np.sqrt((rows ** 2).sum(-1, keepdims=True))
    want = rows / np.maximum(norms, 1.0)
    for out in both_modes(nn.EmbeddingLookup(6, 4, param_init=Tensor(table), max_norm=1.0),
                          Tensor(IDS)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)


def _merged(table, ids, values, fields, n_fields, operator):
    batch, _ = ids.shape
    out = np.zeros((batch, n_fields, table.shape[1]))
    for b in range(batch):
        for f in range(n_fields):
            sel = fields[b] == f
            rows = table[ids[b, sel]] * values[b, sel, None]
            if operator == "SUM":
                out[b, f] = rows.sum(0)
            elif operator == "MEAN" and np.abs(values[b, sel]).sum():
                out[b, f] = rows.sum(0) / np.abs(values[b, sel]).sum()
            elif operator == "MAX" and (values[b, sel] != 0).any():
                out[b, f] = rows[values[b, sel] != 0].max(0)
    return out


@pytest.mark.parametrize("operator", ["SUM", "MEAN", "MAX"])
def test_multi_field_lookup_merges_each_field(operator):
    table = RNG.normal(size=(6, 3)).astype(np.float32)
    ids = np.array([[1, 4, 2, 0], [3, 3, 5, 1]], np.int32)
    values = np.array([[1.0, -0.5, 2.0, 0.0], [0.25, 1.0, -1.5, 3.0]], np.float32)
    fields = np.array([[0, 0, 3, 1], [1, 1, 1, 3]], np.int32)  # field 2 empty in both samples
    cell = nn.MultiFieldEmbeddingLookup(6, 3, 4, param_init=Tensor(table), operator=operator)
    want = _merged(table, ids, values, fields, 4, operator)
    for out in both_modes(cell, Tensor(ids), Tensor(values), Tensor(fields)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_multi_field_lookup_gradient_of_the_values():
    table = RNG.normal(size=(6, 3))
    cell = nn.MultiFieldEmbeddingLookup(6, 3, 2, param_init=Tensor(table.astype(np.float32)),
                                        operator="MEAN")
    ids, fields = Tensor(np.array([[1, 4, 2]], np.int32)), Tensor(np.array([[0, 0, 1]], np.int32))
    cot = Tensor(RNG.normal(size=(1, 2, 3)).astype(np.float32))
    g = ms.grad(lambda v: (cell(ids, v, fields) * cot).sum())(
        Tensor(np.array([[1.0, 2.0, 0.5]], np.float32)))
    # d/dv of (v0 r1 + v1 r4) / (|v0| + |v1|) . c  at v = (1, 2); field 1 = r2 * v2 / |v2|
    r1, r4, r2 = table[1], table[4], table[2]
    c = cot.asnumpy()[0].astype(np.float64)
    want = [((r1 * 3 - (r1 + 2 * r4)) / 9) @ c[0], ((r4 * 3 - (r1 + 2 * r4)) / 9) @ c[0],
            ((r2 * 0.5 - r2 * 0.5) / 0.25) @ c[1]]
    np.testing.assert_allclose(g.asnumpy()[0], want, rtol=1e-5, atol=1e-6)


def test_embedding_ext_keeps_the_padding_row_out_of_the_gradient():
    ms.set_seed(0)
    cell = nn.EmbeddingExt(5, 3, padding_idx=2)
    np.testing.assert_array_equal(cell.weight.asnumpy()[2], 0)
    ids = Tensor(np.array([2, 4, 2, 1]))
    out = cell(ids).asnumpy()
    np.testing.assert_array_equal(out, cell.weight.asnumpy()[[2, 4, 2, 1]])
    grad = ms.grad(lambda x: cell(x).sum(), None, cell.trainable_params())(ids)[0].asnumpy()
    np.testing.assert_array_equal(grad[:, 0], [0, 1, 0, 0, 1])
    frozen = nn.EmbeddingExt(5, 3, _weight=Tensor(np.ones((5, 3), np.float32)), _freeze=True)
    assert not frozen.weight.requires_grad
    assert repr(frozen).startswith("EmbeddingExt(num_embeddings=5, embedding_dim=3, padding_idx")
    with pytest.raises(ValueError, match="sparse=True"):
        nn.EmbeddingExt(5, 3, sparse=True)


def test_embedding_parameters_and_repr():
    emb = nn.Embedding(4, 2, padding_idx=1)
    np.testing.assert_array_equal(emb.embedding_table.asnumpy()[1], 0)
    assert 0 < np.abs(emb.embedding_table.asnumpy()).max() < 0.1  # Normal(0.01)
    assert repr(emb).startswith("Embedding(vocab_size=4, embedding_size=2, use_one_hot=False, "
                                "embedding_table=Parameter (name=embedding_table, shape=(4, 2)")
    assert repr(emb).endswith("dtype=Float32, padding_idx=1)")
    with pytest.raises(TypeError, match="integer tensor"):
        emb(Tensor(np.array([0.0, 1.0], np.float32)))

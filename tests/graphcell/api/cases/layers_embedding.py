"""Golden cases of the embedding layers (``graphcell/nn/layers/embedding.py``): the looked-up rows
and the gradient of the table.

MindSpore 2.10's gradient of ``EmbeddingLookup``'s table is one row per index (its sparse form,
with the indices dropped), so those cases compare values only;
``tests/graphcell/nn/test_layers_embedding.py`` checks graphcell's dense gradients.
"""
import numpy as np

from golden_cases import T, case


def IDS():  # noqa: N802 - fresh inputs per case (a T is numbered by the case holding it)
    return T(np.array([[0, 3, 3], [5, 1, 0]]), "int32")


def FIELD_INPUTS():  # noqa: N802
    return (T(np.array([[1, 4, 2, 0], [3, 3, 5, 1]]), "int32"),
            T(np.array([[1.0, -0.5, 2.0, 0.0], [0.25, 1.0, -1.5, 3.0]], np.float32)),
            T(np.array([[0, 0, 2, 1], [1, 1, 1, 2]]), "int32"))

CASES = [
    case("nn.Embedding", IDS(),
         init=dict(vocab_size=6, embedding_size=4, embedding_table=T((6, 4)))),
    case("nn.Embedding", T(np.array([2, 4, 0]), "int64"),
         init=dict(vocab_size=6, embedding_size=3, use_one_hot=True, embedding_table=T((6, 3)))),
    case("nn.Embedding", IDS(),
         init=dict(vocab_size=6, embedding_size=2, embedding_table=T((6, 2)), padding_idx=3)),
    case("nn.Embedding", IDS(), init=dict(vocab_size=6, embedding_size=2, padding_idx=6),
         id="padding_idx"),
    case("nn.Embedding", IDS(), init=dict(vocab_size=6.0, embedding_size=2), id="vocab_float"),
    case("nn.EmbeddingLookup", IDS(),
         init=dict(vocab_size=6, embedding_size=3, param_init=T((6, 3))), grad=False),
    case("nn.EmbeddingLookup", T(np.array([[1, 7], [-1, 2]]), "int32"),
         init=dict(vocab_size=6, embedding_size=3, param_init=T((6, 3))), grad=False),
    case("nn.EmbeddingLookup", IDS(),  # a dense Gather: its gradient is compared
         init=dict(vocab_size=6, embedding_size=3, param_init=T((6, 3)), target="DEVICE",
                   sparse=False)),
    # max_norm: MindSpore 2.10's ClipByNorm takes the norms over the wrong elements
    # (tests/graphcell/nn/test_layers_embedding.py checks graphcell's against numpy)
    case("nn.EmbeddingLookup", IDS(), init=dict(vocab_size=6, embedding_size=3, sparse=False),
         id="dense_on_cpu"),
    case("nn.MultiFieldEmbeddingLookup", *FIELD_INPUTS(),
         init=dict(vocab_size=6, embedding_size=3, field_size=3, param_init=T((6, 3))),
         grad=False),
    case("nn.MultiFieldEmbeddingLookup", *FIELD_INPUTS(),
         init=dict(vocab_size=6, embedding_size=3, field_size=3, param_init=T((6, 3)),
                   operator="MEAN"), grad=False),
    case("nn.MultiFieldEmbeddingLookup", *FIELD_INPUTS(),
         init=dict(vocab_size=6, embedding_size=3, field_size=3, param_init=T((6, 3)),
                   operator="MAX"), grad=False),
]

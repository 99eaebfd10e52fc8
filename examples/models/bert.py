"""A small BERT encoder with a sequence-classification head, in MindSpore model-zoo style.

Embeddings (word + position + token type, LayerNorm, dropout), ``num_layers`` encoder layers
(multi-head self-attention with an additive padding mask, a GELU feed-forward, post-LayerNorm
residuals) held in an ``nn.CellList``, a pooler (Dense + Tanh on the first token) and a classifier.

``BertClassifier`` takes one tensor of token ids, so it trains under
``nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)``: the padding mask is ``input_ids != 0``
and the token types follow BERT's sentence pairs (``[CLS] A [SEP] B [SEP]``: type 0 up to and
including the first ``[SEP]``, type 1 after it). The file uses only MindSpore names, so it runs
unchanged under MindSpore when the module ``graphcell`` is mapped to ``mindspore``::

    from examples.models.bert import bert_classifier
    net = bert_classifier("small")        # 2 layers, hidden 32, up to 16 tokens
    logits = net(input_ids)               # (batch, num_labels)
"""
from dataclasses import dataclass, replace

import numpy as np

import graphcell as ms
from graphcell import nn, ops

PAD_ID = 0
CLS_ID = 1
SEP_ID = 2


@dataclass(frozen=True)
class BertConfig:
    """The sizes of a BERT."""
    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    max_position: int
    type_vocab_size: int
    num_labels: int
    dropout: float = 0.0   # p of every Dropout: 0 keeps train mode deterministic for the tests


# The default tests' size: 2 layers, hidden 32, 4 heads (the tests feed 2 sequences of 8 tokens).
# A vocabulary of 16 makes random token ids hit [PAD] and [SEP] often, so the tests' inputs
# exercise the padding mask and both token types.
SMALL = BertConfig(vocab_size=16, hidden_size=32, num_layers=2, num_heads=4, intermediate_size=64,
                   max_position=16, type_vocab_size=2, num_labels=3)
# BERT-base (the benchmark feeds it sequences of 128 tokens).
BASE = BertConfig(vocab_size=30522, hidden_size=768, num_layers=12, num_heads=12,
                  intermediate_size=3072, max_position=512, type_vocab_size=2, num_labels=2)
# BERT-base's width and vocabulary with 4 of its 12 layers: the slow tests' size (the goldens of
# all 12 layers would pass the 2 MB a golden file may take).
BASE_4_LAYERS = replace(BASE, num_layers=4)
CONFIGS = {"small": SMALL, "base": BASE, "base_4_layers": BASE_4_LAYERS}


class BertEmbeddings(nn.Cell):
    """Token ids and token types -> LayerNorm(word + position + token-type embeddings)."""

    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.layer_norm = nn.LayerNorm((config.hidden_size,), epsilon=1e-12)
        self.dropout = nn.Dropout(p=config.dropout)
        self.position_ids = ms.Tensor(np.arange(config.max_position).reshape(1, -1), ms.int32)

    def construct(self, input_ids, token_type_ids):
        seq_length = input_ids.shape[1]
        position_ids = self.position_ids[:, :seq_length]
        embeddings = (self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
                      + self.token_type_embeddings(token_type_ids))
        return self.dropout(self.layer_norm(embeddings))


class BertSelfAttention(nn.Cell):
    """Multi-head scaled dot-product self-attention with an additive attention mask."""

    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_heads
        self.head_size = config.hidden_size // config.num_heads
        self.scale = 1.0 / self.head_size ** 0.5
        self.query = nn.Dense(config.hidden_size, config.hidden_size)
        # No bias on the keys: q.(k_j + b) = q.k_j + q.b adds the same number to every score of
        # a query, which softmax ignores, so that bias would get a gradient of exactly zero, and
        # float32 rounding noise (of either sign, in MindSpore's two modes too) in its place,
        # which Adam's first step turns into updates of +-lr (Whisper leaves it out likewise).
        self.key = nn.Dense(config.hidden_size, config.hidden_size, has_bias=False)
        self.value = nn.Dense(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(p=config.dropout)
        self.softmax = nn.Softmax(axis=-1)
        self.reshape = ops.Reshape()
        self.transpose = ops.Transpose()

    def transpose_for_scores(self, x):
        batch, seq, _ = x.shape
        x = self.reshape(x, (batch, seq, self.num_heads, self.head_size))
        return self.transpose(x, (0, 2, 1, 3))

    def construct(self, hidden_states, attention_mask):
        batch, seq, hidden = hidden_states.shape
        query = self.transpose_for_scores(self.query(hidden_states))
        key = self.transpose_for_scores(self.key(hidden_states))
        value = self.transpose_for_scores(self.value(hidden_states))
        scores = ops.matmul(query, key.swapaxes(-1, -2)) * self.scale + attention_mask
        probs = self.dropout(self.softmax(scores))
        context = ops.matmul(probs, value)
        context = self.transpose(context, (0, 2, 1, 3))
        return self.reshape(context, (batch, seq, hidden))


class BertResidualOutput(nn.Cell):
    """LayerNorm(residual + dropout(Dense(x))): the output half of attention and feed-forward."""

    def __init__(self, in_size, hidden_size, dropout):
        super().__init__()
        self.dense = nn.Dense(in_size, hidden_size)
        self.dropout = nn.Dropout(p=dropout)
        self.layer_norm = nn.LayerNorm((hidden_size,), epsilon=1e-12)

    def construct(self, x, residual):
        return self.layer_norm(residual + self.dropout(self.dense(x)))


class BertLayer(nn.Cell):
    """One encoder layer: self-attention, then the GELU feed-forward, each with a residual."""

    def __init__(self, config):
        super().__init__()
        self.attention = BertSelfAttention(config)
        self.attention_output = BertResidualOutput(config.hidden_size, config.hidden_size,
                                                   config.dropout)
        self.intermediate = nn.SequentialCell([
            nn.Dense(config.hidden_size, config.intermediate_size), nn.GELU()])
        self.output = BertResidualOutput(config.intermediate_size, config.hidden_size,
                                         config.dropout)

    def construct(self, hidden_states, attention_mask):
        attended = self.attention(hidden_states, attention_mask)
        attended = self.attention_output(attended, hidden_states)
        return self.output(self.intermediate(attended), attended)


class BertPooler(nn.Cell):
    """tanh(Dense(first token's hidden state))."""

    def __init__(self, config):
        super().__init__()
        self.dense = nn.Dense(config.hidden_size, config.hidden_size, activation="tanh")

    def construct(self, hidden_states):
        return self.dense(hidden_states[:, 0])


class BertModel(nn.Cell):
    """(input_ids, token_type_ids, input_mask) -> (sequence output, pooled output)."""

    def __init__(self, config):
        super().__init__()
        self.embeddings = BertEmbeddings(config)
        self.layers = nn.CellList([BertLayer(config) for _ in range(config.num_layers)])
        self.pooler = BertPooler(config)

    def construct(self, input_ids, token_type_ids, input_mask):
        # 0 where attention is allowed, -10000 on padding: added to the attention scores
        mask = ops.expand_dims(ops.expand_dims(input_mask, 1), 1)
        attention_mask = (1.0 - mask) * -10000.0
        hidden_states = self.embeddings(input_ids, token_type_ids)
        for layer in self.layers:
            hidden_states = layer(hidden_states, attention_mask)
        return hidden_states, self.pooler(hidden_states)


class BertClassifier(nn.Cell):
    """Token ids (batch, seq) -> logits (batch, num_labels) from BERT's pooled output."""

    def __init__(self, config):
        super().__init__()
        self.bert = BertModel(config)
        self.dropout = nn.Dropout(p=config.dropout)
        self.classifier = nn.Dense(config.hidden_size, config.num_labels)
        self.cast = ops.Cast()

    def segment_ids(self, input_ids):
        """0 up to and including the first [SEP], 1 after it."""
        is_sep = self.cast(ops.equal(input_ids, SEP_ID), ms.int32)
        seps_before = ops.cumsum(is_sep, axis=1) - is_sep
        return ops.minimum(seps_before, 1)

    def construct(self, input_ids):
        input_mask = self.cast(ops.not_equal(input_ids, PAD_ID), ms.float32)
        _, pooled = self.bert(input_ids, self.segment_ids(input_ids), input_mask)
        return self.classifier(self.dropout(pooled))


def bert_classifier(size="small"):
    """A BERT classifier of one of the sizes of ``CONFIGS`` (``"small"``, ``"base"``)."""
    return BertClassifier(CONFIGS[size])


"""An LSTM text classifier in the style of MindSpore's model-zoo sentiment network.

Token ids (batch, seq) -> ``nn.Embedding`` -> a bidirectional multi-layer ``nn.LSTM`` (time-major,
as the zoo's network feeds it) -> the outputs of the first and the last time step, concatenated
-> ``nn.Dense`` -> class logits. The file uses only MindSpore names, so it runs unchanged under
MindSpore when the module ``graphcell`` is mapped to ``mindspore``::

    from examples.models.lstm_classifier import lstm_classifier
    net = lstm_classifier("small")       # 2 bidirectional layers of 16, vocabulary of 50
    logits = net(token_ids)               # (batch, num_classes)
"""
from dataclasses import dataclass

import graphcell as ms
from graphcell import nn, ops


@dataclass(frozen=True)
class LSTMClassifierConfig:
    """The sizes of the classifier."""
    vocab_size: int
    embed_size: int
    hidden_size: int
    num_layers: int
    bidirectional: bool
    num_classes: int
    cell: str = "LSTM"          # the recurrent layer: nn.LSTM, nn.GRU or nn.RNN


# The default tests' size (the tests feed 2 sequences of 8 tokens).
SMALL = LSTMClassifierConfig(vocab_size=50, embed_size=16, hidden_size=16, num_layers=2,
                             bidirectional=True, num_classes=2)
# The zoo's IMDB sentiment network: 300-d embeddings, 2 bidirectional layers of 100 (it reads
# reviews of 500 tokens).
FULL = LSTMClassifierConfig(vocab_size=20000, embed_size=300, hidden_size=100, num_layers=2,
                            bidirectional=True, num_classes=2)
# The same network with a GRU in place of the LSTM (a benchmark of the other gated layer).
FULL_GRU = LSTMClassifierConfig(vocab_size=20000, embed_size=300, hidden_size=100, num_layers=2,
                                bidirectional=True, num_classes=2, cell="GRU")
CONFIGS = {"small": SMALL, "full": FULL, "full_gru": FULL_GRU}


class SentimentNet(nn.Cell):
    """Embedding -> LSTM -> concat(first step, last step) -> Dense."""

    def __init__(self, config):
        super().__init__()
        self.embedding = nn.Embedding(config.vocab_size, config.embed_size)
        self.permute = ops.Transpose()
        self.perm = (1, 0, 2)
        self.encoder = getattr(nn, config.cell)(
            input_size=config.embed_size, hidden_size=config.hidden_size,
            num_layers=config.num_layers, has_bias=True, bidirectional=config.bidirectional,
            dropout=0.0)
        self.concat = ops.Concat(axis=1)
        directions = 2 if config.bidirectional else 1
        self.decoder = nn.Dense(config.hidden_size * directions * 2, config.num_classes)

    def construct(self, inputs):
        embeddings = self.permute(self.embedding(inputs), self.perm)   # (seq, batch, embed)
        outputs, _ = self.encoder(embeddings)
        encoding = self.concat((outputs[0], outputs[-1]))
        return self.decoder(encoding)


def lstm_classifier(size="small"):
    """An LSTM classifier of one of the sizes of ``CONFIGS`` (``"small"``, ``"full"``; or
    ``"full_gru"``, the full size with a GRU)."""
    return SentimentNet(CONFIGS[size])


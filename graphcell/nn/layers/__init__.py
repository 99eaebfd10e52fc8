"""``graphcell.nn`` layers: MindSpore's constructors, defaults and parameter names.

Every layer is an ``nn.Cell`` whose ``construct`` calls registry ops only, so gradients, hooks
and (later) graph mode need nothing layer-specific.
"""
from graphcell.nn.layers.activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh, get_activation
from graphcell.nn.layers.basic import Dropout, Flatten, MatMul
from graphcell.nn.layers.conv import Conv2d
from graphcell.nn.layers.dense import Dense
from graphcell.nn.layers.normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from graphcell.nn.layers.pooling import AvgPool2d, MaxPool2d
from graphcell.nn.layers.rnn_cells import GRUCell, LSTMCell, RNNCell
from graphcell.nn.layers.rnns import GRU, LSTM, RNN
from graphcell.nn.layers.transformer import (MultiheadAttention, Transformer, TransformerDecoder,
                                             TransformerDecoderLayer, TransformerEncoder,
                                             TransformerEncoderLayer)

__all__ = ["ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "get_activation", "Dense",
           "Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Flatten", "Dropout",
           "MatMul", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "LayerNorm",
           "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]

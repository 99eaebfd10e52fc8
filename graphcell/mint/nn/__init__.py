"""``mint.nn``: MindSpore's PyTorch-style layers. Most are graphcell ``nn`` layers under mint's
names (``Linear``, ``LayerNorm`` = ``nn.LayerNormExt``, ``Embedding`` = ``nn.EmbeddingExt``,
``Dropout`` = ``nn.DropoutExt``, ``MaxPool2d`` = ``nn.MaxPool2dExt``...); the rest are small cells
over ``mint.nn.functional`` (``graphcell/mint/nn/layers.py``).

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> net = ms.nn.SequentialCell([mint.nn.Linear(4, 8), mint.nn.GELU(), mint.nn.Linear(8, 2)])
    >>> net(mint.ones((3, 4))).shape
    (3, 2)
"""
from graphcell import nn as _nn
from graphcell.mint.nn import functional  # noqa: F401 - mint.nn.functional
from graphcell.mint.nn.layers import *  # noqa: F401,F403 - the public names
from graphcell.mint.nn import layers as _layers

# graphcell's nn layers that are mint's (MindSpore 2.10's mint.nn imports the same classes)
AdaptiveAvgPool1d = _nn.AdaptiveAvgPool1d
AdaptiveAvgPool2d = _nn.AdaptiveAvgPool2d
AdaptiveAvgPool3d = _nn.AdaptiveAvgPool3d
AdaptiveMaxPool2d = _nn.AdaptiveMaxPool2d
AvgPool1d = _nn.AvgPool1dExt
AvgPool2d = _nn.AvgPool2dExt
AvgPool3d = _nn.AvgPool3dExt
ConstantPad1d = _nn.ConstantPad1d
ConstantPad2d = _nn.ConstantPad2d
ConstantPad3d = _nn.ConstantPad3d
CosineEmbeddingLoss = _nn.CosineEmbeddingLoss
Dropout = _nn.DropoutExt
Dropout2d = _nn.Dropout2dExt
Embedding = _nn.EmbeddingExt
Flatten = _nn.Flatten
Hardshrink = _nn.HShrink
Hardsigmoid = _nn.HSigmoid
Hardswish = _nn.HSwish
Identity = _nn.Identity
LayerNorm = _nn.LayerNormExt
Linear = _nn.Linear
LogSoftmax = _nn.LogSoftmaxExt
MaxPool2d = _nn.MaxPool2dExt
MaxUnpool2d = _nn.MaxUnpool2d
PReLU = _nn.PReLUExt
PixelShuffle = _nn.PixelShuffle
ReLU = _nn.ReLU
ReflectionPad1d = _nn.ReflectionPad1d
ReflectionPad2d = _nn.ReflectionPad2d
ReflectionPad3d = _nn.ReflectionPad3d
ReplicationPad1d = _nn.ReplicationPad1d
ReplicationPad2d = _nn.ReplicationPad2d
ReplicationPad3d = _nn.ReplicationPad3d
SoftMarginLoss = _nn.SoftMarginLoss
Softshrink = _nn.SoftShrink
ZeroPad2d = _nn.ZeroPad2d

__all__ = sorted({*_layers.__all__, "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
                  "AdaptiveMaxPool2d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "ConstantPad1d",
                  "ConstantPad2d", "ConstantPad3d", "CosineEmbeddingLoss",
                  "Dropout", "Dropout2d", "Embedding", "Flatten", "Hardshrink", "Hardsigmoid",
                  "Hardswish", "Identity", "LayerNorm", "Linear", "LogSoftmax", "MaxPool2d",
                  "MaxUnpool2d", "PReLU", "PixelShuffle", "ReLU", "ReflectionPad1d",
                  "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
                  "ReplicationPad3d", "SoftMarginLoss", "Softshrink", "ZeroPad2d"})


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.mint.nn", name, "module 'graphcell.mint.nn'")

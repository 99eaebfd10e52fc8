"""Record how MindSpore 2.10 prints layers (``repr``, from each layer's ``extend_repr``), for
``tests/graphcell/nn/test_layer_reprs.py``.

    /opt/msvenv/bin/python tools/record_layer_reprs.py

``LAYERS`` are constructor calls evaluated with ``nn`` bound to the framework's module (this
module imports nothing at import time, so the test reads the same list). Initialisers print as
objects with addresses in MindSpore (``<mindspore.common.initializer.HeUniform object at 0x..>``)
and with their settings in graphcell (``HeUniform(negative_slope=...)``): :func:`normalise`
prints both as ``<HeUniform>``. Writes ``tests/graphcell/nn/goldens/layer_reprs.json``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "nn" / "goldens" / \
    "layer_reprs.json"

LAYERS = [
    "ReLU()", "ReLU6()", "GELU()", "GELU(False)", "Softmax(1)", "LeakyReLU(0.1)", "PReLU(3)",
    "ELU()", "Hardtanh()", "Softmin()", "LogSoftmax()", "RReLU()", "Threshold(0.1, 2.0)",
    "Dense(3, 2)", "Dense(3, 2, has_bias=False)", "Dense(3, 2, activation='relu')",
    "Linear(3, 2)", "BiDense(2, 3, 4)",
    "Conv1d(2, 3, 3)", "Conv2d(2, 4, 3, stride=2, pad_mode='pad', padding=1, has_bias=True)",
    "Conv3d(1, 2, 3)", "Conv1dTranspose(2, 3, 3)", "Conv2dTranspose(2, 3, 3, stride=2)",
    "Conv3dTranspose(2, 3, 3)",
    "MaxPool1d(2, 2)", "MaxPool1d(2, 2, pad_mode='pad')", "MaxPool2d(2)",
    "MaxPool2d((2, 3), 2, pad_mode='same')", "MaxPool3d(2, 2)", "AvgPool1d(3, 2)",
    "AvgPool1d(3, 2, pad_mode='pad')", "AvgPool2d(2, 2)", "AvgPool2d(2, 2, pad_mode='pad')",
    "AvgPool3d(2)", "AdaptiveAvgPool2d(2)", "AdaptiveMaxPool1d(2)", "LPPool2d(2, 2)",
    "MaxUnpool2d(2)",
    "BatchNorm1d(3)", "BatchNorm2d(3, momentum=0.5)", "BatchNorm3d(2)", "SyncBatchNorm(2)",
    "GroupNorm(2, 4)", "LayerNormExt(4)",
    "Dropout(p=0.2)", "Dropout(keep_prob=0.8)", "Dropout1d(0.3)", "Dropout3d()", "Flatten()",
    "Unflatten(1, (2, 3))", "Identity()", "Embedding(5, 3, padding_idx=1)",
    "EmbeddingLookup(5, 3)", "OneHot(depth=3)", "Pad(((1, 1),))", "Norm(axis=1)", "ClipByNorm()",
    "ConstantPad2d(1, 0.5)", "ZeroPad2d(1)", "ReflectionPad1d(2)", "ReplicationPad3d(1)",
    "PixelShuffle(2)", "CentralCrop(0.5)", "Upsample(scale_factor=2.0)", "ChannelShuffle(2)",
    "L1Regularizer(0.5)", "MatMul()", "Moments()", "Range(3)",
    "SequentialCell([nn.Dense(2, 2), nn.ReLU()])", "CellDict({'a': nn.ReLU()})",
    "DenseBnAct(2, 3, has_bn=True)", "Conv2dBnAct(1, 2, 3, activation='relu')",
]
"""Constructor calls; the layers whose MindSpore print is wrong (``Dropout2d``, ``LayerNorm``)
are tested on their own."""


def normalise(text: str) -> str:
    """Initialisers as ``<Name>``, whichever way the framework prints them."""
    text = re.sub(r"<mindspore\.common\.initializer\.(\w+) object at 0x[0-9a-f]+>", r"<\1>", text)
    return re.sub(r"\b(HeUniform|Uniform|Normal)\([^)]*\)", r"<\1>", text)


def reprs(nn) -> dict[str, str]:
    return {spec: normalise(repr(eval("nn." + spec, {"nn": nn}))) for spec in LAYERS}  # noqa: S307


if __name__ == "__main__":
    import mindspore
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(reprs(mindspore.nn), indent=1, sort_keys=True) + "\n")
    print(f"{len(LAYERS)} layers -> {GOLDEN}")

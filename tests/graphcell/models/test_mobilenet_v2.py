"""MobileNetV2 (``examples/models/mobilenet_v2.py``, Dropout p=0) against MindSpore 2.10:
forward, loss and gradients, one Momentum step, in PyNative and GRAPH_MODE (``model_harness``;
goldens from ``tools/record_model_goldens.py``).

Tolerances, measured (graphcell against MindSpore, the same weights and a 2x3x64x64 batch in
train mode): the logits agree to 6e-5 and the loss to 8e-7 (``RTOL`` 1e-4 holds). The
gradients are compared in norm, as for ResNet50 (``test_resnet.py``): float32 rounding compounds
through 52 convolutions and batch norms over few values per channel (the last stages see 2x2
and 4x4 maps), and flips ReLU6 masks of values within rounding of zero — in graph mode, the
pre-activation 3.5e-6 of ``features.11``'s expansion, channel 176, whose gradient then differs by
a factor of 2 and every gradient before it by up to 1.5e-2 in norm (PyNative: 7e-4; the
parameters after the step: 8e-3). ``PARAMETER_RTOL`` is 5e-2. The
shifts of the batch norms that end the blocks without a residual connection have a zero
gradient in exact arithmetic (the next block's 1x1 convolution and batch norm remove any
per-channel constant): 1e-7 of the model's gradient scale in both frameworks, noise that the
harness's ``NOISE`` floor accepts.
"""
import pytest

from model_harness import MODES, PHASES, check_model

RTOL = 1e-4
PARAMETER_RTOL = 5e-2


@pytest.mark.parametrize("phase", ["forward", pytest.param("gradients", marks=pytest.mark.slow),
                                   pytest.param("step", marks=pytest.mark.slow)])
def test_mobilenet_v2_graph_mode(phase):
    check_model("mobilenet_v2", "graph", phase, rtol=RTOL, parameter_rtol=PARAMETER_RTOL)


@pytest.mark.parametrize("phase", ["forward", "gradients",
                                   pytest.param("step", marks=pytest.mark.slow)])
def test_mobilenet_v2_pynative(phase):
    check_model("mobilenet_v2", "pynative", phase, rtol=RTOL, parameter_rtol=PARAMETER_RTOL)

"""DenseNet121 (``examples/models/densenet.py``) against MindSpore 2.10: forward, loss and
gradients, one Momentum step, in PyNative and GRAPH_MODE (``model_harness``; goldens from
``tools/record_model_goldens.py``).

Tolerances, measured (graphcell against MindSpore, the same weights and a 2x3x64x64 batch in
train mode): the logits agree to 1.6e-5 and the loss to 6e-7 (``RTOL`` 1e-4 holds). As in
ResNet50 (``test_resnet.py`` explains it), float32 rounding compounds through 120 convolutions
and batch norms over few values per channel (the last dense block's: 8), flipping ReLU masks of
values within rounding of zero, so the gradients and the parameters after the step are compared
in norm: they agree to 8.8e-3 and 8e-4 (``PARAMETER_RTOL`` 5e-2).

DenseNet121 is the biggest of the three (a PyNative forward pass takes seconds, its train step
compiles 5000 ops): the forward passes run by default; gradients and steps are slow tests.
"""
import pytest

from model_harness import check_model

RTOL = 1e-4
PARAMETER_RTOL = 5e-2


@pytest.mark.parametrize("phase", ["forward", pytest.param("gradients", marks=pytest.mark.slow),
                                   pytest.param("step", marks=pytest.mark.slow)])
def test_densenet121_graph_mode(phase):
    check_model("densenet121", "graph", phase, rtol=RTOL, parameter_rtol=PARAMETER_RTOL)


@pytest.mark.parametrize("phase", ["forward", pytest.param("gradients", marks=pytest.mark.slow),
                                   pytest.param("step", marks=pytest.mark.slow)])
def test_densenet121_pynative(phase):
    check_model("densenet121", "pynative", phase, rtol=RTOL, parameter_rtol=PARAMETER_RTOL)

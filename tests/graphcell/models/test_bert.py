"""A small BERT encoder with a classifier head (``examples/models/bert.py``) against MindSpore
2.10: forward, loss and gradients, one Adam step, in PyNative and GRAPH_MODE (``model_harness``;
goldens from ``tools/record_model_goldens.py``)."""
import pytest

from model_harness import MODES, PHASES, check_model


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("mode", MODES)
def test_bert_small(mode, phase):
    check_model("bert", mode, phase)


@pytest.mark.slow
@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("mode", MODES)
def test_bert_base_width_4_layers(mode, phase):
    check_model("bert_base_4_layers", mode, phase)

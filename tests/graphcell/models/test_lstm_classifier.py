"""An LSTM text classifier (``examples/models/lstm_classifier.py``) against MindSpore 2.10:
forward, loss and gradients, one Momentum step, in PyNative and GRAPH_MODE (``model_harness``;
goldens from ``tools/record_model_goldens.py``)."""
import pytest

from model_harness import MODES, PHASES, check_model


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("mode", MODES)
def test_lstm_classifier(mode, phase):
    check_model("lstm_classifier", mode, phase)


@pytest.mark.slow
@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("mode", MODES)
def test_lstm_classifier_full_size(mode, phase):
    check_model("lstm_classifier_full", mode, phase)

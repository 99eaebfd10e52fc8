"""A ViT block (``examples/models/vit.py``) against MindSpore 2.10: forward, loss and gradients,
one Adam step, in PyNative and GRAPH_MODE (``model_harness``; goldens from
``tools/record_model_goldens.py``)."""
import pytest

from model_harness import MODES, PHASES, check_model


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("mode", MODES)
def test_vit_block(mode, phase):
    check_model("vit", mode, phase)


@pytest.mark.slow
@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("mode", MODES)
def test_vit_base_width_4_blocks(mode, phase):
    check_model("vit_base_4_blocks", mode, phase)

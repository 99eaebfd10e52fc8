"""Layers print as MindSpore 2.10 prints them (``tools/record_layer_reprs.py`` recorded it);
the two whose MindSpore print is wrong print what they hold."""
import json

import pytest

from graphcell import nn
from tools.record_layer_reprs import GOLDEN, LAYERS, normalise

RECORDED = json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("spec", LAYERS)
def test_layer_prints_as_mindspore(spec):
    assert normalise(repr(eval("nn." + spec, {"nn": nn}))) == RECORDED[spec]  # noqa: S307


def test_where_mindspores_print_is_wrong():
    # MindSpore 2.10 prints Dropout2d(p=<keep probability>) and LayerNorm(... gammaParameter ...)
    assert repr(nn.Dropout2d(0.2)) == "Dropout2d(p=0.2)"
    assert ", gamma=Parameter (name=gamma" in repr(nn.LayerNorm((3,)))

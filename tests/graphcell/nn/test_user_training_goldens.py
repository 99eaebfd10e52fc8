"""``user_training_cases.py`` (a user-defined ``nn.Optimizer`` and ``nn.LossBase``, a network
in ``CellList``/``CellDict``, ``TrainOneStepCell``) on graphcell in PyNative and graph mode,
against MindSpore 2.10's runs of the same file in both its modes
(``tools/record_user_training_goldens.py``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import graphcell as ms

import user_training_cases as U

GOLDENS = np.load(Path(__file__).parent / "goldens" / "user_training.npz")


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("cid", sorted(U.CASES))
def test_user_defined_training_matches_mindspore(cid, mode):
    got = U.train(**U.CASES[cid])
    for ms_mode in ("pynative", "graph"):
        prefix = f"{ms_mode}/{cid}/"
        want = {k[len(prefix):]: GOLDENS[k] for k in GOLDENS.files if k.startswith(prefix)}
        assert sorted(got) == sorted(want)
        for key, value in want.items():
            np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{key} against MindSpore's {ms_mode} mode")
    assert got["losses"][-1] < got["losses"][0]  # the program trains

"""dtypes, set_context/get_context, set_seed."""
import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell import context, dtype as mstype


@pytest.fixture(autouse=True)
def _fresh_context():
    yield
    context._reset_for_tests()


def test_dtypes_print_mindspore_names():
    assert str(ms.float32) == "Float32" and repr(ms.int64) == "Int64" and str(ms.bool_) == "Bool"
    assert mstype.float32 is ms.float32 and ms.mstype is ms.dtype
    assert mstype.dtype_to_nptype(mstype.int32) is np.int32
    assert mstype.pytype_to_dtype(float) == ms.float32


def test_modes_and_default_is_pynative():
    assert (ms.GRAPH_MODE, ms.PYNATIVE_MODE) == (0, 1)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    ms.set_context(mode=ms.GRAPH_MODE)
    assert context.get_context("mode") == 0


def test_context_keys_round_trip(tmp_path):
    ms.set_context(pynative_synchronize=True, save_graphs=True, save_graphs_path=str(tmp_path))
    assert ms.get_context("pynative_synchronize") is True
    assert ms.get_context("save_graphs") is True
    assert ms.get_context("save_graphs_path") == str(tmp_path)


def test_gpu_and_ascend_are_accepted_with_a_warning():
    with pytest.warns(RuntimeWarning, match="runs on the CPU"):
        ms.set_context(device_target="GPU")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ms.set_context(device_target="CPU")


def test_unknown_key_raises_and_changes_nothing():
    with pytest.raises(ValueError, match="unknown key.*'modee'.*valid keys are"):
        ms.set_context(mode=ms.GRAPH_MODE, modee=1)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_bad_value_raises_and_changes_nothing():
    with pytest.raises(ValueError, match="set_context: mode must be"):
        ms.set_context(save_graphs=True, mode=7)
    assert ms.get_context("save_graphs") is False
    with pytest.raises(ValueError, match="unknown key"):
        ms.get_context("nope")


def test_set_seed_validates():
    with pytest.raises(ValueError, match="set_seed"):
        ms.set_seed(-1)
    ms.set_seed(5)
    assert ms.get_seed() == 5

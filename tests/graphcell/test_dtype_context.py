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
    assert ms.get_context("save_graphs") == 2  # MindSpore records True as level 2
    assert ms.get_context("save_graphs_path") == str(tmp_path)


def test_every_key_mindspore_accepts_on_the_cpu_is_accepted_and_recorded():
    ms.set_context(jit_config={"jit_level": "O0"}, max_call_depth=200, deterministic="ON",
                   runtime_num_threads=1, jit_syntax_level=context.STRICT, op_timeout=10,
                   enable_compile_cache=True, memory_optimize_level="O1", device_id=0)
    assert ms.get_context("jit_config") == {"jit_level": "O0"}
    assert ms.get_context("jit_level") == "O0"  # jit_config's level is the jit level
    assert ms.get_context("max_call_depth") == 200 and ms.get_context("deterministic") == "ON"
    with pytest.raises(ValueError, match="jit_config"):
        ms.set_context(jit_config={"jit_level": "O5"})
    with pytest.raises(ValueError, match="removed since MindSpore 2.10"):
        ms.set_context(grad_for_scalar=True)
    with pytest.raises(ValueError, match="ascend_config"):
        ms.set_context(precision_mode="force_fp16")
    with pytest.warns(DeprecationWarning, match="enable_sparse"):
        ms.set_context(enable_sparse=True)


def test_set_device_is_set_context_of_the_device():
    ms.set_device("CPU", 0)
    assert ms.get_context("device_target") == "CPU" and ms.get_context("device_id") == 0


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
    assert ms.get_context("save_graphs") == 0
    with pytest.raises(ValueError, match="unknown key"):
        ms.get_context("nope")


def test_set_seed_validates():
    with pytest.raises(ValueError, match="set_seed"):
        ms.set_seed(-1)
    ms.set_seed(5)
    assert ms.get_seed() == 5

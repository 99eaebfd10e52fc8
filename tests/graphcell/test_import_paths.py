"""MindSpore's import paths, renamed, reach graphcell's objects (DESIGN §12: renaming the package
runs real code)."""
import importlib

import numpy as np
import pytest

import graphcell as ms


@pytest.mark.parametrize("line", [
    "from graphcell.ops import operations as P",
    "import graphcell.ops.operations as P",
    "from graphcell.ops import functional as F",
    "from graphcell.ops import composite as C",
    "from graphcell.common.tensor import Tensor",
    "from graphcell.common.parameter import Parameter, ParameterTuple",
    "from graphcell.common import dtype as mstype",
    "from graphcell.common.initializer import initializer, Normal, TruncatedNormal",
    "from graphcell.common.api import jit, jit_class, ms_function",
    "from graphcell.common.jit_config import JitConfig",
    "from graphcell.common import Tensor, Parameter, set_seed, mutable",
    "from graphcell import context",
    "from graphcell.context import GRAPH_MODE, PYNATIVE_MODE, STRICT, LAX",
    "from graphcell import Tensor, Parameter, ParameterTuple, nn, ops, jit, grad, value_and_grad",
    "from graphcell.nn.layer import Dense, Conv2d, CellList",
    "from graphcell.nn.layer.activation import get_activation, GELU",
    "from graphcell.nn.layer.basic import Dropout, Flatten",
    "from graphcell.nn.layer.conv import Conv2d, Conv1dTranspose",
    "from graphcell.nn.layer.normalization import BatchNorm2d, LayerNorm",
    "from graphcell.nn.layer.pooling import MaxPool2d, AdaptiveAvgPool2d",
    "from graphcell.nn.layer.embedding import Embedding, EmbeddingLookup",
    "from graphcell.nn.layer.container import SequentialCell, CellDict",
    "from graphcell.nn.layer.rnns import LSTM, GRU",
    "from graphcell.nn.layer.rnn_cells import LSTMCell, RNNCell",
    "from graphcell.nn.layer.transformer import MultiheadAttention, Transformer",
])
def test_import_line_runs(line):
    exec(line, {})  # noqa: S102 - the import lines users write


def test_the_paths_are_aliases_of_one_object():
    from graphcell.common.api import jit
    from graphcell.ops import composite as C, functional as F, operations as P
    assert P.ReduceSum is ms.ops.ReduceSum and P.Stack is ms.ops.Stack
    assert F.stack is ms.ops.stack and F.sum is ms.ops.sum
    assert C.GradOperation is ms.ops.GradOperation and C.grad is ms.grad
    assert jit is ms.jit
    from graphcell.nn.layer.activation import GELU
    assert GELU is ms.nn.GELU
    assert importlib.import_module("graphcell.common.dtype").float32 is ms.float32


def test_toplevel_helpers():
    assert ms.tensor([1, 2], ms.int32).dtype == ms.int32
    assert ms.tensor(1.5).dtype == ms.float32
    pair = (ms.Tensor([1.0]), ms.Tensor([2.0]))
    assert ms.mutable(pair) is pair
    with pytest.raises(TypeError, match="mutable"):
        ms.mutable("text")
    assert ms.jit_class(dict) is dict
    assert ms.JitConfig(jit_level="O0").jit_config_dict["jit_level"] == "O0"
    with pytest.raises(ValueError, match="jit_level"):
        ms.JitConfig(jit_level="O9")
    assert ms.dtype_to_nptype(ms.float16) is np.float16


def test_run_check_prints_success(capsys):
    ms.run_check()
    assert "successfully" in capsys.readouterr().out

"""Indexing with tensors in graph mode: ``x[i]`` / ``x[:, i]`` with an integer index tensor (or a
list of ints) is ``take``, ``x[i] = v`` is ``scatter_update`` and ``x[mask] = v`` is ``select``;
each gives what PyNative gives, values and gradients. Reading ``x[mask]`` has a data-dependent
shape: it runs as Python when the graph runs (JIT Fallback, as MindSpore 2.10), with a warning."""
import numpy as np
import pytest
from differential import assert_same_in_both_modes
from grad_differential import assert_grads_agree

import graphcell as ms
from graphcell import Tensor, nn
from graphcell_ir.errors import GraphSyntaxError

RNG = np.random.default_rng(7)


def x34():
    return Tensor(RNG.standard_normal((3, 4)).astype(np.float32))


def idx(*values):
    return Tensor(np.array(values, np.int32))


class Gather(nn.Cell):
    def construct(self, x, i, j):
        return x[i] * 2, x[:, j], x[[2, 0]]


class Scatter(nn.Cell):
    def construct(self, x, i, v):
        x[i] = v
        x[:, i] = 0.5
        return x


class Masked(nn.Cell):
    def construct(self, x, row):
        x[x < 0] = 0.0
        y = x * 1
        y[y > 1] = row   # a value per selected element is a row of y: broadcasts
        return x, y


def test_gather_with_index_tensors_and_lists():
    assert_same_in_both_modes(Gather(), x34(), idx(2, 0, 2), idx(3, 1))


def test_a_zero_dim_index_tensor_drops_the_axis_as_an_int_would():
    out = assert_same_in_both_modes(Gather(), x34(), Tensor(np.array(1, np.int32)), idx(0))
    assert out[0].shape == (4,)


def test_scatter_with_an_index_tensor_and_a_number():
    assert_same_in_both_modes(Scatter(), x34(), idx(2, 0),
                              Tensor(RNG.standard_normal((2, 4)).astype(np.float32)))


def test_masked_store_of_a_number_and_of_a_row():
    x = Tensor(RNG.standard_normal((3, 4)).astype(np.float32) * 2)
    assert_same_in_both_modes(Masked(), x, Tensor(np.float32(-7)))


def test_the_ir_shows_take_scatter_update_and_select():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        text = Masked().compile(x34(), Tensor(np.float32(1))).as_text()
        text += Gather().compile(x34(), idx(1), idx(0)).as_text()
        text += Scatter().compile(x34(), idx(1), Tensor(np.ones(4, np.float32))).as_text()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for op in ("take(", "scatter_update(", "select("):
        assert op in text, op


def gather_sum(x, i):
    return (x[i] * x[:, i[:2]].sum()).sum()


def scatter_sum(x, i, v):
    x[i] = v * 3.0
    return (x * x).sum()


def masked_sum(x):
    x[x > 0.5] = 0.5
    return (x * x).sum()


def test_gradients_through_take_scatter_and_select_agree_with_pynative():
    x = Tensor(RNG.standard_normal((3, 3)))
    assert_grads_agree(gather_sum, x, idx(2, 0, 2))
    assert_grads_agree(scatter_sum, x, idx(0, 2), Tensor(RNG.standard_normal((2, 3))))
    assert_grads_agree(masked_sum, x)


class ReadMask(nn.Cell):
    def construct(self, x):
        return x[x > 0]


class TwoIndexTensors(nn.Cell):
    def construct(self, x, i):
        return x[i, ..., i]


class FloatIndex(nn.Cell):
    def construct(self, x):
        return x[x[0]]


class ValuePerElement(nn.Cell):
    def construct(self, x, v):
        x[x > 0] = v
        return x


@pytest.mark.parametrize("net,args,words", [
    (TwoIndexTensors(), (x34(), idx(0)), "when they (and ints among them) are adjacent"),
    (FloatIndex(), (x34(),), "must be an integer tensor"),
    (ValuePerElement(), (x34(), Tensor(np.ones(12, np.float32))), "one selected row []"),
], ids=["two-index-tensors", "float-index", "value-per-element"])
def test_what_graph_mode_cannot_index_is_named_at_the_users_line(net, args, words):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises((GraphSyntaxError, TypeError)) as e:
            net(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    text = str(e.value)
    assert words in text and "test_graph_indexing.py" in text and "x[" in text, text


class SeveralIndexTensors(nn.Cell):
    """numpy's advanced indexing with several index tensors (issue 19): one gather_nd."""

    def construct(self, x, i, j):
        return x[i, j], x[:, i, j], x[1, i], x[i[:1], j[0]]


def test_several_index_tensors_read_as_in_pynative_with_gradients():
    x = Tensor(RNG.standard_normal((3, 3, 4)).astype(np.float32))
    i, j = Tensor(np.array([0, 2], np.int64)), Tensor(np.array([[1], [-1]], np.int32))
    out = assert_same_in_both_modes(SeveralIndexTensors(), x, i, j)
    assert [o.shape for o in out] == [(2, 2, 4), (3, 2, 2), (2, 4), (1, 4)]
    assert_grads_agree(SeveralIndexTensors(), x, i, j)


def test_reading_with_a_mask_runs_as_python_with_a_warning():
    """MindSpore 2.10 runs ``x[x > 0]`` in graph mode (JIT Fallback); so does graphcell, with a
    warning (the shape depends on the data; no gradient flows through it, as in MindSpore)."""
    from graphcell.graph import GraphModeWarning
    x = x34()
    with pytest.warns(GraphModeWarning, match=r"x\[mask\] runs as Python"):
        out = assert_same_in_both_modes(ReadMask(), x)
    assert out.asnumpy().tolist() == x.asnumpy()[x.asnumpy() > 0].tolist()

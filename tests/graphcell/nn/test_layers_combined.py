"""CellDict, TimeDistributed and the combined layers' structure (names, printed forms), in both
modes where they run."""
from collections import OrderedDict

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from layer_helpers import both_modes

RNG = np.random.default_rng(0)


class Routed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellDict({"fc": nn.Dense(3, 2), "act": nn.ReLU()})
        self.blocks["out"] = nn.Dense(2, 1)

    def construct(self, x):
        return self.blocks["out"](self.blocks["act"](self.blocks["fc"](x)))


def test_cell_dict_names_parameters_and_runs_in_both_modes():
    net = Routed()
    assert [p.name for p in net.get_parameters()] == \
        ["blocks.fc.weight", "blocks.fc.bias", "blocks.out.weight", "blocks.out.bias"]
    x = Tensor(RNG.normal(size=(4, 3)).astype(np.float32))
    eager, compiled = both_modes(net, x)
    np.testing.assert_allclose(compiled.asnumpy(), eager.asnumpy(), rtol=1e-6)
    grads = ms.grad(lambda a: net(a).sum(), None, net.trainable_params())(x)
    assert [g.shape for g in grads] == [(2, 3), (2,), (1, 2), (1,)]


def test_cell_dict_mapping_interface():
    d = nn.CellDict([("a", nn.ReLU()), ("b", nn.Tanh())])
    assert list(d) == ["a", "b"] and list(d.keys()) == ["a", "b"] and len(d) == 2
    assert "a" in d and isinstance(d["b"], nn.Tanh)
    d.update(OrderedDict(c=nn.Sigmoid()))
    d.update({"a": nn.ELU()})  # replaces, keeps the place
    assert [type(c).__name__ for c in d.values()] == ["ELU", "Tanh", "Sigmoid"]
    assert isinstance(d.pop("b"), nn.Tanh) and list(d) == ["a", "c"]
    del d["a"]
    assert [k for k, _ in d.items()] == ["c"]
    d.clear()
    assert len(d) == 0 and repr(d) == "CellDict()"


@pytest.mark.parametrize("key, cell, error, message", [
    (1, nn.ReLU(), TypeError, "a key must be a str"),
    ("training", nn.ReLU(), KeyError, "is an attribute"),
    ("a.b", nn.ReLU(), KeyError, "contain no '.'"),
    ("x", nn.CellList(), TypeError, "cannot be a CellDict, CellList or SequentialCell"),
    ("x", 3, TypeError, "must be a Cell"),
])
def test_cell_dict_refuses(key, cell, error, message):
    with pytest.raises(error, match=message):
        nn.CellDict()[key] = cell


def test_cell_dict_update_refuses_bad_pairs_and_has_no_construct():
    with pytest.raises(ValueError, match="length 2"):
        nn.CellDict([("a", nn.ReLU(), 1)])
    with pytest.raises(TypeError, match="pair"):
        nn.CellDict([3])
    with pytest.raises(NotImplementedError, match="no construct"):
        nn.CellDict()(Tensor([1.0]))


@pytest.mark.parametrize("time_axis, reshape_with_axis", [(1, None), (0, None), (1, 0), (0, 1),
                                                           (-2, -3), (2, None), (2, 0)])
def test_time_distributed_applies_the_layer_per_step(time_axis, reshape_with_axis):
    x = RNG.normal(size=(4, 5, 3)).astype(np.float32)
    dense = nn.Dense(3, 2)
    w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
    want = x @ w.T + b
    if time_axis % 3 == 2:  # the last axis is time: the layer sees (4, 5) slices
        dense = nn.Dense(5, 2)
        w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
        steps = [x[:, :, t] @ w.T + b for t in range(3)]
        # merging the time axis with axis 0 moves it next to it, where the output keeps it
        want = np.stack(steps, axis=2 if reshape_with_axis is None else 1)
    net = nn.TimeDistributed(dense, time_axis, reshape_with_axis)
    for out in both_modes(net, Tensor(x)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_time_distributed_checks():
    with pytest.raises(TypeError, match="Cell or a Primitive"):
        nn.TimeDistributed(3, 1)
    with pytest.raises(ValueError, match="rank >= 3"):
        nn.TimeDistributed(nn.ReLU(), 1)(Tensor(np.ones((2, 3), np.float32)))


def test_combined_layers_children_and_reprs():
    net = nn.Conv2dBnAct(1, 2, 3, has_bn=True, activation="relu")
    assert [n for n, _ in net.name_cells().items()] == ["conv", "batchnorm", "activation"]
    assert repr(net).startswith("Conv2dBnAct(\n  (conv): Conv2d(input_channels=1, "
                                "output_channels=2, kernel_size=(3, 3)")
    assert net.batchnorm.momentum == 0.997
    plain = nn.DenseBnAct(3, 2)
    assert list(plain.name_cells()) == ["dense"] and not plain.has_bn and not plain.has_act

"""The pieces the model tests stand on: seeded weights (``examples/models/weights.py``), the
reductions of big arrays (``tools/record_model_goldens.py``) and the comparisons of
``model_harness`` — each must reject what it is there to reject."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from examples.models.weights import integer_input, normal_input, seed_parameters
from model_harness import assert_close, assert_close_in_norm
from tools.record_model_goldens import reduce_array, unpack_reduced


class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc(self.bn(self.conv(x)).mean((2, 3)))


def values(net):
    return {name: p.asnumpy().copy() for name, p in net.parameters_and_names()}


def test_seeded_weights_repeat_and_follow_the_shapes():
    a, b = Small(), Small()
    seed_parameters(a, 0)
    seed_parameters(b, 0)
    first, second = values(a), values(b)
    assert first.keys() == second.keys()
    for name in first:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)
    assert (first["bn.moving_mean"] == 0).all() and (first["bn.moving_variance"] == 1).all()
    assert abs(first["bn.gamma"].mean() - 1) < 0.3 and abs(first["bn.beta"]).max() < 0.5
    fan_in = 3 * 3 * 3
    assert 0.5 < first["conv.weight"].std() * np.sqrt(fan_in) < 1.5
    seed_parameters(b, 1)
    assert not np.array_equal(values(b)["conv.weight"], first["conv.weight"])


def test_seeded_inputs():
    x = normal_input((2, 3), 5)
    np.testing.assert_array_equal(x.asnumpy(), normal_input((2, 3), 5).asnumpy())
    assert x.dtype == ms.float32
    labels = integer_input((50,), 10, 5)
    assert labels.dtype == ms.int32 and 0 <= labels.asnumpy().min() <= labels.asnumpy().max() < 10


def test_reduction_of_big_arrays():
    small, big = np.arange(6, dtype=np.float32), np.linspace(-1, 1, 5000).astype(np.float32)
    assert reduce_array("k", small, full_limit=10) == {"k": small}
    (key, vector), = reduce_array("k", big, full_limit=10).items()
    parts = unpack_reduced(vector)
    assert key == "k#reduced"
    assert parts["sum"] == pytest.approx(big.sum(), abs=1e-9)
    assert parts["l2"] == pytest.approx(np.linalg.norm(big.astype(np.float64)))
    assert parts["signs"].shape == (3,) and parts["sample"].shape == (16,)
    assert set(parts["sample"]) <= set(big.astype(np.float64))
    np.testing.assert_array_equal(vector, reduce_array("k", big, full_limit=10)["k#reduced"])
    assert not np.array_equal(vector, reduce_array("other", big, full_limit=10)["other#reduced"])


def golden_of(key, want, full_limit):
    return {f"graph/{k}": v for k, v in reduce_array(key, want, full_limit).items()}


def test_element_comparison_rejects_a_changed_element():
    rng = np.random.default_rng(0)
    want = rng.standard_normal(1000).astype(np.float32)
    gold = golden_of("forward", want, 10_000)
    assert_close("forward", want * (1 + 5e-5), gold, "graph", 1e-4, 10_000)
    changed = want.copy()
    changed[np.argmax(np.abs(want))] *= 1.01
    with pytest.raises(AssertionError):
        assert_close("forward", changed, gold, "graph", 1e-4, 10_000)


def test_element_comparison_of_reductions_rejects_a_scaled_array():
    rng = np.random.default_rng(0)
    want = rng.standard_normal(1000).astype(np.float32)
    gold = golden_of("forward", want, 10)
    assert_close("forward", want * (1 + 5e-5), gold, "graph", 1e-4, 10)
    with pytest.raises(AssertionError):
        assert_close("forward", want * 1.001, gold, "graph", 1e-4, 10)


@pytest.mark.parametrize("full_limit", [10_000, 10])
def test_norm_comparison_rejects_a_wrong_gradient(full_limit):
    rng = np.random.default_rng(1)
    want = rng.standard_normal(1000).astype(np.float32)
    gold = golden_of("grad/w", want, full_limit)
    wobble = want + 0.01 * np.linalg.norm(want) / np.sqrt(want.size) * rng.standard_normal(1000)
    assert_close_in_norm("grad/w", wobble.astype(np.float32), gold, "graph", 5e-2, 0.0, full_limit)
    with pytest.raises(AssertionError):
        assert_close_in_norm("grad/w", 1.2 * want, gold, "graph", 5e-2, 0.0, full_limit)


def test_norm_comparison_takes_noise_below_the_floor():
    rng = np.random.default_rng(2)
    want = (1e-7 * rng.standard_normal(64)).astype(np.float32)   # zero but for rounding
    other = (1e-7 * rng.standard_normal(64)).astype(np.float32)
    gold = golden_of("grad/beta", want, 4096)
    with pytest.raises(AssertionError):
        assert_close_in_norm("grad/beta", other, gold, "graph", 5e-2, 0.0, 4096)
    assert_close_in_norm("grad/beta", other, gold, "graph", 5e-2, 1e-5, 4096)
    with pytest.raises(AssertionError):
        assert_close_in_norm("grad/beta", other + 1e-3, gold, "graph", 5e-2, 1e-5, 4096)

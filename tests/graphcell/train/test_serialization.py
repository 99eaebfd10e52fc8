"""save_checkpoint / load_checkpoint / load_param_into_net: MindSpore 2.10's semantics."""
import stat

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn


def _net():
    ms.set_seed(1)
    return nn.SequentialCell(nn.Dense(3, 2), nn.BatchNorm1d(2))


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_round_trip_restores_every_parameter(tmp_path, fmt):
    net = _net()
    ms.save_checkpoint(net, str(tmp_path / "net"), format=fmt)  # the suffix is added
    other = nn.SequentialCell(nn.Dense(3, 2), nn.BatchNorm1d(2))
    params = ms.load_checkpoint(str(tmp_path / f"net.{fmt}"), format=fmt)
    assert ms.load_param_into_net(other, params) == ([], [])
    for a, b in zip(net.get_parameters(), other.get_parameters()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_a_saved_checkpoint_is_read_only_and_can_be_saved_again(tmp_path, fmt):
    path = tmp_path / f"net.{fmt}"
    ms.save_checkpoint(_net(), str(path), format=fmt)
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IRUSR  # as MindSpore leaves its files
    net = nn.SequentialCell(nn.Dense(3, 2), nn.BatchNorm1d(2))
    net[0].bias.set_data(ms.Tensor(np.float32([7.0, 8.0])))
    ms.save_checkpoint(net, str(path), format=fmt)  # replaces the read-only file
    np.testing.assert_array_equal(ms.load_checkpoint(str(path), format=fmt)["0.bias"].asnumpy(),
                                  [7.0, 8.0])
    assert not list(tmp_path.glob("*.tmp"))


def test_load_with_net_filters_and_choice(tmp_path):
    net = _net()
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path, choice_func=lambda name: not name.startswith("1.moving"))
    assert sorted(ms.load_checkpoint(path)) == ["0.bias", "0.weight", "1.beta", "1.gamma"]
    assert sorted(ms.load_checkpoint(path, filter_prefix="0.")) == ["1.beta", "1.gamma"]
    assert sorted(ms.load_checkpoint(path, specify_prefix=("0.w",))) == ["0.weight"]
    target = _net()
    target.get_parameters().__next__().set_data(ms.Tensor(np.zeros((2, 3), np.float32)))
    with pytest.warns(RuntimeWarning, match="not loaded"):
        ms.load_checkpoint(path, net=target)
    np.testing.assert_array_equal(target[0].weight.asnumpy(), net[0].weight.asnumpy())


def test_load_param_into_net_reports_what_was_not_loaded():
    net = _net()
    params = {"0.weight": ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name="0.weight"),
              "extra": ms.Parameter(ms.Tensor([1.0]), name="extra")}
    with pytest.warns(RuntimeWarning):
        param_not_load, ckpt_not_load = ms.load_param_into_net(net, params)
    assert param_not_load == ["0.bias", "1.moving_mean", "1.moving_variance", "1.gamma", "1.beta"]
    assert ckpt_not_load == ["extra"]
    np.testing.assert_array_equal(net[0].weight.asnumpy(), np.ones((2, 3)))


def test_dtype_conversion_unless_strict_and_errors_change_nothing():
    net = _net()
    before = net[0].bias.asnumpy().copy()
    f64 = {"0.bias": ms.Tensor(np.array([1.0, 2.0]))}  # float64 into a float32 parameter
    with pytest.warns(RuntimeWarning):
        ms.load_param_into_net(net, f64)
    assert net[0].bias.dtype == ms.float32
    np.testing.assert_array_equal(net[0].bias.asnumpy(), [1.0, 2.0])
    net[0].bias.set_data(ms.Tensor(before))
    with pytest.raises(RuntimeError, match="0.bias.*Float32.*Float64"):
        ms.load_param_into_net(net, f64, strict_load=True)
    bad = {"0.bias": ms.Tensor(np.array([5.0, 6.0], np.float32)),
           "0.weight": ms.Tensor(np.ones((3, 3), np.float32))}  # the weight's shape is wrong
    with pytest.raises(RuntimeError, match="0.weight.*shape"):
        ms.load_param_into_net(net, bad)
    np.testing.assert_array_equal(net[0].bias.asnumpy(), before)  # nothing was written


def test_a_prefix_in_the_checkpoint_names_is_found():
    net = _net()
    saved = {f"backbone.{p.name}": ms.Tensor(p.asnumpy() + 1) for p in net.get_parameters()}
    target = _net()
    param_not_load, _ = ms.load_param_into_net(target, saved)
    assert param_not_load == []
    np.testing.assert_array_equal(target[0].weight.asnumpy(), net[0].weight.asnumpy() + 1)


def test_bad_arguments():
    with pytest.raises(TypeError, match="save_obj"):
        ms.save_checkpoint(3, "x.ckpt")
    with pytest.raises(ValueError, match="enc_key"):
        ms.save_checkpoint(_net(), "x.ckpt", enc_key=b"0" * 16)
    with pytest.raises(TypeError, match="net must be a Cell"):
        ms.load_param_into_net({}, {})
    with pytest.raises(TypeError, match="a str"):
        ms.save_checkpoint({"s": "text"}, "x.safetensors", format="safetensors")

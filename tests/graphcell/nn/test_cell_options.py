"""The Cell methods real models call beyond building and running (``graphcell/nn/_cell_options.py``):
checked as MindSpore 2.10 checks them, recorded, and — where they are about memory or
parallelism — without effect on results, in both modes."""
import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell import JitConfig, Tensor, nn
from layer_helpers import both_modes


def _net():
    return nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.SequentialCell([nn.Dense(4, 2)])])


def test_set_jit_config_once():
    net = _net()
    assert net.jit_config_dict == {}
    net.set_jit_config(JitConfig(jit_level="O1"))
    assert net.jit_config_dict["jit_level"] == "O1"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net.set_jit_config(JitConfig(jit_level="O2"))
    assert net.jit_config_dict["jit_level"] == "O1" and "only once" in str(caught[0].message)
    with pytest.raises(TypeError, match="expected a JitConfig"):
        _net().set_jit_config({"jit_level": "O1"})


def test_memory_and_parallel_options_change_no_result():
    x = Tensor(np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32))
    net = _net()
    before = [o.asnumpy() for o in both_modes(net, x)]
    net.recompute()
    net.set_boost("less_bn")
    net.set_broadcast_flag()
    net.set_data_parallel()
    net.shard(((1, 1),))
    net.offload()
    net.pipeline_stage = 1
    after = [o.asnumpy() for o in both_modes(net, x)]
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a, b)
    assert net.less_bn and net[2][0].less_bn and net.broadcast_flag and net.pipeline_stage == 1
    assert net.output_recompute is False and net[0].output_recompute is True


@pytest.mark.parametrize("call, error, message", [
    (lambda n: n.recompute(unknown=1), ValueError, "'unknown' is not recognised"),
    (lambda n: n.recompute(mp_comm_recompute=1), TypeError, "must be a bool"),
    (lambda n: n.set_boost("more_bn"), ValueError, "'less_bn'"),
    (lambda n: n.set_comm_fusion(-1), ValueError, "non-negative int"),
    (lambda n: n.offload("Never"), ValueError, "'Auto'"),
    (lambda n: n.shard([(1, 1)]), TypeError, "must be a tuple"),
    (lambda n: setattr(n, "pipeline_stage", -1), ValueError, ">= 0"),
    (lambda n: n.set_inputs(Tensor([1.0]), x=Tensor([1.0])), ValueError, "not both"),
])
def test_options_are_checked(call, error, message):
    with pytest.raises(error, match=message):
        call(_net())


def test_comm_fusion_inputs_and_names():
    net = _net().set_comm_fusion(2)
    assert {p.comm_fusion for p in net.trainable_params()} == {2}
    inputs = (Tensor(np.ones((5, 3), np.float32)),)
    net.set_inputs(*inputs)
    assert net.get_inputs() == inputs
    net.update_cell_prefix()
    assert net[2][0].param_prefix == "2.0" and net.param_prefix == ""
    assert isinstance(net.get_sub_cell("2.0"), nn.Dense) and net.get_sub_cell("") is net
    with pytest.raises(AttributeError, match="no sub-cell '5'"):
        net.get_sub_cell("2.5")
    net.update_cell_type("quant")
    assert net.cell_type == "quant"
    assert list(net.parameters_broadcast_dict()) == \
        ["0.weight", "0.bias", "2.0.weight", "2.0.bias"]
    assert nn.ReLU().parameters_broadcast_dict() is None


def test_check_names_finds_duplicates():
    net = _net()
    net.check_names()
    net[2][0].weight.name = "0.weight"
    with pytest.raises(ValueError, match="both named '0.weight'"):
        net.check_names()


def test_options_survive_graph_mode_training():
    net = _net()
    net.recompute()
    loss = nn.WithLossCell(net, nn.MSELoss())
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), 0.1))
    x = Tensor(np.ones((5, 3), np.float32))
    y = Tensor(np.zeros((5, 2), np.float32))
    first = float(ms.jit(lambda a, b: step(a, b))(x, y).asnumpy())
    assert np.isfinite(first)


class _Twice(nn.Cell):
    def construct(self, x):
        return x * 2 + x * 2


def test_jit_config_level_applies_to_the_cells_compile():
    x = Tensor(np.ones((2, 3), np.float32))
    optimised = _Twice().compile(x).as_text(locs="none")
    plain = _Twice()
    plain.compile(x)
    plain.set_jit_config(JitConfig(jit_level="O0"))  # drops the version compiled before
    text = plain.compile(x).as_text(locs="none")
    assert text.count("mul(") == 2 and "fused" not in text
    assert optimised.count("mul(") == 1 and "fused" in optimised
    np.testing.assert_array_equal(ms.jit(lambda a: plain(a))(x).asnumpy(), np.full((2, 3), 4.0))

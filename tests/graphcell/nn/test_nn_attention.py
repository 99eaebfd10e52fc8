"""Attention layers beyond the goldens (``tests/graphcell/api/cases/nn_attention.py`` compares
them with MindSpore 2.10): where graphcell masks as documented and MindSpore does not, both modes
against each other and finite differences, dropout when training, the Parameters, and the
refusals of bad arguments and inputs."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.ops.function.nn_func import multi_head_attention_forward
from graphcell.testing import check_grads


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _t(*shape, seed=0, dtype=np.float32):
    return Tensor(np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype))


def _float64(cell):
    for p in cell.get_parameters():
        p.set_dtype(ms.float64)
    return cell


def test_a_boolean_padding_mask_masks_the_keys_also_with_a_float_mask(mode):
    """MindSpore 2.10 adds a bool key_padding_mask to a float attn_mask as 1.0; graphcell masks
    the padded keys (their weights are zero), as with a bool mask alone."""
    ms.set_seed(0)
    mha = nn.MultiheadAttention(4, 2)
    q, kv = _t(3, 2, 4), _t(4, 2, 4, seed=1)
    padding = Tensor(np.array([[False, False, True, False], [True, False, False, False]]))
    _, weights = mha(q, kv, kv, key_padding_mask=padding, attn_mask=Tensor(np.zeros((3, 4),
                                                                                    np.float32)))
    w = weights.asnumpy()
    assert (w[0, :, 2] == 0).all() and (w[1, :, 0] == 0).all()
    _, alone = mha(q, kv, kv, key_padding_mask=padding)
    np.testing.assert_allclose(w, alone.asnumpy(), rtol=1e-6)


def test_is_causal_masks_the_later_positions():
    x = _t(3, 2, 4)
    w_in, w_out = _t(12, 4, seed=2), _t(4, 4, seed=3)
    _, weights = multi_head_attention_forward(x, x, x, 4, 2, w_in, None, None, None, False, 0.0,
                                              w_out, None, training=False, is_causal=True,
                                              average_attn_weights=False)
    w = weights.asnumpy()
    assert (w[..., 0, 1:] == 0).all() and (w[..., 1, 2:] == 0).all() and (w[..., 2, :] > 0).all()


MODELS = {
    "mha_cross_bias_kv": (lambda: nn.MultiheadAttention(4, 2, add_bias_kv=True, kdim=3),
                          lambda: (_t(3, 2, 4), _t(5, 2, 3, seed=1), _t(5, 2, 4, seed=2))),
    "encoder_pre_norm_gelu": (lambda: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(4, 2, 6, 0.0, "gelu", norm_first=True), 2),
        lambda: (_t(3, 2, 4),)),
    "transformer": (lambda: nn.Transformer(4, 2, 1, 1, 6, 0.0, batch_first=True),
                    lambda: (_t(2, 3, 4), _t(2, 4, 4, seed=1))),
}


class Loss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, *args):
        out = self.net(*args)
        out = out[0] if isinstance(out, tuple) else out
        return (out * out).sum()


@pytest.mark.parametrize("name", list(MODELS))
def test_pynative_and_graph_mode_agree(name):
    make, inputs = MODELS[name]
    ms.set_seed(5)
    net = _float64(make())
    args = tuple(Tensor(a.asnumpy().astype(np.float64)) for a in inputs())
    grad = ms.grad(Loss(net), grad_position=0, weights=net.trainable_params())

    def run():
        out = net(*args)
        input_grad, weight_grads = grad(*args)
        return [*(out if isinstance(out, tuple) else (out,)), input_grad, *weight_grads]
    eager = run()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        compiled = run()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, b in zip(eager, compiled):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(MODELS))
def test_gradients_against_finite_differences(name, mode):
    make, inputs = MODELS[name]
    ms.set_seed(6)
    net = _float64(make())
    args = tuple(Tensor(a.asnumpy().astype(np.float64)) for a in inputs())
    report = check_grads(Loss(net), args, weights=net.trainable_params(), elementwise=False)
    assert report.passed, str(report)


def test_dropout_only_when_training(mode):
    ms.set_seed(7)
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.5)
    x = _t(3, 2, 4)
    quiet = layer(x).asnumpy()
    np.testing.assert_array_equal(layer(x).asnumpy(), quiet)
    layer.set_train(True)
    assert not np.allclose(layer(x).asnumpy(), quiet)


def test_parameters_and_initialisation():
    mha = nn.MultiheadAttention(8, 2)
    assert [(p.name, p.shape) for p in mha.trainable_params()] == [
        ("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)), ("out_proj.weight", (8, 8)),
        ("out_proj.bias", (8,))]
    assert not mha.in_proj_bias.asnumpy().any()
    bound = np.sqrt(6 / (24 + 8))                       # XavierUniform of (3E, E)
    w = mha.in_proj_weight.asnumpy()
    assert np.abs(w).max() <= bound and w.std() > bound / 3
    ms.set_seed(1)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)
    first, second = (enc.layers[k].dense1.weight.asnumpy() for k in (0, 1))
    np.testing.assert_array_equal(first, second)        # copies of one layer, as MindSpore's
    net = nn.Transformer(8, 2, 1, 1, 16)
    big = np.sqrt(6 / (16 + 8))
    assert np.abs(net.encoder.layers[0].dense1.weight.asnumpy()).max() <= big
    assert not net.encoder.layers[0].self_attn.in_proj_bias.asnumpy().any()


@pytest.mark.parametrize("activation", ["relu", "gelu", ops.relu, ops.gelu, nn.ReLU()])
def test_activations_mindspore_documents(activation):
    layer = nn.TransformerEncoderLayer(4, 2, 6, activation=activation)
    assert layer(_t(3, 2, 4)).shape == (3, 2, 4)


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.MultiheadAttention(6, 4), ValueError, r"'embed_dim' \(6\) must be divisible"),
    (lambda: nn.TransformerEncoderLayer(4, 2, activation="tanh"), ValueError,
     "'activation' must be 'relu' or 'gelu'"),
    (lambda: nn.TransformerEncoderLayer(4, 2, activation=nn.Tanh()), ValueError,
     "must be nn.ReLU or nn.GELU"),
    (lambda: nn.TransformerEncoder(nn.Dense(2, 2), 2), TypeError,
     "expected a TransformerEncoderLayer"),
])
def test_bad_arguments_are_refused(make, error, message):
    with pytest.raises(error, match=message):
        make()


@pytest.mark.parametrize("call, message", [
    (lambda m: m(_t(3, 2, 4), _t(4, 2, 4), _t(4, 2, 4), attn_mask=_t(3, 3)),
     r"'attn_mask' must have shape \[3, 4\]"),
    (lambda m: m(_t(3, 2, 4), _t(4, 2, 4), _t(5, 2, 4)), r"'key' \(shape \[4, 2, 4\]\) and "
                                                          r"'value' \(shape \[5, 2, 4\]\)"),
    (lambda m: m(_t(3, 2, 4), _t(4, 2, 4), _t(4, 2, 4),
                 key_padding_mask=Tensor(np.zeros((2, 4), np.int32))),
     "'key_padding_mask' must be a bool or float Tensor"),
    (lambda m: m(_t(3, 2, 6), _t(4, 2, 6), _t(4, 2, 6)), "'query' has 6 features, embed_dim is 4"),
    (lambda m: m(_t(1, 3, 2, 4), _t(1, 4, 2, 4), _t(1, 4, 2, 4)),
     r"'query' must be 2-D \(unbatched\) or 3-D"),
])
def test_bad_inputs_are_refused_in_both_modes(call, message, mode):
    with pytest.raises(ValueError, match=message):
        call(nn.MultiheadAttention(4, 2))

"""nn layers: forward values (numpy references and MindSpore 2.10's printed values), parameter
names/shapes/dtypes and default initialisation, reprs, and the errors of bad arguments/inputs."""
import math

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from graphcell.common.initializer import Normal

X = np.array([[-1.0, 0.5, 2.0], [3.0, -0.25, 0.0]], np.float32)
IMG = (np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) % 5) - 2


def params_of(cell):
    return [(name, p.name, p.shape, str(p.dtype), p.requires_grad)
            for name, p in cell.parameters_and_names()]


def close(actual, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected, np.float32), rtol=tol,
                               atol=tol)


# --- activations --------------------------------------------------------------------------

def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("cell, ref", [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Tanh(), np.tanh),
    (nn.Softmax(), lambda x: _softmax(x, -1)),
    (nn.Softmax(0), lambda x: _softmax(x, 0)),
    (nn.Softmax((0, 1)), lambda x: _softmax(x, (0, 1))),
    (nn.LogSoftmax(), lambda x: np.log(_softmax(x, -1))),
    (nn.LogSoftmax(axis=0), lambda x: np.log(_softmax(x, 0))),
], ids=lambda v: repr(v) if isinstance(v, nn.Cell) else "")
def test_activation_matches_numpy(cell, ref):
    close(cell(Tensor(X)).asnumpy(), ref(X.astype(np.float64)))
    assert not list(cell.get_parameters())


def test_activation_values_match_mindspore():
    # printed by MindSpore 2.10 for the same input
    close(nn.Softmax()(Tensor(X)).asnumpy()[0], [0.03911254, 0.17529035, 0.78559715])
    close(nn.LogSoftmax()(Tensor(X)).asnumpy()[1], [-0.08485401, -3.3348541, -3.0848541], 1e-5)
    assert [repr(c) for c in (nn.ReLU(), nn.Softmax(), nn.LogSoftmax())] == \
        ["ReLU()", "Softmax()", "LogSoftmax()"]


def test_get_activation():
    assert isinstance(nn.get_activation("relu"), nn.ReLU)
    assert nn.get_activation(None) is None
    with pytest.raises(KeyError, match="unknown activation 'foo'"):
        nn.get_activation("foo")
    with pytest.raises(TypeError, match="'axis' must be an int"):
        nn.LogSoftmax(axis=(0, 1))


# --- Dense --------------------------------------------------------------------------------

def test_dense_forward_and_repr():
    fc = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    close(fc(Tensor(X)).asnumpy(), [[1.5, 1.5], [2.75, 2.75]])  # MindSpore 2.10's output
    assert repr(fc) == "Dense(input_channels=3, output_channels=2, has_bias=True)"
    act = nn.Dense(3, 2, weight_init="ones", bias_init=0.5, activation="tanh")
    close(act(Tensor(X)).asnumpy(), np.tanh([[2.0, 2.0], [3.25, 3.25]]))
    assert repr(act) == ("Dense(\n  input_channels=3, output_channels=2, has_bias=True, "
                         "activation=Tanh()\n  (activation): Tanh()\n)")


def test_dense_reference_with_random_weights_and_any_rank():
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    fc = nn.Dense(3, 4, weight_init=Tensor(w), bias_init=Tensor(b), activation=nn.ReLU())
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    close(fc(Tensor(x)).asnumpy(), np.maximum(x @ w.T + b, 0), 1e-5)
    assert fc(Tensor(x)).shape == (2, 5, 4)


def test_dense_parameters_and_default_init():
    fc = nn.Dense(16, 8)
    assert params_of(fc) == [("weight", "weight", (8, 16), "Float32", True),
                             ("bias", "bias", (8,), "Float32", True)]
    bound = 1 / math.sqrt(16)  # HeUniform(sqrt(5)) and Uniform(1/sqrt(in)) share this bound
    assert np.abs(fc.weight.asnumpy()).max() <= bound and fc.weight.asnumpy().std() > bound / 4
    assert np.abs(fc.bias.asnumpy()).max() <= bound
    assert params_of(nn.Dense(2, 3, has_bias=False)) == [("weight", "weight", (3, 2), "Float32", True)]
    assert str(nn.Dense(2, 3, dtype=ms.float64).weight.dtype) == "Float64"


def test_dense_errors_name_the_layer():
    with pytest.raises(ValueError, match=r"Dense: expected an input whose last axis has "
                                         r"in_channels=4 values, got Float32 \[2, 3\]"):
        nn.Dense(4, 2)(Tensor(X))
    with pytest.raises(ValueError, match=r"Dense: weight_init has shape \[2, 3\], but the "
                                         r"parameter needs \[3, 2\]"):
        nn.Dense(2, 3, weight_init=Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="'in_channels' must be a positive int, got 0"):
        nn.Dense(0, 2)
    with pytest.raises(TypeError, match="'activation' must be a str, a Cell or a Primitive"):
        nn.Dense(2, 2, activation=3)


# --- Conv2d -------------------------------------------------------------------------------

def _conv_ref(x, w, stride=1, pad=(0, 0, 0, 0), dilation=1, group=1):
    """Direct convolution by loops (NCHW, OIHW), for small shapes."""
    x = np.pad(x, ((0, 0), (0, 0), pad[:2], pad[2:]))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    eh, ew = dilation * (kh - 1) + 1, dilation * (kw - 1) + 1
    oh, ow = (h - eh) // stride + 1, (wd - ew) // stride + 1
    out = np.zeros((n, o, oh, ow))
    og = o // group
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                patch = x[:, g * cg:(g + 1) * cg, i * stride:i * stride + eh:dilation,
                          j * stride:j * stride + ew:dilation]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out


@pytest.mark.parametrize("kwargs, pad, expected", [
    # expected: MindSpore 2.10's output for IMG with weight_init='ones'
    (dict(out_channels=3, kernel_size=3), (1, 1, 1, 1),
     [-7, -7, 0, 4, -4, -7, -4, 0, 4, 0, -7, -7, 7, 4, -4, -7]),
    (dict(out_channels=2, kernel_size=2, stride=2, pad_mode="valid", has_bias=True,
          bias_init="ones"), (0, 0, 0, 0), [-6, 5, 8, -6]),
    (dict(out_channels=2, kernel_size=3, group=2, pad_mode="pad", padding=1), (1, 1, 1, 1),
     [-3, -4, -3, 0, 0, -3, -4, -3, 4, 3, -3, -4, 4, 4, 0, -3]),
    (dict(out_channels=1, kernel_size=2, dilation=2, pad_mode="valid"), (0, 0, 0, 0),
     [-2, 1, 0, -2]),
])
def test_conv2d_matches_mindspore_and_reference(kwargs, pad, expected):
    conv = nn.Conv2d(2, weight_init="ones", **kwargs)
    out = conv(Tensor(IMG)).asnumpy()
    close(out[0, 0].ravel(), expected)
    ref = _conv_ref(IMG, np.ones(conv.weight.shape, np.float32), kwargs.get("stride", 1), pad,
                    kwargs.get("dilation", 1), kwargs.get("group", 1))
    close(out, ref + (1.0 if kwargs.get("has_bias") else 0.0))


def test_conv2d_asymmetric_padding_matches_mindspore():
    conv = nn.Conv2d(1, 2, 3, pad_mode="pad", padding=(1, 0, 2, 1), weight_init="ones")
    out = conv(Tensor(np.ones((1, 1, 4, 4), np.float32)))
    assert out.shape == (1, 2, 3, 5)
    close(out.asnumpy().ravel()[:12], [2, 4, 6, 6, 4, 3, 6, 9, 9, 6, 3, 6])


def test_conv2d_random_weights_and_bias():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 5, 6)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    conv = nn.Conv2d(4, 6, (3, 2), stride=(2, 1), pad_mode="valid", group=2, has_bias=True,
                     weight_init=Tensor(w), bias_init=Tensor(b))
    close(conv(Tensor(x)).asnumpy(), _conv_ref_strided(x, w, b), 1e-4)


def _conv_ref_strided(x, w, b):
    full = _conv_ref(x, w, 1, (0, 0, 0, 0), 1, 2)
    return full[:, :, ::2, :] + b.reshape(1, -1, 1, 1)


def test_conv2d_parameters_defaults_and_repr():
    conv = nn.Conv2d(3, 4, 3)
    assert params_of(conv) == [("weight", "weight", (4, 3, 3, 3), "Float32", True)]
    assert np.abs(conv.weight.asnumpy()).max() <= 1 / math.sqrt(27)
    with_bias = nn.Conv2d(3, 4, (3, 2), has_bias=True, weight_init="ones")
    assert params_of(with_bias)[1] == ("bias", "bias", (4,), "Float32", True)
    assert np.abs(with_bias.bias.asnumpy()).max() <= 1 / math.sqrt(18)
    assert repr(with_bias).startswith(
        "Conv2d(input_channels=3, output_channels=4, kernel_size=(3, 2), stride=(1, 1), "
        "pad_mode=same, padding=0, dilation=(1, 1), group=1, has_bias=True, weight_init=ones, "
        "bias_init=Uniform(")
    assert repr(nn.Conv2d(1, 1, 1, weight_init=Normal(0.02))).endswith(
        "weight_init=Normal(sigma=0.02, mean=0.0), bias_init=None, format=NCHW)")


def test_conv2d_errors():
    with pytest.raises(ValueError, match="'padding' must be 0 unless pad_mode is 'pad'"):
        nn.Conv2d(3, 4, 3, padding=1)
    with pytest.raises(ValueError, match=r"divisible by group \(2\)"):
        nn.Conv2d(3, 4, 3, group=2)
    with pytest.raises(ValueError, match="'pad_mode' must be one of"):
        nn.Conv2d(3, 4, 3, pad_mode="full")
    with pytest.raises(ValueError, match=r"Conv2d: expected a 4-D NCHW input with "
                                         r"in_channels=3 channels, got Float32 \[1, 2, 5, 5\]"):
        nn.Conv2d(3, 2, 3)(Tensor(np.ones((1, 2, 5, 5), np.float32)))


# --- pooling ------------------------------------------------------------------------------

POOL_X = np.arange(50, dtype=np.float32).reshape(2, 1, 5, 5) % 7


@pytest.mark.parametrize("cell, expected_shape, expected", [
    # expected: the first values MindSpore 2.10 prints for POOL_X
    (nn.MaxPool2d(2, 2), (2, 1, 2, 2), [6, 3, 4, 6]),
    (nn.MaxPool2d(2, 2, "same"), (2, 1, 3, 3), [6, 3, 4, 4, 6, 5, 6, 2, 3]),
    (nn.MaxPool2d(3, 2, "pad", padding=1), (2, 1, 3, 3), [6, 6, 4, 6, 6, 6, 6, 4, 5]),
    (nn.AvgPool2d(2, 2), (2, 1, 2, 2), [3, 1.5, 2.5, 4.5]),
    (nn.AvgPool2d(2, 2, "same"), (2, 1, 3, 3), [3, 1.5, 3, 2.5, 4.5, 2.5, 3, 1.5, 3]),
    (nn.AvgPool2d(3, 2, "pad", padding=1), (2, 1, 3, 3),
     [1.3333334, 1.4444444, 1.1111112, 2.3333333, 3.4444444, 2, 1, 1.3333334, 1.5555556]),
    (nn.AvgPool2d(3, 2, "pad", padding=1, count_include_pad=False), (2, 1, 3, 3),
     [3, 2.1666667, 2.5, 3.5, 3.4444444, 3, 2.25, 2, 3.5]),
    (nn.AvgPool2d(3, 2, "pad", padding=1, divisor_override=2), (2, 1, 3, 3),
     [6, 6.5, 5, 10.5, 15.5, 9, 4.5, 6, 7]),
], ids=repr)
def test_pooling_matches_mindspore(cell, expected_shape, expected):
    out = cell(Tensor(POOL_X))
    assert out.shape == expected_shape
    close(out.asnumpy().ravel()[:len(expected)], expected, 1e-5)


def test_pooling_reference_unbatched_and_repr():
    x = np.random.default_rng(2).standard_normal((3, 6, 4)).astype(np.float32)
    windows = x.reshape(3, 3, 2, 2, 2).transpose(0, 1, 3, 2, 4).reshape(3, 3, 2, 4)
    close(nn.MaxPool2d(2, 2)(Tensor(x)).asnumpy(), windows.max(-1))
    close(nn.AvgPool2d(2, 2)(Tensor(x)).asnumpy(), windows.mean(-1))
    assert repr(nn.MaxPool2d(kernel_size=2, stride=2)) == \
        "MaxPool2d(kernel_size=2, stride=2, pad_mode=VALID)"
    assert repr(nn.AvgPool2d(3, (2, 1), "same")) == \
        "AvgPool2d(kernel_size=3, stride=(2, 1), pad_mode=SAME)"


def test_pooling_errors():
    with pytest.raises(ValueError, match="padding can only be set with pad_mode 'pad'"):
        nn.MaxPool2d(2, 2, "same", padding=1)
    with pytest.raises(ValueError, match="'pad_mode' must be 'valid', 'same' or 'pad'"):
        nn.AvgPool2d(2, 2, "full")
    with pytest.raises(ValueError, match="ceil_mode can only be set with pad_mode 'pad'"):
        nn.MaxPool2d(2, 2, ceil_mode=True)  # MindSpore 2.10 refuses it too
    with pytest.raises(ValueError, match=r"MaxPool2d: expected a 4-D input \(or 3-D without the "
                                         r"batch axis\), got Float32 \[2, 3\]"):
        nn.MaxPool2d(2)(Tensor(X))


# --- Flatten, Dropout, MatMul -------------------------------------------------------------

def test_flatten():
    x = Tensor(POOL_X)
    assert nn.Flatten()(x).shape == (2, 25)
    assert nn.Flatten(0)(x).shape == (50,)
    assert nn.Flatten(1, 2)(x).shape == (2, 5, 5)
    close(nn.Flatten()(x).asnumpy(), POOL_X.reshape(2, -1))
    with pytest.raises(ValueError, match="start_dim=1 and end_dim=-1 must be axes"):
        nn.Flatten()(Tensor(np.ones(3, np.float32)))
    assert repr(nn.Flatten()) == "Flatten()"


def test_dropout_identity_unless_training():
    x = Tensor(np.ones((200, 50), np.float32))
    drop = nn.Dropout(p=0.2)
    assert drop(x) is x
    drop.set_train()
    out = drop(x).asnumpy()
    kept = out != 0
    close(out[kept], np.full(kept.sum(), 1 / 0.8))
    assert 0.75 < kept.mean() < 0.85
    assert nn.Dropout(keep_prob=1.0).set_train()(x) is x
    assert repr(nn.Dropout()) == "Dropout(keep_prob=0.5)" and repr(drop) == "Dropout(p=0.2)"


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"'p' must be in \[0, 1\), got 1.0"):
        nn.Dropout(p=1.0)
    with pytest.raises(ValueError, match=r"'keep_prob' must be in \(0, 1\], got 0"):
        nn.Dropout(keep_prob=0.0)
    with pytest.raises(TypeError, match=r"'keep_prob' must be a float, got int 1"):
        nn.Dropout(keep_prob=1)  # as MindSpore 2.10: keep_prob takes floats only


def test_matmul():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((5, 4)).astype(np.float32)
    close(nn.MatMul(transpose_x2=True)(Tensor(a), Tensor(b)).asnumpy(), a @ b.T, 1e-5)
    v = rng.standard_normal(3).astype(np.float32)
    close(nn.MatMul(transpose_x1=True)(Tensor(a[0]), Tensor(v)).asnumpy(), a[0].T @ v, 1e-5)
    assert repr(nn.MatMul()) == "MatMul()"

"""Every nn layer, loss and wrapper, and a sample of registry entries: gradients compiled in
GRAPH_MODE equal PyNative's (hypothesis-drawn inputs, the same Parameters and random seed), and
pass ``check_grads`` driven in GRAPH_MODE (the compiled gradient against finite differences)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphcell import nn, Tensor
from graphcell.testing import strategies as gst
from graphcell_ir.ops import REGISTRY, Trait
from graphcell_ir.ops import functional as F

from grad_differential import assert_grads_agree, check_grads_in_graph_mode, random_sens

FLOATS = dict(elements=(-3, 3))
FEW = settings(max_examples=5, deadline=None)


def rand(*shape, seed=0, dtype=np.float32):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def agree(cell, *inputs, seed=None, rtol=1e-5, atol=1e-6):
    """Graph-mode gradients of the inputs and trainable Parameters of ``cell`` for a random
    cotangent equal PyNative's; the other Parameters (moving statistics) end up equal too."""
    weights = cell.trainable_params()
    state = [p for p in cell.get_parameters() if not p.requires_grad]
    before = [p.asnumpy().copy() for p in state]
    sens = random_sens(cell, inputs) if seed is None else None
    for p, v in zip(state, before):  # the forward that sized sens moved the statistics
        p.set_data(Tensor(v))
    return assert_grads_agree(cell, *inputs, weights=weights, sens=sens, seed=seed, state=state,
                              rtol=rtol, atol=atol)


# --- graph == PyNative -------------------------------------------------------------------------

@FEW
@given(st.data(), st.sampled_from([nn.ReLU, nn.Sigmoid, nn.Tanh]))
def test_activations(data, layer):
    agree(layer(), data.draw(gst.tensors(shape=gst.shapes(1, 3), **FLOATS)))


@FEW
@given(st.data(), st.sampled_from([nn.Softmax, nn.LogSoftmax]), st.integers(-1, 1))
def test_softmaxes(data, layer, axis):
    agree(layer(axis), data.draw(gst.tensors(shape=gst.shapes(2, 3), **FLOATS)))


@FEW
@given(st.data(), st.booleans(), st.sampled_from([None, "relu", "tanh"]))
def test_dense(data, has_bias, activation):
    n_in, n_out = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    x = data.draw(gst.tensors(shape=(data.draw(st.integers(1, 3)), n_in), **FLOATS))
    agree(nn.Dense(n_in, n_out, has_bias=has_bias, activation=activation), x)


@FEW
@given(st.data(), st.sampled_from(["same", "valid", "pad"]), st.integers(1, 2), st.booleans())
def test_conv2d(data, pad_mode, stride, has_bias):
    cin, cout, k = (data.draw(st.integers(1, 2)) for _ in range(3))
    side = data.draw(st.integers(k, 5))
    x = data.draw(gst.tensors(shape=(1, cin, side, side), **FLOATS))
    agree(nn.Conv2d(cin, cout, k, stride=stride, pad_mode=pad_mode,
                    padding=1 if pad_mode == "pad" else 0, has_bias=has_bias), x, rtol=1e-4)


@pytest.mark.parametrize("k,pad_mode,dilation", [(3, "same", 1), (4, "same", 1), (5, "pad", 2)])
def test_a_narrowing_conv2ds_input_gradient_runs_as_a_forward_convolution(k, pad_mode, dilation):
    """32 -> 16 channels at stride 1: both modes run the input gradient as the forward
    convolution of dy by the flipped filter (``nnkernels.input_as_forward``), the same values
    (the even kernel's 'same' padding has sides of their own)."""
    from graphcell_ir.backend import nnkernels
    from graphcell_ir.ops.conv import window_geometry
    pad = 3 if pad_mode == "pad" else 0
    g = window_geometry((12, 11), (k, k), (1, 1), (dilation, dilation), pad_mode, (pad,))
    assert nnkernels.input_as_forward((2, 32, 12, 11), (16, 32, k, k), g, 1) is not None
    conv = nn.Conv2d(32, 16, k, pad_mode=pad_mode, padding=pad, dilation=dilation)
    agree(conv, rand(2, 32, 12, 11, seed=3), seed=4, rtol=1e-4, atol=1e-5)


@FEW
@given(st.data(), st.sampled_from([nn.MaxPool2d, nn.AvgPool2d]), st.sampled_from(["valid", "same"]),
       st.integers(1, 2), st.integers(1, 2))
def test_pools(data, layer, pad_mode, k, stride):
    side = data.draw(st.integers(k, 5))
    x = data.draw(gst.tensors(shape=(1, 2, side, side), **FLOATS))
    agree(layer(kernel_size=k, stride=stride, pad_mode=pad_mode), x)


@FEW
@given(st.data(), st.booleans())
def test_batchnorm2d(data, training):
    c = data.draw(st.integers(1, 3))
    x = data.draw(gst.tensors(shape=(2, c, 2, 2), **FLOATS))
    agree(nn.BatchNorm2d(c, momentum=0.8).set_train(training), x, rtol=1e-4, atol=1e-5)


@FEW
@given(st.data(), st.booleans())
def test_batchnorm1d(data, training):
    c = data.draw(st.integers(1, 3))
    x = data.draw(gst.tensors(shape=(3, c), **FLOATS))
    agree(nn.BatchNorm1d(c).set_train(training), x, rtol=1e-4, atol=1e-5)


@FEW
@given(st.data(), st.booleans(), st.sampled_from([0.5, 1.0]))
def test_flatten_and_dropout(data, training, keep_prob):
    x = data.draw(gst.tensors(shape=gst.shapes(2, 3), **FLOATS))
    agree(nn.Flatten(), x)
    agree(nn.Dropout(keep_prob=keep_prob).set_train(training), x, seed=7)


@FEW
@given(st.data(), st.booleans(), st.booleans())
def test_matmul(data, ta, tb):
    m, k, n = (data.draw(st.integers(1, 3)) for _ in range(3))
    a = data.draw(gst.tensors(shape=(k, m) if ta else (m, k), **FLOATS))
    b = data.draw(gst.tensors(shape=(n, k) if tb else (k, n), **FLOATS))
    agree(nn.MatMul(ta, tb), a, b)


@FEW
@given(st.data(), st.sampled_from([nn.MSELoss, nn.L1Loss]),
       st.sampled_from(["mean", "sum", "none"]))
def test_regression_losses(data, loss, reduction):
    shape = data.draw(gst.shapes(1, 2))
    agree(loss(reduction), data.draw(gst.tensors(shape=shape, **FLOATS)),
          data.draw(gst.tensors(shape=shape, **FLOATS)))


@FEW
@given(st.data(), st.sampled_from(["mean", "sum"]))
def test_softmax_cross_entropy(data, reduction):
    n, c = data.draw(st.integers(1, 3)), data.draw(st.integers(2, 4))
    logits = data.draw(gst.tensors(shape=(n, c), **FLOATS))
    labels = Tensor(np.random.RandomState(n * c).randint(0, c, n).astype(np.int32))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    assert_grads_agree(loss, logits, labels)       # the int labels get int zeros in both modes


def test_wrappers():
    seq = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    agree(seq, rand(2, 3))
    with_loss = nn.WithLossCell(seq, nn.MSELoss())
    agree(with_loss, rand(2, 3), rand(2, 2, seed=1))


# --- graph vs finite differences ---------------------------------------------------------------

@pytest.mark.parametrize("make, shapes", [
    (nn.Tanh, [(2, 3)]),
    (lambda: nn.Softmax(-1), [(2, 3)]),
    (lambda: nn.LogSoftmax(0), [(3, 2)]),
    (lambda: nn.Dense(3, 2, activation="relu"), [(2, 3)]),
    (lambda: nn.Conv2d(2, 2, 2, pad_mode="same"), [(1, 2, 3, 3)]),
    (lambda: nn.MaxPool2d(2, 1), [(1, 1, 3, 3)]),
    (lambda: nn.AvgPool2d(2, 1), [(1, 1, 3, 3)]),
    (lambda: nn.BatchNorm2d(2).set_train(False), [(2, 2, 2, 2)]),
    (lambda: nn.MatMul(False, True), [(2, 3), (4, 3)]),
    (lambda: nn.MSELoss(), [(2, 3), (2, 3)]),
])
def test_check_grads_in_graph_mode(make, shapes):
    cell = make()
    weights = cell.trainable_params() or None
    dtype = np.float32 if list(cell.get_parameters()) else np.float64   # as the Parameters
    args = tuple(rand(*s, seed=i, dtype=dtype) for i, s in enumerate(shapes))
    assert check_grads_in_graph_mode(cell, args, weights=weights).passed


# --- a sample of registry entries --------------------------------------------------------------

from samples import SAMPLES, Gen  # noqa: E402 - the registry's own sample rows

SAMPLED = [name for name, op in REGISTRY.items() if name in SAMPLES and op.differentiable
           and not op.has(Trait.RANDOM) and not op.mutates and not SAMPLES[name].xfail.get("grad")
           and "float64" in SAMPLES[name].dtypes][::3]


@pytest.mark.parametrize("name", SAMPLED)
@settings(max_examples=3, deadline=None, derandomize=True)
@given(data=st.data())
def test_registry_sample(name, data):
    """One registry op on drawn operands: its float operands are the differentiated arguments,
    the rest (integer indices, Python scalars) constants of the function."""
    op, row = REGISTRY[name], SAMPLES[name]
    operands, attrs = row.make(Gen(data), "float64")
    attrs = op.check_attrs({**attrs, **row.grad_attrs})
    floats = [i for i, x in enumerate(operands)
              if isinstance(x, np.ndarray) and x.dtype.kind == "f"]
    consts = [Tensor(x) if isinstance(x, np.ndarray) else x for x in operands]

    def fn(*xs):
        full = list(consts)
        for i, x in zip(floats, xs):
            full[i] = x
        return F.bind(op, *full, **attrs)
    inputs = tuple(Tensor(operands[i]) for i in floats)
    if not inputs:
        return
    out = fn(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    if not all(o.dtype.is_float for o in outs):
        return
    assert_grads_agree(fn, *inputs, sens=random_sens(fn, inputs), rtol=1e-6, atol=1e-9)

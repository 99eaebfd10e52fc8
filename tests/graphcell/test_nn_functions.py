"""The nn functions' behaviour that golden cases cannot check: gradients where MindSpore 2.10's
own are wrong, random ops (distributions, seeding), and graph-mode refusals of data-dependent
shapes."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.testing import check_grads


def _t(*shape, lo=-2.0, hi=2.0, seed=0, dtype=np.float64):
    return Tensor(np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_selu_gradient_is_the_derivative(mode):
    # MindSpore 2.10's CPU gradient of SeLU for x <= 0 is scale * (1 + y), not scale*alpha*e^x
    fn = ops.selu if mode == "pynative" else ms.jit(lambda x: ops.selu(x))
    assert check_grads(fn, (_t(3, 4),)).passed
    x = Tensor(np.array([-1.0, 0.5]))
    g = ms.grad(ops.selu)(x).asnumpy()
    np.testing.assert_allclose(g, [1.0507009873554805 * 1.6732632423543772 * np.exp(-1.0),
                                   1.0507009873554805], rtol=1e-12)


# --- losses MindSpore 2.10's CPU build cannot run: checked against their formulas ----------------

def _both_modes(fn):
    """``fn`` in PyNative and compiled (graph mode), for comparing the two with one reference."""
    return [fn, ms.jit(fn)]


def _soft_margin_none(a, b):
    return ops.soft_margin_loss(a, b, reduction="none")


def _soft_margin_prim(a, b):
    return ops.SoftMarginLoss()(a, b)


def _triplet_none(a, p, n):
    return ops.triplet_margin_loss(a, p, n, reduction="none")


def _triplet_swap(a, p, n):
    return ops.triplet_margin_loss(a, p, n, margin=0.5, p=1, swap=True, reduction="sum")


def _multilabel_none(x, t):
    return ops.multilabel_margin_loss(x, t, reduction="none")


def _np_soft_margin(x, y):
    return np.log1p(np.exp(-x * y))


def _np_triplet(a, p, n, margin=1.0, norm=2, eps=1e-6, swap=False):
    def dist(u, v):
        return np.sum(np.abs(u - v + eps) ** norm, axis=-1) ** (1 / norm)
    d_neg = dist(a, n)
    if swap:
        d_neg = np.minimum(d_neg, dist(p, n))
    return np.maximum(dist(a, p) - d_neg + margin, 0)


def _np_multilabel_margin(x, target):
    loss, is_target = np.zeros(x.shape[0]), np.zeros(x.shape, np.int32)
    for n in range(x.shape[0]):
        ys = []
        for t in target[n]:
            if t < 0:
                break
            ys.append(t)
        is_target[n, ys] = 1
        others = [i for i in range(x.shape[1]) if i not in ys]
        loss[n] = sum(max(0.0, 1 - (x[n, y] - x[n, i])) for y in ys for i in others) / x.shape[1]
    return loss, is_target


def test_soft_margin_loss_matches_its_formula():
    x, y = _t(4, 3, seed=1), Tensor(np.sign(np.random.default_rng(2).uniform(-1, 1, (4, 3))))
    want = _np_soft_margin(x.asnumpy(), y.asnumpy())
    for fn in _both_modes(_soft_margin_none):
        np.testing.assert_allclose(fn(x, y).asnumpy(), want, rtol=1e-12)
    for fn in _both_modes(_soft_margin_prim):
        np.testing.assert_allclose(fn(x, y).asnumpy(), want.mean(), rtol=1e-12)
    assert check_grads(lambda a: ops.soft_margin_loss(a, y), (x,)).passed


def test_triplet_margin_loss_matches_its_formula():
    a, p, n = _t(4, 3, seed=1), _t(4, 3, seed=2), _t(4, 3, seed=3)
    args = (a.asnumpy(), p.asnumpy(), n.asnumpy())
    for fn in _both_modes(_triplet_none):
        np.testing.assert_allclose(fn(a, p, n).asnumpy(), _np_triplet(*args), rtol=1e-12)
    for fn in _both_modes(_triplet_swap):
        np.testing.assert_allclose(fn(a, p, n).asnumpy(),
                                   _np_triplet(*args, 0.5, 1, swap=True).sum(), rtol=1e-12)
    prim = ops.TripletMarginLoss(p=2, reduction="mean")
    np.testing.assert_allclose(prim(a, p, n, Tensor(np.array(1.0))).asnumpy(),
                               _np_triplet(*args).mean(), rtol=1e-12)
    assert check_grads(lambda a, p, n: ops.triplet_margin_loss(a, p, n), (a, p, n)).passed


def test_multilabel_margin_loss_matches_its_formula():
    x = _t(3, 4, seed=4)
    target = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 2, 1, 0]], np.int32)
    want, want_is_target = _np_multilabel_margin(x.asnumpy(), target)
    for fn in _both_modes(_multilabel_none):
        np.testing.assert_allclose(fn(x, Tensor(target)).asnumpy(), want, rtol=1e-12)
    loss, is_target = ops.MultilabelMarginLoss()(x, Tensor(target))
    np.testing.assert_allclose(loss.asnumpy(), want.mean(), rtol=1e-12)
    np.testing.assert_array_equal(is_target.asnumpy(), want_is_target)
    assert is_target.dtype == ms.int32
    assert check_grads(lambda x: ops.multilabel_margin_loss(x, Tensor(target)), (x,)).passed


# --- normalization ---------------------------------------------------------------------------------

def _np_normalized(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def test_layer_norm_matches_its_formula():
    # MindSpore 2.10's CPU build cannot create its LayerNormExt kernel: no golden case
    x, w, b = _t(2, 3, 4, seed=1), _t(3, 4, seed=2), _t(3, 4, seed=3)
    want = _np_normalized(x.asnumpy(), (1, 2), 1e-3) * w.asnumpy() + b.asnumpy()
    np.testing.assert_allclose(ops.layer_norm(x, (3, 4), w, b, eps=1e-3).asnumpy(), want,
                               rtol=1e-10)
    np.testing.assert_allclose(ms.jit(_layer_norm_last)(x).asnumpy(),
                               _np_normalized(x.asnumpy(), (2,), 1e-5), rtol=1e-10)
    assert check_grads(lambda x, w, b: ops.layer_norm(x, (3, 4), w, b), (x, w, b)).passed
    with pytest.raises(ValueError, match="normalized_shape"):
        ops.layer_norm(x, (3,))


def _layer_norm_last(x):
    return ops.layer_norm(x, 4)


def test_rms_norm_matches_its_formula():
    # MindSpore 2.10's CPU build has no RmsNorm kernel: no golden case
    x, g = _t(2, 3, seed=1), _t(3, seed=2)
    y, rstd = ops.rms_norm(x, g)
    want_rstd = 1 / np.sqrt((x.asnumpy() ** 2).mean(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(rstd.asnumpy(), want_rstd, rtol=1e-12)
    np.testing.assert_allclose(y.asnumpy(), x.asnumpy() * want_rstd * g.asnumpy(), rtol=1e-12)
    y2, _ = ops.RmsNorm(epsilon=1e-3)(x, g)
    np.testing.assert_allclose(
        y2.asnumpy(), x.asnumpy() / np.sqrt((x.asnumpy() ** 2).mean(-1, keepdims=True) + 1e-3)
        * g.asnumpy(), rtol=1e-12)
    assert check_grads(lambda x, g: ops.rms_norm(x, g)[0], (x, g)).passed


class _TrainingBatchNorm(ms.nn.Cell):
    """MindSpore's own pattern: a BatchNorm Primitive updating Parameters in place."""

    def __init__(self):
        super().__init__()
        self.bn = ops.BatchNorm(is_training=True, momentum=0.25)
        self.gamma = ms.Parameter(Tensor(np.ones(3, np.float32)), name="gamma")
        self.beta = ms.Parameter(Tensor(np.zeros(3, np.float32)), name="beta")
        self.mean = ms.Parameter(Tensor(np.zeros(3, np.float32)), name="mean",
                                 requires_grad=False)
        self.var = ms.Parameter(Tensor(np.ones(3, np.float32)), name="var", requires_grad=False)

    def construct(self, x):
        return self.bn(x, self.gamma, self.beta, self.mean, self.var)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_batch_norm_primitive_updates_parameters_in_training(mode):
    x = _t(4, 3, seed=5, dtype=np.float32)
    net = _TrainingBatchNorm()
    run = net if mode == "pynative" else ms.jit(net.construct)
    y, _, _, saved_mean, saved_var = run(x)
    a = x.asnumpy().astype(np.float64)
    np.testing.assert_allclose(y.asnumpy(), _np_normalized(a, (0,), 1e-5), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(saved_mean.asnumpy(), a.mean(0), rtol=1e-6)
    np.testing.assert_allclose(saved_var.asnumpy(), a.var(0), rtol=1e-5)
    np.testing.assert_allclose(net.mean.asnumpy(), 0.25 * a.mean(0), rtol=1e-5)
    np.testing.assert_allclose(net.var.asnumpy(), 0.75 + 0.25 * a.var(0, ddof=1), rtol=1e-5)


# --- embeddings ------------------------------------------------------------------------------------

def test_embedding_takes_rows_and_skips_the_padding_gradient():
    # MindSpore 2.10's CPU build has no Embedding kernel: no golden case
    w = _t(5, 2, seed=1)
    idx = Tensor(np.array([[1, 3], [1, 0]], np.int32))
    np.testing.assert_array_equal(ops.embedding(idx, w).asnumpy(), w.asnumpy()[idx.asnumpy()])
    np.testing.assert_array_equal(ms.jit(_embedding_padded)(idx, w).asnumpy(),
                                  w.asnumpy()[idx.asnumpy()])
    g = ms.grad(lambda w: ops.embedding(idx, w, padding_idx=1).sum())(w).asnumpy()
    np.testing.assert_array_equal(g, [[1, 1], [0, 0], [0, 0], [1, 1], [0, 0]])


def _embedding_padded(idx, w):
    return ops.embedding(idx, w, padding_idx=1)


def test_embedding_lookup_gradient_is_dense():
    # MindSpore's gradient is sparse (one row per index), so the golden cases compare no gradient
    params = _t(5, 3, seed=2)
    idx = Tensor(np.array([4, 5, 6, 9, 5], np.int64))
    out = ops.EmbeddingLookup()(params, idx, 4)
    want = params.asnumpy()[[0, 1, 2, 0, 1]]
    want[3] = 0  # index 9 - 4 = 5 is outside the 5 rows
    np.testing.assert_array_equal(out.asnumpy(), want)
    g = ms.grad(lambda p: ops.EmbeddingLookup()(p, idx, 4).sum())(params).asnumpy()
    np.testing.assert_array_equal(g, [[1] * 3, [2] * 3, [1] * 3, [0] * 3, [0] * 3])


# --- dropout: distributions and seeding ------------------------------------------------------------

def test_dropout_keeps_with_probability_one_minus_p_and_scales():
    ms.set_seed(3)
    x = Tensor(np.ones((200, 50), np.float32))
    y = ops.dropout(x, p=0.3).asnumpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    assert abs(y.mean() - 1.0) < 0.03          # unbiased


def test_dropout_is_reproducible_with_set_seed_in_both_modes():
    x = Tensor(np.ones((8, 8), np.float32))
    ms.set_seed(11)
    a = ops.dropout(x).asnumpy()
    ms.set_seed(11)
    b = ops.dropout(x).asnumpy()
    np.testing.assert_array_equal(a, b)
    ms.set_seed(11)
    c = ms.jit(_dropout_half)(x).asnumpy()
    np.testing.assert_array_equal(a, c)


def _dropout_half(x):
    return ops.dropout(x, p=0.5)


@pytest.mark.parametrize("fn, shape", [(ops.dropout1d, (40, 10, 6)), (ops.dropout2d, (40, 10, 2, 3)),
                                       (ops.dropout3d, (40, 10, 2, 1, 3))])
def test_channel_dropout_drops_whole_channels(fn, shape):
    ms.set_seed(5)
    y = fn(Tensor(np.ones(shape, np.float32)), p=0.25).asnumpy().reshape(shape[0], shape[1], -1)
    per_channel = y[..., 0]
    assert (y == per_channel[..., None]).all()           # a channel is kept or dropped whole
    assert abs((per_channel != 0).mean() - 0.75) < 0.05
    np.testing.assert_allclose(per_channel[per_channel != 0], 1 / 0.75, rtol=1e-6)


def test_dropout3d_primitive_mask_is_per_channel():
    ms.set_seed(2)
    x = Tensor(np.ones((3, 4, 2, 2, 2), np.float32))
    out, mask = ops.Dropout3D(keep_prob=0.5)(x)
    m = mask.asnumpy().reshape(3, 4, -1)
    assert mask.dtype == ms.bool_ and (m == m[..., :1]).all()
    np.testing.assert_array_equal(out.asnumpy(), np.where(mask.asnumpy(), 2.0, 0.0))


# --- convolutions, pooling and resizing beyond the golden cases -------------------------------------

def _np_conv2d(x, w, stride=1, pad=0, groups=1):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for oc in range(o):
        g = oc // (o // groups)
        for i in range(oh):
            for j in range(ow):
                patch = x[:, g * cg:(g + 1) * cg, i * stride:i * stride + kh, j * stride:j * stride + kw]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out


def test_conv_transpose2d_is_the_adjoint_of_conv2d():
    # MindSpore 2.10's CPU build has no ConvTranspose2D kernel: no golden case
    x, w = _t(2, 4, 8, 6, seed=1), _t(6, 2, 3, 2, seed=2)  # height 8 needs output_padding 1
    y = ops.conv2d(x, w, stride=2, pad_mode="pad", padding=1, groups=2)
    np.testing.assert_allclose(y.asnumpy(), _np_conv2d(x.asnumpy(), w.asnumpy(), 2, 1, 2),
                               rtol=1e-10)
    dy = _t(*y.shape, seed=3)
    dx = ops.conv_transpose2d(dy, w, stride=2, padding=1, output_padding=(1, 0), groups=2)
    assert dx.shape == x.shape
    np.testing.assert_allclose((y.asnumpy() * dy.asnumpy()).sum(), (x.asnumpy() * dx.asnumpy()).sum(),
                               rtol=1e-10)
    unbatched = ops.conv_transpose2d(dy[0], w, None, 2, 1, (1, 0), 2)
    np.testing.assert_allclose(unbatched.asnumpy(), dx.asnumpy()[0], rtol=1e-10)
    assert check_grads(lambda d, w: ops.conv_transpose2d(d, w, stride=2, groups=2), (dy, w)).passed


def test_depthwise_conv2d_native_convolves_each_channel():
    # MindSpore 2.10's CPU build has no DepthwiseConv2dNative kernel: no golden case
    x, w = _t(1, 3, 5, 5, seed=1), _t(1, 3, 3, 3, seed=2)
    y = ops.DepthwiseConv2dNative(1, 3, pad_mode="pad", pad=1)(x, w)
    want = _np_conv2d(x.asnumpy(), np.transpose(w.asnumpy(), (1, 0, 2, 3)), 1, 1, groups=3)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-10)


def test_roi_align_gradient_for_the_legacy_end_mode():
    # MindSpore 2.10's gradient for roi_end_mode=0 is roi_end_mode=1's; graphcell's is the derivative
    feats = _t(1, 2, 8, 8, seed=4)
    rois = Tensor(np.array([[0, 2.0, 2.0, 12.0, 9.0], [0, 0.0, 4.0, 7.0, 15.0]]))
    roi_align = ops.ROIAlign(3, 2, 0.5, 2, 0)
    assert check_grads(lambda f: roi_align(f, rois), (feats,)).passed


def _fold_constant_size(cols):
    return ops.fold(cols, Tensor(np.array([4, 4], np.int32)), 2)


def test_fold_takes_a_constant_output_size_in_graph_mode():
    cols = _t(1, 8, 9, seed=5)
    np.testing.assert_allclose(ms.jit(_fold_constant_size)(cols).asnumpy(),
                               _fold_constant_size(cols).asnumpy(), rtol=1e-12)
    with pytest.raises(Exception, match="output_size"):
        ms.jit(ops.fold)(cols, Tensor(np.array([4, 4], np.int32)), 2)


def test_max_unpool2d_inverts_max_pool2d_with_indices():
    x = Tensor(np.random.default_rng(6).permutation(32).reshape(1, 2, 4, 4).astype(np.float64))
    pooled, idx = ops.max_pool2d(x, 2, return_indices=True)
    restored = ops.max_unpool2d(pooled, idx, 2)
    a = x.asnumpy()
    want = np.where(a == np.kron(pooled.asnumpy(), np.ones((2, 2))), a, 0)
    np.testing.assert_array_equal(restored.asnumpy(), want)


# --- CTC -----------------------------------------------------------------------------------------

def _ctc_of_logits(x, targets, lengths, target_lengths):
    return ops.ctc_loss(ops.log_softmax(x, axis=-1), targets, lengths, target_lengths)[0]


def test_ctc_loss_gradient_through_log_softmax_is_the_derivative():
    # MindSpore's CTC gradient assumes log-softmax inputs; through a log_softmax it is exact
    x = _t(5, 2, 4, seed=7)
    targets = Tensor(np.array([[1, 2], [3, 3]], np.int32))
    lengths, target_lengths = Tensor(np.array([5, 4], np.int32)), Tensor(np.array([2, 2], np.int32))
    assert check_grads(lambda x: _ctc_of_logits(x, targets, lengths, target_lengths), (x,)).passed
    assert check_grads(ms.jit(_ctc_of_logits), (x, targets, lengths, target_lengths),
                       grad_position=(0,)).passed


def test_ctc_loss_zero_infinity_and_ignored_longer_labels():
    # MindSpore 2.10 returns inf in both cases, contrary to its documentation (docs/decisions.md)
    lp = ops.log_softmax(_t(3, 2, 3, seed=8), axis=-1)
    targets = Tensor(np.array([[1, 1, 1], [1, 0, 0]], np.int32))   # 1,1,1 needs 5 frames
    lengths, target_lengths = (3, 3), (3, 1)
    nll, _ = ops.ctc_loss(lp, targets, lengths, target_lengths, reduction="none")
    assert np.isinf(nll.asnumpy()[0]) and np.isfinite(nll.asnumpy()[1])
    zeroed, _ = ops.ctc_loss(lp, targets, lengths, target_lengths, reduction="none",
                             zero_infinity=True)
    assert zeroed.asnumpy()[0] == 0
    x = _t(2, 2, 3, seed=9, dtype=np.float32)
    loss, grad = ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(
        x, Tensor(np.array([[0, 0], [0, 1], [0, 2], [1, 0]], np.int64)),
        Tensor(np.array([0, 1, 0, 1], np.int32)), Tensor(np.array([2, 2], np.int32)))
    assert loss.asnumpy()[0] == 0 and not grad.asnumpy()[:, 0].any()


def _greedy(x, lengths):
    return ops.ctc_greedy_decoder(x, lengths)


def test_ctc_greedy_decoder_refuses_graph_mode():
    x, lengths = _t(4, 2, 3, seed=1), Tensor(np.array([4, 3], np.int32))
    assert ops.ctc_greedy_decoder(x, lengths)[0].shape[1] == 2
    with pytest.raises(Exception, match="PyNative"):
        ms.jit(_greedy)(x, lengths)


def test_dilation2d_matches_its_formula():
    # MindSpore 2.10's CPU build fails to run Dilation2D: no golden case
    x, f = _t(1, 2, 5, 5, seed=1), _t(2, 2, 3, seed=2)
    y = ops.Dilation2D((1, 1, 2, 2), (1, 1, 1, 1), "valid")(x, f).asnumpy()
    a, w = x.asnumpy(), f.asnumpy()
    want = np.array([[[[max(a[0, c, 2 * i + p, 2 * j + q] + w[c, p, q]
                            for p in range(2) for q in range(3))
                        for j in range(2)] for i in range(2)] for c in range(2)]])
    np.testing.assert_allclose(y, want, rtol=1e-12)
    same = ops.Dilation2D(1, 1, "same")(x, f)
    assert same.shape == x.shape


def test_add_rms_norm_and_add_layer_norm_match_their_formulas():
    # MindSpore 2.10's CPU build has no AddRmsNorm kernel (add_layer_norm uses it too)
    x1, x2, g, b = _t(2, 3, seed=1), _t(2, 3, seed=2), _t(3, seed=3), _t(3, seed=4)
    s = x1.asnumpy() + x2.asnumpy()
    y, rstd, x = ops.add_rms_norm(x1, x2, g)
    np.testing.assert_allclose(x.asnumpy(), s, rtol=1e-12)
    want_rstd = 1 / np.sqrt((s ** 2).mean(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(y.asnumpy(), s * want_rstd * g.asnumpy(), rtol=1e-12)
    y, mean, rstd, x = ops.add_layer_norm(x1, x2, g, b)
    np.testing.assert_allclose(y.asnumpy(), _np_normalized(s, (1,), 1e-5) * g.asnumpy()
                               + b.asnumpy(), rtol=1e-10)
    np.testing.assert_allclose(rstd.asnumpy(), 1 / np.sqrt(s.var(-1, keepdims=True) + 1e-5),
                               rtol=1e-10)


# --- LSTM ----------------------------------------------------------------------------------------

def _np_lstm(x, h, c, w_ih, w_hh, b, reverse=False):
    def sig(v):
        return 1 / (1 + np.exp(-v))
    hidden, out = h.shape[-1], [None] * x.shape[0]
    for t in (reversed(range(x.shape[0])) if reverse else range(x.shape[0])):
        g = x[t] @ w_ih.T + h @ w_hh.T + b
        i, f, cand, o = (g[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c = sig(f) * c + sig(i) * np.tanh(cand)
        h = sig(o) * np.tanh(c)
        out[t] = h
    return np.stack(out), h, c


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_lstm_primitive_matches_a_reference_lstm(mode):
    # the golden cases compare shapes and gradients (MindSpore returns its workspace too); the
    # values of y, h_n and c_n are checked here (MindSpore 2.10 gives the same, to 1e-7)
    t, n, i, hid = 4, 2, 3, 5
    x, h0, c0 = _t(t, n, i, seed=1), _t(2, n, hid, seed=2), _t(2, n, hid, seed=3)
    w = [np.random.default_rng(k).uniform(-0.5, 0.5, s) for k, s in
         enumerate([(4 * hid, i), (4 * hid, i), (4 * hid, hid), (4 * hid, hid), (4 * hid,),
                    (4 * hid,)])]
    flat = Tensor(np.concatenate([a.ravel() for a in w]).reshape(-1, 1, 1))
    lstm = ops.LSTM(i, hid, 1, True, True, 0.0)
    run = lstm if mode == "pynative" else ms.jit(lambda *a: lstm(*a))
    y, hn, cn, _, _ = run(x, h0, c0, flat)
    a, h, c = x.asnumpy(), h0.asnumpy(), c0.asnumpy()
    fwd = _np_lstm(a, h[0], c[0], w[0], w[2], w[4])
    bwd = _np_lstm(a, h[1], c[1], w[1], w[3], w[5], reverse=True)
    np.testing.assert_allclose(y.asnumpy(), np.concatenate([fwd[0], bwd[0]], axis=-1), rtol=1e-10)
    np.testing.assert_allclose(hn.asnumpy(), np.stack([fwd[1], bwd[1]]), rtol=1e-10)
    np.testing.assert_allclose(cn.asnumpy(), np.stack([fwd[2], bwd[2]]), rtol=1e-10)

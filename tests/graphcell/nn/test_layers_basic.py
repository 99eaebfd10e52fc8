"""Basic, dense and math layers beyond the golden cases: the cells MindSpore 2.10's CPU build
cannot run (checked against numpy), ClipByNorm over axis 0 (wrong in MindSpore 2.10), the
dropouts' randomness, MindSpore 1.x's ResizeBilinear, and printed forms."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from layer_helpers import both_modes

RNG = np.random.default_rng(0)
X = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)


def test_roll_matches_numpy():
    x = RNG.normal(size=(3, 4)).astype(np.float32)
    for out in both_modes(nn.Roll((2, -1), (1, 0)), Tensor(x)):
        np.testing.assert_array_equal(out.asnumpy(), np.roll(x, (2, -1), (1, 0)))
    with pytest.raises(ValueError, match="same length"):
        nn.Roll((1, 2), 0)


def test_matrix_cells_match_numpy():
    x = RNG.normal(size=(2, 3)).astype(np.float32)
    m = RNG.normal(size=(2, 3, 3)).astype(np.float32)
    for out in both_modes(nn.MatrixDiag(), Tensor(x)):
        np.testing.assert_array_equal(out.asnumpy(), np.stack([np.diag(r) for r in x]))
    for out in both_modes(nn.MatrixDiagPart(), Tensor(m)):
        np.testing.assert_array_equal(out.asnumpy(), np.diagonal(m, 0, -2, -1))
    for out in both_modes(nn.MatrixSetDiag(), Tensor(m), Tensor(x)):
        want = m.copy()
        for i in range(2):
            np.fill_diagonal(want[i], x[i])
        np.testing.assert_array_equal(out.asnumpy(), want)


def test_mat_inverse_and_det_of_spd_matrices():
    a = RNG.normal(size=(2, 3, 3))
    spd = (a @ a.transpose(0, 2, 1) + 3 * np.eye(3)).astype(np.float32)
    for out in both_modes(nn.MatInverse(), Tensor(spd)):
        np.testing.assert_allclose(out.asnumpy(), np.linalg.inv(spd), rtol=1e-4, atol=1e-5)
    for out in both_modes(nn.MatDet(), Tensor(spd)):
        np.testing.assert_allclose(out.asnumpy(), np.linalg.det(spd), rtol=1e-4)
    with pytest.raises(TypeError, match="Float16 or Float32"):
        nn.MatDet()(Tensor(spd.astype(np.int32)))


@pytest.mark.parametrize("axis", [0, 1, (1,), (0, 2)])
def test_clip_by_norm_over_some_axes(axis):
    # MindSpore 2.10's CPU kernel takes every norm but the first over the wrong elements
    # (ClipByNorm(axis=1) of rows of 1s, 2s, 3s clipped to 1 gives 0.5, 0.756, 0.949);
    # graphcell clips each slice by its own norm
    x = RNG.normal(size=(3, 4, 2)).astype(np.float32)
    axes = axis if isinstance(axis, tuple) else (axis,)
    norms = np.sqrt((x.astype(np.float64) ** 2).sum(axes, keepdims=True))
    want = x * 1.5 / np.maximum(norms, 1.5)
    for out in both_modes(nn.ClipByNorm(axis=axis), Tensor(x), Tensor(np.float32(1.5))):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)
    rows = np.array([[1.0] * 4, [2.0] * 4, [3.0] * 4], np.float32)
    out = nn.ClipByNorm(axis=1)(Tensor(rows), Tensor(np.float32(1.0))).asnumpy()
    np.testing.assert_allclose(out, np.full((3, 4), 0.5), rtol=1e-6)


def test_clip_by_norm_gradient_at_zero_is_finite():
    # MindSpore's is NaN (the norm's square root at 0)
    g = ms.grad(lambda x: nn.ClipByNorm()(x, Tensor(np.float32(2.0))).sum())(
        Tensor(np.zeros(3, np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), [1.0, 1.0, 1.0])


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_dropout_in_training_zeroes_and_rescales(mode):
    ms.set_seed(1)
    cell = nn.Dropout(p=0.25).set_train()
    x = Tensor(np.ones((200, 50), np.float32))
    out = (cell(x) if mode == "pynative" else ms.jit(lambda a: cell(a))(x)).asnumpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.75, rtol=1e-6)
    assert abs(kept.mean() - 0.75) < 0.02


@pytest.mark.parametrize("cls, shape", [(nn.Dropout1d, (40, 30, 5)), (nn.Dropout2d, (40, 30, 2, 3)),
                                        (nn.Dropout3d, (40, 30, 2, 2, 2))])
def test_channel_dropouts_drop_whole_channels(cls, shape):
    ms.set_seed(2)
    out = cls(p=0.4).set_train()(Tensor(np.ones(shape, np.float32))).asnumpy()
    per_channel = out.reshape(shape[0], shape[1], -1)
    assert np.all((per_channel == 0).all(-1) | np.isclose(per_channel, 1 / 0.6).all(-1))
    assert abs((per_channel[..., 0] != 0).mean() - 0.6) < 0.05
    np.testing.assert_array_equal(cls(p=0.4)(Tensor(np.ones(shape, np.float32))).asnumpy(), 1)


def test_dropout_ext_cells():
    x = Tensor(np.ones((100, 20), np.float32))
    assert np.array_equal(nn.DropoutExt(0.5)(x).asnumpy(), np.ones((100, 20)))
    ms.set_seed(4)
    out = nn.DropoutExt(0.5).set_train()(x).asnumpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and abs((out == 0).mean() - 0.5) < 0.05
    assert not nn.DropoutExt(1.0).set_train()(x).asnumpy().any()
    img = Tensor(np.ones((20, 10, 3, 3), np.float32))
    out = nn.Dropout2dExt(0.5).set_train()(img).asnumpy().reshape(20, 10, 9)
    assert np.all((out == 0).all(-1) | (out == 2).all(-1))


def test_resize_bilinear_is_mindspore_1x():
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
    up = nn.ResizeBilinear()
    out, compiled = (o.asnumpy() for o in both_modes(up, Tensor(x), (4, 6)))
    np.testing.assert_allclose(compiled, out, rtol=1e-6)
    # TensorFlow's legacy bilinear resize (no half-pixel centres): source = dest * in / out
    rows = np.minimum(np.arange(4) * 2 / 4, 1)
    want_row0 = np.interp(np.arange(6) * 3 / 6, [0, 1, 2], x[0, 0, 0])
    np.testing.assert_allclose(out[0, 0, 0], want_row0, rtol=1e-6)
    assert out.shape == (1, 1, 4, 6) and rows[-1] == 1
    np.testing.assert_array_equal(up(Tensor(x), scale_factor=2).asnumpy(), out)
    aligned = up(Tensor(x), (3, 5), align_corners=True).asnumpy()
    np.testing.assert_allclose(aligned[0, 0, 0], np.linspace(0, 2, 5), rtol=1e-6)
    with pytest.raises(ValueError, match="exactly one"):
        up(Tensor(x))


def test_reprs_follow_mindspore():
    assert repr(nn.Dropout(p=0.3)) == "Dropout(p=0.3)"
    assert repr(nn.Dropout(keep_prob=0.9)) == "Dropout(keep_prob=0.9)"
    assert repr(nn.Dropout1d(0.2)) == "Dropout1d()"
    # MindSpore 2.10 prints p=<keep probability> (0.8 here): graphcell prints p
    assert repr(nn.Dropout2d(0.2)) == "Dropout2d(p=0.2)"
    assert repr(nn.Norm(axis=1)) == "Norm(axis=1, keep_dims=False)"
    assert repr(nn.Linear(3, 2, bias=False)) == "Linear(input_features=3, output_features=2)"
    assert repr(nn.Dense(3, 2, activation="relu")) == (
        "Dense(\n  input_channels=3, output_channels=2, has_bias=True, activation=ReLU()\n"
        "  (activation): ReLU()\n)")
    assert [repr(c) for c in (nn.Identity(), nn.Flatten(), nn.OneHot(), nn.Pad(((1, 1),)))] == \
        ["Identity()", "Flatten()", "OneHot()", "Pad()"]


def test_linear_and_bidense_parameters():
    lin = nn.Linear(3, 2, dtype=ms.float64)
    assert [(n, p.shape, p.dtype) for n, p in lin.parameters_and_names()] == \
        [("weight", (2, 3), ms.float64), ("bias", (2,), ms.float64)]
    bi = nn.BiDense(2, 3, 4)
    assert [(n, p.shape) for n, p in bi.parameters_and_names()] == \
        [("weight", (4, 2, 3)), ("bias", (4,))]
    bound = 1 / np.sqrt(2)
    assert np.abs(bi.weight.asnumpy()).max() <= bound and np.abs(bi.bias.asnumpy()).max() <= bound


def test_range_and_l1_regularizer():
    np.testing.assert_array_equal(nn.Range(5)().asnumpy(), np.arange(5, dtype=np.int32))
    assert nn.Range(0.0, 1.0, 0.5)().dtype == ms.float32
    with pytest.raises(ValueError, match="'delta' must not be 0"):
        nn.Range(0, 3, 0)
    out = both_modes(nn.L1Regularizer(2), Tensor(X))
    for o in out:
        np.testing.assert_allclose(o.asnumpy(), 2 * np.abs(X).sum(), rtol=1e-6)
        assert o.dtype == ms.float32 and o.shape == ()

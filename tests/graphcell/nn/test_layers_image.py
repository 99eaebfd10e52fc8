"""PSNR, SSIM and MSSSIM against numpy references, in both modes (MindSpore 2.10 fails on them in
PyNative mode on CPU; its graph mode gives the numbers the first test spells out)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from layer_helpers import both_modes

RNG = np.random.default_rng(0)


def _window(size, sigma):
    offsets = np.arange(size) - (size - 1) // 2
    g = np.exp(-(offsets[:, None] ** 2 + offsets[None, :] ** 2) / (2 * sigma ** 2))
    return g / g.sum()


def _blur(x, w):
    """'valid' correlation of every (n, c) plane with the window ``w``."""
    k = w.shape[0]
    h, wd = x.shape[2] - k + 1, x.shape[3] - k + 1
    out = np.zeros(x.shape[:2] + (h, wd))
    for i in range(k):
        for j in range(k):
            out += w[i, j] * x[:, :, i:i + h, j:j + wd]
    return out


def _ssim_cs(a, b, w, c1, c2):
    mu1, mu2 = _blur(a, w), _blur(b, w)
    s1, s2 = _blur(a * a, w) - mu1 ** 2, _blur(b * b, w) - mu2 ** 2
    s12 = _blur(a * b, w) - mu1 * mu2
    v1, v2 = 2 * s12 + c2, s1 + s2 + c2
    ssim = (2 * mu1 * mu2 + c1) * v1 / ((mu1 ** 2 + mu2 ** 2 + c1) * v2)
    return ssim.mean((2, 3)), (v1 / v2).mean((2, 3))


def _images(shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random(shape).astype(np.float32), rng.random(shape).astype(np.float32)


def test_values_mindspore_graph_mode_gives():
    a = np.random.default_rng(0).random((2, 2, 16, 16)).astype(np.float32)
    b = np.random.default_rng(1).random((2, 2, 16, 16)).astype(np.float32)
    printed = {nn.SSIM(filter_size=5): [0.02371481, -0.00111696],
               nn.MSSSIM(power_factors=(0.3, 0.3, 0.4), filter_size=3): [0.0, 0.04924735],
               nn.PSNR(): [7.607742, 7.8483486]}
    for cell, want in printed.items():
        for out in both_modes(cell, Tensor(a), Tensor(b)):
            np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("size, sigma, max_val", [(5, 1.5, 1.0), (4, 0.8, 2.0), (11, 1.5, 1.0)])
def test_ssim_matches_numpy(size, sigma, max_val):
    a, b = _images((2, 3, 12, 13))
    a, b = a * max_val, b * max_val
    c1, c2 = (0.01 * max_val) ** 2, (0.03 * max_val) ** 2
    want = _ssim_cs(a.astype(np.float64), b.astype(np.float64), _window(size, sigma), c1,
                    c2)[0].mean(-1)
    cell = nn.SSIM(max_val=max_val, filter_size=size, filter_sigma=sigma)
    for out in both_modes(cell, Tensor(a), Tensor(b)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4, atol=1e-5)
    assert not cell.conv.weight.requires_grad


def test_ssim_gradient_flows_to_the_images():
    a, b = _images((1, 1, 8, 8))
    cell = nn.SSIM(filter_size=3)
    ga = ms.grad(lambda x: cell(x, Tensor(b)).sum())(Tensor(a)).asnumpy()
    eps, k = 1e-2, (0, 0, 3, 4)
    up, down = a.copy(), a.copy()
    up[k] += eps
    down[k] -= eps
    numeric = (cell(Tensor(up), Tensor(b)).asnumpy() - cell(Tensor(down), Tensor(b)).asnumpy())
    np.testing.assert_allclose(ga[k], numeric.sum() / (2 * eps), rtol=2e-2)


def test_msssim_matches_numpy():
    a, b = _images((2, 2, 24, 24), seed=3)
    b = 0.7 * a + 0.3 * b  # similar images: every scale's contrast structure is positive
    factors = (0.2, 0.3, 0.5)
    w = _window(3, 1.5)
    x, y, scales = a.astype(np.float64), b.astype(np.float64), []
    for level in range(3):
        ssim, cs = _ssim_cs(x, y, w, 0.01 ** 2, 0.03 ** 2)
        scales.append(np.maximum(cs if level < 2 else ssim, 0))
        x = x.reshape(2, 2, x.shape[2] // 2, 2, x.shape[3] // 2, 2).mean((3, 5))
        y = y.reshape(2, 2, y.shape[2] // 2, 2, y.shape[3] // 2, 2).mean((3, 5))
    want = np.prod(np.stack(scales, -1) ** np.array(factors), -1).mean(-1)
    cell = nn.MSSSIM(power_factors=factors, filter_size=3)
    for out in both_modes(cell, Tensor(a), Tensor(b)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4)
    assert [n for n, _ in cell.parameters_and_names()] == \
        [f"multi_convs_list.{i}.weight" for i in range(3)]


def test_psnr_of_integer_images_is_scaled_by_the_dtype():
    a = RNG.integers(0, 256, (2, 1, 4, 4)).astype(np.uint8)
    b = RNG.integers(0, 256, (2, 1, 4, 4)).astype(np.uint8)
    mse = ((a / 255.0 - b / 255.0) ** 2).mean((1, 2, 3))
    want = 10 * np.log10(1.0 / mse)
    for out in both_modes(nn.PSNR(max_val=255), Tensor(a), Tensor(b)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)
    with pytest.raises(ValueError, match="same dtype and shape"):
        nn.PSNR()(Tensor(a), Tensor(b[:1]))

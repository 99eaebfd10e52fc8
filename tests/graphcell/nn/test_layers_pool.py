"""The PyTorch-style pools MindSpore 2.10's CPU build cannot run (``MaxPool2dExt``,
``AvgPool1dExt/2dExt/3dExt``), against numpy, in both modes; the fractional max pools' gradient
and random windows."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from layer_helpers import both_modes

RNG = np.random.default_rng(0)


def _windows(x, k, s):
    """(..., out, k) windows of the last axis."""
    n = (x.shape[-1] - k) // s + 1
    return np.stack([x[..., i * s:i * s + k] for i in range(n)], axis=-2)


def test_avg_pool_ext_default_stride_is_the_kernel():
    x = RNG.normal(size=(2, 3, 7)).astype(np.float32)
    for out in both_modes(nn.AvgPool1dExt(2), Tensor(x)):
        np.testing.assert_allclose(out.asnumpy(), _windows(x, 2, 2).mean(-1), rtol=1e-6)
    img = RNG.normal(size=(1, 2, 4, 6)).astype(np.float32)
    want = img.reshape(1, 2, 2, 2, 3, 2).mean((3, 5))
    for out in both_modes(nn.AvgPool2dExt(2), Tensor(img)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    vol = RNG.normal(size=(1, 1, 2, 4, 4)).astype(np.float32)
    for out in both_modes(nn.AvgPool3dExt(2), Tensor(vol)):
        np.testing.assert_allclose(out.asnumpy(), vol.reshape(1, 1, 1, 2, 2, 2, 2, 2)
                                   .mean((3, 5, 7)), rtol=1e-6)


def test_avg_pool_ext_padding_and_divisor():
    img = RNG.normal(size=(1, 1, 3, 3)).astype(np.float32)
    padded = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = padded.reshape(1, 1, 5, 5)[:, :, :4, :4].reshape(1, 1, 2, 2, 2, 2).sum((3, 5))
    for out in both_modes(nn.AvgPool2dExt(2, padding=1), Tensor(img)):
        np.testing.assert_allclose(out.asnumpy(), want / 4, rtol=1e-6)
    for out in both_modes(nn.AvgPool2dExt(2, padding=1, divisor_override=3), Tensor(img)):
        np.testing.assert_allclose(out.asnumpy(), want / 3, rtol=1e-6)


@pytest.mark.parametrize("padding, ceil", [(0, False), (1, False), (0, True)])
def test_max_pool_2d_ext(padding, ceil):
    img = RNG.normal(size=(1, 2, 5, 5)).astype(np.float32)
    padded = np.pad(img, ((0, 0), (0, 0), (padding,) * 2, (padding,) * 2),
                    constant_values=-np.inf)
    if ceil:  # a last window that starts inside runs past the end
        padded = np.pad(padded, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
    size = padded.shape[-1] // 2
    want = padded[:, :, :2 * size, :2 * size].reshape(1, 2, size, 2, size, 2).max((3, 5))
    for out in both_modes(nn.MaxPool2dExt(2, padding=padding, ceil_mode=ceil), Tensor(img)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)


def test_fractional_max_pool_gradient_goes_to_each_maximum():
    # MindSpore 2.10's CPU build has no gradient kernel for Float32 here
    x = RNG.normal(size=(2, 3, 9, 8)).astype(np.float32)
    samples = Tensor(RNG.random((2, 3, 2)).astype(np.float32))
    pool = nn.FractionalMaxPool2d(2, output_size=(4, 3), return_indices=True,
                                  _random_samples=samples)
    out, idx = pool(Tensor(x))
    planes = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(out.asnumpy().reshape(2, 3, -1),
                                  np.take_along_axis(planes, idx.asnumpy().reshape(2, 3, -1), 2))
    want = np.zeros_like(planes)
    for n in range(2):
        for c in range(3):
            np.add.at(want[n, c], idx.asnumpy()[n, c].ravel(), 1.0)

    plain = nn.FractionalMaxPool2d(2, output_size=(4, 3), _random_samples=samples)

    def total(a):
        return plain(a).sum()
    def compiled(a):
        return ms.grad(total)(a)
    for grad in (ms.grad(total)(Tensor(x)), ms.jit(compiled)(Tensor(x))):
        np.testing.assert_array_equal(grad.asnumpy().reshape(2, 3, -1), want)


def test_fractional_max_pool_draws_its_windows():
    x = Tensor(RNG.normal(size=(4, 8, 10, 10)).astype(np.float32))
    pool = nn.FractionalMaxPool2d(3, output_ratio=0.5, return_indices=True)
    ms.set_seed(7)
    _, first = pool(x)
    _, second = pool(x)
    ms.set_seed(7)
    _, again = pool(x)
    assert first.shape == (4, 8, 5, 5) and not np.array_equal(first.asnumpy(), second.asnumpy())
    np.testing.assert_array_equal(first.asnumpy(), again.asnumpy())
    # each window starts inside the input and the last one ends at its edge
    rows, cols = first.asnumpy() // 10, first.asnumpy() % 10
    assert rows.min() >= 0 and rows.max() <= 9 and cols[..., -1].min() >= 7

"""Image layers: ``PixelShuffle``, ``PixelUnshuffle``, ``CentralCrop``, ``ImageGradients`` and the
image-quality measures ``PSNR``, ``SSIM`` and ``MSSSIM``, with MindSpore 2.10's constructors.

``SSIM``/``MSSSIM`` filter each channel with a normalised Gaussian window (``filter_size`` square,
``filter_sigma``), held as the frozen weight of a 'valid' ``Conv2d`` child as in MindSpore, and
average the SSIM map over the image; integer images are scaled to [0, 1] by their dtype's
maximum first. Each returns one value per image of the batch.
"""
from __future__ import annotations

import numpy as np

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.container import CellList
from graphcell.nn.layers._validate import _is_int, _is_number, describe
from graphcell.nn.layers.conv import Conv2d
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float16, float32, float64, uint8

__all__ = ["PixelShuffle", "PixelUnshuffle", "CentralCrop", "ImageGradients", "PSNR", "SSIM",
           "MSSSIM"]


class PixelShuffle(Cell):
    """``PixelShuffle(upscale_factor)``: (..., C * r * r, H, W) to (..., C, H * r, W * r).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.PixelShuffle(2)(ms.Tensor(np.ones((1, 8, 2, 3), np.float32))).shape
        (1, 2, 4, 6)
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, input):  # noqa: A002
        return ops.pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Cell):
    """``PixelUnshuffle(downscale_factor)``: (..., C, H * r, W * r) to (..., C * r * r, H, W).

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.PixelUnshuffle(2)(ms.Tensor(np.ones((1, 2, 4, 6), np.float32))).shape
        (1, 8, 2, 3)
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, input):  # noqa: A002
        return ops.pixel_unshuffle(input, self.downscale_factor)


class CentralCrop(Cell):
    """``CentralCrop(central_fraction)``: the centre ``central_fraction`` (in (0, 1]) of the height
    and width of a (C, H, W) or (N, C, H, W) image.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.CentralCrop(0.5)(ms.Tensor(np.ones((3, 8, 6), np.float32))).shape
        (3, 4, 4)
    """

    def __init__(self, central_fraction):
        super().__init__()
        if not isinstance(central_fraction, float):
            raise TypeError(f"{self.cls_name}: 'central_fraction' must be a float, got "
                            f"{type(central_fraction).__name__}")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"{self.cls_name}: 'central_fraction' must be in (0, 1], got "
                             f"{central_fraction}")
        self.central_fraction = central_fraction

    def construct(self, image):
        if not isinstance(image, Tensor) or image.ndim not in (3, 4):
            raise ValueError(f"{self.cls_name}: 'image' must be 3-D or 4-D, got {describe(image)}")
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        # MindSpore's box: the start truncated toward zero, the same margin at both ends
        top = int((float(h) - float(h * self.central_fraction)) / 2)
        left = int((float(w) - float(w * self.central_fraction)) / 2)
        return image[..., top:h - top, left:w - left]


class ImageGradients(Cell):
    """``ImageGradients()``: ``(dy, dx)`` of an (N, C, H, W) image, the forward differences
    along the height and the width (0 in the last row and column).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> dy, dx = nn.ImageGradients()(ms.Tensor([[[[1.0, 2.0], [3.0, 4.0]]]]))
        >>> dy.asnumpy().ravel(), dx.asnumpy().ravel()
        (array([2., 2., 0., 0.], dtype=float32), array([1., 0., 1., 0.], dtype=float32))
    """

    def construct(self, images):
        if not isinstance(images, Tensor) or images.ndim != 4:
            raise ValueError(f"{self.cls_name}: 'images' must be 4-D, got {describe(images)}")
        dy = ops.concat((images[:, :, 1:, :] - images[:, :, :-1, :],
                         ops.zeros_like(images[:, :, :1, :])), 2)
        dx = ops.concat((images[:, :, :, 1:] - images[:, :, :, :-1],
                         ops.zeros_like(images[:, :, :, :1])), 3)
        return dy, dx


# --- image quality -------------------------------------------------------------------------------

def _check_max_val(max_val, owner: str):
    if not _is_number(max_val):
        raise TypeError(f"{owner}: 'max_val' must be an int or a float, got "
                        f"{type(max_val).__name__}")
    if max_val <= 0:
        raise ValueError(f"{owner}: 'max_val' must be greater than 0, got {max_val}")
    return max_val


def _as_unit_float(img, max_val: float):
    """``(img as Float32, max_val)`` scaled by the dtype's range (integer images to [0, 1])."""
    out = ops.cast(img, float32)
    top = float(np.iinfo(img.dtype.np_dtype).max) if img.dtype.is_int else 1.0
    if top > 1.0:
        return out * (1.0 / top), max_val / top
    return out, float(max_val)


def _same_type_shape(owner: str, img1, img2) -> None:
    for what, x in (("img1", img1), ("img2", img2)):
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise ValueError(f"{owner}: '{what}' must be 4-D, got {describe(x)}")
    if img1.dtype != img2.dtype or tuple(img1.shape) != tuple(img2.shape):
        raise ValueError(f"{owner}: 'img1' and 'img2' must have the same dtype and shape, got "
                         f"{describe(img1)} and {describe(img2)}")


class PSNR(Cell):
    """``PSNR(max_val=1.0)``: ``10 * log10(max_val ** 2 / mse)`` of two (N, C, H, W) images, one
    value per image.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> a = ms.Tensor(np.zeros((1, 1, 2, 2), np.float32))
        >>> nn.PSNR()(a, a + 0.1).asnumpy().round(4)
        array([20.], dtype=float32)
    """

    def __init__(self, max_val=1.0):
        super().__init__()
        self.max_val = _check_max_val(max_val, self.cls_name)

    def construct(self, img1, img2):
        _same_type_shape(self.cls_name, img1, img2)
        a, max_val = _as_unit_float(img1, self.max_val)
        b, _ = _as_unit_float(img2, self.max_val)
        mse = ops.mean(ops.square(a - b), (-3, -2, -1))
        return 10 * ops.log(max_val * max_val / mse) / float(np.log(10.0))


def _gaussian_window(size: int, sigma: float) -> np.ndarray:
    """The (1, 1, size, size) normalised Gaussian window, centred at ``(size - 1) // 2``."""
    offsets = np.arange(size, dtype=np.float32) - (size - 1) // 2
    g = np.exp(-(offsets[:, None] ** 2 + offsets[None, :] ** 2) / (2 * sigma ** 2))
    return (g / g.sum()).reshape(1, 1, size, size).astype(np.float32)


def _window_conv(size: int, sigma: float) -> Conv2d:
    conv = Conv2d(1, 1, size, pad_mode="valid", weight_init=Tensor(_gaussian_window(size, sigma)))
    conv.weight.requires_grad = False
    return conv


def _ssim_and_cs(c1: float, c2: float, mu1, mu2, mean11, mean22, mean12):
    """The SSIM and contrast-structure maps, averaged over the image, (N, C), from the windowed
    means of the two images, their squares and their product."""
    sigma1, sigma2, sigma12 = mean11 - mu1 * mu1, mean22 - mu2 * mu2, mean12 - mu1 * mu2
    v1, v2 = 2 * sigma12 + c2, sigma1 + sigma2 + c2
    ssim = (2 * mu1 * mu2 + c1) * v1 / ((mu1 * mu1 + mu2 * mu2 + c1) * v2)
    return ops.mean(ssim, (2, 3)), ops.mean(v1 / v2, (2, 3))


class _WindowedSimilarity(Cell):
    """What SSIM and MSSSIM share: the windowed moments of two images through a window cell
    (methods of the cell, not module functions: graph mode calls sub-cells from a cell's own
    code, where their parameters reach the compiled function)."""

    def _moments(self, conv, a, b):
        return (self._blurred(conv, a), self._blurred(conv, b), self._blurred(conv, a * a),
                self._blurred(conv, b * b), self._blurred(conv, a * b))

    def _blurred(self, conv, x):
        """Each channel of ``x`` filtered alone by the window ``conv``."""
        n, c, h, w = x.shape
        out = conv(ops.reshape(x, (n * c, 1, h, w)))
        return ops.reshape(out, (n, c, out.shape[2], out.shape[3]))


def _filter_args(owner: str, filter_size, filter_sigma, k1, k2):
    if not _is_int(filter_size) or filter_size < 1:
        raise ValueError(f"{owner}: 'filter_size' must be an int >= 1, got {filter_size!r}")
    if not isinstance(filter_sigma, float) or filter_sigma <= 0:
        raise ValueError(f"{owner}: 'filter_sigma' must be a positive float, got "
                         f"{filter_sigma!r}")
    for name, value in (("k1", k1), ("k2", k2)):
        if not isinstance(value, float):
            raise TypeError(f"{owner}: '{name}' must be a float, got {type(value).__name__}")


class SSIM(_WindowedSimilarity):
    """``SSIM(max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)``: the structural
    similarity of two (N, C, H, W) Float16/Float32 images, one value per image.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> a = ms.Tensor(np.random.default_rng(0).random((1, 1, 16, 16)).astype(np.float32))
        >>> nn.SSIM()(a, a).asnumpy().round(4)
        array([1.], dtype=float32)
    """

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        owner = self.cls_name
        self.max_val = _check_max_val(max_val, owner)
        _filter_args(owner, filter_size, filter_sigma, k1, k2)
        self.filter_size, self.filter_sigma, self.k1, self.k2 = filter_size, filter_sigma, k1, k2
        self.conv = _window_conv(filter_size, filter_sigma)

    def construct(self, img1, img2):
        owner = self.cls_name
        _same_type_shape(owner, img1, img2)
        if img1.dtype not in (float16, float32):
            raise TypeError(f"{owner}: 'img1' must be Float16 or Float32, got {img1.dtype}")
        if min(img1.shape[2:]) < self.filter_size:
            raise ValueError(f"{owner}: the images ({list(img1.shape)}) must be at least "
                             f"filter_size={self.filter_size} high and wide")
        a, max_val = _as_unit_float(img1, self.max_val)
        b, _ = _as_unit_float(img2, self.max_val)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        ssim, _ = _ssim_and_cs(c1, c2, *self._moments(self.conv, a, b))
        return ops.mean(ssim, -1)


class MSSSIM(_WindowedSimilarity):
    """``MSSSIM(max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
    filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)``: multi-scale SSIM — the contrast
    structure of each scale (halved by a 2x2 average pool in between) and the SSIM of the last,
    raised to ``power_factors`` and multiplied, one value per image.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> a = ms.Tensor(np.random.default_rng(0).random((1, 1, 16, 16)).astype(np.float32))
        >>> nn.MSSSIM(power_factors=(0.5, 0.5), filter_size=3)(a, a).asnumpy().round(4)
        array([1.], dtype=float32)
    """

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        owner = self.cls_name
        self.max_val = _check_max_val(max_val, owner)
        if not isinstance(power_factors, (tuple, list)):
            raise TypeError(f"{owner}: 'power_factors' must be a tuple or a list, got "
                            f"{type(power_factors).__name__}")
        _filter_args(owner, filter_size, filter_sigma, k1, k2)
        self.filter_size, self.filter_sigma, self.k1, self.k2 = filter_size, filter_sigma, k1, k2
        self.level = len(power_factors)
        self.multi_convs_list = CellList([_window_conv(filter_size, filter_sigma)
                                          for _ in range(self.level)])
        self.weight_tensor = Tensor(np.asarray(power_factors, np.float32))

    def construct(self, img1, img2):
        owner = self.cls_name
        _same_type_shape(owner, img1, img2)
        if img1.dtype not in (float64, float32, float16, uint8):
            raise TypeError(f"{owner}: 'img1' must be Float64, Float32, Float16 or UInt8, got "
                            f"{img1.dtype}")
        a, max_val = _as_unit_float(img1, self.max_val)
        b, _ = _as_unit_float(img2, self.max_val)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        contrasts = ()
        ssim = None
        for i in range(self.level):
            ssim, cs = _ssim_and_cs(c1, c2, *self._moments(self.multi_convs_list[i], a, b))
            contrasts = contrasts + (ops.relu(cs),)
            a, b = ops.avg_pool2d(a, 2, 2), ops.avg_pool2d(b, 2, 2)
        scales = ops.stack(contrasts[:-1] + (ops.relu(ssim),), -1)
        return ops.mean(ops.prod(ops.pow(scales, self.weight_tensor), -1), -1)

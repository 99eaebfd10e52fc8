"""``mindspore.dataset.vision``: image transforms on numpy arrays (HWC, or HW for one channel).

Results follow MindSpore 2.10 (checked against recorded outputs): ``Rescale`` and ``Normalize``
give float32 computed as MindSpore computes them (bit-exact), ``Resize`` follows OpenCV's
definitions (see ``resize.py``), crops pad with ``Border`` modes. Random transforms draw from the
pipeline pass's generator, so they repeat under ``ds.config.set_seed``.

Example::

    >>> import numpy as np
    >>> from graphcell.dataset import vision
    >>> img = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    >>> vision.HWC2CHW()(vision.Rescale(1 / 255, 0)(img)).shape
    (3, 2, 2)
"""
from __future__ import annotations

import numbers

import numpy as np

from graphcell.dataset.core.errors import TransformError
from graphcell.dataset.core.validate import check_int
from graphcell.dataset.transforms.transforms import (ArrayOperation, TypeCast, as_input,
                                                      to_np_dtype)
from graphcell.dataset.vision import resize as _resize
from graphcell.dataset.vision.utils import Border, Inter

_MAX_SIZE = 16777216
_INTERPOLATED = tuple(np.dtype(t) for t in (np.bool_, np.uint8, np.uint16, np.int16, np.float32,
                                            np.float64))  # the dtypes OpenCV interpolates


def _image(op: str, x: np.ndarray, lead: int) -> np.ndarray:
    """Check that a row of ``x`` is an image: HW, HWC (or NHWC where the op allows it)."""
    if not isinstance(x, np.ndarray):
        x = as_input(x, op)
    if x.ndim - lead < 2:
        raise TransformError(f"{op}: the image should have at least two dimensions (HW or HWC), "
                             f"got shape {list(x.shape[lead:])}")
    return x


def _size_pair(name: str, size) -> tuple[int, int]:
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        check_int(f"{name}: size", size, 1, _MAX_SIZE)
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return tuple(check_int(f"{name}: size", s, 1, _MAX_SIZE) for s in size)
    raise TypeError(f"{name}: size should be a single integer or a list/tuple (h, w) of length 2, "
                    f"got {size!r}")


class ImageOperation(ArrayOperation):
    """A one-image transform (called directly, it takes numpy arrays only)."""

    arrays_only = True


# --- value transforms -------------------------------------------------------------------------

class Rescale(ImageOperation):
    """``x * rescale + shift`` as float32 (one rounding, as MindSpore's fused multiply-add)."""

    def __init__(self, rescale, shift):
        for name, v in (("rescale", rescale), ("shift", shift)):
            if not isinstance(v, numbers.Real) or isinstance(v, bool):
                raise TypeError(f"Rescale: {name} must be a number, got {v!r}")
        self.rescale, self.shift = float(rescale), float(shift)

    def _compute(self, x, lead):
        if not isinstance(x, np.ndarray) or x.dtype.kind not in "biuf":
            raise TransformError(f"Rescale: expected a numeric numpy array, got "
                                 f"{getattr(x, 'dtype', type(x).__name__)}")
        r, s = np.float64(np.float32(self.rescale)), np.float64(np.float32(self.shift))
        return (x.astype(np.float32).astype(np.float64) * r + s).astype(np.float32)


class Normalize(ImageOperation):
    """``(x - mean) / std`` per channel, as float32; ``is_hwc=False`` for CHW images."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean, self.std = self._channels("mean", mean, 0), self._channels("std", std, 1e-30)
        if len(self.mean) != len(self.std):
            raise ValueError(f"Normalize: mean and std must have the same length, got "
                             f"{self.mean} and {self.std}")
        if not isinstance(is_hwc, bool):
            raise TypeError(f"Normalize: is_hwc must be a bool, got {is_hwc!r}")
        self.is_hwc = is_hwc

    @staticmethod
    def _channels(name, values, low):
        values = list(values) if isinstance(values, (list, tuple)) else None
        if not values or not all(isinstance(v, numbers.Real) and low <= v <= 255
                                 for v in values):
            what = "(0, 255]" if low else "[0, 255]"
            raise ValueError(f"Normalize: {name} must be a list of numbers in {what}, one per "
                             f"channel, got {values!r}")
        return [float(v) for v in values]

    def _compute(self, x, lead):
        x = _image("Normalize", x, lead)
        rank = x.ndim - lead
        axis = None if rank == 2 else (-1 if self.is_hwc else -3)
        channels = 1 if axis is None else x.shape[axis]
        n = len(self.mean)
        if n != 1 and n != channels:
            raise TransformError(f"Normalize: number of channels does not match the size of mean "
                                 f"and std vectors, got channels: {channels}, size of mean: {n}")
        mean = np.asarray(self.mean, np.float32)
        std = np.asarray(self.std, np.float32)
        if axis is not None and n > 1:
            shape = [1] * 3
            shape[axis] = n
            mean, std = mean.reshape(shape), std.reshape(shape)
        elif n == 1:
            mean, std = mean[0], std[0]
        return (x.astype(np.float32) - mean) / std


class HWC2CHW(ImageOperation):
    """HWC to CHW (an HW image is returned as it is)."""

    def _compute(self, x, lead):
        x = _image("HWC2CHW", x, lead)
        rank = x.ndim - lead
        if rank > 3:
            raise TransformError(f"HWC2CHW: image shape should be <H,W> or <H,W,C>, but got "
                                 f"rank: {rank}")
        return x if rank == 2 else np.ascontiguousarray(np.moveaxis(x, -1, -3))


class ToTensor(ImageOperation):
    """An HWC (or HW) image to CHW of ``output_type`` (float32), divided by 255."""

    def __init__(self, output_type=np.float32):
        self.output_type = output_type
        self._dtype = to_np_dtype(output_type, "ToTensor")

    def _compute(self, x, lead):
        x = _image("ToTensor", x, lead)
        rank = x.ndim - lead
        if rank > 3:
            raise TransformError(f"ToTensor: expected an HW or HWC image, got rank {rank}")
        chw = np.expand_dims(x, lead) if rank == 2 else np.moveaxis(x, -1, -3)
        # MindSpore scales in float32 by a float32 1/255, whatever output_type is
        scaled = chw.astype(np.float32) * np.float32(1 / 255)
        return np.ascontiguousarray(scaled.astype(self._dtype))


class ToType(TypeCast):
    """``TypeCast`` under its ``vision`` name."""

    arrays_only = True


# --- geometry ---------------------------------------------------------------------------------

class Resize(ImageOperation):
    """Resize to ``size``: (h, w), or an int for the shorter side (the aspect ratio kept).

    ``interpolation`` is an ``Inter`` mode; ``Inter.ANTIALIAS`` needs a PIL image in MindSpore and
    is refused here.
    """

    _MODES = {Inter.NEAREST: "nearest", Inter.LINEAR: "linear", Inter.CUBIC: "cubic",
              Inter.AREA: "area", Inter.PILCUBIC: "pilcubic"}

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, numbers.Integral) and not isinstance(size, bool):
            check_int("Resize: size", size, 1, _MAX_SIZE)
            self.size = int(size)
        else:
            self.size = _size_pair("Resize", size)
        if not isinstance(interpolation, Inter):
            raise TypeError(f"Resize: interpolation must be an Inter mode, got "
                            f"{interpolation!r}")
        if interpolation == Inter.ANTIALIAS:
            raise TypeError("Resize: Inter.ANTIALIAS works on PIL images only (MindSpore's "
                            "Python path); graphcell works on numpy arrays — use Inter.AREA or "
                            "Inter.PILCUBIC to shrink with antialiasing")
        self.interpolation = interpolation

    def _out_size(self, h: int, w: int) -> tuple[int, int]:
        if isinstance(self.size, tuple):
            return self.size
        s = self.size
        if h == w:
            return s, s
        return (s, int(s * w / h)) if h < w else (int(s * h / w), s)

    def _compute(self, x, lead):
        x = _image("Resize", x, lead)
        ha, wa = _resize.image_axes(x.ndim, lead)
        out_h, out_w = self._out_size(x.shape[ha], x.shape[wa])
        if x.dtype.kind not in "biuf" or (x.dtype not in _INTERPOLATED and self.interpolation
                                          not in (Inter.NEAREST, Inter.PILCUBIC)):
            raise TransformError(f"Resize: {x.dtype} images are not supported with "
                                 f"Inter.{self.interpolation.name} (as in MindSpore, whose OpenCV "
                                 f"refuses them); use uint8, uint16, int16, float32 or float64, "
                                 f"or Inter.NEAREST")
        if (out_h, out_w) == (x.shape[ha], x.shape[wa]):
            return x.copy()
        if self.interpolation == Inter.PILCUBIC and (x.ndim - lead < 3 or x.shape[-1] != 3):
            raise TransformError(f"Resize: Interpolation mode PILCUBIC only supports images with "
                                 f"3 channels (as in MindSpore), got shape "
                                 f"{list(x.shape[lead:])}")
        return _resize.resize(x, out_h, out_w, self._MODES[self.interpolation], lead)


def _pad(x: np.ndarray, lead: int, top: int, bottom: int, left: int, right: int, fill,
         mode: Border) -> np.ndarray:
    """Pad the image axes of ``x``; a constant fill may give one value per channel."""
    if not (top or bottom or left or right):
        return x
    ha, wa = _resize.image_axes(x.ndim, lead)
    widths = [(0, 0)] * x.ndim
    widths[ha], widths[wa] = (top, bottom), (left, right)
    if mode != Border.CONSTANT:
        return np.pad(x, widths, mode=mode.value)
    fill = np.asarray(fill)
    if fill.ndim == 0 or x.ndim - lead == 2:
        return np.pad(x, widths, constant_values=fill.ravel()[0])
    if fill.shape[0] != x.shape[-1]:
        raise TransformError(f"padding: fill_value {fill.tolist()} has {fill.shape[0]} values for "
                             f"an image of {x.shape[-1]} channels")
    return np.stack([np.pad(x[..., c], widths[:-1], constant_values=fill[c])
                     for c in range(x.shape[-1])], axis=-1)


def _padding4(padding) -> tuple[int, int, int, int]:
    """MindSpore's padding argument as (left, top, right, bottom)."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        p = check_int("padding", padding, 0)
        return p, p, p, p
    if isinstance(padding, (list, tuple)) and len(padding) in (2, 4):
        vals = [check_int("padding", p, 0) for p in padding]
        return tuple(vals * 2) if len(vals) == 2 else tuple(vals)
    raise TypeError(f"padding must be an int or a sequence of 2 or 4 ints, got {padding!r}")


def _fill(fill_value):
    if isinstance(fill_value, numbers.Integral) and not isinstance(fill_value, bool) or (
            isinstance(fill_value, (list, tuple)) and len(fill_value) == 3 and
            all(isinstance(v, numbers.Integral) for v in fill_value)):
        values = [fill_value] if isinstance(fill_value, numbers.Integral) else fill_value
        if all(0 <= v <= 255 for v in values):
            return fill_value
    raise ValueError(f"fill_value must be an int or a 3-tuple of ints in [0, 255], got "
                     f"{fill_value!r}")


class Pad(ImageOperation):
    """Pad the borders: ``padding`` an int, (left/right, top/bottom) or (left, top, right,
    bottom); ``padding_mode`` a ``Border``."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding4(padding)
        self.fill_value = _fill(fill_value)
        self.padding_mode = Border(padding_mode)

    def _compute(self, x, lead):
        left, top, right, bottom = self.padding
        return _pad(_image("Pad", x, lead), lead, top, bottom, left, right, self.fill_value,
                    self.padding_mode)


def _crop(x, lead, top, left, h, w):
    ha, wa = _resize.image_axes(x.ndim, lead)
    index = [slice(None)] * x.ndim
    index[x.ndim + ha], index[x.ndim + wa] = slice(top, top + h), slice(left, left + w)
    return x[tuple(index)]


class Crop(ImageOperation):
    """The ``size`` region whose top-left corner is ``coordinates`` (top, left)."""

    def __init__(self, coordinates, size):
        if not (isinstance(coordinates, (list, tuple)) and len(coordinates) == 2):
            raise TypeError(f"Crop: coordinates must be (top, left), got {coordinates!r}")
        self.coordinates = tuple(check_int("Crop: coordinates", c, 0) for c in coordinates)
        self.size = _size_pair("Crop", size)

    def _compute(self, x, lead):
        x = _image("Crop", x, lead)
        ha, wa = _resize.image_axes(x.ndim, lead)
        (top, left), (h, w) = self.coordinates, self.size
        if top + h > x.shape[ha] or left + w > x.shape[wa]:
            raise TransformError(f"Crop: the region {h}x{w} at ({top}, {left}) is outside the "
                                 f"{x.shape[ha]}x{x.shape[wa]} image")
        return np.ascontiguousarray(_crop(x, lead, top, left, h, w))


class CenterCrop(ImageOperation):
    """The central ``size`` region; a crop larger than the image pads it with zeros first."""

    def __init__(self, size):
        self.size = _size_pair("CenterCrop", size)

    def _compute(self, x, lead):
        x = _image("CenterCrop", x, lead)
        ha, wa = _resize.image_axes(x.ndim, lead)
        h, w = x.shape[ha], x.shape[wa]
        ch, cw = self.size
        dh, dw = max(ch - h, 0), max(cw - w, 0)
        x = _pad(x, lead, (dh + 1) // 2, dh // 2, (dw + 1) // 2, dw // 2, 0, Border.CONSTANT)
        top, left = (x.shape[ha] - ch) // 2, (x.shape[wa] - cw) // 2
        return np.ascontiguousarray(_crop(x, lead, top, left, ch, cw))


class HorizontalFlip(ImageOperation):
    """Mirror left to right."""

    def _compute(self, x, lead):
        x = _image("HorizontalFlip", x, lead)
        return np.ascontiguousarray(np.flip(x, axis=_resize.image_axes(x.ndim, lead)[1]))


class VerticalFlip(ImageOperation):
    """Mirror top to bottom."""

    def _compute(self, x, lead):
        x = _image("VerticalFlip", x, lead)
        return np.ascontiguousarray(np.flip(x, axis=_resize.image_axes(x.ndim, lead)[0]))


# --- random transforms ------------------------------------------------------------------------

class _RandomOperation(ImageOperation):
    """A one-image transform that draws from the pass's generator (never run on whole batches,
    where every row must draw on its own)."""

    batch_apply = None
    random = True

    def _apply(self, args, rng):
        return (self._random(self._one(args), rng),)

    def _random(self, x, rng):
        raise NotImplementedError


def _prob(name: str, prob) -> float:
    if not isinstance(prob, numbers.Real) or isinstance(prob, bool) or not 0 <= prob <= 1:
        raise ValueError(f"{name}: prob must be a number in [0, 1], got {prob!r}")
    return float(prob)


class RandomHorizontalFlip(_RandomOperation):
    """Mirror left to right with probability ``prob``."""

    def __init__(self, prob=0.5):
        self.prob = _prob("RandomHorizontalFlip", prob)

    def _random(self, x, rng):
        flip = rng.random() < self.prob
        return HorizontalFlip()._compute(x, 0) if flip else _image("RandomHorizontalFlip", x, 0)


class RandomVerticalFlip(_RandomOperation):
    """Mirror top to bottom with probability ``prob``."""

    def __init__(self, prob=0.5):
        self.prob = _prob("RandomVerticalFlip", prob)

    def _random(self, x, rng):
        flip = rng.random() < self.prob
        return VerticalFlip()._compute(x, 0) if flip else _image("RandomVerticalFlip", x, 0)


class RandomCrop(_RandomOperation):
    """A ``size`` region at a random place, after padding by ``padding`` (and, with
    ``pad_if_needed``, by what an image smaller than ``size`` lacks, on both sides)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self.size = _size_pair("RandomCrop", size)
        self.padding = (0, 0, 0, 0) if padding is None else _padding4(padding)
        if not isinstance(pad_if_needed, bool):
            raise TypeError(f"RandomCrop: pad_if_needed must be a bool, got {pad_if_needed!r}")
        self.pad_if_needed = pad_if_needed
        self.fill_value = _fill(fill_value)
        self.padding_mode = Border(padding_mode)

    def _random(self, x, rng):
        x = _image("RandomCrop", x, 0)
        left, top, right, bottom = self.padding
        x = _pad(x, 0, top, bottom, left, right, self.fill_value, self.padding_mode)
        ha, wa = _resize.image_axes(x.ndim, 0)
        ch, cw = self.size
        if self.pad_if_needed:
            dh, dw = max(ch - x.shape[ha], 0), max(cw - x.shape[wa], 0)
            x = _pad(x, 0, dh, dh, dw, dw, self.fill_value, self.padding_mode)
        h, w = x.shape[ha], x.shape[wa]
        if ch > h or cw > w:
            raise TransformError(f"RandomCrop: invalid crop size, crop size is bigger than the "
                                 f"image dimensions, got crop height: {ch}, crop width: {cw} for "
                                 f"a {h}x{w} image (after padding)")
        top = int(rng.integers(0, h - ch + 1))
        left = int(rng.integers(0, w - cw + 1))
        return np.ascontiguousarray(_crop(x, 0, top, left, ch, cw))


__all__ = ["Rescale", "Normalize", "HWC2CHW", "ToTensor", "ToType", "Resize", "Pad", "Crop",
           "CenterCrop", "HorizontalFlip", "VerticalFlip", "RandomHorizontalFlip",
           "RandomVerticalFlip", "RandomCrop", "Inter", "Border"]

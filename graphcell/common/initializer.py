"""Parameter initializers (``mindspore.common.initializer``).

``initializer(init, shape, dtype)`` makes a Tensor from a name (``'normal'``, ``'xavier_uniform'``,
...; case-insensitive), a number, a Tensor or numpy array, or an ``Initializer`` object. MindSpore
returns a lazily initialised Tensor; graphcell fills it at once, and ``.init_data()`` returns it.

Random initializers draw from ``graphcell.common.seed.generator()``, so ``set_seed`` makes them
reproducible (the values differ from MindSpore's, the distributions are the same). The formulas
and fan computation are MindSpore's (and PyTorch's): for a weight of shape ``(out, in, *k)``,
``fan_in = in * prod(k)`` and ``fan_out = out * prod(k)``.

Example::

    >>> import graphcell as ms
    >>> from graphcell.common.initializer import initializer, Normal
    >>> initializer("ones", [2, 3], ms.float32).asnumpy()
    array([[1., 1., 1.],
           [1., 1., 1.]], dtype=float32)
    >>> initializer(Normal(sigma=0.02), (4, 4)).shape
    (4, 4)
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from graphcell.common import seed as _seed
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, to_dtype

__all__ = ["Initializer", "initializer", "Zero", "One", "Constant", "Normal", "TruncatedNormal",
           "Uniform", "XavierUniform", "XavierNormal", "HeUniform", "HeNormal", "Identity",
           "Orthogonal", "Dirac", "Sparse", "VarianceScaling"]


# --- the result type -------------------------------------------------------------------------

class InitializedTensor(Tensor):
    """The Tensor ``initializer`` returns: already filled, so ``init_data()`` returns it.

    MindSpore returns a Tensor whose ``init_data()`` materialises the values; scripts call it, and
    graphcell's ``Tensor(shape=..., init=...)`` relies on it. Operators on it give plain Tensors.
    """

    __slots__ = ()
    has_init = False

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None) -> "InitializedTensor":
        return self

    @classmethod
    def _of(cls, array: np.ndarray) -> "InitializedTensor":
        t = object.__new__(cls)
        t._data = array
        t._node = None
        return t


# --- fan and gain ----------------------------------------------------------------------------

def _fan_in_and_fan_out(shape: tuple, who: str) -> tuple[int, int]:
    if len(shape) < 2:
        raise ValueError(f"{who}: fan_in and fan_out need a shape of at least 2 dimensions "
                         f"(out, in, *kernel), got shape {list(shape)}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fan(shape: tuple, mode: str, who: str) -> int:
    fan_in, fan_out = _fan_in_and_fan_out(shape, who)
    return fan_in if mode.lower() == "fan_in" else fan_out


def _check_mode(mode, who: str) -> str:
    if not isinstance(mode, str) or mode.lower() not in ("fan_in", "fan_out"):
        raise ValueError(f"{who}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
    return mode


_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def _gain(nonlinearity: str, negative_slope, who: str) -> float:
    """The recommended gain of a nonlinearity (PyTorch's ``calculate_gain``, as MindSpore uses)."""
    if nonlinearity in _LINEAR:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if negative_slope is None else negative_slope
        if isinstance(slope, bool) or not isinstance(slope, numbers.Real):
            raise ValueError(f"{who}: negative_slope must be a number, got {slope!r}")
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"{who}: nonlinearity must be one of 'linear', 'conv1d', 'conv2d', "
                     f"'conv3d', 'sigmoid', 'tanh', 'relu', 'leaky_relu', got {nonlinearity!r}")


# --- initializers ----------------------------------------------------------------------------

class Initializer:
    """Base class: subclasses implement ``_values(shape) -> float64 array``.

    Calling an initializer on a numpy array fills it in place, as in MindSpore:
    ``Normal(0.02)(arr)``.
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _values(self, shape: tuple) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} must implement _values(shape)")

    def __call__(self, arr: np.ndarray) -> np.ndarray:
        arr[...] = self._values(tuple(arr.shape))
        return arr

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


def _rng() -> np.random.Generator:
    return _seed.generator()


class Zero(Initializer):
    """All zeros (``'zeros'``)."""

    def _values(self, shape):
        return np.zeros(shape)


class One(Initializer):
    """All ones (``'ones'``)."""

    def _values(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    """Every element ``value`` (a number, or an array broadcastable to the shape)."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _values(self, shape):
        return np.broadcast_to(np.asarray(self.value, dtype=np.float64), shape)


class Normal(Initializer):
    """Samples of N(mean, sigma²); ``'normal'`` is ``Normal(sigma=0.01)``."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        if sigma < 0:
            raise ValueError(f"Normal: sigma must be >= 0, got {sigma}")
        self.sigma, self.mean = sigma, mean

    def _values(self, shape):
        return _rng().normal(self.mean, self.sigma, shape)


class TruncatedNormal(Initializer):
    """N(mean, sigma²) restricted to ``[a, b]`` (absolute bounds, as in MindSpore)."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        if sigma < 0:
            raise ValueError(f"TruncatedNormal: sigma must be >= 0, got {sigma}")
        if not a < b:
            raise ValueError(f"TruncatedNormal: the bounds need a < b, got a={a}, b={b}")
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _values(self, shape):
        return _truncated_normal(self.mean, self.sigma, self.a, self.b, shape)


def _truncated_normal(mean, sigma, a, b, shape) -> np.ndarray:
    """Rejection sampling: redraw the out-of-bounds samples until none is left."""
    rng = _rng()
    out = rng.normal(mean, sigma, shape)
    if sigma == 0:
        return np.clip(out, a, b)
    bad = (out < a) | (out > b)
    while bad.any():
        out[bad] = rng.normal(mean, sigma, int(bad.sum()))
        bad = (out < a) | (out > b)
    return out


class Uniform(Initializer):
    """Samples of U(-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _values(self, shape):
        return _rng().uniform(-self.scale, self.scale, shape)


class XavierUniform(Initializer):
    """U(-bound, bound) with ``bound = gain * sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _values(self, shape):
        fan_in, fan_out = _fan_in_and_fan_out(shape, "XavierUniform")
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return _rng().uniform(-bound, bound, shape)


class XavierNormal(Initializer):
    """N(0, std²) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _values(self, shape):
        fan_in, fan_out = _fan_in_and_fan_out(shape, "XavierNormal")
        return _rng().normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class HeUniform(Initializer):
    """U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``; ``gain`` from the nonlinearity."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.mode = _check_mode(mode, type(self).__name__)
        self.gain = _gain(nonlinearity, negative_slope, type(self).__name__)
        self.negative_slope, self.nonlinearity = negative_slope, nonlinearity

    def _std(self, shape) -> float:
        return self.gain / math.sqrt(_fan(shape, self.mode, type(self).__name__))

    def _values(self, shape):
        bound = math.sqrt(3.0) * self._std(shape)
        return _rng().uniform(-bound, bound, shape)


class HeNormal(HeUniform):
    """N(0, std²) with ``std = gain / sqrt(fan)``; ``gain`` from the nonlinearity."""

    def _values(self, shape):
        return _rng().normal(0.0, self._std(shape), shape)


class Identity(Initializer):
    """The identity matrix (2-D shapes only)."""

    def _values(self, shape):
        if len(shape) != 2:
            raise ValueError(f"Identity: the shape must be 2-D, got {list(shape)}")
        return np.eye(*shape)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``; trailing dimensions are flattened."""

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = gain

    def _values(self, shape):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the shape needs at least 2 dimensions, got {list(shape)}")
        rows, cols = shape[0], math.prod(shape[1:])
        flat = _rng().normal(0.0, 1.0, (max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(flat)
        q *= np.sign(np.diag(r))  # makes the decomposition unique, so the result is uniform
        q = q if rows >= cols else q.T
        return (self.gain * q).reshape(shape)


class Dirac(Initializer):
    """The Dirac delta for convolution kernels (3-, 4- or 5-D), ``groups`` channel groups."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _values(self, shape):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: the shape must have 3, 4 or 5 dimensions, got {list(shape)}")
        if shape[0] % self.groups:
            raise ValueError(f"Dirac: the first dimension {shape[0]} is not divisible by "
                             f"groups={self.groups}")
        out = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for d in range(min(per_group, shape[1])):
                out[(g * per_group + d, d) + centre] = 1.0
        return out


class Sparse(Initializer):
    """A 2-D N(0, sigma²) matrix with a fraction ``sparsity`` of each column set to zero."""

    def __init__(self, sparsity, sigma=0.01):
        super().__init__(sparsity=sparsity, sigma=sigma)
        self.sparsity, self.sigma = sparsity, sigma

    def _values(self, shape):
        if len(shape) != 2:
            raise ValueError(f"Sparse: the shape must be 2-D, got {list(shape)}")
        rows, cols = shape
        out = _rng().normal(0.0, self.sigma, shape)
        zeros = int(math.ceil(self.sparsity * rows))
        for col in range(cols):
            out[_rng().permutation(rows)[:zeros], col] = 0.0
        return out


class VarianceScaling(Initializer):
    """Samples scaled by the fan: ``std = sqrt(scale / n)`` (n from ``mode``).

    ``distribution`` is ``'truncated_normal'`` (within two std, rescaled to keep the variance),
    ``'untruncated_normal'`` or ``'uniform'`` (``U(-sqrt(3 scale / n), sqrt(3 scale / n))``).
    MindSpore's own version draws uniform samples for ``'truncated_normal'`` (a misspelt
    comparison); graphcell draws what the name says.
    """

    _MODES = ("fan_in", "fan_out", "fan_avg")
    _DISTRIBUTIONS = ("uniform", "truncated_normal", "untruncated_normal")

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0:
            raise ValueError(f"VarianceScaling: scale must be > 0, got {scale}")
        if mode not in self._MODES:
            raise ValueError(f"VarianceScaling: mode must be one of {self._MODES}, got {mode!r}")
        if distribution not in self._DISTRIBUTIONS:
            raise ValueError(f"VarianceScaling: distribution must be one of {self._DISTRIBUTIONS}, "
                             f"got {distribution!r}")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _values(self, shape):
        fan_in, fan_out = _fan_in_and_fan_out(shape, "VarianceScaling")
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * scale)
            return _rng().uniform(-limit, limit, shape)
        if self.distribution == "untruncated_normal":
            return _rng().normal(0.0, math.sqrt(scale), shape)
        std = math.sqrt(scale) / 0.87962566103423978  # std of N(0,1) truncated to [-2, 2]
        return _truncated_normal(0.0, std, -2 * std, 2 * std, shape)


# Names accepted by initializer(): each class's lower-cased name plus MindSpore's aliases.
_BY_NAME = {cls.__name__.lower(): cls for cls in (
    Zero, One, Normal, TruncatedNormal, Uniform, XavierUniform, XavierNormal, HeUniform, HeNormal,
    Identity, Orthogonal, Dirac, Sparse, VarianceScaling)}
_BY_NAME.update(zeros=Zero, ones=One, xavier_uniform=XavierUniform, xavier_normal=XavierNormal,
                he_uniform=HeUniform, he_normal=HeNormal)


def _from_name(name: str) -> Initializer:
    cls = _BY_NAME.get(name.lower())
    if cls is None:
        valid = ", ".join(repr(n) for n in sorted(_BY_NAME))
        raise ValueError(f"initializer: unknown initializer name {name!r}; valid names "
                         f"(case-insensitive) are {valid}")
    try:
        return cls()
    except TypeError:
        raise ValueError(f"initializer: {name!r} needs arguments; use {cls.__name__}(...) "
                         "instead of its name") from None


# --- the function ----------------------------------------------------------------------------

def _shape_tuple(shape) -> tuple[int, ...] | None:
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or any(
            isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s <= 0 for s in shape):
        raise ValueError(f"initializer: shape must be a positive int or a tuple/list of positive "
                         f"ints, got {shape!r}")
    return tuple(int(s) for s in shape)


def _from_values(init, shape) -> Tensor:
    """``init`` given as a Tensor or numpy array: checked against ``shape`` and returned."""
    tensor = init if isinstance(init, Tensor) else Tensor(init)
    if shape is not None and tensor.shape != shape:
        raise ValueError(f"initializer: init has shape {list(tensor.shape)} but shape="
                         f"{list(shape)} was given")
    if isinstance(init, Tensor) and hasattr(init, "init_data"):
        return init  # MindSpore returns the very Tensor it was given
    return InitializedTensor._of(tensor._data)


def initializer(init, shape=None, dtype=float32) -> Tensor:
    """A Tensor of ``shape`` and ``dtype`` filled by ``init``.

    ``init`` is an initializer name (``'zeros'``, ``'ones'``, ``'normal'``, ``'truncatedNormal'``,
    ``'uniform'``, ``'xavier_uniform'``, ``'he_uniform'``, ``'he_normal'``, ...), a number
    (every element), an ``Initializer`` object, or a Tensor/numpy array (returned as is; its shape
    must equal ``shape`` when both are given).

    Example::

        >>> from graphcell.common.initializer import initializer, HeUniform
        >>> initializer(0.5, 2).asnumpy()
        array([0.5, 0.5], dtype=float32)
        >>> initializer(HeUniform(), [6, 1, 5, 5]).init_data().shape
        (6, 1, 5, 5)
    """
    shape = _shape_tuple(shape)
    if isinstance(init, (Tensor, np.ndarray)):
        return _from_values(init, shape)
    if isinstance(init, str):
        init = _from_name(init)
    elif isinstance(init, numbers.Number):
        init = Constant(init)
    elif not isinstance(init, Initializer):
        raise TypeError(f"initializer: init must be a name, a number, an Initializer, a Tensor or "
                        f"a numpy array, got {type(init).__name__} {init!r}")
    if shape is None:
        raise ValueError(f"initializer: shape is required when init is {init!r}")
    arr = np.empty(shape, dtype=to_dtype(dtype).np_dtype)
    init(arr)
    return InitializedTensor._of(arr)

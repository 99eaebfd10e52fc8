"""MindSpore's random functions (``mindspore.ops.function.random_func``) with MindSpore 2.10's
signatures: samplers over the random primitives of ``graphcell_ir/ops/random.py``.

Every draw comes from graphcell's one generator, so ``ms.set_seed(n)`` makes a script repeatable
in PyNative and graph mode alike. MindSpore's per-call ``seed``/``seed2``/``generator`` arguments
select no other stream; a ``generator=`` (``ms.Generator``) does, in PyNative mode
(``graphcell/common/generator.py``). Values cannot match
MindSpore's own generator: golden cases compare shapes and dtypes, and the distributions are
tested separately (``tests/graphcell/test_ops_random.py``).

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> ms.set_seed(1); a = ops.randn(2, 3)
    >>> ms.set_seed(1); b = ops.randn(2, 3)
    >>> a.shape, bool((a == b).all())
    ((2, 3), True)
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function._utils import shape_of
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import (bool_, float16, float32, float64, int32, int64, promote,
                                   to_dtype)
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.shape_rules import broadcast_shapes

__all__ = [
    "randn", "rand", "uniform", "normal", "multinomial", "gamma", "randint", "randperm",
    "rand_like", "randn_like", "randint_like", "laplace", "shuffle", "bernoulli",
    "standard_normal", "standard_laplace", "random_categorical", "random_gamma",
    "random_poisson", "uniform_candidate_sampler",
    "StandardNormal", "UniformReal", "UniformInt", "StandardLaplace", "RandomChoiceWithMask",
    "RandomCategorical", "Multinomial", "Randperm", "UniformCandidateSampler", "Gamma",
    "RandomGamma", "RandomPoisson",
]

_FLOATS = (float16, float32, float64)


# --- argument normalisation -----------------------------------------------------------------------

def _size(name: str, size) -> tuple[int, ...]:
    """``*size`` as MindSpore's creation functions take it: ints, or one tuple/list/Tensor."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = size[0]
    try:
        shape = shape_of(size)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: size must be ints or a tuple of ints, got {size!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"{name}: sizes must be non-negative, got {list(shape)}")
    return shape


def _shape(name: str, shape) -> tuple[int, ...]:
    """A shape argument: an int, a tuple/list of ints, or a 1-D integer Tensor of sizes."""
    try:
        out = shape_of(shape)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: shape must be a tuple of ints, got {shape!r}") from None
    if any(s < 0 for s in out):
        raise ValueError(f"{name}: shape must have non-negative sizes, got {list(out)}")
    return out


def _float_dtype(name: str, dtype, default=float32):
    d = default if dtype is None else to_dtype(dtype)
    if d not in _FLOATS:
        raise ValueError(f"{name}: dtype must be a float type, got {d}")
    return d


def _int_dtype(name: str, dtype, default=int64):
    d = default if dtype is None else to_dtype(dtype)
    if not d.is_int:
        raise ValueError(f"{name}: dtype must be an int type, got {d}")
    return d


def _as_tensor(name: str, what: str, v):
    """A Tensor, or a Python number as a 0-d float32 Tensor (MindSpore converts them)."""
    if isinstance(v, Tensor):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return Tensor(np.asarray(v, np.float32))
    raise TypeError(f"{name}: {what} must be a Tensor or a number, got {type(v).__name__}")


def _one_value(v) -> Tensor:
    """An int or a one-element integer Tensor as a 1-element int32 Tensor (uniform_int's bounds)."""
    if isinstance(v, Tensor):
        return v
    return Tensor(np.asarray([int(v)], np.int32))


# --- normal and uniform ------------------------------------------------------------------------

def randn(*size, dtype=None, seed=None):
    """``ops.randn(*size, dtype=None, seed=None)``: samples of N(0, 1) (Float32 by default; no
    size gives one value of shape (1,))."""
    shape = _size("ops.randn", size) if size else (1,)
    return F.standard_normal(shape=shape, dtype=_float_dtype("ops.randn", dtype))


def rand(*size, dtype=None, seed=None):
    """``ops.rand(*size, dtype=None, seed=None)``: samples of U[0, 1) (Float32 by default)."""
    shape = _size("ops.rand", size) if size else (1,)
    return F.uniform_real(shape=shape, dtype=_float_dtype("ops.rand", dtype))


def standard_normal(shape, seed=None):
    """``ops.standard_normal(shape, seed=None)``: Float32 samples of N(0, 1)."""
    return F.standard_normal(shape=_shape("ops.standard_normal", shape))


def standard_laplace(shape, seed=None):
    """``ops.standard_laplace(shape, seed=None)``: Float32 samples of Laplace(0, 1)."""
    return F.standard_laplace(shape=_shape("ops.standard_laplace", shape))


def rand_like(input, seed=None, *, dtype=None):  # noqa: A002
    """``ops.rand_like(input, seed=None, *, dtype=None)``: U[0, 1) samples of input's shape and
    dtype (a float dtype), or of ``dtype``."""
    d = _float_dtype("ops.rand_like", input.dtype if dtype is None else dtype)
    return F.uniform_real(shape=tuple(input.shape), dtype=d)


def randn_like(input, seed=None, *, dtype=None):  # noqa: A002
    """``ops.randn_like(input, seed=None, *, dtype=None)``: N(0, 1) samples of input's shape
    (Float32 — not input's dtype, as MindSpore 2.10 — or ``dtype``)."""
    return F.standard_normal(shape=tuple(input.shape),
                             dtype=_float_dtype("ops.randn_like", dtype))


def normal(shape, mean, stddev, seed=None):
    """``ops.normal(shape, mean, stddev, seed=None)``: samples of N(mean, stddev^2); the result's
    shape is ``shape`` broadcast with mean's and stddev's, its dtype theirs (Float32 for
    integers or numbers). Differentiable with respect to mean and stddev."""
    name = "ops.normal"
    mean, stddev = _as_tensor(name, "mean", mean), _as_tensor(name, "stddev", stddev)
    dtype = promote(mean.dtype, stddev.dtype)
    dtype = dtype if dtype in _FLOATS else float32
    out = broadcast_shapes(_shape(name, shape), tuple(mean.shape), tuple(stddev.shape))
    z = F.standard_normal(shape=out, dtype=dtype)
    return F.add(F.mul(z, F.cast(stddev, dtype=dtype)), F.cast(mean, dtype=dtype))


def laplace(shape, mean, lambda_param, seed=None):
    """``ops.laplace(shape, mean, lambda_param, seed=None)``: samples of Laplace(mean,
    lambda_param), shaped as ``normal``'s."""
    name = "ops.laplace"
    mean, scale = _as_tensor(name, "mean", mean), _as_tensor(name, "lambda_param", lambda_param)
    out = broadcast_shapes(_shape(name, shape), tuple(mean.shape), tuple(scale.shape))
    z = F.standard_laplace(shape=out)
    return F.add(F.mul(z, F.cast(scale, dtype=float32)), F.cast(mean, dtype=float32))


def uniform(shape, minval, maxval, seed=None, dtype=float32):
    """``ops.uniform(shape, minval, maxval, seed=None, dtype=mindspore.float32)``: samples of
    U[minval, maxval) — Float32 (``minval``/``maxval`` float32 Tensors, broadcast with ``shape``)
    or Int32 (one-value int32 Tensors, ``dtype=mindspore.int32``)."""
    name = "ops.uniform"
    if not isinstance(minval, Tensor) or not isinstance(maxval, Tensor):
        raise TypeError(f"{name}: minval and maxval must be Tensors, got "
                        f"{type(minval).__name__} and {type(maxval).__name__}")
    dtype = to_dtype(dtype)
    if dtype not in (float32, int32):
        raise TypeError(f"{name}: dtype must be Int32 or Float32, got {dtype}")
    for what, t in (("minval", minval), ("maxval", maxval)):
        if t.dtype != dtype:
            raise TypeError(f"{name}: {what} has dtype {t.dtype}, which must be the dtype "
                            f"asked for ({dtype})")
    shape = _shape(name, shape)
    if dtype == int32:
        return F.uniform_int(minval, maxval, shape=shape)
    out = broadcast_shapes(shape, tuple(minval.shape), tuple(maxval.shape))
    u = F.uniform_real(shape=out)
    return F.add(F.mul(u, F.sub(maxval, minval)), minval)


def randint(low, high, size, seed=None, *, dtype=None):
    """``ops.randint(low, high, size, seed=None, *, dtype=None)``: integers drawn uniformly from
    [low, high) (Int64 by default)."""
    name = "ops.randint"
    d = _int_dtype(name, dtype)
    lo, hi = int(low), int(high)
    if lo >= hi:
        raise ValueError(f"{name}: low ({lo}) must be less than high ({hi})")
    return F.uniform_int(_one_value(lo), _one_value(hi), shape=_shape(name, size), dtype=d)


def randint_like(input, low, high, seed=None, *, dtype=None):  # noqa: A002
    """``ops.randint_like(input, low, high, seed=None, *, dtype=None)``: ``randint`` of input's
    shape; the dtype is input's (which must then be an integer dtype) unless given."""
    name = "ops.randint_like"
    d = _int_dtype(name, dtype if dtype is not None else input.dtype)
    return randint(low, high, tuple(input.shape), dtype=d)


def randperm(n, seed=0, offset=0, dtype=int64):
    """``ops.randperm(n, seed=0, offset=0, dtype=mindspore.int64)``: a random permutation of
    0..n-1."""
    name = "ops.randperm"
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise ValueError(f"{name}: n must be a non-negative int, got {n!r}")
    d = to_dtype(dtype)
    if d == bool_:
        raise TypeError(f"{name}: dtype must be numeric, got {d}")
    return F.randperm(_one_value(int(n)), max_length=max(int(n), 1), pad=0, dtype=d) \
        if n else F.fill(dtype=d, shape=(0,), value=0)


def shuffle(x, seed=None):
    """``ops.shuffle(x, seed=None)``: ``x`` with its first axis randomly permuted."""
    if x.ndim == 0 or x.shape[0] <= 1:
        return x
    n = x.shape[0]
    order = F.randperm(_one_value(n), max_length=n, pad=0, dtype=int32)
    return F.take(x, order, axis=0)


def bernoulli(input, p=0.5, seed=None):  # noqa: A002
    """``ops.bernoulli(input, p=0.5, seed=None)``: ones with probability ``p`` (a number, or a
    Tensor of input's shape or of one element) and zeros, in input's shape and dtype."""
    name = "ops.bernoulli"
    if isinstance(p, Tensor):
        if p.size != 1 and tuple(p.shape) != tuple(input.shape):
            raise ValueError(f"{name}: p must have input's shape {list(input.shape)} or one "
                             f"element, got {list(p.shape)}")
        if p.size == 1:
            p = F.reshape(p, shape=())
    elif not isinstance(p, (int, float)) or isinstance(p, bool):
        raise TypeError(f"{name}: p must be a float or a Tensor, got {type(p).__name__}")
    u = F.uniform_real(shape=tuple(input.shape))
    return F.cast(F.less(u, p), dtype=input.dtype)


# --- gamma, Poisson -----------------------------------------------------------------------------

def gamma(shape, alpha, beta, seed=None):
    """``ops.gamma(shape, alpha, beta, seed=None)``: samples of Gamma(alpha, rate beta) of
    ``shape`` broadcast with alpha's and beta's shapes. MindSpore 2.10's CPU build has no kernel
    for it; graphcell provides it."""
    name = "ops.gamma"
    if not isinstance(alpha, Tensor) or not isinstance(beta, Tensor):
        raise TypeError(f"{name}: alpha and beta must be Tensors")
    return F.random_gamma(alpha, beta, shape=_shape(name, shape))


def random_gamma(shape, alpha, seed=None):
    """``ops.random_gamma(shape, alpha, seed=None)``: samples of Gamma(alpha, 1) of shape
    ``shape + alpha.shape`` (``shape`` a 1-D integer Tensor or a tuple)."""
    name = "ops.random_gamma"
    if not isinstance(alpha, Tensor):
        raise TypeError(f"{name}: alpha must be a Tensor, got {type(alpha).__name__}")
    out = _shape(name, shape) + tuple(alpha.shape)
    a = F.broadcast_to(alpha, shape=out)
    return F.random_gamma(a, F.ones_like(a), shape=out)


def random_poisson(shape, rate, seed=None, dtype=float32):
    """``ops.random_poisson(shape, rate, seed=None, dtype=mindspore.float32)``: Poisson counts of
    shape ``shape + rate.shape`` (``shape`` a 1-D integer Tensor or a tuple), in ``dtype``."""
    name = "ops.random_poisson"
    if not isinstance(rate, Tensor):
        raise TypeError(f"{name}: rate must be a Tensor, got {type(rate).__name__}")
    return F.random_poisson(rate, shape=_shape(name, shape), dtype=to_dtype(dtype))


# --- categorical -------------------------------------------------------------------------------

def multinomial(input, num_samples, replacement=True, seed=None):  # noqa: A002
    """``ops.multinomial(input, num_samples, replacement=True, seed=None)``: ``num_samples``
    category indices (Int32) per row of ``input`` (1-D or 2-D non-negative weights)."""
    name = "ops.multinomial"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.dtype not in _FLOATS:
        raise TypeError(f"{name}: input must be a float tensor, got {input.dtype}")
    if not replacement and num_samples > input.shape[-1]:
        raise ValueError(f"{name}: without replacement num_samples ({num_samples}) cannot "
                         f"exceed the last dimension of input ({input.shape[-1]})")
    return F.multinomial(input, num_samples=int(num_samples), replacement=bool(replacement))


def random_categorical(logits, num_sample, seed=0, dtype=int64):
    """``ops.random_categorical(logits, num_sample, seed=0, dtype=mindspore.int64)``:
    ``num_sample`` category indices per row of the 2-D ``logits``, drawn from their softmax."""
    if logits.ndim != 2:
        raise ValueError(f"ops.random_categorical: logits must be 2-D, got {list(logits.shape)}")
    return F.random_categorical(logits, num_sample=int(num_sample), dtype=to_dtype(dtype))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """``ops.uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
    seed=0, remove_accidental_hits=False)``: ``(sampled_candidates, true_expected_count,
    sampled_expected_count)``."""
    return F.uniform_candidate_sampler(
        true_classes, num_true=int(num_true), num_sampled=int(num_sampled), unique=bool(unique),
        range_max=int(range_max), seed=int(seed),
        remove_accidental_hits=bool(remove_accidental_hits))


# --- Primitive classes -------------------------------------------------------------------------

def _seeded(draw, name: str):
    def call(shape, seed=0, seed2=0):
        return draw(shape=_shape(name, shape))
    call.__name__ = name
    return call


StandardNormal = primitive("StandardNormal", _seeded(F.standard_normal, "StandardNormal"),
                           init=("seed", "seed2"),
                           doc="MindSpore's ``StandardNormal(seed=0, seed2=0)(shape)``.")
UniformReal = primitive("UniformReal", _seeded(F.uniform_real, "UniformReal"),
                        init=("seed", "seed2"),
                        doc="MindSpore's ``UniformReal(seed=0, seed2=0)(shape)``: U[0, 1).")
StandardLaplace = primitive("StandardLaplace", _seeded(F.standard_laplace, "StandardLaplace"),
                            init=("seed", "seed2"),
                            doc="MindSpore's ``StandardLaplace(seed=0, seed2=0)(shape)``.")


def _uniform_int_prim(shape, minval, maxval, seed=0, seed2=0):
    for what, t in (("minval", minval), ("maxval", maxval)):
        if not isinstance(t, Tensor) or t.dtype != int32:
            raise TypeError(f"UniformInt: {what} must be an Int32 Tensor, got "
                            f"{getattr(t, 'dtype', type(t).__name__)}")
    return F.uniform_int(minval, maxval, shape=_shape("UniformInt", shape))


UniformInt = primitive("UniformInt", _uniform_int_prim, init=("seed", "seed2"),
                       doc="MindSpore's ``UniformInt(seed=0, seed2=0)(shape, minval, maxval)``: "
                           "Int32 in [minval, maxval).")


def _choice_prim(input_x, count=256, seed=0, seed2=0):
    return F.random_choice_with_mask(input_x, count=int(count))


RandomChoiceWithMask = primitive("RandomChoiceWithMask", _choice_prim,
                                 init=("count", "seed", "seed2"),
                                 doc="MindSpore's ``RandomChoiceWithMask(count=256, seed=0, "
                                     "seed2=0)(input_x)``: (index, mask).")


def _categorical_prim(logits, num_sample, seed, dtype=int64):
    return F.random_categorical(logits, num_sample=int(num_sample), dtype=to_dtype(dtype))


RandomCategorical = primitive("RandomCategorical", _categorical_prim, init=("dtype",),
                              doc="MindSpore's ``RandomCategorical(dtype=mindspore.int64)(logits,"
                                  " num_sample, seed)`` (the seed is required, as in MindSpore).")


def _multinomial_prim(x, num_samples, seed=0, seed2=0, dtype=int32):
    return F.multinomial(x, num_samples=int(num_samples), dtype=to_dtype(dtype))


Multinomial = primitive("Multinomial", _multinomial_prim, init=("seed", "seed2", "dtype"),
                        doc="MindSpore's ``Multinomial(seed=0, seed2=0, dtype=mindspore.int32)(x, "
                            "num_samples)``.")


def _randperm_prim(n, max_length=1, pad=-1, dtype=int32):
    return F.randperm(n, max_length=int(max_length), pad=int(pad), dtype=to_dtype(dtype))


Randperm = primitive("Randperm", _randperm_prim, init=("max_length", "pad", "dtype"),
                     doc="MindSpore's ``Randperm(max_length=1, pad=-1, dtype=mindspore.int32)(n)``"
                         ": a permutation of 0..n-1 padded to max_length. MindSpore 2.10's CPU "
                         "build has no kernel for it; graphcell provides it.")


def _sampler_prim(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                  remove_accidental_hits=False):
    return uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                     seed, remove_accidental_hits)


UniformCandidateSampler = primitive(
    "UniformCandidateSampler", _sampler_prim,
    init=("num_true", "num_sampled", "unique", "range_max", "seed", "remove_accidental_hits"),
    doc="MindSpore's ``UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed=0, "
        "remove_accidental_hits=False)(true_classes)``.")


def _gamma_prim(shape, alpha, beta, seed=0, seed2=0):
    return gamma(shape, alpha, beta)


Gamma = primitive("Gamma", _gamma_prim, init=("seed", "seed2"),
                  doc="MindSpore's ``Gamma(seed=0, seed2=0)(shape, alpha, beta)``.")


def _random_gamma_prim(shape, alpha, seed=0, seed2=0):
    return random_gamma(shape, alpha)


RandomGamma = primitive("RandomGamma", _random_gamma_prim, init=("seed", "seed2"),
                        doc="MindSpore's ``RandomGamma(seed=0, seed2=0)(shape, alpha)``.")


def _random_poisson_prim(shape, rate, seed=0, seed2=0, dtype=int64):
    return random_poisson(shape, rate, dtype=dtype)


RandomPoisson = primitive("RandomPoisson", _random_poisson_prim, init=("seed", "seed2", "dtype"),
                          doc="MindSpore's ``RandomPoisson(seed=0, seed2=0, dtype=mindspore.int64)"
                              "(shape, rate)``.")


# --- Tensor methods ------------------------------------------------------------------------------

def _stream(name: str, x, generator):
    """Where ``name``'s draws come from: ``generator`` (a ``ms.Generator``) in PyNative; graph
    mode draws from the default generator, so another one is refused there."""
    from graphcell.common.generator import default_generator, drawing_from
    from graphcell.graph.traced import GraphTensor
    if isinstance(x, GraphTensor) and generator is not None and generator is not default_generator:
        raise TypeError(f"{name}: in graph mode random ops draw from the default generator "
                        "(ms.manual_seed seeds it); a Generator of its own is honoured in "
                        "PyNative mode")
    return drawing_from(generator)


def _uniform_method(self, from_=0.0, to=1.0, generator=None):
    """``Tensor.uniform(from_=0., to=1., generator=None)``: a new tensor of self's shape and
    dtype drawn from U[from_, to)."""
    if from_ > to:
        raise TypeError(f"Tensor.uniform: from_ ({from_}) must not exceed to ({to})")
    dtype = self.dtype if self.dtype in _FLOATS else float32
    with _stream("Tensor.uniform", self, generator):
        u = F.uniform_real(shape=tuple(self.shape), dtype=dtype)
    return F.cast(F.add(F.mul(u, float(to) - float(from_)), float(from_)), dtype=self.dtype)


def _bernoulli_method(self, *, generator=None):
    """``Tensor.bernoulli(*, generator=None)``: ones with probability ``self`` (elementwise),
    else zeros, in self's dtype."""
    if self.dtype not in _FLOATS:
        raise TypeError(f"Tensor.bernoulli: self must be a float tensor, got {self.dtype}")
    with _stream("Tensor.bernoulli", self, generator):
        u = F.uniform_real(shape=tuple(self.shape), dtype=self.dtype)
    return F.cast(F.less(u, self), dtype=self.dtype)


def _cauchy_method(self, median=0.0, sigma=1.0):
    """``Tensor.cauchy(median=0., sigma=1.)``: samples of Cauchy(median, sigma) of self's shape
    (Float32)."""
    u = F.uniform_real(shape=tuple(self.shape))
    angle = F.mul(F.sub(u, 0.5), math.pi)
    return F.add(F.mul(F.div(F.sin(angle), F.cos(angle)), float(sigma)), float(median))


def _multinomial_method(self, num_samples, replacement=True, seed=None):
    return multinomial(self, num_samples, replacement, seed)


def _random_categorical_method(self, num_sample, seed=0, dtype=int64):
    return random_categorical(self, num_sample, seed, dtype)


def _normal_inplace(self, mean=0, std=1, *, generator=None):
    """``Tensor.normal_(mean=0, std=1, *, generator=None)``: fills self with N(mean, std^2)."""
    with _stream("Tensor.normal_", self, generator):
        z = F.standard_normal(shape=tuple(self.shape), dtype=self.dtype if self.dtype in _FLOATS
                              else float32)
    return F.assign(self, F.cast(F.add(F.mul(z, std), mean), dtype=self.dtype))


def _uniform_inplace(self, from_=0, to=1, *, generator=None):
    """``Tensor.uniform_(from_=0, to=1, *, generator=None)``: fills self with U[from_, to)."""
    return F.assign(self, _uniform_method(self, from_, to, generator))


def _random_inplace(self, from_=0, to=None, *, generator=None):
    """``Tensor.random_(from_=0, to=None, *, generator=None)``: fills self with integers drawn
    uniformly from [from_, to - 1] (``to`` defaults to the largest value of self's dtype)."""
    if to is None:  # every integer the dtype holds exactly (as PyTorch), within int32's bounds
        largest = 2 ** (np.finfo(self.dtype.np_dtype).nmant + 1) if self.dtype in _FLOATS \
            else int(np.iinfo(self.dtype.np_dtype).max)
        to = min(largest + 1, 2 ** 31 - 1)
    with _stream("Tensor.random_", self, generator):
        ints = F.uniform_int(_one_value(int(from_)), _one_value(int(to)),
                             shape=tuple(self.shape), dtype=int64)
    return F.assign(self, F.cast(ints, dtype=self.dtype))


TENSOR_METHODS = {
    "uniform": _uniform_method, "bernoulli": _bernoulli_method, "cauchy": _cauchy_method,
    "multinomial": _multinomial_method, "random_categorical": _random_categorical_method,
    "normal_": _normal_inplace, "uniform_": _uniform_inplace, "random_": _random_inplace,
}


# --- tier-2 samplers ---------------------------------------------------------------------------

def _truncated_normal_prim(shape, dtype=float32, seed=0, seed2=0):
    return F.truncated_normal(shape=_shape("TruncatedNormal", shape),
                              dtype=_float_dtype("TruncatedNormal", dtype))


TruncatedNormal = primitive("TruncatedNormal", _truncated_normal_prim,
                            init=("dtype", "seed", "seed2"),
                            doc="MindSpore's ``TruncatedNormal(dtype=mindspore.float32, seed=0, "
                                "seed2=0)(shape)``: N(0, 1) truncated to [-2, 2].")


def _cauchy_prim(size, median=0.0, sigma=1.0):
    shape = _shape("Cauchy", size)
    u = F.uniform_real(shape=shape)
    angle = F.mul(F.sub(u, 0.5), math.pi)
    return F.add(F.mul(F.div(F.sin(angle), F.cos(angle)), float(sigma)), float(median))


Cauchy = primitive("Cauchy", lambda size, median=0.0, sigma=1.0: _cauchy_prim(size, median, sigma),
                   init=("size", "median", "sigma"),
                   doc="MindSpore's ``Cauchy(size, median=0.0, sigma=1.0)()``: Float32 samples of "
                       "Cauchy(median, sigma).")


def _log_normal_reverse(input, mean=1.0, std=2.0):  # noqa: A002
    if input.dtype not in _FLOATS:
        raise TypeError(f"LogNormalReverse: input must be a float tensor, got {input.dtype}")
    z = F.standard_normal(shape=tuple(input.shape), dtype=input.dtype)
    return F.exp(F.add(F.mul(z, float(std)), float(mean)))


LogNormalReverse = primitive("LogNormalReverse", _log_normal_reverse, init=("mean", "std"),
                             doc="MindSpore's ``LogNormalReverse(mean=1.0, std=2.0)(input)``: "
                                 "exp(N(mean, std^2)) samples of input's shape and dtype.")

Bernoulli = primitive("Bernoulli", lambda x, p, seed=-1, offset=0: bernoulli(x, p),
                      init=("seed", "offset"),
                      doc="MindSpore's ``Bernoulli(seed=-1, offset=0)(x, p)``: ``ops.bernoulli``.")


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """``ops.multinomial_with_replacement(x, seed, offset, numsamples, replacement=False)``:
    ``numsamples`` category indices (Int64) per row of the weights ``x``."""
    name = "ops.multinomial_with_replacement"
    if not replacement and numsamples > x.shape[-1]:
        raise ValueError(f"{name}: without replacement numsamples ({numsamples}) cannot exceed "
                         f"the number of categories ({x.shape[-1]})")
    return F.multinomial(x, num_samples=int(numsamples), replacement=bool(replacement),
                         dtype=int64)


MultinomialWithReplacement = primitive(
    "MultinomialWithReplacement", lambda x, seed, offset, numsamples, replacement=False:
    multinomial_with_replacement(x, seed, offset, numsamples, replacement),
    init=("numsamples", "replacement"),
    doc="MindSpore's ``MultinomialWithReplacement(numsamples, replacement=False)(x, seed, "
        "offset)``.")


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True,
                                  range_max=5, seed=0):
    """``ops.log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True,
    range_max=5, seed=0)``: ``(sampled_candidates, true_expected_count,
    sampled_expected_count)`` of the log-uniform (Zipfian) sampler."""
    return F.log_uniform_candidate_sampler(
        true_classes, num_true=int(num_true), num_sampled=int(num_sampled), unique=bool(unique),
        range_max=int(range_max), seed=int(seed))


LogUniformCandidateSampler = primitive(
    "LogUniformCandidateSampler", log_uniform_candidate_sampler,
    init=("num_true", "num_sampled", "unique", "range_max", "seed"),
    doc="MindSpore's ``LogUniformCandidateSampler(num_true=1, num_sampled=5, unique=True, "
        "range_max=5, seed=0)(true_classes)``.")

__all__ += ["TruncatedNormal", "Cauchy", "LogNormalReverse", "Bernoulli",
            "multinomial_with_replacement", "MultinomialWithReplacement",
            "log_uniform_candidate_sampler", "LogUniformCandidateSampler"]

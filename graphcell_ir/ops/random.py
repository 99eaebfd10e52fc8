"""The one random source of random ops, how to seed it, and the random primitives.

Reference implementations of ops with ``Trait.RANDOM`` (``dropout``, ``dropout2d``, and the
samplers declared below: ``standard_normal``, ``uniform_real``, ``uniform_int``,
``standard_laplace``, ``truncated_normal``, ``random_gamma``, ``random_poisson``,
``multinomial``, ``random_categorical``, ``randperm``, ``random_choice_with_mask``, the
candidate samplers) draw from :func:`generator`; nothing
else in ``graphcell_ir`` keeps random state. ``graphcell.set_seed(n)`` calls :func:`seed` so a
seeded script draws the same masks on every run, in PyNative and (through the same references)
in the reference interpreter. Without a seed the generator starts from fresh OS entropy, as
MindSpore's unseeded random ops do.

Example::

    >>> from graphcell_ir.ops import random
    >>> random.seed(7); a = random.generator().random(3)
    >>> random.seed(7); b = random.generator().random(3)
    >>> bool((a == b).all())
    True
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import TensorType, bool_, float16, float32, float64, int32, int64
from graphcell_ir.ops.registry import NONDIFF, AttrKind, Kind, Trait, attr, defop
from graphcell_ir.ops.shape_rules import broadcast_shapes, require_tensor


class _Holder:
    """Holds the current generator; :func:`seed` replaces it (a plain attribute, no registry)."""

    gen: np.random.Generator = np.random.default_rng()


def seed(n: int) -> None:
    """Restart the random ops' generator from seed ``n`` (called by ``graphcell.set_seed``)."""
    _Holder.gen = np.random.default_rng(n)


def generator() -> np.random.Generator:
    """The generator every random op's reference implementation draws from."""
    return _Holder.gen


def set_generator(gen: np.random.Generator) -> None:
    """Make ``gen`` the generator random ops draw from (``ms.set_rng_state`` restores one)."""
    _Holder.gen = gen


@contextmanager
def drawing_from(gen: np.random.Generator):
    """Random ops run inside draw from ``gen`` (a user's ``ms.Generator``), then the generator
    before is back."""
    saved = _Holder.gen
    _Holder.gen = gen
    try:
        yield gen
    finally:
        _Holder.gen = saved


# --- random ops ----------------------------------------------------------------------------------
# Every op below has Trait.RANDOM (never folded, merged or reordered) and no gradient: what they
# draw does not depend differentiably on their operands, except through the composites of
# graphcell.ops.function.random_func (normal's mean and stddev, uniform's bounds), which put the
# operands outside the draw. ``seed``/``seed2`` attributes are MindSpore's; graphcell keeps them
# but every op draws from the one generator above, so ``set_seed`` alone makes runs repeatable.

_RANDOM = {Trait.RANDOM}
_FLOATS = (float16, float32, float64)
_SEEDS = (attr("seed", AttrKind.INT, 0), attr("seed2", AttrKind.INT, 0))


def _check_shape(shape) -> tuple[int, ...]:
    if any(s < 0 for s in shape):
        raise ShapeError(f"shape must have non-negative sizes, got {list(shape)}")
    return tuple(shape)


def _float_dtype(dtype):
    if dtype not in _FLOATS:
        raise OpTypeError(f"dtype must be a float dtype, got {dtype}")
    return dtype


def _draw_infer(*, shape, dtype=float32, seed=0, seed2=0):
    return TensorType(_float_dtype(dtype), _check_shape(shape))


def _draw(method: str):
    def ref(*, shape, dtype=float32, seed=0, seed2=0):
        return np.asarray(getattr(generator(), method)(size=tuple(shape)), dtype=dtype.np_dtype)
    ref.__name__ = method
    return ref


_SHAPE_DTYPE = (attr("shape", AttrKind.INTS), attr("dtype", AttrKind.DTYPE, float32))

standard_normal = defop(
    "standard_normal", (), kind=Kind.OPAQUE, traits=_RANDOM, ms_name="StandardNormal",
    attrs=_SHAPE_DTYPE + _SEEDS, infer=_draw_infer, ref=_draw("standard_normal"), bprop=NONDIFF,
    doc="Samples of N(0, 1) of the given shape and float dtype.")

uniform_real = defop(
    "uniform_real", (), kind=Kind.OPAQUE, traits=_RANDOM, ms_name="UniformReal",
    attrs=_SHAPE_DTYPE + _SEEDS, infer=_draw_infer, ref=_draw("random"), bprop=NONDIFF,
    doc="Samples of the uniform distribution on [0, 1) of the given shape and float dtype.")

standard_laplace = defop(
    "standard_laplace", (), kind=Kind.OPAQUE, traits=_RANDOM, ms_name="StandardLaplace",
    attrs=_SHAPE_DTYPE + _SEEDS, infer=_draw_infer, ref=_draw("laplace"), bprop=NONDIFF,
    doc="Samples of the Laplace distribution with location 0 and scale 1.")


def _int_bounds(minval, maxval):
    for name, t in (("minval", minval), ("maxval", maxval)):
        t = require_tensor(t, name)
        if not t.dtype.is_int:
            raise OpTypeError(f"{name} must be an integer tensor, got {t}")
        if t.shape not in ((), (1,)):
            raise ShapeError(f"{name} must hold one value, got {t}")


def _uniform_int_infer(minval, maxval, *, shape, dtype=int32, seed=0, seed2=0):
    _int_bounds(minval, maxval)
    if not dtype.is_int:
        raise OpTypeError(f"dtype must be an integer dtype, got {dtype}")
    return TensorType(dtype, _check_shape(shape))


def _uniform_int_ref(minval, maxval, *, shape, dtype=int32, seed=0, seed2=0):
    lo, hi = int(np.asarray(minval).reshape(-1)[0]), int(np.asarray(maxval).reshape(-1)[0])
    if lo >= hi:
        raise ValueError(f"minval ({lo}) must be less than maxval ({hi})")
    return generator().integers(lo, hi, size=tuple(shape)).astype(dtype.np_dtype)


uniform_int = defop(
    "uniform_int", ("minval", "maxval"), kind=Kind.OPAQUE, traits=_RANDOM, ms_name="UniformInt",
    attrs=(attr("shape", AttrKind.INTS), attr("dtype", AttrKind.DTYPE, int32)) + _SEEDS,
    infer=_uniform_int_infer, ref=_uniform_int_ref, bprop=NONDIFF,
    doc="Integers drawn uniformly from [minval, maxval) (one-element integer tensors, read when "
        "the op runs).")


def _gamma_infer(alpha, beta, *, shape, seed=0, seed2=0):
    alpha, beta = require_tensor(alpha, "alpha"), require_tensor(beta, "beta")
    if alpha.dtype not in _FLOATS or beta.dtype is not alpha.dtype:
        raise OpTypeError(f"alpha and beta must be float tensors of one dtype, got {alpha} and "
                          f"{beta}")
    out = broadcast_shapes(_check_shape(shape), alpha.shape, beta.shape)
    return TensorType(alpha.dtype, out)


def _gamma_ref(alpha, beta, *, shape, seed=0, seed2=0):
    out = broadcast_shapes(tuple(shape), alpha.shape, beta.shape)
    a = np.broadcast_to(alpha, out)
    scale = 1.0 / np.broadcast_to(beta, out).astype(np.float64)
    return np.asarray(generator().gamma(a, scale), dtype=alpha.dtype)


random_gamma = defop(
    "random_gamma", ("alpha", "beta"), kind=Kind.OPAQUE, traits=_RANDOM, ms_name="Gamma",
    attrs=(attr("shape", AttrKind.INTS),) + _SEEDS, infer=_gamma_infer, ref=_gamma_ref,
    bprop=NONDIFF,
    doc="Samples of Gamma(alpha, rate beta); the result's shape is shape, alpha's and beta's "
        "broadcast together.")


def _poisson_infer(rate, *, shape, dtype=float32, seed=0, seed2=0):
    rate = require_tensor(rate, "rate")
    if rate.dtype not in _FLOATS and not rate.dtype.is_int:
        raise OpTypeError(f"rate must be a numeric tensor, got {rate}")
    if not (dtype.is_int or dtype.is_float):
        raise OpTypeError(f"dtype must be numeric, got {dtype}")
    return TensorType(dtype, _check_shape(shape) + rate.shape)


def _poisson_ref(rate, *, shape, dtype=float32, seed=0, seed2=0):
    lam = np.broadcast_to(np.asarray(rate, np.float64), tuple(shape) + rate.shape)
    if np.any(lam < 0):
        raise ValueError("rate must be non-negative")
    return np.asarray(generator().poisson(lam), dtype=dtype.np_dtype)


random_poisson = defop(
    "random_poisson", ("rate",), kind=Kind.OPAQUE, traits=_RANDOM, ms_name="RandomPoisson",
    attrs=(attr("shape", AttrKind.INTS), attr("dtype", AttrKind.DTYPE, float32)) + _SEEDS,
    infer=_poisson_infer, ref=_poisson_ref, bprop=NONDIFF,
    doc="Poisson counts of mean rate, of shape shape + rate.shape, in dtype.")


def _probabilities(x, what: str) -> TensorType:
    x = require_tensor(x, what)
    if x.dtype not in _FLOATS:
        raise OpTypeError(f"{what} must be a float tensor, got {x}")
    if x.ndim not in (1, 2):
        raise ShapeError(f"{what} must be 1-D or 2-D, got {x}")
    return x


def _multinomial_infer(probs, *, num_samples, replacement=True, dtype=int32, seed=0, seed2=0):
    probs = _probabilities(probs, "probs")
    if num_samples < 0:
        raise ShapeError(f"num_samples must be non-negative, got {num_samples}")
    if not replacement and num_samples > probs.shape[-1]:
        raise ShapeError(f"without replacement num_samples ({num_samples}) cannot exceed the "
                         f"number of categories ({probs.shape[-1]})")
    if not dtype.is_int:
        raise OpTypeError(f"dtype must be an integer dtype, got {dtype}")
    return TensorType(dtype, probs.shape[:-1] + (num_samples,))


def _multinomial_ref(probs, *, num_samples, replacement=True, dtype=int32, seed=0, seed2=0):
    rows = np.asarray(probs, np.float64).reshape(-1, probs.shape[-1])
    if np.any(rows < 0) or np.any(~np.isfinite(rows)):
        raise ValueError("probabilities must be finite and non-negative")
    out = np.empty((rows.shape[0], num_samples), np.int64)
    g = generator()
    for i, row in enumerate(rows):
        total = row.sum()
        if total <= 0:
            raise ValueError("each row of probabilities must have a positive sum")
        out[i] = g.choice(row.size, size=num_samples, replace=replacement, p=row / total)
    return out.reshape(probs.shape[:-1] + (num_samples,)).astype(dtype.np_dtype)


multinomial = defop(
    "multinomial", ("probs",), kind=Kind.OPAQUE, traits=_RANDOM, ms_name="Multinomial",
    attrs=(attr("num_samples", AttrKind.INT), attr("replacement", AttrKind.BOOL, True),
           attr("dtype", AttrKind.DTYPE, int32)) + _SEEDS,
    infer=_multinomial_infer, ref=_multinomial_ref, bprop=NONDIFF,
    doc="num_samples category indices per row of probs (unnormalised weights).")


def _categorical_infer(logits, *, num_sample, dtype=int64, seed=0):
    logits = require_tensor(logits, "logits")
    if logits.dtype not in _FLOATS or logits.ndim != 2:
        raise OpTypeError(f"logits must be a 2-D float tensor, got {logits}")
    if num_sample < 0:
        raise ShapeError(f"num_sample must be non-negative, got {num_sample}")
    if dtype not in (int32, int64):
        raise OpTypeError(f"dtype must be Int32 or Int64, got {dtype}")
    return TensorType(dtype, (logits.shape[0], num_sample))


def _categorical_ref(logits, *, num_sample, dtype=int64, seed=0):
    z = np.asarray(logits, np.float64)
    p = np.exp(z - z.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    g = generator()
    out = [g.choice(row.size, size=num_sample, p=row) for row in p]
    return np.asarray(out, dtype=dtype.np_dtype).reshape(z.shape[0], num_sample)


random_categorical = defop(
    "random_categorical", ("logits",), kind=Kind.OPAQUE, traits=_RANDOM,
    ms_name="RandomCategorical",
    attrs=(attr("num_sample", AttrKind.INT), attr("dtype", AttrKind.DTYPE, int64),
           attr("seed", AttrKind.INT, 0)),
    infer=_categorical_infer, ref=_categorical_ref, bprop=NONDIFF,
    doc="num_sample category indices per row, drawn from softmax(logits).")


def _randperm_infer(n, *, max_length, pad=-1, dtype=int32):
    n = require_tensor(n, "n")
    if not n.dtype.is_int or n.shape not in ((), (1,)):
        raise OpTypeError(f"n must be a one-element integer tensor, got {n}")
    if max_length < 1:
        raise ShapeError(f"max_length must be positive, got {max_length}")
    if not (dtype.is_int or dtype.is_float):
        raise OpTypeError(f"dtype must be numeric, got {dtype}")
    return TensorType(dtype, (max_length,))


def _randperm_ref(n, *, max_length, pad=-1, dtype=int32):
    count = int(np.asarray(n).reshape(-1)[0])
    if not 0 <= count <= max_length:
        raise ValueError(f"n ({count}) must be in [0, max_length = {max_length}]")
    out = np.full(max_length, pad, dtype=dtype.np_dtype)
    out[:count] = generator().permutation(count)
    return out


randperm = defop(
    "randperm", ("n",), kind=Kind.OPAQUE, traits=_RANDOM, ms_name="Randperm",
    attrs=(attr("max_length", AttrKind.INT, 1), attr("pad", AttrKind.INT, -1),
           attr("dtype", AttrKind.DTYPE, int32)), prim_init=("max_length", "pad", "dtype"),
    infer=_randperm_infer, ref=_randperm_ref, bprop=NONDIFF,
    doc="A random permutation of 0..n-1 (n read when the op runs) padded with pad to "
        "max_length.")


def _choice_infer(input_x, *, count=256, seed=0, seed2=0):
    x = require_tensor(input_x, "input_x")
    if x.dtype is not bool_ or not 1 <= x.ndim <= 5:
        raise OpTypeError(f"input_x must be a Bool tensor of rank 1 to 5, got {x}")
    if count < 1:
        raise ShapeError(f"count must be positive, got {count}")
    return TensorType(int32, (count, x.ndim)), TensorType(bool_, (count,))


def _choice_ref(input_x, *, count=256, seed=0, seed2=0):
    where = np.argwhere(input_x)
    picked = generator().permutation(len(where))[:count]
    index = np.zeros((count, input_x.ndim), np.int32)
    mask = np.zeros(count, np.bool_)
    index[:len(picked)] = where[picked]
    mask[:len(picked)] = True
    return index, mask


random_choice_with_mask = defop(
    "random_choice_with_mask", ("input_x",), kind=Kind.OPAQUE, traits=_RANDOM,
    ms_name="RandomChoiceWithMask",
    attrs=(attr("count", AttrKind.INT, 256),) + _SEEDS, prim_init=("count", "seed", "seed2"),
    infer=_choice_infer, ref=_choice_ref, bprop=NONDIFF,
    doc="The indices of up to count True elements of input_x in random order (zeros after "
        "them) and a mask of the rows that are real.")


def _sampler_infer(true_classes, *, num_true, num_sampled, unique, range_max, seed=0,
                   remove_accidental_hits=False):
    t = require_tensor(true_classes, "true_classes")
    if not t.dtype.is_int or t.ndim != 2 or t.shape[1] != num_true:
        raise OpTypeError(f"true_classes must be an integer tensor of shape [batch, num_true = "
                          f"{num_true}], got {t}")
    if num_sampled < 1 or range_max < 1 or (unique and num_sampled > range_max):
        raise ShapeError(f"num_sampled ({num_sampled}) must be positive and, when unique, at "
                         f"most range_max ({range_max})")
    return (TensorType(t.dtype, (num_sampled,)), TensorType(float32, t.shape),
            TensorType(float32, (num_sampled,)))


def _sampler_ref(true_classes, *, num_true, num_sampled, unique, range_max, seed=0,
                 remove_accidental_hits=False):
    g = generator()
    sampled = g.choice(range_max, size=num_sampled, replace=not unique)
    p = 1.0 / range_max
    expected = num_sampled * p  # every class is equally likely (MindSpore's value, unique or not)
    return (sampled.astype(true_classes.dtype), np.full(true_classes.shape, expected, np.float32),
            np.full(num_sampled, expected, np.float32))


uniform_candidate_sampler = defop(
    "uniform_candidate_sampler", ("true_classes",), kind=Kind.OPAQUE, traits=_RANDOM,
    ms_name="UniformCandidateSampler",
    attrs=(attr("num_true", AttrKind.INT), attr("num_sampled", AttrKind.INT),
           attr("unique", AttrKind.BOOL), attr("range_max", AttrKind.INT),
           attr("seed", AttrKind.INT, 0), attr("remove_accidental_hits", AttrKind.BOOL, False)),
    prim_init=("num_true", "num_sampled", "unique", "range_max", "seed",
               "remove_accidental_hits"),
    infer=_sampler_infer, ref=_sampler_ref, bprop=NONDIFF,
    doc="num_sampled classes drawn uniformly from [0, range_max) (without repeats when unique), "
        "with the expected counts of the true and the sampled classes.")


def _truncated_infer(*, shape, dtype=float32, seed=0, seed2=0):
    return TensorType(_float_dtype(dtype), _check_shape(shape))


def _truncated_ref(*, shape, dtype=float32, seed=0, seed2=0):
    """N(0, 1) conditioned on [-2, 2]: redraw what falls outside (4.6 % of the draws)."""
    g = generator()
    out = g.standard_normal(size=tuple(shape))
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = g.standard_normal(size=int(bad.sum()))
        bad = np.abs(out) > 2
    return np.asarray(out, dtype=dtype.np_dtype)


truncated_normal = defop(
    "truncated_normal", (), kind=Kind.OPAQUE, traits=_RANDOM, ms_name="TruncatedNormal",
    attrs=_SHAPE_DTYPE + _SEEDS, infer=_truncated_infer, ref=_truncated_ref, bprop=NONDIFF,
    doc="Samples of N(0, 1) truncated to [-2, 2].")


def _log_uniform_probs(classes, range_max: int):
    """P(k) = log((k + 2) / (k + 1)) / log(range_max + 1): the log-uniform (Zipfian) sampler's."""
    k = np.asarray(classes, np.float64)
    return np.log((k + 2) / (k + 1)) / np.log(range_max + 1)


def _log_uniform_ref(true_classes, *, num_true, num_sampled, unique, range_max, seed=0):
    g = generator()

    def draw(n):
        return (np.exp(g.random(n) * np.log(range_max + 1)) - 1).astype(np.int64) % range_max
    tries = num_sampled
    if unique:
        picked: list[int] = []
        tries = 0
        while len(picked) < num_sampled:
            tries += 1
            c = int(draw(1)[0])
            if c not in picked:
                picked.append(c)
        sampled = np.asarray(picked, np.int64)
    else:
        sampled = draw(num_sampled)

    def expected(classes):
        p = _log_uniform_probs(classes, range_max)
        return -np.expm1(tries * np.log1p(-p)) if unique else num_sampled * p
    return (sampled.astype(true_classes.dtype), expected(true_classes).astype(np.float32),
            expected(sampled).astype(np.float32))


log_uniform_candidate_sampler = defop(
    "log_uniform_candidate_sampler", ("true_classes",), kind=Kind.OPAQUE, traits=_RANDOM,
    ms_name="LogUniformCandidateSampler",
    attrs=(attr("num_true", AttrKind.INT, 1), attr("num_sampled", AttrKind.INT, 5),
           attr("unique", AttrKind.BOOL, True), attr("range_max", AttrKind.INT, 5),
           attr("seed", AttrKind.INT, 0)),
    prim_init=("num_true", "num_sampled", "unique", "range_max", "seed"),
    infer=lambda true_classes, **a: _sampler_infer(true_classes, **a),
    ref=_log_uniform_ref, bprop=NONDIFF,
    doc="num_sampled classes drawn with P(k) proportional to log((k + 2) / (k + 1)) (without "
        "repeats when unique), with the expected counts of the true and the sampled classes.")

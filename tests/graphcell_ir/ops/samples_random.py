"""Sample rows of the random primitives (``graphcell_ir/ops/random.py``): shapes and dtypes
(the meta-tests reseed the generator, so ``infer`` is checked against what ``ref`` draws).
None has a gradient; their distributions are tested in ``tests/graphcell/test_ops_random.py``."""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OpTypeError, ShapeError
from graphcell_ir.ir.types import to_dtype
from samples import FLOATS, Bad, Sample, T

ALL_FLOATS = ("float16",) + FLOATS


def _draw(g, dt):
    return (), {"shape": g.shape(0, 3), "dtype": to_dtype(dt), "seed": g.int(0, 3)}


def _uniform_int(g, dt):
    lo = g.int(-5, 5)
    bounds = (np.asarray(lo, np.int32), np.asarray([lo + g.int(1, 5)], np.int32))
    return bounds, {"shape": g.shape(0, 3), "dtype": to_dtype(dt)}


def _gamma(g, dt):
    shape = g.shape(0, 2, max_side=3)
    alpha = g.array(g.pick([(), shape[-1:]]), dt, 0.5, 3.0)
    beta = g.array(g.pick([(), shape[-1:]]), dt, 0.5, 2.0)
    return (alpha, beta), {"shape": shape}


def _poisson(g, dt):
    rate = g.array(g.shape(0, 2), dt, 0.0, 6.0)
    return (rate,), {"shape": g.shape(0, 2), "dtype": to_dtype(g.pick(["float32", "int32"]))}


def _multinomial(g, dt):
    probs = g.array(g.shape(1, 2), dt, 0.1, 1.0)
    replacement = g.flag()
    n = g.int(0, probs.shape[-1] if not replacement else 5)
    return (probs,), {"num_samples": n, "replacement": replacement,
                      "dtype": to_dtype(g.pick(["int32", "int64"]))}


def _categorical(g, dt):
    return (g.array((g.int(1, 3), g.int(1, 4)), dt),), {
        "num_sample": g.int(0, 4), "dtype": to_dtype(g.pick(["int32", "int64"]))}


def _randperm(g, dt):
    max_length = g.int(1, 6)
    out_dtype = to_dtype(g.pick(["int32", "int64"]))
    return (np.asarray([g.int(0, max_length)], dt),), {
        "max_length": max_length, "pad": g.int(-2, 0), "dtype": out_dtype}


def _choice(g, dt):
    return (g.array(g.shape(1, 3), "bool"),), {"count": g.int(1, 5)}


def _sampler(g, dt):
    num_true, range_max = g.int(1, 2), g.int(2, 6)
    unique = g.flag()
    classes = g.array((g.int(1, 3), num_true), dt, 0, range_max - 1)
    return (classes,), {"num_true": num_true, "num_sampled": g.int(1, range_max),
                        "unique": unique, "range_max": range_max}


_NEG_SHAPE = Bad((), {"shape": (2, -1)})
_INT_DTYPE = Bad((), {"shape": (2,), "dtype": to_dtype("int32")}, OpTypeError)

ROWS: dict[str, Sample] = {
    "standard_normal": Sample(_draw, ALL_FLOATS, bad=(_NEG_SHAPE, _INT_DTYPE)),
    "uniform_real": Sample(_draw, ALL_FLOATS, bad=(_NEG_SHAPE, _INT_DTYPE)),
    "standard_laplace": Sample(_draw, ALL_FLOATS, bad=(_NEG_SHAPE, _INT_DTYPE)),
    "uniform_int": Sample(_uniform_int, ("int32", "int64"), bad=(
        Bad((T("f32[]"), T("i32[]")), {"shape": (2,)}, OpTypeError),
        Bad((T("i32[2]"), T("i32[]")), {"shape": (2,)}, ShapeError))),
    "random_gamma": Sample(_gamma, FLOATS, bad=(
        Bad((T("f32[3]"), T("f32[2]")), {"shape": (3,)}, ShapeError),
        Bad((T("i32[]"), T("i32[]")), {"shape": (3,)}, OpTypeError))),
    "random_poisson": Sample(_poisson, FLOATS, bad=(
        Bad((T("bool[2]"),), {"shape": (3,)}, OpTypeError),)),
    "multinomial": Sample(_multinomial, FLOATS, bad=(
        Bad((T("f32[2,2,2]"),), {"num_samples": 1}, ShapeError),
        Bad((T("f32[3]"),), {"num_samples": 4, "replacement": False}, ShapeError),
        Bad((T("i32[3]"),), {"num_samples": 1}, OpTypeError))),
    "random_categorical": Sample(_categorical, FLOATS, bad=(
        Bad((T("f32[3]"),), {"num_sample": 1}, OpTypeError),)),
    "randperm": Sample(_randperm, ("int32", "int64"), bad=(
        Bad((T("f32[1]"),), {"max_length": 3}, OpTypeError),
        Bad((T("i32[1]"),), {"max_length": 0}, ShapeError))),
    "random_choice_with_mask": Sample(_choice, ("bool",), bad=(
        Bad((T("f32[3]"),), {}, OpTypeError), Bad((T("bool[3]"),), {"count": 0}, ShapeError))),
    "truncated_normal": Sample(_draw, ALL_FLOATS, bad=(_NEG_SHAPE, _INT_DTYPE)),
    "log_uniform_candidate_sampler": Sample(_sampler, ("int32", "int64"), bad=(
        Bad((T("f32[3,1]"),), {"num_true": 1}, OpTypeError),)),
    "uniform_candidate_sampler": Sample(_sampler, ("int32", "int64"), bad=(
        Bad((T("i64[3,2]"),), {"num_true": 1, "num_sampled": 2, "unique": False,
                               "range_max": 4}, OpTypeError),
        Bad((T("i64[3,1]"),), {"num_true": 1, "num_sampled": 5, "unique": True,
                               "range_max": 4}, ShapeError))),
}

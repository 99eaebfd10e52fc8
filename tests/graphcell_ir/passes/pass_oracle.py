"""The reference interpreter as the oracle for passes: inputs, runs, and exact comparison.

Passes must not change a single bit of a result (every rewrite is exact, folding and fusion run
the same numpy references), so results compare exactly: same dtype and shape, same values, NaN
equal to NaN, and the sign of zero counted (``x + 0 -> x`` would be caught).
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.backend.interp import Interpreter
from graphcell_ir.ir import Function, Module, ScalarType, TensorType
from graphcell_ir.ops import random as op_random

MAX_ITERATIONS = 50
SEED = 1234
SPECIALS = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 1.0])


class Unrunnable(Exception):
    """The program cannot be run on these inputs (it fails before any pass touched it)."""


def inputs_for(fn: Function, rng: np.random.Generator) -> list | None:
    """Random inputs for ``fn``'s arguments, or None when an argument type is not supported."""
    out = []
    for a in fn.args:
        t = a.type
        if isinstance(t, TensorType):
            d = t.dtype
            if d.is_bool:
                x = rng.random(t.shape) < 0.5
            elif d.is_int:
                x = rng.integers(-3, 4, t.shape)
            else:
                x = rng.standard_normal(t.shape)
                mode = rng.integers(3)  # plain; signed zeros; any special value
                if x.size and mode:  # where inexact rewrites show
                    where = rng.random(x.shape) < 0.4
                    pick = SPECIALS[:2] if mode == 1 else SPECIALS
                    x[where] = rng.choice(pick, size=int(where.sum()))
            out.append(np.asarray(x, dtype=d.np_dtype))
        elif isinstance(t, ScalarType):
            d = t.dtype
            x = rng.standard_normal()  # an f32 scalar holds an f32 value, not any double
            out.append(bool(rng.random() < 0.5) if d.is_bool else
                       int(rng.integers(-3, 4)) if d.is_int else float(d.np_dtype.type(x)))
        else:
            return None
    return out


def run(module: Module, fn_name: str, args: list):
    """Run ``@fn_name`` with the random ops' generator seeded the same way every time."""
    op_random.seed(SEED)
    interp = Interpreter(module, max_iterations=MAX_ITERATIONS)
    return interp.run(fn_name, *args)


def run_or_unrunnable(module: Module, fn_name: str, args: list):
    try:
        return run(module, fn_name, args)
    except Exception as e:  # whatever stops the unoptimised program stops the comparison
        raise Unrunnable(f"{type(e).__name__}: {e}") from e


def difference(a, b) -> str | None:
    """None when ``a`` and ``b`` are the same results exactly; else what differs."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
            return f"{type(a).__name__} vs {type(b).__name__}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = difference(x, y)
            if d:
                return f"result {i}: {d}"
        return None
    if a is None or b is None:
        return None if a is b else f"{a!r} vs {b!r}"
    if isinstance(a, (bool, int, float)) != isinstance(b, (bool, int, float)) \
            and np.ndim(a) == 0 == np.ndim(b):
        # a value of scalar type may come out as a 0-d array: some references (cast) return
        # one for a Python scalar operand, so folding or forwarding it changes only the wrapper
        a, b = (np.asarray(a, np.asarray(b).dtype), np.asarray(b)) if isinstance(a, (
            bool, int, float)) else (np.asarray(a), np.asarray(b, np.asarray(a).dtype))
    if type(a) is not type(b) and not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return f"{type(a).__name__} vs {type(b).__name__}"
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype != y.dtype or x.shape != y.shape:
        return f"{x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
    if not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
        return f"values differ:\n{x}\nvs\n{y}"
    if x.dtype.kind == "f":
        real = ~np.isnan(x)
        if not np.array_equal(np.signbit(x[real]), np.signbit(y[real])):
            return f"signs of zeros differ:\n{x}\nvs\n{y}"
    return None

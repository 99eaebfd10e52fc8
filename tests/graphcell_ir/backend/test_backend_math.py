"""The arithmetic-only math templates (tanh, sigmoid) compiled by numba, on dense grids.

The registry's template test evaluates templates as float64 Python at a few points; here the
compiled kernels run in both float dtypes (float32 evaluates the template's literals in float32,
see ``lower._literals_as``) over the whole range, against numpy, in ulps.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from backend_support import one_op_module

from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.ops import REGISTRY

GRID = np.concatenate([np.linspace(-25, 25, 20001), np.geomspace(1e-30, 30, 2001),
                       -np.geomspace(1e-30, 30, 2001), [0.0, -0.0, np.inf, -np.inf, np.nan,
                                                        19.06, 20.0, 1e-300]])


def _kernel(name: str, x: np.ndarray):
    m, args = one_op_module(REGISTRY[name], (x,), {})
    exe = compile_executable(m, "main", jit=True, kernel_min_size=0)
    assert not exe.fallbacks and len(exe.kernels) == 1
    return exe, exe(args)[0]


def _ulps(got: np.ndarray, want: np.ndarray) -> float:
    eps = np.finfo(want.dtype).eps
    ok = np.isfinite(want) & (want != 0)
    return float(np.max(np.abs(got[ok] - want[ok]) / (np.abs(want[ok]) * eps)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tanh_kernel_is_within_a_few_ulps_of_numpy(dtype):
    x = GRID.astype(dtype)
    exe, got = _kernel("tanh", x)
    want = np.tanh(x)
    assert got.dtype == want.dtype
    assert _ulps(got, want) <= 8
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.all(np.abs(got[~np.isnan(got)]) <= 1)
    assert np.array_equal(np.signbit(got), np.signbit(want))  # -0.0 stays -0.0
    assert got[x == np.inf][0] == 1 and got[x == -np.inf][0] == -1
    assert np.array_equal(_kernel("tanh", -x)[1], -got, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_kernel_matches_numpy(dtype):
    x = GRID.astype(dtype)
    _, got = _kernel("sigmoid", x)
    want = REGISTRY["sigmoid"].ref(x)
    tol = 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


def test_float32_kernels_compute_in_float32():
    """A float literal of a float32 template is a float32 constant (no silent float64 widening)."""
    exe, _ = _kernel("tanh", GRID.astype(np.float32)[:64])
    src = exe.kernels[0].ks.source
    assert "float32(9.1)" in src   # float32's own template (kernel_f32), its literals float32
    bare = re.sub(r"float32\([0-9.e+-]+\)", "", src)
    assert not re.search(r"\b[0-9]+\.[0-9]", bare), bare
    exe64, _ = _kernel("tanh", GRID[:64])
    src64 = exe64.kernels[0].ks.source
    assert "float32(" not in src64 and "20.0" in src64


def test_float32_tanh_is_close_to_the_rounded_tanh_and_exactly_one_beyond_its_clamp():
    """float32's shorter approximant: a few ulp at worst, a fraction of one on average, and ±1
    exactly beyond its clamp, 9.1 (float32's tanh rounds to ±1 beyond 9.01)."""
    x = np.concatenate([np.linspace(-12, 12, 200001), np.geomspace(1e-6, 12, 20001)]) \
        .astype(np.float32)
    _, got = _kernel("tanh", x)
    want = np.tanh(x.astype(np.float64)).astype(np.float32)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
    assert ulps.max() <= 6 and ulps.mean() < 0.5
    assert np.all(np.abs(got[np.abs(x) >= 9.1]) == 1)


def test_float32_erf_is_close_to_libms_and_exactly_one_beyond_its_clamp():
    """float32's erf template (x·P(x²)/Q(x²), tools/fit_erf.py): within a few ulp of libm's erf
    rounded to float32, under one on average; ±1 beyond 3.92, NaN, ±0 and ±Inf as libm's.
    float64 keeps libm's erf (the kernel calls it)."""
    x = np.concatenate([np.linspace(-6, 6, 240001), np.geomspace(1e-30, 6, 20001),
                        -np.geomspace(1e-30, 6, 2001)]).astype(np.float32)
    exe, got = _kernel("erf", x)
    want = np.array([math.erf(v) for v in x.astype(np.float64)]).astype(np.float32)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
    assert ulps.max() <= 6 and ulps.mean() < 1
    assert np.all(np.abs(got[np.abs(x) >= 3.92]) == 1)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    _, s = _kernel("erf", specials)
    assert s[0] == 0 and not np.signbit(s[0]) and s[1] == 0 and np.signbit(s[1])
    assert s[2] == 1 and s[3] == -1 and np.isnan(s[4])
    assert "math.erf" not in exe.kernels[0].ks.source
    exe64, got64 = _kernel("erf", x.astype(np.float64)[:1000])
    assert "math.erf" in exe64.kernels[0].ks.source
    np.testing.assert_array_equal(got64, [math.erf(v) for v in x.astype(np.float64)[:1000]])


def test_erf_coefficients_are_what_the_fitting_tool_gives():
    from tools.fit_erf import fit
    from graphcell_ir.ops.elementwise import _ERF_F32
    p, q, err = fit()
    assert err < 6e-8   # below float32's half ulp (relative)
    np.testing.assert_allclose(p, _ERF_F32[0], rtol=1e-6)
    np.testing.assert_allclose(q, _ERF_F32[1], rtol=1e-6)

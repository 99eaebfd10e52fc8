"""Running one program in PyNative mode and in GRAPH_MODE and comparing what it gives.

``same_in_both_modes(fn, *args)`` calls ``fn(*args)`` in each mode (``fn`` is usually a cell or a
``@jit`` function, so GRAPH_MODE compiles it) and checks that the results have the same
structure, Python types, dtypes, shapes and values. Returns the graph-mode result.
"""
from __future__ import annotations

import numpy as np

import graphcell as ms
from graphcell import Tensor


def run_in(mode, fn, *args, **kwargs):
    ms.set_context(mode=mode)
    try:
        return fn(*args, **kwargs)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def assert_same(got, expected, rtol=1e-5, atol=1e-6, where="result"):
    assert type(got) is type(expected), f"{where}: {type(got).__name__} != " \
                                        f"{type(expected).__name__}"
    if isinstance(expected, Tensor):
        a, b = got.asnumpy(), expected.asnumpy()
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{list(a.shape)} " \
                                                          f"!= {b.dtype}{list(b.shape)}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype and got.shape == expected.shape, where
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=where)
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), f"{where}: {len(got)} != {len(expected)} items"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, rtol, atol, f"{where}[{i}]")
    elif isinstance(expected, dict):
        assert list(got) == list(expected), where
        for k in expected:
            assert_same(got[k], expected[k], rtol, atol, f"{where}[{k!r}]")
    elif isinstance(expected, float):
        assert np.isclose(got, expected, rtol=rtol, atol=atol), f"{where}: {got} != {expected}"
    else:
        assert got == expected, f"{where}: {got!r} != {expected!r}"


def same_in_both_modes(fn, *args, rtol=1e-5, atol=1e-6, **kwargs):
    expected = run_in(ms.PYNATIVE_MODE, fn, *args, **kwargs)
    got = run_in(ms.GRAPH_MODE, fn, *args, **kwargs)
    assert_same(got, expected, rtol, atol)
    return got

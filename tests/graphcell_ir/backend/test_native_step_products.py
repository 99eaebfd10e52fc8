"""The native step's products with a row, a column or a contracted dimension of one (a batch-1
network's layers and their gradients) give ``np.matmul``'s bits and the runner's: the step calls
the GEMV, dot or loop numpy's matmul takes for the shape (``step/route.py``), not a GEMM."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.text import parse_module, print_module

pytestmark = pytest.mark.skipif(
    not __import__("graphcell_ir.backend.codegen", fromlist=["available"]).available(),
    reason="this llvmlite cannot run the code generator")


def _type(dtype, shape):
    return f"{'f32' if dtype == np.float32 else 'f64'}[{','.join(map(str, shape))}]"


def _product(batch, m, k, n, ta, tb, dtype, same=False):
    xs, ys = batch + ((k, m) if ta else (m, k)), batch + ((n, k) if tb else (k, n))
    y = "%x" if same else "%y"
    args = f"%x: {_type(dtype, xs)}" + ("" if same else f", %y: {_type(dtype, ys)}")
    r = _type(dtype, batch + (m, n))
    text = f"""
func @f({args}) -> {r} {{
  %r = matmul(%x, {y}) {{transpose_a={str(ta).lower()}, transpose_b={str(tb).lower()}}} : {r}
  return %r
}}
"""
    return text, [xs] if same else [xs, ys]


def _bits(a):
    return np.asarray(a).view(f"u{a.itemsize}")


def _both(monkeypatch, text, inputs):
    """(the step's results, the runner's) of ``text``'s ``f`` on ``inputs``."""
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "1")
    exe = compile_executable(parse_module(text), "f")
    assert exe.step_fallback is None and not exe.run.step.host_ops
    got = exe.run.step(inputs)
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    runner = compile_executable(parse_module(text), "f")(inputs)
    return got, runner


SHAPES = [(1, 64, 10), (1, 784, 64), (10, 64, 1), (1, 7, 1), (64, 1, 784), (1, 1, 9), (9, 1, 1),
          (1, 1, 1), (5, 1, 6), (1, 2, 2), (3, 5, 4)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_a_product_gives_numpys_bits_whatever_its_shape(monkeypatch, m, k, n, ta, tb, dtype):
    text, shapes = _product((), m, k, n, ta, tb, dtype)
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    x, y = (rng.standard_normal(s).astype(dtype) for s in shapes)
    (got,), (runner,) = _both(monkeypatch, text, [x, y])
    expect = np.matmul(x.T if ta else x, y.T if tb else y)
    np.testing.assert_array_equal(_bits(got), _bits(expect))
    np.testing.assert_array_equal(_bits(got), _bits(runner))


def test_a_zero_product_of_one_term_is_positive_as_numpys_loop_makes_it(monkeypatch):
    """numpy's loop starts each sum at +0.0: ``0.0 + (-0.0)`` is ``+0.0``, where a GEMM (or a
    bare product) would store ``-0.0``."""
    text, _ = _product((), 3, 1, 2, False, False, np.float32)
    x, y = np.array([[-0.0], [1.0], [-2.0]], np.float32), np.array([[1.0, 0.0]], np.float32)
    (got,), (runner,) = _both(monkeypatch, text, [x, y])
    np.testing.assert_array_equal(_bits(got), _bits(np.matmul(x, y)))
    assert not np.signbit(got[0, 0]) and not np.signbit(got[2, 1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("m,k,n", [(1, 16, 12), (12, 16, 1), (1, 16, 1), (12, 1, 8), (1, 1, 8)])
def test_stacks_of_such_products_give_numpys_bits(monkeypatch, m, k, n, ta, tb, dtype):
    text, shapes = _product((3, 2), m, k, n, ta, tb, dtype)
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal(s).astype(dtype) for s in shapes)
    (got,), (runner,) = _both(monkeypatch, text, [x, y])
    expect = np.matmul(np.swapaxes(x, -1, -2) if ta else x, np.swapaxes(y, -1, -2) if tb else y)
    np.testing.assert_array_equal(_bits(got), _bits(expect))
    np.testing.assert_array_equal(_bits(got), _bits(runner))


@pytest.mark.parametrize("ta", [False, True])
def test_a_matrix_times_its_own_transpose_gives_numpys_syrk_bits(monkeypatch, ta):
    text, (xs,) = _product((), 24, 40, 24, ta, not ta, np.float32, same=True)
    x = np.random.default_rng(6).standard_normal(xs).astype(np.float32)
    (got,), (runner,) = _both(monkeypatch, text, [x])
    np.testing.assert_array_equal(_bits(got), _bits(np.matmul(x.T, x) if ta else x @ x.T))
    np.testing.assert_array_equal(_bits(got), _bits(runner))


@pytest.mark.parametrize("m,k,n", [(4096, 300, 1), (1, 300, 4096)])
def test_a_matrix_vector_product_in_blocks_gives_the_runners_bits(monkeypatch, m, k, n):
    from graphcell_ir.backend import nnkernels
    monkeypatch.setattr(nnkernels, "BLAS_WAKES", 1000)
    monkeypatch.setattr(nnkernels, "GEMM_UNIT", m * k * n // 4)
    monkeypatch.setattr(nnkernels, "GEMM_BLOCKS", 2)
    assert nnkernels.gemm_blocks(m, n, k)[0] == 2
    text, shapes = _product((), m, k, n, False, True, np.float32)
    rng = np.random.default_rng(7)
    x, y = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    (got,), (runner,) = _both(monkeypatch, text, [x, y])
    np.testing.assert_array_equal(_bits(got), _bits(runner))
    np.testing.assert_array_equal(_bits(got), _bits(np.matmul(x, y.T)))


def test_the_step_text_round_trips(monkeypatch):
    """The products' module prints and parses back (the executable cache keys on the text)."""
    text, _ = _product((), 1, 8, 4, False, True, np.float32)
    assert "transpose_b=true" in print_module(parse_module(text))

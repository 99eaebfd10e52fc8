"""Golden ``.gcir`` files: parsed, verified, printed back identically, and run by the reference
interpreter against numpy written out by hand.

Each file may start with ``//`` comment lines (dropped by the parser, so not part of the
comparison). To add a case, add ``name.gcir`` and a function ``expect_<name>`` below that returns
``(inputs, expected outputs)`` for the function named in ``ENTRY``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphcell_ir.backend.interp import interpret
from graphcell_ir.ir import assert_structurally_equal, verify
from graphcell_ir.text import parse_module, print_module

HERE = Path(__file__).parent
FILES = sorted(p.stem for p in HERE.glob("*.gcir"))
RNG = np.random.default_rng(1234)
BIG = np.arange(64, dtype=np.float32).reshape(8, 8) / 8
ENTRY = {"matmul": "Net.construct", "control": "Loop.construct"}
CONSTS = {"consts": {"consts/0": BIG}}


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def expect_elementwise():
    x, y = _f32(2, 3), _f32(2, 3)
    h = np.maximum(x * y + 1, 0)
    e = np.exp(h) / 2
    c = e > x
    s = np.where(c, e, x)
    return (x, y), (s, c, (-s).astype(np.float64))


def expect_matmul():
    x, w, b = _f32(4, 3), _f32(2, 3), _f32(2)
    return (x, w, b), (x @ w.T + b,)


def expect_reductions():
    x = _f32(3, 4)
    n = RNG.integers(-5, 5, (3, 4)).astype(np.int32)
    mean = x.mean(axis=1, keepdims=True)
    return (x, n), (x.sum(), mean, (x - mean).max(axis=0), n.sum(axis=-1, dtype=np.int32),
                    np.any(x > 0))


def expect_control():
    x = _f32(3)
    n = np.array(5, np.int64)
    i, v = 0, x.copy()
    while i < n:
        v = v * np.float32(i) if v.sum() > 0 else v + np.float32(1)
        i += 1
    return (x, n), (v, np.array(i, np.int64))


def expect_consts():
    x = _f32(2, 3)
    w = np.array([[0.5, -1.0, 2.0], [np.nan, np.inf, -0.0]], np.float32)
    return (x,), (x * w, BIG, BIG[1:3, ::4])


def _text(name: str) -> tuple[str, str]:
    text = (HERE / f"{name}.gcir").read_text()
    body = "".join(line for line in text.splitlines(True) if not line.startswith("//"))
    return text, body


@pytest.mark.parametrize("name", FILES)
def test_golden_round_trips(name):
    text, body = _text(name)
    m = parse_module(text, consts=CONSTS.get(name))
    verify(m, require_locs=False)
    assert print_module(m) == body
    full = print_module(m, locs="full")
    assert_structurally_equal(parse_module(full), m, locs=True, names=True)


@pytest.mark.parametrize("name", FILES)
def test_golden_runs(name):
    text, _ = _text(name)
    m = parse_module(text, consts=CONSTS.get(name))
    inputs, expected = globals()[f"expect_{name}"]()
    fn = ENTRY.get(name, next(iter(m)).name)
    out = interpret(m, *inputs, fn=fn, check_types=True)
    out = out if isinstance(out, tuple) else (out,)
    assert len(out) == len(expected)
    for got, want in zip(out, expected):
        want = np.asarray(want)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_every_golden_has_an_expectation():
    assert FILES and all(f"expect_{n}" in globals() for n in FILES)

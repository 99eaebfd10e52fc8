"""The differential harness of hook programs: run one in PyNative mode and in GRAPH_MODE and
compare what it prints, which hooks it calls in which order with which values, and what it
returns. Programs record what their hooks see with :func:`see`.
"""
import numpy as np

import graphcell as ms
from graphcell import Tensor
from graphcell.graph import cache

SEEN: list = []
"""What the backward hooks of the running program saw: (who, values as lists), in call order."""


def see(who, values):
    SEEN.append((who, [_plain(v) for v in values]))


def _plain(v):
    if isinstance(v, Tensor):
        return v.asnumpy().tolist()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


def as_lists(x):
    if isinstance(x, (tuple, list)):
        return [as_lists(e) for e in x]
    return x.asnumpy().tolist() if isinstance(x, Tensor) else x


def run_in(mode, program, capsys):
    """``program()`` in ``mode``: (its printed text, the hook calls, its results)."""
    SEEN.clear()
    capsys.readouterr()
    ms.set_context(mode=mode)
    try:
        results = as_lists(program())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return capsys.readouterr().out, list(SEEN), results


def check_same(program, capsys):
    """Both modes print, see and return the same; returns PyNative's (text, seen, results)."""
    expected = run_in(ms.PYNATIVE_MODE, program, capsys)
    compiled = []
    real = cache.compile_call
    cache.compile_call = lambda *a, **k: compiled.append(k["name"]) or real(*a, **k)
    try:
        got = run_in(ms.GRAPH_MODE, program, capsys)
    finally:
        cache.compile_call = real
    assert compiled, "graph mode compiled nothing"
    assert got[0] == expected[0], "printed text differs"
    assert [w for w, _ in got[1]] == [w for w, _ in expected[1]], "hook calls differ"
    for (who, g), (_, e) in zip(got[1], expected[1]):   # fused float32 code may round apart
        assert [v is None for v in g] == [v is None for v in e], who
        np.testing.assert_allclose(_flat(g), _flat(e), rtol=1e-5, atol=1e-6, err_msg=who)
    np.testing.assert_allclose(_flat(got[2]), _flat(expected[2]), rtol=1e-6, atol=1e-7)
    return expected


def _flat(x):
    if isinstance(x, list):
        return [v for e in x for v in _flat(e)]
    return [] if x is None else [x]

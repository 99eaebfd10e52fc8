"""Running one cell in PyNative mode and in GRAPH_MODE on the same inputs and comparing."""
import numpy as np

import graphcell as ms
from graphcell import Tensor


def _params(cell):
    return [p.asnumpy().copy() for p in cell.get_parameters()]


def _restore(cell, values):
    for p, v in zip(cell.get_parameters(), values):
        p.set_data(Tensor(v.copy()))


def _arrays(out):
    if isinstance(out, Tensor):
        return [out.asnumpy()]
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in _arrays(o)]
    return [out]


def assert_same_in_both_modes(cell, *inputs, seed=None, rtol=1e-5, atol=1e-6, calls=1):
    """``cell(*inputs)`` ``calls`` times in PyNative, then from the same parameter values in graph
    mode: the outputs and the parameters afterwards (moving statistics, optimizer updates) agree.
    Returns the graph-mode outputs."""
    before = _params(cell)
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        _restore(cell, before)
        if seed is not None:
            ms.set_seed(seed)
        ms.set_context(mode=mode)
        try:
            outs = [cell(*inputs) for _ in range(calls)]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        results.append((outs, _params(cell)))
    (py_outs, py_params), (g_outs, g_params) = results
    info = ms.graph.cache_info(cell)
    assert info.misses >= 1 and info.hits + info.misses >= calls, "graph mode did not compile"
    for a, b in zip(py_outs, g_outs):
        assert type(a) is type(b)
        for x, y in zip(_arrays(a), _arrays(b)):
            if isinstance(x, np.ndarray):
                assert x.dtype == y.dtype and x.shape == y.shape
                np.testing.assert_allclose(y, x, rtol=rtol, atol=atol)
            else:
                assert x == y
    for x, y in zip(py_params, g_params):
        np.testing.assert_allclose(y, x, rtol=rtol, atol=atol)
    return g_outs[-1]

"""Gradients taken in PyNative mode and in GRAPH_MODE from the same starting point, compared; and
``check_grads`` driven in GRAPH_MODE (its analytic side is then the compiled gradient)."""
import numpy as np

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.testing import check_grads


def arrays(value) -> list:
    """The arrays of a (nested) gradient structure, depth first."""
    if isinstance(value, Tensor):
        return [value.asnumpy()]
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in arrays(v)]
    return [value]


def _snapshot(params) -> list:
    return [p.asnumpy().copy() for p in params]


def _restore(params, values) -> None:
    for p, v in zip(params, values):
        p.set_data(Tensor(v.copy()))


def random_sens(fn, inputs, seed: int = 0):
    """A random cotangent for each output of ``fn(*inputs)`` (run once in PyNative mode)."""
    out = fn(*inputs)
    rng = np.random.default_rng(seed)
    outs = out if isinstance(out, tuple) else (out,)
    sens = tuple(Tensor(rng.standard_normal(o.shape).astype(o.asnumpy().dtype)) for o in outs)
    return sens if isinstance(out, tuple) else sens[0]


def assert_grads_agree(fn, *inputs, weights=(), sens=None, seed=None, state=(), rtol=1e-5,
                       atol=1e-6):
    """``GradOperation(get_all, get_by_list, sens_param)(fn, weights)(*inputs, sens)`` in PyNative
    mode, then in GRAPH_MODE from the same Parameter values (``state``: every Parameter the call
    may change, such as moving statistics) and random seed: the gradients and the Parameters
    afterwards agree. Returns the graph-mode gradients; asserts the gradient was compiled."""
    params = list(dict.fromkeys(list(weights) + list(state)))
    grad_op = ops.GradOperation(get_all=True, get_by_list=bool(weights),
                                sens_param=sens is not None)
    grad_fn = grad_op(fn, list(weights)) if weights else grad_op(fn)
    args = inputs + ((sens,) if sens is not None else ())
    before = _snapshot(params)
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        _restore(params, before)
        if seed is not None:
            ms.set_seed(seed)
        ms.set_context(mode=mode)
        try:
            results.append((grad_fn(*args), _snapshot(params)))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    assert grad_fn.cache_log.misses + grad_fn.cache_log.hits >= 1, "graph mode did not compile"
    (py, py_params), (graph, graph_params) = results
    assert _structure(py) == _structure(graph)
    for a, b in zip(arrays(py), arrays(graph)):
        assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)
    for a, b in zip(py_params, graph_params):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)
    return graph


def _structure(value):
    if isinstance(value, (tuple, list)):
        return type(value), tuple(_structure(v) for v in value)
    return type(value)


def check_grads_in_graph_mode(fn, args, **kwargs):
    """``check_grads`` with GRAPH_MODE on: graphcell's gradient is the compiled one, the finite
    differences call ``fn`` (compiled too when it is a cell). Asserts a gradient was compiled."""
    before = _gradient_compiles()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        report = check_grads(fn, args, **kwargs)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    after = _gradient_compiles()
    assert any(n > before.get(k, 0) for k, n in after.items()), \
        "check_grads did not compile a gradient"
    return report


def _gradient_compiles() -> dict:
    return {id(log): log.misses for log in ms.graph.cache_info().logs
            if log.name.startswith("GradOperation.")}

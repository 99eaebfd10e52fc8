"""The ``mint`` names MindSpore 2.10's CPU build refuses (``graphcell/_compat/gaps.py`` says
which kernel it lacks), against numpy: the value in PyNative and in graph mode, and — for float
functions — the PyNative gradient against finite differences (``check_grads``).

A row is ``(target, inputs, kwargs, reference)``: ``target`` is a path under ``graphcell.mint``,
``inputs`` numpy arrays (or lists of arrays) given as positional arguments, ``reference`` a numpy
function of the same arrays.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import graphcell as ms
from graphcell import mint
from graphcell.testing import check_grads

RNG = np.random.default_rng(7)


def _f(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


X, Y = _f(2, 3), _f(2, 3)
P = _f(2, 3, lo=0.2, hi=2.0)
U = _f(2, 3, lo=-0.9, hi=0.9)
A, B = _f(2, 3), _f(3, 4)
D = np.array([[1.0, 5.0, -2.0, 3.5], [0.5, -1.0, 4.0, 2.0], [3.0, 0.0, -3.0, 1.5]], np.float32)
IMG = _f(1, 2, 5, 5)
W = _f(3, 2, 3, 3)
LABELS = np.array([0, 2, 1, 2], np.int64)
LOGITS = _f(4, 3)
erf = np.vectorize(math.erf, otypes=[np.float64])


def _log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def _gelu(x):
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def _conv2d(x, w, pad=0, stride=1):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


def _pool(x, k, reduce):
    n, c, h, w = x.shape
    return reduce(x.reshape(n, c, h // k, k, w // k, k), axis=(3, 5))


def _layer_norm(x, axes, eps=1e-5):
    m = x.mean(axes, keepdims=True)
    return (x - m) / np.sqrt(x.var(axes, keepdims=True) + eps)


def _median_low(x, axis=None):
    s = np.sort(x, axis=axis)
    n = s.shape[axis] if axis is not None else s.size
    return np.take(s.reshape(-1) if axis is None else s, (n - 1) // 2, axis=axis or 0)


def _conv1d(x, w, b, pad):
    """PyTorch's conv1d without bias, as a 2-D convolution of height 1."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    return _conv2d(x[:, :, None, :], w[:, :, None, :])[:, :, 0]


def _cummin_index(x):
    """Where each running minimum along axis 0 was found (the latest index among ties)."""
    index = np.zeros(x.shape, np.int64)
    for i in range(1, x.shape[0]):
        index[i] = np.where(x[i] <= x[index[i - 1], np.arange(x.shape[1])], i, index[i - 1])
    return index


ROWS = [
    # elementwise
    ("acos", [U], {}, np.arccos), ("arccos", [U], {}, np.arccos),
    ("asin", [U], {}, np.arcsin), ("arcsin", [U], {}, np.arcsin),
    ("atan", [X], {}, np.arctan), ("arctan", [X], {}, np.arctan),
    ("asinh", [X], {}, np.arcsinh), ("acosh", [P + 1], {}, np.arccosh),
    ("atan2", [X, P], {}, np.arctan2), ("arctan2", [X, P], {}, np.arctan2),
    ("exp2", [X], {}, np.exp2), ("special.exp2", [X], {}, np.exp2),
    ("log2", [P], {}, np.log2), ("log10", [P], {}, np.log10),
    ("frac", [X], {}, lambda x: x - np.trunc(x)),
    ("logaddexp", [X, Y], {}, np.logaddexp), ("logaddexp2", [X, Y], {}, np.logaddexp2),
    ("addcdiv", [X, Y, P], {"value": 0.5}, lambda a, b, c: a + 0.5 * b / c),
    ("addcmul", [X, Y, P], {"value": 2}, lambda a, b, c: a + 2 * b * c),
    ("isneginf", [np.array([1.0, -np.inf, np.inf], np.float32)], {}, np.isneginf),
    ("bitwise_or", [np.array([5, 3], np.int32), np.array([2, 6], np.int32)], {}, np.bitwise_or),
    ("bitwise_xor", [np.array([5, 3], np.int32), np.array([2, 6], np.int32)], {}, np.bitwise_xor),
    ("equal", [X, X.copy()], {}, lambda a, b: np.array(np.array_equal(a, b))),
    # products
    ("mm", [A, B], {}, np.matmul), ("mv", [A, B[:, 0].copy()], {}, np.matmul),
    ("dot", [X[0].copy(), Y[0].copy()], {}, np.dot),
    ("outer", [X[0].copy(), B[0].copy()], {}, np.outer),
    ("trace", [D[:, :3].copy()], {}, np.trace),
    ("vdot", [X[0].copy(), Y[0].copy()], {}, np.vdot),
    ("inverse", [np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)], {}, np.linalg.inv),
    ("triangular_solve", [_f(2, 1), np.array([[2.0, 1.0], [0.0, 3.0]], np.float32)], {},
     lambda b, a: (np.linalg.solve(a, b), a)),
    ("conv2d", [IMG, W], {"padding": 1}, lambda x, w: _conv2d(x, w, 1)),
    ("addmm", [_f(2, 4), A, B], {"beta": 0.5, "alpha": 2.0}, lambda c, a, b: 0.5 * c + 2 * a @ b),
    ("addmv", [_f(2), A, B[:, 0].copy()], {}, lambda c, a, v: c + a @ v),
    ("addbmm", [_f(2, 4), _f(3, 2, 3), _f(3, 3, 4)], {}, lambda c, a, b: c + (a @ b).sum(0)),
    ("baddbmm", [_f(3, 2, 4), _f(3, 2, 3), _f(3, 3, 4)], {"beta": 0.5, "alpha": 2.0},
     lambda c, a, b: 0.5 * c + 2 * a @ b),
    # creation (no tensor inputs: the arguments are kwargs-free Python values)
    ("zeros_like", [X], {}, np.zeros_like), ("ones_like", [X], {}, np.ones_like),
    ("full_like", [X], {"fill_value": 7.0}, lambda x: np.full_like(x, 7.0)),
    # reductions, scans, sorting, statistics
    ("argmax", [D], {"dim": 1}, lambda x: np.argmax(x, 1)),
    ("argmin", [D], {"dim": 0}, lambda x: np.argmin(x, 0)),
    ("argsort", [D], {"dim": 1, "descending": True}, lambda x: np.argsort(-x, 1)),
    ("sort", [D], {"dim": 0}, lambda x: (np.sort(x, 0), np.argsort(x, 0))),
    ("topk", [D, 2], {}, lambda x, k: (-np.sort(-x, 1)[:, :2], np.argsort(-x, 1)[:, :2])),
    ("cumsum", [X, 1], {}, lambda x, d: np.cumsum(x, d)),
    ("cummin", [D, 0], {}, lambda x, d: (np.minimum.accumulate(x, 0), _cummin_index(x))),
    ("logsumexp", [X, 1], {}, lambda x, d: np.log(np.exp(x).sum(d))),
    ("std", [D], {}, lambda x: np.std(x, ddof=1)),
    ("std", [D], {"dim": 1, "correction": 0, "keepdim": True},
     lambda x: np.std(x, 1, keepdims=True)),
    ("var", [D], {"dim": 0}, lambda x: np.var(x, 0, ddof=1)),
    ("std_mean", [D, 1], {}, lambda x, d: (np.std(x, d, ddof=1), np.mean(x, d))),
    ("var_mean", [D], {}, lambda x: (np.var(x, ddof=1), np.mean(x))),
    ("median", [D], {}, _median_low),
    ("median", [D, 1], {}, lambda x, d: (_median_low(x, 1), np.argsort(x, 1)[:, 1])),
    ("norm", [X], {}, lambda x: np.sqrt((x * x).sum())),
    ("norm", [X, 1.0, 1], {}, lambda x, p, d: np.abs(x).sum(1)),
    ("count_nonzero", [np.array([[0.0, 1.0], [2.0, 0.0]], np.float32)], {"dim": 1},
     lambda x: np.count_nonzero(x, 1)),
    ("histc", [X], {"bins": 4, "min": -2, "max": 2},
     lambda x: np.histogram(x, 4, (-2, 2))[0].astype(np.float32)),
    # shapes and indexing
    ("stack", [[X, Y]], {"dim": 1}, lambda xs: np.stack(xs, 1)),
    ("roll", [X, 1, 1], {}, lambda x, s, d: np.roll(x, s, d)),
    ("tril", [D], {}, np.tril),
    ("take", [D, np.array([0, 5, 11], np.int64)], {}, lambda x, i: x.reshape(-1)[i]),
    ("index_select", [D, 1, np.array([3, 0], np.int64)], {}, lambda x, d, i: x[:, i]),
    ("scatter_add", [D, 0, np.array([[0, 1, 2, 0]], np.int64), _f(1, 4)], {},
     lambda x, d, i, s: x + np.eye(3, dtype=np.float32)[i[0]].T * s),
    ("repeat_interleave", [X, 2, 0], {}, lambda x, r, d: np.repeat(x, r, d)),
    ("diag", [X[0].copy()], {}, np.diag), ("diag", [D, 1], {}, lambda x, k: np.diag(x, k)),
    ("clone", [X], {}, np.copy),
    # nn.functional
    ("nn.functional.gelu", [X], {}, _gelu),
    ("nn.functional.gelu", [X], {"approximate": "tanh"},
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    ("nn.functional.elu", [X], {}, lambda x: np.where(x > 0, x, np.expm1(x))),
    ("nn.functional.selu", [X], {}, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(x))),
    ("nn.functional.relu6", [X * 4], {}, lambda x: np.clip(x, 0, 6)),
    ("nn.functional.leaky_relu", [X], {"negative_slope": 0.1},
     lambda x: np.where(x > 0, x, 0.1 * x)),
    ("nn.functional.hardtanh", [X], {"min_val": -0.5, "max_val": 0.5},
     lambda x: np.clip(x, -0.5, 0.5)),
    ("nn.functional.threshold", [X, 0.1, 20.0], {}, lambda x, t, v: np.where(x > t, x, v)),
    ("nn.functional.logsigmoid", [X], {}, lambda x: -np.logaddexp(0, -x)),
    ("nn.functional.mish", [X], {}, lambda x: x * np.tanh(np.logaddexp(0, x))),
    ("nn.functional.log_softmax", [X], {"dim": 1}, lambda x: _log_softmax(x, 1)),
    ("special.log_softmax", [X, 1], {}, lambda x, d: _log_softmax(x, 1)),
    ("nn.functional.conv2d", [IMG, W], {"padding": 1}, lambda x, w: _conv2d(x, w, 1)),
    ("nn.functional.conv2d", [IMG, W], {"stride": 2}, lambda x, w: _conv2d(x, w, 0, 2)),
    ("nn.functional.conv2d", [IMG, W], {"padding": "same"}, lambda x, w: _conv2d(x, w, 1)),
    ("nn.functional.conv1d", [_f(1, 2, 6), _f(3, 2, 3), _f(3)], {"padding": 1},
     lambda x, w, b: _conv1d(x, w, b, 1) + b[None, :, None]),
    ("nn.functional.avg_pool2d", [IMG[:, :, :4, :4].copy(), 2], {},
     lambda x, k: _pool(x, 2, np.mean)),
    ("nn.functional.max_pool2d", [D.reshape(1, 1, 3, 4)[:, :, :2].copy(), 2], {},
     lambda x, k: _pool(x, 2, np.max)),
    ("nn.functional.adaptive_avg_pool2d", [IMG[:, :, :4, :4].copy(), (2, 2)], {},
     lambda x, s: _pool(x, 2, np.mean)),
    ("nn.functional.layer_norm", [X, (3,)], {}, lambda x, s: _layer_norm(x, -1)),
    ("nn.functional.batch_norm", [LOGITS, np.zeros(3, np.float32), np.ones(3, np.float32)],
     {"training": True}, lambda x, m, v: _layer_norm(x, 0)),
    ("nn.functional.normalize", [X], {}, lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)),
    ("nn.functional.embedding", [np.array([[0, 2]], np.int64), _f(3, 4)], {}, lambda i, w: w[i]),
    ("nn.functional.one_hot", [np.array([0, 2, 1], np.int64), 3], {},
     lambda i, n: np.eye(n, dtype=np.int64)[i]),
    ("nn.functional.pad", [X, (1, 2)], {}, lambda x, p: np.pad(x, ((0, 0), (1, 2)))),
    ("nn.functional.pad", [X, (1, 1)], {"mode": "reflect"},
     lambda x, p: np.pad(x, ((0, 0), (1, 1)), "reflect")),
    ("nn.functional.mse_loss", [X, Y], {}, lambda x, y: ((x - y) ** 2).mean()),
    ("nn.functional.l1_loss", [X, Y], {}, lambda x, y: np.abs(x - y).mean()),
    ("nn.functional.cross_entropy", [LOGITS, LABELS], {},
     lambda x, t: -_log_softmax(x, 1)[np.arange(4), t].mean()),
    ("nn.functional.kl_div", [np.log(P / P.sum()), P / P.sum()], {"reduction": "sum"},
     lambda i, t: (t * (np.log(t) - i)).sum()),
    ("nn.functional.soft_margin_loss", [X, np.sign(Y)], {},
     lambda x, y: np.log1p(np.exp(-y * x)).mean()),
    # linalg
    ("linalg.vector_norm", [X], {}, lambda x: np.sqrt((x * x).sum())),
    ("linalg.vector_norm", [X, 1], {"dim": 1}, lambda x, o: np.abs(x).sum(1)),
    ("linalg.matrix_norm", [_f(2, 3, 3)], {}, lambda x: np.sqrt((x * x).sum((1, 2)))),
    ("linalg.norm", [D], {}, lambda x: np.sqrt((x * x).sum())),
    ("linalg.inv", [np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)], {}, np.linalg.inv),
]
NOT_DIFFERENTIABLE = {"frac", "isneginf", "bitwise_or", "bitwise_xor", "equal", "argmax",
                      "argmin", "argsort", "count_nonzero", "histc", "nn.functional.one_hot",
                      "nn.functional.threshold", "nn.functional.hardtanh", "zeros_like",
                      "ones_like", "full_like", "nn.functional.l1_loss"}

GRAD_POSITIONS = {"nn.functional.kl_div": (0,)}
"""Rows differentiated with respect to some float inputs only: kl_div's target is data."""


def _target(path: str):
    obj = mint
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _tensors(inputs):
    return [[ms.Tensor(a) for a in v] if isinstance(v, list)
            else ms.Tensor(v) if isinstance(v, np.ndarray) else v for v in inputs]


def _compare(out, expected, label):
    if isinstance(expected, tuple):
        assert len(out) == len(expected), label
        for o, e in zip(out, expected):
            _compare(o, e, label)
        return
    got = out.asnumpy() if hasattr(out, "asnumpy") else np.asarray(out)
    np.testing.assert_allclose(got, np.asarray(expected), rtol=1e-4, atol=1e-5, err_msg=label)


def _ids():
    counts: dict = {}
    out = []
    for row in ROWS:
        n = counts[row[0]] = counts.get(row[0], -1) + 1
        out.append(f"{row[0]}[{n}]")
    return out


def graph_call(target, args, kwargs):
    def call(*xs):
        return target(*xs, **kwargs)
    return ms.jit(call)(*args)


@pytest.mark.parametrize("path, inputs, kwargs, reference", ROWS, ids=_ids())
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_value_against_numpy(path, inputs, kwargs, reference, mode):
    target = _target(path)
    args = _tensors(inputs)
    out = target(*args, **kwargs) if mode == "pynative" else graph_call(target, args, kwargs)
    _compare(out, reference(*inputs), f"mint.{path} in {mode} mode")


GRAD_ROWS = [r for r, i in zip(ROWS, _ids())
             if r[0] not in NOT_DIFFERENTIABLE and any(
                 isinstance(v, np.ndarray) and v.dtype == np.float32 for v in r[1])]


@pytest.mark.parametrize("path, inputs, kwargs, reference", GRAD_ROWS,
                         ids=[f"{r[0]}-{n}" for n, r in enumerate(GRAD_ROWS)])
def test_gradient_against_finite_differences(path, inputs, kwargs, reference):
    target = _target(path)
    float_slots = [i for i, v in enumerate(inputs)
                   if isinstance(v, np.ndarray) and v.dtype == np.float32]
    args = _tensors(inputs)

    def fn(*floats):
        full = list(args)
        for slot, value in zip(float_slots, floats):
            full[slot] = value
        out = target(*full, **kwargs)
        return out[0] if isinstance(out, tuple) else out

    positions = GRAD_POSITIONS.get(path)
    report = check_grads(fn, tuple(args[i] for i in float_slots), grad_position=positions)
    assert report.passed, str(report)


def test_rank_preserving_random_names_draw_their_shapes_and_dtypes():
    """The random names (refused by MindSpore 2.10's CPU build): shapes, dtypes, ranges."""
    assert mint.rand(2, 3).shape == (2, 3) and mint.rand((4,)).dtype == ms.float32
    u = mint.rand(1000).asnumpy()
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.05
    n = mint.randn(2000).asnumpy()
    assert abs(n.mean()) < 0.1 and abs(n.std() - 1) < 0.1
    r = mint.randint(3, 7, (500,))
    assert r.dtype == ms.int64 and set(np.unique(r.asnumpy())) == {3, 4, 5, 6}
    assert mint.randint(5, (2, 2)).shape == (2, 2)
    assert sorted(mint.randperm(6).asnumpy().tolist()) == list(range(6))
    like = mint.randint_like(ms.Tensor(np.zeros((3, 2), np.int32)), 4)
    assert like.shape == (3, 2) and like.dtype == ms.int32 and like.asnumpy().max() < 4
    assert mint.rand_like(ms.Tensor(X)).shape == X.shape
    assert mint.randn_like(ms.Tensor(X)).shape == X.shape
    b = mint.bernoulli(ms.Tensor(np.array([0.0, 1.0, 1.0], np.float32))).asnumpy()
    np.testing.assert_array_equal(b, [0.0, 1.0, 1.0])
    m = mint.multinomial(ms.Tensor(np.array([[0.0, 1.0, 0.0]], np.float32)), 1).asnumpy()
    np.testing.assert_array_equal(m, [[1]])
    s = mint.normal(ms.Tensor(np.full((2000,), 3.0, np.float32)), 0.5).asnumpy()
    assert abs(s.mean() - 3) < 0.1 and abs(s.std() - 0.5) < 0.1
    assert mint.normal(0.0, 1.0, (3,)).shape == (3,)


def test_refused_creation_names_match_numpy():
    np.testing.assert_array_equal(mint.arange(5).asnumpy(), np.arange(5))
    assert mint.arange(5).dtype == ms.int64
    np.testing.assert_allclose(mint.arange(1.0, 4.0, 0.5).asnumpy(), np.arange(1.0, 4.0, 0.5))
    np.testing.assert_allclose(mint.linspace(0.0, 1.0, 5).asnumpy(), np.linspace(0, 1, 5))
    np.testing.assert_allclose(mint.full((2, 2), 1.5).asnumpy(), np.full((2, 2), 1.5))
    assert mint.full((2,), 1.5).dtype == ms.float32


def test_where_with_one_argument_and_masked_select_and_unique():
    cond = ms.Tensor(np.array([[True, False], [False, True]]))
    rows, cols = mint.where(cond)
    np.testing.assert_array_equal(rows.asnumpy(), [0, 1])
    np.testing.assert_array_equal(cols.asnumpy(), [0, 1])
    x = ms.Tensor(X)
    mask = ms.Tensor(X > 0)
    np.testing.assert_allclose(mint.masked_select(x, mask).asnumpy(), X[X > 0])
    np.testing.assert_array_equal(
        mint.unique(ms.Tensor(np.array([3, 1, 3, 2], np.int32))).asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(
        mint.bincount(ms.Tensor(np.array([0, 1, 1, 3], np.int32))).asnumpy(), [1, 2, 0, 1])


IMG4 = _f(2, 3, 4, 4)
LAYERS = [  # (layer, inputs, numpy reference); the refused mint.nn layers, default parameters
    (lambda: mint.nn.GELU(), [X], _gelu),
    (lambda: mint.nn.ELU(alpha=0.5), [X], lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    (lambda: mint.nn.Hardtanh(-0.5, 0.5), [X], lambda x: np.clip(x, -0.5, 0.5)),
    (lambda: mint.nn.Mish(), [X], lambda x: x * np.tanh(np.logaddexp(0, x))),
    (lambda: mint.nn.LogSoftmax(dim=1), [X], lambda x: _log_softmax(x, 1)),
    (lambda: mint.nn.LayerNorm(3), [X], lambda x: _layer_norm(x, -1)),
    (lambda: mint.nn.BatchNorm2d(3), [IMG4], lambda x: _layer_norm(x, (0, 2, 3))),
    (lambda: mint.nn.BatchNorm1d(3), [LOGITS], lambda x: _layer_norm(x, 0)),
    (lambda: mint.nn.MaxPool2d(2), [IMG4], lambda x: _pool(x, 2, np.max)),
    (lambda: mint.nn.AvgPool2d(2), [IMG4], lambda x: _pool(x, 2, np.mean)),
    (lambda: mint.nn.AdaptiveAvgPool2d((2, 2)), [IMG4], lambda x: _pool(x, 2, np.mean)),
    (lambda: mint.nn.ZeroPad2d(1), [IMG4], lambda x: np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))),
    (lambda: mint.nn.Embedding(3, 4, _weight=ms.Tensor(B[:3].copy())),
     [np.array([[0, 2]], np.int64)], lambda i: B[:3][i]),
    (lambda: mint.nn.MSELoss(), [X, Y], lambda x, y: ((x - y) ** 2).mean()),
    (lambda: mint.nn.L1Loss(), [X, Y], lambda x, y: np.abs(x - y).mean()),
    (lambda: mint.nn.CrossEntropyLoss(), [LOGITS, LABELS],
     lambda x, t: -_log_softmax(x, 1)[np.arange(4), t].mean()),
]


@pytest.mark.parametrize("make, inputs, reference", LAYERS,
                         ids=[f"{n}" for n in range(len(LAYERS))])
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_layer_against_numpy(make, inputs, reference, mode):
    layer = make()
    layer.set_train(True)  # batch statistics for the batch norms; the others do not care
    args = _tensors(inputs)
    out = layer(*args) if mode == "pynative" else ms.jit(layer.construct)(*args)
    _compare(out, reference(*inputs), f"{type(layer).__name__} in {mode} mode")


# --- the rest of mint's names MindSpore 2.10's CPU build refuses (cases/mint_more.py) -------------

SEQ, VOL, IMG4B = _f(1, 2, 6), _f(1, 2, 4, 4, 4), _f(1, 2, 4, 4)
windows = np.lib.stride_tricks.sliding_window_view


def _conv3d(x, w):
    patches = windows(x, w.shape[2:], axis=(2, 3, 4))
    return np.einsum("ncdhwijk,ocijk->nodhw", patches, w)


def _unfold(x, k):
    n, c = x.shape[:2]
    patches = windows(x, (k, k), axis=(2, 3))  # n, c, oh, ow, k, k
    return patches.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * k * k, -1)


def _fold(cols, size, k):
    n, ck, blocks = cols.shape
    c, (h, w) = ck // (k * k), size
    oh, ow = h - k + 1, w - k + 1
    out = np.zeros((n, c, h, w), cols.dtype)
    patches = cols.reshape(n, c, k, k, oh, ow)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i:i + k, j:j + k] += patches[:, :, :, :, i, j]
    return out


def _cosine_embedding(a, b, y, margin=0.0):
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    return np.where(y > 0, 1 - cos, np.maximum(0, cos - margin))


def _pad_last(x, pads, mode="constant", **kw):
    """``pads`` as mint gives them: pairs from the last dimension backwards."""
    pairs = [(0, 0)] * (x.ndim - len(pads) // 2) + [
        (pads[2 * i], pads[2 * i + 1]) for i in reversed(range(len(pads) // 2))]
    return np.pad(x, pairs, mode, **kw)


KD = np.array([[1.0, 5.0, -2.0, 3.5], [0.5, -1.0, 4.0, 2.0]], np.float32)
COS_Y = np.array([1.0, -1.0, 1.0], np.float32)
MORE_ROWS = [
    ("arccosh", [P + 1], {}, np.arccosh), ("arcsinh", [X], {}, np.arcsinh),
    ("bitwise_not", [np.array([[-3, 0, 5]], np.int32)], {}, np.invert),
    ("kthvalue", [KD, 2, 1], {}, lambda x, k, d: (np.sort(x, 1)[:, 1], np.argsort(x, 1)[:, 1])),
    ("nn.functional.adaptive_avg_pool1d", [SEQ, 3], {},
     lambda x, s: x.reshape(1, 2, 3, 2).mean(-1)),
    ("nn.functional.adaptive_max_pool1d", [SEQ, 3], {},
     lambda x, s: x.reshape(1, 2, 3, 2).max(-1)),
    ("nn.functional.avg_pool1d", [SEQ, 2], {}, lambda x, k: x.reshape(1, 2, 3, 2).mean(-1)),
    ("nn.functional.adaptive_avg_pool3d", [VOL, 2], {},
     lambda x, s: x.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean((3, 5, 7))),
    ("nn.functional.avg_pool3d", [VOL, 2], {},
     lambda x, k: x.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean((3, 5, 7))),
    ("nn.functional.conv3d", [VOL, _f(3, 2, 2, 2, 2)], {}, _conv3d),
    ("nn.functional.conv_transpose2d", [IMG4B, _f(2, 3, 2, 2)], {"stride": 2},
     lambda x, w: np.einsum("ncij,coab->noiajb", x, w).reshape(1, 3, 8, 8)),
    ("nn.functional.cosine_embedding_loss", [_f(3, 4), _f(3, 4), COS_Y], {},
     lambda a, b, y: _cosine_embedding(a, b, y).mean()),
    ("nn.functional.dropout2d", [IMG4B, 0.5, False], {}, lambda x, p, t: x),
    ("nn.functional.unfold", [IMG4B, 2], {}, _unfold),
    ("nn.functional.fold", [_f(1, 8, 4), (3, 3), 2], {}, _fold),
    ("nn.functional.max_unpool2d", [np.array([[[[5.0, 6.0]]]], np.float32),
                                    np.array([[[[1, 2]]]], np.int64), 2], {},
     lambda x, i, k: np.array([[[[0, 5.0, 6.0, 0], [0, 0, 0, 0]]]], np.float32)),
]


@pytest.mark.parametrize("path, inputs, kwargs, reference", MORE_ROWS,
                         ids=[r[0] for r in MORE_ROWS])
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_more_values_against_numpy(path, inputs, kwargs, reference, mode):
    test_value_against_numpy(path, inputs, kwargs, reference, mode)


MORE_NOT_DIFFERENTIABLE = ("bitwise_not", "nn.functional.adaptive_max_pool1d",
                           "nn.functional.max_unpool2d", "kthvalue")
MORE_GRADS = [r for r in MORE_ROWS if r[0] not in MORE_NOT_DIFFERENTIABLE]


@pytest.mark.parametrize("path, inputs, kwargs, reference", MORE_GRADS,
                         ids=[r[0] for r in MORE_GRADS])
def test_more_gradients_against_finite_differences(path, inputs, kwargs, reference):
    test_gradient_against_finite_differences(path, inputs, kwargs, reference)


MORE_LAYERS = [
    (lambda: mint.nn.AdaptiveAvgPool1d(3), [SEQ], lambda x: x.reshape(1, 2, 3, 2).mean(-1)),
    (lambda: mint.nn.AdaptiveMaxPool1d(3), [SEQ], lambda x: x.reshape(1, 2, 3, 2).max(-1)),
    (lambda: mint.nn.AvgPool1d(2), [SEQ], lambda x: x.reshape(1, 2, 3, 2).mean(-1)),
    (lambda: mint.nn.AdaptiveAvgPool3d(2), [VOL],
     lambda x: x.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean((3, 5, 7))),
    (lambda: mint.nn.AvgPool3d(2), [VOL],
     lambda x: x.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean((3, 5, 7))),
    (lambda: mint.nn.BatchNorm3d(2), [VOL], lambda x: _layer_norm(x, (0, 2, 3, 4))),
    (lambda: mint.nn.ConstantPad1d(1, 0.5), [SEQ],
     lambda x: _pad_last(x, (1, 1), constant_values=0.5)),
    (lambda: mint.nn.ConstantPad2d((1, 0, 2, 1), -1.0), [IMG4B],
     lambda x: _pad_last(x, (1, 0, 2, 1), constant_values=-1.0)),
    (lambda: mint.nn.ConstantPad3d(1, 0.0), [VOL], lambda x: _pad_last(x, (1,) * 6)),
    (lambda: mint.nn.ZeroPad1d(2), [SEQ], lambda x: _pad_last(x, (2, 2))),
    (lambda: mint.nn.ZeroPad3d(1), [VOL], lambda x: _pad_last(x, (1,) * 6)),
    (lambda: mint.nn.ReflectionPad1d(2), [SEQ], lambda x: _pad_last(x, (2, 2), "reflect")),
    (lambda: mint.nn.ReflectionPad2d(1), [IMG4B], lambda x: _pad_last(x, (1,) * 4, "reflect")),
    (lambda: mint.nn.ReflectionPad3d(1), [VOL], lambda x: _pad_last(x, (1,) * 6, "reflect")),
    (lambda: mint.nn.ReplicationPad1d(2), [SEQ], lambda x: _pad_last(x, (2, 2), "edge")),
    (lambda: mint.nn.ReplicationPad2d((1, 0, 0, 1)), [IMG4B],
     lambda x: _pad_last(x, (1, 0, 0, 1), "edge")),
    (lambda: mint.nn.ReplicationPad3d(1), [VOL], lambda x: _pad_last(x, (1,) * 6, "edge")),
    (lambda: mint.nn.CosineEmbeddingLoss(margin=0.1), [_f(3, 4), _f(3, 4), COS_Y],
     lambda a, b, y: _cosine_embedding(a, b, y, 0.1).mean()),
    (lambda: mint.nn.KLDivLoss(reduction="sum"), [np.log(P / P.sum()), P / P.sum()],
     lambda i, t: (t * (np.log(t) - i)).sum()),
    (lambda: mint.nn.LogSigmoid(), [X], lambda x: -np.logaddexp(0, -x)),
    (lambda: mint.nn.ReLU6(), [X * 4], lambda x: np.clip(x, 0, 6)),
    (lambda: mint.nn.SELU(), [X], lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(x))),
    (lambda: mint.nn.SoftMarginLoss(), [X, np.sign(Y)],
     lambda x, y: np.log1p(np.exp(-y * x)).mean()),
    (lambda: mint.nn.Threshold(0.1, 20.0), [X], lambda x: np.where(x > 0.1, x, 20.0)),
    (lambda: mint.nn.Unfold(2), [IMG4B], lambda x: _unfold(x, 2)),
    (lambda: mint.nn.Fold((3, 3), 2), [_f(1, 8, 4)], lambda x: _fold(x, (3, 3), 2)),
    (lambda: mint.nn.MaxUnpool2d(2), [np.array([[[[5.0, 6.0]]]], np.float32),
                                     np.array([[[[1, 2]]]], np.int64)],
     lambda x, i: np.array([[[[0, 5.0, 6.0, 0], [0, 0, 0, 0]]]], np.float32)),
    (lambda: mint.nn.UpsamplingNearest2d(scale_factor=2.0), [_f(1, 1, 2, 2)],
     lambda x: x.repeat(2, 2).repeat(2, 3)),
    (lambda: mint.nn.UpsamplingBilinear2d(size=(3, 3)), [_f(1, 1, 2, 2)],
     lambda x: _bilinear_3x3(x)),
]


def _bilinear_3x3(x):
    """2x2 -> 3x3 with corners aligned: the corners, then midpoints of neighbours."""
    rows = np.stack([x[..., 0, :], (x[..., 0, :] + x[..., 1, :]) / 2, x[..., 1, :]], -2)
    return np.stack([rows[..., 0], (rows[..., 0] + rows[..., 1]) / 2, rows[..., 1]], -1)


@pytest.mark.parametrize("make, inputs, reference", MORE_LAYERS,
                         ids=[str(n) for n in range(len(MORE_LAYERS))])
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_more_layers_against_numpy(make, inputs, reference, mode):
    test_layer_against_numpy(make, inputs, reference, mode)


@pytest.mark.parametrize("make, reference", [
    (lambda: mint.nn.Conv1d(2, 3, 3, padding=1), lambda x, w, b: _conv1d(x, w, b, 1)),
    (lambda: mint.nn.Conv2d(2, 3, 3, padding=1), lambda x, w, b: _conv2d(x, w, 1)),
    (lambda: mint.nn.Conv3d(2, 3, 2), lambda x, w, b: _conv3d(x, w)),
    (lambda: mint.nn.ConvTranspose2d(2, 3, 2, stride=2),
     lambda x, w, b: np.einsum("ncij,coab->noiajb", x, w).reshape(1, 3, 8, 8)),
], ids=["Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d"])
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_convolution_layers_against_numpy(make, reference, mode):
    """The layers' own (random, PyTorch-bounded) weights, read back and convolved in numpy."""
    layer = make()
    dims = len(layer.kernel_size)
    x = _f(1, 2, *([6] if dims == 1 else [4] * dims))
    out = layer(ms.Tensor(x)) if mode == "pynative" else ms.jit(layer.construct)(ms.Tensor(x))
    w, b = layer.weight.asnumpy(), layer.bias.asnumpy()
    fan_in = w.shape[1] * int(np.prod(w.shape[2:]))
    assert np.abs(w).max() <= 1 / np.sqrt(fan_in) + 1e-6 and np.abs(b).max() <= 1 / np.sqrt(fan_in)
    expected = reference(x, w, b) + b.reshape(1, -1, *([1] * dims))
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-5)


def test_linalg_qr_reconstructs_its_input():
    a = _f(3, 3)
    q, r = mint.linalg.qr(ms.Tensor(a))
    q, r = q.asnumpy(), r.asnumpy()
    np.testing.assert_allclose(q @ r, a, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)
    np.testing.assert_allclose(np.tril(r, -1), 0, atol=1e-6)

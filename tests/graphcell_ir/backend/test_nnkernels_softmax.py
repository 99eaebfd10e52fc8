"""The softmax-family and batch_norm kernels (graphcell_ir/backend/nnkernels.py) against the refs.

The registry's sample rows already run through test_nnkernels.py; here: property tests with
large magnitudes and NaN/Inf, each result within a stated rounding bound of the numpy reference
(compiled loops and the loops run as Python alike), the fallbacks (other axes, large inputs,
other dtypes, bad labels), and a training step of a BatchNorm + cross-entropy network in PyNative
and graph mode against the same step with the JIT disabled (the references).

Bounds, with ``eps`` the result dtype's epsilon and K the classes (the references' own rounding
is of that order: they sum K values in the result's dtype, K eps relative at worst; the kernels
sum in float64 and use libm's exp/log, numpy its SIMD exp, <= 2.3 ulp in float32):

- softmax: 8 + K ulp of the result;
- log_softmax: eps * (8 (|x - max| + log(sum) + 1) + K) (absolute: the subtraction's operands);
- cross-entropy loss: (8 + K) eps * sum(|labels| * (|x - max| + log(sum) + 1));
- softmax - labels: eps * (p * (8 (|x - max| + log(sum) + 1) + K) + 8 (|labels| + |result|))
  (numpy takes exp of the rounded log-softmax, whose error grows with |x - max|);
- sparse loss: eps * (8 (|x_label - max| + log(sum) + 1) + K);
- plus (8 + 64) times the smallest subnormal everywhere (K rounded subnormal products);
- batch_norm: bit-identical in inference (the same operations in the same dtypes); in training
  8 ulp of the terms of y plus the statistics' float64 summation-order error (m * 2^-52
  relative, m the values per channel); the moving statistics the same.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from graphcell_ir.backend import nnkernels as K
from graphcell_ir.backend.nnkernels import KERNELS, kernel
from graphcell_ir.errors import ShapeError
from graphcell_ir.ops import REGISTRY

ULP = 8
FLOATS = ("float32", "float64")
SPECIALS = (np.nan, np.inf, -np.inf)
EPS64 = np.finfo(np.float64).eps


def _values(dtype: str, magnitude: float, specials: bool):
    magnitude = float(np.dtype(dtype).type(magnitude))   # hypothesis wants it exact
    finite = st.floats(-magnitude, magnitude, width=32 if dtype == "float32" else 64)
    return st.one_of(finite, st.sampled_from(SPECIALS)) if specials else finite


@st.composite
def logits(draw, dtype):
    """(rows..., K) logits of at most a few hundred values: small, huge, and NaN/Inf ones."""
    lead = draw(st.lists(st.integers(1, 5), min_size=0, max_size=2))
    k = draw(st.integers(1, 40))
    top = 3e38 if dtype == "float32" else 1e300
    magnitude = draw(st.sampled_from([5.0, 1e3, top]))
    x = draw(hnp.arrays(dtype, tuple(lead) + (k,),
                        elements=_values(dtype, magnitude, draw(st.booleans()))))
    return x


def quiet_ref(op, *args, **attrs):
    """The reference without numpy's warnings (its reductions on NaN warn from numpy's modules,
    which the ini's filter does not cover; the kernels must not warn at all)."""
    with np.errstate(all="ignore"):
        return op.ref(*args, **attrs)


def _both(op):
    """The kernel compiled and its loops run as Python."""
    return [("compiled", kernel(op, jit=True)), ("as Python", kernel(op, jit=False))]


def assert_close(got, want, tol, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all(), f"{what}: NaN positions differ"
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf], err_msg=what)
    tol = np.broadcast_to(np.nan_to_num(np.asarray(tol, np.float64), nan=0.0), want.shape)
    fin = ~nan & ~inf
    err = np.abs(got[fin].astype(np.float64) - want[fin])
    # + a few subnormal units: a subnormal result of K rounded subnormal products (a loss)
    bad = err > tol[fin] + np.finfo(want.dtype).smallest_subnormal * (ULP + 64)
    assert not bad.any(), \
        f"{what}: {got[fin][bad][:5]} != {want[fin][bad][:5]} (tol {tol[fin][bad][:5]})"


def _terms(x):
    """x - max (numpy's, in x's dtype) and log(sum(exp)) in float64, per row."""
    with np.errstate(all="ignore"):
        sh = x - np.max(x, axis=-1, keepdims=True)
        lse = np.log(np.sum(np.exp(sh.astype(np.float64)), axis=-1, keepdims=True))
        return np.abs(sh.astype(np.float64)), lse


# --- softmax family ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_softmax_and_log_softmax(dtype, data):
    x = data.draw(logits(dtype))
    eps, k = np.finfo(dtype).eps, x.shape[-1]
    sh, lse = _terms(x)
    for name, attrs, tol in (("softmax", {"axis": (-1,)}, None),
                             ("log_softmax", {"axis": -1}, eps * (ULP * (sh + lse + 1) + k))):
        op = REGISTRY[name]
        want = quiet_ref(op, x, **attrs)
        if tol is None:
            tol = (ULP + k) * np.spacing(np.abs(want)).astype(np.float64)
        for how, fn in _both(op):
            assert_close(fn(x, **attrs), want, tol, f"{name} {how}")


@pytest.mark.parametrize("dtype", FLOATS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_cross_entropy(dtype, data):
    x = data.draw(logits(dtype))
    labels = data.draw(hnp.arrays(dtype, x.shape, elements=st.floats(0, 1, width=32)))
    eps, k = np.finfo(dtype).eps, x.shape[-1]
    sh, lse = _terms(x)
    with np.errstate(all="ignore"):
        p = np.exp(-sh - lse)
        lab = np.abs(labels.astype(np.float64))
        loss_tol = (ULP + k) * eps * np.sum(lab * (sh + lse + 1), axis=-1)
        op = REGISTRY["softmax_cross_entropy"]
        loss, back = op.ref(x, labels)
        back_tol = eps * (np.nan_to_num(p * (ULP * (sh + lse + 1) + k))
                          + ULP * (lab + np.abs(back)))
    for how, fn in _both(op):
        got = fn(x, labels)
        assert isinstance(got, tuple) and len(got) == 2
        assert_close(got[0], loss, loss_tol, f"loss {how}")
        assert_close(got[1], back, back_tol, f"softmax - labels {how}")


@pytest.mark.parametrize("dtype", FLOATS)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), ldtype=st.sampled_from(["int32", "int64"]))
def test_sparse_cross_entropy(dtype, data, ldtype):
    x = data.draw(logits(dtype))
    labels = data.draw(hnp.arrays(ldtype, x.shape[:-1], elements=st.integers(0, x.shape[-1] - 1)))
    sh, lse = _terms(x)
    picked = np.take_along_axis(sh, labels[..., None].astype(np.intp), axis=-1)
    tol = np.finfo(dtype).eps * (ULP * (picked + lse + 1) + x.shape[-1])[..., 0]
    op = REGISTRY["sparse_softmax_cross_entropy"]
    want = quiet_ref(op, x, labels)
    for how, fn in _both(op):
        assert_close(fn(x, labels), want, tol, f"sparse loss {how}")


@pytest.mark.parametrize("dtype", FLOATS)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_one_loop_gives_the_sparse_loss_and_the_softmax_with_the_same_bits(dtype, data):
    """``sparse_softmax_cross_entropy_rows`` with labels and probabilities, with either one
    empty (the native step calls it both ways): the loss of the labels-only call and the
    probabilities of ``softmax_rows``, bit for bit, compiled and run as Python."""
    from graphcell_ir.backend import loops
    x = data.draw(logits(dtype))
    x = x.reshape(-1, x.shape[-1])
    r, k = x.shape
    labels = data.draw(hnp.arrays("int32", (r,), elements=st.integers(0, k - 1)))
    for L in (loops.namespace(jit=True), loops.namespace(jit=False)):
        want_loss, want_probs = np.empty(r, dtype), np.empty((r, k), dtype)
        with np.errstate(all="ignore"):
            L.sparse_softmax_cross_entropy_rows(x, labels, want_loss, np.empty((0, k), dtype))
            L.softmax_rows(x, want_probs)
            loss, probs = np.empty(r, dtype), np.empty((r, k), dtype)
            L.sparse_softmax_cross_entropy_rows(x, labels, loss, probs)
            only_probs = np.empty((r, k), dtype)
            L.sparse_softmax_cross_entropy_rows(x, labels[:0], loss[:0], only_probs)
        for got, want in ((loss, want_loss), (probs, want_probs), (only_probs, want_probs)):
            np.testing.assert_array_equal(got.view(f"u{got.itemsize}"),
                                          want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("label", [-1, 4, 2**40])
def test_out_of_range_labels_raise_as_the_reference(label):
    op = REGISTRY["sparse_softmax_cross_entropy"]
    x = np.zeros((3, 4), np.float32)
    labels = np.array([0, label, 1], np.int64 if abs(label) > 2**31 else np.int32)
    with pytest.raises(ShapeError) as want:
        op.ref(x, labels)
    for _, fn in _both(op):
        with pytest.raises(ShapeError) as got:
            fn(x, labels)
        assert str(got.value) == str(want.value)


def test_rows_of_the_w1_and_w2_logits():
    """The shapes the benchmarks run (128 and 32 rows of 10 classes), on the kernel path."""
    rng = np.random.default_rng(0)
    for rows in (128, 32):
        x = rng.standard_normal((rows, 10)).astype(np.float32) * 4
        labels = rng.integers(0, 10, rows).astype(np.int32)
        op = REGISTRY["sparse_softmax_cross_entropy"]
        sh, lse = _terms(x)
        picked = np.take_along_axis(sh, labels[:, None], -1)
        tol = ULP * np.finfo(np.float32).eps * (picked + lse + 1)
        assert_close(kernel(op)(x, labels), op.ref(x, labels), tol[:, 0], "W1/W2 loss")


class _Recorder:
    """Loops that say which ran (and run them as Python)."""

    def __init__(self):
        self.ran = []

    def __getattr__(self, name):
        from graphcell_ir.backend import nn_loops

        def run(*args):
            self.ran.append(name)
            return getattr(nn_loops, name)(*args)
        return run


@pytest.mark.parametrize("shape,loops", [
    ((4096, 10), True), ((3, 16), True), ((2, 3, 16), True),    # short rows: any size
    ((32, 64), True), ((1, 2048), False), ((64, 33), False),    # longer ones: small inputs only
    ((0, 5), False), ((3, 0), False)])                           # empty: the reference
def test_which_inputs_take_the_loops(shape, loops):
    # float32 softmax rows the loops leave take softmax_rows_f32 (its polynomial exp)
    x = np.linspace(-2, 2, int(np.prod(shape))).reshape(shape).astype(np.float32)
    fast = not loops and 0 not in shape
    for name, attrs, ran in (("softmax", {"axis": (-1,)},
                              ["softmax_rows_f32"] if fast else ["softmax_rows"] if loops else []),
                             ("log_softmax", {"axis": -1}, ["log_softmax_rows"] if loops else [])):
        op = REGISTRY[name]
        rec = _Recorder()
        with np.errstate(all="ignore"):
            try:
                want = op.ref(x, **attrs)
            except ValueError:   # numpy's max of an empty row: the kernel raises it too
                with pytest.raises(ValueError):
                    KERNELS[op](rec, x, **attrs)
                continue
        got = KERNELS[op](rec, x, **attrs)
        assert sorted(set(rec.ran)) == ran, (name, shape)
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-6)


def _exact_softmax(x):
    """float32 ``x``'s softmax in float64 from numpy's float32 ``x - max`` (what both round)."""
    with np.errstate(all="ignore"):
        e = np.exp((x - np.max(x, axis=-1, keepdims=True)).astype(np.float64))
        return e / np.sum(e, axis=-1, keepdims=True)


@pytest.mark.parametrize("how", ["compiled", "as Python"])
@pytest.mark.parametrize("shape,scale", [((8, 4, 64, 64), 5.0), ((256, 1000), 30.0),
                                         ((70, 33), 1.0), ((3, 2049), 100.0)])
def test_float32_rows_take_a_polynomial_exp_within_two_roundings(how, shape, scale):
    """``softmax_rows_f32`` (float32 rows the other loops leave): within 2 float32 ulps of the
    float64 softmax (numpy's reference, float32 sums: 5-6 at these shapes), probabilities
    under float32's smallest denormal 0, exp(0) 1."""
    x = (np.random.default_rng(7).standard_normal(shape) * scale).astype(np.float32)
    assert K.fast_exp_rows(x.shape, x.dtype)
    got = kernel(REGISTRY["softmax"], jit=how == "compiled")(x, axis=(-1,))
    exact = _exact_softmax(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    err = np.abs(got - exact) / np.spacing(np.maximum(exact, 1e-45).astype(np.float32))
    assert err.max() <= 2.0, err.max()


def test_float32_rows_with_infinities_and_nan_are_the_references():
    """-inf logits have probability 0, a row with NaN (first, inside, in the tail after the
    8-wide parts, all of it) or +inf is NaN, a row of -inf NaN."""
    row = np.linspace(-3, 3, 43, dtype=np.float32)
    x = np.stack([row] * 64)
    x[1, 3] = -np.inf
    x[2, 5] = np.nan
    x[3, 7] = np.inf
    x[4, :] = -np.inf
    x[5, 9] = -200.0   # exp below float32's smallest denormal: 0
    x[6, 0] = np.nan
    x[7, 42] = np.nan
    x[8, :] = np.nan
    assert K.fast_exp_rows(x.shape, x.dtype)
    for how, fn in _both(REGISTRY["softmax"]):
        got = fn(x, axis=(-1,))
        want = quiet_ref(REGISTRY["softmax"], x, axis=(-1,))
        assert_close(got, want, 4 * np.spacing(np.abs(want)).astype(np.float64), how)
        assert got[1, 3] == 0 and got[5, 9] == 0 and np.isnan(got[2:5]).all()
        assert np.isnan(got[6:9]).all() and not np.isnan(got[9:]).any()


@pytest.mark.parametrize("name,x,attrs", [
    ("softmax", np.ones((3, 4), np.float16), {"axis": (-1,)}),                  # dtype
    ("softmax", np.arange(12.0).reshape(3, 4), {"axis": (0,)}),                 # another axis
    ("softmax", np.arange(12.0).reshape(3, 4), {"axis": (0, 1)}),               # two axes
    ("log_softmax", np.arange(12.0).reshape(3, 4), {"axis": 0}),
    ("log_softmax", np.linspace(-3, 3, 2 * 100).reshape(2, 100), {"axis": -1}),   # long rows
    ("softmax", np.linspace(-3, 3, 40 * 100).reshape(40, 100), {"axis": (-1,)}),
])
def test_other_cases_take_the_reference(name, x, attrs):
    op = REGISTRY[name]
    np.testing.assert_array_equal(kernel(op)(x, **attrs), op.ref(x, **attrs))


def test_large_cross_entropy_takes_the_reference():
    x = np.linspace(-3, 3, 5000).reshape(5, 1000)
    labels = np.full(x.shape, 1e-3)
    op = REGISTRY["softmax_cross_entropy"]
    for got, want in zip(kernel(op)(x, labels), op.ref(x, labels)):
        np.testing.assert_array_equal(got, want)


# --- batch_norm ----------------------------------------------------------------------------------

@st.composite
def bn_inputs(draw, dtype):
    shape = draw(st.sampled_from([(2, 3), (5, 4), (2, 3, 5), (2, 2, 3, 3), (3, 2, 4, 5)]))
    c = shape[1]
    pdt = draw(st.sampled_from(FLOATS))   # the parameters' dtype may differ from x's
    magnitude = draw(st.sampled_from([3.0, 1e4, 1e15]))
    x = draw(hnp.arrays(dtype, shape, elements=_values(dtype, magnitude, draw(st.booleans()))))
    pos = st.floats(0.5, 2.0, width=32)
    gamma = draw(hnp.arrays(pdt, (c,), elements=pos))
    beta, mean = (draw(hnp.arrays(pdt, (c,), elements=st.floats(-3, 3, width=32)))
                  for _ in range(2))
    var = draw(hnp.arrays(pdt, (c,), elements=st.floats(-0.5, 2.0, width=32)))   # < 0: NaN
    attrs = {"is_training": draw(st.booleans()), "epsilon": draw(st.sampled_from([1e-5, 1e-3])),
             "momentum": draw(st.sampled_from([0.1, 0.9])), "data_format": "NCHW"}
    return (x, gamma, beta, mean, var), attrs


def _bn_bounds(x, gamma, beta, mean, var, is_training, epsilon, y):
    """The bounds of the module docstring for y and the moving statistics."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        if is_training:
            m = x.size // x.shape[1]
            mu = x64.mean(axis=axes, keepdims=True)
            v = ((x64 - mu) ** 2).mean(axis=axes, keepdims=True)
        else:
            m = 0
            mu, v = (p.astype(np.float64).reshape(shape) for p in (mean, var))
        sc = np.abs(gamma.astype(np.float64).reshape(shape) / np.sqrt(v + epsilon))
        terms = np.abs(x64 - mu) * sc + np.abs(beta.astype(np.float64)).reshape(shape)
        big = np.abs(x64).max(axis=axes, keepdims=True)
        tol_y = ULP * np.finfo(y.dtype).eps * terms + m * EPS64 * (sc * big + terms)
        # the batch mean's error, and what it does to the variance (a constant channel of
        # 5e14 has a variance of rounding noise, ~ulp(5e14)^2, in any summation order)
        dmu = (m * EPS64 * big).reshape(-1)
        dvar = 4 * (dmu * dmu + 2 * dmu * np.sqrt(v.reshape(-1)))
    stat_rtol = ULP * np.finfo(mean.dtype).eps + m * EPS64
    return tol_y, stat_rtol, (dmu, dvar)


@pytest.mark.parametrize("dtype", FLOATS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_batch_norm(dtype, data):
    args, attrs = data.draw(bn_inputs(dtype))
    op = REGISTRY["batch_norm"]
    want = quiet_ref(op, *args, **attrs)
    tol_y, rtol, atols = _bn_bounds(*args, attrs["is_training"], attrs["epsilon"], want[0])
    for how, fn in _both(op):
        got = fn(*args, **attrs)
        assert isinstance(got, tuple) and len(got) == 3
        if not attrs["is_training"]:   # the same operations in the same dtypes
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w, err_msg=how)
                assert g.dtype == w.dtype
            assert got[1] is args[3] and got[2] is args[4]   # as the reference: not copied
            continue
        assert_close(got[0], want[0], tol_y, f"y {how}")
        for g, w, atol in zip(got[1:], want[1:], atols):
            assert_close(g, w, rtol * np.abs(w) + atol, f"moving statistics {how}")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(32, 16, 10, 10), (128, 1024), (4, 3, 1, 1)])
def test_batch_norm_benchmark_shapes(dtype, shape):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 3 + 2).astype(dtype)
    c = shape[1]
    params = [rng.random(c).astype(dtype) + 0.5 for _ in range(4)]
    op = REGISTRY["batch_norm"]
    for training in (True, False):
        attrs = op.check_attrs({"is_training": training, "momentum": 0.1})
        want = op.ref(x, *params, **attrs)
        got = kernel(op)(x, *params, **attrs)
        tol_y, rtol, atols = _bn_bounds(x, *params, training, attrs["epsilon"], want[0])
        assert_close(got[0], want[0], tol_y, f"y {shape} training={training}")
        for g, w, atol in zip(got[1:], want[1:], atols):
            assert_close(g, w, rtol * np.abs(w) + atol, "moving statistics")


def test_batch_norm_fallbacks():
    op = REGISTRY["batch_norm"]
    attrs = op.check_attrs({"is_training": True})
    x = np.arange(12, dtype=np.float16).reshape(3, 4)
    p = [np.ones(4, np.float32)] * 4
    for g, w in zip(kernel(op)(x, *p, **attrs), op.ref(x, *p, **attrs)):   # float16 x
        np.testing.assert_array_equal(g, w)


def test_the_table_has_the_new_kernels():
    names = {op.name for op in KERNELS}
    assert names >= {"softmax", "log_softmax", "softmax_cross_entropy",
                     "sparse_softmax_cross_entropy", "batch_norm"}


# --- a training step, both modes, against the references ---------------------------------------

_STEP = r"""
import json, sys
import numpy as np
import graphcell as ms
from graphcell import nn, Tensor
from graphcell_ir.backend import loops, nnkernels

called = {"pynative": set(), "graph": set()}
mode = "pynative"
L = loops.namespace()
if L is not nnkernels.nn_loops:   # count the loops that ran (JIT on)
    for name in ("softmax_cross_entropy_rows", "sparse_softmax_cross_entropy_rows",
                 "softmax_rows", "log_softmax_rows", "bn_channel_train", "bn_row_stats",
                 "bn_apply", "bn_apply_rows"):
        def counted(*args, _f=getattr(L, name), _n=name):
            called[mode].add(_n)
            return _f(*args)
        setattr(L, name, counted)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn2 = nn.BatchNorm2d(3)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(3 * 4 * 4, 10)
        self.bn1 = nn.BatchNorm1d(10)

    def construct(self, x):
        return self.bn1(self.fc(self.flat(self.bn2(x))))


rng = np.random.default_rng(0)
x = Tensor((rng.standard_normal((8, 3, 4, 4)) * 2 + 1).astype(np.float32))
sparse_y = Tensor(rng.integers(0, 10, 8).astype(np.int32))
dense_y = Tensor(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 8)])
out = {}
for mode in ("pynative", "graph"):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    for sparse, y in ((True, sparse_y), (False, dense_y)):
        ms.set_seed(3)
        net = Net().set_train(True)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=sparse, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                                   nn.Momentum(net.trainable_params(), 0.1, 0.9))
        losses = [float(step(x, y).asnumpy()) for _ in range(3)]
        state = {p.name: p.asnumpy().tolist() for p in net.get_parameters()}
        out[f"{mode} sparse={sparse}"] = {"losses": losses, "state": state}
print(json.dumps({"runs": out, "called": {k: sorted(v) for k, v in called.items()}}))
"""


def _step(script, **env) -> dict:
    env = dict(os.environ, **env)
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_training_step_matches_the_references(tmp_path):
    script = tmp_path / "step.py"   # a file: graph mode reads construct's source
    script.write_text(_STEP)
    kernels = _step(script, GRAPHCELL_NATIVE_STEP="0")   # the runner calls the kernels
    refs = _step(script, GRAPHCELL_DISABLE_JIT="1")
    assert refs["called"] == {"pynative": [], "graph": []}
    for mode, loops in kernels["called"].items():   # the kernels ran, in both modes
        assert {"softmax_cross_entropy_rows", "sparse_softmax_cross_entropy_rows",
                "bn_channel_train", "bn_row_stats", "bn_apply", "bn_apply_rows"} <= set(loops), mode
    assert kernels["runs"].keys() == refs["runs"].keys()
    for run, want in refs["runs"].items():
        got = kernels["runs"][run]
        np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5, err_msg=run)
        assert got["state"].keys() == want["state"].keys()
        for name, value in want["state"].items():
            np.testing.assert_allclose(got["state"][name], value, rtol=1e-4, atol=1e-6,
                                       err_msg=f"{run} {name}")

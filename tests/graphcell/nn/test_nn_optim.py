"""Optimizers: two steps against numpy references of MindSpore's formulas and MindSpore 2.10's
printed values; state names; groups and learning rates; bad gradients change nothing."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn

W0 = np.array([[1.0, -2.0], [0.5, 3.0]])
B0 = np.array([0.1, -0.2])
GRADS = [(np.array([[0.3, -0.1], [0.2, 0.4]]), np.array([0.5, -0.5])),
         (np.array([[-0.2, 0.6], [0.1, -0.3]]), np.array([0.25, 0.75]))]


def params():
    # "beta" in a name: MindSpore's default weight decay skips it
    return [Parameter(Tensor(W0.astype(np.float32)), name="w"),
            Parameter(Tensor(B0.astype(np.float32)), name="beta")]


def two_steps(make):
    ps = params()
    opt = make(ps)
    results = [opt(tuple(Tensor(g.astype(np.float32)) for g in grads)) for grads in GRADS]
    return opt, ps, results


def close(actual, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected, np.float64), rtol=tol,
                               atol=tol)


# --- numpy references of MindSpore's update rules (float64) ---------------------------------

def ref_momentum(p, grads, lr, u, wd=0.0, nesterov=False):
    acc = np.zeros_like(p)
    for g in grads:
        g = g + wd * p
        acc = u * acc + g
        p = p - lr * (g + u * acc if nesterov else acc)
    return p


def ref_sgd(p, grads, lr, u=0.0, d=0.0, wd=0.0, nesterov=False):
    acc = np.zeros_like(p)
    for t, g in enumerate(grads):
        g = g + wd * p
        if u == 0:
            p = p - lr * g
            continue
        acc = g if t == 0 else u * acc + (1 - d) * g
        p = p - lr * (g + u * acc if nesterov else acc)
    return p


def ref_adam(p, grads, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, nesterov=False):
    m, v = np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = g + wd * p
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        direction = b1 * m + (1 - b1) * g if nesterov else m
        p = p - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * direction / (np.sqrt(v) + eps)
    return p


GW, GB = [g[0] for g in GRADS], [g[1] for g in GRADS]


@pytest.mark.parametrize("make, ref_w, ref_b, mindspore_w", [
    (lambda ps: nn.Momentum(ps, 0.1, 0.9), ref_momentum(W0, GW, 0.1, 0.9),
     ref_momentum(B0, GB, 0.1, 0.9), [0.963, -2.041, 0.452, 2.954]),
    (lambda ps: nn.Momentum(ps, 0.1, 0.9, weight_decay=0.01),
     ref_momentum(W0, GW, 0.1, 0.9, wd=0.01), ref_momentum(B0, GB, 0.1, 0.9),
     [0.96013099, -2.03521204, 0.45057049, 2.94534302]),
    # MindSpore 2.10's CPU kernel ignores use_nesterov; graphcell follows the documented formula
    (lambda ps: nn.Momentum(ps, 0.1, 0.9, use_nesterov=True),
     ref_momentum(W0, GW, 0.1, 0.9, nesterov=True), ref_momentum(B0, GB, 0.1, 0.9, nesterov=True),
     None),
    (lambda ps: nn.SGD(ps), ref_sgd(W0, GW, 0.1), ref_sgd(B0, GB, 0.1), [0.99, -2.05, 0.47, 2.99]),
    (lambda ps: nn.SGD(ps, 0.1, 0.0, dampening=0.5), ref_sgd(W0, GW, 0.1), ref_sgd(B0, GB, 0.1),
     [0.99, -2.05, 0.47, 2.99]),
    (lambda ps: nn.SGD(ps, 0.1, 0.9, dampening=0.3), ref_sgd(W0, GW, 0.1, 0.9, 0.3),
     ref_sgd(B0, GB, 0.1, 0.9, 0.3), [0.957, -2.023, 0.455, 2.945]),
    (lambda ps: nn.SGD(ps, 0.1, 0.9, dampening=0.5, weight_decay=0.1),
     ref_sgd(W0, GW, 0.1, 0.9, 0.5, wd=0.1), ref_sgd(B0, GB, 0.1, 0.9, 0.5),
     [0.9292, -1.96315, 0.44512498, 2.8673501]),
    (lambda ps: nn.SGD(ps, 0.1, 0.9, nesterov=True, weight_decay=0.05),
     ref_sgd(W0, GW, 0.1, 0.9, wd=0.05, nesterov=True), ref_sgd(B0, GB, 0.1, 0.9, nesterov=True),
     [0.93428177, -2.04116106, 0.41568112, 2.88044262]),
    (lambda ps: nn.Adam(ps), ref_adam(W0, GW), ref_adam(B0, GB),
     [0.99885547, -1.99962389, 0.49806783, 2.99891067]),
    (lambda ps: nn.Adam(ps, 0.01, weight_decay=0.1), ref_adam(W0, GW, 0.01, wd=0.1),
     ref_adam(B0, GB, 0.01), [0.98532617, -1.99194682, 0.48043382, 2.98330998]),
    (lambda ps: nn.Adam(ps, 0.01, 0.8, 0.9, 1e-3), ref_adam(W0, GW, 0.01, 0.8, 0.9, 1e-3),
     ref_adam(B0, GB, 0.01, 0.8, 0.9, 1e-3), [0.98923165, -1.99682784, 0.48100734, 2.98976398]),
    (lambda ps: nn.Adam(ps, 0.1, use_nesterov=True), ref_adam(W0, GW, 0.1, nesterov=True),
     ref_adam(B0, GB, 0.1, nesterov=True), None),
], ids=["momentum", "momentum-wd", "momentum-nesterov", "sgd", "sgd-dampening-no-momentum",
        "sgd-momentum", "sgd-wd", "sgd-nesterov", "adam", "adam-wd", "adam-betas", "adam-nesterov"])
def test_two_steps_match_reference_and_mindspore(make, ref_w, ref_b, mindspore_w):
    opt, (w, b), results = two_steps(make)
    close(w.asnumpy(), ref_w, 1e-5)  # float32 arithmetic against a float64 reference
    close(b.asnumpy(), ref_b, 1e-5)
    if mindspore_w is not None:
        close(w.asnumpy().ravel(), mindspore_w)
    assert results == [(True, True)] * 2
    assert opt.global_step.asnumpy().tolist() == [2]


def test_adam_nesterov_matches_mindspore():
    w = Parameter(Tensor([1.0, -2.0]), name="w")
    opt = nn.Adam([w], 0.1, use_nesterov=True)
    for g in ([0.3, -0.1], [-0.2, 0.6]):
        opt((Tensor(g),))
    close(w.asnumpy(), [0.83828479, -1.93955493])
    close(opt.beta1_power.asnumpy(), 0.81)


def test_state_names_match_mindspore():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 2)
            self.fc = nn.Dense(2, 3)
    net = Net()
    names = lambda opt: [name for name, _ in opt.parameters_and_names()]  # noqa: E731
    assert names(nn.Momentum(net.trainable_params(), 0.1, 0.9)) == [
        "global_step", "learning_rate", "conv.weight", "fc.weight", "fc.bias", "momentum",
        "moments.conv.weight", "moments.fc.weight", "moments.fc.bias"]
    assert names(nn.SGD(net.trainable_params()))[5:] == [
        "momentum", "accum.conv.weight", "accum.fc.weight", "accum.fc.bias", "stat.conv.weight",
        "stat.fc.weight", "stat.fc.bias"]
    adam = nn.Adam(net.trainable_params())
    assert names(adam)[5:9] == ["beta1_power", "beta2_power", "moment1.conv.weight",
                                "moment1.fc.weight"]
    assert [p.name for p in adam.parameters] == ["conv.weight", "fc.weight", "fc.bias"]
    assert repr(adam) == "Adam()"
    close(adam.moment2[0].asnumpy(), np.zeros((2, 1, 2, 2)))
    assert adam.moment1[2].shape == (3,) and str(adam.moment1[2].dtype) == "Float32"


def test_parameter_groups_and_order_params():
    w, b = params()
    opt = nn.Momentum([{"params": [b]}, {"params": [w], "lr": 0.5, "weight_decay": 0.1},
                       {"order_params": [w, b]}], 0.1, 0.9)
    assert [p.name for p in opt.parameters] == ["w", "beta"]
    assert [lr.name for lr in opt.learning_rate] == ["learning_rate_group_1", "learning_rate"]
    assert opt.get_lr_parameter(b) is opt.learning_rate[1]
    for grads in GRADS:
        opt(tuple(Tensor(g.astype(np.float32)) for g in grads))
    close(w.asnumpy(), ref_momentum(W0, GW, 0.5, 0.9, wd=0.1))  # MindSpore: [0.68, -1.9225, ...]
    close(w.asnumpy().ravel()[:2], [0.68, -1.9225])
    close(b.asnumpy(), ref_momentum(B0, GB, 0.1, 0.9))


def test_dynamic_learning_rate_and_loss_scale():
    opt, (w, _), _ = two_steps(lambda ps: nn.Momentum(ps, Tensor(np.array([0.1, 0.2], np.float32)),
                                                        0.9))
    close(w.asnumpy().ravel(), [0.956, -2.092, 0.424, 2.948])  # MindSpore 2.10
    _, (w, b), _ = two_steps(lambda ps: nn.Momentum(ps, [0.1, 0.2, 0.3], 0.9, loss_scale=4.0))
    scaled = [g / 4 for g in GW]
    acc1 = scaled[0]
    close(w.asnumpy(), W0 - 0.1 * acc1 - 0.2 * (0.9 * acc1 + scaled[1]))
    _, (w, _), _ = two_steps(lambda ps: nn.Adam(ps, 0.01, loss_scale=4.0, weight_decay=0.1))
    close(w.asnumpy().ravel(), [0.9815405, -1.98186886, 0.48018697, 2.98051715])  # MindSpore


def test_float64_parameters_stay_float64():
    w = Parameter(Tensor(W0), name="w")
    opt = nn.Adam([w], 0.01)
    for g in GW:
        opt((Tensor(g),))
    assert str(w.dtype) == "Float64"
    close(w.asnumpy(), ref_adam(W0, GW, 0.01), 1e-6)


def test_bad_gradients_raise_and_change_nothing():
    w, b = params()
    opt = nn.Momentum([w, b], 0.1, 0.9)
    good = tuple(Tensor(g.astype(np.float32)) for g in GRADS[0])
    cases = [
        ((good[0],), ValueError, r"Momentum: expected 2 gradient\(s\), one per parameter "
                                 r"\('w', 'beta'\), got 1"),
        ((good[0], Tensor(np.ones(3, np.float32))), ValueError,
         r"Momentum: the gradient of parameter 'beta' has shape \[3\], but the parameter has "
         r"shape \[2\]"),
        ((good[0], Tensor(np.ones(2, np.int32))), TypeError,
         r"the gradient of parameter 'beta' must be a floating-point Tensor, got Int32 \[2\]"),
        (list(good)[:1] + [None], TypeError, "must be a floating-point Tensor, got NoneType"),
        (good[0], TypeError, "gradients must be a tuple of Tensors"),
    ]
    for grads, error, message in cases:
        with pytest.raises(error, match=message):
            opt(grads)
    close(w.asnumpy(), W0)
    close(b.asnumpy(), B0)
    close(opt.moments[0].asnumpy(), np.zeros((2, 2)))
    assert opt.global_step.asnumpy().tolist() == [0]


def test_constructor_errors():
    w, b = params()
    with pytest.raises(ValueError, match="Momentum: parameters must not be empty"):
        nn.Momentum([], 0.1, 0.9)
    with pytest.raises(TypeError, match="must be all Parameters or all parameter-group dicts"):
        nn.SGD([w, Tensor([1.0])])
    with pytest.raises(ValueError, match="parameter 'w' is given twice"):
        nn.SGD([w, w])
    with pytest.raises(ValueError, match="two different parameters are named 'w'"):
        nn.SGD([w, Parameter(Tensor([1.0]), name="w")])
    with pytest.raises(ValueError, match=r"'momentum' must be in \[0.0, inf\], got -1.0"):
        nn.Momentum([w], 0.1, -1.0)
    with pytest.raises(ValueError, match="nesterov=True needs momentum > 0 and dampening 0"):
        nn.SGD([w], nesterov=True)
    with pytest.raises(ValueError, match=r"'beta1' must be in \(0.0, 1.0\), got 1.0"):
        nn.Adam([w], beta1=1.0)
    with pytest.raises(KeyError, match=r"group 0 has unknown key\(s\) \['momentum'\]"):
        nn.SGD([{"params": [w], "momentum": 0.9}])
    with pytest.raises(ValueError, match="'order_params' must list exactly the grouped"):
        nn.SGD([{"params": [w, b]}, {"order_params": [w]}])
    with pytest.raises(TypeError, match="'learning_rate' must be a float, a Tensor, a list or a "
                                        "LearningRateSchedule"):
        nn.SGD([w], learning_rate="fast")


def test_user_defined_optimizer_on_the_base_class():
    class PlainSGD(nn.Optimizer):
        def construct(self, gradients):
            gradients = self.prepare_gradients(gradients)
            lr = self.get_lr()
            return self.commit([(p, p - lr * g) for p, g in zip(self.parameters, gradients)])

    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    assert PlainSGD(0.5, [w])((ms.Tensor([2.0, 2.0]),)) == (True,)
    close(w.asnumpy(), [0.0, 1.0])


# --- what MindSpore 2.10's CPU build cannot run: checked against the documented formulas -------

def _run(opt, params, grads, mode):
    """Apply ``opt`` to each step's gradients, in PyNative or compiled; the parameters' values."""
    class Apply(nn.Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.opt = opt

        def construct(self, g):
            return self.opt(g)
    step = Apply() if mode == "graph" else opt
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        for g in grads:
            step(tuple(Tensor(x.astype(np.float32)) for x in g))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return [p.asnumpy().astype(np.float64) for p in params]


def _conv_params():
    rng = np.random.default_rng(5)
    values = [rng.uniform(-1, 1, (2, 16, 1, 1)), rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, 2)]
    names = ["conv.weight", "fc.weight", "fc.bias"]
    grads = [[rng.uniform(-1, 1, v.shape) for v in values] for _ in range(2)]
    return [Parameter(Tensor(v.astype(np.float32)), name=n) for n, v in zip(names, values)], \
        values, grads


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_gradient_centralization_matches_its_formula(mode):
    # MindSpore's rule: rank > 1 and a second axis that is a multiple of 16 (conv kernels)
    ps, values, grads = _conv_params()
    opt = nn.Momentum([{"params": ps, "grad_centralization": True}], 0.1, 0.9)
    got = _run(opt, ps, grads, mode)
    centred = [[g[0] - g[0].mean(axis=(1, 2, 3), keepdims=True), g[1], g[2]] for g in grads]
    for i, p in enumerate(values):
        close(got[i], ref_momentum(p, [g[i] for g in centred], 0.1, 0.9), 1e-5)
    assert opt.grad_centralization_flags == (True, True, True)


def ref_lamb(p, grads, lr, b1=0.9, b2=0.999, eps=1e-6, wd=0.0):
    m, v = np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        r = m / (1 - b1 ** t) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wd * p
        w_norm, r_norm = np.linalg.norm(p), np.linalg.norm(r)
        trust = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
        p = p - lr * trust * r
    return p


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_lamb_matches_the_documented_formula(mode):
    w, b = params()   # "beta": no weight decay
    got = _run(nn.Lamb([w, b], 0.1, weight_decay=0.01), [w, b], GRADS, mode)
    close(got[0], ref_lamb(W0, GW, 0.1, wd=0.01), 1e-5)
    close(got[1], ref_lamb(B0, GB, 0.1), 1e-5)


def ref_lars_momentum(p, grads, lr, u, coefficient=0.001, eps=1e-5, wd=0.0):
    acc = np.zeros_like(p)
    for g in grads:
        w_norm, g_norm = np.linalg.norm(p), np.linalg.norm(g)
        ratio = coefficient * w_norm / (g_norm + wd * w_norm + eps)
        g = ratio * (g + wd * p)
        acc = u * acc + g
        p = p - lr * acc
    return p


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_lars_matches_the_documented_formula(mode):
    w, b = Parameter(Tensor(W0.astype(np.float32)), name="w"), \
        Parameter(Tensor(B0.astype(np.float32)), name="fc.bias")
    inner = nn.Momentum([w, b], 0.1, 0.9, weight_decay=0.01, loss_scale=2.0)
    opt = nn.LARS(inner, coefficient=0.5)
    scaled = [(gw * 2, gb * 2) for gw, gb in GRADS]   # the loss scale LARS undoes
    got = _run(opt, [w, b], scaled, mode)
    close(got[0], ref_lars_momentum(W0, GW, 0.1, 0.9, 0.5, wd=0.01), 1e-5)
    close(got[1], ref_momentum(B0, GB, 0.1, 0.9), 1e-5)    # 'bias': LARS leaves it alone
    assert inner.global_step.asnumpy().tolist() == [2] and opt.global_step is inner.global_step


def test_learning_rate_objects_and_get_lr_parameter():
    w, b = params()
    schedule = nn.WarmUpLR(0.1, 4)
    opt = nn.SGD([w, b], schedule)
    assert opt.learning_rate is schedule and opt.dynamic_lr
    assert opt.get_lr_parameter(w) is schedule
    listed = nn.SGD([w, b], [0.1, 0.2])
    lr_param = listed.get_lr_parameter(w)
    assert isinstance(lr_param, Parameter) and lr_param.name == "learning_rate"
    close(lr_param.asnumpy(), [0.1, 0.2])
    grouped = nn.SGD([{"params": [w], "lr": [0.3, 0.2]}, {"params": [b]}], [0.1, 0.05])
    assert [p.name for p in grouped.get_lr_parameter([w, b])] == ["learning_rate_group_0",
                                                                  "learning_rate"]
    close(grouped.get_lr()[0].asnumpy(), 0.3)
    close(grouped.get_lr()[1].asnumpy(), 0.1)
    with pytest.raises(ValueError, match="parameter 'x' is not updated by this optimizer"):
        opt.get_lr_parameter(Parameter(Tensor([1.0]), name="x"))


def test_a_dynamic_rate_that_runs_out_keeps_its_last_value():
    # MindSpore 2.10 fails with a Gather index error there
    w = Parameter(Tensor([1.0]), name="w")
    opt = nn.SGD([w], [0.1, 0.2])
    for _ in range(4):
        opt((Tensor([1.0]),))
    close(w.asnumpy(), [1.0 - 0.1 - 0.2 - 0.2 - 0.2])


def test_optimizer_refusals():
    w, b = params()
    with pytest.raises(ValueError, match="FTRL: dynamic and group learning rates are not"):
        nn.FTRL([w], learning_rate=nn.WarmUpLR(0.1, 2))
    with pytest.raises(TypeError, match="SGD: dynamic weight decay"):
        nn.SGD([w], weight_decay=nn.WarmUpLR(0.1, 2))
    with pytest.raises(TypeError, match="'grad_centralization' must be a bool"):
        nn.Momentum([{"params": [w], "grad_centralization": 1}], 0.1, 0.9)
    with pytest.raises(ValueError, match=r"must have one length, got \[2, 3\]"):
        nn.Momentum([{"params": [w], "lr": [0.1, 0.2]}, {"params": [b]}], [0.1, 0.2, 0.3], 0.9)
    with pytest.raises(TypeError, match="'momentum' must be a float, got int 1"):
        nn.Momentum([w], 0.1, 1)
    with pytest.raises(TypeError, match="LARS: 'optimizer' must be an nn.Optimizer"):
        nn.LARS(nn.Dense(2, 2))
    with pytest.raises(KeyError, match="unknown keyword argument"):
        nn.Adam([w], use_fast=True)
    with pytest.raises(ValueError, match="'use_lazy' and 'use_offload' cannot both be True"):
        nn.Adam([w], use_lazy=True, use_offload=True)
    with pytest.raises(ValueError, match="'loss_scale' must be positive"):
        nn.Adam([w], loss_scale=0.0)

"""Loss scaling and mixed precision: the update cells, scalers and managers against MindSpore
2.10's sequences; TrainOneStepWithLossScaleCell (which MindSpore 2.10's CPU build cannot run)
against TrainOneStepCell and the overflow rules, in both modes; build_train_network's networks;
to_float; float16 compute of the common layer functions, with gradients, in both modes."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, amp, nn, ops

# overflow per step, and MindSpore 2.10's scales after each (init 16, factor 2, window 2)
OVERFLOWS = [False, False, True, False, False, False, True, True, False, False]
SCALES = [16.0, 32.0, 16.0, 16.0, 32.0, 32.0, 16.0, 8.0, 8.0, 16.0]
SCALER_COUNTERS = [1, 0, 0, 1, 0, 1, 0, 0, 1, 0]


@pytest.fixture
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


BOTH = pytest.mark.parametrize("mode", ["pynative", "graph"], indirect=True)


class _Update(nn.Cell):
    def __init__(self, update, scale):
        super().__init__()
        self.update, self.scale = update, scale

    def construct(self, overflow):
        return self.update(self.scale, overflow)


@BOTH
def test_dynamic_update_cell_follows_mindspore(mode):
    update = nn.DynamicLossScaleUpdateCell(16.0, 2, 2)
    scale = Parameter(Tensor(np.float32(16.0)), name="scale")
    step = _Update(update, scale)
    got = []
    for overflow in OVERFLOWS:
        assert bool(step(Tensor(overflow)).asnumpy()) == overflow
        got.append(float(scale.asnumpy()))
    assert got == SCALES
    assert int(update.cur_iter.asnumpy()) == 11 and int(update.last_overflow_iter.asnumpy()) == 10


def test_fixed_update_cell_and_managers_follow_mindspore():
    update = nn.FixedLossScaleUpdateCell(64.0)
    scale = Parameter(Tensor(np.float32(64.0)), name="scale")
    assert bool(update(scale, Tensor(True)).asnumpy()) and float(scale.asnumpy()) == 64.0
    manager = amp.DynamicLossScaleManager(16, 2, 2)
    got = []
    for overflow in OVERFLOWS:
        manager.update_loss_scale(overflow)
        got.append(manager.get_loss_scale())
    assert got == SCALES
    update = manager.get_update_cell()
    assert isinstance(update, nn.DynamicLossScaleUpdateCell) and update.get_loss_scale() == 16.0
    fixed = amp.FixedLossScaleManager(128.0)
    assert isinstance(fixed.get_update_cell(), nn.FixedLossScaleUpdateCell)
    assert amp.FixedLossScaleManager(128.0, drop_overflow_update=False).get_update_cell() is None
    assert ms.FixedLossScaleManager is amp.FixedLossScaleManager
    with pytest.raises(ValueError, match="'loss_scale' must be >= 1"):
        amp.FixedLossScaleManager(0.5)
    with pytest.raises(ValueError, match="'scale_window' must be a positive int"):
        amp.DynamicLossScaleManager(scale_window=0)


@BOTH
def test_dynamic_loss_scaler_follows_mindspore(mode):
    scaler = amp.DynamicLossScaler(16.0, 2, 2)

    def adjust(finite):
        return scaler.adjust(finite)
    step = ms.jit(adjust) if mode == "graph" else adjust
    got = []
    for overflow in OVERFLOWS:
        step(Tensor(not overflow))
        got.append((float(scaler.scale_value.asnumpy()), int(scaler.counter.asnumpy())))
    assert got == list(zip(SCALES, SCALER_COUNTERS))


def test_static_scaler_and_all_finite():
    scaler = amp.StaticLossScaler(8)
    scaled = scaler.scale((Tensor([1.0]), Tensor([2.0])))
    assert [float(t.asnumpy()[0]) for t in scaled] == [8.0, 16.0]
    assert float(scaler.unscale(Tensor([8.0])).asnumpy()[0]) == 1.0
    assert scaler.adjust(Tensor(True)) is False
    assert not bool(amp.all_finite((Tensor([1.0]), Tensor([np.inf]))).asnumpy())
    assert bool(amp.all_finite((Tensor([1.0]), Tensor(np.ones((2, 2), np.float16)))).asnumpy())
    assert not bool(amp.all_finite([Tensor([np.nan])]).asnumpy())
    with pytest.raises(ValueError, match="'scale_value' must be >= 1"):
        amp.StaticLossScaler(0.5)
    with pytest.raises(ValueError, match="'scale_window' must be a positive int"):
        amp.DynamicLossScaler(16, 2, 0)


# --- TrainOneStepWithLossScaleCell ---------------------------------------------------------------

def _net():
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    return net, nn.WithLossCell(net, nn.MSELoss())


X = Tensor(np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], np.float32))
Y = Tensor(np.array([[0.0, 1.0], [1.0, 0.0]], np.float32))


@BOTH
def test_loss_scaled_step_equals_the_plain_step(mode):
    net, loss = _net()
    step = nn.TrainOneStepWithLossScaleCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9),
                                            scale_sense=Tensor(np.float32(1024.0)))
    ref_net, ref_loss = _net()
    ref = nn.TrainOneStepCell(ref_loss, nn.Momentum(ref_net.trainable_params(), 0.1, 0.9))
    for _ in range(2):
        out, cond, scale = step(X, Y)
        np.testing.assert_allclose(out.asnumpy(), ref(X, Y).asnumpy(), rtol=1e-6)
        assert not bool(cond.asnumpy()) and float(scale.asnumpy()) == 1024.0
    for p, q in zip(net.trainable_params(), ref_net.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-6)


@BOTH
def test_an_overflowing_step_is_skipped_and_the_scale_shrinks(mode):
    net, loss = _net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepWithLossScaleCell(loss, opt, nn.DynamicLossScaleUpdateCell(2.0 ** 10, 2,
                                                                                    1000))
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    bad = Tensor(np.array([[np.inf, 1.0, 1.0], [1.0, 1.0, 1.0]], np.float32))
    _, cond, scale = step(bad, Y)
    assert bool(cond.asnumpy()) and float(scale.asnumpy()) == 1024.0   # the scale it used
    assert float(step.scale_sense.asnumpy()) == 512.0
    for p, b in zip(net.trainable_params(), before):
        np.testing.assert_array_equal(p.asnumpy(), b)
    assert opt.global_step.asnumpy().tolist() == [0]
    _, cond, _ = step(X, Y)       # a finite step updates again
    assert not bool(cond.asnumpy()) and opt.global_step.asnumpy().tolist() == [1]
    assert not np.array_equal(net.weight.asnumpy(), before[0])


def test_loss_scale_cell_arguments():
    net, loss = _net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    with pytest.raises(ValueError, match=r"'scale_sense' must have shape \(\) or \(1,\)"):
        nn.TrainOneStepWithLossScaleCell(loss, opt, Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="'scale_sense' must be an update Cell or a Tensor"):
        nn.TrainOneStepWithLossScaleCell(loss, opt, 1024.0)
    step = nn.TrainOneStepWithLossScaleCell(loss, opt, Tensor(np.array([8.0], np.float32)))
    step.set_sense_scale(Tensor(np.array([4.0], np.float32)))
    assert step.scale_sense.asnumpy().tolist() == [4.0]
    with pytest.raises(TypeError, match="'sens' must be a Tensor"):
        step.set_sense_scale(4.0)


@BOTH
def test_train_one_step_sens_scales_the_backward_pass(mode):
    net, loss = _net()
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), 0.1, loss_scale=4.0), sens=4.0)
    ref_net, ref_loss = _net()
    ref = nn.TrainOneStepCell(ref_loss, nn.SGD(ref_net.trainable_params(), 0.1))
    np.testing.assert_allclose(step(X, Y).asnumpy(), ref(X, Y).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(net.weight.asnumpy(), ref_net.weight.asnumpy(), rtol=1e-6)
    assert step.grad_reducer((X,))[0] is X


def test_distributed_grad_reducer_in_one_process():
    w = Parameter(Tensor([1.0]), name="w")
    g16 = Tensor(np.array([3.0], np.float16))
    out = nn.DistributedGradReducer([w, w])((Tensor([3.0]), g16))
    assert float(out[0].asnumpy()[0]) == 3.0 and str(out[1].dtype) == "Float16"
    mean = nn.DistributedGradReducer([w], mean=True, degree=2)((Tensor([3.0]),))
    assert float(mean[0].asnumpy()[0]) == 1.5
    with pytest.raises(ValueError, match="'degree' .*int"):
        nn.DistributedGradReducer([w], degree=0)


# --- mixed precision -----------------------------------------------------------------------------

class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.fc2 = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc2(self.bn(self.fc1(x)))


def test_auto_mixed_precision_levels_shape_the_network():
    net = amp.auto_mixed_precision(_Net(), "O2")
    inner = net._backbone
    assert type(net).__name__ == "_OutputTo32" and inner._mixed_precision is ms.float16
    assert type(inner.bn).__name__ == "_OutputTo16" and inner.bn._backbone._mixed_precision is \
        ms.float32
    assert [p.name for p in net.trainable_params()][:2] == ["fc1.weight", "fc1.bias"]
    o1 = amp.auto_mixed_precision(_Net(), "O1")
    assert type(o1.fc1).__name__ == "_OutputTo32" and o1._mixed_precision is None
    assert type(o1.bn).__name__ == "BatchNorm1d"
    x = Tensor(np.ones((4, 3), np.float32))
    assert str(net(x).dtype) == "Float32" and str(o1(x).dtype) == "Float32"
    assert amp.auto_mixed_precision(_Net(), "O0")._mixed_precision is None
    assert {nn.BatchNorm1d, nn.BatchNorm2d} <= set(amp.get_black_list())
    assert {nn.Conv2d, nn.Dense} <= set(amp.get_white_list())
    with pytest.raises(TypeError, match="the network must be a Cell, got a function"):
        amp.auto_mixed_precision(lambda x: x, "O2")
    with pytest.raises(ValueError, match="'amp_level' must be one of"):
        amp.auto_mixed_precision(_Net(), "O4")
    with pytest.raises(ValueError, match="dtype must be float16"):
        amp.auto_mixed_precision(_Net(), "O2", ms.float32)


def test_custom_mixed_precision():
    net = amp.custom_mixed_precision(_Net(), black_list=[nn.BatchNorm1d])
    assert type(net).__name__ == "_OutputTo32"
    net = amp.custom_mixed_precision(_Net(), white_list=[nn.Dense])
    assert type(net.fc2).__name__ == "_OutputTo32"
    with pytest.raises(ValueError, match="exactly one of"):
        amp.custom_mixed_precision(_Net())
    with pytest.raises(TypeError, match="must be a list of Cell classes"):
        amp.custom_mixed_precision(_Net(), white_list=["Dense"])


def test_build_train_network_chooses_the_training_cell():
    def build(level="O0", **kwargs):
        net = _Net()
        return amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.1, 0.9),
                                       nn.MSELoss(), level, **kwargs)
    o2 = build("O2")
    assert isinstance(o2, nn.TrainOneStepWithLossScaleCell)
    assert float(o2.scale_sense.asnumpy()) == 2.0 ** 24 and o2.training
    assert type(o2.network).__name__ == "_WithLossCell"
    fixed = build("O2", loss_scale_manager=amp.FixedLossScaleManager(128.0))
    assert isinstance(fixed.loss_scaling_manager, nn.FixedLossScaleUpdateCell)
    plain = build("O3", loss_scale_manager=amp.FixedLossScaleManager(
        128.0, drop_overflow_update=False))
    assert type(plain) is nn.TrainOneStepCell and plain.sens == 128.0
    assert type(build().network) is nn.WithLossCell
    assert build("O2", cast_model_type=ms.float32).network._backbone._mixed_precision is None
    with pytest.raises(ValueError, match="unknown options"):
        build(keep_bn=True)
    with pytest.raises(TypeError, match="'cast_model_type' must be float16 or float32"):
        build(cast_model_type=ms.int32)
    with pytest.raises(TypeError, match="'optimizer' must be an nn.Optimizer"):
        amp.build_train_network(_Net(), None)
    with pytest.warns(UserWarning, match="boost_level='O1' has no effect"):
        build(boost_level="O1")


def test_to_float():
    net = _Net()
    assert net.to_float(ms.float16) is net
    assert net.fc1._mixed_precision is ms.float16 and net.fp16 and not net.fp32
    net.bn.to_float(ms.float32)
    assert net.bn._mixed_precision is ms.float32 and net._mixed_precision is ms.float16
    with pytest.raises(ValueError, match="'dst_type' must be float16 or float32"):
        net.to_float(ms.int32)


@BOTH
def test_a_to_float_cell_casts_inputs_and_trainable_parameters(mode):
    net = _Net()
    net.to_float(ms.float16)
    net.bn.to_float(ms.float32)
    x = Tensor(np.random.default_rng(0).random((5, 3)).astype(np.float32))
    out = net(x)
    assert str(out.dtype) == "Float16"
    grads = ms.grad(lambda v: ops.cast(net(v), ms.float32).sum(), None,
                    net.trainable_params())(x)
    assert [str(g.dtype) for g in grads] == ["Float32"] * 6     # the master weights' dtype
    assert all(str(p.dtype) == "Float32" for p in net.get_parameters())
    fc1 = net.fc1(x)                      # Dense in float16: the inputs and weights cast
    w = net.fc1.weight.asnumpy().astype(np.float16)
    want = x.asnumpy().astype(np.float16) @ w.T + net.fc1.bias.asnumpy().astype(np.float16)
    assert str(fc1.dtype) == "Float16"
    np.testing.assert_allclose(fc1.asnumpy().astype(np.float32), want.astype(np.float32),
                               rtol=2e-3, atol=2e-3)


# float16 compute of the functions layers are made of, forward and gradient, in both modes
_H = np.random.default_rng(0)


def _h(*shape):
    return Tensor(_H.standard_normal(shape).astype(np.float16))


_W, _G6, _B6, _WM = _h(4, 3, 3, 3), _h(6), _h(6), _h(10, 6)
LABELS = Tensor(np.array([1, 2, 3, 4], np.int32))
FLOAT16_FUNCTIONS = [
    ("conv2d", lambda x: ops.conv2d(x, _W), (2, 3, 8, 8)),
    ("avg_pool2d", lambda x: ops.avg_pool2d(x, 2, 2), (2, 3, 8, 8)),
    ("max_pool2d", lambda x: ops.max_pool2d(x, 2, 2), (2, 3, 8, 8)),
    ("layer_norm", lambda x: ops.layer_norm(x, (6,), _G6, _B6), (4, 6)),
    ("batch_norm", lambda x: ops.batch_norm(x, ops.zeros(6, ms.float16), ops.ones(6, ms.float16),
                                            _G6, _B6, training=True), (4, 6)),
    ("softmax", lambda x: ops.softmax(x, -1), (4, 10)),
    ("log_softmax", lambda x: ops.log_softmax(x, -1), (4, 10)),
    ("gelu", ops.gelu, (4, 10)),
    ("matmul", lambda x: ops.matmul(x, _WM.T), (4, 6)),
    ("cross_entropy", lambda x: ops.cross_entropy(x, LABELS), (4, 10)),
    ("interpolate", lambda x: ops.interpolate(x, size=(8, 8), mode="bilinear"), (1, 2, 4, 4)),
    ("sigmoid_tanh", lambda x: ops.sigmoid(x) * ops.tanh(x), (4, 10)),
]


@BOTH
@pytest.mark.parametrize("name, fn, shape", FLOAT16_FUNCTIONS, ids=[f[0] for f in
                                                                     FLOAT16_FUNCTIONS])
def test_float16_compute(name, fn, shape, mode):
    x = _h(*shape)
    out = fn(x)
    grad = ms.grad(lambda v: ops.cast(fn(v), ms.float32).sum())(x)
    assert str(out.dtype) == "Float16" and str(grad.dtype) == "Float16"
    assert np.isfinite(grad.asnumpy()).all() and np.isfinite(out.asnumpy()).all()


# --- ClipByNorm with an axis (MindSpore 2.10's CPU kernel pairs slices with the wrong norms) ---

@BOTH
@pytest.mark.parametrize("axis", [1, 0, (0, 1)])
def test_clip_by_norm_along_an_axis(axis, mode):
    x = np.array([[3.0, 4.0, 0.0], [1.0, 0.0, 0.0]], np.float32)
    norms = np.sqrt((x * x).sum(axis=axis, keepdims=True))
    want = x * 2.0 / np.maximum(norms, 2.0)       # [[1.2, 1.6, 0], [1, 0, 0]] for axis 1
    clip = nn.ClipByNorm(axis)
    got = clip(Tensor(x), Tensor(np.float32(2.0)))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    with pytest.raises(TypeError, match="'axis' must be .*an int or a tuple of ints"):
        nn.ClipByNorm(axis=1.5)


@BOTH
def test_scaler_scale_and_unscale_inside_a_compiled_train_step(mode):
    # the shape of MindSpore's mixed-precision tutorial: scale the loss in the forward function,
    # unscale the gradients, adjust the scale, all in one compiled step
    scaler = amp.DynamicLossScaler(1024.0, 2, 2)
    w = Parameter(Tensor(np.array([1.0, -2.0], np.float32)), name="w")

    def forward(x):
        return scaler.scale((w * x).sum())

    grad_fn = ms.value_and_grad(forward, None, (w,))

    def step(x):
        loss, grads = grad_fn(x)
        grads = scaler.unscale(grads)
        scaler.adjust(amp.all_finite(grads))
        return scaler.unscale(loss), grads

    run = ms.jit(step) if mode == "graph" else step
    loss, (g,) = run(Tensor(np.array([3.0, 4.0], np.float32)))
    assert float(loss.asnumpy()) == -5.0
    np.testing.assert_array_equal(g.asnumpy(), [3.0, 4.0])
    assert int(scaler.counter.asnumpy()) == 1 and float(scaler.scale_value.asnumpy()) == 1024.0

"""``Model.train``/``eval``/``predict``/``fit`` in both modes: against MindSpore 2.10 from the same
weights and data (goldens recorded by ``tools/record_train_goldens.py``), against a hand-written
loop of the same ``TrainOneStepCell``, and their argument checks."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import amp
from graphcell import nn
from graphcell.train import Callback, LearningRateScheduler, Model
from tools.record_train_goldens import (GOLDENS, STORED_ROWS, arrays_sha1, build_network,
                                        lr_schedule, problem_arrays, problems, set_weights)
from train_datasets import ArrayDataset

GOLDEN = np.load(GOLDENS / "training.npz")
MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}


@pytest.fixture(params=sorted(MODES))
def mode(request):
    ms.set_context(mode=MODES[request.param])
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture(autouse=True)
def quiet_progress(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_PROGRESS", "0")


class StepLog(Callback):
    def __init__(self):
        self.losses, self.lrs = [], []

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        out = cb.net_outputs   # (loss, overflow, scale) for a loss-scaling step, as MindSpore's
        self.losses.append(float((out[0] if isinstance(out, tuple) else out).asnumpy()))
        self.lrs.append(float(cb.optimizer.learning_rate.asnumpy()))


def setup(name):
    p = problems()[name]
    weights, x, y = problem_arrays(p)
    assert arrays_sha1(weights, x, y) == str(GOLDEN[f"{name}/sha1"]), \
        "the regenerated inputs differ from what MindSpore trained on"
    net = build_network(ms, p.network)
    set_weights(ms, net, weights)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), p.lr, p.momentum)
    return p, net, Model(net, loss, opt, metrics={"acc", "loss"}), x, y


@pytest.mark.parametrize("name", sorted(problems()))
def test_training_matches_mindspore(name, mode):
    p, net, model, x, y = setup(name)
    log = StepLog()
    callbacks = [log]
    if p.halve_lr_every:
        callbacks.append(LearningRateScheduler(lr_schedule(p)))
    model.train(p.epochs, ArrayDataset({"x": x, "y": y}, p.batch), callbacks=callbacks)
    rtol = 1e-4 if p.network == "lenet" else 2e-5
    np.testing.assert_allclose(log.losses, GOLDEN[f"{name}/losses"], rtol=rtol)
    np.testing.assert_allclose(log.lrs, GOLDEN[f"{name}/lrs"], rtol=1e-7)
    for param in net.get_parameters():
        rows = STORED_ROWS.get(param.name) if p.network == "lenet" else None
        got = param.asnumpy()[:rows] if rows else param.asnumpy()
        np.testing.assert_allclose(got, GOLDEN[f"{name}/final/{param.name}"], rtol=rtol,
                                   atol=1e-5, err_msg=param.name)
    metrics = model.eval(ArrayDataset({"x": x, "y": y}, p.batch))
    assert sorted(metrics) == ["acc", "loss"]
    assert metrics["acc"] == float(GOLDEN[f"{name}/eval/acc"])
    np.testing.assert_allclose(metrics["loss"], GOLDEN[f"{name}/eval/loss"], rtol=rtol)
    out = model.predict(ms.Tensor(x[:p.batch]))
    np.testing.assert_allclose(out.asnumpy(), GOLDEN[f"{name}/predict"], rtol=rtol, atol=1e-5)


def test_model_trains_exactly_as_a_hand_written_loop_of_its_step(mode):
    p, net, model, x, y = setup("mlp")
    data = ArrayDataset({"x": x, "y": y}, p.batch)
    model.train(p.epochs, data)

    p, net2, _, _, _ = setup("mlp")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net2.trainable_params(), p.lr, p.momentum)
    step = nn.TrainOneStepCell(nn.WithLossCell(net2, loss), opt)
    step.set_train()
    for _ in range(p.epochs):
        for xb, yb in data.batches():
            step(ms.Tensor(xb), ms.Tensor(yb))
    for a, b in zip(net.get_parameters(), net2.get_parameters()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy(), err_msg=a.name)


def test_graph_mode_compiles_the_training_step_once():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        p, net, model, x, y = setup("lenet")
        model.fit(2, ArrayDataset({"x": x, "y": y}, p.batch),
                  ArrayDataset({"x": x, "y": y}, p.batch))
        steps = 2 * (p.samples // p.batch)
        train_info = ms.graph.cache_info(model.train_network)
        assert (train_info.misses, train_info.hits) == (1, steps - 1)
        assert isinstance(model.train_network, nn.TrainOneStepCell)
        eval_info = ms.graph.cache_info(model.eval_network)
        assert (eval_info.misses, eval_info.hits) == (1, steps - 1)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_pynative_mode_runs_op_by_op():
    p, net, model, x, y = setup("mlp")
    model.train(1, ArrayDataset({"x": x, "y": y}, p.batch))
    assert ms.graph.cache_info(model.train_network).misses == 0


def test_the_networks_model_builds():
    net = nn.Dense(3, 2)
    loss = nn.MSELoss()
    opt = nn.SGD(net.trainable_params())
    model = Model(net, loss, opt, metrics={"mae"})
    assert isinstance(model.train_network, nn.TrainOneStepCell)
    assert isinstance(model.train_network.network, nn.WithLossCell)
    assert isinstance(model.eval_network, nn.WithEvalCell)
    assert model.predict_network is net
    assert Model(net, loss).train_network.__class__ is nn.WithLossCell
    assert Model(net).train_network is net and Model(net).eval_network is None
    custom = nn.WithEvalCell(net, loss)
    assert Model(net, metrics={"acc"}, eval_network=custom).eval_network is custom


def test_without_loss_fn_the_network_computes_its_loss_from_all_columns(mode):
    p, net, _, x, y = setup("mlp")
    with_loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                      reduction="mean"))
    model = Model(with_loss, optimizer=nn.Momentum(net.trainable_params(), p.lr, p.momentum))
    log = StepLog()
    model.train(1, ArrayDataset({"x": x, "y": y}, p.batch), callbacks=[log])
    np.testing.assert_allclose(log.losses, GOLDEN["mlp/losses"][:3], rtol=2e-5)


def test_eval_with_a_custom_eval_network_and_indexes(mode):
    p, net, _, x, y = setup("mlp")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    class LabelsFirst(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = nn.WithEvalCell(net, loss)

        def construct(self, data, label):
            loss_value, logits, labels = self.inner(data, label)
            return labels, loss_value, logits

    model = Model(net, metrics={"acc", "loss"}, eval_network=LabelsFirst(), eval_indexes=[1, 2, 0])
    got = model.eval(ArrayDataset({"x": x, "y": y}, p.batch))
    want = Model(net, loss, metrics={"acc", "loss"}).eval(ArrayDataset({"x": x, "y": y}, p.batch))
    assert got == want


def test_predict_switches_to_inference_and_back(mode):
    net = nn.SequentialCell([nn.Dense(4, 8), nn.Dropout(p=0.5), nn.Dense(8, 2)])
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.SGD(net.trainable_params(), 0.0))
    x = ms.Tensor(np.ones((3, 4), np.float32))
    first = model.predict(x).asnumpy()
    assert not net.training
    np.testing.assert_array_equal(model.predict(x).asnumpy(), first)  # no dropout
    model.train(1, ArrayDataset({"x": np.ones((4, 4), np.float32),
                                 "y": np.zeros(4, np.int32)}, 2))
    assert net.training


def test_sink_mode_runs_as_normal_mode_with_sink_size_steps_per_epoch(mode):
    p, net, model, x, y = setup("mlp")
    seen = []

    class Steps(Callback):
        def on_train_step_end(self, run_context):
            cb = run_context.original_args()
            seen.append((cb.cur_epoch_num, cb.cur_step_num, cb.batch_num, cb.dataset_sink_mode,
                         int(cb.train_dataset_element[1].asnumpy()[0])))

    batch_index = np.repeat(np.arange(3, dtype=np.int32), 8)   # the label says the batch
    model.train(3, ArrayDataset({"x": x, "y": batch_index}, 8), callbacks=[Steps()],
                dataset_sink_mode=True, sink_size=2)
    assert [s[:4] for s in seen] == [(e, n, 2, False) for e, n in
                                     ((1, 1), (1, 2), (2, 3), (2, 4), (3, 5), (3, 6))]
    # 2 steps per epoch, the data continuing across epochs
    assert [s[4] for s in seen] == [0, 1, 2, 0, 1, 2]


def test_initial_epoch_numbers_the_epochs_from_there():
    p, net, model, x, y = setup("mlp")
    epochs = []

    class Epochs(Callback):
        def on_train_epoch_end(self, run_context):
            cb = run_context.original_args()
            epochs.append((cb.cur_epoch_num, cb.epoch_num, cb.cur_step_num))

    model.train(3, ArrayDataset({"x": x, "y": y}, p.batch), callbacks=Epochs(), initial_epoch=1)
    assert epochs == [(2, 2, 3), (3, 2, 6)]


def test_request_stop_ends_training_after_the_step():
    p, net, model, x, y = setup("mlp")

    class StopAt(Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 4:
                run_context.request_stop()

    log = StepLog()
    model.train(5, ArrayDataset({"x": x, "y": y}, p.batch), callbacks=[log, StopAt()])
    assert len(log.losses) == 4


def test_fit_evaluates_at_the_valid_frequency():
    p, net, model, x, y = setup("mlp")
    evaluated = []

    class Seen(Callback):
        def on_eval_end(self, run_context):
            evaluated.append(run_context.original_args().cur_epoch_num)

    data = ArrayDataset({"x": x, "y": y}, p.batch)
    model.fit(4, data, data, valid_frequency=2, callbacks=[Seen()])
    assert evaluated == [2, 4]
    evaluated.clear()
    model.fit(4, data, data, valid_frequency=[1, 3], callbacks=[Seen()])
    assert evaluated == [1, 3]


@pytest.mark.parametrize("level", ["O1", "O2", "O3", "auto"])
def test_amp_levels_train_in_mixed_precision(level):
    # float16 compute: the losses follow the float32 run (MindSpore's) within float16's precision
    p, net, _, x, y = setup("mlp")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    # O2 scales the loss dynamically; from 2**10, no float16 gradient overflows here
    scaling = {"loss_scale_manager": amp.DynamicLossScaleManager(2 ** 10)} if level == "O2" \
        else {}
    model = Model(net, loss, nn.Momentum(net.trainable_params(), p.lr, p.momentum),
                  metrics={"acc"}, amp_level=level, **scaling)
    kind = "TrainOneStepWithLossScaleCell" if level == "O2" else "TrainOneStepCell"
    assert type(model.train_network).__name__ == kind
    log = StepLog()
    model.train(p.epochs, ArrayDataset({"x": x, "y": y}, p.batch), callbacks=[log])
    np.testing.assert_allclose(log.losses, GOLDEN["mlp/losses"], rtol=2e-2, atol=2e-3)
    assert model.eval_network.add_cast_fp32 == (level != "O1")
    assert all(str(w.dtype) == "Float32" for w in net.trainable_params())


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf - inf
def test_amp_o2_skips_the_steps_whose_float16_gradients_overflow():
    # O2's default scale, 2**24, overflows float16 gradients: those steps change no weight, and
    # each halves the scale
    p, net, _, x, y = setup("mlp")
    before = [w.asnumpy().copy() for w in net.trainable_params()]
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Momentum(net.trainable_params(), p.lr, p.momentum),
                  amp_level="O2")
    step = model.train_network
    out = step(ms.Tensor(x[:p.batch]), ms.Tensor(y[:p.batch]))
    assert bool(out[1].asnumpy()) and float(out[2].asnumpy()) == 2.0 ** 24
    assert float(step.scale_sense.asnumpy()) == 2.0 ** 23
    for w, b in zip(net.trainable_params(), before):
        np.testing.assert_array_equal(w.asnumpy(), b)


def test_loss_scale_managers_make_the_training_network():
    p, net, _, x, y = setup("mlp")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), p.lr, p.momentum, loss_scale=128.0)
    fixed = amp.FixedLossScaleManager(128.0, drop_overflow_update=False)
    model = Model(net, loss, opt, loss_scale_manager=fixed)
    assert model.train_network.sens == 128.0
    log = StepLog()
    model.train(p.epochs, ArrayDataset({"x": x, "y": y}, p.batch), callbacks=[log])
    np.testing.assert_allclose(log.losses, GOLDEN["mlp/losses"], rtol=2e-5)
    # MindSpore 2.10's CPU build refuses an update cell; graphcell trains with it
    model = Model(net, loss, opt, loss_scale_manager=amp.DynamicLossScaleManager(2 ** 10))
    assert float(model.train_network.scale_sense.asnumpy()) == 1024.0
    with pytest.raises(TypeError, match="'loss_scale_manager' must be a LossScaleManager"):
        Model(net, loss, opt, loss_scale_manager=object())


@pytest.mark.parametrize("kwargs, error, match", [
    ({"network": "net"}, TypeError, "'network' must be a Cell, got str"),
    ({"loss_fn": "mse"}, TypeError, "'loss_fn' must be a Cell or None, got str"),
    ({"optimizer": nn.MSELoss()}, TypeError, "'optimizer' must be a Optimizer or None"),
    ({"amp_level": "O4"}, ValueError, "'amp_level' must be one of"),
    ({"boost_level": "O3"}, ValueError, "'boost_level' must be one of"),
    ({"optimizer": None, "amp_level": "O2"}, ValueError, "needs an optimizer"),
    ({"metrics": {"acc"}, "loss_fn": None}, ValueError, "'metrics' need an evaluation network"),
    ({"metrics": ["acc"]}, TypeError, "'metrics' must be None, a set of metric names or a dict"),
    ({"metrics": {"acc": 1}}, TypeError, "must map str names to Metric objects"),
    ({"metrics": {"acc"}, "eval_network": nn.Dense(2, 2), "eval_indexes": [0, 1]}, ValueError,
     "'eval_indexes' must be None or a list of three ints"),
    ({"frobnicate": 1}, ValueError, "unknown keyword arguments \\['frobnicate'\\]"),
])
def test_model_arguments_are_checked(kwargs, error, match):
    net = nn.Dense(2, 2)
    args = {"network": net, "loss_fn": nn.MSELoss(), "optimizer": nn.SGD(net.trainable_params())}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        Model(**args)


def test_graph_cell_networks_take_no_loss_or_optimizer(tmp_path):
    x = ms.Tensor(np.ones((1, 3), np.float32))
    cell = ms.load(ms.export(nn.Dense(3, 2), x, file_name=str(tmp_path / "d")))
    assert Model(cell).predict(x).shape == (1, 2)
    with pytest.raises(ValueError, match="with a GraphCell network"):
        Model(cell, nn.MSELoss())


def test_boost_level_is_accepted_with_a_warning():
    net = nn.Dense(2, 2)
    with pytest.warns(UserWarning, match="boost_level='O1' has no effect"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), boost_level="O1")


@pytest.mark.parametrize("call, error, match", [
    (lambda m, d: m.train(0, d), ValueError, "'epoch' must be positive"),
    (lambda m, d: m.train(2.0, d), TypeError, "'epoch' must be an int"),
    (lambda m, d: m.train(2, d, initial_epoch=2), ValueError, "'initial_epoch' must be in"),
    (lambda m, d: m.train(2, d, dataset_sink_mode=1), TypeError, "'dataset_sink_mode' must be"),
    (lambda m, d: m.train(2, d, sink_size=0), ValueError, "'sink_size' must be -1 or positive"),
    (lambda m, d: m.train(2, [1, 2]), TypeError, "must be a mindspore.dataset Dataset"),
    (lambda m, d: m.train(2, d, callbacks=[1]), TypeError, "Callback objects .* int at index 0"),
    (lambda m, d: m.train(2, d, callbacks="cb"), TypeError, "'callbacks' must be a Callback"),
    (lambda m, d: m.fit(2, d, d, valid_frequency=0), ValueError, "'valid_frequency' must be"),
    (lambda m, d: m.fit(2, d, d, valid_frequency=1.0), TypeError, "'valid_frequency' must be"),
    (lambda m, d: Model(m.predict_network, nn.MSELoss()).eval(d), ValueError,
     "metrics=\\.\\.\\.\\) is empty"),
    (lambda m, d: m.predict(ms.Tensor(np.zeros((0, 2), np.float32))), ValueError,
     "input 0 is an empty Tensor"),
    (lambda m, d: m.predict(np.ones((1, 2), np.float32)), TypeError, "is a numpy array"),
    (lambda m, d: m.predict(ms.Tensor(np.ones((1, 2), np.float32)), backend="gpu"), ValueError,
     "'backend' must be None or 'lite'"),
])
def test_bad_calls_are_refused_before_anything_runs(call, error, match):
    net = nn.Dense(2, 2)
    before = [p.asnumpy().copy() for p in net.get_parameters()]
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.5), metrics={"mae"})
    data = ArrayDataset({"x": np.ones((4, 2), np.float32), "y": np.ones((4, 2), np.float32)}, 2)
    with pytest.raises(error, match=match):
        call(model, data)
    for b, p in zip(before, net.get_parameters()):
        np.testing.assert_array_equal(p.asnumpy(), b)
    assert data.iterators_made == 0


def test_a_loss_fn_needs_two_column_elements():
    net = nn.Dense(2, 2)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()))
    data = ArrayDataset({"a": np.ones((2, 2), np.float32), "b": np.ones((2, 2), np.float32),
                         "c": np.ones((2, 2), np.float32)}, 2)
    with pytest.raises(ValueError, match="must be \\(data, label\\), got 3 columns"):
        model.train(1, data)


def test_an_empty_dataset_and_an_iterator_without_a_second_pass_are_errors():
    net = nn.Dense(2, 2)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()))

    class Empty(ArrayDataset):
        def get_dataset_size(self):
            return 0

    data = {"x": np.ones((2, 2), np.float32), "y": np.ones((2, 2), np.float32)}
    with pytest.raises(ValueError, match="the dataset is empty"):
        model.train(1, Empty(data, 2))

    class OnePass(ArrayDataset):
        def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                                  do_copy=True):
            return iter([[ms.Tensor(v) for v in self.columns.values()]])

    with pytest.raises(RuntimeError, match="gave no data for this epoch"):
        model.train(2, OnePass(data, 2))


def test_model_is_importable_where_mindspore_has_it():
    import graphcell.train as train
    import graphcell.train.model as model_module
    assert ms.Model is train.Model is model_module.Model
    from graphcell.train import CheckpointConfig, LossMonitor, ModelCheckpoint, TimeMonitor  # noqa
    from graphcell.train.callback import Callback as C, RunContext  # noqa
    from graphcell.train.metrics import Accuracy  # noqa
    assert ms.LossMonitor is LossMonitor and ms.Callback is C


def test_with_eval_cell_casts_float16_outputs_for_the_metrics(mode):
    class Half(nn.Cell):
        def construct(self, x):
            return ms.ops.cast(x, ms.float16)

    cell = nn.WithEvalCell(Half(), nn.L1Loss(), add_cast_fp32=True)
    loss, out, label = cell(ms.Tensor(np.ones((2, 3), np.float32)),
                            ms.Tensor(np.zeros((2, 3), np.float16)))
    assert (out.dtype, label.dtype, loss.dtype) == (ms.float32, ms.float32, ms.float32)
    _, out, label = nn.WithEvalCell(Half(), nn.L1Loss())(ms.Tensor(np.ones((2, 3), np.float32)),
                                                         ms.Tensor(np.zeros((2, 3), np.float16)))
    assert (out.dtype, label.dtype) == (ms.float16, ms.float16)
    _, _, label = cell(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.zeros((2, 3),
                                                                                  np.float32)))
    assert label.dtype == ms.float32


def test_training_through_graphcell_dataset_matches_mindspore(mode):
    ds = pytest.importorskip("graphcell.dataset", reason="graphcell.dataset (issue 18, item 3) "
                                                         "is not on this branch yet")
    p, net, model, x, y = setup("mlp")
    log = StepLog()
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(p.batch)
    model.train(p.epochs, data, callbacks=[log])
    np.testing.assert_allclose(log.losses, GOLDEN["mlp/losses"], rtol=2e-5)
    metrics = model.eval(ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(p.batch))
    assert metrics["acc"] == float(GOLDEN["mlp/eval/acc"])


class Unsupported(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        with open("nothing"):  # not compilable: graph mode refuses it at this line
            pass
        return self.fc(x)


def test_a_network_graph_mode_refuses_fails_the_first_step_at_the_users_line():
    from graphcell_ir.errors import GraphSyntaxError
    net = Unsupported()
    before = [p.asnumpy().copy() for p in net.get_parameters()]
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.1, 0.9))
    exited = []

    class Exit(Callback):
        def __exit__(self, *exc):
            exited.append(exc[0])

    data = ArrayDataset({"x": np.ones((4, 4), np.float32), "y": np.zeros(4, np.int32)}, 2)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(GraphSyntaxError, match=r"test_model\.py:\d+:\d+: .*with") as info:
            model.train(1, data, callbacks=[Exit()])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert 'with open("nothing")' in str(info.value)
    assert exited == [GraphSyntaxError]
    for b, p in zip(before, net.get_parameters()):
        np.testing.assert_array_equal(p.asnumpy(), b)
    assert ms.graph.cache_info(model.train_network).misses == 0

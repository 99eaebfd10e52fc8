"""Callbacks against MindSpore 2.10 (``goldens/callbacks.json``, recorded by
``tools/record_train_goldens.py``): the order of the hooks and the run-context fields each sees,
what LossMonitor and TimeMonitor print, the files ModelCheckpoint keeps, and EarlyStopping's and
ReduceLROnPlateau's decisions; then the callbacks' own behaviour and errors."""
import json
import os
import re

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from graphcell.train import (Callback, CheckpointConfig, EarlyStopping, History, LambdaCallback,
                             LearningRateScheduler, LossMonitor, Model, ModelCheckpoint,
                             ReduceLROnPlateau, RunContext, TimeMonitor)
from graphcell.train.callback import InternalCallbackParam as Params
from graphcell.train.callback._callback import HOOKS
from tools.record_train_goldens import (CALLBACK_HOOKS, GOLDENS, build_network,
                                        callback_recorders, early_stopping_cases, problem_arrays,
                                        problems, reduce_lr_cases, set_weights)
from train_datasets import ArrayDataset

with open(GOLDENS / "callbacks.json") as f:
    GOLDEN = json.load(f)
MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}


@pytest.fixture(params=sorted(MODES))
def mode(request):
    ms.set_context(mode=MODES[request.param])
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture(autouse=True)
def quiet_progress(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_PROGRESS", "0")


Recorder, OldNames = callback_recorders(Callback)


def test_graphcell_calls_the_hooks_mindspore_has():
    assert tuple(HOOKS) == CALLBACK_HOOKS


def mlp_model():
    p = problems()["mlp"]
    weights, x, y = problem_arrays(p)
    net = build_network(ms, "mlp")
    set_weights(ms, net, weights)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), p.lr, p.momentum), metrics={"acc", "loss"})
    return model, ArrayDataset({"x": x, "y": y}, p.batch)


# --- against MindSpore ---------------------------------------------------------------------------

def test_fit_calls_the_hooks_in_mindspores_order_with_its_fields(mode, capsys):
    model, data = mlp_model()
    rec = Recorder()
    model.fit(2, data, data, callbacks=[rec, LossMonitor(2), TimeMonitor()])
    assert rec.calls == GOLDEN["fit"]["calls"]
    assert rec.fields == GOLDEN["fit"]["fields"]
    check_printed(capsys.readouterr().out.splitlines(), GOLDEN["fit"]["stdout"])


def test_train_from_an_initial_epoch_and_the_old_hook_names():
    model, data = mlp_model()
    rec, old = Recorder(), OldNames()
    model.train(2, data, callbacks=[rec, old], initial_epoch=1)
    golden = GOLDEN["train_initial_epoch"]
    assert rec.calls == golden["calls"]
    assert rec.fields == golden["fields"]
    assert old.calls == golden["old_names"]


def test_eval_calls_the_hooks_in_mindspores_order(mode, capsys):
    model, data = mlp_model()
    model.train(2, data)
    rec, old = Recorder(), OldNames()
    capsys.readouterr()
    metrics = model.eval(data, callbacks=[rec, old, TimeMonitor()])
    golden = GOLDEN["eval"]
    assert rec.calls == golden["calls"]
    assert rec.fields == golden["fields"]
    assert old.calls == golden["old_names"]
    assert sorted(metrics) == golden["metrics"]
    check_printed(capsys.readouterr().out.splitlines(), golden["stdout"])


_NUMBER = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")


def check_printed(got: list[str], want: list[str]) -> None:
    """The same lines with the same numbers, except times (any value) and losses (close)."""
    assert len(got) == len(want), "\n".join(got)
    for g, w in zip(got, want):
        assert _NUMBER.sub("#", g) == _NUMBER.sub("#", w), (g, w)
        if "time" in w:
            continue
        for a, b in zip(_NUMBER.findall(g), _NUMBER.findall(w)):
            np.testing.assert_allclose(float(a), float(b), rtol=1e-5, err_msg=g)


def test_loss_monitor_keeps_its_rhythm_over_two_train_calls(capsys):
    model, data = mlp_model()
    monitor = LossMonitor(2)
    model.train(1, data, callbacks=[monitor])
    model.train(2, data, callbacks=[monitor])
    lines = [line.split(",")[0] for line in capsys.readouterr().out.splitlines()]
    assert lines == GOLDEN["loss_monitor_rhythm"]


def test_model_checkpoint_keeps_and_names_files_as_mindspore(tmp_path):
    golden = GOLDEN["checkpoint"]
    config = CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=3,
                              append_info=["epoch_num", "step_num", {"tag": "mlp"}])
    model, data = mlp_model()
    model.train(2, data, callbacks=[ModelCheckpoint(prefix="net", directory=tmp_path,
                                                    config=config)])
    assert sorted(os.listdir(tmp_path)) == golden["first_run"]
    model, data = mlp_model()
    model.train(1, data, callbacks=[ModelCheckpoint(prefix="net", directory=tmp_path,
                                                    config=config)])
    assert sorted(os.listdir(tmp_path)) == golden["after_second_run"]
    loaded = ms.load_checkpoint(str(tmp_path / golden["first_run"][-1]))
    assert sorted(loaded) == golden["names"]
    appended = {k: (v if isinstance(v, str) else v.asnumpy().tolist())
                for k, v in loaded.items() if k in golden["appended"]}
    assert appended == golden["appended"]


def test_the_last_checkpoint_holds_what_mindspores_holds(mode, tmp_path):
    model, data = mlp_model()
    ckpt = ModelCheckpoint(prefix="mlp", directory=tmp_path,
                           config=CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2))
    model.train(3, data, callbacks=[ckpt])
    training = np.load(GOLDENS / "training.npz")
    assert sorted(os.listdir(tmp_path)) == sorted(training["mlp/checkpoint_files"].tolist())
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "mlp-3_3.ckpt")
    ours = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    theirs = ms.load_checkpoint(str(GOLDENS / "mlp_final.ckpt"))
    assert sorted(ours) == sorted(theirs)
    for name, value in theirs.items():
        assert ours[name].dtype == value.dtype and ours[name].shape == value.shape
        np.testing.assert_allclose(ours[name].asnumpy(), value.asnumpy(), rtol=2e-5, atol=1e-6,
                                   err_msg=name)


@pytest.mark.parametrize("index", range(len(early_stopping_cases())))
def test_early_stopping_decides_as_mindspore(index):
    case, golden = early_stopping_cases()[index], GOLDEN["early_stopping"][index]
    stopped_at, es = feed_early_stopping(EarlyStopping(**case["init"]), case["key"],
                                         case["values"])
    assert stopped_at == golden["stopped_at"]
    assert es.wait == golden["wait"]
    np.testing.assert_allclose(float(es.best), golden["best"], rtol=1e-7)


def feed_early_stopping(es, key, values, network=None):
    es.on_train_begin(RunContext(Params()))
    for epoch, value in enumerate(values, start=1):
        run = RunContext(Params(cur_epoch_num=epoch, eval_results={key: value},
                                net_outputs=ms.Tensor(np.float32(value)),
                                train_network=network))
        es.on_train_epoch_end(run)
        if run.get_stop_requested():
            return epoch, es
    return None, es


@pytest.mark.parametrize("index", range(len(reduce_lr_cases())))
def test_reduce_lr_on_plateau_decides_as_mindspore(index):
    case, golden = reduce_lr_cases()[index], GOLDEN["reduce_lr"][index]
    net = nn.Dense(2, 1)
    opt = nn.Momentum(net.trainable_params(), 1.0, 0.9)
    cb = ReduceLROnPlateau(**case["init"])
    cb.on_train_begin(RunContext(Params()))
    lrs = []
    for epoch, value in enumerate(case["values"], start=1):
        cb.on_train_epoch_end(RunContext(Params(cur_epoch_num=epoch, optimizer=opt,
                                                eval_results={case["key"]: value},
                                                net_outputs=ms.Tensor(np.float32(value)))))
        lrs.append(float(opt.learning_rate.asnumpy()))
    np.testing.assert_allclose(lrs, golden, rtol=1e-7)


# --- graphcell's own checks --------------------------------------------------------------------

def test_early_stopping_with_patience_0_stops_only_without_improvement():
    # MindSpore 2.10 stops after the first epoch whatever the value (docs/decisions.md)
    assert feed_early_stopping(EarlyStopping(patience=0), "eval_loss", [3, 2, 1, 1.5])[0] == 4


def test_early_stopping_baseline_and_zero_values():
    # stop unless the loss beats 0.5: MindSpore takes min_delta (0) as the baseline
    stopped, _ = feed_early_stopping(EarlyStopping(patience=2, baseline=0.5), "eval_loss",
                                     [0.9, 0.8, 0.7, 0.6])
    assert stopped == 2
    # a monitored 0.0 is a value (MindSpore skips it as "not available")
    stopped, es = feed_early_stopping(EarlyStopping(monitor="acc", patience=1), "acc",
                                      [0.0, 0.0])
    assert stopped == 2 and es.best == 0.0


def test_early_stopping_restores_the_best_weights(capsys):
    net = nn.Dense(2, 1)
    es = EarlyStopping(patience=1, restore_best_weights=True, verbose=True)
    best = None
    es.on_train_begin(RunContext(Params()))
    for epoch, value in enumerate([0.5, 0.4, 0.6], start=1):
        net.weight.set_data(ms.Tensor(np.full((1, 2), epoch, np.float32)))
        if value == 0.4:
            best = net.weight.asnumpy().copy()
        run = RunContext(Params(cur_epoch_num=epoch, eval_results={"eval_loss": value},
                                train_network=net))
        es.on_train_epoch_end(run)
    assert run.get_stop_requested() and es.stopped_epoch == 3
    np.testing.assert_array_equal(net.weight.asnumpy(), best)
    es.on_train_end(run)
    assert capsys.readouterr().out.splitlines() == [
        "Restoring model weights from the end of the best epoch.", "Epoch 00003: early stopping"]


def test_early_stopping_stops_model_fit_on_eval_loss():
    model, data = mlp_model()
    es = EarlyStopping(monitor="eval_loss", patience=1, min_delta=10.0)
    model.fit(5, data, data, callbacks=[es])
    assert es.stopped_epoch == 2


def test_a_missing_monitor_value_warns_and_waits():
    es = EarlyStopping(monitor="acc", patience=1)
    with pytest.warns(UserWarning, match="'acc' is not available this epoch; available: "
                                         "\\['eval_loss', 'loss'\\]"):
        run = RunContext(Params(cur_epoch_num=1, eval_results={"eval_loss": 1.0}))
        es.on_train_epoch_end(run)
    assert not run.get_stop_requested()


def test_learning_rate_scheduler_sets_the_rate_the_next_step_reads(mode):
    model, data = mlp_model()
    seen = []

    class Rate(Callback):
        def on_train_step_begin(self, run_context):
            seen.append(float(run_context.original_args().optimizer.learning_rate.asnumpy()))

    sched = LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 2 == 0 else lr)
    model.train(1, data, callbacks=[Rate(), sched])
    np.testing.assert_allclose(seen, [0.1, 0.1, 0.05], rtol=1e-6)


def test_learning_rate_scheduler_needs_one_fixed_rate():
    net = nn.Dense(2, 2)
    opt = nn.SGD(net.trainable_params(), [0.1, 0.05])
    model = Model(net, nn.MSELoss(), opt)
    data = ArrayDataset({"x": np.ones((2, 2), np.float32), "y": np.ones((2, 2), np.float32)}, 2)
    with pytest.raises(ValueError, match="one fixed learning rate"):
        model.train(1, data, callbacks=[LearningRateScheduler(lambda lr, step: lr)])
    with pytest.raises(TypeError, match="must be callable"):
        LearningRateScheduler(0.1)


def test_loss_monitor_refuses_a_nan_loss():
    run = RunContext(Params(cur_epoch_num=2, cur_step_num=5, batch_num=3,
                            net_outputs=ms.Tensor(np.float32("nan"))))
    with pytest.raises(ValueError, match="in epoch 2 step 2 the loss is nan"):
        LossMonitor().on_train_step_end(run)
    with pytest.raises(ValueError, match="'per_print_times' must be a non-negative int"):
        LossMonitor(-1)


def test_time_monitor_data_time_and_its_checks(capsys):
    model, data = mlp_model()
    model.train(1, data, callbacks=[TimeMonitor(data_time=True)])
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms "
                        r"\(data time: \d+\.\d{3} ms\)", line), line
    with pytest.raises(ValueError, match="'data_size' must be None or a positive int"):
        TimeMonitor(data_size=0)
    monitor = TimeMonitor()
    monitor.on_train_epoch_begin(RunContext(Params(mode="train")))
    with pytest.raises(ValueError, match="give TimeMonitor\\(data_size=...\\)"):
        monitor.on_train_epoch_end(RunContext(Params(mode="train")))


def test_history_records_each_epoch():
    model, data = mlp_model()
    history = History()
    model.fit(2, data, data, callbacks=[history])
    assert history.epoch == {"epoch": [1, 2]}
    assert sorted(history.history) == ["acc", "loss", "net_output"]
    assert all(len(v) == 2 for v in history.history.values())


def test_lambda_callback_calls_what_it_is_given():
    model, data = mlp_model()
    steps = []
    model.train(1, data, callbacks=[LambdaCallback(
        on_train_step_end=lambda rc: steps.append(rc.original_args().cur_step_num))])
    assert steps == [1, 2, 3]
    with pytest.raises(TypeError, match="'on_train_end' must be callable"):
        LambdaCallback(on_train_end=3)


def test_fit_refuses_user_callbacks_with_the_old_names():
    model, data = mlp_model()
    with pytest.raises(ValueError, match="defines \\['step_end'\\].*on_train_\\*/on_eval_\\*"):
        model.fit(1, data, callbacks=[OldNamesOnlyStepEnd()])


class OldNamesOnlyStepEnd(Callback):
    def step_end(self, run_context):
        pass


def test_callbacks_are_entered_and_exited_around_the_run():
    events = []

    class Managed(Callback):
        def __enter__(self):
            events.append("enter")
            return self

        def __exit__(self, *exc):
            events.append("exit")

        def on_train_begin(self, run_context):
            events.append("begin")

        def on_train_end(self, run_context):
            events.append("end")

    model, data = mlp_model()
    model.train(1, data, callbacks=Managed())
    assert events == ["enter", "begin", "end", "exit"]


def test_checkpoint_config_checks_its_arguments():
    with pytest.raises(ValueError, match="cannot all be 0 or None"):
        CheckpointConfig(0, 0, 0, 0)
    with pytest.raises(TypeError, match="'save_checkpoint_steps' must be an int"):
        CheckpointConfig(save_checkpoint_steps=1.5)
    with pytest.raises(ValueError, match="encrypted checkpoints"):
        CheckpointConfig(enc_key=b"0123456789abcdef")
    with pytest.raises(ValueError, match="'format' must be one of"):
        CheckpointConfig(format="npz")
    with pytest.raises(ValueError, match="must be one of \\['epoch_num', 'step_num'\\]"):
        CheckpointConfig(append_info=["lr"])
    with pytest.raises(TypeError, match="'saved_network' must be None or a Cell"):
        CheckpointConfig(saved_network="net")
    with pytest.raises(ValueError, match="'prefix' must be a str without '/'"):
        ModelCheckpoint(prefix="a/b")
    with pytest.raises(TypeError, match="'config' must be a CheckpointConfig"):
        ModelCheckpoint(config={})
    config = CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=30,
                              keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=0)
    assert (config.save_checkpoint_steps, config.save_checkpoint_seconds,
            config.keep_checkpoint_max) == (0, 30, 1)


def test_model_checkpoint_in_safetensors_of_a_chosen_network(tmp_path):
    model, data = mlp_model()
    net = model.predict_network
    config = CheckpointConfig(save_checkpoint_steps=3, saved_network=net, format="safetensors")
    model.train(2, data, callbacks=[ModelCheckpoint("only_net", str(tmp_path), config)])
    assert sorted(os.listdir(tmp_path)) == ["only_net-1_3.safetensors", "only_net-2_3.safetensors"]
    loaded = ms.load_checkpoint(str(tmp_path / "only_net-2_3.safetensors"), format="safetensors")
    assert sorted(loaded) == sorted(p.name for p in net.get_parameters())


def test_model_checkpoint_with_functions_for_prefix_and_directory(tmp_path):
    model, data = mlp_model()
    ckpt = ModelCheckpoint(prefix=lambda cb: f"e{cb.cur_epoch_num}",
                           directory=lambda cb: str(tmp_path / f"epoch{cb.cur_epoch_num}"),
                           config=CheckpointConfig(save_checkpoint_steps=3))
    model.train(2, data, callbacks=[ckpt])
    assert sorted(os.listdir(tmp_path)) == ["epoch1", "epoch2"]
    assert os.listdir(tmp_path / "epoch2") == ["e2.ckpt"]


def test_run_context_fields_and_errors():
    params = Params(cur_step_num=1)
    with pytest.raises(AttributeError, match="no field 'optimizer' now"):
        params.optimizer
    with pytest.raises(TypeError, match="original_args must be a dict"):
        RunContext([1])
    assert RunContext({"a": 1}).original_args().a == 1


def test_model_checkpoint_by_seconds(tmp_path, monkeypatch):
    from graphcell.train.callback import _checkpoint

    class Clock:
        now = 0.0

        def time(self):
            return self.now

    clock = Clock()
    monkeypatch.setattr(_checkpoint, "time", clock)

    class Tick(Callback):
        def on_train_step_end(self, run_context):
            clock.now += 6.0   # each step takes 6 s

    config = CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=10)
    assert (config.save_checkpoint_steps, config.save_checkpoint_seconds) == (0, 10)
    model, data = mlp_model()
    model.train(2, data, callbacks=[Tick(), ModelCheckpoint("net", str(tmp_path), config)])
    # saved at 12 s (step 2), 24 s (step 4) and 36 s (step 6): more than 10 s after the last
    assert sorted(os.listdir(tmp_path)) == ["net-1_2.ckpt", "net-2_1.ckpt", "net-2_3.ckpt"]

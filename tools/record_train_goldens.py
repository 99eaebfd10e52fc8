"""Record what MindSpore 2.10's training workflow does, for graphcell's ``Model`` tests.

    /opt/msvenv/bin/python tools/record_train_goldens.py

The cases are defined here and this module imports only numpy (and json/hashlib) at import time,
so the tests read the very same definitions. Everything lands in
``tests/graphcell/train/goldens/``:

- ``metrics.npz``: the value of each :func:`metric_cases` case (``<id>``) and its Python type
  (``<id>/type``);
- ``training.npz``: for each :func:`problems` entry, the per-step losses of ``Model.train`` from
  the given weights and data, the final weights (LeNet's ``fc1.weight``: its first 16 rows, to
  keep the file small), ``Model.eval``'s metrics and ``Model.predict`` on the first batch, and the
  SHA-1 of the inputs (the tests regenerate them with :func:`problem_arrays` and check it);
- ``mlp_final.ckpt``: the last checkpoint ``ModelCheckpoint`` wrote while training ``mlp``;
- ``callbacks.json``: the order of the callback hooks in ``Model.fit`` / ``train`` / ``eval`` and
  the run-context fields each hook sees, what ``LossMonitor`` and ``TimeMonitor`` print, the files
  ``ModelCheckpoint`` keeps, and the decisions of ``EarlyStopping`` and ``ReduceLROnPlateau`` on
  given sequences of monitored values.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

GOLDENS = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "train" / "goldens"


# --- metric cases -------------------------------------------------------------------------------

@dataclass
class MetricCase:
    """``Metric(**init)``, then ``update(*batch)`` per batch (``set_indexes`` first when given),
    then ``eval(**eval_kwargs)``. ``tensors``: pass the batches as Tensors (else numpy arrays)."""

    cid: str
    metric: str
    init: dict
    batches: list
    eval_kwargs: dict = field(default_factory=dict)
    indexes: list | None = None
    tensors: bool = False


def metric_cases() -> list[MetricCase]:
    rng = np.random.default_rng(20261125)

    def scores(*shape):
        return rng.standard_normal(shape).astype(np.float32)   # no ties between scores

    def labels(n, c, *rest):
        return rng.integers(0, c, size=(n, *rest)).astype(np.int32)

    def binary(*shape):
        return (rng.random(shape) < 0.5).astype(np.float32)

    def one_hot(y, c):
        return np.eye(c, dtype=np.float32)[y]

    cls = [(scores(8, 4), labels(8, 4)), (scores(6, 4), labels(6, 4))]
    cls6 = [(scores(10, 6), labels(10, 6)), (scores(5, 6), labels(5, 6))]
    y_hot = labels(7, 3)
    hot = [(scores(7, 3), one_hot(y_hot, 3))]
    spatial = [(scores(4, 3, 5), labels(4, 3, 5))]
    multi = [(binary(6, 3), binary(6, 3)), (binary(4, 3), binary(4, 3))]
    regression = [(scores(8, 2), scores(8, 2)), (scores(4, 2), scores(4, 2))]
    column = [(scores(6, 1), scores(6))]
    losses = [(np.float32(0.75),), (scores(4),), (np.abs(scores(3)),)]
    triple = [(np.float32(0.3), scores(5, 4), labels(5, 4))]
    cases = [
        MetricCase("accuracy", "Accuracy", {}, cls),
        MetricCase("accuracy_tensors", "Accuracy", {"eval_type": "classification"}, cls,
                   tensors=True),
        MetricCase("accuracy_one_hot", "Accuracy", {}, hot),
        MetricCase("accuracy_spatial", "Accuracy", {}, spatial),
        MetricCase("accuracy_multilabel", "Accuracy", {"eval_type": "multilabel"}, multi),
        MetricCase("accuracy_indexes", "Accuracy", {}, triple, indexes=[1, 2]),
        MetricCase("precision", "Precision", {}, cls),
        MetricCase("precision_average", "Precision", {}, cls, {"average": True}),
        MetricCase("precision_one_hot", "Precision", {}, hot, tensors=True),
        MetricCase("precision_multilabel", "Precision", {"eval_type": "multilabel"}, multi),
        MetricCase("precision_multilabel_average", "Precision", {"eval_type": "multilabel"},
                   multi, {"average": True}),
        MetricCase("recall", "Recall", {}, cls),
        MetricCase("recall_average", "Recall", {}, cls6, {"average": True}),
        MetricCase("recall_multilabel", "Recall", {"eval_type": "multilabel"}, multi),
        MetricCase("recall_multilabel_average", "Recall", {"eval_type": "multilabel"}, multi,
                   {"average": True}),
        MetricCase("f1", "F1", {}, cls, tensors=True),
        MetricCase("f1_average", "F1", {}, cls6, {"average": True}),
        MetricCase("fbeta_half", "Fbeta", {"beta": 0.5}, cls6),
        MetricCase("fbeta_two_one_hot", "Fbeta", {"beta": 2}, hot),
        MetricCase("topk_3", "TopKCategoricalAccuracy", {"k": 3}, cls6),
        MetricCase("topk_one_hot", "TopKCategoricalAccuracy", {"k": 2}, hot),
        MetricCase("top1", "Top1CategoricalAccuracy", {}, cls6, tensors=True),
        MetricCase("top5", "Top5CategoricalAccuracy", {}, cls6),
        MetricCase("mae", "MAE", {}, regression),
        MetricCase("mae_column", "MAE", {}, column, tensors=True),
        MetricCase("mse", "MSE", {}, regression, tensors=True),
        MetricCase("loss", "Loss", {}, losses),
        MetricCase("loss_tensors", "Loss", {}, losses, tensors=True),
    ]
    return cases


# --- training problems --------------------------------------------------------------------------

@dataclass
class Problem:
    """A network, its weights and data, and how ``Model`` trains it."""

    name: str
    network: str              # "mlp" or "lenet"
    input_shape: tuple
    classes: int
    samples: int
    batch: int
    epochs: int
    lr: float
    momentum: float = 0.9
    halve_lr_every: int = 0   # LearningRateScheduler: halve the rate every this many steps


def problems() -> dict[str, Problem]:
    return {p.name: p for p in (
        Problem("mlp", "mlp", (8,), 4, 24, 8, 3, 0.1),
        Problem("lenet", "lenet", (1, 32, 32), 10, 16, 8, 2, 0.01),
        Problem("mlp_lr_schedule", "mlp", (8,), 4, 24, 8, 2, 0.2, halve_lr_every=2),
    )}


PARAM_SHAPES = {
    "mlp": {"fc1.weight": (16, 8), "fc1.bias": (16,), "fc2.weight": (4, 16), "fc2.bias": (4,)},
    "lenet": {"conv1.weight": (6, 1, 5, 5), "conv2.weight": (16, 6, 5, 5),
              "fc1.weight": (120, 400), "fc1.bias": (120,), "fc2.weight": (84, 120),
              "fc2.bias": (84,), "fc3.weight": (10, 84), "fc3.bias": (10,)},
}
STORED_ROWS = {"fc1.weight": 16}
"""LeNet's fc1.weight is recorded by its first rows only (the file stays small)."""


def problem_arrays(p: Problem) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """``(initial weights, inputs, labels)`` of a problem, from a fixed seed."""
    rng = np.random.default_rng(abs(hash_text(p.network)) % (1 << 32))
    weights = {}
    for name, shape in PARAM_SHAPES[p.network].items():
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        weights[name] = rng.uniform(-1, 1, shape).astype(np.float32) / np.float32(np.sqrt(fan_in))
    x = rng.standard_normal((p.samples, *p.input_shape)).astype(np.float32)
    y = rng.integers(0, p.classes, p.samples).astype(np.int32)
    return weights, x, y


def hash_text(text: str) -> int:
    return int(hashlib.sha1(text.encode()).hexdigest()[:8], 16)


def arrays_sha1(*arrays) -> str:
    h = hashlib.sha1()
    for a in arrays:
        if isinstance(a, dict):
            for k in sorted(a):
                h.update(k.encode())
                h.update(np.ascontiguousarray(a[k]).tobytes())
        else:
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def build_network(ms, kind: str):
    """The problem's network in framework ``ms`` (mindspore or graphcell)."""
    nn = ms.nn

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(8, 16)
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(16, 4)

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    return MLP() if kind == "mlp" else LeNet5()


def set_weights(ms, net, weights: dict[str, np.ndarray]) -> None:
    params = {p.name: p for p in net.get_parameters()}
    assert set(params) == set(weights), (sorted(params), sorted(weights))
    for name, value in weights.items():
        params[name].set_data(ms.Tensor(value))


def lr_schedule(p: Problem):
    """The LearningRateScheduler function of a problem (None without one)."""
    if not p.halve_lr_every:
        return None
    every = p.halve_lr_every

    def halve(lr, step):
        return lr * 0.5 if step % every == 0 else lr
    return halve


# --- recording (MindSpore) -----------------------------------------------------------------------

def _dataset(ds, x, y, batch):
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def record_metrics(ms) -> None:
    import mindspore.train as train
    out = {}
    for c in metric_cases():
        metric = getattr(train, c.metric)(**c.init)
        if c.indexes is not None:
            metric.set_indexes(c.indexes)
        for batch in c.batches:
            items = [ms.Tensor(np.asarray(a)) if c.tensors else np.asarray(a) for a in batch]
            metric.update(*items)
        value = metric.eval(**c.eval_kwargs)
        out[c.cid] = np.asarray(value)
        out[f"{c.cid}/type"] = np.array("ndarray" if isinstance(value, np.ndarray) and
                                        value.ndim else "scalar")
    np.savez(GOLDENS / "metrics.npz", **out)
    print(f"metrics.npz: {len(metric_cases())} cases")


def record_training(ms) -> None:
    import shutil
    import tempfile

    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.train import Callback, CheckpointConfig, LearningRateScheduler, Model, \
        ModelCheckpoint

    class Losses(Callback):
        def __init__(self):
            self.values, self.lrs = [], []

        def on_train_step_end(self, run_context):
            cb = run_context.original_args()
            self.values.append(float(cb.net_outputs.asnumpy()))
            self.lrs.append(float(cb.optimizer.learning_rate.asnumpy()))

    out = {}
    for p in problems().values():
        weights, x, y = problem_arrays(p)
        net = build_network(ms, p.network)
        set_weights(ms, net, weights)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), p.lr, p.momentum)
        model = Model(net, loss, opt, metrics={"acc", "loss"})
        losses = Losses()
        callbacks = [losses]
        if p.halve_lr_every:
            callbacks.append(LearningRateScheduler(lr_schedule(p)))
        tmp = tempfile.mkdtemp()
        if p.name == "mlp":
            config = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2)
            ckpt = ModelCheckpoint(prefix="mlp", directory=tmp, config=config)
            callbacks.append(ckpt)
        model.train(p.epochs, _dataset(ds, x, y, p.batch), callbacks=callbacks)
        key = p.name
        out[f"{key}/sha1"] = np.array(arrays_sha1(weights, x, y))
        out[f"{key}/losses"] = np.array(losses.values, np.float32)
        out[f"{key}/lrs"] = np.array(losses.lrs, np.float32)
        for param in net.get_parameters():
            value = param.asnumpy()
            rows = STORED_ROWS.get(param.name) if p.network == "lenet" else None
            out[f"{key}/final/{param.name}"] = value[:rows] if rows else value
        metrics = model.eval(_dataset(ds, x, y, p.batch))
        for name in sorted(metrics):     # (a set of names: MindSpore's order is the hash order)
            out[f"{key}/eval/{name}"] = np.asarray(metrics[name])
        out[f"{key}/predict"] = model.predict(ms.Tensor(x[:p.batch])).asnumpy()
        if p.name == "mlp":
            shutil.copy(ckpt.latest_ckpt_file_name, GOLDENS / "mlp_final.ckpt")
            out[f"{key}/checkpoint_files"] = np.array(sorted(
                f for f in os.listdir(tmp) if f.endswith(".ckpt")))
        shutil.rmtree(tmp)
    np.savez(GOLDENS / "training.npz", **out)
    print(f"training.npz: {', '.join(problems())}")


CALLBACK_HOOKS = ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin",
                  "on_train_step_end", "on_train_epoch_end", "on_train_end", "on_eval_begin",
                  "on_eval_epoch_begin", "on_eval_step_begin", "on_eval_step_end",
                  "on_eval_epoch_end", "on_eval_end")
OLD_CALLBACK_NAMES = ("begin", "epoch_begin", "step_begin", "step_end", "epoch_end", "end")


def callback_recorders(callback_base) -> tuple[type, type]:
    """Two callbacks of ``callback_base`` (MindSpore's or graphcell's ``Callback``) that note
    their calls: ``Recorder`` every hook as ``(name, cur_epoch_num, cur_step_num, mode,
    batch_num)`` and the run-context fields at each hook's first call, ``OldNames`` the 1.x names
    (``step_end``...) as ``(name, mode, cur_step_num)``."""

    class Recorder(callback_base):
        def __init__(self):
            self.calls, self.fields = [], {}

    class OldNames(callback_base):
        def __init__(self):
            self.calls = []

    def noting(name):
        def hook(self, run_context):
            cb = run_context.original_args()
            self.calls.append([name, cb.get("cur_epoch_num"), cb.get("cur_step_num"),
                               cb.get("mode"), cb.get("batch_num")])
            self.fields.setdefault(name, sorted(cb.keys()))
        return hook

    def noting_old(name):
        def hook(self, run_context):
            cb = run_context.original_args()
            self.calls.append([name, cb.get("mode"), cb.get("cur_step_num")])
        return hook

    for name in CALLBACK_HOOKS:
        setattr(Recorder, name, noting(name))
    for name in OLD_CALLBACK_NAMES:
        setattr(OldNames, name, noting_old(name))
    return Recorder, OldNames


def record_callbacks(ms) -> dict:
    """The hook order, fields and printed lines of small runs of ``mlp``."""
    import contextlib
    import io
    import tempfile

    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.train import Accuracy, Callback, CheckpointConfig, Loss, LossMonitor, Model, \
        ModelCheckpoint, TimeMonitor

    Recorder, OldNames = callback_recorders(Callback)

    p = problems()["mlp"]
    weights, x, y = problem_arrays(p)

    def model():
        net = build_network(ms, "mlp")
        set_weights(ms, net, weights)
        # a dict in sorted order: MindSpore evaluates a set of names in hash order, which changes
        # from run to run (graphcell sorts the names), and LossMonitor prints them in that order
        return Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), p.lr, p.momentum),
                     metrics={"acc": Accuracy(), "loss": Loss()})

    result = {}
    rec = Recorder()
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        model().fit(2, _dataset(ds, x, y, p.batch), _dataset(ds, x, y, p.batch),
                    callbacks=[rec, LossMonitor(2), TimeMonitor()])
    result["fit"] = {"calls": rec.calls, "fields": rec.fields,
                     "stdout": stdout.getvalue().splitlines()}

    rec, old = Recorder(), OldNames()
    m = model()
    m.train(2, _dataset(ds, x, y, p.batch), callbacks=[rec, old], initial_epoch=1)
    result["train_initial_epoch"] = {"calls": rec.calls, "fields": rec.fields,
                                     "old_names": old.calls}
    rec, old = Recorder(), OldNames()
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        metrics = m.eval(_dataset(ds, x, y, p.batch), callbacks=[rec, old, TimeMonitor()])
    result["eval"] = {"calls": rec.calls, "fields": rec.fields, "old_names": old.calls,
                      "stdout": stdout.getvalue().splitlines(), "metrics": sorted(metrics)}

    # LossMonitor's printing rhythm over two train calls of 3 steps each
    monitor, stdout = LossMonitor(2), io.StringIO()
    m = model()
    with contextlib.redirect_stdout(stdout):
        m.train(1, _dataset(ds, x, y, p.batch), callbacks=[monitor])
        m.train(2, _dataset(ds, x, y, p.batch), callbacks=[monitor])
    result["loss_monitor_rhythm"] = [line.split(",")[0] for line in stdout.getvalue().splitlines()]

    # ModelCheckpoint: names kept, and a second run with the same prefix in the same directory
    tmp = tempfile.mkdtemp()
    config = CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=3,
                              append_info=["epoch_num", "step_num", {"tag": "mlp"}])
    model().train(2, _dataset(ds, x, y, p.batch),
                  callbacks=[ModelCheckpoint(prefix="net", directory=tmp, config=config)])
    first = sorted(f for f in os.listdir(tmp) if f.endswith(".ckpt"))
    model().train(1, _dataset(ds, x, y, p.batch),
                  callbacks=[ModelCheckpoint(prefix="net", directory=tmp, config=config)])
    both = sorted(f for f in os.listdir(tmp) if f.endswith(".ckpt"))
    loaded = ms.load_checkpoint(os.path.join(tmp, first[-1]))
    appended = {k: (v if isinstance(v, str) else v.asnumpy().tolist()) for k, v in loaded.items()
                if k in ("epoch_num", "step_num", "tag")}
    result["checkpoint"] = {"first_run": first, "after_second_run": both,
                            "names": sorted(loaded), "appended": appended}
    return result


def record_monitors(ms) -> dict:
    """EarlyStopping and ReduceLROnPlateau fed given monitored values epoch by epoch."""
    from mindspore import nn
    from mindspore.train import EarlyStopping, ReduceLROnPlateau, RunContext
    from mindspore.train.callback import _InternalCallbackParam as Params

    result = {"early_stopping": [], "reduce_lr": []}
    for case in early_stopping_cases():
        es = EarlyStopping(**case["init"])
        net = nn.Dense(2, 1)
        es.on_train_begin(RunContext(Params()))
        stopped_at = None
        for epoch, value in enumerate(case["values"], start=1):
            run = RunContext(Params(cur_epoch_num=epoch, eval_results={case["key"]: value},
                                    net_outputs=ms.Tensor(np.float32(value)), train_network=net))
            es.on_train_epoch_end(run)
            if run.get_stop_requested():
                stopped_at = epoch
                break
        result["early_stopping"].append({"stopped_at": stopped_at,
                                         "best": float(es.best), "wait": es.wait})
    for case in reduce_lr_cases():
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
        result["reduce_lr"].append(lrs)
    return result


def early_stopping_cases() -> list[dict]:
    """Monitored values epoch by epoch (none is exactly 0: MindSpore takes 0 as "missing"), and
    the EarlyStopping arguments; ``patience=0`` and ``baseline``, where graphcell deliberately
    differs, are tested apart."""
    down_then_flat = [1.0, 0.8, 0.79, 0.795, 0.81, 0.7, 0.9, 0.95]
    up = [0.5, 0.6, 0.65, 0.64, 0.66, 0.66, 0.7]
    return [
        {"init": {"monitor": "eval_loss", "patience": 1}, "key": "eval_loss",
         "values": down_then_flat},
        {"init": {"monitor": "eval_loss", "patience": 2}, "key": "eval_loss",
         "values": down_then_flat},
        {"init": {"monitor": "eval_loss", "patience": 2, "min_delta": 0.05}, "key": "eval_loss",
         "values": down_then_flat},
        {"init": {"monitor": "loss", "patience": 3}, "key": "eval_loss", "values": down_then_flat},
        {"init": {"monitor": "acc", "patience": 2}, "key": "acc", "values": up},
        {"init": {"monitor": "acc", "patience": 1, "mode": "min"}, "key": "acc", "values": up},
        {"init": {"monitor": "acc", "patience": 2, "min_delta": 0.02, "mode": "max"},
         "key": "acc", "values": up},
    ]


def reduce_lr_cases() -> list[dict]:
    flat = [1.0, 0.9, 0.9, 0.9, 0.9, 0.85, 0.85, 0.85, 0.85, 0.85, 0.85]
    return [
        {"init": {"monitor": "eval_loss", "patience": 2, "factor": 0.5}, "key": "eval_loss",
         "values": flat},
        {"init": {"monitor": "eval_loss", "patience": 1, "factor": 0.5, "cooldown": 2},
         "key": "eval_loss", "values": flat},
        {"init": {"monitor": "eval_loss", "patience": 1, "factor": 0.1, "min_lr": 0.05},
         "key": "eval_loss", "values": flat},
        {"init": {"monitor": "acc", "patience": 2, "factor": 0.5}, "key": "acc",
         "values": [0.1, 0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3]},
    ]


def main() -> None:
    import mindspore as ms
    GOLDENS.mkdir(parents=True, exist_ok=True)
    ms.set_seed(0)
    record_metrics(ms)
    record_training(ms)
    result = record_callbacks(ms)
    result.update(record_monitors(ms))
    with open(GOLDENS / "callbacks.json", "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print("callbacks.json: hooks, fields, printed lines, checkpoint files, monitors")


if __name__ == "__main__":
    main()

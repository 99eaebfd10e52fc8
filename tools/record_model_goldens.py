"""Record what MindSpore 2.10 computes for the real models of ``examples/models/`` (issue 17
item 4).

    /opt/msvenv/bin/python tools/record_model_goldens.py --model resnet50 [--model ...]
    /opt/msvenv/bin/python tools/record_model_goldens.py --all

The model files are written against ``import graphcell as ms``; the recorder maps the module name
``graphcell`` to ``mindspore`` (:func:`use_mindspore_as_graphcell`) before importing them, so
MindSpore runs the very same files — the demonstration that a script runs unchanged after the
rename. This module imports only numpy at import time: the tests
(``tests/graphcell/models/model_harness.py``) run the same :func:`run_model` with graphcell.

:data:`MODELS` is the table, one line per model: the model module and factory, the inputs, the
loss target, the loss and the optimizer. For each model and each MindSpore mode (``pynative``,
``graph``), starting every time from the same seeded weights (``examples/models/weights.py``),
the network in train mode (Dropout layers take p=0 in the model configs, so train mode is
deterministic), ``tests/graphcell/models/goldens/<name>.npz`` holds:

- ``<mode>/forward``: the network's output;
- ``<mode>/loss``: the loss of ``nn.WithLossCell(net, loss)``;
- ``<mode>/grad/<param>``: the gradient of every trainable parameter, from
  ``ms.value_and_grad(loss_cell, None, net.trainable_params())``;
- ``<mode>/step/loss`` and ``<mode>/step/<param>``: the loss returned by one
  ``nn.TrainOneStepCell(nn.WithLossCell(net, loss), optimizer)`` call and every parameter after it
  (BatchNorm's moving statistics included).

Arrays of up to :data:`FULL_LIMIT` elements (``ModelCase.full_limit``) are stored whole; bigger
ones as the reductions of :func:`reduce_array` (``<key>#reduced``: sum, norms, sums with random
signs, sampled elements), which the tests apply to graphcell's array in the same way. That keeps
each file under 2 MB.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = ROOT / "tests" / "graphcell" / "models" / "goldens"
MODES = ("pynative", "graph")
FULL_LIMIT = 4096   # keeps a ResNet50 file (two modes, gradients and parameters) under 2 MB
SAMPLES = 16
SIGN_VECTORS = 3
WEIGHT_SEED = 0
INPUT_SEED = 1
LABEL_SEED = 2


def normal(*shape):
    """An input of standard normal float32 values."""
    return ("normal", shape)


def integers(high, *shape):
    """An int32 input of values in ``[0, high)`` (class labels, token ids)."""
    return ("integers", shape, high)


@dataclass(frozen=True)
class ModelCase:
    """``examples.models.<module>.<factory>(**kwargs)`` run on ``inputs`` against ``label``.

    ``loss``: ``"softmax_ce"`` (``nn.SoftmaxCrossEntropyWithLogits(sparse=True,
    reduction="mean")``, for classifiers) or ``"mse"`` (``nn.MSELoss()``). ``optimizer``:
    ``"momentum"`` (``nn.Momentum(params, 0.1, 0.9)``) or ``"adam"`` (``nn.Adam(params, 1e-3)``).
    ``slow``: the full-size configurations; tests mark them slow. ``full_limit``: arrays up to
    this size are stored whole (lower it to keep a model with many parameters under 2 MB).
    """

    module: str
    factory: str
    inputs: tuple
    label: tuple
    loss: str = "softmax_ce"
    optimizer: str = "momentum"
    kwargs: dict = field(default_factory=dict)
    slow: bool = False
    full_limit: int = FULL_LIMIT


MODELS = {
    "resnet50": ModelCase("resnet", "resnet50", (normal(2, 3, 64, 64),), integers(10, 2),
                          kwargs={"num_classes": 10}),
    "resnet50_full": ModelCase("resnet", "resnet50", (normal(1, 3, 224, 224),),
                               integers(1000, 1), kwargs={"num_classes": 1000}, slow=True),
    # benchmark only (tools/bench's ResNet-18 row and its compile against MindSpore)
    "resnet18_cifar": ModelCase("resnet", "resnet18", (normal(8, 3, 32, 32),), integers(10, 8),
                                kwargs={"num_classes": 10, "small_input": True}, slow=True),
    "mobilenet_v2": ModelCase("mobilenet_v2", "mobilenet_v2", (normal(2, 3, 64, 64),),
                              integers(10, 2), kwargs={"num_classes": 10, "dropout": 0.0}),
    "densenet121": ModelCase("densenet", "densenet121", (normal(2, 3, 64, 64),),
                             integers(10, 2), kwargs={"num_classes": 10}, full_limit=512),
    "vit": ModelCase("vit", "vit", (normal(2, 3, 16, 16),), integers(10, 2), optimizer="adam"),
    "vit_base": ModelCase("vit", "vit", (normal(1, 3, 224, 224),), integers(1000, 1),
                          optimizer="adam", kwargs={"size": "base"}, slow=True),   # benchmark only
    "vit_base_4_blocks": ModelCase("vit", "vit", (normal(1, 3, 224, 224),), integers(1000, 1),
                                   optimizer="adam", kwargs={"size": "base_4_blocks"}, slow=True),
    # a vocabulary of 16: the random ids hold [PAD] (0) and [SEP] (2), see examples/models/bert.py
    "bert": ModelCase("bert", "bert_classifier", (integers(16, 2, 8),), integers(3, 2),
                      optimizer="adam"),
    "bert_base": ModelCase("bert", "bert_classifier", (integers(30522, 1, 128),), integers(2, 1),
                           optimizer="adam", kwargs={"size": "base"}, slow=True),  # benchmark only
    "bert_base_4_layers": ModelCase("bert", "bert_classifier", (integers(30522, 1, 128),),
                                    integers(2, 1), optimizer="adam",
                                    kwargs={"size": "base_4_layers"}, slow=True),
    "lstm_classifier": ModelCase("lstm_classifier", "lstm_classifier", (integers(50, 2, 8),),
                                 integers(2, 2)),
    "lstm_classifier_full": ModelCase("lstm_classifier", "lstm_classifier",
                                      (integers(20000, 1, 500),), integers(2, 1),
                                      kwargs={"size": "full"}, slow=True),
    "gru_classifier_full": ModelCase("lstm_classifier", "lstm_classifier",
                                     (integers(20000, 1, 500),), integers(2, 1),
                                     kwargs={"size": "full_gru"}, slow=True),  # benchmark only
}


# --- running a model (any framework module passed in as ``ms``) ----------------------------------

def make_input(ms, spec, seed):
    kind, shape = spec[0], spec[1]
    rng = np.random.default_rng(seed)
    if kind == "normal":
        return ms.Tensor(rng.standard_normal(shape).astype(np.float32))
    return ms.Tensor(rng.integers(0, spec[2], shape).astype(np.int32))


def build(ms, case: ModelCase):
    """The network of ``case``, seeded, in train mode; its inputs and its label."""
    module = importlib.import_module(f"examples.models.{case.module}")
    weights = importlib.import_module("examples.models.weights")
    net = getattr(module, case.factory)(**case.kwargs)
    weights.seed_parameters(net, WEIGHT_SEED)
    net.set_train()
    inputs = [make_input(ms, spec, INPUT_SEED + i) for i, spec in enumerate(case.inputs)]
    return net, inputs, make_input(ms, case.label, LABEL_SEED)


def loss_function(ms, case: ModelCase):
    if case.loss == "softmax_ce":
        return ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if case.loss == "mse":
        return ms.nn.MSELoss()
    raise ValueError(f"ModelCase.loss: unknown loss {case.loss!r} (softmax_ce, mse)")


def optimizer(ms, case: ModelCase, params):
    if case.optimizer == "momentum":
        return ms.nn.Momentum(params, 0.1, 0.9)
    if case.optimizer == "adam":
        return ms.nn.Adam(params, 1e-3)
    raise ValueError(f"ModelCase.optimizer: unknown optimizer {case.optimizer!r} "
                     "(momentum, adam)")


def with_loss(ms, net, loss):
    return ms.nn.WithLossCell(net, loss)


def run_forward(ms, case: ModelCase) -> dict:
    net, inputs, _ = build(ms, case)
    return {"forward": net(*inputs).asnumpy()}


def run_gradients(ms, case: ModelCase) -> dict:
    net, inputs, label = build(ms, case)
    params = net.trainable_params()
    grad_fn = ms.value_and_grad(with_loss(ms, net, loss_function(ms, case)), None, params)
    loss, grads = grad_fn(*inputs, label)
    out = {"loss": loss.asnumpy()}
    out.update({f"grad/{p.name}": g.asnumpy() for p, g in zip(params, grads)})
    return out


def run_step(ms, case: ModelCase) -> dict:
    net, inputs, label = build(ms, case)
    opt = optimizer(ms, case, net.trainable_params())
    step = ms.nn.TrainOneStepCell(with_loss(ms, net, loss_function(ms, case)), opt)
    step.set_train()
    out = {"step/loss": step(*inputs, label).asnumpy()}
    out.update({f"step/{name}": p.asnumpy() for name, p in net.parameters_and_names()})
    return out


def run_model(ms, case: ModelCase) -> dict:
    """Forward, loss and gradients, one optimizer step, each from freshly seeded weights, in
    ``ms``'s current mode: ``{key: array}`` with the keys of the module docstring (no mode)."""
    return {**run_forward(ms, case), **run_gradients(ms, case), **run_step(ms, case)}


# --- keeping the files small ---------------------------------------------------------------------

def reduce_array(key: str, array: np.ndarray, full_limit: int = FULL_LIMIT) -> dict:
    """``{key: array}`` for arrays up to ``full_limit`` elements; else ``{key + "#reduced":
    vector}``, the vector holding (see :func:`unpack_reduced`) the sum, the l1 and l2 norms,
    SIGN_VECTORS sums with random signs and SAMPLES sampled elements — signs and samples drawn
    from a generator seeded by ``key``, so graphcell's array reduces the same way. (One vector
    rather than five arrays: each array of an npz file costs a few hundred bytes of headers.)"""
    array = np.asarray(array)
    if array.size <= full_limit:
        return {key: array}
    flat = array.astype(np.float64).ravel()
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    signs = rng.choice([-1.0, 1.0], size=(SIGN_VECTORS, flat.size))
    picks = rng.choice(flat.size, size=SAMPLES, replace=False)
    vector = np.concatenate([[flat.sum(), np.abs(flat).sum(), np.sqrt((flat * flat).sum())],
                             signs @ flat, flat[picks]])
    return {f"{key}#reduced": vector}


def unpack_reduced(vector: np.ndarray) -> dict:
    """The parts of a :func:`reduce_array` vector: ``sum``, ``l1``, ``l2``, ``signs``,
    ``sample``."""
    return {"sum": vector[0], "l1": vector[1], "l2": vector[2],
            "signs": vector[3:3 + SIGN_VECTORS], "sample": vector[3 + SIGN_VECTORS:]}


def reduce_all(arrays: dict, full_limit: int = FULL_LIMIT) -> dict:
    out = {}
    for key, value in arrays.items():
        out.update(reduce_array(key, value, full_limit))
    return out


# --- recording -----------------------------------------------------------------------------------

def use_mindspore_as_graphcell():
    """Make ``import graphcell as ms`` / ``from graphcell import nn, ops`` give MindSpore's."""
    import mindspore
    sys.modules["graphcell"] = mindspore
    for sub in ("nn", "ops", "common", "common.initializer", "context", "numpy"):
        sys.modules[f"graphcell.{sub}"] = importlib.import_module(f"mindspore.{sub}")
    sys.modules["graphcell.dtype"] = importlib.import_module("mindspore.common.dtype")
    return mindspore


def record(name: str) -> Path:
    ms = use_mindspore_as_graphcell()
    case = MODELS[name]
    arrays = {}
    for mode in MODES:
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        reduced = reduce_all(run_model(ms, case), case.full_limit)
        arrays.update({f"{mode}/{k}": v for k, v in reduced.items()})
    GOLDENS.mkdir(parents=True, exist_ok=True)
    path = GOLDENS / f"{name}.npz"
    np.savez_compressed(path, **{k: np.asarray(v) for k, v in arrays.items()})
    print(f"{name}: {len(arrays)} arrays, {path.stat().st_size / 1e6:.2f} MB -> {path}",
          file=sys.stderr)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", action="append", choices=sorted(MODELS), default=[])
    parser.add_argument("--all", action="store_true", help="every model of the table")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    for name in sorted(MODELS) if args.all else args.model:
        record(name)


if __name__ == "__main__":
    main()

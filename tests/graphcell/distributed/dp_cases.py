"""The data-parallel cases, described once for MindSpore and graphcell: networks, weights, data.

This module imports only numpy, so ``tools/record_distributed_goldens.py`` (run by MindSpore 2.10's
``msrun`` in its own venv) and graphcell's tests read the same definitions. A case trains
``STEPS`` steps of Momentum on global batches of ``GLOBAL_BATCH`` rows; process ``r`` of ``n``
trains on rows ``r * GLOBAL_BATCH // n ...`` of each batch (its contiguous shard, so the shards in
rank order are the global batch), starting from the weights :func:`initial_weights` gives.

Example::

    >>> x, y = batches("mlp")
    >>> x.shape, shard(x[0], 1, 2).shape
    ((3, 8, 8), (4, 8))
"""
from __future__ import annotations

import numpy as np

RANKS = 2
STEPS = 3
GLOBAL_BATCH = 8
LEARNING_RATE, MOMENTUM = 0.1, 0.9
KINDS = ("mlp", "lenet")
CASES = (  # (network, gradients_mean) pairs the goldens hold, in both modes
    ("mlp", True), ("mlp", False), ("lenet", True))


def build_network(ms, kind: str):
    """``kind``'s network in framework ``ms`` (mindspore or graphcell)."""
    nn = ms.nn

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(8, 16)
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(16, 4)

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    class LeNet(nn.Cell):
        """The digits example's LeNet (1x8x8 images, 10 classes)."""

        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, pad_mode="same", has_bias=True)
            self.conv2 = nn.Conv2d(16, 32, 3, pad_mode="same", has_bias=True)
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.relu = nn.ReLU()
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(32 * 2 * 2, 64)
            self.fc2 = nn.Dense(64, 10)

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            return self.fc2(self.relu(self.fc1(self.flatten(x))))

    return MLP() if kind == "mlp" else LeNet()


_SHAPES = {
    "mlp": {"fc1.weight": (16, 8), "fc1.bias": (16,), "fc2.weight": (4, 16), "fc2.bias": (4,)},
    "lenet": {"conv1.weight": (16, 1, 3, 3), "conv1.bias": (16,), "conv2.weight": (32, 16, 3, 3),
              "conv2.bias": (32,), "fc1.weight": (64, 128), "fc1.bias": (64,),
              "fc2.weight": (10, 64), "fc2.bias": (10,)},
}


def initial_weights(kind: str) -> dict[str, np.ndarray]:
    """Fixed float32 starting weights (scaled by fan-in, so the losses move visibly)."""
    rng = np.random.default_rng(2310 if kind == "mlp" else 2311)
    out = {}
    for name, shape in _SHAPES[kind].items():
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        out[name] = (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
    return out


def batches(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """``STEPS`` global batches: inputs ``(STEPS, GLOBAL_BATCH, ...)`` and int32 labels."""
    rng = np.random.default_rng(7 if kind == "mlp" else 8)
    shape = (8,) if kind == "mlp" else (1, 8, 8)
    classes = 4 if kind == "mlp" else 10
    x = rng.standard_normal((STEPS, GLOBAL_BATCH, *shape)).astype(np.float32)
    y = rng.integers(0, classes, (STEPS, GLOBAL_BATCH)).astype(np.int32)
    return x, y


def shard(batch: np.ndarray, rank: int, size: int) -> np.ndarray:
    """Process ``rank``'s contiguous share of a global batch."""
    per = len(batch) // size
    return batch[rank * per:(rank + 1) * per]


def set_weights(ms, net, weights: dict[str, np.ndarray]) -> None:
    params = {p.name: p for p in net.get_parameters()}
    assert set(params) == set(weights), (sorted(params), sorted(weights))
    for name, value in weights.items():
        params[name].set_data(ms.Tensor(value))


def train(ms, kind: str, rank: int, size: int) -> tuple[list[float], dict[str, np.ndarray]]:
    """Train ``kind`` for ``STEPS`` steps on this process's shards with
    ``TrainOneStepCell(WithLossCell(net, SoftmaxCrossEntropyWithLogits), Momentum)``; the
    auto-parallel context (set by the caller) decides how gradients are reduced. Returns the
    per-step losses of this process and the final weights."""
    nn = ms.nn
    net = build_network(ms, kind)
    set_weights(ms, net, initial_weights(kind))
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), LEARNING_RATE, MOMENTUM)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    step.set_train()
    x, y = batches(kind)
    losses = []
    for k in range(STEPS):
        loss = step(ms.Tensor(shard(x[k], rank, size)), ms.Tensor(shard(y[k], rank, size)))
        losses.append(float(loss.asnumpy()))
    return losses, {p.name: p.asnumpy() for p in net.get_parameters()}


def collective_inputs(rank: int) -> dict[str, np.ndarray]:
    """The tensors the collective cases start from on process ``rank``."""
    x = (np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * rank)
    w = (np.arange(6, dtype=np.float32).reshape(2, 3) + rank)   # weights of the summed loss
    return {"x": x, "w": w}


# --- the programs MindSpore recorded (tools/record_distributed_goldens.py) and graphcell's worker
# runs, each taking the framework as ``ms`` -----------------------------------------------------

def record_collectives(ms, rank: int, out: dict) -> None:
    ops, nn = ms.ops, ms.nn
    inputs = collective_inputs(rank)
    x, w = ms.Tensor(inputs["x"]), ms.Tensor(inputs["w"])

    class Collectives(nn.Cell):
        def __init__(self):
            super().__init__()
            self.all_reduce, self.all_gather = ops.AllReduce(), ops.AllGather()
            self.bcast0, self.bcast1 = ops.Broadcast(0), ops.Broadcast(1)

        def construct(self, t):
            return (self.all_reduce(t), self.all_gather(t), self.bcast0((t,))[0],
                    self.bcast1((t,))[0])

    class WeightedSum(nn.Cell):
        def __init__(self):
            super().__init__()
            self.all_reduce = ops.AllReduce()

        def construct(self, t, weight):
            return (self.all_reduce(t) * weight).sum()

    for mode, flag in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
        ms.set_context(mode=flag)
        outs = Collectives()(x)
        for name, value in zip(("all_reduce", "all_gather", "broadcast0", "broadcast1"), outs):
            out[f"coll/{mode}/{name}"] = value.asnumpy()
        grad = ms.grad(WeightedSum(), grad_position=0)(x, w)
        out[f"coll/{mode}/grad_all_reduce"] = grad.asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)


def record_context(ms, rank: int, out: dict) -> None:
    nn = ms.nn
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    out["ctx/device_num_unset"] = np.int64(ms.get_auto_parallel_context("device_num"))
    net = nn.Dense(2, 1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    out["ctx/step_mean"] = np.bool_(step.mean)
    out["ctx/step_degree"] = np.int64(step.degree)
    out["ctx/step_reducer_flag"] = np.bool_(step.reducer_flag)
    for mean in (True, False):
        reducer = nn.DistributedGradReducer(net.trainable_params(), mean=mean)
        grads = (ms.Tensor(np.full((1, 2), rank + 1.0, np.float32)),
                 ms.Tensor(np.array([10.0 * (rank + 1)], np.float32)))
        for i, g in enumerate(reducer(grads)):
            out[f"reducer/{mean}/{i}"] = g.asnumpy()
    ms.reset_auto_parallel_context()


def record_training(ms, rank: int, out: dict) -> None:
    for kind, mean in CASES:
        for mode, flag in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
            ms.set_context(mode=flag)
            ms.reset_auto_parallel_context()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                         gradients_mean=mean)
            losses, weights = train(ms, kind, rank, RANKS)
            key = f"train/{kind}/{mean}/{mode}"
            out[f"{key}/losses"] = np.array(losses, np.float64)
            for name, value in weights.items():
                out[f"{key}/{name}"] = value
    ms.reset_auto_parallel_context()
    ms.set_context(mode=ms.PYNATIVE_MODE)

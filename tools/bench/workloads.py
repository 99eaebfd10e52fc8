"""The train-step workloads of issue 21, one description each: which model (built per framework
by ``tools/bench/models.py`` for graphcell and by the peer programs under ``tools/bench/peers/``),
its sizes, the batch, the loss and the optimizer. Every framework starts from the same weights
and inputs (:func:`arrays`), runs the same step (forward, loss, backward, optimizer update) and
reports the loss of its first two steps, which the parent compares (:func:`check_losses`) so
that no row compares different work.

Models (``model`` and its ``config``):

- ``mlp``: Dense layers of ``sizes`` with ReLU between;
- ``lenet``: the seed's LeNet5 (``tests/graphcell/graph/graph_nets.py``; batch 32 of 1x32x32);
- ``resblock``: one ResNet basic block (conv3x3-BN-ReLU-conv3x3-BN + identity, ReLU) of
  ``channels`` channels, a global average pool and a Dense head to 10 classes;
- ``resnet18``: ``examples/models/resnet.py``'s ResNet-18 with the 32x32 stem (3x3/1
  convolution, no max pool), 10 classes;
- ``transformer``: ``nn.TransformerEncoderLayer(d_model, nhead, ffn, dropout=0, relu,
  batch_first=True)`` (post-norm), with an MSE loss against a random target.

Losses: ``ce`` is the mean sparse softmax cross-entropy, ``mse`` the mean squared error.
Optimizers: ``("sgd", lr)`` or ``("momentum", lr, 0.9)`` (no weight decay, no Nesterov).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

import numpy as np

LOSS_RTOL = 2e-3


@dataclass(frozen=True)
class Workload:
    """One train-step row; ``quick`` replaces fields for ``--quick`` (tiny sizes, for tests)."""

    key: str
    title: str
    model: str
    config: dict
    x: tuple
    classes: int | None          # labels in [0, classes); None: an MSE target shaped like x
    loss: str
    optimizer: tuple
    repeats: int = 20
    pynative: bool = True        # also time graphcell's PyNative mode
    quick: dict = field(default_factory=dict)

    def spec(self) -> dict:
        """What a peer program needs (JSON)."""
        d = asdict(self)
        d.pop("quick")
        return d


WORKLOADS = [
    Workload("W1", "MLP 784-1024-1024-10 b128 SGD", "mlp", {"sizes": [784, 1024, 1024, 10]},
             (128, 784), 10, "ce", ("sgd", 0.01),
             quick={"config": {"sizes": [16, 8, 4]}, "x": (4, 16), "classes": 4}),
    Workload("W2", "LeNet5 b32 Momentum", "lenet", {}, (32, 1, 32, 32), 10, "ce",
             ("momentum", 0.01, 0.9)),
    Workload("RESBLOCK", "ResNet block b32 32x32 c32 Momentum", "resblock", {"channels": 32},
             (32, 32, 32, 32), 10, "ce", ("momentum", 0.01, 0.9), repeats=10,
             quick={"config": {"channels": 4}, "x": (2, 4, 6, 6)}),
    Workload("MLP256", "MLP 784-256-256-10 b128 SGD", "mlp", {"sizes": [784, 256, 256, 10]},
             (128, 784), 10, "ce", ("sgd", 0.01),
             quick={"config": {"sizes": [16, 8, 4]}, "x": (4, 16), "classes": 4}),
    Workload("MLP64B1", "MLP 784-64-64-10 b1 SGD (overhead)", "mlp", {"sizes": [784, 64, 64, 10]},
             (1, 784), 10, "ce", ("sgd", 0.01), repeats=100,
             quick={"config": {"sizes": [16, 8, 4]}, "x": (1, 16), "classes": 4, "repeats": 3}),
    Workload("RESNET18", "ResNet-18 32x32 b8 Momentum", "resnet18", {}, (8, 3, 32, 32), 10, "ce",
             ("momentum", 0.01, 0.9), repeats=5, pynative=False,
             quick={"x": (4, 3, 16, 16)}),
    Workload("TRANSFORMER", "Transformer enc. d256 h4 ffn1024 s64 b8 Momentum", "transformer",
             {"d_model": 256, "nhead": 4, "ffn": 1024}, (8, 64, 256), None, "mse",
             ("momentum", 0.01, 0.9), repeats=10,
             quick={"config": {"d_model": 8, "nhead": 2, "ffn": 16}, "x": (2, 4, 8)}),
]
BY_KEY = {w.key: w for w in WORKLOADS}


def quick(w: Workload) -> Workload:
    """``w`` at its tiny sizes, timed twice."""
    return replace(w, **{"repeats": 2, **w.quick})


def arrays(w: Workload, shapes: list[tuple]) -> dict:
    """Seeded weights for parameters of ``shapes`` (graphcell's order; He-scaled matrices,
    vectors of ones for 1-D parameters named ``gamma``... see :func:`weight`), the input and the
    label, as ``{f"{w.key}/p{i}", f"{w.key}/x", f"{w.key}/y"}``."""
    rng = np.random.default_rng(sum(map(ord, w.key)))
    out = {f"{w.key}/p{i}": weight(rng, name, shape) for i, (name, shape) in enumerate(shapes)}
    out[f"{w.key}/x"] = rng.standard_normal(w.x).astype(np.float32)
    out[f"{w.key}/y"] = (rng.integers(0, w.classes, w.x[0]).astype(np.int32) if w.classes
                         else rng.standard_normal(w.x).astype(np.float32))
    return out


def weight(rng, name: str, shape: tuple) -> np.ndarray:
    """Matrices and kernels He-scaled by their fan-in; norm scales (``gamma``) one; other
    vectors (biases, norm shifts) small."""
    if len(shape) >= 2:
        fan_in = int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    if name.endswith("gamma"):
        return np.ones(shape, np.float32)
    return (rng.standard_normal(shape) * 0.01).astype(np.float32)


def check_losses(key: str, losses: dict) -> list[str]:
    """The frameworks whose first loss (the forward) or second (after one update) differs from
    graphcell's by more than LOSS_RTOL: ``["W2 torch eager: losses [2.31, 2.29] vs graphcell
    GRAPH_MODE [2.31, 2.28]", ...]``."""
    ours = {k: v for k, v in losses.items() if k.startswith("graphcell")}
    if not ours:
        return []
    ref_name, ref = next(iter(ours.items()))
    return [f"{key} {name}: losses [{ls[0]:.6g}, {ls[1]:.6g}] vs {ref_name} "
            f"[{ref[0]:.6g}, {ref[1]:.6g}]"
            for name, ls in losses.items()
            if not np.allclose(ls, ref, rtol=LOSS_RTOL, atol=1e-6)]

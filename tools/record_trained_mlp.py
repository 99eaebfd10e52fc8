"""Record a network trained by MindSpore 2.10, for the export-with-checkpoint tests.

    /opt/msvenv/bin/python tools/record_trained_mlp.py

MindSpore trains the MLP of ``tests/graphcell/aot/aot_nets.py`` (Dense 4-8, ReLU, Dense 8-3, the
same parameter names) for a few steps, saves its checkpoint in both of MindSpore's formats and
records its predictions on fixed inputs, into ``tests/graphcell/aot/goldens/``:
``mlp_trained.ckpt``, ``mlp_trained.safetensors`` and ``mlp_trained.npz`` (``x``, ``y``). The
tests export graphcell's MLP with ``--ckpt`` / ``ckpt_file_name`` and compare the artifact's (and
the ONNX model's) predictions with MindSpore's.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "aot" / "goldens"


def inputs() -> np.ndarray:
    return np.random.default_rng(20261125).standard_normal((5, 4)).astype(np.float32)


def main() -> None:
    import mindspore as ms
    from mindspore import nn

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 8)
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(8, 3)

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    ms.set_seed(5)
    net = MLP()
    rng = np.random.default_rng(5)
    data = ms.Tensor(rng.standard_normal((32, 4)).astype(np.float32))
    labels = ms.Tensor(rng.integers(0, 3, 32).astype(np.int32))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(),
                                                                         0.1, 0.9))
    for _ in range(20):
        step(data, labels)
    OUT.mkdir(parents=True, exist_ok=True)
    ms.save_checkpoint(net, str(OUT / "mlp_trained.ckpt"))
    ms.save_checkpoint(net, str(OUT / "mlp_trained.safetensors"), format="safetensors")
    x = inputs()
    np.savez(OUT / "mlp_trained.npz", x=x, y=net(ms.Tensor(x)).asnumpy())
    print(f"wrote {OUT}/mlp_trained.{{ckpt,safetensors,npz}}")


if __name__ == "__main__":
    main()

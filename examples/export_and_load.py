"""Export a network and a training step as artifacts, and run them without the network's class.

    python examples/export_and_load.py [--out DIR]

1. LeNet5 inference: ``ms.export(net, x, file_name=...)`` writes ``lenet5.gcpkg`` (the optimized
   IR, the weights as .npz, a manifest with hashes); ``ms.load`` gives an ``nn.GraphCell`` whose
   outputs equal the network's.
2. A training step (``TrainOneStepCell``: forward, backward and Momentum as one function): the
   loaded GraphCell updates its Parameters in place on each call, step for step like the
   in-process graph-mode cell.
"""
import argparse
import os
import tempfile

import numpy as np

import graphcell as ms
from graphcell import nn, ops


class LeNet5(nn.Cell):
    def __init__(self, num_class=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = ops.reshape(x, (x.shape[0], -1))
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="where to write the artifacts (default: a temp dir)")
    out = ap.parse_args().out or tempfile.mkdtemp(prefix="graphcell-export-")
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((8, 1, 32, 32)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, 8).astype(np.int32))

    net = LeNet5()
    path = ms.export(net, x, file_name=os.path.join(out, "lenet5"))
    print(f"exported {path} ({os.path.getsize(path)} bytes)")
    loaded = ms.load(path)
    print(f"loaded {loaded}")
    same = np.array_equal(loaded(x).asnumpy(), net(x).asnumpy())
    print(f"inference outputs equal: {same}")

    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    path = ms.export(step, x, y, file_name=os.path.join(out, "lenet5_train"))
    trainer = ms.load(path)
    print(f"exported the training step {path}: {trainer.kind}, "
          f"{len(trainer.graph.mutated)} parameters written back per call")
    ms.set_context(mode=ms.GRAPH_MODE)
    for i in range(3):
        a, b = float(trainer(x, y).asnumpy()), float(step(x, y).asnumpy())
        print(f"step {i}: loss loaded {a:.6f}, in-process {b:.6f}")
    weight = dict(trainer.parameters_and_names())["fc3.weight"].asnumpy()
    print(f"trained weights equal: {bool(np.allclose(weight, net.fc3.weight.asnumpy(), rtol=1e-5))}")


if __name__ == "__main__":
    main()

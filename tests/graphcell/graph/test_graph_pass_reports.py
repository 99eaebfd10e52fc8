"""Issue 7: the pass pipeline runs on every compiled Function, forward and backward, and its
reports reach users: the LeNet5 train step (forward, backward, Momentum) shrinks."""
import numpy as np

import graphcell as ms
from graphcell import Tensor, nn
from graphcell_ir.passes.manager import format_reports


class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(self.flatten(x))))))


def test_lenet_train_step_op_count_shrinks_through_the_pipeline():
    ms.set_seed(0)
    net = LeNet5()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    x = Tensor(np.ones((4, 1, 32, 32), np.float32))
    y = Tensor(np.arange(4, dtype=np.int32))
    reports = step.compile(x, y).pass_reports
    assert [r.name for r in reports][:1] and all(r.ops_after >= 0 for r in reports)
    before, after = reports[0].ops_before, reports[-1].ops_after
    print(f"LeNet5 train step: {before} ops from the frontend and autodiff, {after} after the "
          f"pipeline\n{format_reports(reports)}")
    assert after < before
    # inlining exposes the backward (the gradient is a call until then); DCE and fusion shrink it
    peak = max(r.ops_after for r in reports)
    assert peak > before and after < peak
    changed = {r.name for r in reports if r.changed}
    assert {"inline", "dce", "fuse"} <= changed

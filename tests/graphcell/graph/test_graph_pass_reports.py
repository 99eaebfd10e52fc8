"""Issue 7: the pass pipeline runs on every compiled Function, forward and backward, and its
reports reach users: the LeNet5 train step (forward, backward, Momentum) shrinks."""
import numpy as np

import graphcell as ms
from graphcell import Tensor, nn
from graphcell_ir.passes.manager import format_reports

from graph_nets import LeNet5  # the seed's LeNet5 (debugging_in_pynative_mode.md)


def test_lenet_train_step_op_count_shrinks_through_the_pipeline():
    ms.set_seed(0)
    net = LeNet5()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    x = Tensor(np.ones((32, 1, 32, 32), np.float32))  # the seed network reshapes to batch 32
    y = Tensor(np.arange(32, dtype=np.int32) % 10)
    reports = step.compile(x, y).pass_reports
    assert [r.name for r in reports][:1] and all(r.ops_after >= 0 for r in reports)
    before, after = reports[0].ops_before, reports[-1].ops_after
    # the frontend leaves the backward as a call; inlining exposes it: what runs is the inlined
    # program, and the rest of the pipeline shrinks that
    inlined = next(r.ops_after for r in reports if r.name == "inline")
    print(f"LeNet5 train step: {before} ops (backward still a call), {inlined} inlined, {after} "
          f"after the pipeline\n{format_reports(reports)}")
    assert inlined > before and after < inlined
    changed = {r.name for r in reports if r.changed}
    assert {"inline", "dce", "fuse"} <= changed

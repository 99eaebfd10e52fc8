"""Record MindSpore 2.10's mixed-precision training runs, for graphcell's amp tests.

    /opt/msvenv/bin/python tools/record_amp_goldens.py

Runs the cases of ``tests/graphcell/train/amp_cases.py`` (numpy only, shared with the tests) in
MindSpore's PyNative mode and writes ``tests/graphcell/train/goldens/amp.npz``: ``<cid>/losses``,
the loss of every step. (MindSpore's CPU build refuses loss scaling with overflow checks, so the
cases use no loss-scale manager or a fixed scale without them.)
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "train"
sys.path.insert(0, str(TESTS))
import amp_cases as C  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import Tensor, amp, nn  # noqa: E402


def train(case: C.AmpCase) -> np.ndarray:
    net = C.lenet(nn, case.bn)
    params = net.parameters_dict()
    for name, value in C.weights([(n, p.shape) for n, p in params.items()]).items():
        params[name].set_data(Tensor(value))
    scale = case.fixed_scale or 1.0
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, loss_scale=scale)
    manager = amp.FixedLossScaleManager(scale, drop_overflow_update=False) \
        if case.fixed_scale else None
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = amp.build_train_network(net, opt, loss, level=case.level, loss_scale_manager=manager)
    data = C.batches()
    losses = []
    for i in range(C.STEPS):
        x, y = data[i % len(data)]
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
    return np.array(losses, np.float32)


def main() -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    arrays = {f"{case.cid}/losses": train(case) for case in C.CASES if not case.golden}
    out = TESTS / "goldens" / "amp.npz"
    np.savez_compressed(out, **arrays)
    for key, value in arrays.items():
        print(key, value)


if __name__ == "__main__":
    main()

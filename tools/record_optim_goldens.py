"""Record what MindSpore 2.10's optimizers do, for graphcell's optimizer tests.

    /opt/msvenv/bin/python tools/record_optim_goldens.py

Reads the cases of ``tests/graphcell/nn/optim_cases.py`` (numpy only, shared with the tests) and
writes ``tests/graphcell/nn/goldens/optim.npz``:

- ``<cid>/step<k>/<name>``: each parameter after step ``k`` of an ``OptCase`` (the optimizer
  called on the case's gradients), ``<cid>/global_step`` (``state_step`` for
  ``experimental.optim``) after the last step; or
  ``<cid>/error``: the message MindSpore raised (the optimizer refused);
- ``train/<cid>/losses`` and ``train/<cid>/<name>``: the per-step losses of a ``TrainCase``'s
  ``TrainOneStepCell`` and its network's final weights.

MindSpore runs in PyNative mode (its optimizers compile their ``construct`` with ``@jit``).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "nn"
sys.path.insert(0, str(TESTS))
import optim_cases as C  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import Parameter, Tensor, nn  # noqa: E402
from mindspore.experimental import optim  # noqa: E402


def fresh_params() -> list:
    return [Parameter(Tensor(v.copy()), name=name)
            for (name, _), v in zip(C.PARAMS, C.param_values())]


def build(make: str, params: list):
    env = {"nn": nn, "ms": ms, "Tensor": Tensor, "np": np, "params": params, "optim": optim}
    return eval(make, env)  # noqa: S307 - the case's own text


def record_opt_case(case: C.OptCase, arrays: dict) -> None:
    params = fresh_params()
    try:
        opt = build(case.make, params)
        for k, step in enumerate(C.grads(case)):
            opt(tuple(Tensor(g) for g in step))
            for p in params:
                arrays[f"{case.cid}/step{k}/{p.name}"] = p.asnumpy().copy()  # asnumpy shares memory
        counter = opt.global_step if hasattr(opt, "global_step") else opt.state_step
        arrays[f"{case.cid}/global_step"] = counter.asnumpy().copy()
    except Exception as e:  # noqa: BLE001 - MindSpore refusing is the recorded answer
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        arrays[f"{case.cid}/error"] = np.frombuffer(message.encode(), np.uint8)
        print(f"{case.cid}: MindSpore refused: {message}")


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(16, 3)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def record_train_case(case: C.TrainCase, arrays: dict) -> None:
    net = Net()
    for name, value in C.net_weights().items():
        net.parameters_dict()[name].set_data(Tensor(value))
    opt = build(case.make, net.trainable_params())
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    x, y = (Tensor(a) for a in C.train_data())
    arrays[f"train/{case.cid}/losses"] = np.array([float(step(x, y).asnumpy())
                                                   for _ in range(C.STEPS)], np.float32)
    for p in net.trainable_params():
        arrays[f"train/{case.cid}/{p.name}"] = p.asnumpy().copy()


def main() -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    arrays: dict = {}
    for case in C.CASES:
        record_opt_case(case, arrays)
    for case in C.TRAIN_CASES:
        record_train_case(case, arrays)
    out = TESTS / "goldens" / "optim.npz"
    out.parent.mkdir(exist_ok=True)
    np.savez_compressed(out, **arrays)
    print(f"{len(C.CASES)} optimizer cases, {len(C.TRAIN_CASES)} training cases -> {out}")


if __name__ == "__main__":
    main()

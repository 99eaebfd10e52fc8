"""Several threads compiling and training networks at once (``test_graph_threads.py`` runs this
file in a child process with a time limit, so a hang fails the test instead of blocking CI).

Each round starts, at the same moment, threads that

- call one shared Cell with a batch size of their own (its first compile of each: one cache,
  many signatures at once);
- call one shared ``@jit`` function with the same signature (identical compiles at once);
- train their own copy of the same network (identical programs in different cells);
- train a different network each (a convolutional one, an MLP with another optimiser);

and every result must equal what one thread computes alone. ``python concurrent_compiles.py
[rounds]`` prints ``ok`` when it all agrees.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

import graphcell as ms
from graphcell import nn, ops


class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(ops.tanh(self.fc1(x)) * 2.0 + 1.0)


class Conv(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.pool = nn.MaxPool2d(2, 2)
        self.fc = nn.Dense(4 * 3 * 3, 3)

    def construct(self, x):
        y = self.pool(ops.relu(self.conv(x)))
        return self.fc(y.reshape(y.shape[0], -1))


@ms.jit
def scaled(x, y):
    return ops.sigmoid(x * 3.0 - y) + ops.exp(-x)


def _trainer(make, opt, x, y, steps: int, seed: int):
    """A function training a new network (made now, in this thread: initialisers draw from the
    process's random generator) for ``steps`` steps: its losses and final parameters."""
    ms.set_seed(seed)
    np.random.seed(seed)
    net = make()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt(net.trainable_params()))
    return lambda: ([step(x, y).asnumpy() for _ in range(steps)]
                    + [p.asnumpy() for p in net.get_parameters()])


def _momentum(params):
    return nn.Momentum(params, learning_rate=0.05, momentum=0.9)


def _sgd(params):
    return nn.SGD(params, learning_rate=0.1)


def _data(shape, seed: int):
    rng = np.random.default_rng(seed)
    return (ms.Tensor(rng.standard_normal(shape).astype(np.float32)),
            ms.Tensor(rng.integers(0, 3, shape[0]).astype(np.int32)))


def _jobs(round_: int, shared: Small) -> dict:
    """name -> a function computing something; two sets of jobs made by two calls compute the
    same."""
    jobs = {}
    for b in (1, 2, 3, 4):   # one Cell, four new batch sizes at once
        x = ms.Tensor(np.linspace(-1, 1, (b + 4 * round_) * 6, dtype=np.float32)
                      .reshape(-1, 6))
        jobs[f"shared-cell-{b}"] = lambda x=x: [shared(x).asnumpy()]
    xs = ms.Tensor(np.linspace(-2, 2, 10 + round_, dtype=np.float32))
    for k in range(2):       # one @jit function, the same new signature from two threads
        jobs[f"jit-{k}"] = lambda: [scaled(xs, xs * 0.5).asnumpy()]
    x, y = _data((5 + round_, 6), round_)
    for k in range(2):       # two copies of one network, trained
        jobs[f"small-{k}"] = _trainer(Small, _momentum, x, y, 3, seed=7)
    xc, yc = _data((2 + round_, 1, 8, 8), round_ + 100)
    jobs["conv"] = _trainer(Conv, _momentum, xc, yc, 2, seed=3)
    jobs["small-sgd"] = _trainer(Small, _sgd, x, y, 2, seed=11)
    return jobs


def _run_at_once(jobs: dict) -> dict:
    results: dict = {}
    errors: list = []
    barrier = threading.Barrier(len(jobs))

    def run(name, fn):
        try:
            barrier.wait()
            results[name] = fn()
        except BaseException as e:   # reported by the main thread
            errors.append((name, e))

    threads = [threading.Thread(target=run, args=item, name=item[0]) for item in jobs.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        name, e = errors[0]
        raise RuntimeError(f"thread {name} failed: {type(e).__name__}: {e}") from e
    return results


def main(rounds: int) -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    shared = Small()
    for r in range(rounds):
        together = _run_at_once(_jobs(r, shared))
        alone = {name: fn() for name, fn in _jobs(r, shared).items()}   # one at a time
        for name in alone:
            for a, b in zip(together[name], alone[name]):
                np.testing.assert_array_equal(a, b, err_msg=f"round {r}: {name}")
        np.testing.assert_array_equal(together["small-0"][-1], together["small-1"][-1])
    print("ok")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)

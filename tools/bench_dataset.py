"""Dataset benchmark: one epoch of graphcell.dataset pipelines against the same work in plain
numpy.

    python tools/bench_dataset.py [--rows 60000] [--repeat 5]

An MNIST-sized in-memory dataset (uint8 images 28x28x1, int64 labels) is read in batches of 64:

- ``slices+shuffle+batch``: ``NumpySlicesDataset(shuffle=True).batch(64)`` against
  ``x[perm[i:i+64]]`` over a permutation (the indexed path: one gather per column per batch);
- ``slices+shuffle(buffer)+batch``: the shuffle operation's buffer over the row indices;
- ``quick-start map``: the tutorial's Rescale, Normalize, HWC2CHW and TypeCast maps, run on whole
  batches, against the same arithmetic in numpy on each gathered batch;
- ``generator (row path)``: a random-access GeneratorDataset read row by row and stacked, to show
  what the indexed path saves;
- ``Tensors out``: the first pipeline yielding graphcell Tensors instead of numpy arrays.

Each row gives the best and median of ``--repeat`` epochs (ms) and the ratio to numpy's best. The
peak memory an epoch allocates (tracemalloc) is printed against the dataset's size: a pass must
not copy the dataset.
"""
from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

import numpy as np

import graphcell as ms
import graphcell.dataset as ds
from graphcell.dataset import transforms, vision

BATCH = 64


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def epoch(data, output_numpy=True) -> int:
    return sum(1 for _ in data.create_tuple_iterator(output_numpy=output_numpy, num_epochs=1))


def numpy_epoch(x, y, rng, work=None) -> int:
    perm = rng.permutation(len(x))
    count = 0
    for i in range(0, len(x), BATCH):
        idx = perm[i:i + BATCH]
        xb, yb = x[idx], y[idx]
        if work is not None:
            work(xb, yb)
        count += 1
    return count


def quick_start_numpy(xb, yb):
    scaled = (xb.astype(np.float32).astype(np.float64) * np.float32(1 / 255)).astype(np.float32)
    normed = (scaled - np.float32(0.1307)) / np.float32(0.3081)
    return np.ascontiguousarray(normed.transpose(0, 3, 1, 2)), yb.astype(np.int32)


def pipelines(x, y):
    def slices():
        return ds.NumpySlicesDataset({"image": x, "label": y})

    def quick():
        data = slices().map([vision.Rescale(1.0 / 255.0, 0),
                             vision.Normalize(mean=(0.1307,), std=(0.3081,)), vision.HWC2CHW()],
                            "image")
        return data.map(transforms.TypeCast(ms.int32), "label").batch(BATCH)

    class Rows:
        def __getitem__(self, i):
            return x[i], y[i]

        def __len__(self):
            return len(x)

    return {
        "slices+shuffle+batch": (lambda: epoch(slices().batch(BATCH)), None),
        "slices+shuffle(buffer)+batch": (
            lambda: epoch(ds.NumpySlicesDataset({"image": x, "label": y}, shuffle=False)
                          .shuffle(10000).batch(BATCH)), None),
        "quick-start map": (lambda: epoch(quick()), quick_start_numpy),
        "generator (row path)": (
            lambda: epoch(ds.GeneratorDataset(Rows(), ["image", "label"]).batch(BATCH)), None),
        "Tensors out": (lambda: epoch(slices().batch(BATCH), output_numpy=False), None),
    }


def peak_of_one_epoch(x, y) -> int:
    it = ds.NumpySlicesDataset({"image": x, "label": y}).batch(BATCH).create_tuple_iterator(
        output_numpy=True, num_epochs=1)
    tracemalloc.start()
    for _ in it:
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=60000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (args.rows, 28, 28, 1), dtype=np.uint8)
    y = rng.integers(0, 10, args.rows)
    ds.config.set_seed(0)
    print(f"{args.rows} rows of 28x28x1 uint8 + int64 label ({x.nbytes / 1e6:.1f} MB), "
          f"batch {BATCH}, best / median of {args.repeat} epochs")
    print(f"{'pipeline':32} {'graphcell ms':>16} {'numpy ms':>10} {'ratio':>7}")
    for name, (run, work) in pipelines(x, y).items():
        mine = timed(run, args.repeat)
        ref = timed(lambda: numpy_epoch(x, y, rng, work), args.repeat)
        print(f"{name:32} {min(mine):7.1f} / {statistics.median(mine):6.1f} {min(ref):10.1f} "
              f"{min(mine) / min(ref):6.1f}x")
    peak = peak_of_one_epoch(x, y)
    print(f"peak allocation during one epoch: {peak / 1e6:.2f} MB "
          f"({100 * peak / x.nbytes:.2f} % of the dataset)")


if __name__ == "__main__":
    main()

"""Train LeNet on scikit-learn's digits data set across processes, data-parallel, as MindSpore
users do: ``communication.init``, ``set_auto_parallel_context(DATA_PARALLEL)``, a sharded
dataset and ``Model.train``.

Run:  mpiexec -n 2 python examples/train_data_parallel.py [--epochs N] [--quick] [--graph]
      python examples/train_data_parallel.py --quick          (the same training in one process)

Requires the ``distributed`` extra for more than one process (``pip install
'graphcell[distributed]'``: mpi4py and the mpich MPI library, which provides ``mpiexec``) and
scikit-learn (the ``examples`` extra). ``docs/distributed.md`` says how to run across machines.

Each of the N processes reads its shard of the training set (``num_shards=N, shard_id=rank``:
MindSpore's round-robin deal of one shuffled order) in batches of ``32 / N``; the gradients are
averaged over the processes before every update (``gradients_mean=True``), so each step is the
one a single process takes on the global batch of 32, and N processes end with the accuracy one
process reaches (the same weights, to float32 rounding). ``ms.set_seed`` gives every process the
same starting weights. The network and the data split are ``train_lenet_digits.py``'s; training
uses Adam with a per-step cosine-decayed learning rate. Rank 0 prints the mean loss over the
processes after each epoch and, last, ``final test accuracy: X``; with ``--ckpt-dir`` rank 0
alone writes checkpoints. ``--quick`` trains 3 epochs (about 89 %), the default 20 (about 98 %).
"""
import argparse
import os
import sys
import time

import numpy as np

import graphcell as ms
import graphcell.dataset as ds
from graphcell import nn, ops
from graphcell.communication import get_group_size, get_rank, init
from graphcell.train import Callback, CheckpointConfig, Model, ModelCheckpoint

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_lenet_digits import (FULL_EPOCHS, LEARNING_RATE, QUICK_EPOCHS, SEED,  # noqa: E402
                                LeNet, cosine_lr, load_data)

GLOBAL_BATCH = 32


class EpochReport(Callback):
    """Rank 0 prints each epoch's training loss, averaged over the steps and the processes."""

    def __init__(self, rank: int):
        super().__init__()
        self.rank, self.losses, self.start = rank, [], time.perf_counter()
        self.average = ops.AllReduce(ops.ReduceOp.AVG)

    def on_train_step_end(self, run_context):
        self.losses.append(run_context.original_args().net_outputs)

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        local = ms.Tensor(np.float32(np.mean([float(l.asnumpy()) for l in self.losses])))
        mean = float(self.average(local).asnumpy())    # every process takes part
        self.losses = []
        if self.rank == 0:
            print(f"epoch {cb.cur_epoch_num}/{cb.epoch_num}: loss {mean:.4f} "
                  f"({time.perf_counter() - self.start:.1f} s)", flush=True)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=None,
                        help=f"training epochs (default {FULL_EPOCHS}, or {QUICK_EPOCHS} "
                             "with --quick)")
    parser.add_argument("--quick", action="store_true", help="a short run, for tests")
    parser.add_argument("--graph", action="store_true", help="compile the training step "
                                                             "(GRAPH_MODE) instead of PyNative")
    parser.add_argument("--ckpt-dir", default=None, help="write a checkpoint per epoch here "
                                                         "(rank 0 only)")
    args = parser.parse_args(argv)
    if args.epochs is None:
        args.epochs = QUICK_EPOCHS if args.quick else FULL_EPOCHS
    return args


def main(argv=None):
    args = parse_args(argv)
    init()
    rank, size = get_rank(), get_group_size()
    if GLOBAL_BATCH % size:
        raise SystemExit(f"the global batch of {GLOBAL_BATCH} must split evenly over the "
                         f"{size} processes")
    ms.set_context(mode=ms.GRAPH_MODE if args.graph else ms.PYNATIVE_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_seed(SEED)   # the same starting weights, and the same shuffled order, everywhere

    x_train, y_train, x_test, y_test = load_data()
    train = ds.NumpySlicesDataset({"image": x_train, "label": y_train}, shuffle=True,
                                  num_shards=size, shard_id=rank)
    train = train.batch(GLOBAL_BATCH // size, drop_remainder=True)
    test = ds.NumpySlicesDataset({"image": x_test, "label": y_test}, shuffle=False).batch(256)
    if rank == 0:
        print(f"digits: {len(x_train)} training images in {size} shard(s), batches of "
              f"{GLOBAL_BATCH // size} per process ({GLOBAL_BATCH} per step)", flush=True)

    net = LeNet()
    steps = train.get_dataset_size()
    optimizer = nn.Adam(net.trainable_params(),
                        learning_rate=cosine_lr(LEARNING_RATE, args.epochs, steps))
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  optimizer, metrics={"acc"})
    callbacks = [EpochReport(rank)]
    if args.ckpt_dir:
        callbacks.append(ModelCheckpoint("lenet", args.ckpt_dir,
                                         CheckpointConfig(save_checkpoint_steps=steps)))
    model.train(args.epochs, train, callbacks=callbacks)
    accuracy = model.eval(test)["acc"]          # every process holds the same weights
    if rank == 0:
        print(f"final test accuracy: {accuracy:.4f}", flush=True)
    return accuracy


if __name__ == "__main__":
    main()

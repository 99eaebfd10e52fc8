"""One process of the 2-process data-parallel test job: ``mpiexec -n 2 python worker.py OUT``.

Every check runs in one launch (starting a job costs seconds); each process saves what it saw in
``OUT/rank<r>.npz`` and ``test_data_parallel.py`` (the single-process pytest side) compares:

- ``coll/*``, ``ctx/*``, ``reducer/*``, ``train/*``: the cases MindSpore 2.10 recorded
  (``tools/record_distributed_goldens.py``), computed the same way;
- ``more/*``: collectives MindSpore's CPU build lacks (``ReduceScatter``, ``Reduce``, the other
  reductions), their gradients, the in-place functions, groups;
- ``model/*``: ``Model.train`` on a sharded ``graphcell.dataset`` with ``ModelCheckpoint``;
- ``seed/*``, ``bcast/*``: the starting weights with ``set_seed`` and with ``parameter_broadcast``;
- ``buckets/*``: training with small gradient buckets, and how many all-reduces a step ran.

A failure raises, which (after ``communication.init``) ends the whole job, so the test sees it.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dp_cases  # noqa: E402
import graphcell as ms  # noqa: E402
from graphcell import nn, ops  # noqa: E402
from graphcell.communication import (create_group, get_group_size, get_local_rank,  # noqa: E402
                                     get_rank, init)
from graphcell_ir import comm  # noqa: E402

MODES = (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE))


def data_parallel(mean=True, **kwargs):
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=mean, **kwargs)


class WeightedSum(nn.Cell):
    """``sum(collective(t) * weight)``: the gradient of a collective, weighted per process."""

    def __init__(self, collective, takes_tuple=False):
        super().__init__()
        self.collective, self.takes_tuple = collective, takes_tuple

    def construct(self, t, weight):
        out = self.collective((t,))[0] if self.takes_tuple else self.collective(t)
        return (out * weight).sum()


def record_collectives(rank: int, out: dict) -> None:
    inputs = dp_cases.collective_inputs(rank)
    x, w = ms.Tensor(inputs["x"]), ms.Tensor(inputs["w"])
    w_half = ms.Tensor(inputs["w"][:1])        # the weight of a block of ReduceScatter's result
    w_gathered = ms.Tensor(np.tile(inputs["w"], (2, 1)))
    dp_cases.record_collectives(ms, rank, out)   # what MindSpore recorded
    for mode, flag in MODES:   # beyond MindSpore's CPU build
        ms.set_context(mode=flag)
        for op in ("sum", "max", "min", "prod", "avg"):
            out[f"more/{mode}/all_reduce_{op}"] = ops.AllReduce(op)(x).asnumpy()
            out[f"more/{mode}/reduce_scatter_{op}"] = ops.ReduceScatter(op)(x).asnumpy()
            out[f"more/{mode}/reduce_{op}"] = ops.Reduce(1, op)(x).asnumpy()
        for op in ("max", "avg", "prod"):
            grad = ms.grad(WeightedSum(ops.AllReduce(op)))(x, w)
            out[f"more/{mode}/grad_all_reduce_{op}"] = grad.asnumpy()
        out[f"more/{mode}/grad_all_gather"] = ms.grad(WeightedSum(ops.AllGather()))(
            x, w_gathered).asnumpy()
        out[f"more/{mode}/grad_reduce_scatter"] = ms.grad(WeightedSum(ops.ReduceScatter()))(
            x, w_half).asnumpy()
        out[f"more/{mode}/grad_broadcast1"] = ms.grad(WeightedSum(ops.Broadcast(1), True))(
            x, w).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)


def record_functions(rank: int, out: dict) -> None:
    """MindSpore 2.10's in-place functions, groups, the local rank."""
    t = ms.Tensor(dp_cases.collective_inputs(rank)["x"])
    ops.all_reduce(t)
    out["more/fn/all_reduce"] = t.asnumpy()
    t = ms.Tensor(np.full(3, rank + 1.0, np.float32))
    handle = ops.broadcast(t, 1, async_op=True)
    handle.wait()
    out["more/fn/broadcast"] = t.asnumpy()
    parts = [ms.Tensor(np.zeros(2, np.float32)) for _ in range(get_group_size())]
    ops.all_gather(parts, ms.Tensor(np.full(2, float(rank), np.float32)))
    out["more/fn/all_gather"] = np.stack([p.asnumpy() for p in parts])
    into = ms.Tensor(np.zeros((4, 2), np.float32))
    ops.all_gather_into_tensor(into, ms.Tensor(np.full((2, 2), float(rank), np.float32)))
    out["more/fn/all_gather_into_tensor"] = into.asnumpy()
    got = ms.Tensor(np.zeros(2, np.float32))
    ops.reduce_scatter(got, [ms.Tensor(np.full(2, 10.0 * r + rank, np.float32)) for r in range(2)])
    out["more/fn/reduce_scatter"] = got.asnumpy()
    t = ms.Tensor(np.full(2, rank + 1.0, np.float32))
    ops.reduce(t, 0)
    out["more/fn/reduce"] = t.asnumpy()
    ops.barrier()
    out["more/local_rank"] = np.int64(get_local_rank())
    create_group("pair", [1, 0])               # group rank 0 is world rank 1
    out["more/pair_rank"] = np.int64(get_rank("pair"))
    out["more/pair_gather"] = ops.AllGather("pair")(ms.Tensor([float(rank)])).asnumpy()
    try:
        ops.AllReduce(group="nobody")(ms.Tensor([1.0]))
    except comm.CommError as e:
        out["more/unknown_group_error"] = np.str_(str(e))


def record_buckets(rank: int, out: dict) -> None:
    """LeNet with 16 KB buckets (several all-reduces per step), in graph mode: the weights must
    not change, the number of collectives must."""
    ms.set_context(mode=ms.GRAPH_MODE)
    data_parallel(mean=True, comm_fusion={"allreduce": {"mode": "size", "config": 1 / 64}})
    stats = comm.world().stats
    stats.reset()
    _, weights = dp_cases.train(ms, "lenet", rank, dp_cases.RANKS)
    out["buckets/all_reduce_calls"] = np.int64(stats.calls.get("all_reduce", 0))
    for name, value in weights.items():
        out[f"buckets/{name}"] = value
    ms.set_context(mode=ms.PYNATIVE_MODE)


def record_model(rank: int, size: int, out: dict, ckpt_dir: str) -> None:
    """Model.train on this process's shard (round-robin, as MindSpore deals it), per-process
    batch GLOBAL_BATCH / size, with ModelCheckpoint writing into one shared directory."""
    import graphcell.dataset as ds
    from graphcell.train import CheckpointConfig, Model, ModelCheckpoint
    data_parallel(mean=True)
    x, y = dp_cases.batches("mlp")
    data = ds.NumpySlicesDataset({"x": x.reshape(-1, 8), "y": y.reshape(-1)}, shuffle=False,
                                 num_shards=size, shard_id=rank)
    data = data.batch(dp_cases.GLOBAL_BATCH // size)
    net = dp_cases.build_network(ms, "mlp")
    dp_cases.set_weights(ms, net, dp_cases.initial_weights("mlp"))
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), dp_cases.LEARNING_RATE, dp_cases.MOMENTUM))
    ckpt = ModelCheckpoint("dp", ckpt_dir, CheckpointConfig(save_checkpoint_steps=1))
    model.train(1, data, callbacks=[ckpt])
    for p in net.get_parameters():
        out[f"model/{p.name}"] = p.asnumpy()
    out["model/latest_ckpt"] = np.str_(ckpt.latest_ckpt_file_name)


def record_starting_weights(rank: int, out: dict) -> None:
    ms.reset_auto_parallel_context()
    ms.set_seed(5)
    out["seed/fc1.weight"] = dp_cases.build_network(ms, "mlp").fc1.weight.asnumpy()
    # different seeds per process, then parameter_broadcast: rank 0's weights everywhere
    ms.set_seed(100 + rank)
    net = dp_cases.build_network(ms, "mlp")
    out["bcast/before"] = net.fc1.weight.asnumpy()
    data_parallel(mean=True, parameter_broadcast=True)
    nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                        nn.Momentum(net.trainable_params(), 0.1, 0.9))
    out["bcast/after"] = net.fc1.weight.asnumpy()
    ms.reset_auto_parallel_context()


def main(out_dir: str) -> None:
    init()
    rank, size = get_rank(), get_group_size()
    assert size == dp_cases.RANKS, f"run with mpiexec -n {dp_cases.RANKS}, got {size}"
    ms.set_seed(0)
    out: dict = {}
    record_collectives(rank, out)
    record_functions(rank, out)
    dp_cases.record_context(ms, rank, out)
    dp_cases.record_training(ms, rank, out)
    record_buckets(rank, out)
    record_model(rank, size, out, os.path.join(out_dir, "ckpt"))
    record_starting_weights(rank, out)
    np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **out)


if __name__ == "__main__":
    main(sys.argv[1])

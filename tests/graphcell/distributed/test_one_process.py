"""Communication and data parallelism in one process (no ``mpiexec``): the world of one, the
auto-parallel context, the gradient reducer and its buckets, the training step's wiring, the
errors. The 2-process behaviour is ``test_data_parallel.py``'s."""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell import context, nn, ops
from graphcell.communication import (GlobalComm, create_group, get_group_size, get_local_rank,
                                     get_rank, init)
from graphcell.parallel import _utils
from graphcell.parallel.grad_reducer import Bucket, plan_buckets
from graphcell.parallel.replicas import ReplicaWarning
from graphcell_ir import comm
from graphcell_ir.errors import CommError, CommNotInstalledError, GraphCompileError

import mpi_job

X = np.arange(6, dtype=np.float32).reshape(2, 3)
MODES = (ms.PYNATIVE_MODE, ms.GRAPH_MODE)


@pytest.fixture(autouse=True)
def _fresh_context():
    context._reset_for_tests()
    yield
    context._reset_for_tests()


# --- the world of one --------------------------------------------------------------------------------

def test_without_init_the_world_is_this_process():
    assert (get_rank(), get_group_size(), get_local_rank()) == (0, 1, 0)
    assert GlobalComm.WORLD_COMM_GROUP == "hccl_world_group" and not GlobalComm.INITED
    assert comm.world().backend == "local"


class Every(nn.Cell):
    def __init__(self):
        super().__init__()
        self.prims = (ops.AllReduce(), ops.AllReduce(ops.ReduceOp.MAX), ops.AllGather(),
                      ops.ReduceScatter(), ops.Reduce(0))
        self.bcast = ops.Broadcast(0)

    def construct(self, x):
        outs = [p(x) for p in self.prims]
        return tuple(outs) + self.bcast((x,))


@pytest.mark.parametrize("mode", MODES)
def test_collectives_are_the_identity_in_a_world_of_one(mode):
    ms.set_context(mode=mode)
    for out in Every()(ms.Tensor(X)):
        np.testing.assert_array_equal(out.asnumpy(), X)


def test_in_place_functions_in_a_world_of_one():
    t = ms.Tensor(X)
    assert ops.all_reduce(t) is None and ops.broadcast(t, 0) is None
    handle = ops.all_reduce(t, async_op=True)
    assert handle.wait() is None
    np.testing.assert_array_equal(t.asnumpy(), X)
    parts = [ms.Tensor(np.zeros(3, np.float32))]
    ops.all_gather(parts, ms.Tensor(X[0]))
    np.testing.assert_array_equal(parts[0].asnumpy(), X[0])
    with pytest.raises(ValueError, match="list of 1 Tensors"):
        ops.all_gather([], ms.Tensor(X[0]))


def test_init_without_the_extra_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)       # as if it were not installed
    with pytest.raises(CommNotInstalledError, match=r"pip install 'graphcell\[distributed\]'"):
        init()
    assert not GlobalComm.INITED and comm.world().backend == "local"


def test_init_in_a_plain_process_is_a_world_of_one(tmp_path):
    pytest.importorskip("mpi4py", reason="the 'distributed' extra is not installed")
    script = tmp_path / "one.py"
    script.write_text("from graphcell.communication import init, get_rank, get_group_size, "
                      "GlobalComm\ninit()\nprint(get_rank(), get_group_size(), "
                      "GlobalComm.WORLD_COMM_GROUP, GlobalComm.INITED)\n")
    run = mpi_job.run(None, script, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["0", "1", "mccl_world_group", "True"]


def test_init_checks_its_backend_name():
    with pytest.raises(TypeError, match="must be a string"):
        init(1)
    with pytest.raises(RuntimeError, match="one of 'hccl', 'nccl' and 'mccl'"):
        init("gloo")


# --- errors ---------------------------------------------------------------------------------------

def test_unknown_groups_are_errors_naming_the_group():
    with pytest.raises(CommError, match="no communication group named 'nobody'.*create_group"):
        ops.AllReduce(group="nobody")(ms.Tensor(X))
    with pytest.raises(CommError, match="no communication group named 'g'"):
        get_rank("g")
    with pytest.raises(TypeError, match="'group' must be type of string"):
        get_rank(1)


def test_graph_mode_errors_point_at_the_users_line():
    ms.set_context(mode=ms.GRAPH_MODE)

    class Net(nn.Cell):
        def __init__(self, prim):
            super().__init__()
            self.prim = prim

        def construct(self, x):
            return self.prim(x) * 2

    with pytest.raises(GraphCompileError) as e:
        Net(ops.AllReduce(group="nobody"))(ms.Tensor(X))
    assert "test_one_process.py" in str(e.value) and "self.prim(x) * 2" in str(e.value)

    @ms.jit
    def in_place(x):
        ops.all_reduce(x)
        return x
    with pytest.raises(TypeError, match="runs in PyNative mode only.*ops.AllReduce"):
        in_place(ms.Tensor(X))


def test_bad_primitive_arguments_fail_where_the_primitive_is_made():
    with pytest.raises(ValueError, match="'op' must be one of"):
        ops.AllReduce("mean")
    with pytest.raises(TypeError, match="'group' must be a str"):
        ops.AllGather(3)
    with pytest.raises(TypeError, match="'root_rank' must be a non-negative int"):
        ops.Broadcast(-1)
    with pytest.raises(ValueError, match="'root_rank' 3 is not a member"):
        ops.Broadcast(3)((ms.Tensor(X),))
    with pytest.raises(TypeError, match="tuple of Tensors.*got a Tensor"):
        ops.Broadcast(0)(ms.Tensor(X))
    with pytest.raises(TypeError, match="numeric"):
        ops.AllReduce()(ms.Tensor(np.array([True, False])))
    with pytest.raises(ValueError, match="multiple of rank_size"):
        ops.ReduceScatter()(ms.Tensor(np.float32(1.0)))


def test_groups_of_a_world_of_one():
    with pytest.raises(CommError, match=r"ranks \[1\] are not in the world of 1"):
        create_group("g", [0, 1])
    with pytest.raises(CommError, match="name of the world group"):
        create_group("hccl_world_group", [0])
    with pytest.raises(TypeError, match="must be type of list"):
        create_group("g", (0,))
    create_group("solo", [0])
    try:
        assert get_rank("solo") == 0 and get_group_size("solo") == 1
        np.testing.assert_array_equal(ops.AllGather("solo")(ms.Tensor(X)).asnumpy(), X)
    finally:
        ms.communication.destroy_group("solo")


# --- the auto-parallel context -------------------------------------------------------------------------

def test_auto_parallel_context_defaults_are_mindspores():
    # MindSpore 2.10's values in one process
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    assert ms.get_auto_parallel_context("device_num") == 1
    assert ms.get_auto_parallel_context("gradients_mean") is False
    assert ms.get_auto_parallel_context("all_reduce_fusion_config") == []
    assert ms.get_auto_parallel_context("comm_fusion")["allreduce"] == {"mode": "auto",
                                                                         "config": None}
    assert ms.context.ParallelMode is ms.ParallelMode


def test_auto_parallel_context_checks_before_changing_anything():
    with pytest.raises(ValueError, match="only support 'stand_alone'"):
        ms.set_auto_parallel_context(gradients_mean=True, parallel_mode="bogus")
    assert ms.get_auto_parallel_context("gradients_mean") is False
    with pytest.raises(TypeError, match="'gradients_mean' must be bool"):
        ms.set_auto_parallel_context(gradients_mean=1)
    with pytest.raises(ValueError, match="must be a positive integer"):
        ms.set_auto_parallel_context(device_num=0)
    with pytest.raises(ValueError, match="is not recognized"):
        ms.set_auto_parallel_context(nokey=1)
    with pytest.raises(ValueError, match="is not recognized"):
        ms.get_auto_parallel_context("pipeline_config")
    for mode in (ms.ParallelMode.SEMI_AUTO_PARALLEL, ms.ParallelMode.AUTO_PARALLEL):
        with pytest.raises(ValueError, match="data-parallel only"):
            ms.set_auto_parallel_context(parallel_mode=mode)
    with pytest.raises(ValueError, match="pipeline parallelism is not supported"):
        ms.set_auto_parallel_context(pipeline_stages=2)


def test_device_num_divides_only_when_set():
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    assert _utils._get_device_num() == 1            # the number of processes
    ms.set_auto_parallel_context(device_num=4)
    assert _utils._get_device_num() == 4
    ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": 8}})
    fusion = ms.get_auto_parallel_context("comm_fusion")
    assert fusion["allreduce"] == {"mode": "size", "config": 8} and fusion["openstate"]
    ms.reset_auto_parallel_context()
    assert _utils._get_device_num() == 1 and _utils._get_parallel_mode() == "stand_alone"


# --- buckets and the reducer -------------------------------------------------------------------------

def test_buckets_split_by_dtype_size_and_index():
    specs = [((4,), np.float32), ((2, 2), np.float32), ((3,), np.float64), ((8,), np.float32)]
    assert plan_buckets(specs, (), None) == (
        Bucket((0, 1, 3), ((4,), (2, 2), (8,)), "float32"), Bucket((2,), ((3,),), "float64"))
    assert [b.indices for b in plan_buckets(specs, (), 32)] == [(0, 1), (2,), (3,)]
    assert [b.indices for b in plan_buckets(specs, (1,), None)] == [(0,), (1, 3), (2,)]
    assert [b.indices for b in plan_buckets(specs, (), 0)] == [(0,), (1,), (2,), (3,)]
    assert plan_buckets(specs, (), None)[0].nbytes == 64


def test_reducer_checks_its_arguments_and_the_gradients():
    net = nn.Dense(3, 2)
    params = net.trainable_params()
    for degree in (0, 1.5, True):
        with pytest.raises(ValueError, match="should large than 0 and be int"):
            nn.DistributedGradReducer(params, degree=degree)
    with pytest.raises(TypeError, match="'mean' must be a bool"):
        nn.DistributedGradReducer(params, mean="yes")
    reducer = nn.DistributedGradReducer(params)
    with pytest.raises(ValueError, match="expected a tuple of 2 gradients"):
        reducer((ms.Tensor(X),))
    with pytest.raises(ValueError, match=r"gradient 1 \(of parameter 'bias'\) has shape \[3\]"):
        reducer((ops.ones((2, 3), ms.float32), ops.ones((3,), ms.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_reducer_divides_by_degree_in_either_mode(mode):
    ms.set_context(mode=mode)
    params = nn.Dense(3, 2).trainable_params()
    grads = (ms.Tensor(X), ms.Tensor(np.array([2.0, 4.0], np.float32)))
    for mean, degree, scale in ((True, 2, 0.5), (False, 2, 1.0), (True, None, 1.0)):
        reducer = nn.DistributedGradReducer(params, mean=mean, degree=degree)
        out = ms.jit(reducer.construct)(grads) if mode == ms.GRAPH_MODE else reducer(grads)
        for g, want in zip(out, grads):
            np.testing.assert_allclose(g.asnumpy(), want.asnumpy() * scale)


def test_reducer_follows_the_fusion_settings():
    params = nn.Dense(3, 2).trainable_params()
    ms.set_auto_parallel_context(comm_fusion={"openstate": False})
    assert len(nn.DistributedGradReducer(params).buckets) == 2
    ms.set_auto_parallel_context(comm_fusion={"openstate": True}, all_reduce_fusion_config=[1])
    assert [b.indices for b in nn.DistributedGradReducer(params).buckets] == [(0,), (1,)]


# --- the training step -----------------------------------------------------------------------------------

def _train(mode, parallel: bool):
    ms.set_context(mode=mode)
    ms.reset_auto_parallel_context()
    if parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True)
    ms.set_seed(3)
    net = nn.Dense(3, 2)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    x, y = ms.Tensor(X), ms.Tensor(np.ones((2, 2), np.float32))
    for _ in range(3):
        step(x, y)
    return step, net.weight.asnumpy(), (x, y)


@pytest.mark.parametrize("mode", MODES)
def test_data_parallel_training_step_in_a_world_of_one(mode):
    step, weights, (x, y) = _train(mode, parallel=True)
    assert step.reducer_flag and step.degree == 1 and step.mean is True
    assert len(step.grad_reducer.buckets) == 1
    _, alone, _ = _train(mode, parallel=False)
    np.testing.assert_array_equal(weights, alone)


def test_the_compiled_step_reduces_gradients_in_its_ir():
    step, _, (x, y) = _train(ms.GRAPH_MODE, parallel=True)
    text = step.compile(x, y).as_text()
    assert text.count("all_reduce(") == 1        # one bucket
    step, _, (x, y) = _train(ms.GRAPH_MODE, parallel=False)
    assert "all_reduce(" not in step.compile(x, y).as_text() and not step.reducer_flag


def test_no_replica_warning_for_one_process():
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    net = nn.Dense(2, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReplicaWarning)
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                            nn.Momentum(net.trainable_params(), 0.1, 0.9))


def test_construct_may_ask_for_its_rank_while_compiling():
    from graphcell.communication import get_group_size as size_of_group
    ms.set_context(mode=ms.GRAPH_MODE)

    class Scaled(nn.Cell):
        def construct(self, x):
            return ops.AllReduce()(x) / size_of_group() + get_rank()

    np.testing.assert_array_equal(Scaled()(ms.Tensor(X)).asnumpy(), X)

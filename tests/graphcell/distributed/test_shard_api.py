"""``shard``, ``Layout`` and the strategy-search parameters in one process: layouts as MindSpore
2.10 computes them (the expected tensor maps are MindSpore's outputs for the same calls),
``shard`` returning the function, and the checks."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn

LAYOUT = ms.Layout((2, 2, 2), ("dp", "sp", "mp"))


@pytest.mark.parametrize("axes, tensor_map", [
    (("dp", "mp"), (2, 0)),
    ((("dp", "sp"), "None", "mp"), ((2, 1), -1, 0)),
    (("None", "None"), (-1, -1)),
    (("mp",), (0,)),
])
def test_tensor_maps_are_mindspores(axes, tensor_map):
    assert LAYOUT(*axes).to_dict()["tensor_map"] == tensor_map


def test_an_interleaved_layout_with_its_ranks():
    layout = ms.Layout((4, 2), ("dp", "interleaved_parallel"), rank_list=[7, 6, 5, 4, 3, 2, 1, 0])
    assert layout("dp").to_dict() == {
        "device_matrix": (4, 2), "tensor_map": (1,), "interleaved_parallel": True,
        "alias_name": ("dp", "interleaved_parallel"), "rank_list": [7, 6, 5, 4, 3, 2, 1, 0]}


@pytest.mark.parametrize("make, message", [
    (lambda: LAYOUT("dp", "dp"), "more than one dimension"),
    (lambda: LAYOUT("xx"), "not one of"),
    (lambda: ms.Layout((2,), ("None",)), "cannot be empty or 'None'"),
    (lambda: ms.Layout((2, 2), ("a", "a")), "must be different"),
    (lambda: ms.Layout((2, 2), ("interleaved_parallel", "a")), "must be the last alias"),
    (lambda: ms.Layout((2, 2), ("a", "b"), rank_list=[0, 1]), "has 2 ranks"),
    (lambda: ms.Layout((2, 2), ("a", "b"))().to_dict() and ms.Layout((2,), ("a",)).to_dict(),
     "call the layout"),
])
def test_bad_layouts_are_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_shard_in_one_process_runs_the_function_whole(mode):
    ms.set_context(mode=mode)
    try:
        net = nn.Dense(3, 2)
        assert ms.shard(net, in_strategy=((2, 1),), out_strategy=((2, 1),)) is net
        x = ms.Tensor(np.ones((4, 3), np.float32))
        np.testing.assert_allclose(ms.shard(net, (LAYOUT("dp", "None"),))(x).asnumpy(),
                                   net(x).asnumpy())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="'in_strategy' must be a tuple"):
        ms.shard(net, in_strategy=[(2, 1)])


def test_algo_parameters_are_checked_and_kept():
    try:
        ms.set_algo_parameters(fully_use_devices=True, algo_approxi_epsilon=0.5)
        assert ms.get_algo_parameters("fully_use_devices") is True
        assert ms.get_algo_parameters("algo_approxi_epsilon") == 0.5
        with pytest.raises(ValueError, match="is not a parameter"):
            ms.set_algo_parameters(unknown=True)
        with pytest.raises(ValueError, match=r"\[1, 1024\]"):
            ms.set_algo_parameters(tensor_slice_align_size=0)
        with pytest.raises(TypeError, match="must be a bool"):
            ms.set_algo_parameters(enable_algo_approxi=1)
    finally:
        ms.reset_algo_parameters()
    assert ms.get_algo_parameters("fully_use_devices") is False


# Each rank writes its own file: two ranks printing through mpiexec can interleave their lines.
SHARD_IN_A_JOB = """\
import graphcell as ms
from graphcell.communication import get_rank, init
init()
try:
    ms.shard(lambda x: x, in_strategy=((2, 1),))
except NotImplementedError as e:
    with open(f"refused_{get_rank()}.txt", "w") as out:
        out.write(f"refused: {e}")
"""


def test_shard_across_processes_is_refused_clearly(tmp_path):
    import mpi_job
    if mpi_job.mpiexec() is None:
        pytest.skip("the distributed extra (mpi4py, mpich) is not installed")
    script = tmp_path / "shard_job.py"
    script.write_text(SHARD_IN_A_JOB)
    run = mpi_job.run(2, script, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    for rank in (0, 1):
        assert "data-parallel mode only" in (tmp_path / f"refused_{rank}.txt").read_text()

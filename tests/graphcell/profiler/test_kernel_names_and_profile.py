"""Issue 24 items 2 and 4 on the LeNet5 train step: one name per kernel (dump files, runner, IR
dump, profile), the source lines each kernel implements, and the per-kernel runtime profile."""
import os
import re
import sys

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from graphcell_ir.backend.cost import flops
from graphcell_ir.backend.naming import kernel_name, python_name
from graphcell_ir.text.parser import parse_module

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "graph"))
from graph_nets import LeNet5  # noqa: E402  (the seed's LeNet5)

NETS = os.path.join("graph", "graph_nets.py")


@pytest.fixture(scope="module")
def lenet_step(tmp_path_factory):
    """The LeNet5 train step compiled once with save_graphs on; yields (step, x, y, dump dir)."""
    d = tmp_path_factory.mktemp("graphs")
    before = {k: ms.get_context(k) for k in ("mode", "save_graphs", "save_graphs_path")}
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(d))
    try:
        ms.set_seed(0)
        net = LeNet5()
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                     reduction="mean"))
        step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        step.set_train()
        x = Tensor(np.ones((32, 1, 32, 32), np.float32))  # the seed network reshapes to 32
        y = Tensor(np.arange(32, dtype=np.int32) % 10)
        step(x, y)
        yield step, x, y, d / "kernels"
    finally:
        ms.set_context(**before)


def _kernel_files(d):
    return sorted(f[len("kernel_"):-len(".py")] for f in os.listdir(d)
                  if f.startswith("kernel_") and f.endswith(".py"))


def test_every_kernel_file_name_is_in_the_ir_dump_and_in_the_runner(lenet_step):
    *_, d = lenet_step
    names = _kernel_files(d)
    assert len(names) >= 10 and any(n.startswith("fused_") for n in names)
    runner = (d / "runner_TrainOneStepCell.construct.py").read_text()
    ir = (d / "ir_TrainOneStepCell.construct.gcir").read_text()
    for n in names:
        assert re.search(rf"\b{re.escape(n)}\(", runner), n    # the runner calls it by name
        assert f"kernel_{n}.py" in runner, n                      # and says which file
        assert re.search(rf"^//   {re.escape(n)}: %", ir, re.M), n
    parse_module(ir)   # the dump with its kernel list is still IR text


def test_a_kernel_file_says_which_values_and_source_lines_it_implements(lenet_step):
    *_, d = lenet_step
    ir = (d / "ir_TrainOneStepCell.construct.gcir").read_text()
    for n in _kernel_files(d):
        head = (d / f"kernel_{n}.py").read_text().splitlines()
        assert head[0].startswith(f"# kernel {n} (source hash "), head[0]
        values = re.match(r"# computes (.*): ", head[1]).group(1).split(", ")
        for v in values:   # the values are the IR dump's
            assert re.search(rf"{re.escape(v)}\b.* = ", ir), (n, v)
        assert any(line.startswith("# from ") and re.search(r":\d+$", line) for line in head[2:5])


def test_runner_variables_are_the_irs_value_names(lenet_step):
    *_, d = lenet_step
    runner = (d / "runner_TrainOneStepCell.construct.py").read_text()
    ir = (d / "ir_TrainOneStepCell.construct.gcir").read_text()
    numbered = set(re.findall(r"\bv(\d+)\b", runner))
    assert numbered and all(f"%{n} " in ir or f"%{n}," in ir or f"%{n})" in ir for n in numbered)
    assert "v_x" in runner   # the step's first argument is %x


def test_profile_names_the_three_slowest_kernels_with_their_source_lines(lenet_step):
    step, x, y, _ = lenet_step
    with ms.profiler.kernel_profile() as prof:
        step(x, y)
        step(x, y)
    kernels = prof.slowest(3, kind="kernel")
    assert len(kernels) == 3
    assert kernels[0].seconds >= kernels[1].seconds >= kernels[2].seconds
    for row in kernels:
        assert row.calls == 2 and row.nbytes > 0 and row.gbps > 0
        # a fused group's kernel or a lone op's (named by its op: relu, and since lone
        # reductions run as kernels, reduce_mean)
        assert row.site.name.startswith(("fused_", f"{row.site.ops[0]}_")) and row.site.sources
        assert all(re.search(r"\.py:\d+$", s) for s in row.site.sources)
    assert any(NETS in s for row in prof.slowest(50) for s in row.site.sources)
    table = prof.table(10)
    assert all(row.site.name[:36] in table for row in prof.slowest(10))
    convs = [r for r in prof.summary.rows if r.site.ops == ("conv2d",)]
    assert convs and all(r.gflops is not None and r.gflops > 0 for r in convs)


def test_no_events_outside_the_profile(lenet_step):
    step, x, y, _ = lenet_step
    with ms.profiler.kernel_profile() as prof:
        pass
    step(x, y)
    assert prof.events == []


def test_names_and_flops_from_ir():
    module = parse_module(
        "func @f(%x: f32[4,3], %w: f32[2,3]) -> f32[4,2] {\n"
        "  %0 = matmul(%x, %w) {transpose_a=false, transpose_b=true} : f32[4,2]\n"
        "  %1 = relu(%0) : f32[4,2]\n"
        "  return %1\n}\n")
    fn = module["f"]
    mm, relu = list(fn.body)[:2]
    assert flops([mm]) == 2 * 4 * 2 * 3 and flops([relu]) == 8 and flops([mm, relu]) == 48 + 8
    names = {mm.results[0]: "0", relu.results[0]: "1"}
    assert kernel_name(relu, names) == "relu_1"
    assert python_name("17") == "v17" and python_name("fc.weight") == "v_fc_weight"

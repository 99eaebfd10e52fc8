"""Issue 24: the LeNet train step's IR is readable — a dump that fits a screen's width, a summary
that fits a screen, pictures (SVG with or without Graphviz), save_graphs writes them."""
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from graphcell_ir.ir.draw import matplotlib_available
from graphcell_ir.ir.export import to_dot, to_svg
from graphcell_ir.text import parse_module, print_module

from graph_nets import LeNet5  # the seed's LeNet5 (debugging_in_pynative_mode.md)

NEEDS_MATPLOTLIB = pytest.mark.skipif(
    not matplotlib_available(), reason="matplotlib is not installed (the optional extra "
    "'pictures': pip install 'graphcell[pictures]'); SVG without Graphviz needs it")
NEEDS_DOT = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not on PATH")


def train_step():
    ms.set_seed(0)
    net = LeNet5()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    x = Tensor(np.ones((32, 1, 32, 32), np.float32))  # the seed network reshapes to batch 32
    y = Tensor(np.arange(32, dtype=np.int32) % 10)
    return step, (x, y)


@pytest.fixture(scope="module")
def lowered():
    step, inputs = train_step()
    return step.compile(*inputs)


def test_the_train_step_dump_fits_120_columns_and_reads_back(lowered):
    text = lowered.as_text()
    lines = text.splitlines()
    assert max(map(len, lines)) <= 120, max(lines, key=len)
    assert lines[0] == "func @TrainOneStepCell.construct(" and lines[1] == "    %inputs_0: f32[32,1,32,32],"
    assert "      loc(graph_nets.py:60:13 TrainOneStepCell>WithLossCell>LeNet5>Conv2d)" in lines
    assert print_module(parse_module(text, consts=lowered.module.consts)).rstrip("\n") == text


def test_the_train_step_summary_fits_40_lines_and_names_what_matters(lowered):
    s = lowered.summary()
    text = str(s)
    lines = text.splitlines()
    assert len(lines) <= 40 and max(map(len, lines)) <= 100, text
    assert lines[0].startswith("@TrainOneStepCell.construct: 2 inputs, 19 parameters")
    assert "%conv1.weight f32[6,1,5,5]" in text and "%inputs_0 f32[32,1,32,32]" in text
    conv = 2 * (32 * 6 * 28 * 28) * 25 + 2 * (32 * 16 * 10 * 10) * 150   # conv1 + conv2
    assert dict(s.costs)["conv2d"] == conv and dict(s.costs)["conv2d_backprop_filter"] == conv
    assert s.op_counts["fused"] == len(s.fused) and s.op_counts["conv2d"] == 2
    relu_groups = [g for g in s.fused if g.ops == ("add", "relu", "greater")]
    assert len(relu_groups) == 2 and all(g.lines for g in relu_groups)   # fc1's and fc2's
    assert "2 x add, relu, greater" in text and "heaviest: conv2d" in text
    assert s.flops == sum(f for _, f in s.costs) and s.bytes > 0 and not s.no_cost_rule


def test_pass_reports_print_as_a_table(lowered):
    text = str(lowered.pass_reports)
    assert text == repr(lowered.pass_reports)
    lines = text.splitlines()
    assert lines[0].startswith("01 inline") and "changed" in lines[0] and lines[-1].startswith("   total")
    assert lowered.pass_reports[0].name == "inline"   # still the reports, one per pass


def test_the_train_step_as_dot_has_a_cluster_per_fused_group(lowered):
    dot = to_dot(lowered.module)
    # 7 of the forward and backward, and one Momentum update per parameter (8)
    assert dot.startswith("digraph gcir {") and dot.count('label="fused body"') == 15


@NEEDS_MATPLOTLIB
def test_the_train_step_svg_renders_without_graphviz(lowered):
    root = ET.fromstring(to_svg(lowered.module, engine="matplotlib"))
    assert root.tag.endswith("svg")
    texts = "\n".join(e.text or "" for e in root.iter() if e.tag.endswith("text"))
    for name in ("conv2d", "max_pool2d", "matmul", "conv2d_backprop_filter", "add, relu, greater",
                 "%conv1.weight", "@TrainOneStepCell.construct"):
        assert name in texts


@NEEDS_DOT
def test_the_train_step_svg_renders_with_graphviz(lowered):
    root = ET.fromstring(to_svg(lowered.module, engine="graphviz"))
    texts = "\n".join(e.text or "" for e in root.iter() if e.tag.endswith("text"))
    assert "conv2d" in texts and "matmul" in texts


def test_without_any_engine_the_error_says_what_to_install(monkeypatch, lowered):
    import graphcell_ir.ir.draw as draw
    monkeypatch.setattr(draw, "matplotlib_available", lambda: False)
    from graphcell_ir.errors import GraphvizError
    with pytest.raises(GraphvizError, match=r"pip install 'graphcell\[pictures\]'"):
        to_svg(lowered.module, engine="matplotlib")


@pytest.mark.parametrize("level,locs", [(True, "none"), (3, "user")])
def test_save_graphs_writes_the_summary_the_graph_and_the_chosen_locations(tmp_path, level, locs):
    ms.set_context(save_graphs=level, save_graphs_path=str(tmp_path), save_graphs_locs=locs)
    try:
        step, inputs = train_step()
        step.compile(*inputs)
    finally:
        ms.set_context(save_graphs=False, save_graphs_path=".", save_graphs_locs="user")
    (d,) = [p for p in tmp_path.iterdir() if p.is_dir() and (p / "summary.txt").exists()]
    summary = (d / "summary.txt").read_text()
    assert summary.startswith("@TrainOneStepCell.construct:") and len(summary.splitlines()) <= 40
    assert (d / "graph.dot").read_text().startswith("digraph gcir {")
    dumps = sorted(d.glob("*.gcir"))
    assert dumps and all(("loc(" in p.read_text()) == (locs != "none") for p in dumps)
    assert all(max(map(len, p.read_text().splitlines())) <= 120 for p in dumps)
    pictures = sorted(p.name for p in d.iterdir() if p.name.startswith("graph.svg"))
    if level is True:    # MindSpore's True is level 2: no pictures
        assert pictures == []
    elif matplotlib_available() or shutil.which("dot"):
        assert pictures == ["graph.svg"] and "conv2d" in (d / "graph.svg").read_text()
    else:                # no engine: a note says what to install, the compile still works
        assert pictures == ["graph.svg.txt"] and "graphcell[pictures]" in (d / "graph.svg.txt").read_text()


def test_save_graphs_locs_is_checked():
    with pytest.raises(ValueError, match="save_graphs_locs"):
        ms.set_context(save_graphs_locs="sometimes")
    assert ms.get_context("save_graphs_locs") == "user"


def test_the_summary_names_fused_groups_as_the_runner_calls_their_kernels(lowered):
    from graphcell_ir.backend.executable import compile_executable
    exe = compile_executable(lowered.module, lowered.function)
    groups = {g.name for g in lowered.summary().fused}
    kernels = {n for n in exe.kernel_names if n.startswith("fused_")}
    assert kernels and kernels <= groups

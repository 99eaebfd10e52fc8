"""graphcell.export / graphcell.load: round trips, the manifest, training steps, GraphCell."""
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from graphcell.aot import ArtifactError, read_artifact
from graphcell_ir.errors import ExportFormatError
from graphcell.aot import container as C

import aot_nets as nets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def test_inference_round_trip(mlp_artifact):
    path, net, x = mlp_artifact
    cell = ms.load(path)
    assert isinstance(cell, nn.GraphCell) and cell.kind == "inference"
    np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())
    np.testing.assert_array_equal(cell(x.asnumpy()).asnumpy(), net(x).asnumpy())  # arrays too
    names = [n for n, _ in cell.parameters_and_names()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_members_and_manifest(mlp_artifact):
    path, net, _ = mlp_artifact
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        members = {n: z.read(n) for n in names}
    assert [n for n in names if not n.startswith("native/")] == list(C.MEMBERS)
    m = json.loads(members[C.MANIFEST])
    native = m.get("native", {})
    assert sorted(n for n in names if n.startswith("native/")) == sorted(   # the fused bias+relu
        f"native/{k['id']}.o" for k in native.get("kernels", []) + native.get("step", []))
    assert m["format"] == "graphcell-artifact" and m["format_version"] == 1
    assert m["inputs"] == [{"name": "x", "dtype": "float32", "shape": [5, 4]}]
    assert [p["name"] for p in m["params"]] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert m["mutated"] == [] and m["output"] == {"result": 0}
    assert set(m["created_by"]) >= {"graphcell", "numba", "llvmlite", "numpy"}
    assert m["cpu"]["machine"]
    for name in (C.IR, C.WEIGHTS, C.CONSTS):
        assert m["members"][name]["sha256"] == C.sha256(members[name])
    assert members[C.IR].decode().startswith("func @MLP.construct(")


def test_export_is_deterministic(artifact_dir, mlp_artifact):
    path, net, x = mlp_artifact
    again = ms.export(net, x, file_name=str(artifact_dir / "mlp_again.gcpkg"))
    assert again.endswith("mlp_again.gcpkg")
    with open(path, "rb") as a, open(again, "rb") as b:
        assert a.read() == b.read()


def test_function_with_structured_outputs(artifact_dir):
    x, _ = nets.inputs()
    path = ms.export(nets.add_and_neg, x, x, file_name=str(artifact_dir / "fn"))
    np.testing.assert_array_equal(ms.load(path)(x, x).asnumpy(), -2 * x.asnumpy())
    net = nets.TwoOutputs()
    path = ms.export(net, x, x, file_name=str(artifact_dir / "two"))
    a, d = ms.load(path)(x, x)
    ea, ed = net(x, x)
    np.testing.assert_array_equal(a.asnumpy(), ea.asnumpy())
    assert set(d) == {"diff", "tag"} and d["tag"] is None
    np.testing.assert_array_equal(d["diff"].asnumpy(), ed["diff"].asnumpy())


def test_training_step_updates_parameters_like_graph_mode(artifact_dir):
    x, y = nets.inputs()
    net, step = nets.train_step(seed=3)
    path = ms.export(step, x, y, file_name=str(artifact_dir / "train"))
    cell = ms.load(path)
    assert cell.kind == "train_step"
    weights = dict(cell.parameters_and_names())
    before = weights["fc1.weight"]
    ms.set_context(mode=ms.GRAPH_MODE)
    for _ in range(3):
        np.testing.assert_allclose(cell(x, y).asnumpy(), step(x, y).asnumpy(), rtol=1e-6)
    assert dict(cell.parameters_and_names())["fc1.weight"] is before     # updated in place
    np.testing.assert_allclose(before.asnumpy(), net.fc1.weight.asnumpy(), rtol=1e-6)
    assert "moments.fc1.weight" in read_artifact(path).mutated


def test_params_init_and_bad_calls(mlp_artifact):
    path, net, x = mlp_artifact
    graph = read_artifact(path)
    zeros = {n: np.zeros_like(a) for n, a in graph.weights.items()}
    assert not nn.GraphCell(graph, params_init=zeros)(x).asnumpy().any()
    with pytest.raises(ValueError, match="params_init"):
        nn.GraphCell(graph, params_init={"fc1.bias": np.zeros(3, np.float32)})
    cell = ms.load(path)
    with pytest.raises(ValueError, match=r"input 'x' must be float32\[5, 4\]"):
        cell(np.zeros((2, 4), np.float32))
    with pytest.raises(TypeError, match="takes 1 input"):
        cell(x, x)


@pytest.mark.parametrize("fmt, why", [("MINDIR", "MindIR is MindSpore's own graph format"),
                                       ("AIR", "Ascend"), ("TFLITE", "does not know")])
def test_export_refuses_formats_it_does_not_write(tmp_path, fmt, why):
    """MindSpore's MINDIR is refused, not written as something else under its name."""
    with pytest.raises(ExportFormatError) as e:
        ms.export(nets.MLP(), nets.inputs()[0], file_name=str(tmp_path / "m"), file_format=fmt)
    text = str(e.value)
    assert f"file_format={fmt!r} is not written by graphcell" in text and why in text
    assert "file_format='GCIR'" in text and "file_format='ONNX'" in text
    assert isinstance(e.value, ValueError)   # what MindSpore raises for a bad format
    assert not os.listdir(tmp_path)


def test_graphcell_of_a_loaded_graph_as_in_mindspore(mlp_artifact):
    """MindSpore: ``nn.GraphCell(ms.load(path))``; graphcell's load already gives the cell."""
    path, net, x = mlp_artifact
    loaded = ms.load(path)
    cell = nn.GraphCell(loaded)
    np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())
    assert [p for _, p in cell.parameters_and_names()] == \
        [p for _, p in loaded.parameters_and_names()]   # the same Parameters
    zeros = {n: np.zeros_like(p.asnumpy()) for n, p in loaded.parameters_and_names()}
    assert not nn.GraphCell(loaded, params_init=zeros)(x).asnumpy().any()
    assert not loaded(x).asnumpy().any()   # params_init set the shared Parameters


@pytest.mark.parametrize("suffix, says", [(".mindir", "MindIR file"), (".onnx", "onnxruntime")])
def test_load_names_foreign_formats(tmp_path, suffix, says):
    path = tmp_path / f"net{suffix}"
    path.write_bytes(b"\x08\x07\x12\x04not a zip")
    with pytest.raises(ArtifactError, match=says):
        ms.load(str(path))


EXPORT_SCRIPT = """
import sys
import numpy as np
import graphcell as ms
sys.path.insert(0, sys.argv[1])
from secret_net import Secret
ms.set_seed(0)
net = Secret()
x = ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
ms.export(net, x, file_name=sys.argv[2])
ms.set_context(mode=ms.GRAPH_MODE)   # the loaded cell runs what graph mode compiled
np.save(sys.argv[3], net(x).asnumpy())
"""
LOAD_SCRIPT = """
import sys
import numpy as np
import graphcell as ms
x = ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
assert "secret_net" not in sys.modules
np.save(sys.argv[2], ms.load(sys.argv[1])(x).asnumpy())
"""
SECRET_NET = """
from graphcell import nn, ops
class Secret(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)
    def construct(self, x):
        return ops.tanh(self.fc(x)) * 3.0
"""


def test_load_needs_neither_class_nor_source(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "secret_net.py").write_text(textwrap.dedent(SECRET_NET))
    env = {**os.environ, "PYTHONPATH": ROOT}
    art, y0, y1 = tmp_path / "secret.gcpkg", tmp_path / "y0.npy", tmp_path / "y1.npy"
    subprocess.run([sys.executable, "-c", EXPORT_SCRIPT, str(src), str(art), str(y0)],
                   check=True, env=env, cwd=tmp_path, timeout=120)
    (src / "secret_net.py").rename(src / "gone.txt")
    subprocess.run([sys.executable, "-c", LOAD_SCRIPT, str(art), str(y1)],
                   check=True, env=env, cwd=tmp_path, timeout=120)
    np.testing.assert_array_equal(np.load(y0), np.load(y1))


def test_missing_file_is_an_artifact_error(tmp_path):
    with pytest.raises(ArtifactError, match="no such file"):
        ms.load(tmp_path / "nothing.gcpkg")

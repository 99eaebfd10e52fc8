"""``graphcell.export(..., file_format="ONNX")``: onnxruntime runs the written model with the same
outputs as graphcell (graph mode), for LeNet5, an MLP, a CNN with BatchNorm in eval mode and
GELU/softmax/LayerNorm-style composites; refusals name the op and its line. Needs the onnx extra
(``pip install -e ".[onnx]"``); without it, ``test_onnx_missing_says_what_to_install`` still runs.
"""
import os
import sys

import numpy as np
import pytest

import graphcell as ms
from graphcell_ir.errors import OnnxExportError, OnnxUnavailableError

import onnx_nets as nets

RNG = np.random.default_rng(7)
NETS = [
    pytest.param(nets.LeNet5, (2, 1, 32, 32), id="lenet5"),
    pytest.param(nets.MLP, (8, 20), id="mlp"),
    pytest.param(nets.BatchNormCNN, (2, 3, 8, 8), id="batchnorm_cnn"),
    pytest.param(nets.Composites, (3, 6), id="composites"),
]


def _trained_looking(net):
    """Parameters away from their initial values (BatchNorm statistics too), seeded."""
    for p in net.get_parameters():
        shape = p.shape
        value = RNG.uniform(0.5, 1.5, shape) if "variance" in p.name else \
            RNG.standard_normal(shape) * 0.1
        p.set_data(ms.Tensor(value.astype(np.float32)))
    return net


def _leaves(out):
    return [t.asnumpy() for t in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("cls, shape", NETS)
def test_onnxruntime_runs_the_export_with_the_same_outputs(cls, shape, tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    ms.set_seed(0)
    net = _trained_looking(cls())
    x = ms.Tensor(RNG.standard_normal(shape).astype(np.float32))
    path = ms.export(net, x, file_name=str(tmp_path / "net"), file_format="ONNX")
    assert path.endswith("net.onnx")
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert [i.name for i in sess.get_inputs()] == ["x"]
    got = sess.run(None, {"x": x.asnumpy()})
    ms.set_context(mode=ms.GRAPH_MODE)
    expected = _leaves(net(x))
    assert [o.name for o in sess.get_outputs()] == [f"output{i}" for i in range(len(expected))]
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(e).max()))


def test_the_model_holds_the_weights_and_passes_the_checker(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    ms.set_seed(0)
    net = _trained_looking(nets.MLP())
    path = ms.export(net, ms.Tensor(np.ones((1, 20), np.float32)), file_name=str(tmp_path / "m"),
                     file_format="onnx")
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    np.testing.assert_array_equal(inits["layers.0.weight"], net.layers[0].weight.asnumpy())
    assert model.producer_name == "graphcell"


def test_an_op_without_mapping_names_the_op_and_its_line(tmp_path):
    pytest.importorskip("onnx")
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(OnnxExportError) as e:
        ms.export(nets.Unmapped(), x, file_name=str(tmp_path / "u"), file_format="ONNX")
    text = str(e.value)
    line = next(i for i, s in enumerate(open(nets.__file__), 1) if "ops.lgamma(h)" in s)
    assert f"onnx_nets.py:{line}:" in text and "Lgamma (IR op 'lgamma') has no ONNX mapping" in text
    assert "return ops.lgamma(h) + 1" in text
    assert not os.listdir(tmp_path)   # nothing written


def test_training_mode_and_training_steps_are_refused(tmp_path):
    pytest.importorskip("onnx")
    net = nets.BatchNormCNN()
    net.set_train(True)
    x = ms.Tensor(np.ones((2, 3, 8, 8), np.float32))
    with pytest.raises(OnnxExportError, match=r"set_train\(False\)"):
        ms.export(net, x, file_name=str(tmp_path / "t"), file_format="ONNX")
    before = [p.asnumpy().copy() for p in net.get_parameters()]
    assert not os.listdir(tmp_path)
    for p, b in zip(net.get_parameters(), before):   # exporting ran nothing
        np.testing.assert_array_equal(p.asnumpy(), b)


def test_onnx_missing_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)   # import onnx now raises ImportError
    with pytest.raises(OnnxUnavailableError, match=r'pip install "graphcell\[onnx\]"'):
        ms.export(nets.MLP(), ms.Tensor(np.ones((1, 20), np.float32)),
                  file_name=str(tmp_path / "m"), file_format="ONNX")
    assert not os.listdir(tmp_path)

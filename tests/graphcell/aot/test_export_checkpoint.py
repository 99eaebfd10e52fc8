"""Export with trained weights: ``ms.export(..., ckpt_file_name=...)`` and
``graphcell export --ckpt``, from graphcell's checkpoints and from MindSpore 2.10's (recorded by
``tools/record_trained_mlp.py``: MindSpore trained the MLP and recorded its predictions)."""
import os
from pathlib import Path

import numpy as np
import pytest

import graphcell as ms
from graphcell import cli

import aot_nets as nets

GOLDENS = Path(__file__).resolve().parent / "goldens"
NETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aot_nets.py")


def _values(net):
    return {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}


def _trained(seed=4):
    net = nets.MLP()
    rng = np.random.default_rng(seed)
    for p in net.get_parameters():
        p.set_data(ms.Tensor(rng.standard_normal(p.shape).astype(np.float32)))
    return net


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_the_artifact_carries_the_checkpoints_weights(tmp_path, fmt):
    trained = _trained()
    ckpt = str(tmp_path / f"mlp.{fmt}")
    ms.save_checkpoint(trained, ckpt, format=fmt)
    fresh = nets.MLP()
    before = _values(fresh)
    x, _ = nets.inputs()
    path = ms.export(fresh, x, file_name=str(tmp_path / "mlp"), ckpt_file_name=ckpt)
    np.testing.assert_array_equal(ms.load(path)(x).asnumpy(), trained(x).asnumpy())
    for name, value in _values(fresh).items():   # the network itself is left as it was
        np.testing.assert_array_equal(value, before[name])


@pytest.mark.parametrize("name", ["mlp_trained.ckpt", "mlp_trained.safetensors"])
def test_weights_trained_by_mindspore_predict_as_in_mindspore(tmp_path, name):
    golden = np.load(GOLDENS / "mlp_trained.npz")
    path = ms.export(nets.MLP(), ms.Tensor(golden["x"]), file_name=str(tmp_path / "mlp"),
                     ckpt_file_name=str(GOLDENS / name))
    np.testing.assert_allclose(ms.load(path)(golden["x"]).asnumpy(), golden["y"], rtol=1e-5,
                               atol=1e-6)


def test_onnx_export_with_mindspores_weights(tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    golden = np.load(GOLDENS / "mlp_trained.npz")
    path = ms.export(nets.MLP(), ms.Tensor(golden["x"]), file_name=str(tmp_path / "mlp"),
                     file_format="ONNX", ckpt_file_name=str(GOLDENS / "mlp_trained.ckpt"))
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {"x": golden["x"]})[0], golden["y"], rtol=1e-5,
                               atol=1e-6)


def test_a_checkpoint_of_another_network_is_refused_and_changes_nothing(tmp_path):
    ckpt = str(tmp_path / "dense.ckpt")
    ms.save_checkpoint(ms.nn.Dense(4, 8), ckpt)   # names 'weight', 'bias': none of the MLP's
    net = nets.MLP()
    before = _values(net)
    with pytest.raises(ValueError, match=r"has no value for 4 parameter\(s\) of MLP: "
                                         r"'fc1.weight', .*; it holds 'weight', 'bias'"):
        ms.export(net, nets.inputs()[0], file_name=str(tmp_path / "m"), ckpt_file_name=ckpt)
    assert sorted(os.listdir(tmp_path)) == ["dense.ckpt"]
    for name, value in _values(net).items():
        np.testing.assert_array_equal(value, before[name])


def test_a_checkpoint_of_other_shapes_names_the_file(tmp_path):
    ckpt = str(tmp_path / "wide.ckpt")
    ms.save_checkpoint({"fc1.weight": ms.Tensor(np.zeros((9, 4), np.float32))}, ckpt)
    with pytest.raises(ValueError, match=r"wide.ckpt' does not fit MLP: .*fc1.weight"):
        ms.export(nets.MLP(), nets.inputs()[0], file_name=str(tmp_path / "m"),
                  ckpt_file_name=ckpt)


def test_a_function_has_no_parameters_to_load(tmp_path):
    x, _ = nets.inputs()
    with pytest.raises(TypeError, match="ckpt_file_name needs a Cell"):
        ms.export(nets.add_and_neg, x, x, file_name=str(tmp_path / "f"),
                  ckpt_file_name=str(GOLDENS / "mlp_trained.ckpt"))


def test_cli_export_ckpt(tmp_path, capsys):
    golden = np.load(GOLDENS / "mlp_trained.npz")
    out = str(tmp_path / "mlp.gcpkg")
    code = cli.main(["export", f"{NETS}:MLP", "--input", "f32[5,4]", "--ckpt",
                     str(GOLDENS / "mlp_trained.ckpt"), "-o", out])
    assert code == 0 and capsys.readouterr().out.startswith(f"wrote {out}")
    np.testing.assert_allclose(ms.load(out)(golden["x"]).asnumpy(), golden["y"], rtol=1e-5,
                               atol=1e-6)
    code = cli.main(["export", f"{NETS}:MLP", "--input", "f32[5,4]", "--ckpt",
                     str(tmp_path / "missing.ckpt"), "-o", str(tmp_path / "m2")])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and "missing.ckpt" in err and "does not exist" in err


def test_cli_export_onnx(tmp_path, capsys):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    golden = np.load(GOLDENS / "mlp_trained.npz")
    code = cli.main(["export", f"{NETS}:MLP", "--input", "f32[5,4]", "--format", "onnx",
                     "--ckpt", str(GOLDENS / "mlp_trained.safetensors"),
                     "-o", str(tmp_path / "mlp")])
    assert code == 0, capsys.readouterr().err
    sess = ort.InferenceSession(str(tmp_path / "mlp.onnx"), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {"x": golden["x"]})[0], golden["y"], rtol=1e-5,
                               atol=1e-6)

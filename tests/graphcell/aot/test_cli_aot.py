"""graphcell ir / export / run / precompile, run in-process through cli.main."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from graphcell import cli

NETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aot_nets.py")
MLP = f"{NETS}:MLP"
X = ["--input", "f32[5,4]"]


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ir_prints_the_final_ir(capsys):
    code, out, _ = run(capsys, "ir", MLP, *X)
    assert code == 0 and out.startswith("func @MLP.construct(\n    %x: f32[5,4],\n    %fc1.weight")
    assert max(map(len, out.splitlines())) <= 100   # one argument per line, locs on their own


def test_ir_after_a_pass_and_all_passes(capsys):
    code, out, _ = run(capsys, "ir", MLP, *X, "--after", "frontend", "--locs", "none")
    assert code == 0 and out.startswith("func @MLP.construct(")
    code, out, _ = run(capsys, "ir", MLP, *X, "--all-passes")
    headers = [line for line in out.splitlines() if line.startswith("// ----- IR after")]
    assert [h.split()[4] for h in headers] == ["frontend", "inline", "fold", "simplify",
                                                "dead_branch", "cse", "dce", "fuse", "final"]


def test_ir_of_a_function_and_of_a_gradient(capsys):
    code, out, _ = run(capsys, "ir", f"{NETS}:add_and_neg", *X, *X)
    assert code == 0 and "neg(" in out
    code, out, _ = run(capsys, "ir", MLP, *X, "--grad")
    assert code == 0 and out.startswith("func @grad.")


def test_ir_dot_and_svg(capsys, tmp_path):
    code, _, _ = run(capsys, "ir", MLP, *X, "--format", "dot", "-o", str(tmp_path / "g.dot"))
    assert code == 0 and (tmp_path / "g.dot").read_text().startswith("digraph gcir {")
    code, out, err = run(capsys, "ir", MLP, *X, "--svg")
    from graphcell_ir.ir.draw import matplotlib_available
    if shutil.which("dot") or matplotlib_available():
        assert code == 0 and "<svg" in out and "matmul" in out
    else:
        assert code == 1 and "pip install 'graphcell[pictures]'" in err


def test_ir_html_puts_the_stages_side_by_side(capsys, tmp_path):
    page = tmp_path / "ir.html"
    code, _, _ = run(capsys, "ir", MLP, *X, "--format", "html", "-o", str(page))
    text = page.read_text()
    assert code == 0 and text.startswith("<!DOCTYPE html>") and "@MLP.construct: 1 input" in text
    stages = re.findall(r"<h2>(\w+)</h2>", text)
    assert stages == ["frontend", "inline", "fold", "simplify", "dead_branch", "cse", "dce", "fuse",
                      "final"]
    assert "unchanged from" in text and "= matmul(%x, %fc1.weight)" in text


def test_ir_summary_width_and_locs(capsys):
    code, out, _ = run(capsys, "ir", MLP, *X, "--summary")
    assert code == 0 and out.startswith("@MLP.construct: 1 input, 4 parameters")
    assert "ops: " in out and "estimated work: " in out and "matmul" in out
    code, out, _ = run(capsys, "ir", MLP, *X, "--width", "0")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("func @MLP.construct(%x: f32[5,4], %fc1.weight")
    assert lines[1].startswith("  %x_1 = matmul(%x, %fc1.weight) {transpose_a=false, "
                               "transpose_b=true} : f32[5,8]  loc(aot_nets.py:17:35 MLP>Dense)")
    assert len(lines) == 11   # one line per op, its loc at the end
    code, out, _ = run(capsys, "ir", MLP, *X, "--locs", "none", "--width", "40")
    assert code == 0 and "loc(" not in out and max(map(len, out.splitlines())) <= 48
    code, _, err = run(capsys, "ir", MLP, *X, "--width", "7")
    assert code == 1 and "--width must be 0 (one line per op) or at least 20, got 7" in err


def test_ir_bad_target_and_spec(capsys):
    assert run(capsys, "ir", f"{NETS}:Nope", *X)[2].startswith("error: ")
    code, _, err = run(capsys, "ir", MLP, "--input", "f32(5,4)")
    assert code == 1 and "DTYPE[DIMS]" in err


def test_export_run_precompile(capsys, tmp_path):
    art = str(tmp_path / "mlp.gcpkg")
    code, out, _ = run(capsys, "export", MLP, *X, "-o", art)
    assert code == 0 and out.startswith(f"wrote {art}")
    x = np.ones((5, 4), np.float32)
    np.save(tmp_path / "x.npy", x)
    code, out, _ = run(capsys, "run", art, "--input", str(tmp_path / "x.npy"))
    assert code == 0 and out.startswith("out0: float32[5, 3]")
    code, _, _ = run(capsys, "run", art, "--input", str(tmp_path / "x.npy"), "-o",
                     str(tmp_path / "y.npy"))
    import graphcell as ms
    expected = ms.load(art)(x).asnumpy()
    assert code == 0 and np.array_equal(np.load(tmp_path / "y.npy"), expected)
    code, out, _ = run(capsys, "precompile", art)
    assert code == 0 and out.startswith(f"{art}: verified") and "native kernels" in out


def test_run_refuses_a_bad_artifact(capsys, tmp_path):
    (tmp_path / "bad.gcpkg").write_bytes(b"junk")
    code, _, err = run(capsys, "run", str(tmp_path / "bad.gcpkg"))
    assert code == 1 and "not a graphcell artifact" in err


@pytest.mark.parametrize("command", ["ir", "export", "run", "precompile", "info"])
def test_help_is_complete_with_an_example(capsys, command):
    with pytest.raises(SystemExit) as e:
        cli.main([command, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert f"graphcell {command}" in out and "example" in out


def test_console_script_exports(tmp_path):
    exe = os.path.join(os.path.dirname(sys.executable), "graphcell")
    argv = [exe] if os.path.exists(exe) else [sys.executable, "-m", "graphcell.cli"]
    done = subprocess.run([*argv, "export", MLP, *X, "-o", str(tmp_path / "m")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "m.gcpkg").exists()


def test_export_no_native_and_run_native(capsys, tmp_path):
    fn = f"{NETS}:add_and_neg"
    plain, full = str(tmp_path / "plain.gcpkg"), str(tmp_path / "full.gcpkg")
    assert run(capsys, "export", fn, "--no-native", *X, *X, "-o", plain)[0] == 0
    assert run(capsys, "export", fn, *X, *X, "-o", full)[0] == 0
    import zipfile
    assert not any(n.startswith("native/") for n in zipfile.ZipFile(plain).namelist())
    assert any(n.startswith("native/") for n in zipfile.ZipFile(full).namelist())
    x = np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4)
    np.save(tmp_path / "x.npy", x)
    inputs = ["--input", str(tmp_path / "x.npy")] * 2
    code, _, err = run(capsys, "run", full, *inputs, "--native")
    assert code != 0 and "not trusted: it is not signed and no key is configured" in err
    code, _, _ = run(capsys, "run", full, *inputs, "--native", "--trust-native-code", "-o",
                     str(tmp_path / "y.npy"))
    assert code == 0 and np.array_equal(np.load(tmp_path / "y.npy"), -(x + x))
    code, out, _ = run(capsys, "precompile", plain)
    assert code == 0 and "native kernels: none (exported with native=False)" in out
    code, out, _ = run(capsys, "precompile", full)
    assert code == 0 and "native kernels: 1 for" in out and "not trusted (it is not signed" in out


def test_export_signed_and_run_native(capsys, tmp_path, monkeypatch):
    """With GRAPHCELL_ARTIFACT_KEY set, export signs and run --native trusts the signature."""
    monkeypatch.setenv("GRAPHCELL_ARTIFACT_KEY", "a test key of 16 bytes or more")
    art = str(tmp_path / "signed.gcpkg")
    assert run(capsys, "export", f"{NETS}:add_and_neg", *X, *X, "-o", art)[0] == 0
    x = np.ones((5, 4), np.float32)
    np.save(tmp_path / "x.npy", x)
    code, out, _ = run(capsys, "run", art, *["--input", str(tmp_path / "x.npy")] * 2, "--native")
    assert code == 0 and "out0: float32[5, 4]" in out
    code, out, _ = run(capsys, "precompile", art)
    assert code == 0 and "they link here" in out
    monkeypatch.setenv("GRAPHCELL_ARTIFACT_KEY", "another key, also 16+ bytes")
    code, _, err = run(capsys, "run", art, *["--input", str(tmp_path / "x.npy")] * 2, "--native",
                       "--trust-native-code")
    assert code != 0 and "signature does not match the configured key" in err


def test_run_profile_prints_the_kernels_slowest_first(capsys, tmp_path):
    art = str(tmp_path / "mlp.gcpkg")
    assert run(capsys, "export", MLP, *X, "-o", art)[0] == 0
    np.save(tmp_path / "x.npy", np.ones((5, 4), np.float32))
    code, out, err = run(capsys, "run", art, "--input", str(tmp_path / "x.npy"), "--profile", "2")
    assert code == 0 and out.startswith("out0: float32[5, 3]")
    head, columns, *rows = err.splitlines()
    assert head == "profile of 2 calls (slowest first):" and columns.split()[:3] == ["site", "calls", "ms"]
    assert rows and all(r.split()[1] == "2" for r in rows)      # every site ran in both calls
    assert any(r.split()[0].startswith("matmul_") for r in rows)
    ms_col = [float(r.split()[2]) for r in rows]
    assert ms_col == sorted(ms_col, reverse=True)

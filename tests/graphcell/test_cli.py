"""The graphcell console script."""
import subprocess
import sys

import graphcell
from graphcell import cli


def test_version(capsys):
    try:
        cli.main(["--version"])
    except SystemExit as e:
        assert e.code == 0
    assert capsys.readouterr().out.strip() == f"graphcell {graphcell.__version__}"


def test_info_lists_versions_cpu_and_cache_dir(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    for key in ("graphcell: ", "numpy: ", "numba: ", "llvmlite: ", "cpu: "):
        assert key in out
    assert f"cache directory: {tmp_path}" in out
    assert "kernel compiler: graphcell codegen" in out
    from graphcell_ir.backend import objects
    monkeypatch.setattr(objects, "usable", lambda: "no native code in this test")
    assert cli.main(["info"]) == 0
    assert "kernel compiler: numba (no native code in this test)" in capsys.readouterr().out


def test_console_script_is_installed():
    # the entry point runs the same main() in a fresh process
    run = subprocess.run([sys.executable, "-m", "graphcell.cli", "info"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.startswith("graphcell: ")


def test_python_dash_m_graphcell_runs_the_cli():
    run = subprocess.run([sys.executable, "-m", "graphcell", "--version"], capture_output=True,
                         text=True)
    assert run.returncode == 0 and run.stdout.startswith("graphcell ")


def test_no_command_prints_help_and_fails(capsys):
    assert cli.main([]) == 2
    assert "usage: graphcell" in capsys.readouterr().out


def test_info_cache_describes_the_kernel_disk_cache(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    (kernels / "k_abc.py").write_text("x = 1\n")
    (kernels / "k_abc.kernel-1.py311.nbi").write_bytes(b"0" * 1024)
    objects = tmp_path / "objects"
    objects.mkdir()
    (objects / "abc-0123.o").write_bytes(b"\x7fELF")
    (objects / "abd-0123.err").write_text("not in the code generator's subset")
    assert cli.main(["info", "--cache"]) == 0
    out = capsys.readouterr().out
    assert f"kernel cache: {tmp_path}" in out
    assert "native objects (the code generator's, linked without compiling): 1 (and 1 " in out
    assert "kernel sources: 1" in out and "numba's compiled entries" in out

"""``python -m graphcell_ir FILE.gcir``."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from graphcell_ir.__main__ import main

ROOT = Path(__file__).resolve().parents[3]
GOOD = """func @f(%x: f32[3]) -> f32[3] {
  %0 = neg(%x) : f32[3]  loc(/abs/path/a.py:1:2 f)
  return %0
}
"""


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.gcir"
    path.write_text(GOOD)
    return path


def test_reads_verifies_and_prints(good, capsys):
    assert main([str(good)]) == 0
    assert capsys.readouterr().out == GOOD.replace("/abs/path/", "")


def test_location_modes_and_output_file(good, tmp_path, capsys):
    out = tmp_path / "out.gcir"
    assert main([str(good), "--locs", "none", "-o", str(out)]) == 0
    assert "loc(" not in out.read_text() and capsys.readouterr().out == ""
    assert main([str(good), "--locs", "full"]) == 0
    assert "loc(/abs/path/a.py:1:2 f)" in capsys.readouterr().out


def test_dot_output(good, capsys):
    assert main([str(good), "--emit", "dot"]) == 0
    assert capsys.readouterr().out.startswith("digraph gcir {")


@pytest.mark.parametrize("text, fragment", [
    (GOOD.replace("neg(%x)", "neg(%y)"), "good.gcir:2:12: use of undefined value %y"),
    (GOOD.replace(": f32[3]  loc", ": f32[4]  loc"), "in @f: op 'neg'"),
])
def test_errors_print_a_message_and_exit_1(good, capsys, text, fragment):
    good.write_text(text)
    assert main([str(good)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and fragment in err and "Traceback" not in err


def test_missing_file_passes_and_svg_without_dot(good, tmp_path, capsys, monkeypatch):
    assert main([str(tmp_path / "nope.gcir")]) == 1
    assert "No such file" in capsys.readouterr().err
    assert main([str(good), "-p", "cse,nope"]) == 1
    assert "unknown pass 'nope'" in capsys.readouterr().err
    monkeypatch.setattr("shutil.which", lambda name: None)
    for module in ("matplotlib", "matplotlib.pyplot"):   # and no matplotlib to fall back on
        monkeypatch.setitem(sys.modules, module, None)
    assert main([str(good), "--emit", "svg"]) == 1
    assert "Graphviz" in capsys.readouterr().err


def test_no_verify_and_require_locs(good, capsys):
    good.write_text(GOOD.replace("  loc(/abs/path/a.py:1:2 f)", ""))
    assert main([str(good), "--require-locs"]) == 1
    assert "no source location" in capsys.readouterr().err
    good.write_text(GOOD.replace(": f32[3]  loc", ": f32[4]  loc"))
    assert main([str(good), "--no-verify"]) == 0


def test_module_entry_point_reads_stdin():
    done = subprocess.run([sys.executable, "-m", "graphcell_ir", "-"], input=GOOD,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and done.stdout == GOOD.replace("/abs/path/", "")
    done = subprocess.run([sys.executable, "-m", "graphcell_ir", "-"], input="func @f(",
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 1 and "<stdin>:1:9" in done.stderr and "Traceback" not in done.stderr

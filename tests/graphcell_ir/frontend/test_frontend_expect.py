"""The golden-IR harness itself: a wrong expectation fails with a diff, and GRAPHCELL_ACCEPT=1
rewrites it in place so that the next run passes."""
from __future__ import annotations

import importlib.util
import textwrap

import expect_ir
import pytest

CASE = '''
from expect_ir import check
from graphcell_ir.ir import TensorType, float32


def case():
    def f(x):
        return -x

    check(f, [TensorType(float32, (2,))], """
func @f(%x: f32[2]) -> f32[2] {
  return %x
}
""", locs="none")
'''


def _load(path):
    spec = importlib.util.spec_from_file_location(f"case_{abs(hash(str(path)))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_accept_mode_rewrites_the_expected_literal(tmp_path, monkeypatch):
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(CASE))
    monkeypatch.setattr(expect_ir, "ACCEPT", False)
    with pytest.raises(AssertionError, match=r"\+  %0 = neg\(%x\) : f32\[2\]"):
        _load(path).case()
    monkeypatch.setattr(expect_ir, "ACCEPT", True)
    monkeypatch.setattr(expect_ir, "_pending", {})
    _load(path).case()          # records the new text
    expect_ir._flush()          # what runs at exit
    assert '%0 = neg(%x) : f32[2]\n  return %0\n}\n""", locs="none")' in path.read_text()
    monkeypatch.setattr(expect_ir, "ACCEPT", False)
    _load(path).case()          # the rewritten expectation holds

"""Environment switches: every GRAPHCELL_* variable the library names is declared once
(graphcell_ir/switches.py), read only through that module, and documented in
docs/architecture.md."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphcell_ir import switches

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = sorted(p for d in ("graphcell", "graphcell_ir") for p in (ROOT / d).rglob("*.py"))
NAME = re.compile(r"GRAPHCELL_[A-Z][A-Z_]*")
DIRECT = re.compile(r"(environ|getenv)\W+(get\()?\W*GRAPHCELL_")


def test_the_library_names_declared_switches_only():
    undeclared = {(p.relative_to(ROOT).as_posix(), n) for p in LIBRARY
                  for n in NAME.findall(p.read_text()) if n not in switches.SWITCHES}
    assert not undeclared, f"declare these in graphcell_ir/switches.py: {sorted(undeclared)}"


def test_only_the_switches_module_reads_them():
    direct = [p.relative_to(ROOT).as_posix() for p in LIBRARY
              if p.name != "switches.py" and DIRECT.search(p.read_text())]
    assert not direct, f"read switches through graphcell_ir.switches: {direct}"


def test_every_switch_is_documented():
    page = (ROOT / "docs" / "architecture.md").read_text()
    assert not [n for n in switches.SWITCHES if n not in page]


@pytest.mark.parametrize("text,on", [("1", True), ("yes", True), ("0", False), ("off", False),
                                     ("false", False), ("", True)])
def test_reading_a_switch(monkeypatch, text, on):
    monkeypatch.setenv("GRAPHCELL_PROGRESS", text)   # default "1": empty means the default
    assert switches.on("GRAPHCELL_PROGRESS") is on
    monkeypatch.setenv("GRAPHCELL_PRINT_AFTER", "cse, fuse")
    assert switches.words("GRAPHCELL_PRINT_AFTER") == ["cse", "fuse"]
    monkeypatch.setenv("GRAPHCELL_KERNEL_THREADS", "three")
    assert switches.number("GRAPHCELL_KERNEL_THREADS") is None
    with pytest.raises(KeyError):
        switches.value("GRAPHCELL_NO_SUCH_SWITCH")

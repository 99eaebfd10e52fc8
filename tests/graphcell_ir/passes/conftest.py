"""Pass tests: every ``*.gcir`` under this directory is a FileCheck-style golden test.

A golden holds the input IR, a ``// RUN: simplify,dce`` line and ``// CHECK:`` lines (see
``gcir_filecheck.py``). It is run through ``graphcell_ir.__main__.opt``, the code behind
``python -m graphcell_ir FILE -p ...``, with the verifier on after every pass, and then:

1. the output must satisfy the CHECK lines;
2. the output must parse back and print identically;
3. every function of the input and of the output must give the same results, exactly, on the
   reference interpreter (random inputs; skipped for a function the interpreter cannot run
   before any pass);
4. every pass named in RUN must be idempotent on the input: run twice, the second run changes
   nothing.

Also here: ``GRAPHCELL_VERIFY=1`` for every test of the directory, so any pipeline a test runs
verifies the IR between passes.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from gcir_filecheck import CheckFailure, check, parse_golden  # noqa: E402
import pass_oracle as oracle  # noqa: E402

from graphcell_ir.__main__ import opt  # noqa: E402
from graphcell_ir.passes.pipelines import parse_pipeline, resolve  # noqa: E402
from graphcell_ir.text import parse_module, print_module  # noqa: E402


@pytest.fixture(autouse=True)
def _verify_between_passes(monkeypatch):
    monkeypatch.setenv("GRAPHCELL_VERIFY", "1")


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix == ".gcir":
        return GoldenFile.from_parent(parent, path=file_path)
    return None


class GoldenFile(pytest.File):
    def collect(self):
        yield GoldenItem.from_parent(self, name=self.path.stem)


class GoldenItem(pytest.Item):
    def runtest(self) -> None:
        run_golden(self.path)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CheckFailure):
            return f"{self.path.relative_to(HERE)}: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, 0, f"golden {self.path.relative_to(HERE)}"


def run_golden(path: Path) -> None:
    text = path.read_text()
    spec = parse_golden(text)
    if not spec.run:
        raise CheckFailure(f"{path.name} has no '// RUN:' line")
    out = opt(text, filename=path.name, passes=spec.run, locs=spec.locs)
    check(out, spec.checks)
    again = print_module(parse_module(out), locs=spec.locs)
    if again != out:
        raise CheckFailure(f"the output does not print back identically:\n{out}\nvs\n{again}")
    full = opt(text, filename=path.name, passes=spec.run, locs="full")
    assert_same_results(parse_module(text), parse_module(full))
    for p in resolve(parse_pipeline(spec.run)):
        m = parse_module(text)
        p(m)
        assert not p(m), f"pass {p.name} is not idempotent on {path.name}"


def assert_same_results(before, after, seed: int = 0) -> None:
    """Every function of ``before`` that runs gives exactly the same results in ``after``."""
    rng = np.random.default_rng(seed)
    for fn in before:
        if fn.name not in after:
            continue
        args = oracle.inputs_for(fn, rng)
        if args is None:
            continue
        try:
            want = oracle.run_or_unrunnable(before, fn.name, args)
        except oracle.Unrunnable:
            continue
        got = oracle.run(after, fn.name, args)
        problem = oracle.difference(want, got)
        assert problem is None, f"@{fn.name} changed its results: {problem}"

"""The pass manager: reports, dumps, printing after passes, errors naming the pass; the CLI."""
from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

from graphcell_ir.__main__ import main
from graphcell_ir.errors import IRVerifyError, PassError, PassVerifyError
from graphcell_ir.ir import Builder, Function, Module, TensorType, float32
from graphcell_ir.ops import REGISTRY
from graphcell_ir.passes import Pass, PassManager, format_reports, resolve, run_pipeline
from graphcell_ir.passes.pipelines import DEFAULT
from graphcell_ir.text import parse_module, print_module

TEXT = """func @f(%x: f32[3], %y: f32[3]) -> f32[3] {
  %0 = mul(%x, 1.0:f32) : f32[3]  loc(net.py:3:4 Net.construct)
  %a = exp(%0) : f32[3]  loc(net.py:4:4 Net)
  %b = exp(%0) : f32[3]  loc(net.py:5:4 Net.construct)
  %c = add(%a, %b) : f32[3]  loc(net.py:6:4 Net.construct)
  %dead = sin(%y) : f32[3]  loc(net.py:7:4 Net.construct)
  return %c
}
"""


def _module():
    return parse_module(TEXT)


def test_reports_say_what_each_pass_did():
    reports = run_pipeline(_module(), ["simplify", "cse", "dce", "fuse"], verify_each=True)
    assert [(r.name, r.position, r.changed, r.ops_before, r.ops_after) for r in reports] == [
        ("simplify", 1, True, 5, 4),   # x * 1 -> x
        ("cse", 2, True, 4, 3),        # the second exp
        ("dce", 3, True, 3, 2),        # sin of y
        ("fuse", 4, True, 2, 1),       # exp and add: one kernel
    ]
    assert reports[1].removed == 1 and all(r.seconds >= 0 for r in reports)
    table = format_reports(reports)
    assert "02 cse" in table and "4 -> 3" in table and "total" in table


def test_pipeline_names_expand_and_unknown_names_are_errors():
    assert [p.name for p in resolve(["default"])] == DEFAULT
    assert [p.name for p in resolve(["cleanup", "fuse"])] == ["simplify", "cse", "dce", "fuse"]
    with pytest.raises(PassError, match="unknown pass 'cse2'.*the passes are inline"):
        resolve(["cse2"])


def test_dumps_the_input_and_every_pass_that_changed_something(tmp_path):
    m = _module()
    m.add_const(np.arange(20, dtype=np.float32))  # a table: dumps come with consts.npz
    reports = PassManager(resolve(["inline", "simplify", "fold", "cse", "dce"]),
                          dump_dir=tmp_path, input_name="frontend").run(m)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["00_frontend.gcir", "02_simplify.gcir", "04_cse.gcir", "05_dce.gcir",
                     "consts.npz"]
    assert reports[3].dump == tmp_path / "04_cse.gcir" and reports[0].dump is None
    assert (tmp_path / "00_frontend.gcir").read_text() == print_module(_module())
    final = parse_module((tmp_path / "05_dce.gcir").read_text())
    assert print_module(final) == print_module(m)
    assert np.load(tmp_path / "consts.npz")["consts/0"].shape == (20,)


def test_print_after_prints_the_named_passes_to_stderr(monkeypatch, capsys):
    monkeypatch.setenv("GRAPHCELL_PRINT_AFTER", "cse,fuse")
    run_pipeline(_module(), ["simplify", "cse", "dce", "fuse"])
    err = capsys.readouterr().err
    assert "// ----- IR after cse (pass 2 of 4, changed) -----" in err
    assert "IR after fuse" in err and "IR after dce" not in err and "IR after simplify" not in err
    assert "fused(" in err
    monkeypatch.setenv("GRAPHCELL_PRINT_AFTER", "all")
    run_pipeline(_module(), ["dce", "dead_branch"])
    err = capsys.readouterr().err
    assert "IR after dce (pass 1 of 2, changed)" in err
    assert "IR after dead_branch (pass 2 of 2, unchanged)" in err


def _breaker(module):
    """A buggy pass: gives the exp a wrong result type."""
    for fn in module:
        for op in fn.body:
            if op.opdef is REGISTRY["exp"]:
                op.results[0].type = TensorType(float32, (4,))
                return True
    return False


def test_a_verifier_failure_names_the_pass_and_shows_the_ops_around_it():
    with pytest.raises(PassVerifyError) as info:
        PassManager([resolve(["dce"])[0], Pass("breaker", _breaker)], verify_each=True).run(
            _module())
    err = info.value
    assert isinstance(err, IRVerifyError) and err.pass_name == "breaker"
    text = str(err)
    assert text.startswith("invalid IR after pass 'breaker' (pass 2 of 2): in @f: op 'exp'")
    assert "(at net.py:4:4 Net)" in text
    marked = [line for line in text.splitlines() if line.startswith(">>")]
    assert marked == [">>   %a = exp(%0) : f32[4]  loc(net.py:4:4 Net)"]
    assert "mul(%x, 1.0:f32)" in text and "return %c" in text  # the neighbourhood


def test_verification_follows_graphcell_verify_when_not_told(monkeypatch):
    monkeypatch.delenv("GRAPHCELL_VERIFY", raising=False)
    PassManager([Pass("breaker", _breaker)]).run(_module())  # no check: no error
    monkeypatch.setenv("GRAPHCELL_VERIFY", "1")
    with pytest.raises(PassVerifyError, match="after pass 'breaker'"):
        PassManager([Pass("breaker", _breaker)]).run(_module())
    PassManager([Pass("breaker", _breaker)], verify_each=False).run(_module())


def test_invalid_input_is_not_blamed_on_the_first_pass():
    m = _module()
    _breaker(m)
    with pytest.raises(PassVerifyError, match="in the input to the pass pipeline") as info:
        run_pipeline(m, ["dce"], verify_each=True)
    assert info.value.pass_name is None


def test_a_pass_that_raises_is_named():
    def crash(module):
        raise KeyError("boom")
    with pytest.raises(PassError, match="pass 'crash' failed: KeyError") as info:
        PassManager([Pass("crash", crash)], verify_each=False).run(_module())
    assert info.value.pass_name == "crash" and isinstance(info.value.__cause__, KeyError)


def test_observe_sees_the_module_after_each_pass():
    seen = []
    PassManager(resolve(["simplify", "dce"]), verify_each=True).run(
        _module(), observe=lambda report, m: seen.append((report.name, len(m["f"].body))))
    assert seen == [("simplify", 5), ("dce", 4)]


def test_passes_run_on_a_single_function_too():
    m = _module()
    assert resolve(["cse"])[0](m["f"]) is True


def test_cli_runs_passes_like_mlir_opt(tmp_path, capsys):
    path = tmp_path / "f.gcir"
    path.write_text(TEXT)
    assert main([str(path), "-p", "simplify,cse,dce", "--locs", "none"]) == 0
    assert capsys.readouterr().out == """func @f(%x: f32[3], %y: f32[3]) -> f32[3] {
  %a = exp(%x) : f32[3]
  %c = add(%a, %a) : f32[3]
  return %c
}
"""
    dumps = tmp_path / "dumps"
    assert main([str(path), "-p", "default", "--report", "--dump-dir", str(dumps),
                 "--print-after", "fuse"]) == 0
    captured = capsys.readouterr()
    assert "07 fuse" in captured.err and "IR after fuse" in captured.err
    assert "fused(" in captured.out and (dumps / "07_fuse.gcir").exists()
    assert main([str(path), "-p", "simplify,nope"]) == 1
    assert "error: unknown pass 'nope'" in capsys.readouterr().err


def test_the_pass_modules_examples_run():
    for name in ("graphcell_ir.passes", "graphcell_ir.passes.manager"):
        result = doctest.testmod(importlib.import_module(name))
        assert result.attempted and not result.failed, name


def test_a_large_module_runs_in_reasonable_steps():
    """A long elementwise chain interleaved with matmuls: one kernel per stretch between them."""
    m = Module()
    fn = m.add(Function("long"))
    x = fn.add_arg(TensorType(float32, (8, 8)), "x")
    b = Builder.at_end(fn.body)
    v = x
    for i in range(300):
        v = b.op("matmul", v, x) if i % 50 == 49 else b.op("tanh" if i % 2 else "exp", v)
    b.return_(v)
    reports = run_pipeline(m, ["fuse"], verify_each=True)
    assert reports[0].ops_before == 300 and reports[0].ops_after == 6 + 6  # kernels, matmuls

"""The benchmark harness (``python -m tools.bench``) works without its peers: ``--quick`` runs
the rows at tiny sizes and prints the table; it times nothing that is checked here."""
import json

import pytest

from tools.bench import run, workloads
from tools.bench.timing import Timing


def test_quick_run_without_peers_prints_every_requested_row(capsys, tmp_path):
    status = run.main(["--quick", "--no-peers", "--only", "W4,MLP64B1,RESBLOCK",
                       "--json", str(tmp_path / "rows.json")])
    out = capsys.readouterr().out
    assert status == 0, out
    for title in ("W4 PyNative x + y [4] f32, per op", "MLP64B1 MLP 784-64-64-10 b1",
                  "RESBLOCK ResNet block b32 32x32 c32"):
        assert title in out
    table = out[out.index("workload / framework"):]
    assert table.count("graphcell GRAPH_MODE") == 2      # MLP64B1 and RESBLOCK
    assert table.count("graphcell PyNative") == 4        # the same two, and W4's two rows
    assert "torch" not in table and "jax" not in table
    saved = json.loads((tmp_path / "rows.json").read_text())
    assert {(r["workload"], r["framework"]) for r in saved["rows"]} >= {
        ("MLP64B1", "graphcell GRAPH_MODE"), ("RESBLOCK", "graphcell PyNative"),
        ("W4 add", "graphcell PyNative")}
    assert all(r["median"] > 0 for r in saved["rows"])


def test_unknown_row_is_refused_with_the_known_ones(capsys):
    with pytest.raises(SystemExit):
        run.main(["--only", "W9"])
    err = capsys.readouterr().err
    assert "unknown rows ['W9']" in err and "RESNET18" in err


def test_graphcell_rows_get_the_ratio_to_the_fastest_peer_that_did_not_fail():
    rows = [("W2", "torch eager", Timing(0.004, 0.003), None, None),
            ("W2", "jax jit", Timing(0.002, 0.002), None, None),
            ("W2", "torch.compile", None, None, "failed: no compiler"),
            ("W2", "graphcell GRAPH_MODE", Timing(0.003, 0.003), None),
            ("W5 cold", "jax jit", 0.8, None, "first 2 steps - 2 steady"),
            ("W5 cold", "graphcell", 0.4, None)]
    text = run.table(rows)
    assert "(best peer: jax jit)" in text
    line = next(ln for ln in text.splitlines() if "graphcell GRAPH_MODE" in ln)
    assert line.split()[-1] == "1.50x"
    assert text.splitlines()[-1].split()[-1] == "0.50x"    # a peer's note is not a failure
    assert "failed: no compiler" in text


def test_loss_check_names_the_framework_that_did_different_work():
    losses = {"graphcell GRAPH_MODE": [2.30, 2.25], "graphcell PyNative": [2.30, 2.25],
              "torch eager": [2.3001, 2.2501], "jax jit": [2.30, 2.10]}
    assert workloads.check_losses("W2", losses) == [
        "W2 jax jit: losses [2.3, 2.1] vs graphcell GRAPH_MODE [2.3, 2.25]"]

"""Every dataset golden case against what MindSpore 2.10 recorded (``goldens/dataset.npz``,
written by ``tools/record_dataset_goldens.py``): column names, sizes, shapes, dtypes and every
row of the pipelines; the outputs of the transform calls; and, where MindSpore refused, an error
of the same builtin class. A case changed or added after recording fails until it is recorded.
"""
from __future__ import annotations

import builtins
import json
import types
from pathlib import Path

import numpy as np
import pytest

import graphcell
import graphcell.dataset as ds
from dataset_cases import CASES, read_goldens
from graphcell.dataset import transforms, vision
from dataset_files import write_standard_files

GOLDENS = Path(__file__).parent / "goldens" / "dataset.npz"


RECORDS = read_goldens(GOLDENS)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("standard_files")
    write_standard_files(root)
    return types.SimpleNamespace(ds=ds, vision=vision, transforms=transforms, ms=graphcell,
                                 data=root)


def _same(got: np.ndarray, want: np.ndarray, case, where: str) -> None:
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, MindSpore {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, MindSpore {want.shape}"
    if case.rtol or case.atol:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=case.rtol, atol=case.atol, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def _query(record: dict, key: str, query) -> None:
    if f"{key}/error" in record:
        with pytest.raises(getattr(builtins, str(record[f"{key}/error"]))):
            query()
        return
    got = query()
    if key == "types":
        got = [str(np.dtype(t)) for t in got]
    assert got == json.loads(str(record[key])), key


def _check_pipeline(data, record: dict, case) -> None:
    queries = {"cols": data.get_col_names, "size": data.get_dataset_size,
               "batch_size": data.get_batch_size, "repeat_count": data.get_repeat_count,
               "shapes": data.output_shapes, "types": data.output_types}
    for key, query in queries.items():
        _query(record, key, query)
    rows = list(data.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert len(rows) == int(record["rows"])
    for i, row in enumerate(rows):
        assert len(row) == len([k for k in record if k.startswith(f"r{i}/")])
        for j, value in enumerate(row):
            _same(value, record[f"r{i}/{j}"], case, f"row {i} column {j}")


def _run(case, env):
    result = case.run(env)
    if case.kind == "pipeline":
        result.get_dataset_size()
        list(result.create_tuple_iterator(output_numpy=True, num_epochs=1))
    return result


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name, env):
    case, record = CASES[name], RECORDS.get(name)
    assert record is not None, f"{name} has no golden: run tools/record_dataset_goldens.py"
    assert str(record["fingerprint"]) == case.fingerprint(), \
        f"{name} changed after it was recorded: run tools/record_dataset_goldens.py {name}"
    if "error" in record:
        with pytest.raises(getattr(builtins, str(record["error"]))):
            _run(case, env)
        return
    result = case.run(env)
    if case.kind == "pipeline":
        _check_pipeline(result, record, case)
        return
    outs = result if isinstance(result, tuple) else (result,)
    assert len(outs) == int(record["outputs"])
    for j, value in enumerate(outs):
        assert isinstance(value, np.ndarray), f"output {j} is {type(value).__name__}"
        _same(value, record[f"out{j}"], case, f"output {j}")


def test_every_recorded_case_still_exists():
    assert not set(RECORDS) - set(CASES), "goldens of removed cases: record again"

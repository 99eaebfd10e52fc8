"""Record MindSpore 2.10's answers to the dataset golden cases:
``tests/graphcell/dataset/goldens/dataset.npz``.

Runs in a virtualenv with MindSpore (never a dependency of graphcell or of its tests)::

    /opt/msvenv/bin/python tools/record_dataset_goldens.py            # every case
    /opt/msvenv/bin/python tools/record_dataset_goldens.py resize/     # cases starting so (merged)

For each case of ``tests/graphcell/dataset/dataset_cases.py`` it stores the case's fingerprint
and either the error MindSpore raised (its builtin class) or the results: a call case's outputs;
a pipeline's column names, size, batch size, repeat count, output shapes and types (or the error
each query raised) and every row of one epoch read with ``output_numpy=True``. The files the
cases read are written by ``dataset_files.write_standard_files`` into a temporary directory.
"""
from __future__ import annotations

import json
import sys
import tempfile
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "dataset"
GOLDENS = HERE / "goldens" / "dataset.npz"
sys.path.insert(0, str(HERE))
import dataset_cases as C  # noqa: E402
from dataset_files import write_standard_files  # noqa: E402

BUILTIN_ERRORS = (TypeError, ValueError, RuntimeError, KeyError, IndexError, StopIteration)


def error_class(exc: BaseException) -> str:
    """The most specific builtin class of ``exc`` (what graphcell's error must also be)."""
    for cls in type(exc).__mro__:
        if cls in BUILTIN_ERRORS:
            return cls.__name__
    return "Exception"


def pipeline_record(data) -> dict:
    rec = {}
    queries = {"cols": data.get_col_names, "size": data.get_dataset_size,
               "batch_size": data.get_batch_size, "repeat_count": data.get_repeat_count,
               "shapes": data.output_shapes,
               "types": lambda: [str(np.dtype(t)) for t in data.output_types()]}
    for key, query in queries.items():
        try:
            rec[key] = np.array(json.dumps(query()))
        except Exception as e:  # noqa: BLE001 - recorded for the test to compare
            rec[f"{key}/error"] = np.array(error_class(e))
    rows = list(data.create_tuple_iterator(output_numpy=True, num_epochs=1))
    rec["rows"] = np.array(len(rows))
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            rec[f"r{i}/{j}"] = np.asarray(value)
    return rec


def call_record(out) -> dict:
    outs = out if isinstance(out, tuple) else (out,)
    rec = {"outputs": np.array(len(outs))}
    for j, value in enumerate(outs):
        rec[f"out{j}"] = np.asarray(value)
    return rec


def record(case: C.Case, env) -> dict:
    try:
        result = case.run(env)
        rec = pipeline_record(result) if case.kind == "pipeline" else call_record(result)
    except Exception as e:  # noqa: BLE001 - MindSpore's refusal is the golden
        rec = {"error": np.array(error_class(e)), "message": np.array(str(e)[:500])}
    rec["fingerprint"] = np.array(case.fingerprint())
    return rec


def main(prefixes: list[str]) -> None:
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore.dataset import transforms, vision
    records = C.read_goldens(GOLDENS) if GOLDENS.exists() and prefixes else {}
    with tempfile.TemporaryDirectory() as tmp:
        write_standard_files(tmp)
        env = types.SimpleNamespace(ds=ds, vision=vision, transforms=transforms, ms=ms,
                                    data=Path(tmp))
        chosen = [c for name, c in C.CASES.items()
                  if not prefixes or any(name.startswith(p) for p in prefixes)]
        for name in [k for k in records if any(k.startswith(p) for p in prefixes)]:
            del records[name]
        for c in chosen:
            records[c.name] = record(c, env)
    GOLDENS.parent.mkdir(parents=True, exist_ok=True)
    C.write_goldens(GOLDENS, records)
    print(f"recorded {len(chosen)} cases into {GOLDENS.relative_to(HERE.parent.parent.parent)}")


if __name__ == "__main__":
    main(sys.argv[1:])

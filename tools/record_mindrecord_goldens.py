"""Record MindRecord interop data: files written by graphcell and by MindSpore 2.10, and what
MindSpore reads from both (``tests/graphcell/dataset/goldens/mindrecord.npz``).

Two steps, each in its own venv (MindSpore is never a dependency of graphcell or its tests)::

    python tools/record_mindrecord_goldens.py graphcell                   # graphcell's venv
    /opt/msvenv/bin/python tools/record_mindrecord_goldens.py mindspore   # MindSpore's venv

``graphcell`` writes every case of ``tests/graphcell/dataset/mindrecord_cases.py`` with
``graphcell.mindrecord`` into ``tests/graphcell/dataset/data/mindrecord/graphcell/``.
``mindspore`` writes them with ``mindspore.mindrecord`` into ``.../mindrecord/mindspore/`` and
records, for both sets: every row ``FileReader`` returns; on MindSpore's files, ``MindDataset``'s
rows (dtypes, shapes, values) and its row orders for the reads of ``READS`` and the shuffle
levels; ``MindPage``'s categories and pages; which bad schemas MindSpore refuses (its exception class) and how many rows it keeps of a
write with a bad row (it drops such rows with a warning).
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "dataset"
DATA = HERE / "data" / "mindrecord"
GOLDENS = HERE / "goldens" / "mindrecord.npz"
sys.path.insert(0, str(HERE))
import mindrecord_cases as C  # noqa: E402


def fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def write_all(mindrecord, folder: Path) -> None:
    for case in C.CASES.values():
        C.write_case(mindrecord, case, str(folder))


def entries(prefix: str, rows: list[dict]) -> dict:
    return {f"{prefix}/{k}": v for k, v in C.encode_rows(rows).items()}


def record_reader(mindrecord, folder: Path, source: str) -> dict:
    out = {}
    for case in C.CASES.values():
        reader = mindrecord.FileReader(case.paths(folder)[0])
        rows = list(reader.get_next())
        reader.close()
        out.update(entries(f"{source}/{case.name}", rows))
    return out


def ids(dataset) -> np.ndarray:
    return np.array([int(r["id"]) for r in dataset.create_dict_iterator(output_numpy=True)],
                    np.int64)


def record_dataset(ds, folder: Path) -> dict:
    out = {}
    for name in C.READ_CASES:
        path = C.CASES[name].paths(folder)[0]
        for read, kwargs in C.READS.items():
            if isinstance(kwargs, str):
                kwargs = {"sampler": C.sampler_of(ds, kwargs)}
            data = ds.MindDataset(path, **kwargs)
            out[f"read/{name}/{read}/ids"] = ids(data)
            out[f"read/{name}/{read}/size"] = np.array(data.get_dataset_size())
            out[f"read/{name}/{read}/columns"] = np.array(data.get_col_names())
        reversed_files = list(reversed(C.CASES[name].paths(folder)))
        out[f"read/{name}/files_reversed/ids"] = ids(ds.MindDataset(reversed_files,
                                                                    shuffle=False))
        ds.config.set_seed(1234)
        for level in C.SHUFFLES:
            out[f"shuffle/{name}/{level}"] = ids(ds.MindDataset(path,
                                                                shuffle=getattr(ds.Shuffle, level)))
        out[f"shuffle/{name}/files"] = np.array([int(r["id"]) for p in C.CASES[name].paths(folder)
                                                 for r in ds.MindDataset([p], shuffle=False)
                                                 .create_dict_iterator(output_numpy=True)])
    for read, kwargs in C.BAD_READS.items():
        kwargs = {k: C.sampler_of(ds, v) if k == "sampler" else v for k, v in kwargs.items()}
        try:
            ids(ds.MindDataset(C.CASES["sharded"].paths(folder)[0], **kwargs))
            got = "accepted"
        except Exception as e:  # noqa: BLE001 - the builtin class is what is recorded
            got = next(c.__name__ for c in type(e).__mro__
                       if c in (TypeError, ValueError, RuntimeError, Exception))
        out[f"bad_read/{read}"] = np.array(got)
    case = C.CASES["all_types"]
    data = ds.MindDataset(case.paths(folder)[0], shuffle=False)
    out["values/all_types/columns"] = np.array(data.get_col_names())
    out.update(entries("values/all_types", list(data.create_dict_iterator(output_numpy=True))))
    return out


def record_pages(mindrecord, folder: Path) -> dict:
    """MindPage on MindSpore's files: the category information, then every page of each
    category (``C.PAGE_ROWS`` rows a page), by id and, for the first category, by name."""
    import json

    out = {}
    for name, field in C.PAGES:
        pages = mindrecord.MindPage(C.CASES[name].paths(folder)[0])
        out[f"page/{name}/candidates"] = np.array(pages.candidate_fields)
        pages.category_field = field
        info = pages.read_category_info()
        out[f"page/{name}/{field}/info"] = np.array(info)
        for category in json.loads(info)["categories"]:
            rows = []
            for page in range(-(-category["count"] // C.PAGE_ROWS)):
                rows += pages.read_at_page_by_id(category["id"], page, C.PAGE_ROWS)
            out.update(entries(f"page/{name}/{field}/{category['id']}", rows))
    return out


def record_errors(mindrecord) -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, schema in C.BAD_SCHEMAS.items():
            writer = mindrecord.FileWriter(f"{tmp}/bad.mindrecord", overwrite=True)
            try:
                writer.add_schema(schema)
                got = "accepted"
            except Exception as e:  # noqa: BLE001 - the class is what is recorded
                got = type(e).__name__
            out[f"bad_schema/{name}"] = np.array(got)
        variants = {**{f"bad/{k}": v for k, v in C.BAD_ROWS.items()},
                    **{f"good/{k}": v for k, v in C.GOOD_VARIANTS.items()}}
        for name, row in variants.items():
            path = f"{tmp}/{name.replace('/', '_')}.mindrecord"
            writer = mindrecord.FileWriter(path, overwrite=True)
            writer.add_schema(C.BAD_ROW_SCHEMA)
            try:
                writer.write_raw_data([C.good_row(1), row, C.good_row(2)])
                writer.commit()
                kept = mindrecord.FileReader(path).len()
            except Exception as e:  # noqa: BLE001
                kept = -1
                print(f"{name}: MindSpore raised {type(e).__name__}: {e}")
            out[f"rows_kept/{name}"] = np.array(kept)
    return out


def main(step: str) -> None:
    if step == "graphcell":
        import graphcell.mindrecord as mindrecord
        write_all(mindrecord, fresh(DATA / "graphcell"))
        print(f"wrote {DATA / 'graphcell'}")
        return
    import mindspore.dataset as ds
    import mindspore.mindrecord as mindrecord
    ms_dir = fresh(DATA / "mindspore")
    write_all(mindrecord, ms_dir)
    goldens = {}
    goldens.update(record_reader(mindrecord, ms_dir, "mindspore"))
    goldens.update(record_reader(mindrecord, DATA / "graphcell", "graphcell"))
    goldens.update(record_dataset(ds, ms_dir))
    goldens.update(record_pages(mindrecord, ms_dir))
    goldens.update(record_errors(mindrecord))
    GOLDENS.parent.mkdir(exist_ok=True)
    np.savez_compressed(GOLDENS, **goldens)
    print(f"wrote {ms_dir} and {GOLDENS} ({len(goldens)} arrays)")


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("graphcell", "mindspore"):
        sys.exit(__doc__)
    main(sys.argv[1])

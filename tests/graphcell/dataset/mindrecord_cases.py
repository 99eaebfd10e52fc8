"""MindRecord interop cases: small file sets written once by MindSpore 2.10 and once by graphcell,
read by both.

``tools/record_mindrecord_goldens.py`` writes each case with graphcell (``graphcell`` step, in
graphcell's venv) into ``data/mindrecord/graphcell/`` and with MindSpore (``mindspore`` step, in
``/opt/msvenv``) into ``data/mindrecord/mindspore/``; the second step also records what MindSpore
reads from both sets (every row through ``FileReader``; ``MindDataset``'s orders under
``shuffle=False``, shards, padding, samplers; its shuffles' orders) and which bad schemas and rows
it refuses, into ``goldens/mindrecord.npz``. Row counts of sharded writes are multiples of the
shard count: MindSpore gives the remainder rows to shards it draws at random. This module
imports nothing but numpy, so that both venvs read it.

Example::

    >>> c = CASES["all_types"]
    >>> c.shard_num, sum(len(b) for b in c.batches())
    (1, 12)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

HEADER_SIZE, PAGE_SIZE = 1 << 14, 1 << 15  # MindSpore's minimums keep the files small


@dataclass
class FileCase:
    name: str
    schema: dict
    make: Callable[[], list]  # the rows of each write_raw_data call
    shard_num: int = 1
    index: list | None = None
    desc: str | None = None
    appended: Callable[[], list] | None = None  # rows of write calls after open_for_append

    def batches(self) -> list[list[dict]]:
        return self.make()

    @property
    def file_name(self) -> str:
        return f"{self.name}.mindrecord"

    def paths(self, folder) -> list[str]:
        """The data files of the case in ``folder``."""
        base = f"{folder}/{self.file_name}"
        return [base] if self.shard_num == 1 else [f"{base}{i}" for i in range(self.shard_num)]

    def all_rows(self) -> list[dict]:
        rows = [r for b in self.batches() for r in b]
        return rows + ([r for b in self.appended() for r in b] if self.appended else [])


def write_case(mindrecord, case: FileCase, folder) -> None:
    """Write ``case`` into ``folder`` with ``mindrecord`` (MindSpore's module or graphcell's)."""
    writer = mindrecord.FileWriter(f"{folder}/{case.file_name}", shard_num=case.shard_num,
                                   overwrite=True)
    writer.set_header_size(HEADER_SIZE)
    writer.set_page_size(PAGE_SIZE)
    if case.desc is None:
        writer.add_schema(case.schema)
    else:
        writer.add_schema(case.schema, case.desc)
    if case.index is not None:
        writer.add_index(case.index)
    for batch in case.batches():
        writer.write_raw_data(batch)
    writer.commit()
    if case.appended:
        writer = mindrecord.FileWriter.open_for_append(case.paths(folder)[0])
        for batch in case.appended():
            writer.write_raw_data(batch)
        writer.commit()


CASES: dict[str, FileCase] = {}


def case(c: FileCase) -> FileCase:
    CASES[c.name] = c
    return c


def _tutorial_rows():
    return [[{"file_name": f"{i}.jpg", "label": i, "data": np.array([i] * (i + 1), np.int32)}]
            for i in range(4)]


case(FileCase("tutorial", {"file_name": {"type": "string"}, "label": {"type": "int32"},
                           "data": {"type": "int32", "shape": [-1]}}, _tutorial_rows,
              desc="test_schema"))

_ALL_TYPES = {"id": {"type": "int64"}, "i32": {"type": "int32"}, "f32": {"type": "float32"},
              "f64": {"type": "float64"}, "name": {"type": "string"}, "raw": {"type": "bytes"},
              "a_i32": {"type": "int32", "shape": [-1]}, "a_i64": {"type": "int64", "shape": [2, -1]},
              "a_f32": {"type": "float32", "shape": [2, 2]}, "a_f64": {"type": "float64", "shape": [3]}}


def _all_types_rows():
    rng = np.random.default_rng(7)
    rows = []
    widths = [0, 100, 30000, 2 ** 31 - 1, -2 ** 31, -5]
    for i in range(12):
        n = 1 + i % 5
        big = np.array([widths[(i + k) % 6] for k in range(2 * n)], np.int64)
        big[0] = -(2 ** 40) * (i % 3)  # 8-byte values too
        rows.append({
            "id": i * 1000 - 3000, "i32": (-1) ** i * i * 70000, "f32": 0.1 * i,
            "f64": float(i) / 3 if i % 4 else float(i), "name": f"ряд {i}" if i % 2 else f"row{i}",
            "raw": bytes(rng.integers(0, 256, 3 * i, dtype=np.uint8)) + b"\x00" * (i % 2),
            "a_i32": rng.integers(-300, 300, n).astype(np.int32) * (1 + 1000 * (i % 2)),
            "a_i64": big.reshape(2, n),
            "a_f32": rng.standard_normal((2, 2)).astype(np.float32),
            "a_f64": rng.standard_normal(3),
        })
    return [rows[:6], rows[6:]]


case(FileCase("all_types", _ALL_TYPES, _all_types_rows, index=["id", "name"], desc="every type"))


def _sharded_rows():
    rng = np.random.default_rng(3)
    # ~7 KB a row, so that each shard's rows fill more than one 32 KB blob page
    rows = [{"id": i, "label": int(i % 4),
             "img": bytes(rng.integers(0, 256, 16, dtype=np.uint8)) + bytes([i]) * (6000 + 400 * i)}
            for i in range(15)]
    return [rows[:12], rows[12:]]


case(FileCase("sharded", {"id": {"type": "int64"}, "label": {"type": "int32"},
                          "img": {"type": "bytes"}}, _sharded_rows, shard_num=3))


def _scalar_rows():
    return [[{"id": i, "x": 0.5 * i - 1, "name": "n" * i} for i in range(5)]]


case(FileCase("scalars_only", {"id": {"type": "int64"}, "x": {"type": "float64"},
                               "name": {"type": "string"}}, _scalar_rows))


def _one_array_rows():
    return [[{"id": i, "v": np.arange(-2 * i, 3 * i + 1, dtype=np.int64) * 977 ** (i % 4)}
             for i in range(6)]]


case(FileCase("one_array", {"id": {"type": "int64"}, "v": {"type": "int64", "shape": [-1]}},
              _one_array_rows))


def _append_first():
    return [[{"id": i, "img": bytes([i]) * (2000 * i + 1)} for i in range(4)]]


def _append_second():
    return [[{"id": i, "img": bytes([i]) * (2000 * (i - 3) + 2)} for i in range(4, 10)]]


case(FileCase("appended", {"id": {"type": "int64"}, "img": {"type": "bytes"}}, _append_first,
              shard_num=2, appended=_append_second))

# --- MindDataset reads (on MindSpore's files) ------------------------------------------------------
# (case, name) -> keyword arguments of MindDataset besides the file; every case has an "id" column.

READS = {
    "seq": dict(shuffle=False),
    "columns": dict(shuffle=False, columns_list=["label", "id"]),
    "num_samples": dict(shuffle=False, num_samples=5),
    "shard_2_0": dict(shuffle=False, num_shards=2, shard_id=0),
    "shard_2_1": dict(shuffle=False, num_shards=2, shard_id=1),
    "shard_4_3": dict(shuffle=False, num_shards=4, shard_id=3),
    "shard_4_1_samples": dict(shuffle=False, num_shards=4, shard_id=1, num_samples=2),
    "padded_4_3": dict(shuffle=False, num_shards=4, shard_id=3, columns_list=["id", "label"],
                       padded_sample={"id": -1, "label": -1}, num_padded=1),
    "subset": "SubsetSampler([7, 0, 3])",
    "sequential": "SequentialSampler(2, 5)",
    "distributed": "DistributedSampler(2, 1, shuffle=False)",
}
READ_CASES = ("sharded",)
SHUFFLES = ("GLOBAL", "FILES", "INFILE")


def sampler_of(ds, text: str):
    """The sampler a READS entry names, built from ``ds`` (MindSpore's module or graphcell's)."""
    name, args = text.split("(", 1)
    return eval(f"ds.{name}({args}", {"ds": ds})  # a fixed table above, not user input


# MindDataset arguments MindSpore refuses (on the "sharded" files), recorded with its error class
_PAD = dict(columns_list=["id", "label"], padded_sample={"id": -1, "label": -1})
BAD_READS = {
    "padded_without_num": dict(_PAD),
    "num_without_padded": dict(num_padded=1),
    "padding_not_dividing": dict(_PAD, num_padded=2, num_shards=4, shard_id=0),
    "unknown_column": dict(columns_list=["id", "nope"]),
    "sampler_and_shuffle": dict(shuffle=False, sampler="SequentialSampler()"),
    "shard_without_num": dict(shard_id=0),
}

# --- MindPage: (case, category field), each category read two rows a page ----------------------

PAGES = (("sharded", "label"), ("all_types", "name"), ("scalars_only", "x"))
PAGE_ROWS = 2

# --- bad schemas and rows -------------------------------------------------------------------------

BAD_SCHEMAS = {
    "empty": {},
    "bad_type": {"x": {"type": "int8"}},
    "bad_name": {"x-y": {"type": "int32"}},
    "string_array": {"x": {"type": "string", "shape": [2]}},
    "bytes_array": {"x": {"type": "bytes", "shape": [-1]}},
    "extra_key": {"x": {"type": "int32", "size": 3}},
    "not_dict": {"x": "int32"},
    "shape_not_list": {"x": {"type": "int32", "shape": 3}},
}

BAD_ROW_SCHEMA = {"id": {"type": "int64"}, "f": {"type": "float32"}, "s": {"type": "string"},
                  "a": {"type": "float32", "shape": [2, 2]}}


def _good(i):
    return {"id": i, "f": 0.5, "s": "x", "a": np.zeros((2, 2), np.float32)}


BAD_ROWS = {
    "missing_field": {k: v for k, v in _good(0).items() if k != "s"},
    "str_for_int": {**_good(0), "id": "7"},
    "float_for_int": {**_good(0), "id": 7.0},
    "int_for_string": {**_good(0), "s": 3},
    "array_dtype": {**_good(0), "a": np.zeros((2, 2), np.float64)},
    "array_shape": {**_good(0), "a": np.zeros(5, np.float32)},
    "list_for_array": {**_good(0), "a": [[0.0, 0.0], [0.0, 0.0]]},
    "int_for_float": {**_good(0), "f": 1},
    "np_int32_for_int64": {**_good(0), "id": np.int32(3)},
    "np_float64_for_float32": {**_good(0), "f": np.float64(0.5)},
    "bool_for_int": {**_good(0), "id": True},
    "bytes_for_string": {**_good(0), "s": b"x"},
}
GOOD_VARIANTS = {  # rows MindSpore takes although they are not the plain Python type
    "np_int64": {**_good(0), "id": np.int64(5)},
    "np_float32": {**_good(0), "f": np.float32(0.25)},
}


def good_row(i):
    return _good(i)


# --- rows as a few arrays (goldens) ---------------------------------------------------------------

def encode_rows(rows: list[dict]) -> dict:
    """Rows (dicts of int, float, str, bytes or numpy arrays, one key order) as four arrays:
    ``fields``, ``kinds`` (one tag per value: ``int``, ``float``, ``str``, ``bytes`` or
    ``array:<dtype>:<shape>``), ``lens`` and ``data`` (every value's bytes, concatenated)."""
    fields = list(rows[0]) if rows else []
    kinds, lens, chunks = [], [], []
    for row in rows:
        if list(row) != fields:
            raise ValueError(f"rows with different keys: {list(row)} and {fields}")
        for value in row.values():
            if isinstance(value, bool):
                raise TypeError("no bools in MindRecord rows")
            if isinstance(value, int):
                kind, raw = "int", np.int64(value).tobytes()
            elif isinstance(value, float):
                kind, raw = "float", np.float64(value).tobytes()
            elif isinstance(value, str):
                kind, raw = "str", value.encode("utf-8")
            elif isinstance(value, bytes):
                kind, raw = "bytes", value
            else:
                arr = np.ascontiguousarray(value)
                kind = f"array:{arr.dtype.str}:{','.join(map(str, arr.shape))}"
                raw = arr.tobytes()
            kinds.append(kind)
            lens.append(len(raw))
            chunks.append(raw)
    n = len(rows)
    return {"fields": np.array(fields, dtype=str),
            "kinds": np.array(kinds, dtype=str).reshape(n, len(fields)),
            "lens": np.array(lens, np.int64).reshape(n, len(fields)),
            "data": np.frombuffer(b"".join(chunks), np.uint8)}


def decode_rows(fields, kinds, lens, data) -> list[dict]:
    """The rows ``encode_rows`` encoded."""
    raw = data.tobytes()
    rows, pos = [], 0
    for kind_row, len_row in zip(kinds.tolist(), lens.tolist()):
        row = {}
        for name, kind, n in zip(fields.tolist(), kind_row, len_row):
            chunk = raw[pos:pos + n]
            pos += n
            if kind == "int":
                row[name] = int(np.frombuffer(chunk, np.int64)[0])
            elif kind == "float":
                row[name] = float(np.frombuffer(chunk, np.float64)[0])
            elif kind == "str":
                row[name] = chunk.decode("utf-8")
            elif kind == "bytes":
                row[name] = chunk
            else:
                _, dtype, shape = kind.split(":")
                dims = tuple(int(d) for d in shape.split(",") if d)
                row[name] = np.frombuffer(chunk, np.dtype(dtype)).reshape(dims)
        rows.append(row)
    return rows

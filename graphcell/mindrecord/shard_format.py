"""MindSpore's MindRecord file format, byte by byte: the one module that reads and writes it.

A MindRecord *shard* is a data file and a SQLite index next to it (``name`` and ``name.db``); a
set of ``shard_num`` shards shares one schema. The layout (``docs/decisions.md``, "MindRecord"):

- **Header** (``header_size`` bytes, zero-padded): an 8-byte little-endian length, then compact
  JSON: ``header_size``, ``index_fields``, ``page`` (every page of this shard), ``page_size``,
  ``compression_size``, ``schema`` (``blob_fields``, ``desc``, ``schema``), ``shard_addresses``
  (the file names of the whole set), ``shard_id``, ``statistics`` and ``version`` ``"3.0"``.
- **Pages** of ``page_size`` bytes follow, page ``i`` at ``header_size + i * page_size`` (the last
  one is not padded). A ``BLOB_DATA`` page holds the blob part of whole rows (bytes fields and
  arrays); a ``RAW_DATA`` page the other fields. Each row in a page is an 8-byte little-endian
  length and its bytes. A raw page lists ``row_group_ids``: where the rows of each blob page
  (``id`` = the blob page's ``page_type_id``) begin.
- **Raw part**: a MessagePack map of the scalar fields, keys sorted (floats as float32 when that
  is exact, integers in the fewest bytes — what MindSpore's JSON library writes).
- **Blob part**: with one blob field its bytes alone; with several, each field as an 8-byte
  big-endian length and its bytes, fields in name order; with none, four zero bytes. Arrays are
  C-order little-endian. When the schema has an int32/int64 array, int32/int64 blob fields are
  *compressed*: a 4-byte big-endian count, a bitmap of 2 bits per element (the element's width:
  0 = 1 byte ... 3 = 8 bytes, first element in the high bits), then each element little-endian in
  that width; the header's ``compression_size`` counts the bytes saved.
- **Index** (``.db``): table ``INDEXES`` with one row per record — its row id and where its raw
  and blob parts are (page id, start and end offsets within the page, blob row group), plus one
  column per index field — and table ``SHARD_NAME`` with the data file's name.

Example::

    >>> schema = Schema.build({"label": {"type": "int32"}, "img": {"type": "bytes"}})
    >>> schema.blob_fields, schema.raw_fields
    (('img',), ('label',))
    >>> unpack_msgpack(pack_msgpack({"a": 1, "b": 0.5}))
    {'a': 1, 'b': 0.5}
"""
from __future__ import annotations

import json
import math
import mmap
import os
import re
import sqlite3
import struct
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from graphcell.mindrecord.exceptions import (MRMInvalidSchemaError, MRMOpenError,
                                             MRMValidateDataError, MRMWriteDatasetError)

VERSION = "3.0"
LEN = 8  # every length prefix is 8 bytes
SCALAR_TYPES = ("int32", "int64", "float32", "float64", "string", "bytes")
ARRAY_TYPES = ("int32", "int64", "float32", "float64")
INT_TYPES = ("int32", "int64")
_DTYPES = {"int32": np.dtype("<i4"), "int64": np.dtype("<i8"), "float32": np.dtype("<f4"),
           "float64": np.dtype("<f8")}
_SQL_TYPES = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL",
              "string": "TEXT"}
_NAME = re.compile(r"^[0-9a-zA-Z_]+$")
_NO_BLOB = b"\x00\x00\x00\x00"  # what MindSpore stores as the blob of a schema without blobs


# --- schema -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Schema:
    """A validated schema: ``fields`` maps a name to ``(type, shape or None)``."""

    fields: dict
    desc: str = ""

    @classmethod
    def build(cls, content, desc=None) -> "Schema":
        """Check ``content`` with MindSpore's rules (``MRMInvalidSchemaError`` says which field
        is wrong and why)."""
        if not isinstance(content, dict):
            raise MRMInvalidSchemaError(f"the schema must be a dict of field name -> "
                                        f"{{'type': ...}}, got {type(content).__name__}")
        if not content:
            raise MRMInvalidSchemaError("the schema is empty; give at least one field")
        if desc is not None and not isinstance(desc, str):
            raise MRMInvalidSchemaError(f"desc must be a str, got {type(desc).__name__}")
        fields = {}
        for name, spec in content.items():
            fields[name] = _check_field(name, spec)
        return cls(dict(sorted(fields.items())), desc or "")

    @classmethod
    def from_json(cls, entry: dict) -> "Schema":
        """The schema of a header's ``schema[0]`` entry."""
        fields = {k: (v["type"], tuple(v["shape"]) if "shape" in v else None)
                  for k, v in entry["schema"].items()}
        return cls(dict(sorted(fields.items())), entry.get("desc", ""))

    @cached_property
    def blob_fields(self) -> tuple[str, ...]:
        return tuple(k for k, (t, shape) in self.fields.items() if t == "bytes" or shape)

    @cached_property
    def raw_fields(self) -> tuple[str, ...]:
        return tuple(k for k in self.fields if k not in self.blob_fields)

    @cached_property
    def compresses(self) -> bool:
        """MindSpore compresses integer blobs when the schema has an integer array."""
        return any(t in INT_TYPES and shape for t, shape in self.fields.values())

    def to_json(self) -> dict:
        schema = {k: ({"shape": list(shape), "type": t} if shape else {"type": t})
                  for k, (t, shape) in self.fields.items()}
        return {"blob_fields": list(self.blob_fields), "desc": self.desc, "schema": schema}


def _check_field(name, spec) -> tuple:
    if not isinstance(name, str) or not _NAME.match(name):
        raise MRMInvalidSchemaError(f"field {name!r}: a field name may only contain 0-9, a-z, "
                                    f"A-Z and '_'")
    if not isinstance(spec, dict) or not spec:
        raise MRMInvalidSchemaError(f"field {name!r}: its description must be a dict such as "
                                    f"{{'type': 'int32'}}, got {spec!r}")
    extra = set(spec) - {"type", "shape"}
    if extra or "type" not in spec:
        raise MRMInvalidSchemaError(f"field {name!r}: the description {spec!r} must have 'type' "
                                    f"and may have 'shape', nothing else")
    kind = spec["type"]
    if "shape" not in spec:
        if kind not in SCALAR_TYPES:
            raise MRMInvalidSchemaError(f"field {name!r}: type {kind!r} is not one of "
                                        f"{list(SCALAR_TYPES)}")
        return kind, None
    if kind not in ARRAY_TYPES:
        raise MRMInvalidSchemaError(f"field {name!r}: an array ('shape' given) must have a type "
                                    f"in {list(ARRAY_TYPES)}, got {kind!r}")
    shape = spec["shape"]
    if not isinstance(shape, list) or not shape or \
            not all(isinstance(d, int) and not isinstance(d, bool) and (d > 0 or d == -1)
                    for d in shape) or shape.count(-1) > 1:
        raise MRMInvalidSchemaError(f"field {name!r}: shape must be a non-empty list of positive "
                                    f"ints with at most one -1, got {shape!r}")
    return kind, tuple(shape)


# --- checking a row against the schema ---------------------------------------------------------

_INT_RANGE = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


def check_row(schema: Schema, row, i: int) -> dict:
    """``row`` (a dict) as the values to store, after MindSpore's checks: every schema field is
    present, with a value of the field's type (``MRMValidateDataError`` names the row and field)."""
    if not isinstance(row, dict):
        raise MRMValidateDataError(f"row {i}: each row must be a dict of field -> value, got "
                                   f"{type(row).__name__}")
    out = {}
    for name, (kind, shape) in schema.fields.items():
        if name not in row:
            raise MRMValidateDataError(f"row {i}: field {name!r} of the schema is missing "
                                       f"(the row has {sorted(row)})")
        out[name] = _check_value(row[name], kind, shape, f"row {i}, field {name!r}")
    return out


def _check_value(value, kind, shape, where):
    if shape:
        if not isinstance(value, np.ndarray):
            raise MRMValidateDataError(f"{where}: the schema says a {kind} array of shape "
                                       f"{list(shape)}, got {type(value).__name__}")
        if str(value.dtype) != kind:
            raise MRMValidateDataError(f"{where}: the schema says {kind}, the array is "
                                       f"{value.dtype}; cast it with .astype(np.{kind})")
        try:
            np.reshape(value, shape)
        except ValueError:
            raise MRMValidateDataError(f"{where}: an array of shape {list(value.shape)} does "
                                       f"not fit the schema's shape {list(shape)}") from None
        return value
    if kind == "bytes":
        if not isinstance(value, bytes):
            raise MRMValidateDataError(f"{where}: the schema says bytes, got "
                                       f"{type(value).__name__}")
        return value
    if kind == "string":
        if not isinstance(value, str):
            raise MRMValidateDataError(f"{where}: the schema says string, got "
                                       f"{type(value).__name__}")
        return value
    # MindSpore's rule: a Python int or a numpy scalar of exactly the field's dtype for an int
    # field; a Python float or a numpy scalar of exactly the dtype for a float field
    exact = np.dtype(kind).type
    plain = int if kind in INT_TYPES else float
    if type(value) is not plain and type(value) is not exact:
        raise MRMValidateDataError(f"{where}: the schema says {kind}, got "
                                   f"{type(value).__name__} {value!r} (give a Python "
                                   f"{plain.__name__} or numpy.{kind})")
    if kind in INT_TYPES:
        lo, hi = _INT_RANGE[kind]
        if not lo <= int(value) <= hi:
            raise MRMValidateDataError(f"{where}: {int(value)} is out of {kind}'s range")
        return int(value)
    return float(value)


# --- MessagePack (the subset MindSpore's raw part uses) -----------------------------------------

def pack_msgpack(value) -> bytes:
    """MessagePack bytes of a dict/str/int/float, as MindSpore's JSON library writes them."""
    out = bytearray()
    _pack(value, out)
    return bytes(out)


def _pack(v, out: bytearray) -> None:
    if isinstance(v, dict):
        n = len(v)
        out += bytes([0x80 | n]) if n < 16 else struct.pack(">BH", 0xDE, n)
        for k in sorted(v):
            _pack(k, out)
            _pack(v[k], out)
    elif isinstance(v, str):
        b = v.encode("utf-8")
        n = len(b)
        out += (bytes([0xA0 | n]) if n < 32 else struct.pack(">BB", 0xD9, n) if n < 256 else
                struct.pack(">BH", 0xDA, n) if n < 65536 else struct.pack(">BI", 0xDB, n))
        out += b
    elif isinstance(v, bool) or v is None:
        raise TypeError(f"MindRecord stores no {type(v).__name__} values")
    elif isinstance(v, int):
        out += _pack_int(v)
    else:
        x = float(v)
        if not math.isnan(x) and abs(x) <= 3.4028234663852886e38 and \
                struct.unpack("<f", struct.pack("<f", x))[0] == x:
            out += struct.pack(">Bf", 0xCA, x)
        else:
            out += struct.pack(">Bd", 0xCB, x)


def _pack_int(v: int) -> bytes:
    if v >= 0:
        if v < 128:
            return bytes([v])
        for code, fmt, top in ((0xCC, "B", 0xFF), (0xCD, "H", 0xFFFF), (0xCE, "I", 0xFFFFFFFF)):
            if v <= top:
                return struct.pack(">B" + fmt, code, v)
        return struct.pack(">BQ", 0xCF, v)
    if v >= -32:
        return struct.pack(">b", v)
    for code, fmt, low in ((0xD0, "b", -2 ** 7), (0xD1, "h", -2 ** 15), (0xD2, "i", -2 ** 31)):
        if v >= low:
            return struct.pack(">B" + fmt, code, v)
    return struct.pack(">Bq", 0xD3, v)


_FIXED = {0xCA: ">f", 0xCB: ">d", 0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b",
          0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}


def unpack_msgpack(data: bytes):
    """The value of MessagePack ``data`` (maps, strings, numbers, nil, booleans)."""
    value, end = _unpack(memoryview(data), 0)
    if end != len(data):
        raise ValueError(f"{len(data) - end} bytes after the MessagePack value")
    return value


def _unpack(b, i):
    t = b[i]
    i += 1
    if t < 0x80:
        return t, i
    if t >= 0xE0:
        return t - 256, i
    if 0x80 <= t <= 0x8F or t in (0xDE, 0xDF):
        n, i = (t & 0x0F, i) if t <= 0x8F else _length(b, i, 2 if t == 0xDE else 4)
        out = {}
        for _ in range(n):
            k, i = _unpack(b, i)
            out[k], i = _unpack(b, i)
        return out, i
    if 0x90 <= t <= 0x9F or t in (0xDC, 0xDD):
        n, i = (t & 0x0F, i) if t <= 0x9F else _length(b, i, 2 if t == 0xDC else 4)
        out = []
        for _ in range(n):
            v, i = _unpack(b, i)
            out.append(v)
        return out, i
    if 0xA0 <= t <= 0xBF or t in (0xD9, 0xDA, 0xDB):
        n, i = (t & 0x1F, i) if t <= 0xBF else _length(b, i, {0xD9: 1, 0xDA: 2, 0xDB: 4}[t])
        return bytes(b[i:i + n]).decode("utf-8"), i + n
    if t in (0xC4, 0xC5, 0xC6):
        n, i = _length(b, i, {0xC4: 1, 0xC5: 2, 0xC6: 4}[t])
        return bytes(b[i:i + n]), i + n
    if t in _FIXED:
        fmt = _FIXED[t]
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, b[i:i + size])[0], i + size
    if t in (0xC0, 0xC2, 0xC3):
        return {0xC0: None, 0xC2: False, 0xC3: True}[t], i
    raise ValueError(f"MessagePack type byte 0x{t:02x} is not used by MindRecord")


def _length(b, i, size):
    return int.from_bytes(b[i:i + size], "big"), i + size


# --- the blob part -----------------------------------------------------------------------------

_WIDTH_LIMITS = np.array([2 ** 7, 2 ** 15, 2 ** 31], np.int64)  # codes 0, 1, 2; else 3


def compress_ints(values: np.ndarray) -> bytes:
    """MindSpore's integer compression of an int32/int64 array (flattened in C order)."""
    vals = np.ascontiguousarray(values, np.int64).reshape(-1)
    n = len(vals)
    # the narrowest signed width holding each value: 1, 2, 4 or 8 bytes (codes 0..3)
    codes = np.searchsorted(_WIDTH_LIMITS, np.maximum(vals, -vals - 1), side="right")
    padded = np.zeros(-(-n // 4) * 4, np.uint8)
    padded[:n] = codes
    bitmap = (padded.reshape(-1, 4) << np.array([6, 4, 2, 0], np.uint8)).sum(1).astype(np.uint8)
    little = vals.astype("<i8").view(np.uint8).reshape(n, 8)
    body = little[np.arange(8) < (1 << codes)[:, None]]  # each value's low bytes, in order
    return struct.pack(">I", n) + bitmap.tobytes() + body.tobytes()


_INT_OF_WIDTH = (np.dtype("<i1"), np.dtype("<i2"), np.dtype("<i4"), np.dtype("<i8"))


def uncompress_ints(data, dtype) -> np.ndarray:
    """The array ``compress_ints`` compressed, as ``dtype``."""
    raw = np.frombuffer(data, np.uint8)
    (n,) = struct.unpack(">I", raw[:4].tobytes())
    nbitmap = -(-n // 4)
    codes = ((raw[4:4 + nbitmap, None] >> np.array([6, 4, 2, 0], np.uint8)) & 3).reshape(-1)[:n]
    body = raw[4 + nbitmap:]
    first = int(codes[0]) if n else 0
    if n and (codes == first).all():  # one width for all: read them in one go
        width = 1 << first
        if len(body) < n * width:
            raise ValueError(f"a compressed integer field is cut short ({len(raw)} bytes)")
        return body[:n * width].view(_INT_OF_WIDTH[first]).astype(dtype)
    widths = np.left_shift(1, codes.astype(np.int64))
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.int64)
    if n and starts[-1] + widths[-1] > len(body):
        raise ValueError(f"a compressed integer field is cut short ({len(raw)} bytes)")
    out = np.empty(n, dtype)
    for code in range(4):  # the elements of each width, gathered together
        chosen = codes == code
        if chosen.any():
            width = 1 << code
            picked = body[starts[chosen][:, None] + np.arange(width)]
            out[chosen] = picked.reshape(-1).view(_INT_OF_WIDTH[code])
    return out


def encode_blob(schema: Schema, row: dict) -> tuple[bytes, int]:
    """The blob part of ``row`` and the bytes compression saved."""
    names = schema.blob_fields
    if not names:
        return _NO_BLOB, 0
    parts, saved = [], 0
    for name in names:
        kind, shape = schema.fields[name]
        value = row[name]
        if kind == "bytes" and not shape:
            parts.append(value)
            continue
        arr = np.ascontiguousarray(value, _DTYPES[kind])
        if schema.compresses and kind in INT_TYPES:
            packed = compress_ints(arr)
            saved += arr.nbytes - len(packed)
            parts.append(packed)
        else:
            parts.append(arr.tobytes())
    if len(parts) == 1:
        return parts[0], saved
    return b"".join(struct.pack(">Q", len(p)) + p for p in parts), saved


def decode_blob(schema: Schema, data, wanted) -> dict:
    """The blob fields among ``wanted`` of a row's blob part."""
    names = schema.blob_fields
    out = {}
    pos = 0
    for name in names:
        if len(names) == 1:
            piece = data
        else:
            (n,) = struct.unpack(">Q", bytes(data[pos:pos + LEN]))
            piece = data[pos + LEN:pos + LEN + n]
            pos += LEN + n
        if name in wanted:
            out[name] = _blob_value(schema, name, piece)
    return out


def _blob_value(schema: Schema, name: str, piece):
    kind, shape = schema.fields[name]
    if kind == "bytes" and not shape:
        return bytes(piece)
    if schema.compresses and kind in INT_TYPES:
        arr = uncompress_ints(piece, _DTYPES[kind])
    else:
        arr = np.frombuffer(piece, _DTYPES[kind])
    return arr.astype(kind).reshape(shape)


def raw_value(kind: str, value):
    """A raw field's stored value as the schema's type (MindSpore may store 1.0 as an int)."""
    if kind in INT_TYPES:
        return int(value)
    if kind in ("float32", "float64"):
        return float(value)
    return value


# --- header -----------------------------------------------------------------------------------

@dataclass
class Page:
    """One page of a shard: its place, kind, rows and content."""

    page_id: int
    page_type: str  # "BLOB_DATA" or "RAW_DATA"
    page_type_id: int
    shard_id: int
    start_row_id: int = 0
    end_row_id: int = 0
    row_group_ids: list = field(default_factory=list)  # [(blob page type id, offset)]
    data: bytearray = field(default_factory=bytearray)
    released_size: int | None = None  # the size of a page written out and dropped from memory

    @property
    def size(self) -> int:
        return len(self.data) if self.released_size is None else self.released_size

    def release(self) -> None:
        """Forget the content of a page that is on disk and full (keep its size)."""
        self.released_size, self.data = len(self.data), bytearray()

    def to_json(self) -> dict:
        return {"end_row_id": self.end_row_id, "page_id": self.page_id, "page_size": self.size,
                "page_type": self.page_type, "page_type_id": self.page_type_id,
                "row_group_ids": [{"id": g, "offset": o} for g, o in self.row_group_ids],
                "shard_id": self.shard_id, "start_row_id": self.start_row_id}


def header_bytes(*, header_size, page_size, index_fields, pages, compression_size, schema,
                 shard_addresses, shard_id) -> bytes:
    """The header block: its length, then the JSON in MindSpore's key order."""
    doc = {"header_size": header_size,
           "index_fields": [{"index_field": f, "schema_id": 0} for f in index_fields],
           "page": pages, "page_size": page_size, "compression_size": compression_size,
           "schema": [schema.to_json()], "shard_addresses": list(shard_addresses),
           "shard_id": shard_id, "statistics": None, "version": VERSION}
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if LEN + len(text) > header_size:
        raise MRMWriteDatasetError(f"the header needs {LEN + len(text)} bytes but header_size is "
                                   f"{header_size}; call set_header_size with a larger size")
    return struct.pack("<Q", len(text)) + text + bytes(header_size - LEN - len(text))


def read_header(path: str) -> dict:
    """The JSON header of the MindRecord file ``path`` (``MRMOpenError`` if it is not one)."""
    try:
        with open(path, "rb") as f:
            head = f.read(LEN)
            if len(head) < LEN:
                raise MRMOpenError(f"{path}: too short to be a MindRecord file")
            (n,) = struct.unpack("<Q", head)
            if n > os.path.getsize(path):
                raise MRMOpenError(f"{path}: not a MindRecord file (its first 8 bytes do not "
                                   f"give a header length)")
            doc = json.loads(f.read(n).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise MRMOpenError(f"{path}: not a MindRecord file (the header is not JSON)") from None
    except OSError as e:
        raise MRMOpenError(f"{path}: cannot be read ({e.strerror})") from None
    missing = {"header_size", "page_size", "page", "schema", "shard_addresses"} - set(doc)
    if not isinstance(doc, dict) or missing:
        raise MRMOpenError(f"{path}: not a MindRecord file (its header lacks {sorted(missing)})")
    return doc


# --- the SQLite index --------------------------------------------------------------------------

BASE_COLUMNS = ["ROW_ID", "PAGE_ID_RAW", "PAGE_OFFSET_RAW", "PAGE_OFFSET_RAW_END",
                 "ROW_GROUP_ID", "PAGE_ID_BLOB", "PAGE_OFFSET_BLOB", "PAGE_OFFSET_BLOB_END"]


def write_index(db_path: str, file_name: str, schema: Schema, index_fields, rows) -> None:
    """Write the ``.db`` of a shard: ``rows`` are the 8 location numbers and the index values."""
    cols = "".join(f"{c:<20} INT  NOT NULL, " for c in BASE_COLUMNS)
    cols = "  " + cols[:-2] + ","
    extra = "".join(f"INC_{i} INT, {f}_0 {_SQL_TYPES[schema.fields[f][0]]},"
                    for i, f in enumerate(index_fields))
    key = "".join(f",INC_{i}" for i in range(len(index_fields)))
    if os.path.exists(db_path):
        os.remove(db_path)
    con = sqlite3.connect(db_path)
    try:
        con.execute(f"CREATE TABLE INDEXES({cols}{extra} PRIMARY KEY(ROW_ID{key}))")
        con.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
        con.execute("INSERT INTO SHARD_NAME VALUES (?)", (file_name,))
        marks = ",".join("?" * (len(BASE_COLUMNS) + 2 * len(index_fields)))
        con.executemany(f"INSERT INTO INDEXES VALUES ({marks})", rows)
        con.commit()
    finally:
        con.close()


def read_index_rows(db_path: str, index_fields=()) -> list[tuple]:
    """The rows of a shard's ``.db`` in row-id order: the location columns, then ``INC_i`` and
    the value of each of ``index_fields``."""
    if not os.path.isfile(db_path):
        raise MRMOpenError(f"{db_path}: the index file of a MindRecord shard is missing (a "
                           f"MindRecord file needs its .db next to it)")
    extra = "".join(f",INC_{i},{f}_0" for i, f in enumerate(index_fields))
    try:
        con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            return [tuple(r) for r in con.execute(
                "SELECT " + ",".join(BASE_COLUMNS) + extra + " FROM INDEXES ORDER BY ROW_ID")]
        finally:
            con.close()
    except sqlite3.DatabaseError as e:
        raise MRMOpenError(f"{db_path}: not a MindRecord index ({e})") from None


def read_index(db_path: str) -> np.ndarray:
    """The location columns of a shard's ``.db``, one row per record in row-id order."""
    found = read_index_rows(db_path)
    return np.array(found, np.int64).reshape(-1, len(BASE_COLUMNS))


# --- reading a shard ---------------------------------------------------------------------------

class ShardFile:
    """One shard opened for reading: ``record(i, wanted)`` decodes row ``i`` (in row-id order)."""

    def __init__(self, path: str):
        self.path = path
        self.header = read_header(path)
        self.schema = Schema.from_json(self.header["schema"][0])
        self.locations = read_index(path + ".db")
        self._page_size = int(self.header["page_size"])
        self._header_size = int(self.header["header_size"])
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self._check_locations(size)

    def __len__(self) -> int:
        return len(self.locations)

    def _check_locations(self, size: int) -> None:
        if not len(self.locations):
            return
        start = self._header_size + self.locations[:, [1, 5]] * self._page_size
        ends = start + self.locations[:, [3, 7]]
        if ends.max() > size:
            raise MRMOpenError(f"{self.path}: truncated: its index points at byte "
                               f"{int(ends.max())} but the file has {size} bytes")

    def category_counts(self, field_name: str) -> dict[str, int]:
        """How many rows hold each value of the index field ``field_name`` (values as SQLite
        writes them as text, which is how MindSpore names categories)."""
        return dict(self._query(f"SELECT CAST({field_name}_0 AS TEXT), COUNT({field_name}_0) "
                                f"FROM INDEXES GROUP BY {field_name}_0", ()))

    def rows_where(self, field_name: str, value: str) -> list[int]:
        """The positions (in row-id order) of the rows whose ``field_name`` is ``value``."""
        ids = [r[0] for r in self._query(f"SELECT ROW_ID FROM INDEXES WHERE "
                                         f"CAST({field_name}_0 AS TEXT) = ? ORDER BY ROW_ID",
                                         (value,))]
        position = {int(r): i for i, r in enumerate(self.locations[:, 0].tolist())}
        return [position[i] for i in ids]

    def _query(self, sql: str, args: tuple) -> list:
        con = sqlite3.connect(f"file:{self.path}.db?mode=ro", uri=True)
        try:
            return con.execute(sql, args).fetchall()
        finally:
            con.close()

    def _part(self, page: int, begin: int, end: int) -> memoryview:
        base = self._header_size + page * self._page_size
        return memoryview(self._map)[base + begin + LEN:base + end]

    def record(self, i: int, wanted) -> dict:
        loc = self.locations[i].tolist()
        out = {}
        if any(f in wanted for f in self.schema.raw_fields):
            raw = unpack_msgpack(self._part(loc[1], loc[2], loc[3]))
            for name in self.schema.raw_fields:
                if name in wanted:
                    out[name] = raw_value(self.schema.fields[name][0], raw[name])
        if any(f in wanted for f in self.schema.blob_fields):
            out.update(decode_blob(self.schema, self._part(loc[5], loc[6], loc[7]), wanted))
        return out


def shard_paths(file_name: str) -> list[str]:
    """All shard files of the set ``file_name`` belongs to (its header lists them)."""
    if not os.path.isfile(file_name):
        raise MRMOpenError(f"{file_name}: no such MindRecord file")
    header = read_header(file_name)
    folder = os.path.dirname(os.path.abspath(file_name))
    return [os.path.join(folder, name) for name in header["shard_addresses"]]


def open_shards(file_name, who: str) -> list[ShardFile]:
    """The shards to read: every shard of the set when ``file_name`` is one path, exactly the
    listed files when it is a list. They must share one schema."""
    if isinstance(file_name, str):
        paths = shard_paths(file_name)
    elif isinstance(file_name, (list, tuple)) and file_name and \
            all(isinstance(p, str) for p in file_name):
        paths = list(file_name)
    else:
        raise MRMOpenError(f"{who}: expected a MindRecord file path or a non-empty list of "
                           f"paths, got {file_name!r}")
    shards = []
    for p in paths:
        if not os.path.isfile(p):
            raise MRMOpenError(f"{who}: the MindRecord file {p} does not exist (a set's files "
                               f"must stay together, with their .db files)")
        shards.append(ShardFile(p))
    first = shards[0].schema
    for s in shards[1:]:
        if s.schema.fields != first.fields:
            raise MRMOpenError(f"{who}: {s.path} has another schema than {shards[0].path}")
    return shards

"""``mindspore.mindrecord.FileWriter``: write rows into a set of MindRecord shards.

Rows of each ``write_raw_data`` call are dealt to the shards in contiguous runs (the first
``ceil(n / shard_num)`` rows to shard 0, and so on), as MindSpore deals them; full pages go to disk
as they close, and ``commit`` writes the last pages, the headers and the ``.db`` indexes. Every row
of a call is checked against the schema before any is written, so a bad row
(``MRMValidateDataError`` naming the row and field) leaves the files as they were.

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> from graphcell.mindrecord import FileWriter, FileReader
    >>> path = os.path.join(tempfile.mkdtemp(), "demo.mindrecord")
    >>> writer = FileWriter(path, shard_num=1, overwrite=True)
    >>> writer.add_schema({"label": {"type": "int32"}, "data": {"type": "int32", "shape": [-1]}})
    >>> writer.write_raw_data([{"label": 1, "data": np.array([1, 2], np.int32)}])
    >>> writer.commit()
    >>> [r["data"].tolist() for r in FileReader(path).get_next()]
    [[1, 2]]
"""
from __future__ import annotations

import os

from graphcell.mindrecord import shard_format as fmt
from graphcell.mindrecord.exceptions import (MRMAddSchemaError, MRMDefineIndexError,
                                             MRMInvalidHeaderSizeError, MRMInvalidPageSizeError,
                                             MRMInvalidSchemaError, MRMOpenError,
                                             MRMOpenForAppendError, MRMValidateDataError,
                                             MRMWriteDatasetError, ParamTypeError,
                                             ParamValueError)

SUCCESS, FAILED = 0, 1
MIN_HEADER_SIZE, MAX_HEADER_SIZE = 16 * 1024, 128 * 1024 * 1024
MIN_PAGE_SIZE, MAX_PAGE_SIZE = 32 * 1024, 256 * 1024 * 1024
MIN_SHARD_COUNT, MAX_SHARD_COUNT = 1, 1000
_FORBIDDEN = set(r"\/:*?\"<>|`&';")


def check_filename(path, what: str = "file_name") -> str:
    """A MindRecord file name as MindSpore accepts it (``ParamValueError`` otherwise)."""
    if not path:
        raise ParamValueError(f"{what} must not be None or empty")
    if not isinstance(path, str):
        raise ParamValueError(f"{what} must be a str, got {type(path).__name__}")
    if path.endswith("/"):
        raise ParamValueError(f"{what} {path!r} names a folder; give a file name")
    bad = sorted(set(os.path.basename(path)) & _FORBIDDEN)
    if bad:
        raise ParamValueError(f"{what} {path!r}: a MindRecord file name may not contain "
                              f"{''.join(bad)!r}")
    return path


def shard_counts(n: int, shard_num: int) -> list[int]:
    """How many of ``n`` rows each shard takes: ``n // shard_num``, and one more for the first
    ``n % shard_num`` shards (MindSpore gives the extra rows to shards it picks at random)."""
    return [n // shard_num + (s < n % shard_num) for s in range(shard_num)]


class _Shard:
    """The pages and index rows of one shard while it is written."""

    def __init__(self, path: str, shard_id: int, page_size: int, header_size: int):
        self.path, self.shard_id = path, shard_id
        self.page_size, self.header_size = page_size, header_size
        self.pages: list[fmt.Page] = []
        self.blob: fmt.Page | None = None
        self.raw: fmt.Page | None = None
        self.index_rows: list[tuple] = []
        self.compression_size = 0

    @property
    def rows(self) -> int:
        return len(self.index_rows)

    def _new_page(self, kind: str, start_row: int) -> fmt.Page:
        type_id = sum(p.page_type == kind for p in self.pages)
        page = fmt.Page(len(self.pages), kind, type_id, self.shard_id,
                        start_row if kind == "BLOB_DATA" else 0,
                        start_row if kind == "BLOB_DATA" else 0)
        if kind == "BLOB_DATA":
            page.row_group_ids.append((0, 0))
        self.pages.append(page)
        return page

    def _place(self, kind: str, record: bytes, row_id: int) -> fmt.Page:
        """The page of ``kind`` that takes ``record``: the current one, or a new one when it is
        full (the full page goes to disk and leaves memory)."""
        current = self.blob if kind == "BLOB_DATA" else self.raw
        if current is None or len(current.data) + fmt.LEN + len(record) > self.page_size:
            if current is not None:
                self.flush(current)
                current.release()
            current = self._new_page(kind, row_id)
            if kind == "BLOB_DATA":
                self.blob = current
            else:
                self.raw = current
        return current

    def add_batch(self, encoded) -> None:
        """Add the rows of one ``write_raw_data`` call: first their blob parts, then their raw
        parts (so a new raw page follows the batch's blob pages, as in MindSpore's files)."""
        first = self.rows
        blobs = []
        for k, (_, blob, saved, _) in enumerate(encoded):
            page = self._place("BLOB_DATA", blob, first + k)
            at = len(page.data)
            page.data += len(blob).to_bytes(fmt.LEN, "little") + blob
            page.end_row_id = first + k + 1
            blobs.append((page.page_type_id, page.page_id, at, len(page.data)))
            self.compression_size += saved
        for k, ((raw, _, _, index_values), blob_at) in enumerate(zip(encoded, blobs)):
            page = self._place("RAW_DATA", raw, first + k)
            at = len(page.data)
            if not page.row_group_ids or page.row_group_ids[-1][0] != blob_at[0]:
                page.row_group_ids.append((blob_at[0], at))
            page.data += len(raw).to_bytes(fmt.LEN, "little") + raw
            self.index_rows.append((first + k, page.page_id, at, len(page.data), *blob_at,
                                    *index_values))

    def flush(self, page: fmt.Page) -> None:
        """Write ``page`` at its place in the file."""
        mode = "r+b" if os.path.exists(self.path) else "wb"
        with open(self.path, mode) as f:
            f.seek(self.header_size + page.page_id * self.page_size)
            f.write(page.data)

    def commit(self, schema, index_fields, addresses, compression_size: int) -> None:
        for page in (self.blob, self.raw):
            if page is not None:
                self.flush(page)
        header = fmt.header_bytes(header_size=self.header_size, page_size=self.page_size,
                                  index_fields=index_fields,
                                  pages=[p.to_json() for p in self.pages],
                                  compression_size=compression_size, schema=schema,
                                  shard_addresses=addresses, shard_id=self.shard_id)
        mode = "r+b" if os.path.exists(self.path) else "wb"
        with open(self.path, mode) as f:
            f.write(header)
            last = self.pages[-1] if self.pages else None
            f.truncate(self.header_size + (last.page_id * self.page_size + last.size
                                           if last else 0))
        fmt.write_index(self.path + ".db", os.path.basename(self.path), schema, index_fields,
                        self.index_rows)


class FileWriter:
    """Writes rows into ``shard_num`` MindRecord files ``file_name`` (one shard) or
    ``file_name0`` ... (several), each with its ``.db`` index. ``overwrite=True`` replaces
    existing files; otherwise an existing file is an ``MRMOpenError``."""

    def __init__(self, file_name, shard_num=1, overwrite=False):
        check_filename(file_name)
        if shard_num is None:
            raise ParamValueError("shard_num must not be None")
        if not isinstance(shard_num, int) or isinstance(shard_num, bool):
            raise ParamValueError(f"shard_num must be an int, got {type(shard_num).__name__}")
        if not MIN_SHARD_COUNT <= shard_num <= MAX_SHARD_COUNT:
            raise ParamValueError(f"shard_num is {shard_num}; it must be between "
                                  f"{MIN_SHARD_COUNT} and {MAX_SHARD_COUNT}")
        if not isinstance(overwrite, bool):
            raise ParamValueError(f"overwrite must be a bool, got {type(overwrite).__name__}")
        folder = os.path.dirname(os.path.abspath(file_name))
        if not os.path.isdir(folder):
            raise MRMOpenError(f"the folder {folder} of {file_name!r} does not exist")
        paths = [file_name] if shard_num == 1 else [f"{file_name}{i}" for i in range(shard_num)]
        self._start(paths)
        for p in self._paths:
            for q in (p, p + ".db"):
                if os.path.exists(q):
                    if not overwrite:
                        raise MRMOpenError(f"{q} already exists; remove it or pass "
                                           f"overwrite=True")
                    os.remove(q)

    def _start(self, paths) -> None:
        """The state of a writer of the shard files ``paths`` that has written nothing."""
        self._paths = [os.path.abspath(p) for p in paths]
        self._schema: fmt.Schema | None = None
        self._index_fields: list[str] | None = None
        self._header_size, self._page_size = 1 << 24, 1 << 25
        self._shards: list[_Shard] | None = None
        self._committed = False
        self._compression_base = 0  # bytes saved by compression in rows written before

    # --- setup ------------------------------------------------------------------------------

    def add_schema(self, content, desc=None):
        """Set the schema: field name -> ``{"type": t}`` or ``{"type": t, "shape": [...]}``
        (types int32, int64, float32, float64, string, bytes; arrays of the first four)."""
        if self._schema is not None:
            raise MRMAddSchemaError("the schema is already set; a MindRecord file has one schema")
        self._schema = fmt.Schema.build(content, desc)

    def add_index(self, index_fields):
        """Index the scalar fields ``index_fields`` (by default every int, float and string
        field is indexed)."""
        if not isinstance(index_fields, list):
            raise ParamTypeError(f"index_fields must be a list of field names, got "
                                 f"{type(index_fields).__name__}")
        if self._schema is None:
            raise MRMDefineIndexError("add_index: call add_schema first")
        for f in index_fields:
            if not isinstance(f, str):
                raise ParamTypeError(f"index field {f!r} must be a str")
            if f not in self._schema.fields:
                raise MRMDefineIndexError(f"index field {f!r} is not in the schema "
                                          f"{list(self._schema.fields)}")
            if f not in self._schema.raw_fields or self._schema.fields[f][0] == "bytes":
                raise MRMDefineIndexError(f"index field {f!r} is not a scalar int, float or "
                                          f"string field; only those can be indexed")
        self._index_fields = list(dict.fromkeys(index_fields))

    def set_header_size(self, header_size):
        """The size of each file's header block, between 16 KB and 128 MB."""
        self._check_size("header_size", header_size, MIN_HEADER_SIZE, MAX_HEADER_SIZE,
                         MRMInvalidHeaderSizeError)
        self._header_size = header_size

    def set_page_size(self, page_size):
        """The size of a page, between 32 KB and 256 MB; a row must fit in one page."""
        self._check_size("page_size", page_size, MIN_PAGE_SIZE, MAX_PAGE_SIZE,
                         MRMInvalidPageSizeError)
        self._page_size = page_size

    def _check_size(self, what, value, low, high, error):
        if self._shards is not None:
            raise error(f"set_{what}: rows were written already; set it before writing")
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise error(f"{what} must be an int between {low} and {high}, got {value!r}")

    # --- writing ----------------------------------------------------------------------------

    def write_raw_data(self, raw_data, parallel_writer=False):
        """Append the rows ``raw_data`` (a list of dicts, one value per schema field)."""
        if not isinstance(parallel_writer, bool):
            raise TypeError("write_raw_data: parallel_writer must be a bool")
        if self._committed:
            raise MRMWriteDatasetError("write_raw_data: the files are committed; open them with "
                                       "FileWriter.open_for_append to add rows")
        if self._schema is None:
            raise MRMInvalidSchemaError("write_raw_data: call add_schema before writing rows")
        if not isinstance(raw_data, list):
            raise ParamTypeError(f"raw_data must be a list of dicts, got "
                                 f"{type(raw_data).__name__}")
        rows = [fmt.check_row(self._schema, r, i) for i, r in enumerate(raw_data)]
        encoded = [self._encode(r, i) for i, r in enumerate(rows)]
        for i, (raw, blob, _, _) in enumerate(encoded):
            need = fmt.LEN + max(len(raw), len(blob))
            if need > self._page_size:
                raise MRMWriteDatasetError(f"row {i} needs {need} bytes in one page but a page "
                                           f"holds {self._page_size}; call set_page_size with a "
                                           f"larger size before writing")
        shards = self._open_shards()
        start = 0
        for shard, count in zip(shards, shard_counts(len(encoded), len(shards))):
            shard.add_batch(encoded[start:start + count])
            start += count

    def _encode(self, row: dict, i: int):
        schema = self._schema
        try:
            raw = fmt.pack_msgpack({k: row[k] for k in schema.raw_fields})
        except (TypeError, OverflowError) as e:
            raise MRMValidateDataError(f"row {i}: {e}") from None
        blob, saved = fmt.encode_blob(schema, row)
        index_values = []
        for f in self.index_fields:
            index_values += [0, row[f]]
        return raw, blob, saved, index_values

    @property
    def index_fields(self) -> list[str]:
        if self._index_fields is None:
            return [f for f in self._schema.raw_fields if self._schema.fields[f][0] != "bytes"]
        return self._index_fields

    def _open_shards(self) -> list[_Shard]:
        if self._shards is None:
            self._shards = [_Shard(p, i, self._page_size, self._header_size)
                            for i, p in enumerate(self._paths)]
        return self._shards

    def commit(self):
        """Write the last pages, the headers and the indexes; the files are then complete."""
        if self._committed:
            return
        if self._schema is None:
            raise MRMInvalidSchemaError("commit: no schema was added (call add_schema)")
        addresses = [os.path.basename(p) for p in self._paths]
        shards = self._open_shards()
        # one count for the whole set, in every header; never negative (MindSpore's rule)
        saved = max(0, self._compression_base + sum(s.compression_size for s in shards))
        for shard in shards:
            shard.commit(self._schema, self.index_fields, addresses, saved)
        self._committed = True

    # --- appending --------------------------------------------------------------------------

    @classmethod
    def open_for_append(cls, file_name):
        """A writer that adds rows to the committed MindRecord set ``file_name`` belongs to."""
        check_filename(file_name)
        if not os.path.isfile(file_name):
            raise MRMOpenForAppendError(f"{file_name}: no such MindRecord file")
        writer = cls.__new__(cls)
        writer._start(fmt.shard_paths(file_name))
        writer._shards = []
        for shard_id, path in enumerate(writer._paths):
            if not os.path.isfile(path) or not os.path.isfile(path + ".db"):
                raise MRMOpenForAppendError(f"{path}: a shard of the set or its .db is missing")
            header = fmt.read_header(path)
            writer._schema = fmt.Schema.from_json(header["schema"][0])
            writer._index_fields = [f["index_field"] for f in header.get("index_fields", [])]
            writer._header_size, writer._page_size = header["header_size"], header["page_size"]
            writer._compression_base = header.get("compression_size", 0)
            writer._shards.append(_reopen(path, shard_id, header, writer._index_fields))
        return writer


def _reopen(path: str, shard_id: int, header: dict, index_fields) -> _Shard:
    """A committed shard as a ``_Shard`` that can take more rows."""
    shard = _Shard(path, shard_id, header["page_size"], header["header_size"])
    for entry in sorted(header["page"], key=lambda p: p["page_id"]):
        page = fmt.Page(entry["page_id"], entry["page_type"], entry["page_type_id"], shard_id,
                        entry["start_row_id"], entry["end_row_id"],
                        [(g["id"], g["offset"]) for g in entry["row_group_ids"]],
                        released_size=entry["page_size"])
        shard.pages.append(page)
        if page.page_type == "BLOB_DATA":
            shard.blob = page
        else:
            shard.raw = page
    with open(path, "rb") as f:  # the last page of each kind takes more rows
        for page in (shard.blob, shard.raw):
            if page is not None:
                f.seek(shard.header_size + page.page_id * shard.page_size)
                page.data = bytearray(f.read(page.released_size))
                page.released_size = None
    shard.index_rows = fmt.read_index_rows(path + ".db", index_fields)
    return shard

"""``mindspore.mindrecord.FileReader``: the rows of MindRecord files as dicts.

Rows come shard by shard, each shard in the order it was written. A row is a dict of the scalar
fields (Python ``int``, ``float``, ``str``) followed by the blob fields (``bytes``, numpy arrays of
the schema's dtype and shape).

Example::

    >>> import os, tempfile
    >>> from graphcell.mindrecord import FileWriter, FileReader
    >>> path = os.path.join(tempfile.mkdtemp(), "names.mindrecord")
    >>> w = FileWriter(path)
    >>> w.add_schema({"name": {"type": "string"}, "raw": {"type": "bytes"}})
    >>> w.write_raw_data([{"name": "a", "raw": b"xy"}]); w.commit()
    >>> reader = FileReader(path)
    >>> list(reader.get_next()), reader.len()
    ([{'name': 'a', 'raw': b'xy'}], 1)
"""
from __future__ import annotations

from graphcell.mindrecord import shard_format as fmt
from graphcell.mindrecord.exceptions import MRMFetchDataError, ParamTypeError, ParamValueError


class FileReader:
    """Reads the MindRecord file ``file_name`` and the other shards of its set (or exactly the
    files of a list). ``columns`` limits the fields read; ``num_consumer`` is accepted (rows are
    read in the calling thread)."""

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        if not isinstance(num_consumer, int) or isinstance(num_consumer, bool) or num_consumer < 1:
            raise ParamValueError(f"num_consumer must be a positive int, got {num_consumer!r}")
        if columns is not None and not isinstance(columns, list):
            raise ParamTypeError(f"columns must be a list of field names, got "
                                 f"{type(columns).__name__}")
        self._shards = fmt.open_shards(file_name, "FileReader")
        schema = self._shards[0].schema
        names = list(schema.raw_fields) + list(schema.blob_fields)
        if columns:
            unknown = [c for c in columns if c not in schema.fields]
            if unknown:
                raise MRMFetchDataError(f"FileReader: columns {unknown} are not fields of the "
                                        f"schema {list(schema.fields)}")
            names = [n for n in names if n in columns]
        self._names = names
        self._closed = False

    def get_next(self):
        """Yield each row as a dict."""
        wanted = set(self._names)
        for shard in self._shards:
            for i in range(len(shard)):
                if self._closed:
                    return
                record = shard.record(i, wanted)
                yield {n: record[n] for n in self._names}

    def schema(self) -> dict:
        """The schema, as given to ``FileWriter.add_schema``."""
        return self._shards[0].schema.to_json()["schema"]

    def len(self) -> int:
        """The number of rows of the files read."""
        return sum(len(s) for s in self._shards)

    def close(self) -> None:
        """Stop reading; ``get_next`` yields no more rows."""
        self._closed = True

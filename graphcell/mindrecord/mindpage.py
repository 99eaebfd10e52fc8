"""``mindspore.mindrecord.MindPage``: rows of MindRecord files grouped by an index field, read a
page at a time.

The categories of a field are its distinct values across the shards, named as SQLite writes them
as text and ordered by that name (so ``"10"`` comes before ``"2"``, as in MindSpore); a page of a
category lists its rows shard by shard in the order they were written.

Example::

    >>> import os, tempfile
    >>> from graphcell.mindrecord import FileWriter, MindPage
    >>> path = os.path.join(tempfile.mkdtemp(), "pets.mindrecord")
    >>> w = FileWriter(path)
    >>> w.add_schema({"kind": {"type": "string"}, "age": {"type": "int32"}})
    >>> w.write_raw_data([{"kind": k, "age": a} for k, a in [("cat", 3), ("dog", 5), ("cat", 1)]])
    >>> w.commit()
    >>> pages = MindPage(path)
    >>> pages.category_field = "kind"
    >>> pages.read_category_info()
    '{"categories":[{"count":2,"id":0,"name":"cat"},{"count":1,"id":1,"name":"dog"}],"key":"kind_0"}'
    >>> pages.read_at_page_by_name("cat", 0, 5)
    [{'age': 3, 'kind': 'cat'}, {'age': 1, 'kind': 'cat'}]
"""
from __future__ import annotations

import json

from graphcell.mindrecord import shard_format as fmt
from graphcell.mindrecord.exceptions import (MRMDefineCategoryError, MRMFetchDataError,
                                             MRMReadCategoryInfoError, ParamTypeError,
                                             ParamValueError)


class MindPage:
    """Pages of the rows of the MindRecord set ``file_name`` belongs to (or of a list of files),
    grouped by ``category_field``, one of ``candidate_fields`` (the index fields)."""

    def __init__(self, file_name, num_consumer=4):
        if not isinstance(num_consumer, int) or isinstance(num_consumer, bool) or num_consumer < 1:
            raise ParamValueError(f"num_consumer must be a positive int, got {num_consumer!r}")
        self._shards = fmt.open_shards(file_name, "MindPage")
        header = self._shards[0].header
        self._candidate_fields = [f["index_field"] for f in header.get("index_fields", [])]
        self._category_field = None
        schema = self._shards[0].schema
        self._names = list(schema.raw_fields) + list(schema.blob_fields)

    @property
    def candidate_fields(self) -> list[str]:
        """The fields rows can be grouped by."""
        return list(self._candidate_fields)

    @property
    def category_field(self):
        """The field rows are grouped by (None until set)."""
        return self._category_field

    @category_field.setter
    def category_field(self, category_field):
        if not category_field or not isinstance(category_field, str):
            raise ParamTypeError(f"category_field must be a field name (str), got "
                                 f"{category_field!r}")
        if category_field not in self._candidate_fields:
            raise MRMDefineCategoryError(f"field {category_field!r} is not a candidate category "
                                         f"field; the candidates are {self._candidate_fields}")
        self._category_field = category_field

    def _categories(self) -> list[tuple[int, str, int]]:
        if self._category_field is None:
            raise MRMReadCategoryInfoError("set category_field first (one of "
                                           f"{self._candidate_fields})")
        counts: dict[str, int] = {}
        for shard in self._shards:
            for name, n in shard.category_counts(self._category_field).items():
                counts[name] = counts.get(name, 0) + n
        return [(i, name, counts[name]) for i, name in enumerate(sorted(counts))]

    def read_category_info(self) -> str:
        """The categories as MindSpore's JSON text: ``{"categories": [{"count", "id", "name"}...],
        "key": "<field>_0"}``."""
        info = {"categories": [{"count": n, "id": i, "name": name}
                               for i, name, n in self._categories()],
                "key": f"{self._category_field}_0"}
        return json.dumps(info, separators=(",", ":"), ensure_ascii=False)

    def read_at_page_by_id(self, category_id, page, num_row) -> list[dict]:
        """Page ``page`` (``num_row`` rows a page) of the rows of category ``category_id``."""
        if not isinstance(category_id, int) or category_id < 0:
            raise ParamValueError(f"category_id must be an int >= 0, got {category_id!r}")
        self._check_page(page, num_row)
        categories = self._categories()
        if category_id >= len(categories):
            raise MRMFetchDataError(f"category id {category_id} does not exist; the field "
                                    f"{self._category_field!r} has {len(categories)} categories")
        return self._page(categories[category_id], page, num_row)

    def read_at_page_by_name(self, category_name, page, num_row) -> list[dict]:
        """Page ``page`` (``num_row`` rows a page) of the rows whose category is
        ``category_name``."""
        if not isinstance(category_name, str):
            raise ParamValueError(f"category_name must be a str, got {category_name!r}")
        self._check_page(page, num_row)
        for category in self._categories():
            if category[1] == category_name:
                return self._page(category, page, num_row)
        raise MRMFetchDataError(f"no row has {self._category_field} = {category_name!r}")

    @staticmethod
    def _check_page(page, num_row) -> None:
        if not isinstance(page, int) or page < 0:
            raise ParamValueError(f"page must be an int >= 0, got {page!r}")
        if not isinstance(num_row, int) or num_row <= 0:
            raise ParamValueError(f"num_row must be an int > 0, got {num_row!r}")

    def _page(self, category, page: int, num_row: int) -> list[dict]:
        _, name, count = category
        if page * num_row >= count:
            raise MRMFetchDataError(f"page {page} of {num_row} rows is past the {count} rows of "
                                    f"category {name!r}")
        wanted = set(self._names)
        found = [(shard, i) for shard in self._shards
                 for i in shard.rows_where(self._category_field, name)]
        rows = []
        for shard, i in found[page * num_row:(page + 1) * num_row]:
            record = shard.record(i, wanted)
            rows.append({n: record[n] for n in self._names})
        return rows

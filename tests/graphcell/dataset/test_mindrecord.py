"""MindRecord interop with MindSpore 2.10: files MindSpore wrote read by graphcell, files graphcell
writes byte-identical to MindSpore's and read back by MindSpore, MindDataset's orders against
MindSpore's on the same files, and MindSpore's rules for bad schemas and rows.

The files and goldens come from ``tools/record_mindrecord_goldens.py`` (cases in
``mindrecord_cases.py``); MindSpore is not imported here.
"""
import builtins
import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest

import graphcell.dataset as ds
import graphcell.mindrecord as mr
from graphcell.mindrecord import shard_format as fmt

import mindrecord_cases as C

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "mindrecord"
GOLDENS = np.load(HERE / "goldens" / "mindrecord.npz")


def golden_rows(prefix: str) -> list[dict]:
    return C.decode_rows(*(GOLDENS[f"{prefix}/{k}"] for k in ("fields", "kinds", "lens", "data")))


def same_value(ours, theirs, kind: str) -> bool:
    """``ours`` (graphcell) equals ``theirs`` (MindSpore, decoded from a golden). MindSpore's
    FileReader gives an ``int`` for a float field holding a whole number; graphcell gives the
    schema's type, so a float field compares by value."""
    if kind in ("float32", "float64"):
        return type(ours) is float and ours == float(theirs)
    if isinstance(theirs, np.ndarray):
        return (isinstance(ours, np.ndarray) and ours.dtype == theirs.dtype and
                ours.shape == theirs.shape and ours.tobytes() == theirs.tobytes())
    return type(ours) is type(theirs) and ours == theirs


def same_row(ours: dict, theirs: dict, schema: dict) -> bool:
    return list(ours) == list(theirs) and all(
        same_value(ours[k], theirs[k], schema[k]["type"] if "shape" not in schema[k] else "")
        for k in ours)


# --- reading: graphcell reads what MindSpore read ------------------------------------------------

@pytest.mark.parametrize("source", ["mindspore", "graphcell"])
@pytest.mark.parametrize("name", sorted(C.CASES))
def test_file_reader_reads_the_rows_mindspore_reads(name, source):
    case = C.CASES[name]
    reader = mr.FileReader(case.paths(DATA / source)[0])
    ours = list(reader.get_next())
    theirs = golden_rows(f"{source}/{name}")
    assert reader.len() == len(theirs) == len(case.all_rows())
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert same_row(a, b, case.schema), f"row {i}: {a} != {b}"


@pytest.mark.parametrize("name", sorted(C.CASES))
def test_mindspore_reads_back_every_row_graphcell_wrote(name):
    """MindSpore's FileReader on graphcell's files returned each written row exactly once."""
    case = C.CASES[name]
    remaining = [{k: r[k] for k in sorted(r, key=_reader_order(case))} for r in case.all_rows()]
    for got in golden_rows(f"graphcell/{name}"):
        match = [i for i, want in enumerate(remaining) if same_row(_typed(want, case), got,
                                                                   case.schema)]
        assert match, f"MindSpore read a row graphcell did not write: {got}"
        remaining.pop(match[0])
    assert not remaining


def _reader_order(case):
    blobs = fmt.Schema.build(case.schema).blob_fields
    return lambda k: (k in blobs, k)


def _typed(row: dict, case) -> dict:
    """A written row as FileReader gives it back: numpy arrays in the schema's shape."""
    out = {}
    for k, v in row.items():
        spec = case.schema[k]
        out[k] = np.asarray(v).reshape(spec["shape"]) if "shape" in spec else \
            (float(v) if spec["type"].startswith("float") else v)
    return out


def test_file_reader_columns_and_list_of_files():
    case = C.CASES["sharded"]
    paths = case.paths(DATA / "mindspore")
    reader = mr.FileReader(paths[1:2], columns=["label", "id"])
    rows = list(reader.get_next())
    assert [list(r) for r in rows] == [["id", "label"]] * len(rows)
    assert [r["id"] for r in rows] == [4, 5, 6, 7, 13]
    assert reader.schema() == case.schema | {"img": {"type": "bytes"}}


# --- writing: graphcell's bytes are MindSpore's ---------------------------------------------------

def _index(db: str):
    con = sqlite3.connect(db)
    try:
        return (list(con.execute("SELECT * FROM INDEXES ORDER BY ROW_ID")),
                list(con.execute("SELECT * FROM SHARD_NAME")),
                sorted(con.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")))
    finally:
        con.close()


@pytest.mark.parametrize("name", sorted(C.CASES))
def test_file_writer_writes_the_bytes_mindspore_writes(name, tmp_path):
    case = C.CASES[name]
    C.write_case(mr, case, str(tmp_path))
    for ours, theirs, recorded in zip(case.paths(tmp_path), case.paths(DATA / "mindspore"),
                                      case.paths(DATA / "graphcell")):
        data = Path(ours).read_bytes()
        assert data == Path(theirs).read_bytes(), f"{os.path.basename(ours)} differs"
        assert data == Path(recorded).read_bytes()  # the files MindSpore read back
        assert _index(ours + ".db") == _index(theirs + ".db")


def test_the_default_sizes_make_mindspores_file(tmp_path):
    """Default header (16 MB) and page (32 MB) sizes: the layout and the header MindSpore gives
    (the file is sparse: the padding is not written)."""
    writer = mr.FileWriter(str(tmp_path / "big.mindrecord"))
    writer.add_schema({"label": {"type": "int32"}})
    writer.write_raw_data([{"label": 1}])
    writer.commit()
    header = fmt.read_header(str(tmp_path / "big.mindrecord"))
    assert (header["header_size"], header["page_size"]) == (1 << 24, 1 << 25)
    # header, blob page 0 (padded), raw page 1: an 8-byte length and {"label": 1} in MessagePack
    assert os.path.getsize(tmp_path / "big.mindrecord") == (1 << 24) + (1 << 25) + 8 + 8


def test_writer_methods_return_none_as_mindspores_do(tmp_path):
    writer = mr.FileWriter(str(tmp_path / "n.mindrecord"))
    calls = [writer.set_header_size(1 << 14), writer.set_page_size(1 << 15),
             writer.add_schema({"a": {"type": "int32"}}), writer.add_index(["a"]),
             writer.write_raw_data([{"a": 1}]), writer.commit()]
    assert calls == [None] * 6


def test_a_failed_write_loses_nothing(tmp_path):
    path = str(tmp_path / "safe.mindrecord")
    writer = mr.FileWriter(path)
    writer.add_schema(C.BAD_ROW_SCHEMA)
    writer.write_raw_data([C.good_row(0)])
    with pytest.raises(mr.MRMValidateDataError, match=r"row 1, field 'id'"):
        writer.write_raw_data([C.good_row(1), C.BAD_ROWS["str_for_int"]])
    writer.write_raw_data([C.good_row(2)])
    writer.commit()
    assert [r["id"] for r in mr.FileReader(path).get_next()] == [0, 2]


# --- MindDataset against MindSpore's reads of the same files --------------------------------------

@pytest.mark.parametrize("read", sorted(C.READS))
@pytest.mark.parametrize("name", C.READ_CASES)
def test_mind_dataset_reads_rows_in_mindspores_order(name, read):
    kwargs = C.READS[read]
    if isinstance(kwargs, str):
        kwargs = {"sampler": C.sampler_of(ds, kwargs)}
    data = ds.MindDataset(C.CASES[name].paths(DATA / "mindspore")[0], **kwargs)
    got = [int(r["id"]) for r in data.create_dict_iterator(output_numpy=True)]
    key = f"read/{name}/{read}"
    assert got == GOLDENS[f"{key}/ids"].tolist()
    assert data.get_dataset_size() == int(GOLDENS[f"{key}/size"])
    assert data.get_col_names() == GOLDENS[f"{key}/columns"].tolist()


def test_mind_dataset_reads_a_list_of_files_in_its_order():
    files = list(reversed(C.CASES["sharded"].paths(DATA / "mindspore")))
    got = [int(r["id"]) for r in ds.MindDataset(files, shuffle=False)
           .create_dict_iterator(output_numpy=True)]
    assert got == GOLDENS["read/sharded/files_reversed/ids"].tolist()


def test_mind_dataset_values_are_mindspores():
    """Dtypes, shapes and values of every column (bytes as a 1-element bytes array, strings as
    0-d string arrays) as MindSpore's MindDataset yields them."""
    data = ds.MindDataset(C.CASES["all_types"].paths(DATA / "mindspore")[0], shuffle=False)
    assert data.get_col_names() == GOLDENS["values/all_types/columns"].tolist()
    got = C.encode_rows(list(data.create_dict_iterator(output_numpy=True)))
    for key in ("fields", "kinds", "lens", "data"):
        np.testing.assert_array_equal(got[key], GOLDENS[f"values/all_types/{key}"], key)


def _file_blocks():
    return [[int(r["id"]) for r in ds.MindDataset([p], shuffle=False)
             .create_dict_iterator(output_numpy=True)]
            for p in C.CASES["sharded"].paths(DATA / "mindspore")]


def _is_concatenation_of(order, blocks) -> bool:
    rest = list(order)
    while rest:
        block = next((b for b in blocks if rest[:len(b)] == b), None)
        if block is None:
            return False
        rest = rest[len(block):]
    return True


@pytest.mark.parametrize("level", C.SHUFFLES)
def test_shuffle_levels_shuffle_what_mindspores_do(level):
    """MindSpore's shuffled orders come from its own RNG; graphcell's must have the same shape:
    GLOBAL a permutation of all rows, FILES the files' blocks in another order, INFILE each file
    in place with its rows permuted. A seed repeats the order."""
    blocks = _file_blocks()
    assert sum(blocks, []) == GOLDENS["shuffle/sharded/files"].tolist()
    path = C.CASES["sharded"].paths(DATA / "mindspore")[0]
    ds.config.set_seed(1234)
    orders = [[int(r["id"]) for r in ds.MindDataset(path, shuffle=getattr(ds.Shuffle, level))
               .create_dict_iterator(output_numpy=True)] for _ in range(2)]
    theirs = GOLDENS[f"shuffle/sharded/{level}"].tolist()
    assert orders[0] == orders[1]
    for order in (orders[0], theirs):
        assert sorted(order) == sorted(sum(blocks, []))
        if level == "FILES":
            assert _is_concatenation_of(order, blocks)
        if level == "INFILE":
            starts = np.cumsum([0] + [len(b) for b in blocks])
            assert [sorted(order[s:e]) for s, e in zip(starts, starts[1:])] == \
                [sorted(b) for b in blocks]
    if level != "FILES":
        assert orders[0] != sum(blocks, [])


def test_mind_dataset_shards_a_file_level_shuffle_round_robin():
    path = C.CASES["sharded"].paths(DATA / "mindspore")[0]
    ds.config.set_seed(5)
    shards = [[int(r["id"]) for r in ds.MindDataset(path, shuffle=ds.Shuffle.FILES, num_shards=3,
                                                     shard_id=s)
               .create_dict_iterator(output_numpy=True)] for s in range(3)]
    assert sorted(sum(shards, [])) == list(range(15))


def test_mind_dataset_feeds_map_and_batch():
    data = ds.MindDataset(C.CASES["all_types"].paths(DATA / "mindspore")[0], shuffle=False,
                          columns_list=["a_f32", "id"])
    data = data.map(lambda a: a * 2, "a_f32").batch(5)
    batches = list(data.create_tuple_iterator(output_numpy=True))
    assert [b[0].shape for b in batches] == [(5, 2, 2), (5, 2, 2), (2, 2, 2)]
    assert batches[0][1].tolist() == [-3000, -2000, -1000, 0, 1000]
    assert data.get_dataset_size() == 3


# --- MindPage ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, field", C.PAGES)
def test_mind_page_groups_and_pages_rows_as_mindspore_does(name, field):
    import json

    case = C.CASES[name]
    pages = mr.MindPage(case.paths(DATA / "mindspore")[0])
    assert pages.candidate_fields == GOLDENS[f"page/{name}/candidates"].tolist()
    pages.category_field = field
    info = pages.read_category_info()
    assert info == str(GOLDENS[f"page/{name}/{field}/info"])
    for category in json.loads(info)["categories"]:
        ours = []
        for page in range(-(-category["count"] // C.PAGE_ROWS)):
            ours += pages.read_at_page_by_id(category["id"], page, C.PAGE_ROWS)
        theirs = golden_rows(f"page/{name}/{field}/{category['id']}")
        assert len(ours) == len(theirs) == category["count"]
        assert all(same_row(a, b, case.schema) for a, b in zip(ours, theirs))
        by_name = pages.read_at_page_by_name(category["name"], 0, 1)
        assert len(by_name) == 1 and same_row(by_name[0], theirs[0], case.schema)


def test_mind_page_errors():
    pages = mr.MindPage(C.CASES["sharded"].paths(DATA / "mindspore")[0])
    with pytest.raises(mr.MRMReadCategoryInfoError, match="category_field first"):
        pages.read_category_info()
    with pytest.raises(mr.MRMDefineCategoryError, match=r"'img' is not a candidate"):
        pages.category_field = "img"
    pages.category_field = "label"
    with pytest.raises(mr.MRMFetchDataError, match="past the 3 rows"):
        pages.read_at_page_by_id(3, 2, 2)
    with pytest.raises(mr.MRMFetchDataError, match="4 categories"):
        pages.read_at_page_by_id(4, 0, 2)
    with pytest.raises(mr.MRMFetchDataError, match="no row has label = '9'"):
        pages.read_at_page_by_name("9", 0, 2)
    with pytest.raises(mr.ParamValueError, match="num_row"):
        pages.read_at_page_by_id(0, 0, 0)


# --- errors ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(C.BAD_SCHEMAS))
def test_bad_schemas_are_refused_as_mindspore_refuses_them(name, tmp_path):
    writer = mr.FileWriter(str(tmp_path / "x.mindrecord"))
    expected = str(GOLDENS[f"bad_schema/{name}"])
    with pytest.raises(getattr(mr, expected)) as info:
        writer.add_schema(C.BAD_SCHEMAS[name])
    assert str(info.value).startswith(f"[{expected}]: ")
    assert len(str(info.value)) > len(expected) + 20  # says what is wrong


@pytest.mark.parametrize("name", sorted(C.BAD_ROWS))
def test_rows_mindspore_drops_are_refused_with_the_field_named(name, tmp_path):
    """MindSpore drops a row that does not fit the schema (with a logged warning); graphcell
    refuses the write and names the row and field."""
    assert int(GOLDENS[f"rows_kept/bad/{name}"]) == 2  # MindSpore kept the two good rows only
    writer = mr.FileWriter(str(tmp_path / "x.mindrecord"))
    writer.add_schema(C.BAD_ROW_SCHEMA)
    with pytest.raises(mr.MRMValidateDataError, match=r"row 1(,|:)"):
        writer.write_raw_data([C.good_row(1), C.BAD_ROWS[name], C.good_row(2)])


@pytest.mark.parametrize("name", sorted(C.GOOD_VARIANTS))
def test_numpy_scalars_of_the_fields_dtype_are_taken(name, tmp_path):
    assert int(GOLDENS[f"rows_kept/good/{name}"]) == 3
    path = str(tmp_path / "x.mindrecord")
    writer = mr.FileWriter(path)
    writer.add_schema(C.BAD_ROW_SCHEMA)
    writer.write_raw_data([C.good_row(1), C.GOOD_VARIANTS[name], C.good_row(2)])
    writer.commit()
    assert mr.FileReader(path).len() == 3


def test_writer_argument_errors(tmp_path):
    path = str(tmp_path / "w.mindrecord")
    with pytest.raises(mr.ParamValueError, match="shard_num"):
        mr.FileWriter(path, shard_num=0)
    with pytest.raises(mr.ParamValueError, match="may not contain"):
        mr.FileWriter(str(tmp_path / "a:b.mindrecord"))
    with pytest.raises(mr.MRMOpenError, match="does not exist"):
        mr.FileWriter(str(tmp_path / "no" / "such.mindrecord"))
    writer = mr.FileWriter(path)
    with pytest.raises(mr.MRMInvalidPageSizeError, match="between 32768 and"):
        writer.set_page_size(1000)
    with pytest.raises(mr.MRMInvalidHeaderSizeError, match="between 16384 and"):
        writer.set_header_size(1 << 30)
    with pytest.raises(mr.MRMInvalidSchemaError, match="add_schema before"):
        writer.write_raw_data([{"x": 1}])
    writer.add_schema({"x": {"type": "int32"}, "b": {"type": "bytes"}})
    with pytest.raises(mr.MRMDefineIndexError, match="not a scalar"):
        writer.add_index(["b"])
    with pytest.raises(mr.MRMDefineIndexError, match="not in the schema"):
        writer.add_index(["y"])
    writer.set_page_size(1 << 15)
    with pytest.raises(mr.MRMWriteDatasetError, match="set_page_size"):
        writer.write_raw_data([{"x": 1, "b": b"\0" * (1 << 15)}])
    writer.write_raw_data([{"x": 1, "b": b""}])
    writer.commit()
    with pytest.raises(mr.MRMOpenError, match="already exists"):
        mr.FileWriter(path)
    with pytest.raises(mr.MRMWriteDatasetError, match="open_for_append"):
        writer.write_raw_data([{"x": 2, "b": b""}])
    appender = mr.FileWriter.open_for_append(path)
    appender.write_raw_data([{"x": 2, "b": b"z"}])
    appender.commit()
    assert [r["x"] for r in mr.FileReader(path).get_next()] == [1, 2]


def test_reading_broken_files_names_the_file(tmp_path):
    src = C.CASES["scalars_only"].paths(DATA / "mindspore")[0]
    copy = tmp_path / "scalars_only.mindrecord"
    copy.write_bytes(Path(src).read_bytes())
    with pytest.raises(mr.MRMOpenError, match=r"scalars_only.mindrecord.db: the index file"):
        mr.FileReader(str(copy))
    with pytest.raises(ds.DatasetFileError, match=r"the index file .* is missing"):
        ds.MindDataset(str(copy))
    (tmp_path / "scalars_only.mindrecord.db").write_bytes(Path(src + ".db").read_bytes())
    assert mr.FileReader(str(copy)).len() == 5
    renamed = tmp_path / "renamed.mindrecord"
    copy.rename(renamed)
    with pytest.raises(mr.MRMOpenError, match="scalars_only.mindrecord does not exist"):
        mr.FileReader(str(renamed))  # the header lists the set's files by their names
    (tmp_path / "cut.mindrecord").write_bytes(renamed.read_bytes()[:20000])
    (tmp_path / "cut.mindrecord.db").write_bytes(Path(src + ".db").read_bytes())
    with pytest.raises(mr.MRMOpenError, match="truncated"):
        mr.FileReader([str(tmp_path / "cut.mindrecord")])
    (tmp_path / "junk.mindrecord").write_bytes(b"\x05\0\0\0\0\0\0\0hello" + bytes(100))
    with pytest.raises(mr.MRMOpenError, match="not a MindRecord file"):
        mr.FileReader(str(tmp_path / "junk.mindrecord"))
    with pytest.raises(mr.MRMOpenError, match="no such MindRecord file"):
        mr.FileReader(str(tmp_path / "none.mindrecord"))


@pytest.mark.parametrize("read", sorted(C.BAD_READS))
def test_mind_dataset_refuses_what_mindspore_refuses(read):
    kwargs = {k: C.sampler_of(ds, v) if k == "sampler" else v
              for k, v in C.BAD_READS[read].items()}
    with pytest.raises(getattr(builtins, str(GOLDENS[f"bad_read/{read}"]))):
        data = ds.MindDataset(C.CASES["sharded"].paths(DATA / "mindspore")[0], **kwargs)
        list(data.create_dict_iterator(output_numpy=True))


def test_mind_dataset_argument_errors():
    path = C.CASES["sharded"].paths(DATA / "mindspore")[0]
    with pytest.raises(ds.ColumnError, match=r"\['nope'\]"):
        ds.MindDataset(path, columns_list=["id", "nope"])
    with pytest.raises(ds.ColumnError, match="needs columns_list"):
        ds.MindDataset(path, padded_sample={"id": 1}, num_padded=1)
    with pytest.raises(ds.ColumnError, match="lacks the columns"):
        ds.MindDataset(path, columns_list=["id", "label"], padded_sample={"id": 1}, num_padded=1)
    with pytest.raises(TypeError, match="Shuffle level"):
        ds.MindDataset(path, shuffle="files")
    with pytest.raises(TypeError, match="dataset_files"):
        ds.MindDataset([])


# --- the byte-level pieces ------------------------------------------------------------------------

from hypothesis import given, strategies as st  # noqa: E402

_INT64 = st.integers(-2 ** 63, 2 ** 63 - 1)
_EDGES = st.sampled_from([0, 127, 128, -128, -129, 2 ** 15 - 1, 2 ** 15, -2 ** 15, -2 ** 15 - 1,
                          2 ** 31 - 1, 2 ** 31, -2 ** 31, -2 ** 31 - 1, 2 ** 63 - 1, -2 ** 63])


@given(st.lists(st.one_of(_INT64, _EDGES), max_size=40))
def test_integer_compression_round_trips_at_every_width(values):
    arr = np.array(values, np.int64)
    packed = fmt.compress_ints(arr)
    widths = [1 if -128 <= v < 128 else 2 if -2 ** 15 <= v < 2 ** 15 else
              4 if -2 ** 31 <= v < 2 ** 31 else 8 for v in values]
    assert len(packed) == 4 + -(-len(values) // 4) + sum(widths)
    np.testing.assert_array_equal(fmt.uncompress_ints(packed, np.int64), arr)


_SCALARS = st.one_of(_INT64, st.floats(allow_nan=False), st.text(max_size=40))


@given(st.dictionaries(st.text(min_size=1, max_size=20), _SCALARS, max_size=20))
def test_messagepack_round_trips_the_raw_part(row):
    assert fmt.unpack_msgpack(fmt.pack_msgpack(row)) == row

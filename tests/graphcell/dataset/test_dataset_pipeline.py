"""Operations, iterators and their errors, beyond what the goldens compare: outputs as graphcell
Tensors, epochs, copies, and the messages bad arguments get."""
import re

import numpy as np
import pytest

import graphcell as ms
import graphcell.dataset as ds
from graphcell.dataset.core.errors import ColumnError, PipelineError


def table(n=6):
    return ds.NumpySlicesDataset({"a": list(range(n)), "b": np.arange(2 * n, dtype=np.float32)
                                  .reshape(n, 2)}, shuffle=False)


def test_rows_are_graphcell_tensors_with_mindspores_dtypes():
    row = next(iter(ds.NumpySlicesDataset(([1], [1.5], [True], ["s"]), shuffle=False)))
    assert isinstance(row, list)
    assert [type(v).__name__ for v in row] == ["Tensor", "Tensor", "Tensor", "ndarray"]
    assert [row[0].dtype, row[1].dtype, row[2].dtype] == [ms.int64, ms.float64, ms.bool_]
    batch = next(iter(table().batch(4)))
    assert batch[0].shape == (4,) and batch[1].shape == (4, 2) and batch[1].dtype == ms.float32


def test_dict_iterator_and_column_selection():
    row = next(table().create_dict_iterator(output_numpy=True))
    assert list(row) == ["a", "b"] and row["b"].tolist() == [0.0, 1.0]
    rows = list(table().create_tuple_iterator(columns=["b"], output_numpy=True))
    assert len(rows) == 6 and all(len(r) == 1 and r[0].shape == (2,) for r in rows)
    with pytest.raises(ColumnError, match="unknown column 'c'.*\\['a', 'b'\\]"):
        table().create_tuple_iterator(columns=["c"])


def test_an_iterator_reads_its_epochs_then_refuses():
    it = table(3).create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [[int(r[0]) for r in it] for _ in range(2)] == [[0, 1, 2]] * 2
    with pytest.raises(PipelineError, match="num_epochs"):
        next(it)
    endless = table(2).create_dict_iterator(output_numpy=True)
    assert [[int(r["a"]) for r in endless] for _ in range(3)] == [[0, 1]] * 3


@pytest.mark.parametrize("do_copy", [False, True])
def test_values_never_share_memory_with_the_source(do_copy):
    source = np.arange(6.0).reshape(3, 2)
    data = ds.NumpySlicesDataset(source, shuffle=False)
    row = next(data.create_tuple_iterator(output_numpy=True, do_copy=do_copy))[0]
    row[0] = 99.0
    assert source[0, 0] == 0.0
    tensor = next(data.create_dict_iterator(do_copy=do_copy))["column_0"]
    assert not np.shares_memory(tensor.asnumpy(), source)
    with pytest.raises(TypeError, match="drop_reminder"):
        data.batch(2, drop_reminder=True)  # a misspelt argument is not swallowed


def test_sizes_without_reading_and_with_counting():
    calls = []

    def keep(a):
        calls.append(int(a))
        return a % 2 == 0
    data = table(10).filter(keep, input_columns="a")
    assert data.get_dataset_size() == 5 and len(calls) == 10
    assert data.get_dataset_size() == 5 and len(calls) == 10  # counted once
    assert len(table(10).batch(3)) == 4
    assert table(4).repeat().take(10).get_dataset_size() == 4  # MindSpore's answer: one pass
    assert len(list(table(4).repeat().take(10))) == 10
    assert table(4).batch(2).repeat(3).get_repeat_count() == 3


def test_a_node_may_feed_several_pipelines():
    base = table(4)  # MindSpore refuses this ("not a tree"); graphcell allows it
    both = base.concat(base.skip(2))
    assert [int(r[0]) for r in both.create_tuple_iterator(output_numpy=True)] == [0, 1, 2, 3, 2, 3]


def test_column_errors_name_the_operation_and_the_columns():
    with pytest.raises(ColumnError, match=r"project: unknown column 'x'; the dataset's columns "
                                          r"are \['a', 'b'\]"):
        table().project(["x"])
    with pytest.raises(ColumnError, match="map: unknown column 'x'"):
        table().map(lambda v: v, input_columns="x")
    with pytest.raises(ColumnError, match="map: output column 'b' is also a column"):
        table().map(lambda v: v, input_columns="a", output_columns="b")
    with pytest.raises(ColumnError, match="rename: the new name 'b' is already a column"):
        table().rename("a", "b")
    with pytest.raises(ColumnError, match="zip: column 'a' is in more than one"):
        ds.zip((table(), table()))
    with pytest.raises(ColumnError, match=r"concat: .* \['a', 'b'\] and \['a'\]"):
        table() + table().project("a")
    with pytest.raises(ValueError, match="names a column more than once"):
        table().project(["a", "a"])
    assert issubclass(ColumnError, RuntimeError)  # MindSpore raises RuntimeError for these


def test_a_failing_user_function_names_the_map_and_where_it_was_made():
    def broken(x):
        raise KeyError("no such label")
    data = table().map(broken, input_columns="a")
    line = data._origin
    with pytest.raises(PipelineError) as info:
        list(data)
    message = str(info.value)
    assert re.search(r"MapDataset \(created at test_dataset_pipeline\.py:\d+\): the function broken "
                     r"raised KeyError: 'no such label'", message), message
    assert line.startswith("test_dataset_pipeline.py:")
    assert isinstance(info.value.__cause__, KeyError)


def test_rows_that_cannot_be_batched_name_the_column_and_shapes():
    data = ds.NumpySlicesDataset({"v": [[1, 2], [3]]}, shuffle=False).batch(2)
    with pytest.raises(PipelineError,
                       match=r"column 'v' have different shapes \(\[2\] and \[1\]\)"):
        list(data)


def test_map_output_count_and_none_are_pipeline_errors():
    with pytest.raises(PipelineError, match="returned 2 columns for 1 output columns"):
        list(table().map(lambda v: (v, v), input_columns="a"))
    with pytest.raises(PipelineError, match="returned None"):
        list(table().map(lambda v: None, input_columns="a"))


@pytest.mark.parametrize("make, error, text", [
    (lambda: table().batch(0), ValueError, "batch_size must be an int in \\[1,"),
    (lambda: table().batch(2.5), TypeError, "batch_size must be an int"),
    (lambda: table().shuffle(1), ValueError, "buffer_size must be an int in \\[2,"),
    (lambda: table().take(0), ValueError, "count must be an int in \\[1,"),
    (lambda: table().repeat(-2), ValueError, "count must be an int in \\[1,"),
    (lambda: table().skip(-1), ValueError, "count must be an int in \\[0,"),
    (lambda: table().map(3), TypeError, "operations must be a callable"),
    (lambda: table().filter("a"), TypeError, "predicate must be callable"),
    (lambda: table().batch(2, input_columns=["a"]), ValueError, "need a per_batch_map"),
    (lambda: table().create_tuple_iterator(num_epochs=0), ValueError, "num_epochs"),
    (lambda: table().map(lambda v: v, num_parallel_workers=0), ValueError, "num_parallel_workers"),
])
def test_bad_arguments_are_refused_when_the_operation_is_added(make, error, text):
    with pytest.raises(error, match=text):
        make()


def test_parallel_settings_are_accepted():
    data = table().map(lambda v: v, input_columns="a", num_parallel_workers=4,
                       python_multiprocessing=True).batch(2, num_parallel_workers=2)
    assert data.get_dataset_size() == 3
    ds.config.set_num_parallel_workers(4)
    ds.config.set_prefetch_size(8)
    assert (ds.config.get_num_parallel_workers(), ds.config.get_prefetch_size()) == (4, 8)


@pytest.mark.parametrize("call, error", [
    (lambda: ds.config.set_seed(-1), ValueError), (lambda: ds.config.set_seed(2 ** 32), ValueError),
    (lambda: ds.config.set_seed(1.5), TypeError), (lambda: ds.config.set_seed(True), TypeError),
    (lambda: ds.config.set_num_parallel_workers(0), ValueError),
    (lambda: ds.config.set_prefetch_size(0), ValueError),
])
def test_config_refuses_bad_values(call, error):
    with pytest.raises(error):
        call()


def test_batch_info_counts_batches_and_epochs():
    seen = []

    def size(info):
        seen.append((info.get_epoch_num(), info.get_batch_num()))
        return 2
    it = ds.NumpySlicesDataset(list(range(4)), shuffle=False).batch(size).create_tuple_iterator(
        num_epochs=2, output_numpy=True)
    for _ in range(2):
        list(it)
    assert seen[:3] == [(0, 0), (0, 1), (0, 2)] and seen[3:6] == [(1, 0), (1, 1), (1, 2)]


def test_a_batchable_map_agrees_with_its_row_by_row_application():
    images = np.arange(4 * 5 * 6 * 3, dtype=np.uint8).reshape(4, 5, 6, 3)
    ops = [ds.vision.Rescale(1 / 255, -0.5), ds.vision.Normalize([0.1, 0.2, 0.3], [0.5, 0.6, 0.7]),
           ds.vision.HWC2CHW(), ds.transforms.TypeCast(ms.float16)]
    data = ds.NumpySlicesDataset({"image": images}, shuffle=False).map(ops, "image")
    batched = next(data.batch(4).create_tuple_iterator(output_numpy=True))[0]
    rows = np.stack([r[0] for r in data.create_tuple_iterator(output_numpy=True)])
    assert batched.dtype == np.float16 and batched.shape == (4, 3, 5, 6)
    np.testing.assert_array_equal(batched, rows)
    compose = ds.transforms.Compose(ops)
    np.testing.assert_array_equal(compose(images[1]), rows[1])


def test_split_and_apply():
    first, rest = table(10).split([3, 7], randomize=False)
    assert [int(r[0]) for r in first.create_tuple_iterator(output_numpy=True)] == [0, 1, 2]
    assert rest.get_dataset_size() == 7
    ds.config.set_seed(2)
    parts = table(10).split([0.33, 0.33, 0.34])
    seen = [[int(r[0]) for r in p.create_tuple_iterator(output_numpy=True)] for p in parts]
    assert [len(s) for s in seen] == [4, 3, 3] and sorted(sum(seen, [])) == list(range(10))
    assert seen != [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    ds.config.set_seed(2)
    assert [[int(r[0]) for r in p.create_tuple_iterator(output_numpy=True)]
            for p in table(10).split([0.33, 0.33, 0.34])] == seen
    mapped = table(10).map(lambda v: v, input_columns="a")
    assert [p.get_dataset_size() for p in mapped.split([0.5, 0.5], randomize=False)] == [5, 5]
    with pytest.raises(ValueError, match="randomize=True\\) needs a random-access source"):
        mapped.split([5, 5])
    with pytest.raises(ValueError, match="add up to the dataset size 10"):
        table(10).split([3, 6])
    assert table(10).apply(lambda d: d.batch(3)).get_dataset_size() == 4
    with pytest.raises(TypeError, match="apply_func must return a dataset"):
        table().apply(lambda d: 3)

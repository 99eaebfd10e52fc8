"""Shuffles: reproducible under ``ds.config.set_seed`` and ``graphcell.set_seed``, new each epoch,
shared by the shards of a job; the fast (indexed) path gives exactly the rows the row-by-row path
gives; and a pass never copies the dataset whole.
"""
import tracemalloc

import numpy as np
import pytest

import graphcell as ms
import graphcell.dataset as ds
from graphcell.dataset.engine.rows import ArrayTable, Indexed
from graphcell.dataset.engine.run import Run


def ids(data, epochs=1, **kw):
    it = data.create_tuple_iterator(output_numpy=True, num_epochs=epochs, **kw)
    return [[int(r[0]) for r in it] for _ in range(epochs)]


def shuffled(n=20):
    return ds.NumpySlicesDataset(list(range(n)))


@pytest.mark.parametrize("seed_with", [ds.config.set_seed, ms.set_seed])
def test_a_seed_makes_every_new_iterator_repeat_the_orders(seed_with):
    seed_with(11)
    first = ids(shuffled(), epochs=3)
    again = ids(shuffled(), epochs=3)
    assert first == again  # a new pipeline, a new iterator: the same three epochs
    assert len({tuple(e) for e in first}) == 3  # each epoch is shuffled anew
    assert all(sorted(e) == list(range(20)) for e in first)
    seed_with(12)
    assert ids(shuffled(), epochs=3) != first


def test_graphcell_set_seed_sets_the_pipeline_seed():
    ms.set_seed(5)
    assert ds.config.get_seed() == 5


def test_the_seed_is_read_when_the_iterator_is_created():
    data = shuffled()
    ds.config.set_seed(3)
    it = data.create_tuple_iterator(output_numpy=True, num_epochs=1)
    ds.config.set_seed(4)
    order = [int(r[0]) for r in it]
    ds.config.set_seed(3)
    assert ids(data) == [order]


def test_without_a_seed_orders_differ_between_iterators():
    assert ds.config.seed_if_set() is None
    orders = {tuple(ids(shuffled(30))[0]) for _ in range(3)}
    assert len(orders) == 3
    assert ds.config.get_seed() == ds.config.DEFAULT_SEED  # MindSpore's default seed is reported


def test_shuffle_operation_reshuffles_each_epoch_and_repeat_reshuffles_each_repetition():
    ds.config.set_seed(1)
    data = ds.NumpySlicesDataset(list(range(12)), shuffle=False).shuffle(4)
    epochs = ids(data, epochs=2)
    assert epochs[0] != epochs[1] and sorted(epochs[0]) == list(range(12))
    rep = ids(shuffled(12).repeat(2))[0]
    assert sorted(rep[:12]) == sorted(rep[12:]) == list(range(12)) and rep[:12] != rep[12:]


def test_a_small_shuffle_buffer_only_moves_rows_locally():
    ds.config.set_seed(2)
    order = ids(ds.NumpySlicesDataset(list(range(200)), shuffle=False).shuffle(2))[0]
    assert sorted(order) == list(range(200)) and order != list(range(200))
    # with a buffer of 2 a row leaves at most one place before it arrives... or later
    assert all(order.index(i) >= i - 1 for i in range(200))


@pytest.mark.parametrize("seeded", [True, False])
def test_shards_deal_one_global_order(seeded):
    """Every shard of a job (each its own process, here its own pipeline) reads its share of the
    same shuffled order, with or without a seed (sharding then uses MindSpore's default seed)."""
    if seeded:
        ds.config.set_seed(9)
    n, k = 10, 3
    shards = [ids(ds.NumpySlicesDataset(list(range(n)), num_shards=k, shard_id=s), epochs=2)
              for s in range(k)]
    for epoch in range(2):
        dealt = [shards[s][epoch] for s in range(k)]
        assert all(len(d) == 4 for d in dealt)  # ceil(10 / 3), short shards wrap around
        order = [dealt[p % k][p // k] for p in range(12)]
        assert sorted(order[:n]) == list(range(n))  # positions 0..n-1 are one permutation
        assert order[n:] == order[:2]  # the padding repeats its start
    assert [shards[0][0]] != [shards[0][1]]


def fast_and_slow(pipeline):
    """The rows of ``pipeline(source)`` read through the indexed path and, with a pass-through
    map in front (which forces rows), through the row path, under the same seed."""
    data = np.arange(60, dtype=np.float32).reshape(30, 2)
    out = []
    for force_rows in (False, True):
        ds.config.set_seed(21)
        src = ds.NumpySlicesDataset({"x": data, "y": np.arange(30)})
        if force_rows:
            src = src.map(lambda v: v, input_columns="y")
        out.append([[a.tolist() for a in row] for row in
                    pipeline(src).create_tuple_iterator(output_numpy=True, num_epochs=1)])
    return out


@pytest.mark.parametrize("pipeline", [
    lambda d: d.batch(4),
    lambda d: d.shuffle(5).batch(4, drop_remainder=True),
    lambda d: d.skip(3).take(20).batch(6),
    lambda d: d.repeat(2).shuffle(100).batch(7),
    lambda d: d.project(["y"]).rename("y", "z").batch(5),
    lambda d: d.map(ds.vision.Rescale(0.5, 1.0), input_columns="x").batch(8),
], ids=["batch", "shuffle", "skip_take", "repeat_shuffle", "project_rename", "map_rescale"])
def test_the_indexed_path_gives_the_rows_of_the_row_path(pipeline):
    fast, slow = fast_and_slow(pipeline)
    assert fast == slow and fast


def test_batches_over_selection_operations_are_gathered_not_assembled_row_by_row(monkeypatch):
    data = ds.NumpySlicesDataset({"x": np.arange(20.0)}).shuffle(8).skip(2).batch(5)
    assert isinstance(data.children[0]._stream(Run()), Indexed)

    def no_rows(self, i):
        raise AssertionError("a row was read on its own")
    monkeypatch.setattr(ArrayTable, "row", no_rows)
    assert [b[0].shape for b in data.create_tuple_iterator(output_numpy=True)] == [(5,)] * 3 + \
        [(3,)]


def test_an_epoch_of_a_large_dataset_is_never_copied_whole():
    x = np.zeros((20000, 256), np.float32)  # 20 MB
    data = ds.NumpySlicesDataset({"x": x, "y": np.arange(20000)}).shuffle(20000).batch(64)
    it = data.create_tuple_iterator(output_numpy=True, num_epochs=1)
    tracemalloc.start()
    try:
        batches = sum(1 for _ in it)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert batches == 313
    assert peak < x.nbytes / 10, f"peak {peak} bytes for a {x.nbytes}-byte dataset"


def test_random_transforms_repeat_under_a_seed_and_vary_across_epochs():
    images = np.arange(10 * 6 * 6 * 3, dtype=np.uint8).reshape(10, 6, 6, 3)

    def crops():
        data = ds.NumpySlicesDataset({"image": images}, shuffle=False)
        data = data.map([ds.vision.RandomCrop(4), ds.vision.RandomHorizontalFlip()], "image")
        it = data.create_tuple_iterator(output_numpy=True, num_epochs=2)
        return [[r[0].tobytes() for r in it] for _ in range(2)]
    ds.config.set_seed(4)
    first = crops()
    ds.config.set_seed(4)
    assert crops() == first
    assert first[0] != first[1]


def test_random_transforms_called_directly_repeat_after_set_seed():
    image = np.arange(8 * 8, dtype=np.uint8).reshape(8, 8)
    ds.config.set_seed(1)
    a = [ds.vision.RandomCrop(3)(image) for _ in range(5)]
    ds.config.set_seed(1)
    b = [ds.vision.RandomCrop(3)(image) for _ in range(5)]
    assert all((p == q).all() for p, q in zip(a, b))
    assert len({p.tobytes() for p in a}) > 1

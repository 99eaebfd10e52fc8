"""Sources: MNIST / Fashion-MNIST / CIFAR-10 files the tests write, the errors of malformed files,
and GeneratorDataset's kinds of sources."""
import struct

import numpy as np
import pytest

import graphcell as ms
import graphcell.dataset as ds
from graphcell.dataset.core.errors import DatasetFileError, PipelineError, SamplerError
from dataset_files import pattern_images, write_cifar10, write_mnist


@pytest.fixture
def mnist(tmp_path):
    write_mnist(tmp_path, pattern_images(6, (28, 28)), np.arange(6) % 10, "train")
    write_mnist(tmp_path, pattern_images(2, (28, 28), 5), np.array([7, 8]), "test")
    return tmp_path


def rows(data):
    return list(data.create_tuple_iterator(output_numpy=True, num_epochs=1))


@pytest.mark.parametrize("cls", [ds.MnistDataset, ds.FashionMnistDataset])
def test_mnist_reads_the_idx_files_as_mindspore_does(mnist, cls):
    data = cls(str(mnist), shuffle=False)
    assert data.get_col_names() == ["image", "label"] and data.get_dataset_size() == 8
    got = rows(data)
    assert [int(r[1]) for r in got] == [7, 8, 0, 1, 2, 3, 4, 5]  # test files first, as MindSpore
    image, label = got[2]
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8 and label.dtype == np.uint32
    np.testing.assert_array_equal(image[..., 0], pattern_images(6, (28, 28))[0])
    assert [int(r[1]) for r in rows(cls(str(mnist), usage="test", shuffle=False))] == [7, 8]


def test_mnist_batches_as_the_quick_start_pipeline(mnist):
    data = ds.MnistDataset(str(mnist), usage="train")
    data = data.map([ds.vision.Rescale(1.0 / 255.0, 0), ds.vision.Normalize(mean=(0.1307,),
                                                                             std=(0.3081,)),
                     ds.vision.HWC2CHW()], "image")
    data = data.map(ds.transforms.TypeCast(ms.int32), "label").batch(4)
    image, label = next(data.create_tuple_iterator())
    assert image.shape == (4, 1, 28, 28) and image.dtype == ms.float32
    assert label.shape == (4,) and label.dtype == ms.int32
    assert data.get_dataset_size() == 2


def test_cifar10_reads_any_number_of_records(tmp_path):
    images = pattern_images(5, (32, 32, 3))
    write_cifar10(tmp_path / "data_batch_2.bin", images[3:], np.array([3, 4]))
    write_cifar10(tmp_path / "data_batch_1.bin", images[:3], np.array([0, 1, 2]))
    write_cifar10(tmp_path / "test_batch.bin", images[:1], np.array([9]))
    data = ds.Cifar10Dataset(str(tmp_path), shuffle=False)
    got = rows(data)
    assert [int(r[1]) for r in got] == [0, 1, 2, 3, 4, 9]  # training batches by name, then test
    np.testing.assert_array_equal(np.stack([r[0] for r in got[:5]]), images)
    assert got[0][0].dtype == np.uint8 and got[0][1].dtype == np.uint32
    assert ds.Cifar10Dataset(str(tmp_path), usage="test").get_dataset_size() == 1


def _corrupt(path, data: bytes):
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("damage, message", [
    (lambda d: _corrupt(d / "train-labels-idx1-ubyte", b"garbage!garbage!"),
     "train-labels-idx1-ubyte: not an MNIST label file"),
    (lambda d: _corrupt(d / "train-images-idx3-ubyte",
                        (d / "train-images-idx3-ubyte").read_bytes()[:-100]),
     "train-images-idx3-ubyte: truncated: the header declares 6 items"),
    (lambda d: _corrupt(d / "train-labels-idx1-ubyte",
                        struct.pack(">II", 2049, 5) + bytes(5)),
     "holds 6 images but .*train-labels-idx1-ubyte holds 5 labels"),
    (lambda d: _corrupt(d / "train-images-idx3-ubyte", b"\0\0"),
     "train-images-idx3-ubyte: too short for an MNIST idx header"),
])
def test_malformed_mnist_files_are_named(mnist, damage, message):
    damage(mnist)
    with pytest.raises(DatasetFileError, match=message):
        ds.MnistDataset(str(mnist), usage="train")
    assert issubclass(DatasetFileError, ValueError)


def test_missing_files_and_folders(tmp_path):
    with pytest.raises(DatasetFileError, match="has no MNIST files for usage='all'"):
        ds.MnistDataset(str(tmp_path))
    with pytest.raises(DatasetFileError, match="does not exist"):
        ds.Cifar10Dataset(str(tmp_path / "nope"))
    (tmp_path / "data_batch_1.bin").write_bytes(bytes(3073 * 2 + 5))
    with pytest.raises(DatasetFileError, match="data_batch_1.bin: not a CIFAR-10 binary batch"):
        ds.Cifar10Dataset(str(tmp_path))
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.Cifar10Dataset(str(tmp_path), usage="val")


def test_samplers_that_do_not_fit_are_refused_when_the_source_is_made(mnist):
    with pytest.raises(SamplerError, match=r"sample id 9 is out of bound, expected range \[0, 7\]"):
        ds.MnistDataset(str(mnist), sampler=ds.SubsetSampler([1, 9]))
    with pytest.raises(SamplerError, match="start_index must be less"):
        ds.NumpySlicesDataset([1, 2], sampler=ds.SequentialSampler(start_index=2))
    with pytest.raises(ValueError, match="cannot be combined"):
        ds.NumpySlicesDataset([1, 2], sampler=ds.RandomSampler(), shuffle=False)


def test_samplers_can_be_chained_and_replaced():
    data = ds.NumpySlicesDataset(list(range(10)), sampler=ds.SequentialSampler(start_index=4))
    data.add_sampler(ds.SubsetSampler([0, 2, 4]))  # picks among the rows 4..9
    assert [int(r[0]) for r in rows(data)] == [4, 6, 8]
    data.use_sampler(ds.SequentialSampler(num_samples=2))
    assert [int(r[0]) for r in rows(data)] == [0, 1]
    weighted = ds.NumpySlicesDataset(list(range(4)), sampler=ds.WeightedRandomSampler(
        [0, 0, 1, 0], num_samples=5))
    assert [int(r[0]) for r in rows(weighted)] == [2] * 4  # at most as many as rows


def test_generator_sources():
    class Squares:
        def __getitem__(self, i):
            return np.array(i * i), [i, -i]

        def __len__(self):
            return 4
    data = ds.GeneratorDataset(Squares(), ["sq", "pair"], shuffle=False)
    assert [(int(a), b.tolist()) for a, b in rows(data)] == [(0, [0, 0]), (1, [1, -1]),
                                                            (4, [2, -2]), (9, [3, -3])]
    batches = ds.GeneratorDataset(Squares(), ["sq", "pair"], batch_sampler=[[0, 1], [3]])
    assert [b[1].shape for b in rows(batches)] == [(2, 2), (1, 2)]
    summed = ds.GeneratorDataset(Squares(), ["sq", "pair"], batch_sampler=[[1, 2, 3]],
                                 collate_fn=lambda sq, pair: (np.sum(sq), np.stack(pair)))
    assert int(rows(summed)[0][0]) == 14
    once = ds.GeneratorDataset((np.array(i) for i in range(3)), ["x"])
    assert len(rows(once)) == 3


def test_generator_checks():
    def gen():
        yield np.array(1.5), np.array(2)
    with pytest.raises(PipelineError, match="column 'a' is float64 but column_types says "
                                            "Float32"):
        rows(ds.GeneratorDataset(gen, ["a", "b"], column_types=[ms.float32, ms.int64]))
    with pytest.raises(PipelineError, match="returned 2 columns but column_names has 1"):
        rows(ds.GeneratorDataset(gen, ["a"]))
    with pytest.raises(NotImplementedError, match="schema"):
        ds.GeneratorDataset(gen, schema="schema.json")
    with pytest.warns(UserWarning, match="shuffle=True has no effect"):
        ds.GeneratorDataset(gen, ["a", "b"], shuffle=True)

    def objects():
        yield (object(),)
    with pytest.raises(PipelineError, match="not numbers or strings"):
        rows(ds.GeneratorDataset(objects, ["o"]))


def test_generator_failures_name_the_source_and_row():
    class Flaky:
        def __getitem__(self, i):
            if i == 2:
                raise IndexError("disk error")
            return np.array(i)

        def __len__(self):
            return 3
    data = ds.GeneratorDataset(Flaky(), ["x"], shuffle=False)
    with pytest.raises(PipelineError, match=r"source Flaky \(created at test_dataset_sources\.py:\d+\), "
                                            r"row 2: source\[2\] raised IndexError: disk error"):
        rows(data)

"""Transforms beyond the goldens: batches agree with rows, random crops are windows of the padded
image, the 1.x import paths, and what is refused."""
import importlib

import numpy as np
import pytest

import graphcell as ms
import graphcell.dataset as ds
from graphcell.dataset import transforms, vision
from graphcell.dataset.core.errors import TransformError
from dataset_files import pattern_images


@pytest.mark.parametrize("op", [
    vision.Resize((5, 7)), vision.Resize((9, 3), vision.Inter.CUBIC),
    vision.Resize((4, 4), vision.Inter.AREA), vision.Resize(6, vision.Inter.NEAREST),
    vision.Resize((5, 5), vision.Inter.PILCUBIC), vision.CenterCrop((9, 4)), vision.Pad(2),
    vision.ToTensor(), vision.HorizontalFlip(), vision.Crop((1, 2), (3, 3)),
    transforms.OneHot(256), transforms.Fill(3),
], ids=lambda op: type(op).__name__)
def test_a_transform_on_a_batch_equals_it_on_each_row(op):
    images = pattern_images(3, (8, 10, 3))
    batched = op.batch_apply((images,))[0]
    rows = np.stack([op(img) for img in images])
    assert batched.dtype == rows.dtype
    np.testing.assert_array_equal(batched, rows)


def test_random_crop_is_a_window_of_the_padded_image():
    image = pattern_images(1, (3, 4, 3))[0]
    padded = np.pad(image, ((2, 2), (1, 1), (0, 0)), mode="edge")
    op = vision.RandomCrop((5, 6), padding=(1, 2), padding_mode=vision.Border.EDGE)
    windows = {padded[t:t + 5, s:s + 6].tobytes() for t in range(3) for s in range(1)}
    assert {op(image).tobytes() for _ in range(20)} <= windows
    needed = vision.RandomCrop((5, 6), pad_if_needed=True)(image)  # pads 2 and 2 on each side
    assert needed.shape == (5, 6, 3)
    big = np.pad(image, ((2, 2), (2, 2), (0, 0)))
    assert any((big[t:t + 5, s:s + 6] == needed).all() for t in range(3) for s in range(3))


def test_flips_happen_with_their_probability():
    ds.config.set_seed(0)
    image = np.arange(6, dtype=np.uint8).reshape(2, 3)
    flips = [bool((vision.RandomVerticalFlip(0.3)(image) != image).any()) for _ in range(400)]
    assert 80 < sum(flips) < 160


def test_transforms_take_graphcell_tensors_and_numpy_arrays():
    x = ms.Tensor(np.arange(4, dtype=np.int32))
    assert transforms.TypeCast(ms.float32)(x).dtype == np.float32
    assert vision.Rescale(2.0, 0.0)(np.ones((2, 2), np.uint8)).tolist() == [[2.0, 2.0]] * 2
    with pytest.raises(TypeError, match="Rescale: expected a numpy array"):
        vision.Rescale(2.0, 0.0)([1, 2])
    assert transforms.Duplicate()(np.arange(2))[1].tolist() == [0, 1]


@pytest.mark.parametrize("call, text", [
    (lambda: vision.Normalize([1, 2], [1, 2])(np.zeros((2, 2, 3))), "number of channels"),
    (lambda: vision.HWC2CHW()(np.zeros((1, 2, 2, 3))), "rank: 4"),
    (lambda: vision.Resize((2, 2))(np.zeros((4, 4), np.int32)), "int32 images are not supported"),
    (lambda: vision.Resize((2, 2))(np.zeros(4, np.uint8)), "at least two dimensions"),
    (lambda: vision.Resize((2, 2), vision.Inter.PILCUBIC)(np.zeros((4, 4), np.uint8)),
     "only supports images with 3 channels"),
    (lambda: transforms.OneHot(3)(np.array([3])), "index 3 is outside \\[0, 2\\]"),
    (lambda: transforms.TypeCast(ms.int32)(np.array(["a"])), "cannot cast"),
    (lambda: vision.Crop((2, 2), 3)(np.zeros((4, 4))), "outside the 4x4 image"),
])
def test_data_a_transform_cannot_take_is_a_transform_error(call, text):
    with pytest.raises(TransformError, match=text):
        call()


def test_a_transform_error_inside_a_pipeline_names_the_map():
    data = ds.NumpySlicesDataset({"x": np.zeros((2, 4, 4, 2))}, shuffle=False)
    data = data.map(vision.Normalize([1, 2, 3], [1, 1, 1]), "x")
    with pytest.raises(ds.PipelineError, match=r"MapDataset \(created at test_dataset_transforms\.py:\d+\)"
                                               r": the transform Normalize raised"):
        list(data)


@pytest.mark.parametrize("make, error", [
    (lambda: vision.Resize((2,)), TypeError), (lambda: vision.Resize(0), ValueError),
    (lambda: vision.Resize(3, "linear"), TypeError),
    (lambda: vision.Resize(3, vision.Inter.ANTIALIAS), TypeError),
    (lambda: vision.Normalize([1], [0]), ValueError), (lambda: vision.Rescale("a", 0), TypeError),
    (lambda: vision.RandomCrop(3, padding=-1), ValueError),
    (lambda: vision.RandomCrop(3, fill_value=300), ValueError),
    (lambda: vision.RandomHorizontalFlip(1.5), ValueError),
    (lambda: transforms.OneHot(0), ValueError), (lambda: transforms.Compose([]), TypeError),
    (lambda: transforms.TypeCast("no-such-type"), TypeError),
])
def test_bad_transform_arguments(make, error):
    with pytest.raises(error):
        make()


def test_pilcubic_works_on_float_images_too():
    """MindSpore 2.10 returns garbage for non-uint8 PILCUBIC input; graphcell computes it."""
    image = pattern_images(1, (6, 8, 3))[0]
    as_float = vision.Resize((3, 4), vision.Inter.PILCUBIC)(image.astype(np.float32))
    as_uint8 = vision.Resize((3, 4), vision.Inter.PILCUBIC)(image)
    assert np.abs(as_float - as_uint8).max() <= 1.0


@pytest.mark.parametrize("module, names", [
    ("graphcell.dataset.vision.c_transforms", ["Resize", "Rescale", "HWC2CHW", "Inter"]),
    ("graphcell.dataset.vision.py_transforms", ["ToTensor", "Normalize", "Resize"]),
    ("graphcell.dataset.transforms.c_transforms", ["TypeCast", "OneHot", "Compose"]),
    ("graphcell.dataset.transforms.py_transforms", ["Compose"]),
    ("graphcell.dataset.vision.utils", ["Inter", "Border"]),
    ("graphcell.dataset.engine", ["GeneratorDataset", "DistributedSampler", "Dataset"]),
    ("graphcell.dataset.engine.datasets", ["Dataset"]),
    ("graphcell.dataset.config", []),
])
def test_mindsporess_import_paths(module, names):
    mod = importlib.import_module(module) if module != "graphcell.dataset.config" else ds.config
    for name in names:
        assert hasattr(mod, name), f"{module}.{name}"
    assert ms.dataset is ds


def test_old_py_transforms_normalize_works_on_chw():
    from graphcell.dataset.vision import py_transforms as P
    chw = P.ToTensor()(np.full((2, 2, 3), 255, np.uint8))
    out = P.Normalize([0.5, 0.5, 0.5], [0.5, 0.25, 0.5])(chw)
    assert out.shape == (3, 2, 2) and out[:, 0, 0].tolist() == [1.0, 2.0, 1.0]


def test_names_graphcell_lacks_say_why():
    with pytest.raises(AttributeError, match="ToPIL is not provided by graphcell: .*Pillow"):
        vision.ToPIL  # noqa: B018
    with pytest.raises(AttributeError, match="mindspore.dataset.ImageFolderDataset is not "
                                             "provided by graphcell"):
        ds.ImageFolderDataset  # noqa: B018
    with pytest.raises(AttributeError, match="config.set_enable_shared_mem is not provided by "
                                             "graphcell: it provides .*set_seed"):
        ds.config.set_enable_shared_mem(False)

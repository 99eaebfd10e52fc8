"""Golden cases of ``mindspore.dataset``: pipelines and transform calls, written once, run by
MindSpore 2.10 (``tools/record_dataset_goldens.py`` records ``goldens/dataset.npz``) and by
graphcell (``test_dataset_goldens.py`` compares).

A case is a function of ``env`` (``env.ds``, ``env.vision``, ``env.transforms``: the dataset
modules; ``env.ms``: the framework, for dtypes; ``env.data``: a directory holding the files of
``dataset_files.write_standard_files``). A *pipeline* case returns a dataset: its column names,
size, batch size, repeat count, output shapes and types and every row (``output_numpy=True``, one
epoch) are compared. A *call* case returns what a transform call returned. Either may raise: then
graphcell must raise an error of the builtin class MindSpore raised. Only deterministic pipelines
are recorded (``shuffle=False``); shuffles are tested for reproducibility instead. This module
imports nothing but numpy, so that both venvs read it.

Example::

    >>> c = CASES["ops/batch_drop"]
    >>> c.kind, len(c.fingerprint())
    ('pipeline', 16)
"""
from __future__ import annotations

import hashlib
import json
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from dataset_files import pattern_images


@dataclass
class Case:
    name: str
    fn: Callable
    kind: str  # "pipeline" or "call"
    params: dict = field(default_factory=dict)
    rtol: float = 0.0
    atol: float = 0.0

    def run(self, env) -> Any:
        return self.fn(env, **self.params)

    def fingerprint(self) -> str:
        text = inspect.getsource(self.fn) + repr(sorted(self.params.items(), key=repr))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


CASES: dict[str, Case] = {}


def _register(kind, name, params=None, **tol):
    def wrap(fn):
        assert name not in CASES, name
        CASES[name] = Case(name, fn, kind, dict(params or {}), **tol)
        return fn
    return wrap


def pipeline(name, params=None, **tol):
    return _register("pipeline", name, params, **tol)


def call(name, params=None, **tol):
    return _register("call", name, params, **tol)


def img(h, w, c=3, dtype="uint8", salt=0):
    """A deterministic image: uint8 pattern values, or for float dtypes values in [-40, 40)."""
    shape = (h, w) if c == 0 else (h, w, c)
    x = pattern_images(1, shape, salt)[0]
    if np.dtype(dtype).kind == "f":
        return (x.astype(np.float64) * (80 / 256) - 40).astype(dtype)
    if np.dtype(dtype) == np.uint16:
        return (x.astype(np.uint16) * 257 + np.uint16(salt)).astype(np.uint16)
    return x.astype(dtype)


# --- sources: NumpySlicesDataset ---------------------------------------------------------------

SLICES = {
    "list_int": [1, 2, 3], "list_float": [1.5, 2.0, 3.25], "list_bool": [True, False],
    "list_of_lists": [[1, 2], [3, 4], [5, 6]], "list_mixed": [1, 2.5, 3],
    "list_str": ["a", "bc"], "list_of_tuples": [(1, 2.0), (3, 4.0)], "ragged": [[1, 2], [3]],
}
for _key, _data in SLICES.items():
    pipeline(f"slices/{_key}", {"data": _data})(
        lambda env, data: env.ds.NumpySlicesDataset(data, shuffle=False))


@pipeline("slices/tuple_of_lists")
def _(env):
    return env.ds.NumpySlicesDataset(([1, 2, 3], [4.0, 5.0, 6.0]), shuffle=False)


@pipeline("slices/dict")
def _(env):
    return env.ds.NumpySlicesDataset({"b": [1, 2], "a": [3.0, 4.0]}, shuffle=False)


@pipeline("slices/dict_renamed")
def _(env):
    return env.ds.NumpySlicesDataset({"a": [1, 2]}, column_names=["z"], shuffle=False)


@pipeline("slices/numpy")
def _(env):
    data = (np.arange(3, dtype=np.int32), np.arange(12, dtype=np.float16).reshape(3, 2, 2))
    return env.ds.NumpySlicesDataset(data, column_names=["x", "y"], shuffle=False)


@pipeline("slices/list_of_arrays")
def _(env):
    return env.ds.NumpySlicesDataset([np.zeros(2, np.float32), np.ones(2, np.float32)],
                                     shuffle=False)


@pipeline("slices/num_samples")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(10)), shuffle=False, num_samples=4)


@pipeline("slices/num_samples_over")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(5)), shuffle=False, num_samples=8)


@pipeline("slices/error_tuple_of_tuples")
def _(env):
    return env.ds.NumpySlicesDataset(((1, 2), (3, 4)), shuffle=False)


@pipeline("slices/error_names")
def _(env):
    return env.ds.NumpySlicesDataset(([1, 2], [3, 4]), column_names=["z"], shuffle=False)


@pipeline("slices/error_lengths")
def _(env):
    return env.ds.NumpySlicesDataset(([1, 2], [3]), shuffle=False)


@pipeline("slices/error_scalar")
def _(env):
    return env.ds.NumpySlicesDataset(5, shuffle=False)


# --- sources: GeneratorDataset -----------------------------------------------------------------

def _gen():
    for i in range(5):
        yield np.array([i, i]), i * 1.5


class _RandomAccess:
    def __getitem__(self, i):
        return np.array(i, np.int32), np.full((2,), i, np.float32)

    def __len__(self):
        return 6


class _Iterable:
    def __init__(self):
        self.i = 0

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= 4:
            raise StopIteration
        self.i += 1
        return (np.array(self.i),)

    def __len__(self):
        return 4


@pipeline("generator/function")
def _(env):
    return env.ds.GeneratorDataset(_gen, ["x", "y"])


@pipeline("generator/function_num_samples")
def _(env):
    return env.ds.GeneratorDataset(_gen, ["x", "y"], num_samples=2)


@pipeline("generator/random_access")
def _(env):
    return env.ds.GeneratorDataset(_RandomAccess(), ["a", "b"], shuffle=False)


@pipeline("generator/random_access_shard")
def _(env):
    return env.ds.GeneratorDataset(_RandomAccess(), ["a", "b"], shuffle=False, num_shards=4,
                                   shard_id=3)


@pipeline("generator/iterable")
def _(env):
    return env.ds.GeneratorDataset(_Iterable(), ["a"])


@pipeline("generator/list")
def _(env):
    return env.ds.GeneratorDataset([(np.array(0),), (np.array(1),)], ["col"], shuffle=False)


@pipeline("generator/list_of_ints")
def _(env):
    return env.ds.GeneratorDataset([1, 2, 3], ["col"], shuffle=False, num_samples=2)


@pipeline("generator/error_no_names")
def _(env):
    return env.ds.GeneratorDataset(_gen)


@pipeline("generator/error_too_few_names")
def _(env):
    return env.ds.GeneratorDataset(_gen, ["x"])


@pipeline("generator/error_shards_iterable")
def _(env):
    return env.ds.GeneratorDataset(_gen, ["x", "y"], num_shards=2, shard_id=0)


def _raising():
    yield (np.array(1),)
    raise KeyError("boom")


@pipeline("generator/error_source_raises")
def _(env):
    return env.ds.GeneratorDataset(_raising, ["x"])


# --- samplers and shards -----------------------------------------------------------------------

for _n in (10, 7, 3):
    for _k in (3, 4, 5):
        for _s in range(_k):
            pipeline(f"shards/n{_n}_k{_k}_s{_s}", {"n": _n, "k": _k, "s": _s})(
                lambda env, n, k, s: env.ds.NumpySlicesDataset(list(range(n)), shuffle=False,
                                                               num_shards=k, shard_id=s))
for _s in range(3):
    pipeline(f"shards/num_samples_s{_s}", {"s": _s})(
        lambda env, s: env.ds.NumpySlicesDataset(list(range(10)), shuffle=False, num_shards=3,
                                                 shard_id=s, num_samples=2))
    pipeline(f"samplers/distributed_offset_s{_s}", {"s": _s})(
        lambda env, s: env.ds.NumpySlicesDataset(
            list(range(10)), sampler=env.ds.DistributedSampler(3, s, shuffle=False, offset=1)))


@pipeline("samplers/sequential")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(10)),
                                     sampler=env.ds.SequentialSampler(start_index=2, num_samples=5))


@pipeline("samplers/sequential_past_end")
def _(env):
    sampler = env.ds.SequentialSampler(start_index=2, num_samples=10)
    return env.ds.NumpySlicesDataset(list(range(6)), sampler=sampler)


@pipeline("samplers/subset")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(10)), sampler=env.ds.SubsetSampler([5, 1, 7]))


@pipeline("samplers/list")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(10)), sampler=[3, 2, 1])


@pipeline("samplers/user")
def _(env):
    class Evens(env.ds.Sampler):
        def __iter__(self):
            return iter(range(0, 6, 2))
    return env.ds.NumpySlicesDataset(list(range(6)), sampler=Evens())


@pipeline("samplers/error_conflict")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(6)), sampler=env.ds.SequentialSampler(),
                                     num_samples=2)


@pipeline("samplers/error_shard_id")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(6)), num_shards=2, shard_id=2)


@pipeline("samplers/error_shards_alone")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(6)), num_shards=2)


@pipeline("samplers/error_subset_bound")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(6)), sampler=env.ds.SubsetSampler([1, 9]))


# --- operations --------------------------------------------------------------------------------

def _base(env):
    return env.ds.NumpySlicesDataset({"a": np.arange(10, dtype=np.int32),
                                      "b": np.arange(20, dtype=np.float32).reshape(10, 2)},
                                     shuffle=False)


def _abc(env):
    return env.ds.NumpySlicesDataset({"a": [1, 2], "b": [10, 20], "c": [100, 200]},
                                     shuffle=False)


@pipeline("ops/batch")
def _(env):
    return _base(env).batch(3)


@pipeline("ops/batch_drop")
def _(env):
    return _base(env).batch(3, drop_remainder=True)


@pipeline("ops/batch_function")
def _(env):
    return env.ds.NumpySlicesDataset([1, 2, 3, 4, 5], shuffle=False).batch(
        lambda info: info.get_epoch_num() + 2)


@pipeline("ops/batch_per_batch_map")
def _(env):
    def double(a, b, info):
        return [x * 2 for x in a], [y + info.get_batch_num() for y in b]
    return env.ds.NumpySlicesDataset(([1, 2, 3], [1.0, 2.0, 3.0]), shuffle=False).batch(
        2, per_batch_map=double)


@pipeline("ops/batch_per_batch_map_columns")
def _(env):
    def split(a, info):
        return a, [x + 1 for x in a]
    return env.ds.NumpySlicesDataset(([1, 2, 3], [1.0, 2.0, 3.0]), shuffle=False).batch(
        2, per_batch_map=split, input_columns=["column_0"], output_columns=["p", "q"])


@pipeline("ops/batch_strings")
def _(env):
    return env.ds.NumpySlicesDataset(["a", "bc", "d"], shuffle=False).batch(2)


@pipeline("ops/batch_of_batches")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(5)), shuffle=False).batch(2).batch(2)


@pipeline("ops/batch_error_ragged")
def _(env):
    return env.ds.NumpySlicesDataset([[1, 2], [3]], shuffle=False).batch(2)


@pipeline("ops/batch_error_size")
def _(env):
    return _base(env).batch(0)


@pipeline("ops/map")
def _(env):
    return _base(env).map(lambda x: x * 2, input_columns="b")


@pipeline("ops/map_two_outputs")
def _(env):
    return _base(env).map(lambda x: (x, x.astype(np.int64) + 1), input_columns="a",
                          output_columns=["a1", "a2"])


@pipeline("ops/map_two_inputs")
def _(env):
    return _base(env).map(lambda x, y: y + x.astype(np.float32), input_columns=["a", "b"],
                          output_columns=["c"])


@pipeline("ops/map_reordered_inputs")
def _(env):
    return _abc(env).map(lambda c, a: (c + a, c - a), input_columns=["c", "a"],
                         output_columns=["x", "y"])


@pipeline("ops/map_fewer_outputs")
def _(env):
    return _abc(env).map(lambda c, a: c + a, input_columns=["c", "a"], output_columns=["x"])


@pipeline("ops/map_default_column")
def _(env):
    return _base(env).map(lambda x: x.astype(np.int64) + 1)


@pipeline("ops/map_list_of_functions")
def _(env):
    return _base(env).map([lambda x: x + 1, lambda x: x * 10], input_columns="b")


@pipeline("ops/map_python_values")
def _(env):
    return _base(env).map(lambda x: (3, 3.5, [1, 2], np.float32(1.5), True, "s"),
                          input_columns="a", output_columns=["i", "f", "l", "n", "t", "s"])


@pipeline("ops/map_error_column")
def _(env):
    return _base(env).map(lambda x: x, input_columns="zz")


@pipeline("ops/map_error_output_count")
def _(env):
    return _base(env).map(lambda x: (x, x), input_columns="a")


@pipeline("ops/map_error_none")
def _(env):
    return _base(env).map(lambda x: None, input_columns="a")


@pipeline("ops/project")
def _(env):
    return _base(env).project(["b", "a"])


@pipeline("ops/project_error")
def _(env):
    return _base(env).project(["zz"])


@pipeline("ops/rename")
def _(env):
    return _base(env).rename(["a"], ["x"])


@pipeline("ops/rename_str")
def _(env):
    return _base(env).rename("b", "y")


@pipeline("ops/rename_error")
def _(env):
    return _base(env).rename(["zz"], ["x"])


@pipeline("ops/take")
def _(env):
    return _base(env).take(3)


@pipeline("ops/take_all")
def _(env):
    return _base(env).take(-1)


@pipeline("ops/take_more")
def _(env):
    return _base(env).take(30)


@pipeline("ops/take_error")
def _(env):
    return _base(env).take(0)


@pipeline("ops/skip")
def _(env):
    return _base(env).skip(7)


@pipeline("ops/skip_all")
def _(env):
    return _base(env).skip(30)


@pipeline("ops/repeat")
def _(env):
    return env.ds.NumpySlicesDataset([1, 2, 3], shuffle=False).repeat(3)


@pipeline("ops/repeat_error")
def _(env):
    return _base(env).repeat(0)


@pipeline("ops/skip_after_repeat")
def _(env):
    return env.ds.NumpySlicesDataset([1, 2, 3], shuffle=False).repeat(2).skip(2)


@pipeline("ops/take_then_repeat")
def _(env):
    return env.ds.NumpySlicesDataset([1, 2, 3], shuffle=False).take(2).repeat(2)


@pipeline("ops/chain")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(5)), shuffle=False).skip(1).take(3).repeat(
        2).batch(4)


@pipeline("ops/take_before_batch")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(10)), shuffle=False).take(7).batch(3, True)


@pipeline("ops/batch_then_repeat")
def _(env):
    return _base(env).batch(3).repeat(2)


@pipeline("ops/repeat_then_batch")
def _(env):
    return _base(env).repeat(2).batch(3)


@pipeline("ops/zip")
def _(env):
    return env.ds.zip((_base(env).project("a"), _base(env).project("b").take(4)))


@pipeline("ops/zip_method")
def _(env):
    return _base(env).project("a").zip(_base(env).project("b").take(3))


@pipeline("ops/zip_error_duplicate")
def _(env):
    return env.ds.zip((_base(env), _base(env)))


@pipeline("ops/concat")
def _(env):
    return _base(env) + _base(env).take(2)


@pipeline("ops/concat_method")
def _(env):
    return _base(env).concat([_base(env).skip(8), _base(env).take(1)])


@pipeline("ops/concat_error")
def _(env):
    return _base(env) + _base(env).project("a")


@pipeline("ops/filter")
def _(env):
    return _base(env).filter(lambda a: a % 2 == 0, input_columns=["a"])


@pipeline("ops/filter_all_columns")
def _(env):
    return _base(env).filter(lambda a, b: a > 7)


@pipeline("ops/filter_after_batch")
def _(env):
    return env.ds.NumpySlicesDataset(list(range(10)), shuffle=False).batch(3).filter(
        lambda x: x.sum() > 5)


@pipeline("ops/batch_then_map")
def _(env):
    return env.ds.NumpySlicesDataset([1, 2, 3], shuffle=False).batch(2).map(lambda x: x * 2)


@pipeline("ops/shuffle_error")
def _(env):
    return _base(env).shuffle(1)


# --- files -------------------------------------------------------------------------------------

for _usage in (None, "train", "test", "all"):
    pipeline(f"mnist/{_usage}", {"usage": _usage})(
        lambda env, usage: env.ds.MnistDataset(str(env.data / "mnist"), usage=usage,
                                               shuffle=False))
    pipeline(f"cifar10/{_usage}", {"usage": _usage})(
        lambda env, usage: env.ds.Cifar10Dataset(str(env.data / "cifar"), usage=usage,
                                                 shuffle=False).take(3))


@pipeline("mnist/train_files_only")
def _(env):
    return env.ds.MnistDataset(str(env.data / "mnist_train"), shuffle=False)


@pipeline("mnist/sharded")
def _(env):
    return env.ds.MnistDataset(str(env.data / "mnist"), shuffle=False, num_shards=3, shard_id=2)


@pipeline("mnist/error_usage")
def _(env):
    return env.ds.MnistDataset(str(env.data / "mnist"), usage="val")


@pipeline("mnist/error_missing_dir")
def _(env):
    return env.ds.MnistDataset(str(env.data / "nowhere"))


@pipeline("mnist/error_missing_test_files")
def _(env):
    return env.ds.MnistDataset(str(env.data / "mnist_train"), usage="test")


@pipeline("cifar10/across_files")
def _(env):
    return env.ds.Cifar10Dataset(str(env.data / "cifar"), shuffle=False).skip(9998).take(4)


@pipeline("quickstart/mnist")
def _(env):
    ds, vision, transforms = env.ds, env.vision, env.transforms
    data = ds.MnistDataset(str(env.data / "mnist"), shuffle=False)
    data = data.map([vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,),
                                                                      std=(0.3081,)),
                     vision.HWC2CHW()], "image")
    data = data.map(transforms.TypeCast(env.ms.int32), "label")
    return data.batch(3)


@pipeline("quickstart/cifar")
def _(env):
    ds, vision, transforms = env.ds, env.vision, env.transforms
    data = ds.Cifar10Dataset(str(env.data / "cifar"), usage="test", shuffle=False).take(5)
    data = data.map([vision.Resize((16, 16)), vision.Rescale(1.0 / 255.0, 0.0),
                     vision.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]),
                     vision.HWC2CHW()], input_columns="image")
    return data.map(transforms.TypeCast(env.ms.int32), input_columns="label").batch(2)


# --- transforms (called directly) --------------------------------------------------------------

for _dt in ("uint8", "float32", "float64", "int32"):
    for _r, _s in ((1 / 255, 0.0), (1 / 255, -0.5), (0.3081, 0.1307), (2.0, 1.0)):
        call(f"rescale/{_dt}_{_r:.3f}_{_s}", {"dtype": _dt, "r": _r, "s": _s})(
            lambda env, dtype, r, s: env.vision.Rescale(r, s)(img(9, 7, 3, dtype)))


@call("rescale/error_scalar")
def _(env):
    return env.vision.Rescale(2, 1)(np.int32(3))


_MEAN, _STD = [0.485 * 255, 0.456 * 255, 0.406 * 255], [0.229 * 255, 0.224 * 255, 0.225 * 255]
for _dt in ("uint8", "float32", "float16"):
    call(f"normalize/hwc_{_dt}", {"dtype": _dt})(
        lambda env, dtype: env.vision.Normalize(_MEAN, _STD)(img(8, 6, 3, dtype)))
    call(f"normalize/chw_{_dt}", {"dtype": _dt})(
        lambda env, dtype: env.vision.Normalize([10, 20], [2, 4], is_hwc=False)(
            img(2, 5, 4, dtype)))


@call("normalize/one_mean_three_channels")
def _(env):
    return env.vision.Normalize([10], [2])(img(3, 4, 3))


@call("normalize/hw_image")
def _(env):
    return env.vision.Normalize([0.1307], [0.3081])(img(5, 4, 0, "float32"))


@call("normalize/error_channels")
def _(env):
    return env.vision.Normalize([10, 20], [2, 4])(img(3, 4, 3))


@call("normalize/error_std")
def _(env):
    return env.vision.Normalize([10, 20, 30], [0, 4, 8])


@call("hwc2chw/hwc")
def _(env):
    return env.vision.HWC2CHW()(img(2, 3, 4))


@call("hwc2chw/hw")
def _(env):
    return env.vision.HWC2CHW()(img(2, 3, 0))


@call("hwc2chw/error_rank")
def _(env):
    return env.vision.HWC2CHW()(img(2, 3, 4)[None])


@call("typecast/float_to_int")
def _(env):
    return env.transforms.TypeCast(env.ms.int32)(np.array([1.7, -1.7, 2.5, -2.5, 0.0]))


@call("typecast/float_to_uint8_wraps")
def _(env):
    return env.transforms.TypeCast(env.ms.uint8)(np.array([300.0, -1.0, 255.9]))


@call("typecast/int_to_uint8_wraps")
def _(env):
    return env.transforms.TypeCast(env.ms.uint8)(np.array([300, -1]))


@call("typecast/to_bool")
def _(env):
    return env.transforms.TypeCast(env.ms.bool_)(np.array([0.0, 0.5, 2.0]))


@call("typecast/numpy_dtype")
def _(env):
    return env.transforms.TypeCast(np.float16)(img(2, 2, 3))


@call("onehot/scalar")
def _(env):
    return env.transforms.OneHot(4)(np.array(2))


@call("onehot/vector")
def _(env):
    return env.transforms.OneHot(4)(np.array([1, 3, 0]))


@call("onehot/smoothing")
def _(env):
    return env.transforms.OneHot(4, 0.1)(np.array(2))


@call("onehot/uint32")
def _(env):
    return env.transforms.OneHot(5)(np.array(2, np.uint32))


@call("onehot/index_equal_classes")
def _(env):
    return env.transforms.OneHot(4)(np.array(4))


@call("onehot/error_index")
def _(env):
    return env.transforms.OneHot(4)(np.array(5))


@call("onehot/error_float")
def _(env):
    return env.transforms.OneHot(4)(np.array(2.0))


@call("fill/float")
def _(env):
    return env.transforms.Fill(7)(np.zeros((2, 2), np.float32))


@call("fill/int_from_float")
def _(env):
    return env.transforms.Fill(7.5)(np.zeros((3,), np.int32))


@call("duplicate")
def _(env):
    return env.transforms.Duplicate()(np.arange(3))


@call("concatenate/prepend_append")
def _(env):
    return env.transforms.Concatenate(0, np.array([9]), np.array([8, 8]))(np.arange(3))


@call("concatenate/error_dtype")
def _(env):
    return env.transforms.Concatenate(0, np.array([9.0]))(np.arange(3))


@call("compose")
def _(env):
    return env.transforms.Compose([env.vision.Rescale(2, 0), env.vision.HWC2CHW()])(img(2, 3, 3))


@call("compose/with_function")
def _(env):
    return env.transforms.Compose([lambda x: x + np.uint8(1), env.vision.HWC2CHW()])(img(2, 3, 3))


for _shape in ((5, 5, 1), (4, 4, 1), (7, 6, 3), (2, 2, 1), (3, 5, 0)):
    for _size in (2, (3, 2), (1, 2), (4, 4), (5, 6), (6, 3)):
        call(f"centercrop/{_shape}_{_size}", {"shape": _shape, "size": _size})(
            lambda env, shape, size: env.vision.CenterCrop(size)(img(*shape)))

for _shape in ((2, 3, 3), (4, 5, 0), (3, 3, 1)):
    call(f"totensor/{_shape}", {"shape": _shape})(
        lambda env, shape: env.vision.ToTensor()(img(*shape)))
call("totensor/float64_output")(lambda env: env.vision.ToTensor(np.float64)(img(2, 3, 3)))
call("totensor/float_input")(lambda env: env.vision.ToTensor()(img(2, 3, 3, "float32")))

for _shape in ((3, 4, 3), (3, 4, 0)):
    for _op in ("RandomHorizontalFlip", "RandomVerticalFlip"):
        for _p in (1.0, 0.0):
            call(f"flip/{_op}_{_p}_{_shape}", {"op": _op, "p": _p, "shape": _shape})(
                lambda env, op, p, shape: getattr(env.vision, op)(p)(img(*shape)))
    for _op in ("HorizontalFlip", "VerticalFlip"):
        call(f"flip/{_op}_{_shape}", {"op": _op, "shape": _shape})(
            lambda env, op, shape: getattr(env.vision, op)()(img(*shape)))

# RandomCrop is deterministic when the crop is as large as the padded image
_CROPS = {
    "exact": ((2, 3), {}), "pad1": ((4, 5), {"padding": 1}),
    "pad1_fill": ((4, 5), {"padding": 1, "fill_value": 7}),
    "pad1_fill_rgb": ((4, 5), {"padding": 1, "fill_value": (1, 2, 3)}),
    "pad_lrtb": ((4, 7), {"padding": (2, 1)}), "pad_ltrb": ((5, 6), {"padding": (1, 2, 2, 1)}),
}
for _key, (_size, _kw) in _CROPS.items():
    call(f"randomcrop/{_key}", {"size": _size, "kw": _kw})(
        lambda env, size, kw: env.vision.RandomCrop(size, **kw)(img(2, 3, 3)))
for _mode in ("EDGE", "REFLECT", "SYMMETRIC", "CONSTANT"):
    call(f"randomcrop/border_{_mode}", {"mode": _mode})(
        lambda env, mode: env.vision.RandomCrop(
            (7, 8), padding=(2, 1, 3, 4), padding_mode=getattr(env.vision.Border, mode))(
                img(2, 3, 3)))
    call(f"pad/{_mode}", {"mode": _mode})(
        lambda env, mode: env.vision.Pad((1, 2, 2, 1), padding_mode=getattr(env.vision.Border,
                                                                             mode))(img(3, 4, 3)))
call("randomcrop/hw_image")(lambda env: env.vision.RandomCrop((4, 5), padding=1)(img(2, 3, 0)))
call("randomcrop/error_too_big")(lambda env: env.vision.RandomCrop((3, 3))(img(2, 3, 3)))

# Resize: every mode on several shapes and dtypes (PILCUBIC on uint8: MindSpore 2.10 returns
# garbage for other dtypes)
_RESIZE_SHAPES = (((7, 9, 3), (14, 18)), ((7, 9, 3), (3, 4)), ((12, 12, 3), (6, 6)),
                  ((12, 12, 1), (24, 24)), ((10, 15, 0), (17, 11)), ((5, 13, 3), (9, 4)),
                  ((16, 16, 3), (5, 7)), ((6, 8, 4), (6, 8)), ((1, 5, 3), (3, 2)))
_TOL = {"float32": dict(rtol=2e-6, atol=2e-5), "float64": dict(rtol=1e-6, atol=2e-5),
        "uint16": dict(atol=1), "uint8": {}}
for _mode in ("NEAREST", "LINEAR", "CUBIC", "AREA", "PILCUBIC"):
    for _dt in ("uint8", "float32", "float64", "uint16"):
        if _mode == "PILCUBIC" and _dt != "uint8":
            continue
        for _shape, _size in _RESIZE_SHAPES:
            tol = _TOL[_dt] if _mode not in ("NEAREST",) else {}
            if _mode == "LINEAR" and _dt in ("uint8", "uint16"):
                tol = {}
            call(f"resize/{_mode}_{_dt}_{_shape}_{_size}",
                 {"mode": _mode, "dtype": _dt, "shape": _shape, "size": _size}, **tol)(
                lambda env, mode, dtype, shape, size: env.vision.Resize(
                    size, getattr(env.vision.Inter, mode))(img(*shape, dtype=dtype, salt=3)))
for _shape in ((7, 10, 3), (10, 7, 3), (8, 8, 1), (3, 100, 0)):
    call(f"resize/shorter_side_{_shape}", {"shape": _shape})(
        lambda env, shape: env.vision.Resize(4)(img(*shape)))
call("resize/batch_nhwc")(lambda env: env.vision.Resize((5, 4))(
    np.stack([img(7, 9, 3, salt=s) for s in range(2)])))
call("resize/bool")(lambda env: env.vision.Resize((5, 4))(img(7, 9, 3) > 128))
call("resize/error_int32")(lambda env: env.vision.Resize((5, 4))(img(7, 9, 3, "int32")))
call("resize/error_size")(lambda env: env.vision.Resize((2,)))
call("resize/error_zero")(lambda env: env.vision.Resize(0))
call("resize/error_rank")(lambda env: env.vision.Resize((2, 2))(np.zeros(7, np.uint8)))


# --- the goldens file --------------------------------------------------------------------------
# One JSON index and one byte blob (two npz members instead of one per array: the per-member
# overhead of thousands of small arrays tripled the file).

def write_goldens(path, records: dict[str, dict[str, np.ndarray]]) -> None:
    """Save ``{case: {field: array}}`` to ``path`` (an .npz of an index and a blob)."""
    index, chunks, offset = {}, [], 0
    for case in sorted(records):
        index[case] = {}
        for field_name, value in sorted(records[case].items()):
            arr = np.asarray(value)  # (ascontiguousarray would make a 0-d array 1-d)
            data = arr.tobytes()
            index[case][field_name] = [arr.dtype.str, list(arr.shape), offset, len(data)]
            chunks.append(data)
            offset += len(data)
    blob = np.frombuffer(b"".join(chunks), np.uint8)
    np.savez_compressed(path, index=np.array(json.dumps(index, sort_keys=True)), blob=blob)


def read_goldens(path) -> dict[str, dict[str, np.ndarray]]:
    """The records ``write_goldens`` saved."""
    with np.load(path) as data:
        index, blob = json.loads(str(data["index"])), data["blob"].tobytes()
    return {case: {name: np.frombuffer(blob[o:o + n], np.dtype(dt)).reshape(shape).copy()
                   for name, (dt, shape, o, n) in fields.items()}
            for case, fields in index.items()}

"""Readers of standard vision datasets from local files: MNIST (and Fashion-MNIST) in the idx
format, CIFAR-10 in its binary version.

Shapes, dtypes, column names and row order are MindSpore's: ``image`` is uint8 HWC
(``(28, 28, 1)``, ``(32, 32, 3)``), ``label`` a uint32 scalar; ``usage`` ``"train"``, ``"test"``
or ``"all"`` (the default; MNIST reads the test files first, CIFAR-10 the training batches
first). Headers and file sizes are checked when the dataset is created, so a missing, truncated
or foreign file is a ``DatasetFileError`` (a ValueError) naming the file; the data is read at the
first pass. Unlike MindSpore, CIFAR-10 files need not hold exactly 10000 images each.

Example::

    >>> import graphcell.dataset as ds
    >>> ds.MnistDataset("/no/such/dir")
    Traceback (most recent call last):
    ...
    graphcell.dataset.core.errors.DatasetFileError: MnistDataset: the folder /no/such/dir ...
"""
from __future__ import annotations

import glob
import os
import struct

import numpy as np

from graphcell.dataset.core.errors import DatasetFileError
from graphcell.dataset.engine.rows import ArrayTable, Table
from graphcell.dataset.engine.sources import MappableDataset

USAGES = ("train", "test", "all")


def _check_usage(name: str, usage) -> str:
    usage = "all" if usage is None else usage
    if usage not in USAGES:
        raise ValueError(f"{name}: usage must be one of {list(USAGES)} or None, got {usage!r}")
    return usage


def _check_dir(name: str, dataset_dir) -> str:
    if not isinstance(dataset_dir, (str, os.PathLike)):
        raise TypeError(f"{name}: dataset_dir must be a path, got {type(dataset_dir).__name__}")
    path = os.fspath(dataset_dir)
    if not os.path.isdir(path):
        raise DatasetFileError(f"{name}: the folder {path} does not exist or is not a directory")
    return path


class _FileDataset(MappableDataset):
    """A mappable source over files that are checked now and read at the first pass."""

    _COLUMNS = ("image", "label")

    def __init__(self, dataset_dir, usage, num_samples, num_parallel_workers, shuffle, sampler,
                 num_shards, shard_id, cache):
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id, cache)
        name = type(self).__name__
        self.dataset_dir = _check_dir(name, dataset_dir)
        self.usage = _check_usage(name, usage)
        self._parts = self._inspect()  # [(paths..., row count)], validated
        self._n = sum(p[-1] for p in self._parts)
        self._loaded: Table | None = None
        self._check_sampler()

    def _inspect(self) -> list[tuple]:
        raise NotImplementedError

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _columns(self):
        return self._COLUMNS

    def _row_count(self) -> int:
        return self._n

    def _table(self) -> Table:
        if self._loaded is None:
            self._loaded = ArrayTable(self._COLUMNS, self._load())
        return self._loaded


# --- MNIST ----------------------------------------------------------------------------------------

_IDX_IMAGES, _IDX_LABELS = 2051, 2049
_MNIST_PREFIX = {"test": "t10k", "train": "train"}


def _idx_header(path: str, magic: int, dims: int) -> tuple[int, ...]:
    """The dimensions an idx file's header declares, after checking its magic and its size."""
    size = os.path.getsize(path)
    head = 4 + 4 * dims
    with open(path, "rb") as f:
        raw = f.read(head)
    if len(raw) < head:
        raise DatasetFileError(f"{path}: too short for an MNIST idx header ({size} bytes)")
    got, *shape = struct.unpack(f">{dims + 1}I", raw)
    if got != magic:
        kind = "image" if magic == _IDX_IMAGES else "label"
        raise DatasetFileError(f"{path}: not an MNIST {kind} file (idx magic number {got}, "
                               f"expected {magic})")
    want = head + int(np.prod(shape))
    if size != want:
        what = "truncated" if size < want else "longer than its header says"
        raise DatasetFileError(f"{path}: {what}: the header declares {shape[0]} items "
                               f"({want} bytes) but the file has {size} bytes")
    return tuple(shape)


class MnistDataset(_FileDataset):
    """MNIST from the idx files in ``dataset_dir`` (``train-images-idx3-ubyte``,
    ``train-labels-idx1-ubyte``, ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id, cache)

    def _inspect(self) -> list[tuple]:
        wanted = ["test", "train"] if self.usage == "all" else [self.usage]
        parts = []
        for part in wanted:
            prefix = _MNIST_PREFIX[part]
            images = os.path.join(self.dataset_dir, f"{prefix}-images-idx3-ubyte")
            labels = os.path.join(self.dataset_dir, f"{prefix}-labels-idx1-ubyte")
            if not (os.path.isfile(images) and os.path.isfile(labels)):
                continue
            n, rows, cols = _idx_header(images, _IDX_IMAGES, 3)
            (m,) = _idx_header(labels, _IDX_LABELS, 1)
            if n != m:
                raise DatasetFileError(f"{images} holds {n} images but {labels} holds {m} "
                                       f"labels; they must match")
            parts.append((images, labels, (rows, cols), n))
        if not parts:
            names = " and ".join(f"{_MNIST_PREFIX[p]}-images-idx3-ubyte/"
                                 f"{_MNIST_PREFIX[p]}-labels-idx1-ubyte" for p in wanted)
            raise DatasetFileError(f"{type(self).__name__}: {self.dataset_dir} has no MNIST "
                                   f"files for usage={self.usage!r} (looked for {names})")
        shapes = {p[2] for p in parts}
        if len(shapes) > 1:
            raise DatasetFileError(f"{self.dataset_dir}: the MNIST files hold images of "
                                   f"different sizes {sorted(shapes)}")
        return parts

    def _load(self):
        images, labels = [], []
        for image_path, label_path, (rows, cols), n in self._parts:
            images.append(np.fromfile(image_path, np.uint8, offset=16).reshape(n, rows, cols, 1))
            labels.append(np.fromfile(label_path, np.uint8, offset=8).astype(np.uint32))
        return (images[0] if len(images) == 1 else np.concatenate(images),
                np.concatenate(labels))


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST: MNIST's file names and format."""


# --- CIFAR-10 -------------------------------------------------------------------------------------

_CIFAR_RECORD = 1 + 3 * 32 * 32


class Cifar10Dataset(_FileDataset):
    """CIFAR-10 from the binary batches in ``dataset_dir`` (``data_batch_1.bin`` ...
    ``data_batch_5.bin``, ``test_batch.bin``): each record is a label byte and a 32x32 RGB image
    stored channel by channel."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id, cache)

    def _files(self) -> list[str]:
        train = sorted(glob.glob(os.path.join(glob.escape(self.dataset_dir), "data_batch_*.bin")))
        test = [p for p in [os.path.join(self.dataset_dir, "test_batch.bin")] if os.path.isfile(p)]
        return {"train": train, "test": test, "all": train + test}[self.usage]

    def _inspect(self) -> list[tuple]:
        files = self._files()
        if not files:
            want = {"train": "data_batch_*.bin", "test": "test_batch.bin",
                    "all": "data_batch_*.bin or test_batch.bin"}[self.usage]
            raise DatasetFileError(f"Cifar10Dataset: {self.dataset_dir} has no CIFAR-10 binary "
                                   f"files for usage={self.usage!r} (looked for {want})")
        parts = []
        for path in files:
            size = os.path.getsize(path)
            if size == 0 or size % _CIFAR_RECORD:
                raise DatasetFileError(f"{path}: not a CIFAR-10 binary batch: {size} bytes is "
                                       f"not a whole number of {_CIFAR_RECORD}-byte records "
                                       f"(a label byte and a 3x32x32 image)")
            parts.append((path, size // _CIFAR_RECORD))
        return parts

    def _load(self):
        records = np.concatenate([np.fromfile(path, np.uint8).reshape(n, _CIFAR_RECORD)
                                  for path, n in self._parts])
        images = np.ascontiguousarray(records[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
        return images, records[:, 0].astype(np.uint32)


__all__ = ["MnistDataset", "FashionMnistDataset", "Cifar10Dataset"]

"""Write small datasets in the standard file formats: MNIST's idx files and CIFAR-10's binary
batches. numpy only, so that the golden recorder (in a MindSpore venv) and the tests write the
same bytes.

Example::

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> images, labels = pattern_images(3, (28, 28, 1)), np.array([1, 2, 3], np.uint8)
    >>> sorted(p.name for p in write_mnist(d, images, labels, "train"))
    ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte']
"""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

MNIST_NAMES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
               "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def pattern_images(n: int, shape: tuple[int, ...], salt: int = 0) -> np.ndarray:
    """``n`` uint8 images whose pixels are a hash of (image, position): deterministic on every
    numpy version, and different from image to image."""
    size = int(np.prod(shape))
    i = np.arange(n, dtype=np.uint64)[:, None] * np.uint64(size) + np.arange(size, dtype=np.uint64)
    mixed = (i + np.uint64(salt)) * np.uint64(2654435761) % np.uint64(4294967291)
    return (mixed % np.uint64(256)).astype(np.uint8).reshape((n,) + tuple(shape))


def _idx(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack(">BBBB", 0, 0, 0x08, array.ndim))
        f.write(struct.pack(f">{array.ndim}I", *array.shape))
        f.write(np.ascontiguousarray(array, dtype=np.uint8).tobytes())


def write_mnist(directory, images: np.ndarray, labels: np.ndarray, usage: str) -> list[Path]:
    """``images`` (n, 28, 28) or (n, 28, 28, 1) uint8 and ``labels`` (n,) as the idx files of
    ``usage`` ("train" or "test") in ``directory``; returns the two paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    image_name, label_name = MNIST_NAMES[usage]
    images = images.reshape(images.shape[:3])
    _idx(directory / image_name, images)
    _idx(directory / label_name, np.asarray(labels, np.uint8))
    return [directory / image_name, directory / label_name]


def write_cifar10(path, images: np.ndarray, labels: np.ndarray) -> Path:
    """``images`` (n, 32, 32, 3) uint8 and ``labels`` (n,) as one CIFAR-10 binary batch: per
    record a label byte, then the red, green and blue planes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    records = np.empty((len(labels), 1 + 3 * 32 * 32), np.uint8)
    records[:, 0] = labels
    records[:, 1:] = images.transpose(0, 3, 1, 2).reshape(len(labels), -1)
    records.tofile(path)
    return path


def write_standard_files(root) -> None:
    """The files the golden cases read: ``root/mnist`` (5 train, 3 test images),
    ``root/mnist_train`` (train files only), ``root/cifar`` (data_batch_1 and test_batch with
    10000 images each, as MindSpore requires)."""
    root = Path(root)
    write_mnist(root / "mnist", pattern_images(5, (28, 28)), np.array([3, 1, 4, 1, 5]), "train")
    write_mnist(root / "mnist", pattern_images(3, (28, 28), 7), np.array([9, 2, 6]), "test")
    write_mnist(root / "mnist_train", pattern_images(5, (28, 28)), np.array([3, 1, 4, 1, 5]),
                "train")
    n = 10000
    write_cifar10(root / "cifar" / "data_batch_1.bin", pattern_images(n, (32, 32, 3), 1),
                  np.arange(n) % 10)
    write_cifar10(root / "cifar" / "test_batch.bin", pattern_images(n, (32, 32, 3), 2),
                  (np.arange(n) * 7) % 10)

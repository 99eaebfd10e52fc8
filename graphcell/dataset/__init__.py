"""``mindspore.dataset`` for in-memory and local-file data: ``graphcell.dataset``.

Sources (``NumpySlicesDataset``, ``GeneratorDataset``, ``MnistDataset``, ``Cifar10Dataset``,
``MindDataset`` for MindRecord files),
samplers, the operations (``batch``, ``shuffle``, ``map``, ``repeat``, ``take``, ``skip``, ``zip``,
``concat``, ``project``, ``rename``, ``filter``), iterators yielding graphcell Tensors, ``config``
(seed, workers), ``transforms`` and ``vision``. A script's ``import mindspore.dataset as ds`` runs
as ``import graphcell.dataset as ds``.

Batching a random-access source through selection-only operations reads each batch with one
gather per column; the dataset is never copied whole per epoch. Workers are accepted but rows are
produced in the calling thread.

Example::

    >>> import numpy as np
    >>> import graphcell.dataset as ds
    >>> ds.config.set_seed(0)
    >>> data = ds.NumpySlicesDataset({"x": np.arange(10.0), "y": np.arange(10)}).batch(4)
    >>> [(x.shape, y.dtype) for x, y in data]
    [((4,), Int64), ((4,), Int64), ((2,), Int64)]
"""
from graphcell.dataset.core import config
from graphcell.dataset.core.errors import (ColumnError, DatasetError, DatasetFileError,
                                           PipelineError, SamplerError, TransformError)
from graphcell.dataset.engine import *  # noqa: F401,F403 - MindSpore's dataset exports the engine
from graphcell.dataset.engine import __all__ as _engine_names
from graphcell.dataset import engine, transforms, vision

__all__ = list(_engine_names) + ["config", "engine", "transforms", "vision"]

_SCOPE = ("graphcell.dataset reads in-memory data (NumpySlicesDataset), Python sources "
          "(GeneratorDataset), local MNIST / Fashion-MNIST / CIFAR-10 files and MindRecord "
          "files (MindDataset)")


def not_provided(namespace: str, name: str, reason: str | None = None,
                 provided=None) -> AttributeError:
    """The AttributeError for a name of MindSpore's ``namespace`` that graphcell lacks: the
    reason, else the names graphcell does provide there."""
    if name.startswith("__"):
        return AttributeError(f"module {namespace!r} has no attribute {name!r}")
    why = reason or (f"it provides {', '.join(sorted(provided))}" if provided else _SCOPE)
    return AttributeError(f"{namespace}.{name} is not provided by graphcell: {why}")


def __getattr__(name: str):
    raise not_provided("mindspore.dataset", name)

"""``mindspore.dataset.engine``: datasets, samplers and iterators (the pipeline's machinery).

Example::

    >>> from graphcell.dataset.engine import NumpySlicesDataset, SequentialSampler
    >>> NumpySlicesDataset([3, 1], sampler=SequentialSampler()).get_dataset_size()
    2
"""
from graphcell.dataset.engine.datasets import Dataset
from graphcell.dataset.engine.datasets_standard_format import MindDataset, Shuffle
from graphcell.dataset.engine.datasets_user_defined import GeneratorDataset, NumpySlicesDataset
from graphcell.dataset.engine.datasets_vision import (Cifar10Dataset, FashionMnistDataset,
                                                      MnistDataset)
from graphcell.dataset.engine.iterators import DictIterator, Iterator, TupleIterator
from graphcell.dataset.engine.operations import (BatchDataset, BatchInfo, ConcatDataset,
                                                 FilterDataset, MapDataset, ProjectDataset,
                                                 RenameDataset, RepeatDataset, ShuffleDataset,
                                                 SkipDataset, TakeDataset, ZipDataset)
from graphcell.dataset.engine.samplers import (BuiltinSampler, DistributedSampler, IterSampler,
                                               RandomSampler, Sampler, SequentialSampler,
                                               SubsetRandomSampler, SubsetSampler,
                                               WeightedRandomSampler)
from graphcell.dataset.engine.sources import MappableDataset, SourceDataset


def zip(datasets):  # noqa: A001 - MindSpore's name
    """Rows of ``datasets`` (a tuple of datasets) side by side; stops with the shortest."""
    if not isinstance(datasets, (tuple, list)) or not datasets:
        raise TypeError(f"zip: datasets must be a tuple of datasets, got {type(datasets).__name__}")
    return datasets[0].zip(tuple(datasets[1:])) if len(datasets) > 1 else \
        ZipDataset(list(datasets))


__all__ = ["Dataset", "MappableDataset", "SourceDataset", "GeneratorDataset",
           "NumpySlicesDataset", "MindDataset", "Shuffle", "MnistDataset", "FashionMnistDataset", "Cifar10Dataset",
           "BatchDataset", "BatchInfo", "ConcatDataset", "FilterDataset", "MapDataset",
           "ProjectDataset", "RenameDataset", "RepeatDataset", "ShuffleDataset", "SkipDataset",
           "TakeDataset", "ZipDataset", "Iterator", "TupleIterator", "DictIterator",
           "BuiltinSampler", "Sampler", "SequentialSampler", "RandomSampler",
           "DistributedSampler", "SubsetSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "IterSampler", "zip"]

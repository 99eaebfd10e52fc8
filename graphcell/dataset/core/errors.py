"""The errors ``graphcell.dataset`` raises.

MindSpore's data engine reports most problems as ``RuntimeError`` when the pipeline runs; graphcell
finds bad arguments, unknown column names and malformed files when the pipeline is built, and says
which argument, column or file is wrong. The classes are also ``ValueError``/``RuntimeError`` so
that code written against either behaviour catches them.

Example::

    >>> import graphcell.dataset as ds
    >>> try:
    ...     ds.NumpySlicesDataset({"a": [1, 2]}).project(["b"])
    ... except ds.core.errors.ColumnError as e:
    ...     print(e)
    project: unknown column 'b'; the dataset's columns are ['a']
"""
from __future__ import annotations

from graphcell_ir.errors import GraphcellError


class DatasetError(GraphcellError):
    """Base class of the errors of ``graphcell.dataset``."""


class ColumnError(DatasetError, ValueError, RuntimeError):
    """A column name that the dataset does not have, or a clash of column names."""


class SamplerError(DatasetError, ValueError, RuntimeError):
    """A sampler that cannot fit the source: a sample id out of range, a start past the end."""


class DatasetFileError(DatasetError, ValueError, RuntimeError):
    """A dataset file that is missing, truncated, or not in the format the reader expects."""


class PipelineError(DatasetError, RuntimeError):
    """Something failed while the pipeline ran: a user function raised, rows that cannot be
    batched, an iterator used past its epochs. The message names the operation and where the
    user created it; the original exception is chained."""


class TransformError(DatasetError, ValueError, RuntimeError):
    """A transform was given data it cannot work on (wrong rank, channels, dtype...). Inside a
    pipeline it reaches the user wrapped in a PipelineError naming the ``map``."""

"""``mindspore.mindrecord``: MindSpore's own dataset file format, read and written compatibly.

A file written here is read by MindSpore (``mindspore.dataset.MindDataset``, ``FileReader``) and
the other way round; ``graphcell.dataset.MindDataset`` reads them into a pipeline. The byte
layout is in ``shard_format`` (and ``docs/decisions.md``).

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> from graphcell.mindrecord import FileWriter
    >>> import graphcell.dataset as ds
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.mindrecord")
    >>> writer = FileWriter(path, shard_num=1, overwrite=True)
    >>> writer.add_schema({"label": {"type": "int32"}, "x": {"type": "float32", "shape": [2]}})
    >>> writer.write_raw_data([{"label": i, "x": np.full(2, i, np.float32)} for i in range(3)])
    >>> writer.commit()
    >>> [int(r["label"]) for r in ds.MindDataset(path, shuffle=False).create_dict_iterator()]
    [0, 1, 2]
"""
from graphcell.mindrecord.exceptions import *  # noqa: F401,F403 - MindSpore exports them here
from graphcell.mindrecord.exceptions import __all__ as _exception_names
from graphcell.mindrecord.filereader import FileReader
from graphcell.mindrecord.filewriter import FAILED, SUCCESS, FileWriter
from graphcell.mindrecord.mindpage import MindPage

__all__ = ["FileWriter", "FileReader", "MindPage", "SUCCESS", "FAILED"] + list(_exception_names)


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.mindrecord", name, "module 'graphcell.mindrecord'")

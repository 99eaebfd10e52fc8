"""``mindspore.utils``: ``dlpack`` (zero-copy exchange with other frameworks).

Example::

    >>> from graphcell.utils import dlpack
    >>> callable(dlpack.to_dlpack) and callable(dlpack.from_dlpack)
    True
"""
from graphcell.utils import dlpack

__all__ = ["dlpack"]


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.utils", name, "module 'graphcell.utils'")

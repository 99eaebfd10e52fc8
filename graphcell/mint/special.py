"""``mint.special``: ``erfc``, ``exp2``, ``expm1``, ``log1p``, ``round``, ``sinc`` (mint's own
functions) and ``log_softmax``.

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> mint.special.exp2(ms.Tensor([3.0])).asnumpy().tolist()
    [8.0]
"""
from __future__ import annotations

from graphcell.mint._math import erfc, exp2, expm1, log1p, round, sinc  # noqa: F401,A004
from graphcell.mint.nn.functional import log_softmax  # noqa: F401

__all__ = ["erfc", "exp2", "expm1", "log1p", "log_softmax", "round", "sinc"]


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.mint.special", name, "module 'graphcell.mint.special'")

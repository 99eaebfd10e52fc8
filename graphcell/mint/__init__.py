"""``graphcell.mint``: MindSpore's PyTorch-style namespace (``mindspore.mint``).

Newer MindSpore code (2.3+ models, mindnlp/mindone-style code) is written against ``mint``:
PyTorch's argument names (``input``, ``dim``, ``keepdim``), defaults and overloads over
MindSpore's operations. Every name here is an alias of a ``graphcell.ops`` function or a thin
adapter that renames arguments and calls one — never a second implementation — so it runs
eagerly in PyNative mode, compiles in graph mode and differentiates through the ops it calls.
The sub-namespaces are mint's: ``nn`` (layers; ``nn.functional``), ``optim``, ``linalg``,
``special``. A name MindSpore 2.10's ``mint`` has and graphcell lacks raises an AttributeError
that points to ``docs/api_coverage.md``.

Example::

    >>> import graphcell as ms
    >>> from graphcell import mint
    >>> x = mint.arange(6, dtype=ms.float32).reshape(2, 3)
    >>> mint.sum(x, dim=1, keepdim=True).shape, mint.cat([x, x], dim=0).shape
    ((2, 1), (4, 3))
"""
from graphcell.mint._creation import *  # noqa: F401,F403 - the public names
from graphcell.mint._math import *  # noqa: F401,F403
from graphcell.mint._random import *  # noqa: F401,F403
from graphcell.mint._reduce import *  # noqa: F401,F403
from graphcell.mint._shape import *  # noqa: F401,F403
from graphcell.mint import _creation, _math, _random, _reduce, _shape  # noqa: E402
from graphcell.mint.nn.functional import conv2d  # noqa: E402,F401 - mint.conv2d
from graphcell.mint import linalg, nn, optim, special  # noqa: E402,F401 - mint's sub-namespaces

__all__ = sorted({"conv2d", *_creation.__all__, *_math.__all__, *_random.__all__, *_reduce.__all__,
                  *_shape.__all__})


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.mint", name, "module 'graphcell.mint'")

"""``graphcell.common``: MindSpore's ``mindspore.common`` import paths.

Scripts write ``from mindspore.common.initializer import Normal``,
``from mindspore.common.parameter import Parameter`` or ``from mindspore.common import dtype as
mstype``; the same lines work with ``graphcell``. The objects live in ``graphcell.tensor``,
``graphcell.parameter`` and ``graphcell.dtype``; the modules here re-export them.

Example::

    >>> from graphcell.common import Parameter, initializer
    >>> Parameter(initializer.initializer("zeros", [2]), name="b")
    Parameter (name=b, shape=(2,), dtype=Float32, requires_grad=True)
"""
from graphcell.common import api, dtype, generator, initializer, jit_config, seed
from graphcell.common.api import jit, jit_class, mutable
from graphcell.common.jit_config import JitConfig
from graphcell.common.dtype import *  # noqa: F401,F403 - MindSpore's mindspore.common exports the dtypes
from graphcell.parameter import Parameter, ParameterTuple
from graphcell.common.seed import get_seed, set_seed
from graphcell.tensor import Tensor

"""``mindspore.common.dtype``: the dtypes of ``graphcell.dtype``, under MindSpore's import path."""
from graphcell.dtype import *  # noqa: F401,F403
from graphcell.dtype import __all__  # noqa: F401

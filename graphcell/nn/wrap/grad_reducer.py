"""``mindspore.nn.wrap.grad_reducer``: MindSpore's import path of ``DistributedGradReducer``,
which lives with the data-parallel machinery in ``graphcell/parallel/grad_reducer.py``."""
from graphcell.parallel.grad_reducer import DistributedGradReducer

__all__ = ["DistributedGradReducer"]

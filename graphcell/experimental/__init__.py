"""``graphcell.experimental``: MindSpore's experimental namespace. graphcell provides
``experimental.optim`` (the PyTorch-style optimizers: ``Optimizer`` and ``AdamW``).

Example::

    >>> import graphcell as ms
    >>> from graphcell.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> optim.AdamW([w], lr=0.1).param_groups[0]["weight_decay"]
    0.01
"""
from graphcell.experimental import optim

__all__ = ["optim"]


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.experimental", name, "module 'graphcell.experimental'")

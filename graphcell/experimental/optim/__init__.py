"""``graphcell.experimental.optim``: MindSpore's PyTorch-style optimizers — parameter groups as
dicts with their hyperparameters (``param_groups``), a learning-rate Parameter per group
(``lrs``) — of which graphcell provides the base ``Optimizer`` and ``AdamW``.

Example::

    >>> import graphcell as ms
    >>> from graphcell.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> opt = optim.AdamW([w], lr=0.1, weight_decay=0.0)
    >>> _ = opt((ms.Tensor([2.0]),))
    >>> w.asnumpy().round(4)          # Adam's first step moves by about lr
    array([0.9], dtype=float32)
"""
from graphcell.experimental.optim.adamw import AdamW
from graphcell.experimental.optim.optimizer import Optimizer

__all__ = ["Optimizer", "AdamW"]


def __getattr__(name: str):
    from graphcell._compat import missing_attribute
    raise missing_attribute("mindspore.experimental.optim", name,
                            "module 'graphcell.experimental.optim'")

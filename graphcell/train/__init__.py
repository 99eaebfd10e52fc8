"""``mindspore.train``: checkpoints (``serialization``), and the training workflow.

Example::

    >>> from graphcell.train import save_checkpoint, load_checkpoint, load_param_into_net
"""
from graphcell.train import serialization
from graphcell.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["serialization", "save_checkpoint", "load_checkpoint", "load_param_into_net"]

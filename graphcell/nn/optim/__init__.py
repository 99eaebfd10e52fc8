"""``graphcell.nn`` optimizers: the ``Optimizer`` base, ``SGD``, ``Momentum`` and ``Adam``.

Each updates its parameters through ``ops.assign`` after validating every gradient, with
MindSpore's update rules, state names and defaults.
"""
from graphcell.nn.optim.adam import Adam
from graphcell.nn.optim.momentum import Momentum
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.nn.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Momentum", "Adam"]

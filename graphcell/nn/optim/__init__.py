"""``graphcell.nn`` optimizers (MindSpore 2.10's names, arguments, states and update rules): the
``Optimizer`` base; ``SGD``, ``Momentum``; ``Adam``, ``AdamWeightDecay``, ``AdamOffload``,
``LazyAdam``; ``Lamb``, ``LARS``; ``RMSProp``, ``Adagrad``, ``Adadelta``, ``AdaMax``,
``ProximalAdagrad``, ``FTRL``; ``ASGD``, ``Rprop``.

Each validates every gradient before anything changes, then updates its parameters through
``ops.assign`` (mostly through MindSpore's optimizer Primitives), so the same ``construct`` runs
in PyNative and compiles in graph mode.
"""
from graphcell.nn.optim.adam import Adam, AdamOffload, AdamWeightDecay
from graphcell.nn.optim.adaptive import FTRL, AdaMax, Adadelta, Adagrad, ProximalAdagrad, RMSProp
from graphcell.nn.optim.asgd import ASGD, Rprop
from graphcell.nn.optim.lamb import Lamb
from graphcell.nn.optim.lars import LARS
from graphcell.nn.optim.lazyadam import LazyAdam
from graphcell.nn.optim.momentum import Momentum
from graphcell.nn.optim.optimizer import Optimizer
from graphcell.nn.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamOffload", "LazyAdam",
           "Lamb", "LARS", "RMSProp", "Adagrad", "Adadelta", "AdaMax", "ProximalAdagrad", "FTRL",
           "ASGD", "Rprop"]

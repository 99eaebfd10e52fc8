"""Every process of a data-parallel job must start from the same weights: ``ms.set_seed(s)`` on
every process (the initializers then draw the same numbers), or ``parameter_broadcast=True``
(rank 0's weights are copied to the others when the training step is built), or loading the same
checkpoint. :func:`prepare_replicas` does the broadcast, and warns when none of the three
seems to be the case.

Example (one process: nothing to copy)::

    >>> from graphcell import nn
    >>> from graphcell.parallel import broadcast_parameters
    >>> broadcast_parameters(nn.Dense(2, 2).get_parameters())
"""
from __future__ import annotations

import warnings

from graphcell.communication.management import GlobalComm
from graphcell.parallel._utils import _get_parameter_broadcast
from graphcell.common.seed import get_seed
from graphcell.tensor import Tensor
from graphcell_ir import comm

__all__ = ["broadcast_parameters", "prepare_replicas", "ReplicaWarning"]


class ReplicaWarning(UserWarning):
    """The processes of a data-parallel job may start from different weights."""


def broadcast_parameters(parameters, root: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP):
    """Give every process of ``group`` the values of process ``root``'s ``parameters`` (every
    process calls it, with its own Parameters of the same names and shapes)."""
    g = comm.group(group)
    if g.size == 1:
        return
    for p in parameters:
        p.set_data(Tensor(g.broadcast(p.asnumpy(), root)))


def prepare_replicas(network) -> None:
    """Called when a data-parallel training step is built on ``network``: broadcast rank 0's
    weights when ``parameter_broadcast`` is set; otherwise warn when several processes run and no
    seed was set."""
    if comm.world().size == 1:
        return
    if _get_parameter_broadcast():
        broadcast_parameters(network.get_parameters())
    elif get_seed() is None:
        warnings.warn("data-parallel training on several processes without ms.set_seed(...) or "
                      "set_auto_parallel_context(parameter_broadcast=True): unless every process "
                      "loaded the same checkpoint, each starts from different random weights and "
                      "their updates will not agree", ReplicaWarning, stacklevel=4)

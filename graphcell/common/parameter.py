"""``mindspore.common.parameter``: ``Parameter`` and ``ParameterTuple`` (see ``graphcell.parameter``)."""
from graphcell.parameter import Parameter, ParameterTuple

__all__ = ["Parameter", "ParameterTuple"]

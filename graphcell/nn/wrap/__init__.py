"""``graphcell.nn.wrap``: the training wrappers — ``cell_wrapper`` (``WithLossCell``,
``TrainOneStepCell``, ``WithEvalCell``), ``loss_scale`` (``TrainOneStepWithLossScaleCell`` and
the scale's update cells) and ``grad_reducer`` (``DistributedGradReducer``), at MindSpore's import
paths."""
from graphcell.nn.wrap.cell_wrapper import (ForwardValueAndGrad, ParameterUpdate, TrainOneStepCell,
                                            WithEvalCell, WithGradCell, WithLossCell)
from graphcell.nn.wrap.grad_reducer import DistributedGradReducer
from graphcell.nn.wrap.loss_scale import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,
                                          TrainOneStepWithLossScaleCell)

__all__ = ["WithLossCell", "TrainOneStepCell", "WithEvalCell", "WithGradCell",
           "ForwardValueAndGrad", "ParameterUpdate", "DistributedGradReducer",
           "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "TrainOneStepWithLossScaleCell"]

"""``graphcell.nn.loss``: the loss cells of ``mindspore.nn`` (MindSpore 2.10's names, signatures
and defaults), on ``LossBase``.

Modules: ``base`` (``LossBase``), ``regression``, ``classification``, ``margin``.

Example::

    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> float(nn.L1Loss()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0])))
    1.0
"""
from graphcell.nn.loss.base import LossBase
from graphcell.nn.loss.classification import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss,
                                              CTCLoss, DiceLoss, FocalLoss, KLDivLoss,
                                              MultiClassDiceLoss, NLLLoss, SampledSoftmaxLoss,
                                              SoftmaxCrossEntropyWithLogits)
from graphcell.nn.loss.margin import (CosineEmbeddingLoss, HingeEmbeddingLoss, MarginRankingLoss,
                                      MultiLabelSoftMarginLoss, MultilabelMarginLoss,
                                      MultiMarginLoss, SoftMarginLoss, TripletMarginLoss,
                                      TripletMarginWithDistanceLoss)
from graphcell.nn.loss.regression import (GaussianNLLLoss, HuberLoss, L1Loss, MAELoss, MSELoss,
                                          PoissonNLLLoss, RMSELoss, SmoothL1Loss)

__all__ = ["LossBase", "L1Loss", "MSELoss", "RMSELoss", "MAELoss", "SmoothL1Loss", "HuberLoss",
           "GaussianNLLLoss", "PoissonNLLLoss", "SoftmaxCrossEntropyWithLogits",
           "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
           "FocalLoss", "DiceLoss", "MultiClassDiceLoss", "SampledSoftmaxLoss", "CTCLoss",
           "MarginRankingLoss", "SoftMarginLoss", "MultiMarginLoss", "MultiLabelSoftMarginLoss",
           "MultilabelMarginLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss",
           "TripletMarginLoss", "TripletMarginWithDistanceLoss"]

"""Golden cases of the loss cells (``graphcell.nn.loss``): ``nn.X`` built with ``init``, called
on tensors. Graph mode builds each cell outside the compiled function; tensors in ``init`` (class
weights) configure the cell and are not differentiated.

``fd=False`` where MindSpore's (and graphcell's) loss gives no gradient to an input that float64
finite differences would see (labels, class weights): the gradients are still compared with
MindSpore's.
"""
import numpy as np

from golden_cases import T, case

REFUSED: list = []


def bad(*args, **kwargs):
    """A call MindSpore refuses; these run last (MindSpore reports some refusals late)."""
    REFUSED.append(case(*args, **kwargs))


N, C = 4, 3
PROB = dict(lo=0.05, hi=0.95)


def labels32():
    return T(np.array([0, 2, 1, 2], np.int32))


def soft_labels():
    """Class probabilities (rows sum to 1: MindSpore's gradient assumes it)."""
    return T(np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0], [0.1, 0.8, 0.1], [0.25, 0.25, 0.5]],
                      np.float32))


def signs():
    return T(np.array([1.0, -1.0, -1.0, 1.0], np.float32))


CASES = [
    # --- regression ---
    case("nn.L1Loss", T((N, C)), T((N, C)), init=()),
    case("nn.L1Loss", T((N, C)), T((N, C)), init=("sum",)),
    case("nn.L1Loss", T((N, C)), T((C,)), init=dict(reduction="none")),
    case("nn.MSELoss", T((N, C)), T((N, C)), init=()),
    case("nn.MSELoss", T((N, C)), T((N, C)), init=dict(reduction="none")),
    case("nn.MSELoss", T((N, C)), T((1, C)), init=dict(reduction="sum")),
    case("nn.MSELoss", T((2, 3)), T(np.array([[1, 2, 3], [1, 1, 1]], np.int32)), init=(),
         id="int-labels"),
    case("nn.MSELoss", T((2, 3), "float64"), T((2, 3), "float64"), init=(), id="float64"),
    case("nn.RMSELoss", T((N, C)), T((N, C)), init=()),
    case("nn.MAELoss", T((N, C)), T((N, C)), init=()),
    case("nn.MAELoss", T((N, C)), T((N, C)), init=dict(reduction="sum")),
    case("nn.MAELoss", T((N, C)), T((N, C)), init=dict(reduction="none")),
    case("nn.SmoothL1Loss", T((N, C)), T((N, C)), init=()),
    case("nn.SmoothL1Loss", T((N, C)), T((N, C)), init=dict(beta=0.5, reduction="mean")),
    case("nn.SmoothL1Loss", T((N, C)), T((N, C)), init=dict(beta=2.0, reduction="sum")),
    case("nn.HuberLoss", T((N, C)), T((N, C)), init=()),
    case("nn.HuberLoss", T((N, C)), T((N, C)), init=dict(reduction="none", delta=0.5)),
    case("nn.HuberLoss", T((N, C)), T((N, C)), init=dict(reduction="sum", delta=2.0)),
    case("nn.GaussianNLLLoss", T((N, C)), T((N, C)), T((N, C), lo=0.2, hi=2.0), init=dict()),
    case("nn.GaussianNLLLoss", T((N, C)), T((N, C)), T((N, 1), lo=0.2, hi=2.0),
         init=dict(full=True, reduction="sum")),
    case("nn.GaussianNLLLoss", T((N, C)), T((N, C)), T((N, C), lo=0.2, hi=2.0),
         init=dict(eps=0.01, reduction="none")),
    case("nn.PoissonNLLLoss", T((N, C)), T((N, C), lo=0, hi=4), init=()),
    case("nn.PoissonNLLLoss", T((N, C), lo=0.1, hi=3), T((N, C), lo=0, hi=4),
         init=dict(log_input=False, reduction="sum")),
    case("nn.PoissonNLLLoss", T((N, C)), T(np.array([[0, 1, 2], [3, 4, 5], [1, 1, 0], [7, 2, 3]],
                                                     np.float32)),
         init=dict(full=True, reduction="none"), fd=False),  # Stirling's term jumps at 1
    # --- classification ---
    case("nn.SoftmaxCrossEntropyWithLogits", T((N, C)), soft_labels(), init=(), fd=False),
    case("nn.SoftmaxCrossEntropyWithLogits", T((N, C)), soft_labels(),
         init=dict(reduction="mean"), fd=False),
    case("nn.SoftmaxCrossEntropyWithLogits", T((N, C)), labels32(),
         init=dict(sparse=True)),
    case("nn.SoftmaxCrossEntropyWithLogits", T((N, C)), labels32(),
         init=dict(sparse=True, reduction="mean")),
    case("nn.SoftmaxCrossEntropyWithLogits", T((N, C)), T(np.array([0, 2, 1, 2], np.int64)),
         init=dict(sparse=True, reduction="sum")),
    case("nn.CrossEntropyLoss", T((N, C)), labels32(), init=()),
    case("nn.CrossEntropyLoss", T((N, C)), labels32(), init=dict(reduction="sum")),
    case("nn.CrossEntropyLoss", T((N, C)), labels32(), init=dict(reduction="none",
                                                                 label_smoothing=0.1)),
    case("nn.CrossEntropyLoss", T((N, C)), T(np.array([0, -100, 1, 2], np.int32)),
         init=dict(ignore_index=-100), id="ignore-index"),
    case("nn.CrossEntropyLoss", T((N, C)), T(np.array([0, 1, 1, 2], np.int32)),
         init=dict(ignore_index=1, label_smoothing=0.2), id="ignore-index-smoothing"),
    case("nn.CrossEntropyLoss", T((N, C)), labels32(),
         init=dict(weight=T(np.array([0.2, 1.0, 2.0], np.float32))), id="weight"),
    case("nn.CrossEntropyLoss", T((N, C)), labels32(),
         init=dict(weight=T(np.array([0.2, 1.0, 2.0], np.float32)), label_smoothing=0.3),
         id="weight-smoothing"),
    case("nn.CrossEntropyLoss", T((N, C)), T((N, C), lo=0, hi=1), init=(), fd=False,
         id="probabilities"),
    case("nn.CrossEntropyLoss", T((N, C)), T((N, C), lo=0, hi=1),
         init=dict(label_smoothing=0.2, reduction="sum"), fd=False, id="probabilities-smoothing"),
    case("nn.CrossEntropyLoss", T((2, C, 2)), T(np.array([[0, 2], [1, 1]], np.int32)), init=(),
         id="spatial"),
    case("nn.NLLLoss", T((N, C), lo=-3, hi=0), labels32(), init=()),
    case("nn.NLLLoss", T((N, C), lo=-3, hi=0), labels32(),
         init=dict(weight=T(np.array([0.5, 1.0, 3.0], np.float32)), reduction="sum"), id="weight"),
    case("nn.NLLLoss", T((N, C), lo=-3, hi=0), T(np.array([0, 1, 1, 2], np.int32)),
         init=dict(ignore_index=1, reduction="none"), id="ignore-index"),
    case("nn.BCELoss", T((N, C), **PROB), T((N, C), lo=0, hi=1), init=(), fd=False),
    case("nn.BCELoss", T((N, C), **PROB), T((N, C), lo=0, hi=1),
         init=dict(weight=T((N, C), lo=0, hi=2), reduction="sum"), fd=False, id="weight"),
    case("nn.BCELoss", T((N, C), **PROB), T((N, C), lo=0, hi=1), init=dict(reduction="none"),
         fd=False),
    case("nn.BCEWithLogitsLoss", T((N, C)), T((N, C), lo=0, hi=1), init=(), fd=False),
    case("nn.BCEWithLogitsLoss", T((N, C)), T((N, C), lo=0, hi=1),
         init=dict(reduction="none", weight=T((C,), lo=0, hi=2),
                   pos_weight=T((C,), lo=0.5, hi=3)), fd=False, id="weights"),
    case("nn.KLDivLoss", T((N, C), lo=-3, hi=0), T((N, C), lo=0, hi=1), init=(), fd=False),
    case("nn.KLDivLoss", T((N, C), lo=-3, hi=0), T((N, C), lo=0, hi=1),
         init=dict(reduction="batchmean"), fd=False),
    case("nn.KLDivLoss", T((N, C), lo=-3, hi=0), T((N, C), lo=0, hi=1),
         init=dict(reduction="none"), fd=False),
    case("nn.FocalLoss", T((N, C)), T(np.array([[0], [2], [1], [2]], np.int32)), init=()),
    case("nn.FocalLoss", T((N, C)), T(np.eye(C, dtype=np.float32)[[0, 2, 1, 2]]),
         init=dict(gamma=1.5, reduction="sum"), fd=False, id="one-hot"),
    case("nn.FocalLoss", T((2, C, 2)), T(np.array([[[0, 2]], [[1, 1]]], np.int32)),
         init=dict(weight=T(np.array([0.5, 1.0, 2.0], np.float32)), reduction="none"),
         id="spatial-weight"),
    case("nn.DiceLoss", T((N, C), lo=0, hi=1), T((N, C), lo=0, hi=1), init=(), fd=False),
    case("nn.DiceLoss", T((N, C), lo=0, hi=1), T((N, C), lo=0, hi=1), init=dict(smooth=0.5),
         fd=False),
    case("nn.MultiClassDiceLoss", T((N, C)), T(np.eye(C, dtype=np.float32)[[0, 2, 1, 2]]),
         init=(), fd=False),
    case("nn.MultiClassDiceLoss", T((N, C)), T(np.eye(C, dtype=np.float32)[[0, 2, 1, 2]]),
         init=dict(weights=T((C, 1), lo=0, hi=1), ignore_indiex=1, activation="sigmoid"),
         fd=False, id="weights-ignore"),
    case("nn.SampledSoftmaxLoss", T((5, 3)), T((5,)), T(np.array([[1], [4]], np.int32)),
         T((2, 3)),
         init=dict(num_sampled=2, num_classes=5, remove_accidental_hits=False,
                   sampled_values=(T(np.array([0, 3], np.int32)),
                                   T(np.array([[0.4], [0.4]], np.float32)),
                                   T(np.array([0.4, 0.4], np.float32))))),
    case("nn.SampledSoftmaxLoss", T((6, 3)), T((6,)), T(np.array([[1, 2], [4, 0]], np.int32)),
         T((2, 3)),
         init=dict(num_sampled=3, num_classes=6, num_true=2, reduction="mean",
                   remove_accidental_hits=False,
                   sampled_values=(T(np.array([0, 3, 5], np.int32)),
                                   T(np.full((2, 2), 0.5, np.float32)),
                                   T(np.array([0.5, 0.5, 0.5], np.float32))))),
    case("nn.CTCLoss", T((5, 2, 4), lo=-3, hi=-0.5), T(np.array([[1, 2], [3, 3]], np.int32)),
         T(np.array([5, 4], np.int32)), T(np.array([2, 1], np.int32)), init=(), fd=False),
    case("nn.CTCLoss", T((5, 2, 4), lo=-3, hi=-0.5), T(np.array([[1, 2], [3, 3]], np.int32)),
         T(np.array([5, 4], np.int32)), T(np.array([2, 1], np.int32)),
         init=dict(reduction="none", blank=0), fd=False),
    # --- margins and embeddings (SoftMarginLoss, MultilabelMarginLoss and TripletMarginLoss: no
    # CPU kernel in MindSpore 2.10; tests/graphcell/nn/test_nn_loss.py checks them) ---
    case("nn.MarginRankingLoss", T((N,)), T((N,)), signs(), init=()),
    case("nn.MarginRankingLoss", T((N,)), T((N,)), signs(), init=dict(margin=0.3,
                                                                      reduction="none")),
    case("nn.MultiMarginLoss", T((N, C)), T(np.array([0, 2, 1, 2], np.int64)), init=()),
    case("nn.MultiMarginLoss", T((N, C)), T(np.array([0, 2, 1, 2], np.int64)),
         init=dict(p=2, margin=0.5, reduction="sum",
                   weight=T(np.array([0.5, 1.0, 2.0], np.float32))), fd=False, id="weight"),
    case("nn.MultiLabelSoftMarginLoss", T((N, C)), T((N, C), "int32", lo=0, hi=2), init=()),
    case("nn.MultiLabelSoftMarginLoss", T((N, C)), T((N, C), "int32", lo=0, hi=2),
         init=dict(weight=T(np.array([0.5, 1.0, 2.0], np.float32)), reduction="none"),
         id="weight"),
    case("nn.CosineEmbeddingLoss", T((N, C)), T((N, C)), T(np.array([1, -1, -1, 1], np.int32)),
         init=()),
    case("nn.CosineEmbeddingLoss", T((N, C)), T((N, C)), T(np.array([1, -1, -1, 1], np.int32)),
         init=dict(margin=0.2, reduction="none")),
    case("nn.HingeEmbeddingLoss", T((N, C)), T(np.sign(np.arange(12).reshape(N, C) % 3 - 0.5)
                                               .astype(np.float32)), init=(), fd=False),
    case("nn.HingeEmbeddingLoss", T((N, C)), T(np.sign(np.arange(12).reshape(N, C) % 3 - 0.5)
                                               .astype(np.float32)),
         init=dict(margin=0.5, reduction="none"), fd=False),
    case("nn.TripletMarginWithDistanceLoss", T((N, C)), T((N, C)), T((N, C)), init=()),
    case("nn.TripletMarginWithDistanceLoss", T((N, C)), T((N, C)), T((N, C)),
         init=dict(swap=True, reduction="none", margin=0.5)),
]

# --- calls MindSpore refuses --------------------------------------------------------------------
bad("nn.CrossEntropyLoss", T((N, C)), T(np.array([0, 2, 1, 2], np.int64)), init=(),
    id="int64-indices")
bad("nn.CrossEntropyLoss", T((N, C)), T((N, 2)), init=(), id="probabilities-shape")
bad("nn.CrossEntropyLoss", T((N, C)), labels32(), init=dict(label_smoothing=1), id="int-smoothing")
bad("nn.RMSELoss", T((N, C), "uint8", lo=0, hi=5), T((N, C), "uint8", lo=0, hi=5), init=(),
    id="unsigned")
bad("nn.FocalLoss", T((N, C)), T((N, 2), "int32", lo=0, hi=2), init=(), id="label-channels")
bad("nn.FocalLoss", T((N, C)), labels32(), init=dict(gamma=2), id="int-gamma")
bad("nn.DiceLoss", T((N, C)), T((N, 2)), init=(), id="shape")
bad("nn.CosineEmbeddingLoss", T((N, C)), T((N, C)), T((N,), "int32", lo=-1, hi=2),
    init=dict(margin=1.5), id="margin")
bad("nn.MSELoss", T((N, C)), T((N, C)), init=dict(reduction="avg"), id="reduction")
bad("nn.SampledSoftmaxLoss", T((5, 3)), T((5,)), T(np.array([[1], [4]], np.int32)), T((2, 3)),
    init=dict(num_sampled=6, num_classes=5), id="too-many-samples")
CASES += REFUSED

# --- ClipByNorm (a layer of the training utilities) ----------------------------------------------
# axis=None only: with an axis, MindSpore 2.10's CPU kernel pairs slices with the wrong norms
# (tests/graphcell/nn/test_nn_loss_scale.py checks graphcell's against the formula)
CASES += [
    case("nn.ClipByNorm", T((2, 3)), T(np.array(1.0, np.float32)), init=()),
    case("nn.ClipByNorm", T((2, 3)), T(np.array([10.0], np.float32)), init=dict(axis=None),
         id="no-clip"),
    case("nn.ClipByNorm", T((2, 3), "float16"), T(np.array(1.0, np.float32)), init=(),
         id="float16", grad=False),
    # MindSpore's gradient at a zero tensor is NaN; graphcell's is the identity's (its norm is
    # below clip_norm): checked by finite differences
    case("nn.ClipByNorm", T(np.zeros((2, 2), np.float32)), T(np.array(1.0, np.float32)),
         init=(), id="zeros", ms_grad=False),
]

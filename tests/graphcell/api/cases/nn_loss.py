"""Golden cases of the nn family's losses (``graphcell.ops.function.loss_func``)."""
import numpy as np

from golden_cases import T, case

REFUSED: list = []


def bad(*args, **kwargs):
    """A call MindSpore refuses; these run last (MindSpore reports a refused call's error late,
    at the next synchronisation, which could fail the next valid case)."""
    REFUSED.append(case(*args, **kwargs))


N, C = 4, 3
PROB = dict(lo=0.05, hi=0.95)


def LABELS():  # noqa: N802 - a fresh T per case (a T numbers itself in its case)
    return T(np.array([0, 2, 1, 2], np.int32))


def LABELS64():  # noqa: N802 - a fresh T per case (a T numbers itself in its case)
    return T(np.array([0, 2, 1, 2], np.int64))


def IGNORED():  # noqa: N802 - a fresh T per case (a T numbers itself in its case)
    return T(np.array([0, -100, 1, 2], np.int32))


def SIGNS():  # noqa: N802 - a fresh T per case (a T numbers itself in its case)
    return T(np.array([1.0, -1.0, -1.0, 1.0], np.float32))


# fd=False: MindSpore's loss Primitives (and binary_cross_entropy[_with_logits], kl_div) give no
# gradient to class weights and labels, and graphcell matches that, so float64 finite differences
# (which see every float input) disagree by design there; the gradients are compared with
# MindSpore's.
CASES = [
    # binary cross-entropy on probabilities
    case("ops.binary_cross_entropy", T((N, C), **PROB), T((N, C), lo=0, hi=1)),
    case("ops.binary_cross_entropy", T((N, C), **PROB), T((N, C), lo=0, hi=1), T((N, C), lo=0, hi=2),
         reduction="sum", fd=False),
    case("ops.binary_cross_entropy", T((N,), **PROB), T((N,), lo=0, hi=1), reduction="none"),
    case("ops.binary_cross_entropy", T(np.array([0.0, 1.0, 0.5], np.float32)),
         T(np.array([1.0, 0.0, 1.0], np.float32)), reduction="none", grad=False),
    case("ops.BinaryCrossEntropy", T((N, C), **PROB), T((N, C), lo=0, hi=1), init=()),
    case("ops.BinaryCrossEntropy", T((N, C), **PROB), T((N, C), lo=0, hi=1), T((N, C), lo=0, hi=2),
         init=("none",), fd=False),
    # binary cross-entropy on logits
    case("ops.binary_cross_entropy_with_logits", T((N, C)), T((N, C), lo=0, hi=1)),
    case("ops.binary_cross_entropy_with_logits", T((N, C), lo=-8, hi=8), T((N, C), lo=0, hi=1),
         T((C,), lo=0, hi=2), T((C,), lo=0.5, hi=3), reduction="none", fd=False),
    case("ops.binary_cross_entropy_with_logits", T((N, C)), T((N, C), lo=0, hi=1),
         weight=T((N, 1), lo=0, hi=2), reduction="sum", fd=False),
    case("ops.BCEWithLogitsLoss", T((N, C)), T((N, C), lo=0, hi=1), T((C,), lo=0, hi=2),
         T((C,), lo=0.5, hi=3), init=(), fd=False),
    case("ops.BCEWithLogitsLoss", T((2, 2, 3)), T((2, 2, 3), lo=0, hi=1), T((3,), lo=0, hi=2),
         T((3,), lo=0.5, hi=3), init=dict(reduction="none"), fd=False),
    case("ops.SigmoidCrossEntropyWithLogits", T((N, C)), T((N, C), lo=0, hi=1), init=(), fd=False),
    # KL divergence
    case("ops.kl_div", T((N, C)), T((N, C), lo=0, hi=1), fd=False),
    case("ops.kl_div", T((N, C)), T((N, C), lo=0, hi=1), reduction="batchmean", fd=False),
    case("ops.kl_div", T((N, C)), T((N, C), lo=0, hi=1), "sum", fd=False),
    case("ops.kl_div", T((N,)), T(np.array([0.0, 0.5, 0.25, 1.0], np.float32)), reduction="none",
         fd=False),
    case("ops.KLDivLoss", T((N, C)), T((N, C), lo=0, hi=1), init=(), fd=False),
    case("ops.KLDivLoss", T((N, C)), T((N, C), lo=0, hi=1), init=("batchmean",), fd=False),
    case("ops.KLDivLoss", T((N, C)), T((N, C), lo=0, hi=1), init=dict(reduction="none"), fd=False),
    # class labels
    case("ops.cross_entropy", T((N, C)), LABELS()),
    case("ops.cross_entropy", T((N, C)), LABELS(), T((C,), lo=0.5, hi=2), reduction="sum"),
    case("ops.cross_entropy", T((N, C)), IGNORED(), reduction="none"),
    case("ops.cross_entropy", T((N, C)), IGNORED()),
    case("ops.cross_entropy", T((N, C)), LABELS(), label_smoothing=0.2),
    case("ops.cross_entropy", T((N, C)), T((N, C), lo=0, hi=1)),
    case("ops.cross_entropy", T((N, C)), T((N, C), lo=0, hi=1), reduction="none", label_smoothing=0.1),
    case("ops.cross_entropy", T((2, C, 2)), T(np.array([[0, 1], [2, 0]], np.int32))),
    case("ops.nll_loss", T((N, C), lo=-3, hi=0), LABELS()),
    case("ops.nll_loss", T((N, C), lo=-3, hi=0), IGNORED(), T((C,), lo=0.5, hi=2)),
    case("ops.nll_loss", T((N, C), lo=-3, hi=0), LABELS(), reduction="none"),
    case("ops.nll_loss", T((N, C), lo=-3, hi=0), LABELS(), ignore_index=2, reduction="sum"),
    case("ops.nll_loss", T((N, C), lo=-3, hi=0), LABELS(), label_smoothing=0.1),
    case("ops.nll_loss", T((2, C, 2, 2), lo=-3, hi=0), T((2, 2, 2), "int32", 0, C)),
    case("ops.NLLLoss", T((N, C)), LABELS(), T((C,), lo=0.5, hi=2), init=(), fd=False),
    case("ops.NLLLoss", T((N, C)), LABELS64(), T((C,), lo=0.5, hi=2), init=dict(reduction="none"),
         fd=False),
    case("ops.NLLLoss", T((N, C)), IGNORED(), T((C,), lo=0.5, hi=2), init=("sum", -100), fd=False),
    case("ops.NLLLoss", T((N, C)), LABELS(), T((C,), lo=0.5, hi=2), init=dict(ignore_index=1),
         fd=False),
    case("ops.multi_margin_loss", T((N, C)), LABELS64()),
    case("ops.multi_margin_loss", T((N, C)), LABELS64(), p=2, margin=2, weight=T((C,), lo=0.5, hi=2),
         reduction="none", fd=False),
    case("ops.MultiMarginLoss", T((N, C)), LABELS64(), init=()),
    case("ops.MultiMarginLoss", T((N, C)), LABELS64(), T((C,), lo=0.5, hi=2), init=(2, 0.5, "sum"),
         fd=False),
    # regression
    case("ops.mse_loss", T((N, C)), T((N, C))),
    case("ops.mse_loss", T((N, C)), T((C,)), reduction="none"),
    case("ops.mse_loss", T((N, C)), T((N, 1)), reduction="sum"),
    case("ops.l1_loss", T((N, C)), T((N, C))),
    case("ops.l1_loss", T((N, C)), T((N, C)), reduction="none"),
    case("ops.smooth_l1_loss", T((N, C)), T((N, C))),
    case("ops.smooth_l1_loss", T((N, C)), T((N, C)), beta=0.5, reduction="mean"),
    case("ops.SmoothL1Loss", T((N, C)), T((N, C)), init=()),
    case("ops.SmoothL1Loss", T((N, C)), T((N, C)), init=(2.0, "sum")),
    case("ops.huber_loss", T((N, C)), T((N, C))),
    case("ops.huber_loss", T((N, C)), T((N, C)), reduction="none", delta=0.5),
    case("ops.gaussian_nll_loss", T((N, C)), T((N, C)), T((N, C), lo=0.1, hi=2)),
    case("ops.gaussian_nll_loss", T((N, C)), T((N, C)), T((N, C), lo=0.1, hi=2), full=True,
         reduction="sum"),
    case("ops.gaussian_nll_loss", T((N, C)), T((N, C)), T((N, 1), lo=0.1, hi=2), reduction="none"),
    case("ops.L2Loss", T((N, C)), init=()),
    case("ops.L2Loss", T((5,), "float64"), init=()),
    # margins (soft_margin_loss, triplet_margin_loss and multilabel_margin_loss have no CPU kernel
    # in MindSpore 2.10: test_nn_functions.py checks them against their formulas)
    case("ops.multilabel_soft_margin_loss", T((N, C)), T((N, C), "int32", 0, 2)),
    case("ops.multilabel_soft_margin_loss", T((N, C)), T((N, C), lo=0, hi=1),
         T((C,), lo=0.5, hi=2), reduction="none"),
    case("ops.margin_ranking_loss", T((N,)), T((N,)), SIGNS()),
    case("ops.margin_ranking_loss", T((N,)), T((N,)), SIGNS(), margin=0.5, reduction="none"),
    case("ops.hinge_embedding_loss", T((N, C)), T(np.array([[1, -1, 1]] * N, np.float32))),
    case("ops.hinge_embedding_loss", T((N, C)), T(np.array([[1, -1, -1]] * N, np.float32)),
         margin=0.5, reduction="none"),
    case("ops.cosine_embedding_loss", T((N, C)), T((N, C)), T(np.array([1, -1, -1, 1], np.int32))),
    case("ops.cosine_embedding_loss", T((N, C)), T((N, C)), SIGNS(), margin=0.2, reduction="none"),
]


# --- CTC ---------------------------------------------------------------------------------------------


def SPARSE_LABELS():  # noqa: N802 - batch 0: [0, 1], batch 1: [1]
    return (T(np.array([[0, 0], [0, 1], [1, 0]], np.int64)), T(np.array([0, 1, 1], np.int32)))


def TARGETS():  # noqa: N802
    return T(np.array([[1, 2], [3, 3]], np.int32))


DECODED = "the decoded sequences' sizes depend on the data: PyNative only (graph mode refuses)"
# log_alpha carries no gradient in MindSpore; the loss's gradient is compared with MindSpore's, and
# the log-probabilities need not be normalised for the recursion, so finite differences apply
CASES += [
    case("ops.ctc_loss", T((5, 2, 4), lo=-3, hi=0), TARGETS(), T(np.array([5, 4], np.int32)),
         T(np.array([2, 2], np.int32)), fd=False),
    case("ops.ctc_loss", T((6, 2, 4), lo=-3, hi=0), T(np.array([[1, 2], [0, 0]], np.int32)),
         (6, 5), (2, 1), blank=3, reduction="none", fd=False),
    case("ops.ctc_loss", T((4, 2, 5), lo=-3, hi=0), T(np.array([[1, 2, 3], [4, 2, 4]], np.int32)),
         T(np.array([4, 4], np.int64)), T(np.array([3, 3], np.int64)), reduction="sum", fd=False),
    case("ops.CTCLossV2", T((5, 2, 4), lo=-3, hi=0), TARGETS(), T(np.array([5, 4], np.int32)),
         T(np.array([2, 2], np.int32)), init=(), fd=False),
    case("ops.CTCLossV2", T((5, 2, 4), lo=-3, hi=0), T(np.array([[1, 3], [3, 0]], np.int32)),
         T(np.array([5, 3], np.int32)), T(np.array([2, 1], np.int32)), init=dict(blank=2),
         fd=False),
    # (frames past a sequence's length hold uninitialised memory in MindSpore's gradient output,
    # so these cases use whole sequences)
    case("ops.CTCLoss", T((4, 2, 3)), *SPARSE_LABELS(), T(np.array([4, 4], np.int32)), init=(),
         fd=False),
    case("ops.CTCLoss", T((6, 2, 4)), T(np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], np.int64)),
         T(np.array([1, 1, 2, 0, 2], np.int32)), T(np.array([6, 6], np.int32)),
         init=dict(preprocess_collapse_repeated=True), fd=False),
    case("ops.CTCLoss", T((6, 2, 4)), T(np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], np.int64)),
         T(np.array([1, 1, 2, 0, 2], np.int32)), T(np.array([6, 6], np.int32)),
         init=dict(ctc_merge_repeated=False), fd=False),
    case("ops.CTCGreedyDecoder", T((4, 2, 3)), T(np.array([4, 3], np.int32)), init=(),
         modes=("pynative",), why=DECODED),
    case("ops.CTCGreedyDecoder", T((5, 2, 4)), T(np.array([5, 2], np.int32)),
         init=dict(merge_repeated=False), modes=("pynative",), why=DECODED),
    case("ops.ctc_greedy_decoder", T((4, 3, 3)), T(np.array([4, 3, 1], np.int32)),
         modes=("pynative",), why=DECODED),
    case("ops.EditDistance", T(np.array([[0, 0, 0], [1, 0, 1], [1, 1, 1]], np.int64)),
         T(np.array([1, 2, 3], np.float32)), T(np.array([2, 2, 2], np.int64)),
         T(np.array([[0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1]], np.int64)),
         T(np.array([1, 3, 2, 1], np.float32)), T(np.array([2, 2, 2], np.int64)), init=(),
         grad=False, modes=("pynative",), why=DECODED.replace("decoded sequences'", "output's")),
    case("ops.EditDistance", T(np.array([[0, 0], [0, 1], [1, 0]], np.int64)),
         T(np.array([4, 5, 4], np.int32)), T(np.array([3, 3], np.int64)),
         T(np.array([[0, 0], [2, 0], [2, 1]], np.int64)), T(np.array([4, 1, 2], np.int32)),
         T(np.array([3, 2], np.int64)), init=(False,), modes=("pynative",),
         why=DECODED.replace("decoded sequences'", "output's")),
]

bad("ops.binary_cross_entropy", T((N, C), **PROB), T((N, C), lo=0, hi=1), reduction="avg",
    id="bad_reduction")
bad("ops.binary_cross_entropy", T((N, C), **PROB), T((N, 2), lo=0, hi=1), id="shape_mismatch")
bad("ops.binary_cross_entropy_with_logits", T((N, C)), T((N, C), "int32", 0, 2), id="int_target")
bad("ops.kl_div", T((N, C)), T((N, C)), reduction="avg", id="bad_reduction")
bad("ops.cross_entropy", T((N, C)), LABELS(), reduction="avg", id="bad_reduction")
bad("ops.mse_loss", T((N, C)), T((2, 2)), id="no_broadcast")
bad("ops.multi_margin_loss", T((N, C)), LABELS64(), p=3, id="p3")
bad("ops.smooth_l1_loss", T((N, C)), T((N, C)), beta=0.0, id="beta_zero")
bad("ops.ctc_loss", T((5, 2, 4), lo=-3, hi=0), TARGETS(), T(np.array([5, 4], np.int32)),
    T(np.array([2, 2], np.int32)), blank=4, id="blank_out_of_range")

CASES += REFUSED

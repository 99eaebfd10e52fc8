"""MindSpore's CTC functions: ``ctc_loss``, ``CTCLoss``, ``CTCLossV2`` and the greedy decoders.

The loss is the forward algorithm of Graves et al. over the extended label sequence (a blank
before, between and after the labels), in log space, one step per time frame: every shape is
static (frames T, batch N, classes C, target capacity S), the per-sample lengths are tensors and
enter as masks, so graph mode compiles it and its gradient is the autodiff of the recursion.
``CTCLoss`` also returns the gradient with respect to the logits, ``softmax - occupancy``, which
needs the backward recursion as well (warp-ctc's formula).

Unreachable states hold a large negative number (-1e30) rather than -inf during the recursion,
so no ``inf - inf`` appears; they are reported as -inf, and an impossible alignment as an
infinite loss.

The greedy decoders return sparse results whose sizes depend on the data: PyNative only.
"""
from __future__ import annotations

import math

import numpy as np

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.primitive import primitive
from graphcell.tensor import Tensor
from graphcell_ir.ir.core import Value
from graphcell_ir.ir.types import float32, int64
from graphcell_ir.ops import functional as F

__all__ = ["ctc_loss", "ctc_greedy_decoder", "CTCLoss", "CTCLossV2", "CTCGreedyDecoder",
           "EditDistance"]

_NEG = -1e30          # "log 0" during the recursion
_UNREACHABLE = -1e29  # anything below is reported as -inf


# --- the recursion -------------------------------------------------------------------------------

class _Lattice:
    """The extended labels of a batch and the transitions the recursion may take."""

    def __init__(self, targets, blank: int, merge_repeated: bool):
        n, s = targets.shape
        self.n, self.width = n, 2 * s + 1
        blanks = F.fill(dtype=targets.dtype, shape=(n, s, 1), value=blank)
        pairs = F.concat(blanks, F.expand_dims(targets, axis=2), axis=2)     # (N, S, 2)
        ext = F.concat(F.reshape(pairs, (n, 2 * s)),
                       F.fill(dtype=targets.dtype, shape=(n, 1), value=blank), axis=1)
        self.ext = ext                                                        # (N, 2S + 1)
        is_blank = F.equal(ext, blank)
        before2 = F.concat(F.fill(dtype=ext.dtype, shape=(n, 2), value=-1),
                           F.getitem(ext, key=(slice(None), slice(0, self.width - 2))), axis=1)
        repeat = F.equal(ext, before2)
        if merge_repeated:
            self.skip = F.logical_and(F.logical_not(is_blank), F.logical_not(repeat))
            self.stay = None                                                  # always allowed
        else:  # TensorFlow's ctc_merge_repeated=False: a label cannot repeat itself
            self.skip = F.logical_not(is_blank)
            self.stay = is_blank


def _shift(x, k: int):
    """``x`` moved ``k`` places along its last axis (k > 0: right), filled with ``_NEG``."""
    n, width = x.shape
    pad = F.fill(dtype=x.dtype, shape=(n, abs(k)), value=_NEG)
    if k > 0:
        return F.concat(pad, F.getitem(x, key=(slice(None), slice(0, width - k))), axis=1)
    return F.concat(F.getitem(x, key=(slice(None), slice(-k, width))), pad, axis=1)


def _log_sum_exp3(a, b, c):
    m = F.maximum(F.maximum(a, b), c)
    total = F.add(F.add(F.exp(F.sub(a, m)), F.exp(F.sub(b, m))), F.exp(F.sub(c, m)))
    return F.add(m, F.log(total))


def _log_sum_exp2(a, b):
    m = F.maximum(a, b)
    return F.add(m, F.log(F.add(F.exp(F.sub(a, m)), F.exp(F.sub(b, m)))))


def _emissions(log_probs, lattice: _Lattice):
    """(N, T, 2S + 1): the log-probability of each extended label at each frame."""
    classes = log_probs.shape[2]
    hot = F.one_hot(lattice.ext, depth=classes, axis=-1, dtype=log_probs.dtype)   # (N, L, C)
    lp = F.transpose(F.maximum(log_probs, _NEG), perm=(1, 0, 2))                   # (N, T, C)
    return F.matmul(lp, F.transpose(hot, perm=(0, 2, 1)))                           # (N, T, L)


def _frame(x, t: int):
    return F.getitem(x, key=(slice(None), t))


def _forward(emit, lattice: _Lattice, input_lengths, label_lengths):
    """Log-alphas per frame (list of (N, L)) and the last active frame's alphas; the states past
    a sample's labels (s > 2 len) stay unreachable."""
    n, frames, width = emit.shape
    positions = U.constant(np.arange(width).reshape(1, -1), label_lengths.dtype)
    states = F.less_equal(positions, F.mul(F.reshape(label_lengths, (-1, 1)), 2))
    emit = F.select(F.expand_dims(states, axis=1), emit, F.fill(dtype=emit.dtype,
                                                                shape=tuple(emit.shape),
                                                                value=_NEG))
    start = U.constant([[True, True] + [False] * (width - 2)], "bool")
    alpha = F.select(start, _frame(emit, 0), F.fill(dtype=emit.dtype, shape=(n, width), value=_NEG))
    lengths = F.reshape(input_lengths, (n, 1))
    history = [F.select(F.greater(lengths, 0), alpha, F.fill(dtype=emit.dtype,
                                                             shape=(n, width), value=_NEG))]
    for t in range(1, frames):
        stay = alpha if lattice.stay is None else F.select(lattice.stay, alpha, _neg_like(alpha))
        jump = F.select(lattice.skip, _shift(alpha, 2), _neg_like(alpha))
        new = F.add(_log_sum_exp3(stay, _shift(alpha, 1), jump), _frame(emit, t))
        active = F.greater(lengths, t)
        alpha = F.select(active, new, alpha)
        history.append(F.select(active, new, _neg_like(new)))
    return history, alpha


def _backward(emit, lattice: _Lattice, input_lengths, label_lengths):
    """Log-betas per frame (each includes its frame's emission), as a list of (N, L)."""
    n, frames, width = emit.shape
    lengths = F.reshape(input_lengths, (n, 1))
    ends = _end_mask(lattice, label_lengths)
    skip_from = _shift(F.cast(lattice.skip, dtype=emit.dtype), -2)  # may s -> s + 2
    beta = _neg_like(_frame(emit, 0))
    out = [None] * frames
    for t in range(frames - 1, -1, -1):
        stay = beta if lattice.stay is None else F.select(lattice.stay, beta, _neg_like(beta))
        jump = F.select(F.greater(skip_from, 0.5), _shift(beta, -2), _neg_like(beta))
        recur = F.add(_log_sum_exp3(stay, _shift(beta, -1), jump), _frame(emit, t))
        last = F.select(ends, _frame(emit, t), _neg_like(recur))
        beta = F.select(F.equal(lengths, t + 1), last,
                        F.select(F.greater(lengths, t + 1), recur, _neg_like(recur)))
        out[t] = beta
    return out


def _neg_like(x):
    return F.fill(dtype=x.dtype, shape=tuple(x.shape), value=_NEG)


def _end_mask(lattice: _Lattice, label_lengths):
    """The final states: the last label and the blank after it (2 len - 1 and 2 len)."""
    positions = U.constant(np.arange(lattice.width).reshape(1, -1), label_lengths.dtype)
    last = F.mul(F.reshape(label_lengths, (-1, 1)), 2)
    return F.logical_or(F.equal(positions, last), F.equal(positions, F.sub(last, 1)))


def _nll(alpha_end, lattice: _Lattice, label_lengths):
    """-log p(labels | inputs) from the last alphas: (N,)."""
    ends = _end_mask(lattice, label_lengths)
    picked = F.select(ends, alpha_end, _neg_like(alpha_end))
    m = F.reduce_max(picked, axis=(1,), keep_dims=True)
    total = F.reduce_sum(F.exp(F.sub(picked, m)), axis=(1,), keep_dims=False)
    log_p = F.add(F.reshape(m, (-1,)), F.log(total))
    nll = F.neg(log_p)
    impossible = F.less(log_p, _UNREACHABLE)
    return F.select(impossible, F.fill(dtype=nll.dtype, shape=tuple(nll.shape), value=math.inf),
                    nll), impossible


def _as_log_alpha(history):
    """(N, T, L) with -inf for unreachable states (MindSpore's log_alpha output)."""
    stacked = F.concat(*[F.expand_dims(a, axis=1) for a in history], axis=1)
    inf = F.fill(dtype=stacked.dtype, shape=tuple(stacked.shape), value=-math.inf)
    return F.stop_gradient(F.select(F.less(stacked, _UNREACHABLE), inf, stacked))


# --- arguments -----------------------------------------------------------------------------------

def _lengths(name: str, value, n: int, what: str):
    """A (N,) length tensor from a Tensor or a tuple."""
    if isinstance(value, (tuple, list)):
        value = U.constant(np.asarray(value, np.int64), int64)
    U.int_tensor(name, value, what)
    if tuple(value.shape) != (n,):
        raise ValueError(f"{name}: '{what}' must have shape [{n}], got {list(value.shape)}")
    return value


def _check_v2(name, log_probs, targets, blank):
    U.float_tensor(name, log_probs, "log_probs")
    U.int_tensor(name, targets, "targets")
    if log_probs.ndim != 3 or targets.ndim != 2 or targets.shape[0] != log_probs.shape[1]:
        raise ValueError(f"{name}: 'log_probs' must be (T, N, C) and 'targets' (N, S), got "
                         f"{list(log_probs.shape)} and {list(targets.shape)}")
    blank = U.int_arg(name, blank, "blank")
    if not 0 <= blank < log_probs.shape[2]:
        raise ValueError(f"{name}: 'blank' must be in [0, {log_probs.shape[2]}), got {blank}")
    return blank


def _ctc_v2(name, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    blank = _check_v2(name, log_probs, targets, blank)
    n = log_probs.shape[1]
    in_len = _lengths(name, input_lengths, n, "input_lengths")
    tgt_len = _lengths(name, target_lengths, n, "target_lengths")
    lattice = _Lattice(targets, blank, True)
    emit = _emissions(log_probs, lattice)
    history, alpha_end = _forward(emit, lattice, in_len, tgt_len)
    nll, impossible = _nll(alpha_end, lattice, tgt_len)
    nll = F.add(nll, _softmax_term(log_probs, in_len))
    if zero_infinity:
        nll = F.select(impossible, F.zeros_like(nll), nll)
    return nll, _as_log_alpha(history)


def _softmax_term(log_probs, input_lengths):
    """0, whose gradient is ``exp(log_probs)`` on each sample's frames: MindSpore's (and
    PyTorch's) CTC gradient assumes ``log_probs`` come from a log-softmax and returns
    ``exp(log_probs) - occupancy``, which is the true gradient once that log-softmax's own
    gradient is applied. ``s - stop_gradient(s)`` adds that term to the gradient and nothing to the
    value."""
    frames, n = log_probs.shape[:2]
    steps = U.constant(np.arange(frames).reshape(-1, 1, 1), input_lengths.dtype)
    active = F.cast(F.less(steps, F.reshape(input_lengths, (1, -1, 1))), dtype=log_probs.dtype)
    s = F.reduce_sum(F.mul(F.exp(log_probs), active), axis=(0, 2), keep_dims=False)   # (N,)
    return F.sub(s, F.stop_gradient(s))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """``ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
    reduction='mean', zero_infinity=False)``: ``(neg_log_likelihood, log_alpha)`` for
    log-probabilities (T, N, C) and padded targets (N, S); ``'mean'`` averages
    ``nll / target_length`` over the batch, as MindSpore (and PyTorch) do."""
    name = "ops.ctc_loss"
    reduction = U.reduction_arg(name, reduction)
    nll, log_alpha = _ctc_v2(name, log_probs, targets, input_lengths, target_lengths, blank,
                             bool(zero_infinity))
    if reduction == "mean":
        n = log_probs.shape[1]
        tgt = _lengths(name, target_lengths, n, "target_lengths")
        per = F.div(nll, F.cast(F.maximum(tgt, 1), dtype=nll.dtype))
        return F.reduce_mean(per, axis=None, keep_dims=False), log_alpha
    return U.reduce_loss(nll, reduction), log_alpha


def _ctc_v2_prim(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="none",
                 zero_infinity=False):
    """``ops.CTCLossV2(blank=0, reduction='none', zero_infinity=False)(log_probs, targets,
    input_lengths, target_lengths)``: ``(neg_log_likelihood, log_alpha)``."""
    name = "CTCLossV2"
    if reduction != "none":
        raise ValueError(f"{name}: 'reduction' must be 'none', got {reduction!r}")
    return _ctc_v2(name, log_probs, targets, input_lengths, target_lengths, blank,
                   bool(zero_infinity))


# --- CTCLoss: sparse labels, logits, and the gradient as an output ------------------------------------

def _dense_labels(labels_indices, labels_values, batch: int):
    """Sparse labels as padded (N, L) targets and (N,) lengths; L = the number of labels."""
    total = labels_values.shape[0]
    rows = F.reshape(F.getitem(labels_indices, key=(slice(None), slice(0, 1))), (-1,))
    cols = F.reshape(F.getitem(labels_indices, key=(slice(None), slice(1, 2))), (-1,))
    width = max(total, 1)
    flat = F.add(F.mul(rows, width), cols)
    zeros = F.fill(dtype=labels_values.dtype, shape=(batch * width,), value=0)
    dense = F.reshape(F.scatter_update(zeros, flat, labels_values, axis=0), (batch, width))
    lengths = F.reduce_sum(F.one_hot(rows, depth=batch, axis=-1, dtype=int64), axis=(0,),
                           keep_dims=False) if total else F.fill(dtype=int64, shape=(batch,),
                                                                 value=0)
    return dense, lengths


def _collapse_repeats(dense, lengths):
    """Targets with each run of a repeated label kept once (PyTorch-style compaction through
    prefix sums, so shapes stay static)."""
    n, width = dense.shape
    positions = U.constant(np.arange(width).reshape(1, -1), int64)
    inside = F.less(positions, F.reshape(lengths, (-1, 1)))
    before = F.concat(F.fill(dtype=dense.dtype, shape=(n, 1), value=-1),
                      F.getitem(dense, key=(slice(None), slice(0, width - 1))), axis=1)
    keep = F.logical_and(inside, F.not_equal(dense, before))
    keep_f = F.cast(keep, dtype=float32)
    upper = U.constant(np.triu(np.ones((width, width), np.float32)), float32)
    new_pos = F.cast(F.sub(F.matmul(keep_f, upper), 1), dtype=int64)     # inclusive prefix - 1
    new_pos = F.select(keep, new_pos, F.fill(dtype=int64, shape=(n, width), value=width))
    rows = U.constant(np.arange(n).reshape(-1, 1) * (width + 1), int64)
    flat = F.reshape(F.add(new_pos, rows), (-1,))
    zeros = F.fill(dtype=dense.dtype, shape=(n * (width + 1),), value=0)
    packed = F.reshape(F.scatter_update(zeros, flat, F.reshape(dense, (-1,)), axis=0),
                       (n, width + 1))
    new_len = F.cast(F.reduce_sum(keep_f, axis=(1,), keep_dims=False), dtype=lengths.dtype)
    return F.getitem(packed, key=(slice(None), slice(0, width))), new_len


def _ctc_loss_prim(x, labels_indices, labels_values, sequence_length,
                   preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                   ignore_longer_outputs_than_inputs=False):
    """``ops.CTCLoss(preprocess_collapse_repeated=False, ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False)(x, labels_indices, labels_values,
    sequence_length)``: ``(loss, gradient)`` for logits ``x`` (T, N, C) with the blank
    ``C - 1`` and sparse labels; ``gradient`` is d loss / d x (``softmax - occupancy``)."""
    name = "CTCLoss"
    U.float_tensor(name, x, "x")
    U.int_tensor(name, labels_indices, "labels_indices")
    U.int_tensor(name, labels_values, "labels_values")
    U.int_tensor(name, sequence_length, "sequence_length")
    for what, v in (("preprocess_collapse_repeated", preprocess_collapse_repeated),
                    ("ctc_merge_repeated", ctc_merge_repeated),
                    ("ignore_longer_outputs_than_inputs", ignore_longer_outputs_than_inputs)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name}: '{what}' must be a bool, got {type(v).__name__}")
    if x.ndim != 3 or labels_indices.ndim != 2 or labels_indices.shape[1] != 2:
        raise ValueError(f"{name}: 'x' must be (max_time, batch, classes) and 'labels_indices' "
                         f"(labels, 2), got {list(x.shape)} and {list(labels_indices.shape)}")
    frames, n, classes = x.shape
    seq = _lengths(name, sequence_length, n, "sequence_length")
    targets, tgt_len = _dense_labels(F.cast(labels_indices, dtype=int64),
                                     F.cast(labels_values, dtype=int64), n)
    if preprocess_collapse_repeated:
        targets, tgt_len = _collapse_repeats(targets, tgt_len)
    log_probs = F.log_softmax(x, axis=-1)
    lattice = _Lattice(targets, classes - 1, bool(ctc_merge_repeated))
    emit = _emissions(log_probs, lattice)
    history, alpha_end = _forward(emit, lattice, seq, tgt_len)
    loss, impossible = _nll(alpha_end, lattice, tgt_len)
    grad = _logit_gradient(log_probs, emit, history, lattice, seq, tgt_len, loss)
    if ignore_longer_outputs_than_inputs:
        longer = F.greater(F.cast(tgt_len, dtype=int64), F.cast(seq, dtype=int64))
        loss = F.select(longer, F.zeros_like(loss), loss)
        grad = F.select(F.reshape(longer, (1, -1, 1)), F.zeros_like(grad), grad)
    return loss, F.stop_gradient(grad)


def _logit_gradient(log_probs, emit, history, lattice, seq, tgt_len, loss):
    """warp-ctc's gradient with respect to the logits: ``softmax - sum of the posteriors of the
    states carrying each class``, 0 on the frames past a sample's length."""
    n, frames, width = emit.shape
    betas = _backward(emit, lattice, seq, tgt_len)
    alpha = F.concat(*[F.expand_dims(a, axis=1) for a in history], axis=1)   # (N, T, L)
    beta = F.concat(*[F.expand_dims(b, axis=1) for b in betas], axis=1)
    # alpha and beta both hold the frame's emission; loss = -log p
    log_post = F.add(F.sub(F.add(alpha, beta), emit), F.reshape(loss, (-1, 1, 1)))
    post = F.exp(F.minimum(log_post, 0.0))
    post = F.select(F.less(F.add(alpha, beta), _UNREACHABLE), F.zeros_like(post), post)
    classes = log_probs.shape[2]
    hot = F.one_hot(lattice.ext, depth=classes, axis=-1, dtype=post.dtype)       # (N, L, C)
    occupancy = F.transpose(F.matmul(post, hot), perm=(1, 0, 2))                 # (T, N, C)
    frames_ = U.constant(np.arange(frames).reshape(-1, 1, 1), seq.dtype)
    active = F.less(frames_, F.reshape(seq, (1, -1, 1)))
    grad = F.sub(F.exp(log_probs), occupancy)
    return F.select(active, grad, F.zeros_like(grad))


# --- greedy decoding (PyNative) ----------------------------------------------------------------------

def _values(name: str, t, what: str) -> np.ndarray:
    """A tensor's values, which greedy decoding needs: its output sizes depend on them."""
    if isinstance(getattr(t, "value", None), Value):
        raise ValueError(f"{name}: the decoded sequences' sizes depend on the values of "
                         f"'{what}', which graph mode does not know while compiling; decode in "
                         "PyNative mode")
    return t.asnumpy()


def _greedy(name: str, inputs, sequence_length, merge_repeated):
    U.float_tensor(name, inputs, "inputs")
    U.int_tensor(name, sequence_length, "sequence_length")
    if not isinstance(merge_repeated, (bool, np.bool_)):
        raise TypeError(f"{name}: 'merge_repeated' must be a bool")
    if inputs.ndim != 3 or tuple(sequence_length.shape) != (inputs.shape[1],):
        raise ValueError(f"{name}: 'inputs' must be (max_time, batch, classes) and "
                         f"'sequence_length' (batch,), got {list(inputs.shape)} and "
                         f"{list(sequence_length.shape)}")
    x = _values(name, inputs, "inputs")
    lengths = _values(name, sequence_length, "sequence_length")
    frames, batch, classes = x.shape
    if (lengths > frames).any():
        raise ValueError(f"{name}: 'sequence_length' must not exceed max_time {frames}")
    blank = classes - 1
    indices, values, log_prob = [], [], np.zeros((batch, 1), x.dtype)
    longest = 0
    for b in range(batch):
        best = x[:lengths[b], b].argmax(axis=1)
        log_prob[b, 0] = -x[:lengths[b], b].max(axis=1).sum()
        decoded, previous = [], -1
        for c in best:
            if c != blank and not (merge_repeated and c == previous):
                decoded.append(int(c))
            previous = c
        indices += [(b, i) for i in range(len(decoded))]
        values += decoded
        longest = max(longest, len(decoded))
    return (Tensor(np.asarray(indices, np.int64).reshape(-1, 2)),
            Tensor(np.asarray(values, np.int64)),
            Tensor(np.asarray([batch, longest], np.int64)), Tensor(log_prob))


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """``ops.ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True)``: the most likely
    class per frame (blank ``C - 1`` dropped, repeats merged), as sparse ``(decoded_indices,
    decoded_values, decoded_shape, log_probability)``. The sizes depend on the data: PyNative
    only."""
    return _greedy("ops.ctc_greedy_decoder", inputs, sequence_length, merge_repeated)


def _greedy_prim(inputs, sequence_length, merge_repeated=True):
    return _greedy("CTCGreedyDecoder", inputs, sequence_length, merge_repeated)


def _sequences(name, indices, values, shape, what):
    """A sparse tensor's rows: {leading index tuple: [values in last-axis order]}."""
    idx = _values(name, indices, f"{what}_indices")
    vals = _values(name, values, f"{what}_values")
    dims = tuple(int(d) for d in _values(name, shape, f"{what}_shape"))
    if idx.ndim != 2 or idx.shape[1] != len(dims) or len(vals) != len(idx):
        raise ValueError(f"{name}: {what}_indices {list(idx.shape)}, {what}_values "
                         f"{list(vals.shape)} and {what}_shape {list(dims)} do not fit together")
    rows: dict = {}
    for k in np.lexsort(idx.T[::-1]):
        rows.setdefault(tuple(int(v) for v in idx[k, :-1]), []).append(vals[k])
    return rows, dims


def _levenshtein(a, b) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _edit_distance_prim(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                        truth_values, truth_shape, normalize=True):
    """``ops.EditDistance(normalize=True)(hypothesis_indices, hypothesis_values,
    hypothesis_shape, truth_indices, truth_values, truth_shape)``: the Levenshtein distance of
    each pair of sparse sequences (divided by the truth's length when ``normalize``; an empty
    truth gives inf, or 0 against an empty hypothesis). The sparse inputs' values set the
    output: PyNative only."""
    name = "EditDistance"
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"{name}: 'normalize' must be a bool")
    hyp, hdims = _sequences(name, hypothesis_indices, hypothesis_values, hypothesis_shape,
                            "hypothesis")
    truth, tdims = _sequences(name, truth_indices, truth_values, truth_shape, "truth")
    if len(hdims) != len(tdims):
        raise ValueError(f"{name}: the hypothesis and truth ranks differ: {hdims} and {tdims}")
    out_shape = tuple(max(a, b) for a, b in zip(hdims[:-1], tdims[:-1]))
    out = np.zeros(out_shape, np.float32)
    for pos in np.ndindex(*out_shape):
        h, t = hyp.get(pos, []), truth.get(pos, [])
        d = float(_levenshtein(h, t))
        if normalize:
            d = d / len(t) if t else (0.0 if not h else math.inf)
        out[pos] = d
    return Tensor(out)


CTCLoss = primitive("CTCLoss", _ctc_loss_prim,
                    init=("preprocess_collapse_repeated", "ctc_merge_repeated",
                          "ignore_longer_outputs_than_inputs"))
CTCLossV2 = primitive("CTCLossV2", _ctc_v2_prim, init=("blank", "reduction", "zero_infinity"))
CTCGreedyDecoder = primitive("CTCGreedyDecoder", _greedy_prim, init=("merge_repeated",))
EditDistance = primitive("EditDistance", _edit_distance_prim, init=("normalize",))

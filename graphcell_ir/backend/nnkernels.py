"""Kernels for convolution, pooling, select, small matmuls, the softmax family and batch_norm,
shared by PyNative and graph mode.

:data:`KERNELS` maps an op's ``OpDef`` to a function with the signature of its numpy reference
(``ref(*arrays, **attrs)``) that computes the same result faster; :func:`implementation` is
what both runtimes ask: the PyNative dispatcher (``graphcell.runtime.dispatch``) and the
executable (for every primitive outside a fused group). Choices, measured on the LeNet5 shapes
(docs/decisions.md has the numbers):

- ``conv2d``: an im2col loop into ``(N, C*KH*KW, OH*OW)``, then one batched BLAS GEMM
  ``(G, Og, Cg*KH*KW) @ cols`` whose result is already NCHW (no transpose); a scalar direct
  loop nest was 1.6-4x slower;
- ``conv2d_backprop_filter``: the same im2col, GEMM ``cols @ dy^T`` per sample, summed, then
  transposed; stride 1 at the sizes of :func:`direct_filter` (a ResNet block's, LeNet's
  first layer): no columns, the image and ``dy`` padded into flat planes of one width and each
  weight a sum along them in explicit vectors (``codegen/direct_filter.py``: 1.4-1.7x faster
  than the columns; as Python, ``jit=False``, the oracle keeps the columns); from 32 output
  channels (:func:`channels_in_lanes`) ``dy`` as positions x channels and the channels in the
  vector lanes instead (``filter_lanes``: 1.1x faster again, at the core's FMA peak);
- ``conv2d_backprop_input``: GEMM ``w^T @ dy``, then a col2im loop into a padded buffer; at
  stride 1 where it pays (:func:`input_as_forward`), the forward ``conv2d`` of ``dy`` by the
  flipped filter;
- all three, at most :data:`WIDE_POSITIONS` output positions (ResNet-18's 8x8 and smaller
  maps): the batch's columns side by side, ``(C*KH*KW, N*OH*OW)``, and one GEMM for the batch,
  split like any product, instead of thin per-sample GEMMs (3-5x faster at 4x4);
- ``conv2d`` of stride and dilation 1, ungrouped, outside the wide layout (:func:`direct`):
  the direct kernel (``codegen/direct_conv.py``: register tiles of 8 filters by 3 vectors of
  outputs over a zero-padded image, no columns, no rows, no BLAS), 1.5-3x faster than the
  paths below on every such shape measured (a ResNet block's 3x3 at ~250 against ~140
  GFLOP/s on one core); of those, 3x3 float32 filters between at least 16 channels on rows
  of 17 to 32 columns whose buffers stay in L2 (a ResNet block's 32 channels, not 64;
  :func:`winograd`): Winograd's F(2x2, 3x3)
  (``codegen/winograd_conv.py``: 16 products per 2x2 outputs and channel pair, not 36),
  1.3-1.5x the direct kernel (docs/decisions.md, wino25);
- the other ``conv2d`` and ``conv2d_backprop_input`` from :data:`ROWS_MIN_CHANNELS` input
  channels, ungrouped (:func:`by_rows`): on rows, the image channels last — ``im2row`` and
  ``rows @ wr^T``, ``dy^T @ wr`` and ``row2im`` — where OpenBLAS does not spend as long packing the
  columns as multiplying (a ResNet block's: 185-205 against 105-130 GFLOP/s);
- ``max_pool2d_grad`` (and ``max_pool2d_grad_grad``): a direct loop that finds each
  window's first maximum again in one pass and scatters ``dy`` there (the reference needs a
  pass per kernel offset, masks and a ``where``); ``avg_pool2d_grad``: a direct scatter loop;
- ``max_pool2d`` and ``avg_pool2d`` forward keep their references: numpy's strided
  ``maximum``/``add`` per offset beat the loops (0.09 vs 0.13 ms, 0.12 vs 0.14 ms);
- ``select`` (ReLU's gradient) on same-shape float arrays of at least ``SELECT_MIN`` elements:
  a flat loop, 7x faster than ``np.where`` on a random mask (0.07 vs 0.54 ms for
  150k float32), which branches per element; anything else (broadcasting, scalars,
  promotion) takes the reference;
- ``matmul`` of 2-D floats: below 2^20 multiply-adds one BLAS call (OpenBLAS stays on one
  thread there); above, single-threaded BLAS calls on fixed blocks of rows (or columns, when
  wider than tall: a column block keeps BLAS's packing of the right operand, 4 row blocks of a
  128-row product cost 1.4-1.9x the CPU), split over the cores from 2^22 (:func:`in_blocks`);
- ``softmax``, ``log_softmax`` (last axis), ``softmax_cross_entropy`` (loss and softmax - labels)
  and ``sparse_softmax_cross_entropy`` (labels checked first, as the reference does): one loop
  per op, per row its max, exp(x - max) fused with a float64 sum, the results; 2x faster than
  the references on the W1/W2 logits (128 and 32 rows of 10). The loops' exp is libm's, scalar
  (numpy's SIMD exp is 5x faster per element), so only rows of at most ``SHORT_ROWS`` classes,
  or inputs of at most ``EXP_LOOP_MAX`` elements, take them; (256, 1000) takes the reference,
  but for a float32 ``softmax``: ``softmax_rows_f32``, its exp a polynomial LLVM vectorises
  (:func:`fast_exp_rows`; attention's scores, blocks of rows over the cores);
- ``batch_norm`` (NCHW, any rank >= 2): float64 statistics in two passes per channel (samples
  added position by position, a vectorised loop), then y, with the reference's arithmetic dtype
  for dtype: 3-6x faster; bit-identical in inference, to rounding in training (the float64
  sums' order);
- the gradients of these ops are built from other registry ops (``mul``, ``reduce_sum``,
  ``softmax``...: fused in graph mode), so there is no opaque op of theirs to give a kernel.

Parallel blocks (issue 21): the convolutions (a block of samples runs its im2col and its GEMM,
or its GEMM and its col2im, while its columns are in cache), the pooling gradients (samples),
``select`` (flat), batch-norm statistics (channels) and y (samples), and the large products run
as fixed blocks that the caller and the kernel pool take as they come (:func:`in_blocks`, the one
function a pool drives), over ``blas_threads.split_threads()`` threads: the tuned count inside
a compiled function (1 when another process holds the other core: splitting then cost 3-30%),
else the CPUs. Every BLAS call in a block is single-threaded (``blas_threads.single``):
OpenBLAS's own threads wait a scheduler slice on a busy machine (a ResNet block's PyNative
step: 500-1100 ms against 117-146 ms with the blocks, load 6-8). The blocks depend only on the
shape, and each writes its own part of the outputs (conv2d_backprop_filter's sum over samples
is taken after, in sample order), so a result is bit-identical on any number of threads;
docs/performance.md has the measurements.

Inputs of other dtypes than float32/float64 (float16, integer max-pooling) take the reference.
Shapes are never checked inside a loop: both callers validate first (PyNative runs the op's
shape rule, the executable runs verified IR behind its argument guard), and each wrapper derives
the geometry from the shapes with the op's own rule, which raises on a mismatch.

The loops (``nn_loops``, plain Python) are compiled per argument kinds by graphcell's code
generator and kept in the object store (``backend/loops.py``: the namespace ``L`` every kernel
here takes first), when first called. With ``GRAPHCELL_DISABLE_JIT=1`` :func:`implementation`
gives the references; :func:`kernel` ``(jit=False)`` still runs the kernels' own loops as Python
(the third oracle).

Example::

    >>> import numpy as np
    >>> from graphcell_ir.ops import REGISTRY
    >>> conv = REGISTRY["conv2d"]
    >>> implementation(conv, jit=False) is conv.ref     # no JIT: the numpy reference
    True
    >>> implementation(REGISTRY["max_pool2d"]) is REGISTRY["max_pool2d"].ref   # numpy is faster
    True
    >>> x, w = np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))
    >>> kernel(conv, jit=False)(x, w, pad_mode="valid", pad=(0,), stride=(1,), dilation=(1,),
    ...                         group=1)[0, 0].tolist()    # the kernel's loops, as Python
    [[4.0, 4.0], [4.0, 4.0]]
"""
from __future__ import annotations

import functools
import itertools
import threading
import time
from types import MappingProxyType

import numpy as np

from graphcell_ir.backend import blas_threads, kernels, nn_loops
from graphcell_ir.backend.loops import namespace
from graphcell_ir.backend.native import pool
from graphcell_ir.ops import contraction as C_
from graphcell_ir.ops import conv as C
from graphcell_ir.ops import elementwise as E
from graphcell_ir.ops import nn as N



_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


# --- geometry (cached: the same few shapes come back every step) -------------------------------

@functools.lru_cache(maxsize=512)
def _conv_geo(x_shape, w_shape, win_items) -> C.Window:
    return C._conv_window(x_shape, w_shape, **dict(win_items))


@functools.lru_cache(maxsize=512)
def _pool_geo(shape, kernel_size, strides, pad_mode) -> C.Window:
    return C._pool_window(shape, kernel_size, strides, pad_mode)


def _fast(*arrays) -> bool:
    """Whether the loops take these arrays: float32/float64 alike, none empty (an empty batch
    goes to the reference, which has nothing to loop over either)."""
    d = arrays[0].dtype
    return d in _FLOATS and all(a.dtype == d and a.size for a in arrays)


def _c(a: np.ndarray) -> np.ndarray:
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _win(g: C.Window):
    return g.kh, g.kw, g.sh, g.sw, g.dh, g.dw


# --- running a loop's blocks on every core ----------------------------------------------------

MAX_BLOCKS = 4
"""Blocks a split loop or GEMM has at most: two per thread on 2 cores, so that when one thread
is held up (another process on its core) the other takes the rest."""


LOOP_UNIT = 1 << 16
"""Elements a loop (im2col, a pooling gradient, batch-norm) handles in one block (~20-60
us): loops over at least twice this are split."""


def blocks(n: int, work: int, unit: int) -> int:
    """How many blocks a loop over ``n`` items doing ``work`` (in units where ``unit`` is worth
    one block: ~50 us) is cut into; 1 means it runs whole. It depends on the shape only, never
    on the thread count or the load, so a split result is the same on any machine."""
    return max(1, min(n, MAX_BLOCKS, work // unit))


LATE_MIN = 5e-4
"""Seconds a caller may wait for a helper's block without it counting as late (a wake-up, a
block that simply started later); beyond this *and* twice the caller's own share, the helper
was descheduled."""


def late(own: float, waited: float) -> bool:
    """Whether a split call's wait for its helpers (``waited`` seconds after the caller ran
    its ``own`` blocks) means another process holds the helpers' core: the native pool's rule
    (``native/pool.py``), so both pools back off alike. A pure function.

    >>> late(own=1e-3, waited=2e-4), late(own=1e-3, waited=8e-3)
    (False, True)
    """
    return waited > LATE_MIN and waited > 2.0 * own


class _Backoff:
    """Split calls left to run on the caller alone after a late helper (:func:`late`), by the
    native pool's rule (``pool.BACKOFF_FIRST``, doubled while splits stay late, up to
    ``pool.BACKOFF_MAX``, reset by a split on time): on a busy machine a descheduled helper
    costs a scheduler slice per call (W1's blocks: 4-8 ms stalls), one thread only a lost
    core; a moment's contention only a few serial calls."""

    def __init__(self):
        self.left, self.next = 0, pool.BACKOFF_FIRST

    def serial(self) -> bool:
        """Whether this split call runs serially (counting it down)."""
        if self.left <= 0:
            return False
        self.left -= 1   # a race between two callers only shortens the back-off by one
        return True

    def after(self, was_late: bool) -> None:
        """Record a split call: late, the next ``self.next`` calls are serial and the next
        back-off twice as long; on time, the next back-off is the first's length again."""
        if was_late:
            self.left, self.next = self.next, min(2 * self.next, pool.BACKOFF_MAX)
        else:
            self.next = pool.BACKOFF_FIRST


_BACKOFF = _Backoff()


def in_blocks(n: int, count: int, run, threads: int | None = None) -> None:
    """Run ``run(lo, hi)`` over ``count`` contiguous blocks of ``range(n)``, on the calling
    thread and (``threads`` - 1) workers of the kernel pool; by default the count
    ``blas_threads.split_threads()`` gives (a compiled function's tuned count, else the CPUs).
    Each block goes to whichever thread asks first and the caller takes blocks too: when
    another process holds the other core the caller runs them all, losing the pool's wake-up
    (~20 us), where OpenBLAS's own threads wait for each other for a scheduler slice (12-48
    ms a GEMM, measured). A helper that took a block and was then descheduled makes the caller
    wait (:func:`late`): the next splits run on the caller alone, as in the native pool
    (``_Backoff``). ``run`` must release the GIL (a compiled loop or a BLAS call) and write
    only its block's part of the outputs; the blocks are fixed by ``n`` and ``count`` alone,
    and run under the caller's numpy error state. The one place the split meets a pool:
    another pool can drive it."""
    threads = (blas_threads.split_threads() or pool.configured_threads()) if threads is None \
        else threads
    edges = [n * k // count for k in range(count + 1)]
    if count < 2 or threads < 2 or _BACKOFF.serial():
        _serially(edges, run)
        return
    taken = itertools.count()   # its next() is atomic: each block runs once
    ran, errors, lock, finished = [0], [], threading.Lock(), threading.Event()

    def drain():
        k = next(taken)
        while k < count:
            try:
                run(edges[k], edges[k + 1])
            except BaseException as e:   # noqa: BLE001 - raised on the caller after every
                errors.append(e)          # block ran; counted, so the caller never hangs
            with lock:
                ran[0] += 1
                if ran[0] == count:
                    finished.set()
            k = next(taken)

    state = np.geterr()

    def helper():   # numpy's error state is per thread: the caller's, here too
        with np.errstate(**state):
            drain()

    for _ in range(min(threads, count) - 1):
        _block_workers().submit(helper)
    began = time.perf_counter()
    drain()
    drained = time.perf_counter()
    # wait for the blocks helpers took, not for the helpers: one that has not started yet (its
    # core held by another process) finds nothing left and returns
    finished.wait()
    _BACKOFF.after(late(drained - began, time.perf_counter() - drained))
    if errors:
        raise errors[0]


def _serially(edges: list, run) -> None:
    """Every block on the caller, in order; like the split, all run before an error is
    raised."""
    errors = []
    for lo, hi in zip(edges, edges[1:]):
        try:
            run(lo, hi)
        except Exception as e:   # noqa: BLE001 - raised after the others ran
            errors.append(e)
    if errors:
        raise errors[0]


_WORKERS = None
_WORKERS_LOCK = threading.Lock()


def _block_workers():
    """The Python threads that help :func:`in_blocks` (started on first use). Not the native
    kernel pool (``native/pool.py``): that one runs native loop bodies, these run Python
    callables whose native loops and BLAS calls release the GIL."""
    global _WORKERS
    with _WORKERS_LOCK:
        if _WORKERS is None:
            from concurrent.futures import ThreadPoolExecutor
            _WORKERS = ThreadPoolExecutor(max_workers=max(1, pool.configured_threads() - 1),
                                          thread_name_prefix="graphcell-blocks")
        return _WORKERS


_scratch = threading.local()


def _workspace(shape: tuple, dtype, use: str = "") -> np.ndarray:
    """A reusable buffer for a temporary that never leaves a kernel (the columns). A fresh
    multi-MB array costs a page fault per 4 KiB page whenever malloc has given the memory back
    (measured in the LeNet step: 0.6 ms of a 0.75 ms im2col); per thread, as a GEMM releases
    the GIL. ``use`` tells apart the workspaces one kernel holds at once (two of one shape
    would otherwise be one buffer)."""
    bufs = getattr(_scratch, "bufs", None)
    if bufs is None:
        bufs = _scratch.bufs = {}
    key = (shape, np.dtype(dtype), use)
    buf = bufs.get(key)
    if buf is None:
        if len(bufs) >= 8:   # a bounded cache: shapes of one model come back, others do not
            bufs.clear()
        buf = bufs[key] = np.empty(shape, dtype)
    return buf


def _cols(x: np.ndarray, g: C.Window) -> np.ndarray:
    """The (uninitialised) im2col workspace of ``x`` for window ``g``."""
    n, c = x.shape[:2]
    return _workspace((n, c * g.kh * g.kw, g.oh * g.ow), x.dtype)


def _im2col(L, x: np.ndarray, g: C.Window, cols: np.ndarray, lo: int, hi: int) -> None:
    L.im2col(x[lo:hi], *_win(g), g.pt, g.pl, g.oh, g.ow, cols[lo:hi])


def _crop(xp: np.ndarray, g: C.Window, h: int, w: int) -> np.ndarray:
    """The window-padded gradient ``xp`` without its padding, C-ordered: the compiled fused
    kernels that read it are native code for C-ordered arrays, and a strided view sends them to
    numba's dispatcher (seconds of compiling, per kernel, in a ResNet50 train step)."""
    if xp.shape[2:] == (h, w):
        return xp
    return np.ascontiguousarray(xp[:, :, g.pt:g.pt + h, g.pl:g.pl + w])


def _padded_zeros(shape, g: C.Window, dtype) -> np.ndarray:
    hp, wp = g.padded(*shape[2:])
    return np.zeros((shape[0], shape[1], hp, wp), dtype)


# --- convolution ------------------------------------------------------------------------------

def _quiet(fn):
    """Run ``fn`` without numpy's floating-point warnings: graphcell gives inf/nan silently, as
    MindSpore does (the references are silenced by a warnings filter on their module; a GEMM's
    partial sums warn from numpy's own modules, so a filter cannot catch them)."""
    @functools.wraps(fn)
    def quiet(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return quiet


@_quiet

def conv2d(L, x, w, *, out_channel=0, kernel_size=None, mode=1, data_format="NCHW", **win):
    if not _fast(x, w):
        return C.conv2d.ref(x, w, out_channel=out_channel, kernel_size=kernel_size, mode=mode,
                            data_format=data_format, **win)
    g, grp = _conv_geo(x.shape, w.shape, tuple(win.items())), win["group"]
    n, o = x.shape[0], w.shape[0]
    if _wide(x.shape, g):
        return _conv2d_wide(L, x, w, g, grp)
    if winograd(x.shape, o, grp, g, x.dtype):
        fns = _winograd_kernels(L, x.dtype.name)
        if fns is not None:
            return conv2d_winograd(fns, L, x, w, g)
    if direct(x.shape, grp, g):
        fns = _direct_kernels(L, x.dtype.name)
        if fns is not None:
            return conv2d_direct(fns, L, x, w, g)
    if by_rows(x.shape, grp, g):
        return _conv2d_rows(L, x, w, g)
    xc, cols = _c(x), _cols(x, g)
    wg, cg = w.reshape(grp, o // grp, -1), cols.reshape(n, grp, -1, g.oh * g.ow)
    y = np.empty((n, grp, o // grp, g.oh * g.ow), x.dtype)

    def run(lo, hi):   # a block of samples: its columns, then its GEMM (still in cache)
        _im2col(L, xc, g, cols, lo, hi)
        np.matmul(wg, cg[lo:hi], out=y[lo:hi])
    _blas_blocks(n, blocks(n, y.size * wg.shape[2] + cols.size * COPY_MACS, GEMM_UNIT), run)
    return y.reshape(n, o, g.oh, g.ow)


def direct(x_shape, grp: int, g: C.Window) -> bool:
    """Whether the forward convolution runs on the direct kernel (:func:`conv2d_direct`):
    stride 1, dilation 1, ungrouped, not the wide layout (at most :data:`WIDE_POSITIONS`
    output positions: one sample's rows are then too short for its vectors). A shape's rule,
    which the native step asks too (the same bits)."""
    return (grp == 1 and g.sh == g.sw == 1 and g.dh == g.dw == 1
            and not _wide(x_shape, g))


def _direct_kernels(L, dtype: str):
    """The direct convolution's linked entries for ``dtype`` (``codegen/direct_conv.py``:
    ``(conv_direct, pad_image)``), or None: the loops run as Python (``jit=False``, the oracle
    keeps the rows and columns), or this process has no native code."""
    from graphcell_ir.backend.codegen import direct_conv as D
    return _hand_written(L, dtype, ((D, D.NAME), (D, D.PAD)))


def _hand_written(L, dtype: str, members: tuple):
    """The linked entries of hand-written kernels ``members`` (``(module, function)`` pairs of
    ``codegen/direct_conv.py``, ``direct_filter.py``, ``winograd_conv.py``) for ``dtype``, as the loops
    namespace ``L`` gives them (``L.hand_written``: the process's are compiled and stored as
    loops are, an artifact's are its own linked objects), or None when one is unavailable (the
    loops run as Python: ``jit=False``, the oracle keeps the rows and columns)."""
    if L is nn_loops:
        return None
    fns = tuple(L.hand_written(m, name, dtype) for m, name in members)
    return None if None in fns else fns


def conv2d_direct(fns, L, x, w, g: C.Window, flipped: bool = False) -> np.ndarray:
    """The stride-1 forward convolution by the direct kernel (``fns``: :func:`_direct_kernels`):
    the filter with its output channels innermost once (``filter_taps``; ``flipped``: the
    taps of :func:`flipped_filter` of ``w``, read from ``w``), then per sample, in
    its block's one padded image (so in L2), the planes zero-padded (``pad_image``) and the
    kernel's register tiles straight into NCHW. No columns, no rows, no BLAS packing: a ResNet
    block's 3x3, 32 channels, 32x32 ran at ~260 GFLOP/s on one core against the rows' ~140
    (docs/decisions.md, dconv24). Any NCHW ``x`` and ``(O, C, KH, KW)`` ``w`` of one float
    dtype, the window ``g`` of stride and dilation 1."""
    from graphcell_ir.backend.codegen import direct_conv as D
    n, c, h, wd = x.shape
    o, ckk = w.shape[1 if flipped else 0], c * g.kh * g.kw
    hp, wp = g.padded(h, wd)
    xc = _c(x)
    wt = np.empty((ckk, D.padded_outputs(o)), x.dtype)
    L.filter_taps(_c(w).reshape(-1), wt, w.shape[0], w.shape[1], g.kh * g.kw, int(flipped))
    y = np.empty((n, o, g.oh, g.ow), x.dtype)
    size, (conv, pad) = D.image_size(c, hp, wp), fns

    def run(lo, hi):   # a block of samples through one padded image
        xp = _workspace((size,), x.dtype, "padded")
        for s in range(lo, hi):
            if not (pad(xc[s], xp, g.pt, g.pl, hp, wp)
                    and conv(xp, wt, y[s], c, hp, wp, g.kh, g.kw)):
                raise RuntimeError("the direct convolution refused its arrays")
    _blas_blocks(n, blocks(n, direct_forward_work(n, c, o, g, hp, wp), GEMM_UNIT), run)
    return y


WINOGRAD_MIN_CHANNELS = 16
"""Input and output channels (each) from which a 3x3 forward runs on the Winograd kernel
(:func:`winograd`): one core, 32x32 maps, against the direct kernel, 8 input channels ran
1.05x, 16 1.3x, 32 1.4x (the input tiles' transform is per input channel, the output's per
output channel, the products per pair)."""
WINOGRAD_COLUMNS = (17, 32)
"""Output columns from and up to which a 3x3 forward runs on the Winograd kernel: a tile row
is then one vector of 9 to 16 tiles, as full as the direct kernel's vectors of outputs. On
16x16 maps (half the lanes against all) it ran 0.74-0.89x the direct kernel's speed, on 20x20
to 32x32 1.3-1.5x; on 56x56 and 112x112 maps (two and more vectors a tile row, an image larger
than L2) 0.84-1.4x at best and far slower in median on a loaded machine: not taken."""
WINOGRAD_BYTES = 512 * 1024
"""The most a sample's padded image, the kernel's work buffer and the transformed filter may
take together (:func:`winograd_bytes`): they must stay in L2 across the sample's bands. A
ResNet block's 32 channels take 467 KB and ran 1.4x the direct kernel's speed call after
call; 64 channels on 32x32 (1.08 MB) ran anywhere from 1.5x to 0.2x from one call to the next
while other processes shared the caches, the direct kernel steady."""


def winograd_bytes(c: int, o: int, g: C.Window, itemsize: int) -> int:
    """Bytes of the buffers :data:`WINOGRAD_BYTES` bounds, for ``c`` input and ``o`` output
    channels in window ``g``."""
    from graphcell_ir.backend.codegen import direct_conv as D, winograd_conv as W
    hp, wp = W.padded_size(g.oh, g.ow)
    opad = D.padded_outputs(o)
    return (W.image_size(c, hp, wp) + W.work_size(c, opad) + W.ELEMENTS * opad * c) * itemsize


def winograd(x_shape, o: int, grp: int, g: C.Window, dtype) -> bool:
    """Whether a forward convolution the direct kernel would run (:func:`direct`) runs on the
    Winograd kernel instead (:func:`conv2d_winograd`): a 3x3 float32 filter, at least
    :data:`WINOGRAD_MIN_CHANNELS` channels each way, output rows of :data:`WINOGRAD_COLUMNS`,
    buffers within :data:`WINOGRAD_BYTES`. A shape's rule, which the native step asks too (the
    same bits).

    >>> g = _conv_geo((32, 32, 32, 32), (32, 32, 3, 3), (("pad_mode", "pad"),
    ...     ("pad", (1, 1, 1, 1)), ("stride", (1, 1)), ("dilation", (1, 1)), ("group", 1)))
    >>> winograd((32, 32, 32, 32), 32, 1, g, np.float32), winograd((32, 32, 32, 32), 32, 1,
    ...     g, np.float64)
    (True, False)
    """
    first, last = WINOGRAD_COLUMNS
    return (np.dtype(dtype) == np.float32 and g.kh == g.kw == 3
            and min(x_shape[1], o) >= WINOGRAD_MIN_CHANNELS and first <= g.ow <= last
            and direct(x_shape, grp, g)
            and winograd_bytes(x_shape[1], o, g, 4) <= WINOGRAD_BYTES)


def _winograd_kernels(L, dtype: str):
    """The Winograd convolution's linked entries (``codegen/winograd_conv.py``'s
    ``conv_winograd`` and ``direct_conv``'s ``pad_image``), or None (as :func:`_direct_kernels`)."""
    from graphcell_ir.backend.codegen import direct_conv as D, winograd_conv as W
    return _hand_written(L, dtype, ((W, W.NAME), (D, D.PAD)))


def conv2d_winograd(fns, L, x, w, g: C.Window) -> np.ndarray:
    """The 3x3 stride-1 forward convolution by Winograd's F(2x2, 3x3) (``fns``:
    :func:`_winograd_kernels`): the filter transformed once (one product by
    ``winograd_conv.filter_matrix`` into the zeroed, padded ``u``), then per sample, in its
    block's one padded image and work buffer, the planes zero-padded to whole 2x2 tiles
    (``pad_image``) and the kernel's bands of tiles straight into NCHW. The kernel is handed
    ``w`` too: an output its transforms made NaN (``inf - inf`` from an infinite input) it
    recomputes as the direct kernel sums it (``winograd_conv``: MindSpore's ``+-inf``)."""
    from graphcell_ir.backend.codegen import direct_conv as D, winograd_conv as W
    n, c, h, wd = x.shape
    o = w.shape[0]
    hp, wp = W.padded_size(g.oh, g.ow)
    u = np.zeros((W.ELEMENTS, D.padded_outputs(o), c), x.dtype)
    np.matmul(W.filter_matrix(x.dtype), _c(w).reshape(o * c, 9).T,
              out=u.reshape(W.ELEMENTS, -1)[:, :o * c])
    xc, wc = _c(x), _c(w).reshape(-1)
    y = np.empty((n, o, g.oh, g.ow), x.dtype)
    size, work_size, (conv, pad) = W.image_size(c, hp, wp), W.work_size(c, u.shape[1]), fns

    def run(lo, hi):   # a block of samples through one padded image and work buffer
        xp = _workspace((size,), x.dtype, "padded")
        work = _workspace((work_size,), x.dtype, "winograd")
        for s in range(lo, hi):
            if not (pad(xc[s], xp, g.pt, g.pl, hp, wp)
                    and conv(xp, u, wc, y[s], work, hp, wp)):
                raise RuntimeError("the Winograd convolution refused its arrays")
    _blas_blocks(n, blocks(n, winograd_work(n, c, o, g, hp, wp), GEMM_UNIT), run)
    return y


def winograd_work(n: int, c: int, o: int, g: C.Window, hp: int, wp: int) -> int:
    """The blocks rule's work of a Winograd convolution: its products' multiply-adds (16 per
    2x2 tile, tiles rounded up to 16 lanes) and its padded images' copies."""
    from graphcell_ir.backend.codegen import direct_conv as D
    tiles = (hp // 2 - 1) * -(-(wp // 2 - 1) // 16) * 16
    return n * D.padded_outputs(o) * tiles * c * 16 + n * c * hp * wp * COPY_MACS


def direct_forward_work(n: int, c: int, o: int, g: C.Window, hp: int, wp: int) -> int:
    """The blocks rule's work of a direct convolution: the multiply-adds its tiles do (filters
    rounded up to the tile, rows to 16 lanes: LeNet's first convolution, 6 filters on rows of
    28, does 1.5x its own; counted as its own it ran as one block on one core where the
    columns' path split it, W2 1.16 -> 1.31 ms) and the padded images' copies."""
    from graphcell_ir.backend.codegen import direct_conv as D
    lanes = -(-g.ow // 16) * 16
    return (n * D.padded_outputs(o) * g.oh * lanes * c * g.kh * g.kw
            + n * c * hp * wp * COPY_MACS)


ROWS_MIN_CHANNELS = 16
"""Input channels from which an ungrouped convolution's forward runs on rows
(:func:`by_rows`): a window offset is then one copy of at least 64 bytes of channels."""


def by_rows(x_shape, grp: int, g: C.Window) -> bool:
    """Whether the forward convolution runs on rows (:func:`_conv2d_rows`) rather than on
    columns: ungrouped, at least :data:`ROWS_MIN_CHANNELS` input channels, not the wide
    layout. A shape's rule (the native step asks it too: the same bits)."""
    return grp == 1 and x_shape[1] >= ROWS_MIN_CHANNELS and not _wide(x_shape, g)


def weight_rows(L, w: np.ndarray) -> np.ndarray:
    """The filter ``(O, C, KH, KW)`` as rows ``(O, KH*KW*C)``: the channels innermost, as
    :func:`nn_loops.im2row` orders a window (a copy, by ``nn_loops.swap_last``)."""
    o, c = w.shape[:2]
    wr = np.empty((o, w.shape[2] * w.shape[3], c), w.dtype)
    L.swap_last(_c(w).reshape(o, c, -1), wr)
    return wr.reshape(o, -1)


def _conv2d_rows(L, x, w, g: C.Window) -> np.ndarray:
    """The forward convolution on rows: per block of samples, the image moved to channels last
    (``swap_last``), its windows as rows ``(OH*OW, KH*KW*C)`` (``im2row``), one GEMM per
    sample ``rows @ wr^T`` (numpy passes the transposed operand to BLAS as a flag) and the
    ``(OH*OW, O)`` product moved back to NCHW. Why: OpenBLAS packs the thin filter once and
    reads the rows along K; the columns' ``w @ cols`` spent as long packing the columns as
    multiplying (a ResNet block's 3x3, 32 channels, 32x32, one core: 185-191 against 103-106
    GFLOP/s for the GEMMs)."""
    n, c = x.shape[:2]
    o, p, k, hw = w.shape[0], g.oh * g.ow, c * g.kh * g.kw, x.shape[2] * x.shape[3]
    xc = _c(x).reshape(n, c, hw)
    xh = _workspace((n, x.shape[2], x.shape[3], c), x.dtype, "image")
    rows = _workspace((n, p, k), x.dtype, "rows")
    wr = weight_rows(L, w)
    yt = _workspace((n, p, o), x.dtype, "product")
    y = np.empty((n, o, p), x.dtype)

    def run(lo, hi):   # a block of samples, in cache from one loop to the next
        L.swap_last(xc[lo:hi], xh[lo:hi].reshape(hi - lo, hw, c))
        L.im2row(xh[lo:hi], *_win(g), g.pt, g.pl, g.oh, g.ow, rows[lo:hi])
        np.matmul(rows[lo:hi], wr.T, out=yt[lo:hi])
        L.swap_last(yt[lo:hi], y[lo:hi])
    _blas_blocks(n, blocks(n, yt.size * k + rows.size * COPY_MACS, GEMM_UNIT), run)
    return y.reshape(n, o, g.oh, g.ow)


@_quiet
def conv2d_backprop_filter(L, dy, x, *, filter_size, **win):
    if not _fast(dy, x):
        return C.conv2d_backprop_filter.ref(dy, x, filter_size=filter_size, **win)
    g, grp = _conv_geo(x.shape, tuple(filter_size), tuple(win.items())), win["group"]
    n, o = x.shape[0], filter_size[0]
    if _wide(x.shape, g):
        return _filter_wide(L, dy, x, g, grp).reshape(filter_size)
    if direct_filter(x.shape, filter_size, grp, g):
        lanes = channels_in_lanes(o)
        fns = _direct_filter_kernels(L, x.dtype.name, lanes)
        if fns is not None:
            if lanes:
                return _filter_lanes(fns, L, dy, x, g, tuple(filter_size))
            return _filter_direct(fns, dy, x, g, tuple(filter_size))
    xc, cols = _c(x), _cols(x, g)
    cg = cols.reshape(n, grp, -1, g.oh * g.ow)
    d = _c(dy).reshape(n, grp, o // grp, g.oh * g.ow)
    # per sample, summed after: the transposed product cols @ dy^T, (Cg*KH*KW, Og), packs the
    # thin dy once (ResNet block 144 GFLOP/s against 82 for dy @ cols^T, LeNet's second
    # layer 130 against 64; one core)
    dws = np.empty((n, grp, cg.shape[2], o // grp), x.dtype)

    def run(lo, hi):
        _im2col(L, xc, g, cols, lo, hi)
        np.matmul(cg[lo:hi], d[lo:hi].transpose(0, 1, 3, 2), out=dws[lo:hi])
    _blas_blocks(n, blocks(n, dws.size * d.shape[3] + cols.size * COPY_MACS, GEMM_UNIT), run)
    total = dws.sum(axis=0)   # (G, Cg*KH*KW, Og), in sample order
    return np.ascontiguousarray(total.transpose(0, 2, 1)).reshape(filter_size)


DIRECT_MAX_CHANNELS = 128 * 128
"""Input times output channels up to which a stride-1 filter gradient runs direct
(:func:`direct_filter`), as far as measured: on 32x32 maps, one core, the columns' GEMM was
1.4x slower for a ResNet block's 32 -> 32 channels, 1.1x for 64 -> 64, as fast for 128 -> 128
(it packs well with many channels); beyond, the columns."""
DIRECT_MIN_PLANE = 512
"""Positions of a padded ``dy`` plane (``oh * wp``) from which a filter gradient runs direct:
each sum of the kernel pays its set-up and the fold of its vector lanes once per plane (16x16
outputs: 128 -> 128 channels 1.5x slower direct, a 5x5 of 32 channels 1.4x; LeNet's 10x10
1.1x)."""
DIRECT_MIN_USED = 0.8
"""The share of a kernel row's offsets that the direct kernel's blocks of 3 must use (a 5x5:
5 of 6; a 1x1 computes 3 sums to keep 1, 3.3x slower than the GEMM)."""


def direct_filter(x_shape, w_shape, grp: int, g: C.Window) -> bool:
    """Whether the filter gradient runs without columns (:func:`_filter_direct`): stride 1,
    dilation 1, ungrouped, not the wide layout, at the sizes where that measured faster
    (:data:`DIRECT_MAX_CHANNELS`, :data:`DIRECT_MIN_PLANE`, :data:`DIRECT_MIN_USED`). A shape's
    rule (the native step asks it too: the same bits).

    >>> g = _conv_geo((32, 32, 32, 32), (32, 32, 3, 3), (("pad_mode", "same"), ("pad", (0,)),
    ...               ("stride", (1,)), ("dilation", (1,)), ("group", 1)))
    >>> direct_filter((32, 32, 32, 32), (32, 32, 3, 3), 1, g)   # a ResNet block's
    True
    """
    return (grp == 1 and g.sh == g.sw == 1 and g.dh == g.dw == 1 and not _wide(x_shape, g)
            and x_shape[1] * w_shape[0] <= DIRECT_MAX_CHANNELS
            and g.oh * (g.ow + g.kw - 1) >= DIRECT_MIN_PLANE
            and g.kw >= DIRECT_MIN_USED * 3 * -(-g.kw // 3))


def direct_filter_work(n: int, c: int, o: int, g: C.Window) -> int:
    """The multiply-adds (and copies, :data:`COPY_MACS` each) of :func:`_filter_direct`: what
    its block count, :func:`blocks` of :data:`GEMM_UNIT`, is decided on."""
    hp, wp = g.oh + g.kh - 1, g.ow + g.kw - 1
    return n * o * c * g.kh * g.kw * g.oh * wp + n * (c * hp + o * g.oh) * wp * COPY_MACS


LANES_MIN_CHANNELS = 32
"""Output channels from which the direct filter gradient keeps them in the vector lanes
(``codegen/direct_filter.py``'s ``filter_lanes``, :func:`_filter_lanes`): its tiles take 2
vectors of channels (32 float32 lanes with AVX-512), so with fewer most lanes are empty (LeNet's
first layer, 6 channels: 2.8x the FMAs of ``filter_direct``'s 8-channel blocks)."""


def channels_in_lanes(o: int) -> bool:
    """Whether a direct filter gradient of ``o`` output channels runs on ``filter_lanes`` (else
    ``filter_direct``): :data:`LANES_MIN_CHANNELS`. A shape's rule: the step asks it too.

    >>> channels_in_lanes(32), channels_in_lanes(6)
    (True, False)
    """
    return o >= LANES_MIN_CHANNELS


def _direct_filter_kernels(L, dtype: str, lanes: bool):
    """The direct filter gradient's linked entries for ``dtype`` (``codegen/direct_filter.py``'s
    ``filter_lanes`` if ``lanes`` else its ``filter_direct``, and ``direct_conv``'s
    ``pad_image``), or None: the loops run as Python (``jit=False``, the oracle keeps the
    columns), or this process has no native code."""
    from graphcell_ir.backend.codegen import direct_conv as D, direct_filter as F
    return _hand_written(L, dtype, ((F, F.LANES if lanes else F.NAME), (D, D.PAD)))


def _filter_lanes(fns, L, dy, x, g: C.Window, filter_size: tuple) -> np.ndarray:
    """The stride-1 filter gradient without columns, the output channels in the vector lanes
    (``fns``: :func:`_direct_filter_kernels` with ``lanes``): per sample, in its block's padded
    image and transposed ``dy`` (so in L2), the image zero-padded (``pad_image``), ``dy`` as
    positions x channels (``swap_last``) and the sample's gradient ``(C*KH*KW, O)``
    (``filter_lanes``); the per-sample gradients then summed in sample order, so the blocks
    never change a bit, and transposed to ``(O, C, KH, KW)``. Why: no horizontal sums, 2 vector
    loads and 12 broadcasts per 24 FMAs (docs/decisions.md, "dwt24")."""
    from graphcell_ir.backend.codegen import direct_conv as D
    n, c = x.shape[:2]
    o, kk, p = filter_size[0], g.kh * g.kw, g.oh * g.ow
    hp, wp = g.oh + g.kh - 1, g.ow + g.kw - 1
    xc, dyc = _c(x), _c(dy).reshape(n, 1, o, p)
    xsize = D.image_size(c, hp, wp)
    dws = np.empty((n, c * kk, o), x.dtype)
    fl, pad = fns

    def run(lo, hi):   # a block of samples through one padded image and transposed dy
        xp = _workspace((xsize,), x.dtype, "padded image")
        dyt = _workspace((1, p, o), x.dtype, "transposed dy")
        for s in range(lo, hi):
            L.swap_last(dyc[s], dyt)
            if not (pad(xc[s], xp, g.pt, g.pl, hp, wp)
                    and fl(xp, dyt[0], dws[s], c, wp, g.oh, g.ow, g.kh, g.kw)):
                raise RuntimeError("the direct filter gradient refused its arrays")
    in_blocks(n, blocks(n, direct_filter_work(n, c, o, g), GEMM_UNIT), run)
    return np.ascontiguousarray(dws.sum(axis=0).T).reshape(filter_size)


def _filter_direct(fns, dy, x, g: C.Window, filter_size: tuple) -> np.ndarray:
    """The stride-1 filter gradient without columns (``fns``: :func:`_direct_filter_kernels`):
    per sample, in its block's padded image and ``dy`` (so in L2), both zero-padded to one
    width (``pad_image``) and the sample's gradient ``(O, C*KH*KW)`` summed along the planes
    (``filter_direct``); the per-sample gradients then summed in sample order, so the blocks
    never change a bit. Why: the columns' im2col, written again for the filter gradient when
    they exceed the caches, their GEMM and the transpose cost more than the direct sums
    (docs/decisions.md, "dw24", "fdv24")."""
    from graphcell_ir.backend.codegen import direct_conv as D
    n, c = x.shape[:2]
    o, kk = filter_size[0], g.kh * g.kw
    hp, wp = g.oh + g.kh - 1, g.ow + g.kw - 1
    xc, dyc = _c(x), _c(dy)
    xsize, dsize = D.image_size(c, hp, wp), D.image_size(o, g.oh, wp)
    dws = np.empty((n, o, c * kk), x.dtype)
    fd, pad = fns

    def run(lo, hi):   # a block of samples through one padded image and dy
        xp = _workspace((xsize,), x.dtype, "padded image")
        dyp = _workspace((dsize,), x.dtype, "padded dy")
        for s in range(lo, hi):
            if not (pad(xc[s], xp, g.pt, g.pl, hp, wp) and pad(dyc[s], dyp, 0, 0, g.oh, wp)
                    and fd(xp, dyp, dws[s], c, wp, g.oh, g.ow, g.kh, g.kw)):
                raise RuntimeError("the direct filter gradient refused its arrays")
    in_blocks(n, blocks(n, direct_filter_work(n, c, o, g), GEMM_UNIT), run)
    return dws.sum(axis=0).reshape(filter_size)


@_quiet
def conv2d_backprop_input(L, dy, w, *, input_size, **win):
    if not _fast(dy, w):
        return C.conv2d_backprop_input.ref(dy, w, input_size=input_size, **win)
    g, grp = _conv_geo(tuple(input_size), w.shape, tuple(win.items())), win["group"]
    n, c, h, wd = input_size
    o = w.shape[0]
    if _wide(tuple(input_size), g):
        return _input_wide(L, dy, w, g, grp, tuple(input_size))
    pads = input_as_forward(tuple(input_size), w.shape, g, grp)
    if pads is not None:
        return _input_forward(L, dy, w, g, pads)
    if by_rows(tuple(input_size), grp, g):
        return _input_rows(L, dy, w, g, tuple(input_size))
    wt = w.reshape(grp, o // grp, -1).transpose(0, 2, 1)          # (G, Cg*KH*KW, Og)
    d = _c(dy).reshape(n, grp, o // grp, g.oh * g.ow)
    dcols = _workspace((n, grp, wt.shape[1], d.shape[3]), dy.dtype)
    flat = dcols.reshape(n, c * g.kh * g.kw, g.oh * g.ow)
    dxp = _padded_zeros(input_size, g, dy.dtype)

    def run(lo, hi):   # a block of samples: its column gradients, then their scatter
        np.matmul(wt, d[lo:hi], out=dcols[lo:hi])
        L.col2im(flat[lo:hi], *_win(g), g.oh, g.ow, dxp[lo:hi])
    _blas_blocks(n, blocks(n, dcols.size * (o // grp + COPY_MACS), GEMM_UNIT), run)
    return _crop(dxp, g, h, wd)


def input_as_forward(input_size: tuple, w_shape: tuple, g: C.Window, grp: int):
    """The padding ``(top, bottom, left, right)`` of the forward convolution that computes this
    convolution's input gradient, or None when the gradient keeps its own path. A stride-1
    input gradient *is* a forward convolution: ``dx = conv2d(dy, w')`` with ``w'[c, o, i, j] =
    w[o, c, KH-1-i, KW-1-j]`` (:func:`flipped_filter`), stride 1, the same dilation and, per
    side, the padding ``d*(K-1) - p`` (a 'same' even kernel's asymmetric sides each their
    own), run by :func:`conv2d`'s own rules. Refused: strides above 1, groups, a padding wider
    than the dilated kernel (a negative forward padding), the wide layout (few positions: its
    own batched products), and shapes where that forward does not pay
    (:func:`_forward_pays`). A shape's rule: the native step asks it too (the same bits).

    >>> from graphcell_ir.ops.conv import window_geometry
    >>> g = window_geometry((32, 32), (3, 3), (1, 1), (1, 1), "same")
    >>> input_as_forward((8, 32, 32, 32), (32, 32, 3, 3), g, 1)   # the direct kernel's
    (1, 1, 1, 1)
    >>> g2 = window_geometry((32, 32), (3, 3), (1, 1), (2, 2), "same")   # dilated: on rows
    >>> input_as_forward((8, 32, 32, 32), (16, 32, 3, 3), g2, 1)   # 32 -> 16 channels
    (2, 2, 2, 2)
    >>> input_as_forward((8, 32, 32, 32), (32, 32, 3, 3), g2, 1) is None   # rows pay as well
    True
    """
    if grp != 1 or g.sh != 1 or g.sw != 1 or _wide(input_size, g):
        return None
    eh, ew = g.dh * (g.kh - 1), g.dw * (g.kw - 1)
    pads = (eh - g.pt, eh - g.pb, ew - g.pl, ew - g.pr)
    if min(pads) < 0:
        return None
    dy_shape = (input_size[0], w_shape[0], g.oh, g.ow)
    forward = C.window_geometry((g.oh, g.ow), (g.kh, g.kw), (1, 1), (g.dh, g.dw), "pad", pads)
    return pads if _forward_pays(input_size[1], dy_shape, forward) else None


def _forward_pays(c: int, dy_shape: tuple, forward: C.Window) -> bool:
    """Whether the forward convolution of ``dy`` (``O`` channels, to ``c``) in window ``forward``
    is faster than the gradient's own path. On the direct kernel (:func:`direct`: dilation 1)
    it is: RESBLOCK's 32 -> 32 input gradient (a GRAPH_MODE function of dx alone, with one
    elementwise pass) 5.0 -> 3.45 ms on one thread, 2.9-3.2 -> 1.9 ms on two. On rows, measured
    (native step, one core, float32, A/B in one process; the forward on rows against the
    gradient on rows, docs/decisions.md): it is only
    when the gradient's product ``dy^T @ wr`` has its thinnest depth, K = O = 16, against at
    least twice as many input channels, and a window larger than 1x1 (new/old 0.82-0.95: 32 ->
    16 on 32x32 maps 2.84 -> 2.69 ms, 5x5 7.4 -> 6.6; 128 -> 16 on 16x16 2.56 -> 2.09; 48 ->
    16 0.975; 1x1 1.00). With O = C (a ResNet block's 32 on 32x32: 4.05 -> 4.32 ms; ResNet-18's
    64 and 128: 1.07, 1.19), O = 24 (1.03-1.09) or a 1x1 256 -> 64 (1.08) the rows' gradient
    runs its deeper K at 200-205 GFLOP/s, the forward's ``rows @ wr^T`` at 185-191, and the
    copies cost alike (``im2row`` and two ``swap_last`` against ``row2im`` and one); LeNet's
    6 -> 16 (the gradient on columns, K = 16, against the forward's N = 6): 2.1x slower."""
    if direct(dy_shape, 1, forward):
        return True
    o = dy_shape[1]
    return by_rows(dy_shape, 1, forward) and o == ROWS_MIN_CHANNELS and c >= 2 * o and \
        forward.kh * forward.kw > 1


def _input_forward(L, dy, w, g: C.Window, pads: tuple) -> np.ndarray:
    """The stride-1 input gradient as the forward convolution of ``dy`` by the flipped filter
    (:func:`input_as_forward`): on the direct kernel its taps straight from ``w``
    (``filter_taps``' flip), else (the Winograd kernel's window too) :func:`conv2d` of
    :func:`flipped_filter` (a copy)."""
    o, c, kh, kw = w.shape
    win = (("pad_mode", "pad"), ("pad", pads), ("stride", (1, 1)), ("dilation", (g.dh, g.dw)),
           ("group", 1))
    forward = _conv_geo(dy.shape, (c, o, kh, kw), win)
    if direct(dy.shape, 1, forward) and not winograd(dy.shape, c, 1, forward, dy.dtype):
        fns = _direct_kernels(L, dy.dtype.name)
        if fns is not None:
            return conv2d_direct(fns, L, dy, w, forward, True)
    return conv2d(L, dy, flipped_filter(L, w), **dict(win))


def flipped_filter(L, w: np.ndarray) -> np.ndarray:
    """The filter ``(C, O, KH, KW)`` of the forward convolution that is ``w``'s stride-1 input
    gradient (:func:`input_as_forward`): ``nn_loops.flip_filter``, a copy."""
    o, c, kh, kw = w.shape
    out = np.empty((c, o, kh, kw), w.dtype)
    L.flip_filter(_c(w), out)
    return out


def _input_rows(L, dy, w, g: C.Window, input_size: tuple) -> np.ndarray:
    """The input gradient on rows (:func:`by_rows`, the forward's layout): per block of
    samples one GEMM per sample ``dy^T @ wr`` (``dy`` transposed by a BLAS flag) into the
    rows' gradients ``(OH*OW, KH*KW*C)``, added back by ``row2im`` into a zeroed
    channels-last image and moved back to NCHW (``swap_last``). Why: ``w^T @ dy`` ran at
    115-130 GFLOP/s, ``dy^T @ wr`` at 200-205 (a ResNet block's, one core; 213-218 with
    ``dy^T`` copied first, less than the copy costs)."""
    n, c, h, wd = input_size
    o, p, k = w.shape[0], g.oh * g.ow, c * g.kh * g.kw
    d = _c(dy).reshape(n, o, p)
    wr = weight_rows(L, w)
    drows = _workspace((n, p, k), dy.dtype, "rows")
    xh = np.zeros((n, h, wd, c), dy.dtype)
    dx = np.empty((n, c, h * wd), dy.dtype)

    def run(lo, hi):   # a block of samples: its rows' gradients, then their scatter
        np.matmul(d[lo:hi].transpose(0, 2, 1), wr, out=drows[lo:hi])
        L.row2im(drows[lo:hi], *_win(g), g.pt, g.pl, g.oh, g.ow, xh[lo:hi])
        L.swap_last(xh[lo:hi].reshape(hi - lo, h * wd, c), dx[lo:hi])
    _blas_blocks(n, blocks(n, drows.size * (o + COPY_MACS), GEMM_UNIT), run)
    return dx.reshape(n, c, h, wd)


# --- convolution, the samples side by side (few output positions) -----------------------------

WIDE_POSITIONS = 64
"""Convolutions with at most this many output positions (8x8) put a batch's columns side by
side, ``(C*KH*KW, N*OH*OW)``, and run one GEMM for all the samples, split like any product
(:func:`gemm_blocks`), then move the result to NCHW (a copy of the output). Per sample, such a
GEMM is a thin ``(O, C*KH*KW) @ (C*KH*KW, OH*OW)`` that packs the whole filter for a few
columns (ResNet-18's 4x4, 512 channels, batch 8, one core: forward, filter and input gradient
5.3-6.2, 12.3-12.7 and 7.4-7.6 ms per sample, 4.0, 3.6 and 3.8 wide; docs/performance.md);
from 16x16 (256 positions) the per-sample GEMMs were as fast or faster (LeNet's 10x10 too),
so they stay."""
WIDE_MAX = 1 << 23
"""At most this many column elements (32 MB of float32) for the wide layout: a batch's columns
exist at once, where the per-sample path reuses a block's."""


def _wide(x_shape, g: C.Window) -> bool:
    n, c = x_shape[:2]
    return g.oh * g.ow <= WIDE_POSITIONS and n * c * g.kh * g.kw * g.oh * g.ow <= WIDE_MAX


def _wide_cols(L, x: np.ndarray, g: C.Window) -> np.ndarray:
    """The batch's columns ``(C*KH*KW, N, OH*OW)``, filled in blocks of samples."""
    n, c = x.shape[:2]
    xc = _c(x)
    cols = _workspace((c * g.kh * g.kw, n, g.oh * g.ow), x.dtype)
    in_blocks(n, blocks(n, cols.size, LOOP_UNIT), lambda lo, hi: L.im2col_wide(
        xc, *_win(g), g.pt, g.pl, g.oh, g.ow, cols, lo, hi))
    return cols


def _product(L, a: np.ndarray, b: np.ndarray, transpose_a=False, transpose_b=False):
    """``a @ b`` of (G, m, k) and (G, k, n) operands (transposed views allowed): one 2-D
    product split by :func:`matmul` when G is 1, else by groups."""
    if a.shape[0] == 1:
        return matmul(L, a[0], b[0], transpose_a=transpose_a, transpose_b=transpose_b)[None]
    a = np.swapaxes(a, 1, 2) if transpose_a else a
    b = np.swapaxes(b, 1, 2) if transpose_b else b
    return _batched(a, b)


def _conv2d_wide(L, x, w, g: C.Window, grp: int) -> np.ndarray:
    n, o, p = x.shape[0], w.shape[0], g.oh * g.ow
    cols = _wide_cols(L, x, g)
    y = _product(L, w.reshape(grp, o // grp, -1), cols.reshape(grp, -1, n * p))   # (G, Og, N*P)
    return np.ascontiguousarray(y.reshape(o, n, p).transpose(1, 0, 2)).reshape(n, o, g.oh, g.ow)


def _channels_first(dy: np.ndarray, grp: int) -> np.ndarray:
    """``dy`` (N, O, OH, OW) as ``(G, Og, N*OH*OW)``: the wide GEMMs' layout (a copy)."""
    n, o = dy.shape[:2]
    moved = np.ascontiguousarray(dy.reshape(n, o, -1).transpose(1, 0, 2))
    return moved.reshape(grp, o // grp, -1)


def _filter_wide(L, dy, x, g: C.Window, grp: int) -> np.ndarray:
    n = x.shape[0]
    cols = _wide_cols(L, x, g)
    return _product(L, _channels_first(dy, grp), cols.reshape(grp, -1, n * g.oh * g.ow),
                    transpose_b=True)


def _input_wide(L, dy, w, g: C.Window, grp: int, input_size: tuple) -> np.ndarray:
    n, o = input_size[0], w.shape[0]
    dcols = _product(L, w.reshape(grp, o // grp, -1), _channels_first(dy, grp),
                     transpose_a=True)                                # (G, Cg*KH*KW, N*P)
    dcols = dcols.reshape(-1, n, g.oh * g.ow)
    dx = np.zeros(input_size, dy.dtype)
    in_blocks(n, blocks(n, dcols.size, LOOP_UNIT), lambda lo, hi: L.col2im_wide(
        dcols, *_win(g), g.pt, g.pl, g.oh, g.ow, dx, lo, hi))
    return dx


# --- pooling ----------------------------------------------------------------------------------

def _lowest(dtype) -> np.generic:
    return dtype.type(-np.inf)


def _padded(x: np.ndarray, g: C.Window, value) -> np.ndarray:
    """``x`` padded as the window says (no copy when it has no padding)."""
    if not (g.pt or g.pb or g.pl or g.pr):
        return _c(x)
    return np.pad(x, ((0, 0), (0, 0), (g.pt, g.pb), (g.pl, g.pr)), constant_values=value)


def max_pool2d_grad(L, x, dy, *, kernel_size, strides, pad_mode, data_format):
    if not _fast(x, dy):
        return C.max_pool2d_grad.ref(x, dy, kernel_size=kernel_size, strides=strides,
                                     pad_mode=pad_mode, data_format=data_format)
    g = _pool_geo(x.shape, kernel_size, strides, pad_mode)
    _require(dy.shape == x.shape[:2] + (g.oh, g.ow), "dy", dy.shape)
    dxp = _padded_zeros(x.shape, g, dy.dtype)
    n, c = x.shape[:2]
    xp, dyc, planes = _padded(x, g, _lowest(x.dtype)), _c(dy), dxp.reshape(n, c, -1)
    best, at = _argmax_rows(n, g.ow, x.dtype)
    in_blocks(n, blocks(n, xp.size, LOOP_UNIT), lambda lo, hi: L.max_pool_grad(
        xp[lo:hi], dyc[lo:hi], g.kh, g.kw, g.sh, g.sw, planes[lo:hi], best[lo:hi], at[lo:hi]))
    return _crop(dxp, g, *x.shape[2:])


def max_pool2d_grad_grad(L, x, gr, *, kernel_size, strides, pad_mode, data_format):
    if not _fast(x, gr):
        return C.max_pool2d_grad_grad.ref(x, gr, kernel_size=kernel_size, strides=strides,
                                          pad_mode=pad_mode, data_format=data_format)
    g = _pool_geo(x.shape, kernel_size, strides, pad_mode)
    _require(gr.shape == x.shape, "g", gr.shape)
    out = np.empty(x.shape[:2] + (g.oh, g.ow), x.dtype)
    n, c = x.shape[:2]
    xp, gp = _padded(x, g, _lowest(x.dtype)), _padded(gr, g, 0).reshape(n, c, -1)
    best, at = _argmax_rows(n, g.ow, x.dtype)
    in_blocks(n, blocks(n, xp.size, LOOP_UNIT), lambda lo, hi: L.max_pool_grad_grad(
        xp[lo:hi], gp[lo:hi], g.kh, g.kw, g.sh, g.sw, out[lo:hi], best[lo:hi], at[lo:hi]))
    return out


def _argmax_rows(n: int, ow: int, dtype):
    """The max-pool gradients' scratch rows (best value, flat index; one row per sample, so a
    parallel batch loop shares none): allocated here, the loops never allocate."""
    return np.empty((n, ow), dtype), np.empty((n, ow), np.int32)


def avg_pool2d_grad(L, dy, *, input_size, kernel_size, strides, pad_mode, data_format):
    if not _fast(dy):
        return C.avg_pool2d_grad.ref(dy, input_size=input_size, kernel_size=kernel_size,
                                     strides=strides, pad_mode=pad_mode, data_format=data_format)
    g = _pool_geo(tuple(input_size), kernel_size, strides, pad_mode)
    _require(dy.shape == tuple(input_size[:2]) + (g.oh, g.ow), "dy", dy.shape)
    share = _c(dy / C._counts(input_size[2:], g, dy.dtype))
    dxp = _padded_zeros(input_size, g, dy.dtype)
    n = dxp.shape[0]
    in_blocks(n, blocks(n, dxp.size, LOOP_UNIT), lambda lo, hi: L.window_spread(
        share[lo:hi], g.kh, g.kw, g.sh, g.sw, dxp[lo:hi]))
    return _crop(dxp, g, *input_size[2:])


def _require(ok: bool, what: str, shape) -> None:
    """A last guard before a loop that trusts its shapes (callers have validated already)."""
    if not ok:
        from graphcell_ir.errors import ShapeError
        raise ShapeError(f"{what} has the wrong shape {list(shape)} for this pooling window")


# --- select (ReLU's gradient) --------------------------------------------------------------------

SELECT_MIN = 4096
"""Below this many elements numpy's ``where`` is as fast as a kernel call."""


def select(L, cond, x, y):
    if not (cond.__class__ is x.__class__ is y.__class__ is np.ndarray and cond.size >= SELECT_MIN
            and cond.shape == x.shape == y.shape and cond.dtype == np.bool_ and _fast(x, y)):
        return E.select.ref(cond, x, y)   # broadcasting, scalars, promotion: the reference
    out = np.empty(x.shape, x.dtype)
    flat = [_c(a).reshape(-1) for a in (cond, x, y)] + [out.reshape(-1)]
    n = out.size
    in_blocks(n, blocks(n, n, LOOP_UNIT),
              lambda lo, hi: L.select(*[a[lo:hi] for a in flat]))
    return out


# --- matrix products ---------------------------------------------------------------------------

BLAS_WAKES = 1 << 20
"""Multiply-adds from which numpy's OpenBLAS wakes its second thread (measured: 960k ran
single-threaded, 1.15M threaded): smaller products are one plain BLAS call."""
GEMM_UNIT = 1 << 21
"""Multiply-adds worth one block of a split product (~10-20 us on one core at 100-230
GFLOP/s, against the pool's ~20 us wake-up): products from twice this are split."""
GEMM_BLOCKS = 2
"""Blocks a split 2-D product has at most (loops and stacks of products keep
:data:`MAX_BLOCKS`: their blocks share nothing): every block of a product packs the
operand the blocks share again, so W1's products cost 3-7% more CPU in 4 blocks than in 2 (one
thread, OpenBLAS SkylakeX kernels; 2 blocks ran within 1-2% of one whole call). A block held
up by a descheduled worker is what the pool's back-off is for."""
COPY_MACS = 4
"""An element im2col or col2im moves, counted as this many multiply-adds of work."""


def _blas_blocks(n: int, count: int, run) -> None:
    """:func:`in_blocks` for blocks that call BLAS: over ``blas_threads.split_threads()``
    threads, each BLAS call single-threaded (the split is the parallelism); whole, on BLAS's
    own threads, when ``GRAPHCELL_BLAS_THREADS=0``."""
    threads = blas_threads.split_threads()
    if threads is None:
        run(0, n)
        return
    blas_threads.single(lambda: in_blocks(n, count, run, threads))


def gemm_blocks(m: int, n: int, k: int) -> tuple[int, bool]:
    """``(blocks, by rows)`` of an ``(m, k) @ (k, n)`` product: one block below
    :data:`BLAS_WAKES`, else fixed blocks of rows, or of columns when the product is wider than
    tall — the split :func:`matmul` runs and the native step (``backend/step``) emits."""
    size = m * k * n
    if size < BLAS_WAKES:
        return 1, True
    return min(GEMM_BLOCKS, blocks(max(m, n), size, GEMM_UNIT)), m >= n


@_quiet
def matmul(L, x, y, *, transpose_a=False, transpose_b=False):
    """A 2-D product (batched ones: :func:`_batched`): below :data:`BLAS_WAKES` one BLAS
    call; above, blocks of rows (or of columns, when the product is wider than tall) split over
    the cores by :func:`in_blocks`, each a single-threaded BLAS call on a view (no operand is
    copied: BLAS reads a transposed view as it is). OpenBLAS's own threads wait on each other
    for a scheduler slice when another process holds a core (a 134M multiply-add product: 1.6
    ms on one thread, 8-64 ms on two); the blocks never stall that way, but cost 3-30% (more
    at load 4+) against one thread on a busy machine, so a compiled function's tuner may
    switch them off (``blas_threads``)."""
    a = np.swapaxes(x, -1, -2) if transpose_a and x.ndim >= 2 else x
    b = np.swapaxes(y, -1, -2) if transpose_b and y.ndim >= 2 else y
    if a.ndim > 2 and a.ndim == b.ndim and a.shape[:-2] == b.shape[:-2] and _fast(a, b):
        return _batched(a, b)
    if a.ndim != 2 or b.ndim != 2 or not _fast(a, b):
        return C_.matmul.ref(x, y, transpose_a=transpose_a, transpose_b=transpose_b)
    (m, k), n = a.shape, b.shape[1]
    if m * k * n < BLAS_WAKES:
        return np.matmul(a, b)
    count, by_rows = gemm_blocks(m, n, k)
    if count == 1 and blas_threads.split_threads() is not None:
        return blas_threads.single(lambda: np.matmul(a, b))
    out = np.empty((m, n), a.dtype)
    if by_rows:
        def run(lo, hi):
            np.matmul(a[lo:hi], b, out=out[lo:hi])
    else:
        def run(lo, hi):
            np.matmul(a, b[:, lo:hi], out=out[:, lo:hi])
    _blas_blocks(max(m, n), count, run)
    return out


def _batched(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A batched product (the same batch dimensions, no broadcasting: attention's), in blocks
    of its leading batch axis (numpy's matmul runs one GEMM per matrix either way)."""
    work = a.size // a.shape[-1] * a.shape[-1] * b.shape[-1]
    if work < BLAS_WAKES:
        return np.matmul(a, b)
    out = np.empty(a.shape[:-1] + b.shape[-1:], a.dtype)
    n = a.shape[0]

    def run(lo, hi):
        np.matmul(a[lo:hi], b[lo:hi], out=out[lo:hi])
    _blas_blocks(n, blocks(n, work, GEMM_UNIT), run)
    return out


# --- softmax, log-softmax, cross-entropy --------------------------------------------------------

SHORT_ROWS = 16
"""Rows of at most this many classes take the softmax-family loops at any size."""
EXP_LOOP_MAX = 2048
"""Longer rows (up to :data:`LOOP_ROWS_MAX` classes) take them up to this many elements; larger
inputs take the references. The loops pay a scalar ``exp`` per element (2.4 ns in float32,
numpy's SIMD one 0.5 ns) and win on numpy's fixed costs (5-6 calls, reductions slow on short
rows): measured 1.3-2x on rows of 10-16 up to 4096x10, even at 2048 elements of 64 classes,
0.85x at (64, 100). Splitting the loops around numpy's exp did not help (1.3x slower than the
reference at (256, 1000)): their max and sum stay scalar chains."""
LOOP_ROWS_MAX = 64


def _quiet_python(fn):
    """Run ``fn`` without numpy's floating-point warnings when its loops run as Python (numpy
    scalars warn on inf - inf; compiled loops and the silenced references do not): cheaper than
    :func:`_quiet` (1 us a call) on the compiled path."""
    @functools.wraps(fn)
    def run(L, *args, **kwargs):
        if L is not nn_loops:
            return fn(L, *args, **kwargs)
        with np.errstate(all="ignore"):
            return fn(L, *args, **kwargs)
    return run


def _rows(x: np.ndarray) -> np.ndarray:
    """``x`` as C-contiguous (rows, classes): the last axis is the one reduced."""
    return _c(x).reshape(-1, x.shape[-1])


def _class_rows(x: np.ndarray) -> bool:
    """Float32/64 rows the loops are faster on (see :data:`EXP_LOOP_MAX`); not empty (K = 0
    takes the reference, which raises)."""
    return loop_rows(x.shape, x.dtype)


def loop_rows(shape: tuple, dtype) -> bool:
    """Whether the softmax family runs an input of ``shape`` and ``dtype`` on its loops (else
    on the references, numpy's ``exp``: other bits): the runner's choice, which the native step
    (``step/nnops.py``) follows to give its bits."""
    if np.dtype(dtype) not in _FLOATS or len(shape) < 1 or 0 in shape:
        return False
    k, size = shape[-1], int(np.prod(shape))
    return k <= SHORT_ROWS or (size <= EXP_LOOP_MAX and k <= LOOP_ROWS_MAX)


def fast_exp_rows(shape: tuple, dtype) -> bool:
    """Whether ``softmax`` runs an input of ``shape`` and ``dtype`` on ``nn_loops.
    softmax_rows_f32`` (its exp a polynomial LLVM vectorises): float32 rows that
    :func:`loop_rows` leaves to the reference, (2048, 64) attention scores say (0.23 ms on one
    core against numpy's 0.28, and a native step splits the rows over the cores; rows the
    loops take already keep their bits and their one compiled loop). The runner's choice, which
    the native step (``step/nnops.py``) follows to give its bits."""
    return (np.dtype(dtype) == np.float32 and len(shape) >= 1 and 0 not in shape
            and not loop_rows(shape, dtype))


@_quiet_python
def softmax(L, x, *, axis):
    if axis is None or len(axis) != 1 or axis[0] not in (-1, x.ndim - 1):
        return N.softmax.ref(x, axis=axis)   # other or several axes: the reference
    if fast_exp_rows(x.shape, x.dtype):
        rows, out = _rows(x), np.empty(x.shape, x.dtype)
        flat = out.reshape(-1, x.shape[-1])
        n = rows.shape[0]
        in_blocks(n, blocks(n, x.size, LOOP_UNIT),
                  lambda lo, hi: L.softmax_rows_f32(rows[lo:hi], flat[lo:hi]))
        return out
    if not _class_rows(x):
        return N.softmax.ref(x, axis=axis)   # large, empty: the reference
    out = np.empty(x.shape, x.dtype)
    L.softmax_rows(_rows(x), out.reshape(-1, x.shape[-1]))
    return out


@_quiet_python
def log_softmax(L, x, *, axis):
    if not (_class_rows(x) and axis in (-1, x.ndim - 1)):
        return N.log_softmax.ref(x, axis=axis)
    out = np.empty(x.shape, x.dtype)
    L.log_softmax_rows(_rows(x), out.reshape(-1, x.shape[-1]))
    return out


@_quiet_python
def softmax_cross_entropy(L, logits, labels):
    if not (_class_rows(logits) and labels.dtype == logits.dtype
            and labels.shape == logits.shape):
        return N.softmax_cross_entropy.ref(logits, labels)
    loss = np.empty(logits.shape[:-1], logits.dtype)
    back = np.empty(logits.shape, logits.dtype)
    L.softmax_cross_entropy_rows(_rows(logits), _rows(labels), loss.reshape(-1),
                                 back.reshape(-1, logits.shape[-1]))
    return loss, back


@_quiet_python
def sparse_softmax_cross_entropy(L, logits, labels):
    if not (_class_rows(logits) and labels.shape == logits.shape[:-1]
            and labels.dtype in _LABELS and _in_range(labels, logits.shape[-1])):
        return N.sparse_softmax_cross_entropy.ref(logits, labels)   # raises on a bad label
    loss, rows = np.empty(logits.shape[:-1], logits.dtype), _rows(logits)
    L.sparse_softmax_cross_entropy_rows(rows, _c(labels).reshape(-1), loss.reshape(-1),
                                        rows[:0])   # no probabilities
    return loss


_LABELS = (np.dtype(np.int32), np.dtype(np.int64))


def _in_range(labels: np.ndarray, n: int) -> bool:
    """Every label in [0, n): one reduction (negative labels, viewed as unsigned, are huge)."""
    return not labels.size or int(labels.view(labels.dtype.str.replace("i", "u")).max()) < n


# --- batch_norm ------------------------------------------------------------------------------

@_quiet_python
def batch_norm(L, x, gamma, beta, mean, var, *, is_training, epsilon, momentum, data_format):
    params = (gamma, beta, mean, var)
    c = x.shape[1] if x.ndim >= 2 else -1
    m = x.size // c if c > 0 else 0
    if not (x.dtype in _FLOATS and x.ndim >= 2 and data_format == "NCHW" and _fast(*params)
            and all(p.shape == (c,) for p in params) and (m >= 2 or not is_training)):
        return N.batch_norm.ref(x, gamma, beta, mean, var, is_training=is_training,
                                epsilon=epsilon, momentum=momentum, data_format=data_format)
    g, b, mu, v = map(_c, params)
    hw = m // x.shape[0] if x.shape[0] else 0
    rows = hw == 1
    xs = _c(x).reshape(x.shape[0], c) if rows else _c(x).reshape(x.shape[0], c, hw)
    y = np.empty(xs.shape, x.dtype)
    pdt = mean.dtype
    if is_training:
        stats, scale = np.empty((2, c)), np.empty(c)
        new_mean, new_var = np.empty(c, pdt), np.empty(c, pdt)
        # numpy rounds a Python float to the array's dtype: (1 - momentum) * moving is float32
        train = (float(pdt.type(1 - momentum)), float(momentum), m / (m - 1), float(epsilon))
        if rows:
            L.bn_row_stats(xs, stats)
            L.bn_train_params(g, mu, v, stats, *train, scale, new_mean, new_var)
        else:   # blocks of channels; block lo's scratch row is acc[lo] (untouched rows cost
            acc = np.empty((c, hw))   # no memory: np.empty maps pages lazily)
            in_blocks(c, blocks(c, x.size, LOOP_UNIT), lambda lo, hi: L.bn_channel_train(
                xs, acc[lo], stats, g, mu, v, *train, scale, new_mean, new_var, lo, hi))
        mu = stats[0]
    else:   # y from mean and variance, which come back as they are (the same objects)
        scale = np.empty(c, pdt)
        L.bn_infer_scale(g, v, float(pdt.type(epsilon)), scale)
        new_mean, new_var = mean, var
    if rows:
        L.bn_apply_rows(xs, mu, scale, b, y)
    else:   # blocks of samples
        n = xs.shape[0]
        in_blocks(n, blocks(n, x.size, LOOP_UNIT),
                  lambda lo, hi: L.bn_apply(xs[lo:hi], mu, scale, b, y[lo:hi]))
    return y.reshape(x.shape), new_mean, new_var


# --- the table both runtimes read -------------------------------------------------------------

KERNELS = MappingProxyType({
    C.conv2d: conv2d,
    C.conv2d_backprop_filter: conv2d_backprop_filter,
    C.conv2d_backprop_input: conv2d_backprop_input,
    C.max_pool2d_grad: max_pool2d_grad,
    C.max_pool2d_grad_grad: max_pool2d_grad_grad,
    C.avg_pool2d_grad: avg_pool2d_grad,
    E.select: select,
    C_.matmul: matmul,
    N.softmax: softmax,
    N.log_softmax: log_softmax,
    N.softmax_cross_entropy: softmax_cross_entropy,
    N.sparse_softmax_cross_entropy: sparse_softmax_cross_entropy,
    N.batch_norm: batch_norm,
})
"""OpDef -> its kernel: ``fn(loops, *arrays, **attrs)`` gives the op's ``ref(*arrays, **attrs)``
(same results, up to rounding); :func:`kernel` binds the loops."""


def kernel(op, jit: bool | None = None):
    """``op``'s kernel as a drop-in for its ``ref``, its loops compiled or (``jit=False``) run
    as Python: the third oracle. KeyError when ``op`` has none."""
    return functools.partial(KERNELS[op], namespace(jit))


def implementation(op, jit: bool | None = None, loops=None):
    """What runs ``op`` outside a fused kernel: its kernel when it has one and the JIT is on,
    else its numpy reference (faster than the kernel's loops run as Python). ``loops``: a loops
    namespace of the caller's own (an artifact's linked loops, for its executable alone) in
    place of the process's."""
    if op not in KERNELS or not kernels.jit_enabled(jit):
        return op.ref
    if loops is not None:
        return functools.partial(KERNELS[op], loops)
    return kernel(op, jit=True)

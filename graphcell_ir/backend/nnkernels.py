"""Kernels for convolution, pooling, select, small matmuls, the softmax family and batch_norm,
shared by PyNative and graph mode.

:data:`KERNELS` maps an op's ``OpDef`` to a function with the signature of its numpy reference
(``ref(*arrays, **attrs)``) that computes the same result faster; :func:`implementation` is
what both runtimes ask: the PyNative dispatcher (``graphcell.runtime.dispatch``) and the
executable (for every primitive outside a fused group). Choices, measured on the LeNet5 shapes
(docs/decisions.md has the numbers):

- ``conv2d``: numba im2col into ``(N, C*KH*KW, OH*OW)``, then one batched BLAS GEMM
  ``(G, Og, Cg*KH*KW) @ cols`` whose result is already NCHW (no transpose); a direct numba
  loop nest was 1.6-4x slower;
- ``conv2d_backprop_filter``: the same im2col, GEMM ``dy @ cols^T`` per sample, summed;
- ``conv2d_backprop_input``: GEMM ``w^T @ dy``, then numba col2im into a padded buffer;
- ``max_pool2d_grad`` (and ``max_pool2d_grad_grad``): a direct numba loop that finds each
  window's first maximum again in one pass and scatters ``dy`` there (the reference needs a
  pass per kernel offset, masks and a ``where``); ``avg_pool2d_grad``: a direct scatter loop;
- ``max_pool2d`` and ``avg_pool2d`` forward keep their references: numpy's strided
  ``maximum``/``add`` per offset beat the numba loops (0.09 vs 0.13 ms, 0.12 vs 0.14 ms);
- ``select`` (ReLU's gradient) on same-shape float arrays of at least ``SELECT_MIN`` elements:
  a flat numba loop, 7x faster than ``np.where`` on a random mask (0.07 vs 0.54 ms for
  150k float32), which branches per element; anything else (broadcasting, scalars,
  promotion) takes the reference;
- ``matmul`` of 2-D floats with 2^19..2^23 multiply-adds: row blocks of at most 2^19, each a
  single-threaded BLAS call (OpenBLAS wakes a second thread from ~1M, which stalls for
  milliseconds when another process holds the other core); other products go to BLAS whole;
- ``softmax``, ``log_softmax`` (last axis), ``softmax_cross_entropy`` (loss and softmax - labels)
  and ``sparse_softmax_cross_entropy`` (labels checked first, as the reference does): one loop
  per op, per row its max, exp(x - max) fused with a float64 sum, the results; 2x faster than
  the references on the W1/W2 logits (128 and 32 rows of 10). The loops' exp is libm's, scalar
  (numpy's SIMD exp is 5x faster per element), so only rows of at most ``SHORT_ROWS`` classes,
  or inputs of at most ``EXP_LOOP_MAX`` elements, take them; (256, 1000) takes the reference;
- ``batch_norm`` (NCHW, any rank >= 2): float64 statistics in two passes per channel (samples
  added position by position, a vectorised loop), then y, with the reference's arithmetic dtype
  for dtype: 3-6x faster; bit-identical in inference, to rounding in training (the float64
  sums' order);
- the gradients of these ops are built from other registry ops (``mul``, ``reduce_sum``,
  ``softmax``...: fused in graph mode), so there is no opaque op of theirs to give a kernel.

Inputs of other dtypes than float32/float64 (float16, integer max-pooling) take the reference.
Shapes are never checked inside a loop: both callers validate first (PyNative runs the op's
shape rule, the executable runs verified IR behind its argument guard), and each wrapper derives
the geometry from the shapes with the op's own rule, which raises on a mismatch.

numba is imported at the first kernel call, not before: the loops (``nn_loops``) are plain
Python, copied into ``<cache dir>/kernels/nn_<hash>.py`` and compiled there with
``njit(cache=True)``, one specialisation per dtype actually used, so a second process loads
machine code. With the native cache on (``kernels``: the default when llvmlite is usable)
:func:`loops` gives :class:`_CachedLoops` instead: each (loop, argument kinds) is linked from
its native object in the cache without importing numba, or compiled by numba (then without
numba's own cache) and its object written there. First calls are timed in the compile report and counted in
``kernels.cache_stats()``. With ``GRAPHCELL_DISABLE_JIT=1`` :func:`implementation` gives the
references; :func:`loops` ``(jit=False)`` still runs the kernels' own Python (the third oracle).

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
import hashlib
import os
import sys
import threading
import time
import types
from pathlib import Path
from types import MappingProxyType

import numpy as np

from graphcell_ir.backend import nn_loops
from graphcell_ir.ops import contraction as C_
from graphcell_ir.ops import conv as C
from graphcell_ir.ops import elementwise as E
from graphcell_ir.ops import nn as N



def _log(msg: str, *args) -> None:
    import logging   # not at import time: graphcell's import does not need it
    logging.getLogger("graphcell.backend").info(msg, *args)


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
PARALLEL: frozenset[str] = frozenset()
"""Loops compiled with ``parallel=True`` (their ``prange`` splits the batch over threads)."""


# --- loading the loops ------------------------------------------------------------------------

def _jit_on(jit: bool | None) -> bool:
    if jit is not None:
        return jit
    from graphcell_ir.backend.kernels import jit_enabled
    return jit_enabled()


_LOADED: dict[bool, types.ModuleType] = {}
_LOADED_LOCK = threading.Lock()   # one loops namespace per process, even when threads race


def loops(jit: bool | None = None) -> types.ModuleType:
    """The loop functions of ``nn_loops``: numba-compiled, or (``jit=False``) plain Python."""
    jit = _jit_on(jit)
    mod = _LOADED.get(jit)
    if mod is None:
        with _LOADED_LOCK:
            mod = _LOADED.get(jit)
            if mod is None:
                mod = _LOADED[jit] = _loaded() if jit else nn_loops
    return mod


def _loaded():
    from graphcell_ir.backend import native
    return _CachedLoops() if native.jit_cache_enabled() else _compile_module()


class _CachedLoops:
    """The loops as native objects, per argument kinds: linked from the kernel disk cache, or
    compiled by graphcell's code generator (``backend/codegen``) and written there, without
    numba; kinds the generator refuses run numba's loops (compiled when first needed, without
    numba's own cache) and their object is written there too.

    A drop-in for the compiled module: ``L.im2col(*args)``."""

    def __init__(self):
        from graphcell_ir.backend import native
        self._native = native
        self._text = _source()   # read once: what is compiled is what the key names
        self._prefix = native.loop_key(_module_key(self._text), "")
        self._module = None
        self._linked: dict = {}      # (name, kinds) -> its JitFunction, None: not on disk
        self._runners: dict = {}     # name -> numba's loop, as _numba gives it

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        # argument classes -> what to try, in order: native entries (each checks its arrays'
        # rank, dtype and order itself, False when they are not its kinds), numba's loop last.
        # Keyed by classes, not kinds: computing the kinds of 12 arguments costs 7 us a call.
        fast: dict = {}

        def call(*args):
            for fn in fast.get(tuple(map(type, args)), ()):
                if fn(*args):
                    return
            self._slow(name, fast, args)
        call.__name__ = name
        setattr(self, name, call)   # bound once per name
        return call

    def _slow(self, name: str, fast: dict, args) -> None:
        """First call with these argument classes or kinds: link their native object from the
        disk cache if it is there, else compile it with the code generator, else run numba's
        loop (which compiles them)."""
        from graphcell_ir.backend import kernels, report
        fns = fast.setdefault(tuple(map(type, args)), [])
        kinds = self._native.kinds_of(args)
        why = "an argument without a native kind"
        if kinds is not None:
            native_fn = self._linked.get((name, kinds), False)
            if native_fn is False:   # not looked up yet
                t0 = time.perf_counter()
                found = self._native.load_jit(self._prefix + name, kinds)
                native_fn = self._linked[(name, kinds)] = found.fn
                why = found.why
                if native_fn is not None:
                    stats = kernels.cache_stats()
                    stats.disk_hits += 1
                    stats.native_hits += 1
                    report.phase("native (disk cache hit)", time.perf_counter() - t0,
                                 f"nn_loops.{name}")
                else:
                    _log("nn loop %s: %s", name, why)
                    if not found.refused:
                        native_fn = self._linked[(name, kinds)] = self._generate(name, kinds,
                                                                                 why)
            if native_fn is not None:
                if native_fn.__call__ not in fns:
                    fns.insert(0, native_fn.__call__)
                if native_fn(*args):
                    return
        numba_fn = self._numba(name)
        if numba_fn not in fns:
            fns.append(numba_fn)
        getattr(self._compiled(), name).why = why   # the reason a compile now reports
        numba_fn(*args)

    def _generate(self, name: str, kinds, why: str):
        """Loop ``name`` for ``kinds`` compiled by graphcell's code generator (no numba; its
        integer arithmetic is index arithmetic, so ``no_overflow``), linked and written to the
        disk cache; None when the generator refuses it (numba compiles it then)."""
        from graphcell_ir.backend import codegen, kernels, report
        if not codegen.enabled():
            return None
        t0 = time.perf_counter()
        fn, _ = codegen.compile_cached(self._text, name, kinds, self._prefix + name,
                                       no_overflow=True)
        if fn is None:
            return None
        # the source beside its objects, as numba's path keeps it
        _ensure_file(kernels.kernel_dir() / f"nn_{_module_key(self._text)}.py", self._text)
        dt = time.perf_counter() - t0
        stats = kernels.cache_stats()
        stats.misses.append(f"nn_loops.{name}{list(kinds)}: {why}")
        stats.compile_seconds += dt
        report.phase("codegen", dt, f"nn_loops.{name}")
        return fn

    def _numba(self, name: str):
        """numba's loop ``name``, writing the native object of each specialisation it compiles
        to the disk cache; returns True (it runs any arguments)."""
        fn = self._runners.get(name)
        if fn is None:
            from graphcell_ir.backend import kernels
            loop = getattr(self._compiled(), name)
            key, kinds_of = self._prefix + name, self._native.kinds_of

            def fn(*args):
                dispatcher = getattr(loop.mod, name)
                n = len(dispatcher.overloads)
                loop(*args)
                dispatcher = getattr(loop.mod, name)   # a rebuild replaces it
                if len(dispatcher.overloads) != n:
                    kinds = kinds_of(args)
                    if kinds is not None:
                        kernels.store_native(dispatcher, key, kinds)
                return True
            fn = self._runners[name] = fn
        return fn

    def _compiled(self):
        if self._module is None:
            self._module = _compile_module(numba_cache=False)
        return self._module


def _source() -> str:
    return Path(nn_loops.__file__).read_text()


def _module_key(text: str) -> str:
    # numba's cache index does not key on the njit options: they are part of the file's name
    return hashlib.sha256(f"{text}\n# {_JIT_OPTIONS} {sorted(PARALLEL)}".encode()).hexdigest()[:16]


def _compile_module(numba_cache: bool = True) -> types.SimpleNamespace:
    """The loops' module loaded from the kernel cache dir, each function a lazy njit dispatcher
    (numba's own cache beside the file holds the machine code per dtype); returns them wrapped
    in :class:`_Loop` (the module's globals stay plain dispatchers, which loops call)."""
    from graphcell_ir.backend import kernels, report
    t0 = time.perf_counter()
    text = _source()
    key = _module_key(text)
    path = _ensure_file(kernels.kernel_dir() / f"nn_{key}.py", text)
    name = f"graphcell_kernel_nn_{key}"
    mod = types.ModuleType(name)
    mod.__file__ = str(path) if path is not None else f"<graphcell nn kernels {key}>"
    exec(compile(text, mod.__file__, "exec"), mod.__dict__)
    sys.modules[name] = mod  # numba's cache finds a function's module by name
    import numba
    mod.prange = numba.prange
    names = [f for f, fn in vars(mod).items()
             if isinstance(fn, types.FunctionType) and fn.__module__ == name]
    _jit_all(mod, names, cache=numba_cache and path is not None)
    report.phase("kernel load", time.perf_counter() - t0, f"nn kernels {key}")
    loops = types.SimpleNamespace(**{f: _Loop(mod, f, path) for f in names})
    if not numba_cache and path is not None:
        for loop in vars(loops).values():
            loop.why = "no native object on disk"
    return loops


_JIT_OPTIONS = "error_model=numpy nogil=True"


def _jit_all(mod: types.ModuleType, names: list[str], cache: bool) -> None:
    import numba
    for f in names:
        fn = getattr(mod, f)
        fn = getattr(fn, "py_func", fn)
        setattr(mod, f, numba.njit(cache=cache, error_model="numpy", nogil=True,
                                   parallel=f in PARALLEL)(fn))


def _ensure_file(path: Path, text: str) -> Path | None:
    """``path`` holding ``text`` (written atomically when missing or different); None when the
    cache dir is unusable (the kernels then compile in memory only)."""
    try:
        try:
            if path.read_text() == text:
                return path
        except (OSError, UnicodeDecodeError):
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile
        fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
        return path
    except OSError as e:
        _log("nn kernels compile in memory only: %s", e)
        return None


class _Loop:
    """One compiled loop: times and counts the first call of each new specialisation, and
    recompiles the module without numba's cache if a cached entry cannot be loaded."""

    def __init__(self, mod: types.ModuleType, name: str, path: Path | None):
        self.mod, self.name, self.path = mod, name, path
        self.hits = 0   # numba's disk-cache hits so far
        self.why = "no numba cache entry for these types" if path else "cache dir unusable"

    def __call__(self, *args):
        fn = getattr(self.mod, self.name)
        n = len(fn.overloads)
        t0 = time.perf_counter()
        try:
            out = fn(*args)
        except Exception as e:
            if len(fn.overloads) != n or self.path is None:
                raise   # a specialisation that exists failed: not a cache problem
            out = self._rebuild(e, args)
            fn = getattr(self.mod, self.name)
        if len(fn.overloads) != n:
            self._first_call(fn, time.perf_counter() - t0)
        return out

    def _rebuild(self, err, args):
        from graphcell_ir.backend import kernels
        _log("nn kernel %s failed to load (%s): recompiling without cache", self.name, err)
        kernels._drop_numba_cache(self.path)
        names = [f for f, v in vars(self.mod).items() if hasattr(v, "py_func")]
        _jit_all(self.mod, names, cache=False)
        self.path = None
        self.why = f"numba cache entry unusable ({type(err).__name__}): rebuilt in memory"
        return getattr(self.mod, self.name)(*args)

    def _first_call(self, fn, seconds: float) -> None:
        from graphcell_ir.backend import kernels, report
        stats, name = kernels.cache_stats(), f"nn_loops.{self.name}"
        sig = str(fn.signatures[-1]) if fn.signatures else ""
        hits = sum(fn.stats.cache_hits.values())
        if hits > self.hits:
            stats.disk_hits += 1
            report.phase("numba (disk cache hit)", seconds, name)
        else:
            stats.misses.append(f"{name}{sig}: {self.why}")
            stats.compile_seconds += seconds
            report.phase("numba compile", seconds, f"{name}{sig}")
        self.hits = hits


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


_scratch = threading.local()


def _workspace(shape: tuple, dtype) -> np.ndarray:
    """A reusable buffer for a temporary that never leaves a kernel (the columns). A fresh
    multi-MB array costs a page fault per 4 KiB page whenever malloc has given the memory back
    (measured in the LeNet step: 0.6 ms of a 0.75 ms im2col); per thread, as a GEMM releases
    the GIL."""
    bufs = getattr(_scratch, "bufs", None)
    if bufs is None:
        bufs = _scratch.bufs = {}
    key = (shape, dtype)
    buf = bufs.get(key)
    if buf is None:
        if len(bufs) >= 8:   # a bounded cache: shapes of one model come back, others do not
            bufs.clear()
        buf = bufs[key] = np.empty(shape, dtype)
    return buf


def _cols(L, x: np.ndarray, g: C.Window) -> np.ndarray:
    n, c = x.shape[:2]
    cols = _workspace((n, c * g.kh * g.kw, g.oh * g.ow), x.dtype)
    L.im2col(_c(x), *_win(g), g.pt, g.pl, g.oh, g.ow, cols)
    return cols


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
    cols = _cols(L, x, g)
    y = np.matmul(w.reshape(grp, o // grp, -1), cols.reshape(n, grp, -1, g.oh * g.ow))
    return y.reshape(n, o, g.oh, g.ow)


@_quiet
def conv2d_backprop_filter(L, dy, x, *, filter_size, **win):
    if not _fast(dy, x):
        return C.conv2d_backprop_filter.ref(dy, x, filter_size=filter_size, **win)
    g, grp = _conv_geo(x.shape, tuple(filter_size), tuple(win.items())), win["group"]
    n, o = x.shape[0], filter_size[0]
    cols = _cols(L, x, g).reshape(n, grp, -1, g.oh * g.ow)
    d = _c(dy).reshape(n, grp, o // grp, g.oh * g.ow)
    dw = np.matmul(d, cols.transpose(0, 1, 3, 2)).sum(axis=0)   # (G, Og, Cg*KH*KW)
    return dw.reshape(filter_size)


@_quiet
def conv2d_backprop_input(L, dy, w, *, input_size, **win):
    if not _fast(dy, w):
        return C.conv2d_backprop_input.ref(dy, w, input_size=input_size, **win)
    g, grp = _conv_geo(tuple(input_size), w.shape, tuple(win.items())), win["group"]
    n, c, h, wd = input_size
    o = w.shape[0]
    wt = w.reshape(grp, o // grp, -1).transpose(0, 2, 1)          # (G, Cg*KH*KW, Og)
    d = _c(dy).reshape(n, grp, o // grp, g.oh * g.ow)
    dcols = np.matmul(wt, d, out=_workspace((n, grp, wt.shape[1], d.shape[3]), dy.dtype))
    dxp = _padded_zeros(input_size, g, dy.dtype)
    L.col2im(dcols.reshape(n, c * g.kh * g.kw, g.oh * g.ow), *_win(g), g.oh, g.ow, dxp)
    return _crop(dxp, g, h, wd)


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
    L.max_pool_grad(_padded(x, g, _lowest(x.dtype)), _c(dy), g.kh, g.kw, g.sh, g.sw,
                    dxp.reshape(n, c, -1), *_argmax_rows(n, g.ow, x.dtype))
    return _crop(dxp, g, *x.shape[2:])


def max_pool2d_grad_grad(L, x, gr, *, kernel_size, strides, pad_mode, data_format):
    if not _fast(x, gr):
        return C.max_pool2d_grad_grad.ref(x, gr, kernel_size=kernel_size, strides=strides,
                                          pad_mode=pad_mode, data_format=data_format)
    g = _pool_geo(x.shape, kernel_size, strides, pad_mode)
    _require(gr.shape == x.shape, "g", gr.shape)
    out = np.empty(x.shape[:2] + (g.oh, g.ow), x.dtype)
    n, c = x.shape[:2]
    L.max_pool_grad_grad(_padded(x, g, _lowest(x.dtype)), _padded(gr, g, 0).reshape(n, c, -1),
                         g.kh, g.kw, g.sh, g.sw, out, *_argmax_rows(n, g.ow, x.dtype))
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
    L.window_spread(share, g.kh, g.kw, g.sh, g.sw, dxp)
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
    L.select(_c(cond).reshape(-1), _c(x).reshape(-1), _c(y).reshape(-1), out.reshape(-1))
    return out


# --- small matrix products -------------------------------------------------------------------

SMALL_GEMM = 1 << 23
"""Products of at most this many multiply-adds (~0.3 ms on one core) run as row blocks of at
most :data:`GEMM_BLOCK`; larger ones go to BLAS whole."""
GEMM_BLOCK = 1 << 19
"""Multiply-adds per BLAS call of a small product: under the ~1M at which numpy's OpenBLAS
wakes its second thread (measured: 960k single-threaded, 1.15M threaded)."""


@_quiet
def matmul(L, x, y, *, transpose_a=False, transpose_b=False):
    """A small 2-D product as a few single-threaded BLAS calls. Waking OpenBLAS's worker thread
    saves ~0.01 ms on LeNet5's dense layers (32x400 @ 400x120) when the second core is idle,
    and costs a median 14 ms per call when another process runs there (the worker waits for
    the scheduler): 45 ms of a 50 ms train step on this shared 2-core machine."""
    a = x.T if transpose_a and x.ndim == 2 else x
    b = y.T if transpose_b and y.ndim == 2 else y
    if a.ndim != 2 or b.ndim != 2 or not _fast(a, b):
        return C_.matmul.ref(x, y, transpose_a=transpose_a, transpose_b=transpose_b)
    (m, k), n = a.shape, b.shape[1]
    rows = GEMM_BLOCK // max(k * n, 1)
    if m * k * n <= GEMM_BLOCK or m * k * n > SMALL_GEMM or rows < 1:
        return np.matmul(a, b)
    out = np.empty((m, n), np.result_type(a, b))
    for i in range(0, m, rows):
        np.matmul(a[i:i + rows], b, out=out[i:i + rows])
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
    if x.dtype not in _FLOATS or x.ndim < 1 or x.size == 0:
        return False
    k = x.shape[-1]
    return k <= SHORT_ROWS or (x.size <= EXP_LOOP_MAX and k <= LOOP_ROWS_MAX)


@_quiet_python
def softmax(L, x, *, axis):
    if not (_class_rows(x) and axis is not None and len(axis) == 1
            and axis[0] in (-1, x.ndim - 1)):
        return N.softmax.ref(x, axis=axis)   # other or several axes, large, empty: the reference
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
    loss = np.empty(logits.shape[:-1], logits.dtype)
    L.sparse_softmax_cross_entropy_rows(_rows(logits), _c(labels).reshape(-1), loss.reshape(-1))
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
        if rows:
            L.bn_row_stats(xs, stats)
        else:
            L.bn_channel_stats(xs, np.empty(hw), stats)
        new_mean, new_var = np.empty(c, pdt), np.empty(c, pdt)
        # numpy rounds a Python float to the array's dtype: (1 - momentum) * moving is float32
        L.bn_train_params(g, mu, v, stats, float(pdt.type(1 - momentum)), float(momentum),
                          m / (m - 1), float(epsilon), scale, new_mean, new_var)
        mu = stats[0]
    else:   # y from mean and variance, which come back as they are (the same objects)
        scale = np.empty(c, pdt)
        L.bn_infer_scale(g, v, float(pdt.type(epsilon)), scale)
        new_mean, new_var = mean, var
    (L.bn_apply_rows if rows else L.bn_apply)(xs, mu, scale, b, y)
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
    return functools.partial(KERNELS[op], loops(jit))


def implementation(op, jit: bool | None = None, loops=None):
    """What runs ``op`` outside a fused kernel: its kernel when it has one and the JIT is on,
    else its numpy reference (faster than the kernel's loops run as Python). ``loops``: a loops
    namespace of the caller's own (an artifact's linked loops, for its executable alone) in
    place of the process's."""
    if op not in KERNELS or not _jit_on(jit):
        return op.ref
    if loops is not None:
        return functools.partial(KERNELS[op], loops)
    return kernel(op, jit=True)

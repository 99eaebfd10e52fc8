"""Kernels: a fused group's lowered source as a callable on arrays, cached in memory.

``compile_kernel(ks)`` turns a :class:`~graphcell_ir.backend.lower.KernelSource` into a
:class:`Kernel`: a callable taking the fused op's operands and returning its results (it reshapes
the operands to the domain's rank, allocates the outputs, calls the compiled loop nest and
finishes reductions). What runs the loop nest:

- with ``native`` (an artifact's linked kernels, ``native.NativeKernels``): their code;
- with the JIT off (``GRAPHCELL_DISABLE_JIT=1`` or ``jit=False``): the source as plain Python
  (``prange`` is ``range``, ``math`` returns NaN/Inf where Python raises, as libm does): a third
  oracle;
- otherwise native code, by the one route of :mod:`.objects` (the object store, else
  graphcell's code generator): for the kernel's argument kinds at once (:class:`_Native`; a
  parallel kernel's ``prange`` loop runs on the native thread pool, ``native/pool.py``), or,
  for a kernel with a Python-scalar operand, per kinds at the first call with them
  (:class:`_PerKinds`: a float scalar is float64, an int int64, a numpy scalar its dtype);
- what has no native code (the generator refuses it, this process cannot link) is compiled by
  numba (:class:`_Numba`, through ``numba.njit`` alone) from the kernel's file in the cache
  directory, ``<cache dir>/kernels/k_<hash>.py``, whose machine code numba's own cache keeps.

The memory cache is keyed by the source's content hash (the source is a function of the group's
structure, shapes and dtypes only, never of locations), so structurally equal groups share one
kernel; it is the process's, changed under a lock. :func:`cache_stats` (:mod:`.objects`) counts
hits and misses and says why each miss compiled.
"""
from __future__ import annotations

import logging
import math
import os
import sys
import tempfile
import threading
import time
import types
import warnings
from pathlib import Path

import numpy as np

from graphcell_ir import switches
from graphcell_ir.backend import objects, report
from graphcell_ir.backend.cache_dir import cache_dir
from graphcell_ir.backend.fma import numba_fma
from graphcell_ir.backend.lower import KernelSource
from graphcell_ir.backend.native import abi, pool

log = logging.getLogger("graphcell.backend")

cache_stats = objects.cache_stats


def jit_enabled(jit: bool | None = None) -> bool:
    """Whether kernels run as machine code (``GRAPHCELL_DISABLE_JIT=1`` runs their source)."""
    if jit is not None:
        return jit
    return not switches.on("GRAPHCELL_DISABLE_JIT")


# --- the memory cache ------------------------------------------------------------------------------

class _Memory:
    """The process's kernels by (source key, jit), under a lock."""

    def __init__(self):
        self.runners: dict[tuple[str, bool], object] = {}
        self.lock = threading.Lock()

    def get(self, key: tuple):
        with self.lock:
            return self.runners.get(key)

    def put(self, key: tuple, runner):
        """``runner``, or the one another thread put first (both compiled the same source)."""
        with self.lock:
            return self.runners.setdefault(key, runner)

    def clear(self) -> None:
        with self.lock:
            self.runners.clear()


_MEMORY = _Memory()


def reset_cache(memory: bool = True) -> None:
    """Forget the statistics (and the kernels and objects kept in memory): for tests."""
    objects.LEDGER.reset()
    if memory:
        _MEMORY.clear()
        objects.store().forget()


def kernel_dir() -> Path:
    return cache_dir() / "kernels"


def disk_summary() -> dict:
    """What the disk cache holds: kernel sources, numba's compiled entries, native objects."""
    d = kernel_dir()
    files = [f for f in d.rglob("*") if f.is_file()] if d.is_dir() else []
    store = objects.store().summary()
    return {"directory": str(cache_dir()),
            "kernels": sum(1 for f in files if f.name.startswith("k_") and f.suffix == ".py"),
            "compiled entries": sum(1 for f in files if f.suffix in (".nbi", ".nbc")),
            "native objects": store["native objects"],
            "refusals": store["refusals"],
            "bytes": sum(f.stat().st_size for f in files) + store["bytes"]}


# --- compiling ---------------------------------------------------------------------------------------

def compile_kernel(ks: KernelSource, jit: bool | None = None, native=None) -> Kernel:
    """The :class:`Kernel` for ``ks`` (see the module docstring); ``native``: an artifact's
    linked kernels, used as they are when they have ``ks``."""
    jit = jit_enabled(jit)
    if jit and ks.parallel:
        pool.ensure_started()   # a no-op unless the pool exists without workers (a fork)
    fn = native.lookup(ks) if native is not None and jit else None
    if fn is not None:
        return Kernel(ks, fn)
    key = (ks.key, jit)
    runner = _MEMORY.get(key)
    if runner is not None:
        objects.LEDGER.memory_hit()
        return Kernel(ks, runner)
    t0 = time.perf_counter()
    runner = _runner(ks) if jit else _python_kernel(ks)
    if not jit:
        dt = time.perf_counter() - t0
        objects.LEDGER.miss(f"{_label(ks)}: plain Python (jit disabled)", dt)
        report.phase("python kernel", dt, ks.key)
    return Kernel(ks, _MEMORY.put(key, runner))


def _label(ks: KernelSource) -> str:
    return f"{ks.key} ({', '.join(ks.ops)})"


def _runner(ks: KernelSource):
    """What runs ``ks``'s loop nest compiled: native code, else numba."""
    kinds = abi.kernel_kinds(ks)
    if kinds is None:   # a Python-scalar operand: its kind is known at the call
        return _PerKinds(ks) if objects.usable() is None else _Numba(ks, objects.usable())
    fn, why = objects.jit_function(ks.module_text, "kernel", kinds, ks.key, label=_label(ks),
                                   parallel=ks.parallel, noalias=True)
    if fn is None:
        return _Numba(ks, why)
    return _Native(fn, ks)


class _Native:
    """A kernel's native code for the kinds it was compiled for; arguments of other kinds go to
    :class:`_PerKinds` (the code itself checks them)."""

    def __init__(self, fn, ks: KernelSource):
        self.native, self.ks, self.others = fn, ks, None
        self.cfunc = fn.cfunc   # called directly: a Python call less per kernel call

    def __call__(self, *args) -> None:
        if self.cfunc(*args):   # not OK: an argument of another kind
            self._other(args)

    def _other(self, args) -> None:
        if self._on_c_copies(args):
            return
        if self.others is None:
            log.info("kernel %s: arguments of other kinds than it was compiled for",
                     self.ks.key)
            self.others = _PerKinds(self.ks)
        self.others(*args)

    def _on_c_copies(self, args) -> bool:
        """Run the native code on C-ordered copies of the operands that are views in another
        order (a transpose, or a concatenation of them, which numpy lays out like its inputs):
        a copy costs what the kernel's own pass over the operand costs, compiling the kernel
        again for another layout far more. False when no operand needed a copy or the code still
        refuses them (another dtype or rank: :class:`_PerKinds` runs those). Outputs are the
        runner's new C arrays."""
        n_in = len(self.ks.in_shapes) + len(self.ks.consts)
        copies = [np.ascontiguousarray(a) if i < n_in and a.__class__ is np.ndarray
                  and not a.flags.c_contiguous else a for i, a in enumerate(args)]
        if all(c is a for c, a in zip(copies, args)):
            return False
        return self.cfunc(*copies) == abi.OK


class _PerKinds:
    """A kernel's native code per argument kinds, found (object store, code generator) at the
    first call with those kinds; kinds without native code run numba. Tried by the arguments'
    classes first, as ``nnkernels`` does (computing the kinds costs microseconds a call); each
    entry checks its arrays itself."""

    def __init__(self, ks: KernelSource):
        self.ks = ks
        self.fast: dict = {}       # argument classes -> entries (their cfunc) to try, in order
        self.by_kinds: dict = {}   # argument kinds -> (entry or None, why)
        self.numba = None

    def __call__(self, *args) -> None:
        for cfunc in self.fast.get(tuple(map(type, args)), ()):
            if not cfunc(*args):
                return
        self._first(args)

    def _first(self, args) -> None:
        args = self._contiguous(args)
        fns = self.fast.setdefault(tuple(map(type, args)), [])
        kinds = abi.kinds_of(args)
        why = "arguments without native kinds"
        if kinds is not None:
            if kinds not in self.by_kinds:
                self.by_kinds[kinds] = objects.jit_function(
                    self.ks.module_text, "kernel", kinds, self.ks.key, label=_label(self.ks),
                    parallel=self.ks.parallel, noalias=True)
            fn, why = self.by_kinds[kinds]
            if fn is not None:
                if fn.cfunc not in fns:
                    fns.append(fn.cfunc)
                if fn(*args):
                    return
        if self.numba is None:
            self.numba = _Numba(self.ks, why)
        self.numba(*args)

    def _contiguous(self, args) -> tuple:
        """The operands as C-ordered arrays (native code takes no strides; kernels never write
        their operands, and the outputs are allocated C-ordered)."""
        n = len(self.ks.in_shapes)
        return tuple(np.ascontiguousarray(a) if i < n and a.__class__ is np.ndarray
                     and not a.flags.c_contiguous else a for i, a in enumerate(args))


# --- numba, for what has no native code --------------------------------------------------------------

class _Numba:
    """numba's dispatcher of a kernel that has no native code (``why``), made at the first call
    from the kernel's file in the cache directory (``njit(cache=True)``: numba's own disk cache
    keeps the machine code), that first call timed as phase ``numba`` and counted as a compile."""

    def __init__(self, ks: KernelSource, why: str):
        self.ks, self.why, self.fn = ks, why, None

    def __call__(self, *args) -> None:
        if self.fn is not None:
            return self.fn(*args)
        t0 = time.perf_counter()
        self.fn = _numba_kernel(self.ks)
        try:
            self.fn(*args)
        except Exception as e:   # numba's cache entry could not be loaded: compile afresh
            log.info("kernel %s failed to load or compile (%s): recompiling without cache",
                     self.ks.key, e)
            drop_numba_cache(kernel_dir() / f"k_{self.ks.key}.py")
            self.fn = numba_module().njit(error_model="numpy", parallel=self.ks.parallel)(
                self.fn.py_func)
            self.fn(*args)
        dt = time.perf_counter() - t0
        objects.LEDGER.miss(f"{_label(self.ks)}: numba ({self.why})", dt)
        report.phase("numba", dt, self.ks.key)


def numba_module():
    """numba, imported for a fallback. Its OpenMP workers would spin after each parallel loop
    and steal the core BLAS threads and the runner need next (a 4-9 ms step became 20-150 ms on
    2 cores): they sleep instead, unless the user set ``OMP_WAIT_POLICY`` (read when numba
    loads libgomp)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import numba
    return numba


def _numba_kernel(ks: KernelSource):
    """numba's dispatcher of ``ks``, from its file in the cache directory (numba's disk cache
    beside it when the directory is writable)."""
    path = _ensure_file(ks)
    mod = _load_module(ks, path)
    numba = numba_module()
    mod.prange, mod.fma = numba.prange, numba_fma()
    return numba.njit(cache=path is not None, error_model="numpy", parallel=ks.parallel,
                      fastmath=False)(mod.kernel)


def _ensure_file(ks: KernelSource) -> Path | None:
    """The kernel's file, written if missing or wrong (its numba cache dropped then); None when
    the cache directory is unusable."""
    d = kernel_dir()
    path = d / f"k_{ks.key}.py"
    want = ks.module_text
    try:
        try:
            have = path.read_text()
        except FileNotFoundError:
            have = None
        except (OSError, UnicodeDecodeError):
            have = ""
        if have == want:
            return path
        if have is not None:
            log.info("kernel file %s corrupt (content does not match its hash): rewritten", path)
            drop_numba_cache(path)
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=d)
        with os.fdopen(fd, "w") as f:
            f.write(want)
        os.replace(tmp, path)
        return path
    except OSError as e:
        log.info("cache dir not writable (%s): kernel %s compiled in memory only", e, ks.key)
        return None


def drop_numba_cache(path: Path) -> None:
    for f in (path.parent / "__pycache__").glob(f"{path.stem}.*"):
        try:
            os.remove(f)
        except OSError:
            pass


def _load_module(ks: KernelSource, path: Path | None) -> types.ModuleType:
    """The kernel's module: executed from ``path`` (so numba can cache it) or from the text."""
    name = f"graphcell_kernel_{ks.key}"
    mod = types.ModuleType(name)
    mod.__file__ = str(path) if path is not None else f"<graphcell kernel {ks.key}>"
    exec(compile(ks.module_text, mod.__file__, "exec"), mod.__dict__)
    sys.modules[name] = mod  # numba's cache looks the function's module up by name
    return mod


# --- plain Python (the JIT off) ---------------------------------------------------------------------

# Kernels run as plain Python (the no-JIT oracle) see numpy scalars, which warn on inf/nan as the
# references would; graphcell's arithmetic is silent like MindSpore's (see ops/elementwise.py).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"graphcell_kernel_")


class _IEEEMath:
    """``math`` for the plain-Python oracle: NaN/Inf where Python raises a domain/range error."""

    def __getattr__(self, name):
        fn = getattr(math, name)
        if not callable(fn):
            return fn

        def ieee(*args):
            try:
                return fn(*args)
            except (OverflowError, ValueError):
                with np.errstate(all="ignore"):
                    return getattr(np, name)(*args)
        return ieee


def _python_kernel(ks: KernelSource):
    mod = _load_module(ks, None)
    mod.math = _IEEEMath()
    return mod.kernel


# --- the kernel ------------------------------------------------------------------------------------------

class Kernel:
    """A compiled kernel as a function of the fused op's operands -> list of its results."""

    def __init__(self, ks: KernelSource, fn):
        self.ks, self.fn = ks, fn
        self.consts = list(ks.consts)
        self.shapes = ks.in_shapes
        self.outs = ks.outputs
        self.simple = all(o.fill is None for o in ks.outputs)

    def __call__(self, *args) -> list:
        ins = [a if s is None else np.asarray(a).reshape(s) for a, s in zip(args, self.shapes)]
        outs = [np.empty(o.shape, o.dtype) if o.fill is None else np.full(o.shape, o.fill, o.dtype)
                for o in self.outs]
        self.fn(*ins, *self.consts, *outs)
        if self.simple:
            return [a.reshape(o.result_shape) for a, o in zip(outs, self.outs)]
        return [_finish(a, o) for a, o in zip(outs, self.outs)]


def _finish(acc: np.ndarray, o) -> np.ndarray:
    """A kernel output as the op's result: partial results folded in block order (a split
    whole-array reduction: ``accumulate`` folds one after the other, a fixed order), mean's
    division, the result dtype, the shape."""
    if o.partial_axis is not None:
        acc = getattr(np, o.combine).accumulate(acc, axis=o.partial_axis)
        acc = acc.take([-1], axis=o.partial_axis)
    if o.count:
        acc = acc / o.count
    if acc.dtype != o.result_dtype:
        acc = acc.astype(o.result_dtype)
    return acc.reshape(o.result_shape)

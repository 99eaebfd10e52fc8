"""Compiling lowered kernels, cached in memory and on disk.

A kernel whose operands are arrays is compiled by graphcell's own code generator
(:mod:`graphcell_ir.backend.codegen`: the source's subset straight to LLVM, 20-40 ms a kernel,
no numba) and linked as a native object (a parallel one runs that serial code on blocks of
rows, one per thread: :class:`_Blocks`; one with a Python-scalar operand gets its code at the
first call, when the scalar's type is known: :class:`_ScalarOperands`); numba compiles what the
generator refuses, and every kernel when ``GRAPHCELL_CODEGEN=0``.

``compile_kernel(ks)`` turns a :class:`~graphcell_ir.backend.lower.KernelSource` into a
:class:`Kernel`: a callable taking the fused op's operands and returning its results (it reshapes
the operands to the domain's rank, allocates the outputs, calls the compiled loop nest and
finishes reductions).

Caches:

- **memory**: by the source's content hash (the source is a function of the group's structure,
  shapes and dtypes only, never of locations), so structurally equal groups share one kernel.
- **disk**: the source is written to ``<cache_dir>/kernels/k_<hash>.py`` (atomically: a temporary
  file, then ``os.replace``; two processes writing the same name write the same bytes), imported
  from there, and compiled by ``numba.njit(cache=True)``, whose own index lives in
  ``__pycache__`` beside it; a second process loads the machine code instead of compiling. A file
  whose text is not exactly what the source hashes to (corrupt, truncated, stale) is rewritten;
  a numba cache entry that fails to load is deleted and the kernel recompiled.
- **native objects** (``<cache_dir>/native-jit/``, :mod:`.native`): what the code generator
  compiled for a kernel's argument kinds (dtype and rank of each array) is written as an object
  file for this CPU, and so is what numba compiled (numba's own object plus a trampoline: no
  second compile); a later process links it with llvmlite and never imports numba (W5 warm:
  0.5-0.6 -> 0.12 s). Kernels numba compiles with a native object skip numba's
  own cache (a numba cache hit has no LLVM IR to emit from); kernels without native code (a
  scalar operand; ``parallel=True`` when numba compiles it: native code is serial; one numba's
  runtime would be needed for, recorded as a refusal) keep it. ``GRAPHCELL_NATIVE_CACHE=0``
  turns it off (and with it the code generator, whose code lives there).

:func:`cache_stats` reports hits and misses, and why each miss compiled.

``GRAPHCELL_DISABLE_JIT=1`` (or ``jit=False``) runs the same source as plain Python (``prange`` is
``range``, ``math`` returns NaN/Inf where Python raises, as libm does): a third oracle.
"""
from __future__ import annotations

import glob
import logging
import math
import os
import sys
import tempfile
import time
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from graphcell_ir.backend import report
from graphcell_ir.backend.cache_dir import cache_dir
from graphcell_ir.backend.lower import KernelSource

log = logging.getLogger("graphcell.backend")

# numba's OpenMP workers spin for a while after each parallel loop; on a machine with few cores
# that spin steals the core BLAS threads and the runner need next (measured on W2: a 4-9 ms step
# became 20-150 ms). Sleeping workers cost a wake-up per parallel loop instead, which is why
# only big domains get a parallel loop (lower.PARALLEL_MIN). Read once, when numba first loads
# libgomp; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

HEADER = '''"""A graphcell kernel (generated from a fused group; see graphcell_ir.backend.lower)."""
import math

import numpy as np
from numpy import bool_, float16, float32, float64, int8, int16, int32, int64, uint8

prange = range  # the loader puts numba's prange here when it compiles

'''


def jit_enabled(jit: bool | None = None) -> bool:
    """Whether kernels are compiled with numba (``GRAPHCELL_DISABLE_JIT=1`` turns it off)."""
    if jit is not None:
        return jit
    return os.environ.get("GRAPHCELL_DISABLE_JIT", "") not in ("1", "true", "yes")


# --- statistics ----------------------------------------------------------------------------------

@dataclass
class CacheStats:
    """Kernel cache counters; ``misses`` holds one reason per compile."""

    memory_hits: int = 0
    disk_hits: int = 0
    misses: list[str] = field(default_factory=list)
    compile_seconds: float = 0.0
    native_hits: int = 0   # of the disk hits: native objects linked without numba

    def __str__(self) -> str:
        lines = [f"kernels: {self.memory_hits} memory hits, {self.disk_hits} disk hits "
                 f"({self.native_hits} native), {len(self.misses)} compiles "
                 f"({self.compile_seconds:.2f} s)"]
        lines += [f"  miss: {m}" for m in self.misses[-20:]]
        return "\n".join(lines)


_STATS = CacheStats()
_MEMORY: dict[tuple[str, bool], object] = {}


def cache_stats() -> CacheStats:
    """The process's kernel cache statistics (live object)."""
    return _STATS


def reset_cache(memory: bool = True) -> None:
    """Forget the statistics (and the in-memory kernels): for tests."""
    global _STATS
    _STATS = CacheStats()
    if memory:
        _MEMORY.clear()
        _NATIVE.clear()


def kernel_dir() -> Path:
    return cache_dir() / "kernels"


def disk_summary() -> dict:
    """What the disk cache holds: kernel sources, numba's compiled entries, and their size."""
    d = kernel_dir()
    files = [f for f in d.rglob("*") if f.is_file()] if d.is_dir() else []
    from graphcell_ir.backend.native import jit_dir
    n = jit_dir()
    objects = [f for f in n.iterdir() if f.is_file()] if n.is_dir() else []
    return {"directory": str(d),
            "kernels": sum(1 for f in files if f.name.startswith("k_") and f.suffix == ".py"),
            "compiled entries": sum(1 for f in files if f.suffix in (".nbi", ".nbc")),
            "native objects": sum(1 for f in objects if f.suffix == ".o"),
            "bytes": sum(f.stat().st_size for f in files + objects)}


# --- the disk file -------------------------------------------------------------------------------

def file_text(ks: KernelSource) -> str:
    return HEADER + ks.source


def _ensure_file(ks: KernelSource, reasons: list[str]) -> Path | None:
    """The kernel's file, written if missing or wrong; None when the cache dir is unusable."""
    d = kernel_dir()
    path = d / f"k_{ks.key}.py"
    want = file_text(ks)
    try:
        try:
            have = path.read_text()
        except FileNotFoundError:
            have = None
        except (OSError, UnicodeDecodeError):
            have = ""
        if have == want:
            return path
        reasons.append("no kernel file on disk" if have is None else
                       "kernel file corrupt (content does not match its hash): rewritten")
        if have is not None:
            _drop_numba_cache(path)
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=d)
        with os.fdopen(fd, "w") as f:
            f.write(want)
        os.replace(tmp, path)
        return path
    except OSError as e:
        reasons.append(f"cache dir not writable ({e}): compiled in memory only")
        return None


def _drop_numba_cache(path: Path) -> None:
    for f in glob.glob(str(path.parent / "__pycache__" / f"{path.stem}.*")):
        try:
            os.remove(f)
        except OSError:
            pass


# Kernels run as plain Python (the no-JIT oracle) see numpy scalars, which warn on inf/nan as the
# references would; graphcell's arithmetic is silent like MindSpore's (see ops/elementwise.py).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"graphcell_kernel_")


def _load_module(ks: KernelSource, path: Path | None) -> types.ModuleType:
    """The kernel's module: imported from ``path`` (so numba can cache it) or from the text."""
    name = f"graphcell_kernel_{ks.key}"
    mod = types.ModuleType(name)
    mod.__file__ = str(path) if path is not None else f"<graphcell kernel {ks.key}>"
    code = compile(file_text(ks), mod.__file__, "exec")
    exec(code, mod.__dict__)
    sys.modules[name] = mod  # numba's cache looks the function's module up by name
    return mod


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


# --- compiling -----------------------------------------------------------------------------------

def compile_kernel(ks: KernelSource, jit: bool | None = None, native=None) -> Kernel:
    """The :class:`Kernel` for ``ks`` (from the memory cache when it has one).

    ``native``: linked machine code (``native.NativeKernels``, from an artifact); a kernel it
    has runs as is, nothing compiled and numba not imported. Without it, a kernel whose native
    object the disk cache holds (:func:`native_kinds`) is linked from there, numba not imported
    either; one it lacks is compiled by numba and its object written there."""
    jit = jit_enabled(jit)
    # --- native kernels (graphcell_ir.backend.native): linked ahead of time, not compiled ---
    fn = native.lookup(ks) if native is not None and jit else None
    if fn is not None:
        return Kernel(ks, fn, jit)
    # --- end native kernels ---
    key = (ks.key, jit)
    fn = _MEMORY.get(key)
    if fn is not None:
        _STATS.memory_hits += 1
        return Kernel(ks, fn, jit)
    kinds = native_kinds(ks) if jit else None
    reasons: list[str] = []
    if kinds is not None:
        fn = _NATIVE.get((ks.key, kinds))
        if fn is not None:
            _STATS.memory_hits += 1
            return Kernel(ks, fn, jit)
        found = native_code(ks, kinds, reasons)
        if found is not None:
            fn = _NATIVE[(ks.key, kinds)] = _native(found, ks)
            return Kernel(ks, fn, jit)
        if reasons and reasons[-1] == _REFUSED:   # numba alone runs it, from numba's own cache
            kinds = None
    elif jit and _scalar_kinds_later(ks):
        fn = _MEMORY[key] = _ScalarOperands(ks)
        return Kernel(ks, fn, jit)
    t0 = time.perf_counter()
    fn = _numba_kernel(ks, reasons, numba_cache=kinds is None) if jit else _python_kernel(ks)
    if not jit:
        reasons.append("plain Python (jit disabled)")
    _MEMORY[key] = fn
    report.phase("kernel load", time.perf_counter() - t0, ks.key)
    k = Kernel(ks, fn, jit)
    k.pending = reasons
    k.emit = kinds
    return k


def native_kinds(ks: KernelSource) -> tuple | None:
    """The argument kinds under which ``ks``'s native object is cached, or None when numba
    alone runs it (no usable llvmlite, a scalar operand; a parallel kernel unless the code
    generator is on: its serial code then runs on blocks of rows, :class:`_Blocks`)."""
    from graphcell_ir.backend import codegen
    from graphcell_ir.backend import native as N
    if not N.jit_cache_enabled():
        return None
    return N.kernel_kinds(ks, parallel=codegen.enabled())


_REFUSED = "refused by an earlier emission: numba's own cache runs it"


def native_code(ks: KernelSource, kinds, reasons: list[str]):
    """The linked native code (``native.JitFunction``) of ``ks`` for argument ``kinds``: from
    the disk cache, else compiled by graphcell's code generator (and written there); None when
    numba must compile it — the reasons join ``reasons`` (the last is :data:`_REFUSED` when
    the disk holds a refusal: numba's own cache then runs it)."""
    from graphcell_ir.backend import native as N
    t0 = time.perf_counter()
    found = N.load_jit(ks.key, kinds)
    if found.fn is not None:
        _STATS.disk_hits += 1
        _STATS.native_hits += 1
        report.phase("native (disk cache hit)", time.perf_counter() - t0, ks.key)
        return found.fn
    reasons.append(found.why)
    if found.refused:
        reasons.append(_REFUSED)
        return None
    return _generated(ks, kinds, reasons)


def _scalar_kinds_later(ks: KernelSource) -> bool:
    """Whether ``ks`` has native code once its Python-scalar operands' kinds are known (at the
    call: numba types a Python float as float64, an int as int64, a numpy scalar as its
    dtype, and so does the code generator)."""
    from graphcell_ir.backend import codegen
    from graphcell_ir.backend import native as N
    return (any(s is None for s in ks.in_shapes) and codegen.enabled()
            and N.jit_cache_enabled())


def _generated(ks: KernelSource, kinds, reasons: list[str]):
    """``ks`` compiled by graphcell's code generator (``backend/codegen``: no numba), linked
    (a ``native.JitFunction``), its object written to the disk cache; None when the generator
    refuses the source or fails (numba compiles it then; the reason joins ``reasons``)."""
    from graphcell_ir.backend import codegen
    if not codegen.enabled():
        return None
    t0 = time.perf_counter()
    linked, why = codegen.compile_cached(file_text(ks), "kernel", kinds, ks.key)
    if linked is None:
        reasons.append(why)
        return None
    _ensure_file(ks, [])   # the source beside its object: what was compiled, for the reader
    dt = time.perf_counter() - t0
    _STATS.misses.append(f"{ks.key} ({', '.join(ks.ops)}): {'; '.join(reasons)}")
    _STATS.compile_seconds += dt
    report.phase("codegen", dt, ks.key)
    return linked


def _numba_kernel(ks: KernelSource, reasons: list[str], numba_cache: bool = True):
    """numba's dispatcher of ``ks`` (numba's own disk cache only when ``numba_cache``: a kernel
    the native cache keeps needs numba's LLVM IR, which a numba cache hit does not have)."""
    path = _ensure_file(ks, reasons)
    mod = _load_module(ks, path)
    import numba
    mod.prange = numba.prange
    return numba.njit(cache=numba_cache and path is not None, error_model="numpy",
                      parallel=ks.parallel, fastmath=False)(mod.kernel)


def _python_kernel(ks: KernelSource):
    mod = _load_module(ks, None)
    mod.math = _IEEEMath()
    return mod.kernel


_NATIVE: dict[tuple, "_Native"] = {}   # (key, kinds) -> linked native code of that kernel


class _Native:
    """A kernel's native code from the disk cache. Arrays of other kinds than it was compiled
    for (its code checks) go to numba's dispatcher, made when first needed."""

    def __init__(self, fn, ks: KernelSource):
        self.native, self.ks, self.numba = fn, ks, None
        self.cfunc = fn.cfunc   # called directly: a Python call less per kernel call

    def __call__(self, *args) -> None:
        status = self.cfunc(*args)
        if status != 0 and status != -2:   # numba: 0 ok, -2 "returned None"
            self._other(status, args)

    def _other(self, status: int, args) -> None:
        from graphcell_ir.backend.native import JIT_MISMATCH
        if status != JIT_MISMATCH:
            raise RuntimeError(f"native kernel {self.ks.key} failed (status {status})")
        if self._on_c_copies(args):
            return
        if self.numba is None:
            log.info("kernel %s: arguments its native code was not compiled for; numba "
                     "compiles it", self.ks.key)
            self.numba = _numba_kernel(self.ks, [])
        self.numba(*args)

    def _on_c_copies(self, args) -> bool:
        """Run the native code on C-ordered copies of the operands that are views in another
        order (a transpose, or a concatenation of them, which numpy lays out like its inputs):
        a copy costs what the kernel's own pass over the operand costs, a numba compile for
        strided arrays seconds. False when no operand needed a copy or the code still refuses
        them (another dtype or rank: numba runs those). Outputs are the runner's new C arrays."""
        n_in = len(self.ks.in_shapes) + len(self.ks.consts)
        copies = [np.ascontiguousarray(a) if i < n_in and a.__class__ is np.ndarray
                  and not a.flags.c_contiguous else a for i, a in enumerate(args)]
        if all(c is a for c, a in zip(copies, args)):
            return False
        return self.cfunc(*copies) in (0, -2)


class _ScalarOperands:
    """A kernel with a Python-scalar operand: native code per argument kinds, found (disk cache,
    code generator) at the first call with those kinds; kinds without native code run numba's
    dispatcher. Tried by the arguments' classes first, as ``nnkernels`` does (computing the
    kinds costs microseconds a call)."""

    def __init__(self, ks: KernelSource):
        self.ks = ks
        self.fast: dict = {}   # argument classes -> native functions to try, in order
        self.by_kinds: dict = {}   # argument kinds -> native function, None: numba runs them
        self.numba = None

    def __call__(self, *args) -> None:
        for fn in self.fast.get(tuple(map(type, args)), ()):
            if fn.cfunc(*args) in (0, -2):
                return
        self._first(args)

    def _first(self, args) -> None:
        from graphcell_ir.backend import native as N
        fns = self.fast.setdefault(tuple(map(type, args)), [])
        kinds = N.kinds_of(args)
        reasons: list[str] = []
        if kinds is not None and kinds not in self.by_kinds:
            self.by_kinds[kinds] = native_code(self.ks, kinds, reasons)
        fn = self.by_kinds.get(kinds)
        if fn is not None and fn not in fns:
            fns.append(fn)
        if fn is not None and fn(*args):
            return
        if self.numba is None:
            log.info("kernel %s: numba compiles it (%s)", self.ks.key,
                     "; ".join(reasons) or "arguments without native kinds")
            self.numba = _numba_kernel(self.ks, reasons)
        self.numba(*args)


def _native(fn, ks: KernelSource) -> "_Native":
    return _Blocks(fn, ks) if ks.parallel else _Native(fn, ks)


class _Blocks(_Native):
    """A parallel kernel's (serial) native code run on blocks of rows, one per thread: the
    blocks split the outer axis of every array that spans it (a broadcast one is passed whole)
    and run at once, because ctypes releases the GIL for the call. Lowering marks a kernel
    parallel only when the outer axis is not reduced, so blocks never write the same element."""

    def __init__(self, fn, ks: KernelSource):
        super().__init__(fn, ks)
        extent = ks.outputs[0].shape[0]
        shapes = list(ks.in_shapes) + [c.shape for c in ks.consts] + [o.shape for o in ks.outputs]
        self.split = [s[0] == extent for s in shapes]
        self.threads = _threads()

    def __call__(self, *args) -> None:
        n = args[-1].shape[0]
        parts = min(self.threads, n)
        if parts < 2:
            return super().__call__(*args)
        edges = [n * k // parts for k in range(parts + 1)]
        blocks = [[a[lo:hi] if split else a for a, split in zip(args, self.split)]
                  for lo, hi in zip(edges, edges[1:])]
        pending = [_pool().submit(self.cfunc, *b) for b in blocks[1:]]
        statuses = [self.cfunc(*blocks[0])] + [f.result() for f in pending]
        bad = [s for s in statuses if s != 0 and s != -2]
        if bad:
            self._other(bad[0], args)   # the whole call again: numba, or the error


_POOL = None


def _threads() -> int:
    """Threads a parallel kernel uses: ``GRAPHCELL_NUM_THREADS``, else the CPUs this process
    may run on."""
    env = os.environ.get("GRAPHCELL_NUM_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _pool():
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor
        _POOL = ThreadPoolExecutor(max_workers=max(1, _threads() - 1),
                                   thread_name_prefix="graphcell-kernel")
    return _POOL


class Kernel:
    """A compiled kernel as a function of the fused op's operands -> list of its results."""

    emit = None   # the kinds to write the native object for after numba compiled it

    def __init__(self, ks: KernelSource, fn, jit: bool):
        self.ks, self.fn, self.jit = ks, fn, jit
        self.pending: list[str] | None = None   # reasons, until the first call tells hit or miss
        self.consts = list(ks.consts)
        self.shapes = ks.in_shapes
        self.outs = ks.outputs
        self.simple = all(o.fill is None for o in ks.outputs)

    def __call__(self, *args) -> list:
        ins = [a if s is None else np.asarray(a).reshape(s) for a, s in zip(args, self.shapes)]
        outs = [np.empty(o.shape, o.dtype) if o.fill is None else np.full(o.shape, o.fill, o.dtype)
                for o in self.outs]
        if self.pending is not None:
            self._first_call(ins, outs)
        else:
            self.fn(*ins, *self.consts, *outs)
        if self.simple:
            return [a.reshape(o.result_shape) for a, o in zip(outs, self.outs)]
        return [_finish(a, o) for a, o in zip(outs, self.outs)]

    def _first_call(self, ins, outs) -> None:
        """The first call compiles (or loads from numba's disk cache): time it, count it."""
        reasons, self.pending = self.pending, None
        t0 = time.perf_counter()
        try:
            self.fn(*ins, *self.consts, *outs)
        except Exception as e:
            if not self.jit:
                raise
            log.info("kernel %s failed to load or compile (%s): recompiling without cache",
                     self.ks.key, e)
            _drop_numba_cache(kernel_dir() / f"k_{self.ks.key}.py")
            reasons.append(f"numba cache entry unusable ({type(e).__name__}): rebuilt")
            import numba
            self.fn = numba.njit(error_model="numpy", parallel=self.ks.parallel)(
                self.fn.py_func)
            _MEMORY[(self.ks.key, True)] = self.fn
            self.fn(*ins, *self.consts, *outs)
        dt = time.perf_counter() - t0
        stats = getattr(self.fn, "stats", None)
        if stats is not None and sum(stats.cache_hits.values()):
            _STATS.disk_hits += 1
            report.phase("numba (disk cache hit)", dt, self.ks.key)
            return
        if self.jit and not reasons:
            reasons.append("kernel file on disk but no numba cache entry for these types")
        _STATS.misses.append(f"{self.ks.key} ({', '.join(self.ks.ops)}): {'; '.join(reasons)}")
        _STATS.compile_seconds += dt
        report.phase("numba compile" if self.jit else "python kernel", dt, self.ks.key)
        if self.jit and self.emit is not None:
            store_native(self.fn, self.ks.key, self.emit)


def store_native(dispatcher, key: str, kinds) -> None:
    """Write the native object of what numba just compiled for ``kinds`` to the disk cache (a
    check of numba's IR and a trampoline, timed as phase "native emit"); a refusal is written
    too."""
    from graphcell_ir.backend import native as N
    t0 = time.perf_counter()
    try:
        obj = N.emit_jit(dispatcher, key, kinds)
    except N.NativeError as e:
        log.info("kernel %s has no native code (%s): numba runs it in later processes", key, e)
        obj = e
    except Exception as e:   # never fail a run for the cache's sake; the next run compiles
        log.info("kernel %s: emitting its native code failed (%s: %s)", key,
                 type(e).__name__, e)
        return
    N.store_jit(key, kinds, obj)
    report.phase("native emit", time.perf_counter() - t0, key)


def _finish(acc: np.ndarray, o) -> np.ndarray:
    """A kernel output as the op's result: mean's division, the result dtype, the shape."""
    if o.count:
        acc = acc / o.count
    if acc.dtype != o.result_dtype:
        acc = acc.astype(o.result_dtype)
    return acc.reshape(o.result_shape)

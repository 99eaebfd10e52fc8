"""The one route from kernel source to machine code: code generator -> object store -> linker.

Every kernel (``lower.py``'s generated sources) and every convolution/pooling loop
(``nn_loops.py``) becomes machine code here, for the JIT and for export alike:

1. the object store (``native/store.py``, ``<cache dir>/objects``) is asked for the function's
   object for these argument kinds and this target — a later process finds what an earlier one
   compiled, and links it without compiling or importing numba;
2. on a miss, graphcell's code generator (``backend/codegen``) compiles the source behind the
   entry the caller needs (``native/abi.py``: the JIT's object entry, an artifact's pointer
   entry) and the store keeps the object; a refusal (outside the generator's subset) is kept
   too, so no later process tries again;
3. the JIT links the object into this process (``native/linking.py``).

What the generator refuses comes back as ``(None, why)`` / :class:`NativeError`: the JIT runs it
with numba (through ``numba.njit`` and nothing else of numba's), an export lists it as having no
native code (it is compiled when the artifact is loaded).

:func:`cache_stats` counts what the kernel caches did in this process (hits, misses and why).

Example::

    >>> import numpy as np
    >>> src = "def inc(x):\\n    for i in range(x.shape[0]):\\n        x[i] += 1\\n"
    >>> fn, why = jit_function(src, "inc", (("array", "int64", 1),), key="doc-inc")
    >>> x = np.zeros(2, np.int64); fn(x), x.tolist()
    (True, [1, 1])
    >>> fn(np.zeros(2, np.float32))   # another dtype: the code refuses to run
    False
"""
from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass, field

from graphcell_ir.backend import codegen, report
from graphcell_ir.backend.cache_dir import cache_dir
from graphcell_ir.backend.lower import Unsupported
from graphcell_ir.backend.native import abi
from graphcell_ir.backend.native.linking import in_process, link_entry
from graphcell_ir.backend.native.store import NativeObject, ObjectStore
from graphcell_ir.backend.native.target import NativeError, emit_target, process_target

log = logging.getLogger("graphcell.backend")


# --- the statistics ------------------------------------------------------------------------------------

@dataclass
class CacheStats:
    """Kernel cache counters of this process; ``misses`` holds one reason per compile."""

    memory_hits: int = 0
    disk_hits: int = 0
    misses: list[str] = field(default_factory=list)
    compile_seconds: float = 0.0
    native_hits: int = 0   # of the disk hits: objects linked from the store

    def __str__(self) -> str:
        lines = [f"kernels: {self.memory_hits} memory hits, {self.disk_hits} disk hits "
                 f"({self.native_hits} native), {len(self.misses)} compiles "
                 f"({self.compile_seconds:.2f} s)"]
        lines += [f"  miss: {m}" for m in self.misses[-20:]]
        return "\n".join(lines)


class _Ledger:
    """The process's :class:`CacheStats`, changed under a lock, each event also counted in the
    active compile report (``report.count``)."""

    def __init__(self):
        self.stats = CacheStats()
        self.lock = threading.Lock()

    def memory_hit(self) -> None:
        with self.lock:
            self.stats.memory_hits += 1
        report.count("memory")

    def disk_hit(self, native: bool = True) -> None:
        with self.lock:
            self.stats.disk_hits += 1
            self.stats.native_hits += native
        report.count("disk")

    def miss(self, what: str, seconds: float) -> None:
        with self.lock:
            self.stats.misses.append(what)
            self.stats.compile_seconds += seconds
        report.count("compiled")

    def reset(self) -> None:
        with self.lock:
            self.stats = CacheStats()


LEDGER = _Ledger()


def cache_stats() -> CacheStats:
    """The process's kernel cache statistics (live object)."""
    return LEDGER.stats


# --- the store ---------------------------------------------------------------------------------------

_STORE: ObjectStore | None = None
_STORE_LOCK = threading.Lock()


def store() -> ObjectStore:
    """The process's object store (``<cache dir>/objects``)."""
    global _STORE
    with _STORE_LOCK:
        if _STORE is None:
            import llvmlite
            _STORE = ObjectStore(lambda: cache_dir() / "objects",
                                 producer=f"{codegen.VERSION} llvmlite {llvmlite.__version__}")
        return _STORE


def usable() -> str | None:
    """None when this process can compile and link native code, else why not (then numba runs
    every kernel)."""
    if not codegen.available():
        return "this llvmlite cannot run the code generator"
    if abi.array_layout() is None:
        return "numpy's array struct is not the expected one"
    return None


# --- the JIT -------------------------------------------------------------------------------------------

def jit_function(source: str, name: str, kinds, key: str, *, label: str | None = None,
                 no_overflow: bool = False, parallel: bool = False,
                 noalias: bool = False) -> tuple:
    """``(entry, "")``: function ``name`` of module ``source`` for arguments of ``kinds``, linked
    (an ``abi.ObjectEntry``: from the store, else compiled now and stored); ``(None, why)`` when
    it has no native code (refused by the generator, now or earlier; the generator failed; this
    process cannot link). ``key`` names the source; ``label`` the function in reports;
    ``parallel``: its final ``prange`` loop runs on the native thread pool (``native/pool.py``);
    ``noalias``: no array argument overlaps one it writes (see ``codegen.lower_module``)."""
    why = usable()
    if why is not None:
        return None, why
    kinds = tuple(tuple(k) for k in kinds)
    label = label or key
    id_, target = abi.jit_id(key + "+pool" * parallel + "+noalias" * noalias, kinds), \
        process_target()
    t0 = time.perf_counter()
    found = store().get(id_, target)
    if found.refused:
        return None, found.why
    if found.obj is not None:
        fn, why = _linked(found.obj)
        if fn is not None:
            LEDGER.disk_hit()
            report.phase("native (disk cache hit)", time.perf_counter() - t0, label)
            return fn, ""
    else:
        why = found.why
    t0 = time.perf_counter()
    try:
        layout = abi.array_layout()
        text = codegen.lower_module(source, name, kinds, abi.symbol_of(id_), entry="object",
                                    layout=layout, no_overflow=no_overflow, parallel=parallel,
                                    noalias=noalias)
        obj = _object(text, key, id_, kinds, target, codegen.pipeline(source, name))
    except Unsupported as e:
        reason = f"not in the code generator's subset ({e})"
        log.info("%s: the code generator refuses it (%s); numba compiles it", label, e)
        store().refuse(id_, target, reason)
        return None, reason
    except Exception as e:   # LLVM refused the module, or a bug of the generator
        log.warning("%s: the code generator failed (%s: %s); numba compiles it", label,
                    type(e).__name__, e)
        return None, f"code generator failed ({type(e).__name__}: {e})"
    fn, failed = _linked(obj)
    if fn is None:
        return None, failed
    store().put(obj)
    dt = time.perf_counter() - t0
    LEDGER.miss(f"{label}: {why}", dt)
    report.phase("codegen", dt, label)
    return fn, ""


def _object(text: str, key: str, id_: str, args, target, optimize) -> NativeObject:
    """The object of LLVM IR ``text`` (``optimize``: ``codegen.object_code``'s); Unsupported
    when it calls a symbol this process lacks."""
    data, needs = codegen.object_code(text, target, optimize)
    missing = [n for n in needs if not in_process(n)]
    if missing:
        raise Unsupported(f"it calls {', '.join(missing)}, which this process lacks")
    return NativeObject(key, id_, tuple(args), data, target, needs)


def _linked(obj: NativeObject) -> tuple:
    """``(entry, "")`` of a JIT object linked here, or ``(None, why)``."""
    missing = [n for n in obj.needs if not in_process(n)]
    if missing:
        return None, (f"native object calls symbols this process lacks "
                      f"({', '.join(missing)}): rebuilt")
    try:
        return link_entry(obj), ""
    except RuntimeError as e:
        return None, f"native object not linked ({e}): rebuilt"


# --- export -------------------------------------------------------------------------------------------

def emit_kernel(ks, input_dtypes, fixed_shapes: bool = True,
                counted: bool = False, optimize: bool = True, later=None) -> NativeObject:
    """The pointer entry's object of kernel ``ks`` (a ``lower.KernelSource``) for operands of
    ``input_dtypes``, its shapes constants of the code (else, ``fixed_shapes=False``, each
    array's dimensions follow its pointer: one object for every shape, as the runner's kernels
    are), for :func:`~.target.emit_target`. NativeError when there can be none (a scalar
    operand, the generator refuses it). ``counted``: a compile's kernel (the native step's),
    counted in the cache statistics and the compile report as the JIT's are. ``optimize=False``
    (shape-generic entries only): compiled without LLVM's passes, at the code generator's level 0
    (a small call's: ``step.emit.unoptimized``), a distinct object (:func:`unoptimized_key`) —
    unless the optimised one is in the object store already (the same results: no compile).
    ``later``: see :func:`_emitted`."""
    args = abi.signature(ks, input_dtypes)
    kinds = [("array", d, len(s)) for d, s in args]
    key = ks.key if optimize else unoptimized_key(ks.key)
    label = f"{key} ({', '.join(ks.ops)}{'' if optimize else '; unoptimised'})" if counted \
        else None
    if not fixed_shapes:
        if not optimize:   # the optimised object, when there is one already, serves as well
            found = store().get(abi.native_id(ks.key, kinds), emit_target()).obj
            if found is not None:
                return found
        return _emitted(ks.module_text, "kernel", kinds, key, kinds, None, False,
                        parallel=ks.parallel, noalias=True, label=label, optimize=optimize,
                        later=later)
    if not optimize:
        raise ValueError("only a shape-generic kernel is compiled unoptimised")
    return _emitted(ks.module_text, "kernel", kinds, ks.key, args, [s for _, s in args], False,
                    parallel=ks.parallel, noalias=True, label=label, later=later)


def emit_loop(source: str, name: str, kinds, counted: bool = False,
              later=None) -> NativeObject:
    """The pointer entry's object of loop ``name`` of ``source`` for arguments of ``kinds``
    (arrays as data pointer and dimensions); ``counted`` and ``later`` as for
    :func:`emit_kernel`."""
    kinds = tuple(tuple(k) for k in kinds)
    key = abi.loop_key(abi.source_hash(source), name)
    return _emitted(source, name, kinds, key, kinds, None, True,
                    label=f"nn_loops.{name}" if counted else None,
                    optimize=codegen.pipeline(source, name), later=later)


def unoptimized_key(key: str) -> str:
    """The key of the unoptimised object of kernel ``key`` (:func:`emit_kernel`): hex as every
    kernel key (an artifact's manifest checks it)."""
    return hashlib.sha256(f"{key} unoptimized".encode()).hexdigest()[:len(key)]


def _emitted(source: str, name: str, kinds, key: str, args, shapes, no_overflow: bool,
             parallel: bool = False, noalias: bool = False, label: str | None = None,
             optimize: bool = True, later=None):
    """The object (from the store, else compiled and stored); with a ``label``, counted in
    the cache statistics and the compile report under it. ``later(compile)``, when given, is
    handed the :class:`Compile` of an object the store lacks (its LLVM text made here: a
    refusal of the generator raises here as always) and its answer returned: the caller runs
    ``compile.run()`` where it likes (the native step's build: on its compile thread, while it
    emits) and ``compile.record()`` on the compile's thread."""
    if not codegen.available():
        raise NativeError("this llvmlite cannot run the code generator")
    id_, target = abi.native_id(key, args), emit_target()
    t0 = time.perf_counter()
    found = store().get(id_, target)
    if found.obj is not None:
        if label is not None:
            LEDGER.disk_hit()
            report.phase("native (disk cache hit)", time.perf_counter() - t0, label)
        return found.obj
    if found.refused:
        raise NativeError(found.why)
    try:
        text = codegen.lower_module(source, name, kinds, abi.symbol_of(id_), entry="pointers",
                                    shapes=shapes, no_overflow=no_overflow, parallel=parallel,
                                    noalias=noalias)
    except Unsupported as e:
        reason = f"not in the code generator's subset ({e})"
        store().refuse(id_, target, reason)
        raise NativeError(reason) from None
    except Exception as e:   # a bug of the generator: this export goes without it
        raise _failed(key, e) from None
    job = Compile(text, key, id_, tuple(args), target, label, found.why,
                  time.perf_counter() - t0, optimize)
    if later is not None:
        return later(job)
    obj = job.run()
    job.record()
    return obj


@dataclass
class Compile:
    """An object to compile from its LLVM ``text`` (:func:`_emitted`): :meth:`run` on any
    thread (LLVM, then the object store), :meth:`record` on the compile's (the cache statistics
    and the compile report, which is per thread)."""

    text: str
    key: str
    id: str
    args: tuple
    target: object
    label: str | None
    why: str          # why the store had no object
    seconds: float    # the time spent so far: the lookup and the lowering
    optimize: bool | str = True   # LLVM's passes (codegen.object_code's; see emit_kernel)

    def run(self, object_code=None) -> NativeObject:
        """The object, compiled (by ``object_code``, ``codegen.object_code``'s signature: by
        default that, here; the native step's compile worker lane passes its worker's) and
        stored; NativeError when LLVM or the generator fails."""
        t0 = time.perf_counter()
        try:
            data, needs = (object_code or codegen.object_code)(self.text, self.target,
                                                                 self.optimize)
        except Exception as e:
            raise _failed(self.key, e) from None
        obj = NativeObject(self.key, self.id, self.args, data, self.target, needs)
        store().put(obj)
        self.seconds += time.perf_counter() - t0
        return obj

    def expected_seconds(self) -> float:
        """A rough guess of :meth:`run`'s LLVM time (``codegen.expected_seconds``)."""
        return codegen.expected_seconds(self.text, self.optimize)

    def record(self) -> None:
        """Count the compile (with a ``label``)."""
        if self.label is not None:
            LEDGER.miss(f"{self.label}: {self.why}", self.seconds)
            report.phase("codegen", self.seconds, self.label)


def _failed(key: str, e: Exception) -> NativeError:
    log.warning("%s: the code generator failed (%s: %s)", key, type(e).__name__, e)
    return NativeError(f"the code generator failed ({type(e).__name__}: {e})")

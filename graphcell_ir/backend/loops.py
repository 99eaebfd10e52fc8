"""The convolution/pooling loops (``nn_loops.py``) as a namespace of compiled functions.

``namespace(jit)`` is what ``nnkernels`` calls the loops through, ``L.im2col(*args)``:

- ``jit=False``: the module ``nn_loops`` itself, run as Python (the third oracle);
- otherwise :class:`NativeLoops`: each (loop, argument kinds) by the one route of
  :mod:`.objects` — linked from the object store, else compiled by graphcell's code generator
  and stored — without importing numba. Kinds the generator refuses (none today) run numba's
  loops (:func:`numba_loops`);
- in a process that cannot link native code, numba's loops for everything.

numba's loops are the module's text copied into ``<cache dir>/kernels/nn_<hash>.py`` and
compiled there with ``njit(cache=True)`` (numba's own disk cache keeps their machine code), one
specialisation per argument types used; each first call of a specialisation is timed in the
compile report and counted in ``cache_stats()``.

Example::

    >>> import numpy as np
    >>> L = namespace(jit=True)
    >>> out = np.empty(4, np.float32)
    >>> L.select(np.array([1, 0, 1, 0], bool), np.ones(4, np.float32), np.zeros(4, np.float32),
    ...          out); out.tolist()
    [1.0, 0.0, 1.0, 0.0]
"""
from __future__ import annotations

import functools
import hashlib
import logging
import os
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

from graphcell_ir.backend import kernels, nn_loops, objects, report
from graphcell_ir.backend.native import abi

log = logging.getLogger("graphcell.backend")

PARALLEL: frozenset[str] = frozenset()
"""Loops numba compiles with ``parallel=True`` (none: on 2 shared cores the threads lost)."""
_NJIT = "error_model=numpy nogil=True"
"""numba's options for the loops (part of the file's name: numba's cache index ignores them)."""

_LOADED: dict[bool, object] = {}
_LOADED_LOCK = threading.Lock()   # one namespace per process, even when threads race


def namespace(jit: bool | None = None):
    """The loops, compiled (or, ``jit=False``, the module run as Python)."""
    jit = kernels.jit_enabled(jit)
    ns = _LOADED.get(jit)
    if ns is None:
        with _LOADED_LOCK:
            ns = _LOADED.get(jit)
            if ns is None:
                ns = _LOADED[jit] = _compiled() if jit else nn_loops
    return ns


def _compiled():
    why = objects.usable()
    if why is not None:
        log.info("nn loops: numba compiles them (%s)", why)
        return numba_loops(why)
    return NativeLoops()


def source() -> str:
    """The loops module's text (what is compiled is what the key names)."""
    return Path(nn_loops.__file__).read_text()


def module_key(text: str) -> str:
    """The hash naming the loops' text and numba's options (numba's cache file names)."""
    return hashlib.sha256(f"{text}\n# {_NJIT} {sorted(PARALLEL)}".encode()).hexdigest()[:16]


class NativeLoops:
    """The loops as native code per argument kinds (see the module docstring). A drop-in for
    the compiled module: ``L.im2col(*args)``."""

    def __init__(self):
        self._text = source()   # read once: what is compiled is what the key names
        self._prefix = abi.loop_key(abi.source_hash(self._text), "")
        self._numba = None
        # A convolution's first call runs its blocks on two threads at once: without the lock
        # each compiled every loop it calls (ResNet-18's cold compile compiled im2col, col2im
        # and their wide forms twice, 90 ms each, serially under llvmlite's lock).
        self._lock = threading.RLock()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        with self._lock:   # one bound function per name, whichever thread asks first
            call = self.__dict__.get(name)
            return call if call is not None else self._bind(name)

    def _bind(self, name: str):
        # argument classes -> the entries to try, in order (each checks its arrays' rank, dtype
        # and order itself, False when they are not its kinds), numba's loop last. Keyed by
        # classes, not kinds: computing the kinds of 12 arguments costs 7 us a call.
        fast: dict = {}
        by_kinds: dict = {}

        def call(*args):
            for fn in fast.get(tuple(map(type, args)), ()):
                if fn(*args):
                    return
            self._first(name, fast, by_kinds, args)
        call.__name__ = name
        setattr(self, name, call)   # bound once per name
        return call

    def _first(self, name: str, fast: dict, by_kinds: dict, args) -> None:
        """First call with these argument classes or kinds: their native code (object store,
        else the code generator), else numba's loop."""
        kinds = abi.kinds_of(args)
        why = "an argument without a native kind"
        fn = None
        if kinds is not None:
            with self._lock:   # compiled once, however many threads call it first
                if kinds not in by_kinds:
                    by_kinds[kinds] = objects.jit_function(
                        self._text, name, kinds, self._prefix + name, label=f"nn_loops.{name}",
                        no_overflow=True)   # their integer arithmetic is index arithmetic
                fn, why = by_kinds[kinds]
                fns = fast.setdefault(tuple(map(type, args)), [])
                if fn is not None and fn.__call__ not in fns:
                    fns.insert(0, fn.__call__)
            if fn is not None and fn(*args):
                return
        with self._lock:
            loop = getattr(self._numba_loops(), name)
            loop.why = why
            fns = fast.setdefault(tuple(map(type, args)), [])
            if loop not in fns:
                fns.append(loop)
        loop(*args)

    def hand_written(self, module, name: str, dtype: str):
        """The linked entry of a hand-written kernel (:func:`hand_written`)."""
        return hand_written(module, name, dtype)

    def _numba_loops(self):
        if self._numba is None:
            self._numba = numba_loops()
        return self._numba


@functools.lru_cache(maxsize=None)
def hand_written(module, name: str, dtype: str):
    """The linked entry of function ``name`` of a hand-written kernel ``module``
    (``codegen/direct_conv.py``, ``codegen/direct_filter.py``: its ``SOURCE`` and
    ``kinds(name, dtype)``) for ``dtype``: from the object store, else compiled now and stored,
    keyed by the module's text as loops are (``fn(*args)`` is True when it ran); or None when
    this process has no native code (the caller takes another path). Every loops namespace of
    the process gives this one (numba's loops too: the kernels are LLVM IR, not numba's)."""
    short = module.__name__.rsplit(".", 1)[-1]
    return objects.jit_function(module.SOURCE, name, module.kinds(name, dtype),
                                abi.loop_key(abi.source_hash(module.SOURCE), name),
                                label=f"{short}.{name}")[0]


# --- numba's loops: the fallback -----------------------------------------------------------------------

def numba_loops(why: str = "no native code") -> types.SimpleNamespace:
    """The loops' module loaded from the kernel cache dir, each function a lazy ``njit``
    dispatcher (numba's own cache beside the file holds the machine code), wrapped in
    :class:`_Loop` (the module's globals stay plain dispatchers, which loops call); ``why``:
    the reason a compile reports."""
    t0 = time.perf_counter()
    text = source()
    key = module_key(text)
    path = _ensure_file(kernels.kernel_dir() / f"nn_{key}.py", text)
    name = f"graphcell_kernel_nn_{key}"
    mod = types.ModuleType(name)
    mod.__file__ = str(path) if path is not None else f"<graphcell nn kernels {key}>"
    exec(compile(text, mod.__file__, "exec"), mod.__dict__)
    sys.modules[name] = mod  # numba's cache finds a function's module by name
    numba = kernels.numba_module()
    mod.prange = numba.prange
    names = [f for f, fn in vars(mod).items()
             if isinstance(fn, types.FunctionType) and fn.__module__ == name]
    _jit_all(mod, names, cache=path is not None)
    report.phase("kernel load", time.perf_counter() - t0, f"nn kernels {key}")
    return types.SimpleNamespace(**{f: _Loop(mod, f, path, why) for f in names},
                                 hand_written=hand_written)


def _jit_all(mod: types.ModuleType, names: list[str], cache: bool) -> None:
    numba = kernels.numba_module()
    for f in names:
        fn = getattr(mod, f)
        fn = getattr(fn, "py_func", fn)
        setattr(mod, f, numba.njit(cache=cache, error_model="numpy", nogil=True,
                                   parallel=f in PARALLEL)(fn))


def _ensure_file(path: Path, text: str) -> Path | None:
    """``path`` holding ``text`` (written atomically when missing or different); None when the
    cache dir is unusable (the loops then compile in memory only)."""
    try:
        try:
            if path.read_text() == text:
                return path
        except (OSError, UnicodeDecodeError):
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
        return path
    except OSError as e:
        log.info("nn loops compile in memory only: %s", e)
        return None


class _Loop:
    """One of numba's loops: times and counts the first call of each new specialisation (numba
    compiles it, or loads it from its own cache), and recompiles the module without numba's
    cache if a cached entry cannot be loaded."""

    def __init__(self, mod: types.ModuleType, name: str, path: Path | None, why: str):
        self.mod, self.name, self.path, self.why = mod, name, path, why

    def __call__(self, *args):
        fn = getattr(self.mod, self.name)
        n = len(fn.signatures)
        t0 = time.perf_counter()
        try:
            out = fn(*args)
        except Exception as e:
            if len(fn.signatures) != n or self.path is None:
                raise   # a specialisation that exists failed: not a cache problem
            out = self._rebuild(e, args)
            fn = getattr(self.mod, self.name)
        if len(fn.signatures) != n:
            dt, label = time.perf_counter() - t0, f"nn_loops.{self.name}{fn.signatures[-1]}"
            objects.LEDGER.miss(f"{label}: numba ({self.why})", dt)
            report.phase("numba", dt, label)
        return out

    def _rebuild(self, err, args):
        log.info("nn loop %s failed to load (%s): recompiling without cache", self.name, err)
        kernels.drop_numba_cache(self.path)
        names = [f for f, v in vars(self.mod).items() if hasattr(v, "py_func")]
        _jit_all(self.mod, names, cache=False)
        self.path = None
        self.why = f"numba cache entry unusable ({type(err).__name__}): rebuilt in memory"
        return getattr(self.mod, self.name)(*args)

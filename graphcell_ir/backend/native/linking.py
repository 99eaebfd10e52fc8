"""Linking object files into this process with llvmlite's ORC JIT (no numba), for the JIT and for
an artifact's code alike.

:class:`Linker` owns the process's one LLJIT and what it linked; it links each object once per
process (by id and the hash of its bytes) under one lock — llvmlite serialises calls into LLVM,
this lock keeps two threads from linking the same object twice. The symbols objects may import
resolve in the process (libm); nothing else is offered to them.

- :func:`link_entry`: a JIT object (the object entry of :mod:`.abi`), as an ``ObjectEntry``;
- :func:`link`: an artifact's objects (checked first by ``objfile.check_linkable``: only what
  graphcell emits is linked), as :class:`NativeKernels`, which ``kernels.compile_kernel`` asks
  for a kernel by its source before compiling anything, and whose :meth:`NativeKernels.loops`
  is a drop-in loops namespace for the executable that was given them.
"""
from __future__ import annotations

import ctypes
import hashlib
import itertools
import logging
import threading
from dataclasses import dataclass, field

import numpy as np

from graphcell_ir.backend.native.abi import (PARALLEL_FOR, ObjectEntry,
                                             PointerKernel, PointerLoop, kinds_of, loop_key,
                                             signature, source_hash)
from graphcell_ir.backend.native.objfile import check_linkable, undefined_symbols
from graphcell_ir.backend.native.store import NativeObject
from graphcell_ir.backend.native.target import (NativeError, Target, host_target, llvm_binding,
                                                process_target)

log = logging.getLogger("graphcell.backend")


class Linker:
    """The process's ORC JIT and the objects linked into it (see the module docstring)."""

    def __init__(self):
        self._jit = None
        self._linked: dict[tuple, tuple] = {}   # (id, sha256) -> (tracker, address)
        self._names = itertools.count()
        self._lock = threading.Lock()
        self._process = None

    def _lljit(self):
        if self._jit is None:
            self._jit = llvm_binding().create_lljit_compiler(suppress_errors=True)
        return self._jit

    def link_one(self, obj: NativeObject) -> tuple:
        """(tracker, entry address) of ``obj``, linked once per process. RuntimeError when it
        does not link (a symbol this process lacks, a malformed object)."""
        key = identity(obj)
        with self._lock:
            got = self._linked.get(key)
            if got is None:
                tracker = self._library([obj])
                got = self._linked[key] = (tracker, tracker[obj.symbol])
            return got

    def link_many(self, objects: list, failed: dict) -> dict:
        """identity -> (tracker, address) for ``objects``, linked as one JIT library (when that
        fails, one library per object, to keep the good; ``failed`` gets id -> why)."""
        with self._lock:
            fresh = list({o.symbol: o for o in objects if identity(o) not in self._linked}
                         .values())
            if fresh:
                self._link_all(fresh, failed)
            return {identity(o): self._linked[identity(o)] for o in objects
                    if identity(o) in self._linked}

    def _link_all(self, objects: list, failed: dict) -> None:
        try:
            tracker = self._library(objects)
        except RuntimeError as e:
            if len(objects) == 1:
                failed[objects[0].id] = f"llvmlite could not link it: {e}"
                return
            for obj in objects:
                self._link_all([obj], failed)
            return
        for obj in objects:
            self._linked[identity(obj)] = (tracker, tracker[obj.symbol])

    def _library(self, objects: list):
        builder = llvm_binding().JITLibraryBuilder()
        for obj in objects:
            builder.add_object_img(obj.data)
            builder.export_symbol(obj.symbol)
        builder.add_current_process()   # libm (tanhf, expf...) is in the process already
        if any(PARALLEL_FOR in (o.needs or undefined_symbols(o.data)) for o in objects):
            builder.import_symbol(PARALLEL_FOR, self.runtime_address(PARALLEL_FOR))
        return builder.link(self._lljit(), f"graphcell-native-{next(self._names)}")

    def link_code(self, data: bytes, symbols, imports: dict | None = None) -> object:
        """Link an object graphcell emitted in this process (never an artifact's), exporting
        ``symbols``, its undefined symbols of ``imports`` (name -> address: the native step's
        callees) bound; the tracker (``tracker[symbol]`` is an address). RuntimeError when LLVM
        refuses it."""
        with self._lock:
            builder = llvm_binding().JITLibraryBuilder()
            builder.add_object_img(data)
            for symbol in symbols:
                builder.export_symbol(symbol)
            for name, address in (imports or {}).items():
                builder.import_symbol(name, address)
            builder.add_current_process()
            return builder.link(self._lljit(), f"graphcell-native-{next(self._names)}")

    def runtime_address(self, name: str) -> int:
        """The address of runtime symbol ``name`` (the pool is linked at the first need)."""
        from graphcell_ir.backend.native import pool
        try:
            return pool.pool().addresses[name]
        except Exception as e:   # what needs it is not linked: the caller falls back
            raise RuntimeError(f"graphcell's thread pool could not be built "
                               f"({type(e).__name__}: {e})") from e

    def in_process(self, name: str) -> bool:
        """Whether this process defines symbol ``name`` (libm..., or graphcell's thread pool)."""
        if name == PARALLEL_FOR:   # graphcell's thread pool, linked at the first need
            return True
        if self._process is None:
            self._process = ctypes.CDLL(None)
        try:
            getattr(self._process, name)
            return True
        except AttributeError:
            return False


_LINKER: Linker | None = None
_LINKER_LOCK = threading.Lock()


def linker() -> Linker:
    """The process's linker (made at the first link: llvmlite is not imported before)."""
    global _LINKER
    with _LINKER_LOCK:
        if _LINKER is None:
            _LINKER = Linker()
        return _LINKER


def identity(obj: NativeObject) -> tuple[str, str]:
    """What identifies a linked object in this process: its id and the hash of its bytes."""
    return obj.id, hashlib.sha256(obj.data).hexdigest()


def in_process(name: str) -> bool:
    """Whether this process defines symbol ``name`` (libm, Python's C API...)."""
    return linker().in_process(name)


def link_entry(obj: NativeObject) -> ObjectEntry:
    """Link a JIT object (its object entry); RuntimeError when it does not link."""
    tracker, address = linker().link_one(obj)
    return ObjectEntry(obj, address, tracker)


# --- an artifact's objects ---------------------------------------------------------------------------

class LoopRecorder:
    """A loops namespace running ``inner``'s loops that records ``(name, kinds)`` of each call,
    and ``(module, name, dtype)`` of each hand-written kernel asked for (``written``): what an
    export runs an op through to learn which loops and kernels, for which kinds, to emit."""

    def __init__(self, inner):
        self.inner, self.seen, self.written = inner, set(), set()

    def hand_written(self, module, name: str, dtype: str):
        """``inner``'s entry (``NativeLoops.hand_written``), recorded."""
        self.written.add((module, name, dtype))
        return self.inner.hand_written(module, name, dtype)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args):
            self.seen.add((name, kinds_of(args)))
            return getattr(self.inner, name)(*args)
        return call


class NativeLoops:
    """Loops by name, ``ns.im2col(*args)``: the linked code for those argument kinds, else the
    loop of ``fallback()`` (the process's loops, built on first need): a drop-in for a loops
    namespace. The linked loops are called through object entries emitted here at the first
    call (:func:`checked_loops`: the arrays checked and unpacked natively, as the JIT's loops
    are), tried by the classes of the arguments as the process's loops are."""

    def __init__(self, variants: dict, fallback, linked: dict | None = None):
        self._variants = variants     # name -> {kinds: (object, address, tracker)}
        self._fallback = fallback
        self._compiled = None
        self._linked = linked or {}   # key -> [(object, address, tracker)]: hand_written's
        self._written: dict = {}      # (module, name, dtype) -> hand_written's answer
        self._entries: dict = {}      # object id -> its entry (:meth:`_entry`)
        self._checked = None          # object id -> (address, keep): checked_loops'
        self._lock = threading.RLock()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        variants = self._variants.get(name, {})
        fast: dict = {}   # argument classes -> the entries to try (False: not their kinds)

        def call(*args):
            for fn in fast.get(tuple(map(type, args)), ()):
                if fn(*args):
                    return True
            return self._first(name, variants, fast, args)
        call.__name__ = name
        setattr(self, name, call)   # bound once per name
        return call

    def _first(self, name: str, variants: dict, fast: dict, args) -> bool:
        """A first call with these argument classes or kinds: the artifact's loop for them,
        else the fallback's, each kept for the classes."""
        with self._lock:
            fns = fast.setdefault(tuple(map(type, args)), [])
            found = variants.get(kinds_of(args))
            if found is not None:
                fn = self._entry(*found)
                if fn not in fns:
                    fns.insert(0, fn)
                if fn(*args):
                    return True
            fallback = next((f for f in fns if isinstance(f, _Ran)), None)
            if fallback is None:   # last: these classes' other kinds may have native code
                fallback = _Ran(getattr(self.compiled(), name))
                fns.append(fallback)
        return fallback(*args)

    def _entry(self, obj, address: int, tracker):
        """``fn(*args)`` of a linked loop object, True when it ran, False when the arguments
        are not its kinds: its object entry (:func:`checked_loops`, all the namespace's loops
        emitted at the first asked), else its pointer entry behind a check in Python."""
        with self._lock:
            got = self._entries.get(obj.id)
            if got is None:
                if self._checked is None:
                    self._checked = checked_loops([(o, a) for kinds in self._variants.values()
                                                   for o, a, _ in kinds.values()])
                checked = self._checked.get(obj.id)
                if checked is None and self._checked:   # not one of the loops: on its own
                    checked = checked_loops([(obj, address)]).get(obj.id)
                got = (ObjectEntry(obj, checked[0], (tracker, checked[1])) if checked
                       else _KindsChecked(PointerLoop(obj, address, tracker), obj.args))
                self._entries[obj.id] = got
            return got

    def hand_written(self, module, name: str, dtype: str):
        """The linked entry of function ``name`` of hand-written kernel ``module``
        (``codegen/direct_conv.py``...: its ``SOURCE`` and ``kinds``) for ``dtype`` that the
        artifact brought (the export records those its ops ask for), else the fallback's
        (compiled here: an artifact exported before it recorded them)."""
        request = (module, name, dtype)
        got = self._written.get(request, _UNSEEN)
        if got is _UNSEEN:
            kinds = tuple(module.kinds(name, dtype))
            key = loop_key(source_hash(module.SOURCE), name)
            got = next((self._entry(obj, address, tracker)
                        for obj, address, tracker in self._linked.get(key, ())
                        if obj.args == kinds), None)
            if got is None:
                got = self.compiled().hand_written(module, name, dtype)
            self._written[request] = got
        return got

    def compiled(self):
        """The fallback loops: what runs the argument kinds without native code."""
        if self._compiled is None:
            self._compiled = self._fallback()
        return self._compiled

    def native_names(self) -> list[str]:
        return sorted(self._variants)


_UNSEEN = object()


class _Ran:
    """A fallback loop (the process's: it returns None) answering True, as an entry does."""

    def __init__(self, loop):
        self.loop = loop

    def __call__(self, *args) -> bool:
        self.loop(*args)
        return True


class _KindsChecked:
    """A :class:`PointerLoop` answering as an ``ObjectEntry`` does: ``fn(*args)`` is False,
    not run, when an argument is not of the kinds it was compiled for (a pointer entry trusts
    its caller)."""

    def __init__(self, entry: PointerLoop, kinds: tuple):
        self.entry, self.kinds, self.fits = entry, tuple(kinds), {}

    def __call__(self, *args) -> bool:
        key = tuple(map(_quick_kind, args))
        fits = self.fits.get(key)
        if fits is None:
            fits = self.fits[key] = kinds_of(args) == self.kinds
        return fits and self.entry(*args)


def _quick_kind(a):
    """What decides an argument's kind (:func:`~.abi.kinds_of`), cheaply: an array's dtype, rank
    and C order, a scalar's class (a scalar's kind is a function of its class)."""
    if a.__class__ is np.ndarray:
        return a.dtype, a.ndim, a.flags.c_contiguous
    return a.__class__


@dataclass
class NativeKernels:
    """Linked kernels by source key; what ``compile_kernel`` consults before compiling.

    ``failed``: id -> why that object could not be linked; ``missed``: the keys of kernels asked
    for that have no native code here (they were compiled instead); ``nn_loops``: the linked
    convolution/pooling loops (:meth:`loops`), for the executable these kernels were given to.
    """

    by_key: dict[str, list] = field(default_factory=dict)  # key -> [(object, address, tracker)]
    failed: dict[str, str] = field(default_factory=dict)
    missed: list[str] = field(default_factory=list)
    nn_loops: "NativeLoops | None" = None
    _checked: dict | None = None   # id -> (address, keep) of checked entries, when first asked
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def lookup(self, ks) -> PointerKernel | None:
        """The linked entry for kernel ``ks`` (same source, shapes, constants and outputs)."""
        found = self.find(ks)
        if found is None:
            self.missed.append(ks.key)
            return None
        obj, address, tracker = found
        return PointerKernel(obj, address, tracker, len(ks.outputs), self.checked_entry)

    def checked_entry(self, id_: str) -> tuple | None:
        """``(address, keep)`` of kernel ``id_``'s checked entry (:func:`checked_calls`), or
        None. The entries of all the kernels are emitted together at the first request — the
        first call of a kernel through the Python runner: a native step never asks."""
        with self._lock:
            if self._checked is None:
                self._checked = checked_calls([(obj, address) for entries in self.by_key.values()
                                               for obj, address, _ in entries
                                               if _fixed_shapes(obj)])
            return self._checked.get(id_)

    def find(self, ks) -> tuple | None:
        """``(object, entry address, tracker)`` linked for kernel ``ks``, or None (not counted
        in ``missed``: the native step asks for kernels the runner may not need)."""
        for obj, address, tracker in self.by_key.get(ks.key, ()):
            if not _fixed_shapes(obj):   # the native step's shape-generic entry of the source
                continue
            try:
                same = signature(ks, [d for d, _ in obj.args[:len(ks.in_shapes)]]) == obj.args
            except NativeError:
                same = False
            if same:
                return obj, address, tracker
        return None

    def loops(self, source: str, fallback) -> NativeLoops:
        """The linked loops of module text ``source`` (see :class:`NativeLoops`)."""
        prefix = loop_key(source_hash(source), "")
        variants: dict = {}
        for key, entries in self.by_key.items():
            if key.startswith(prefix):
                for obj, address, tracker in entries:
                    variants.setdefault(key[len(prefix):], {})[obj.args] = \
                        (obj, address, tracker)
        return NativeLoops(variants, fallback, self.by_key)

    def __len__(self) -> int:
        return sum(map(len, self.by_key.values()))


def link(objects, host: Target | None = None) -> NativeKernels:
    """Link ``objects`` (an artifact's NativeObjects) into this process. An object that does not
    check (``objfile.check_linkable``: only what graphcell emits is linked) or link (a symbol
    this process lacks...) is left out and listed in ``failed``; nothing raises but a missing
    llvmlite (ImportError)."""
    kernels = NativeKernels()
    todo = []
    triple = (host or host_target()).triple if objects else None
    for obj in objects:
        try:
            check_linkable(obj.data, obj.symbol, triple)
        except NativeError as e:
            kernels.failed[obj.id] = str(e)
            continue
        todo.append(obj)
    if not todo:
        return kernels
    linked = linker().link_many(todo, kernels.failed)
    for obj in todo:
        got = linked.get(identity(obj))
        if got is not None:
            kernels.by_key.setdefault(obj.key, []).append((obj, got[1], got[0]))
    return kernels


def _fixed_shapes(obj: NativeObject) -> bool:
    """Whether ``obj`` is a kernel's pointer entry (``(dtype, shape)`` per array), not a loop's."""
    return all(len(a) == 2 and isinstance(a[1], (tuple, list)) for a in obj.args)


_CHECKED = itertools.count()


def checked_calls(kernels: list) -> dict:
    """id -> ``(entry address, what keeps it linked)`` of an object entry
    (``abi.add_checked_call``) for each ``(object, address)`` of a linked fixed-shape kernel,
    all emitted in one module by graphcell here (not from any artifact); empty when that cannot
    be done (numpy's struct not the expected one, no code generator, LLVM refused): the kernels
    are then called through :class:`~.abi.PointerKernel`'s checks in Python."""
    from graphcell_ir.backend.native.abi import add_checked_call
    return _checked_entries(kernels, "kernel", lambda module, obj, address, symbol, layout:
                            add_checked_call(module, address,
                                             [(d, tuple(s)) for d, s in obj.args], symbol,
                                             layout))


def checked_loops(loops: list) -> dict:
    """id -> ``(entry address, what keeps it linked)`` of an object entry
    (``abi.add_checked_loop``: ndarrays and scalars in, checked natively) for each
    ``(object, address)`` of a linked loop, all emitted in one module here; empty when that
    cannot be done: the loops are then called through :class:`~.abi.PointerLoop` (their
    arguments made in Python) behind a check of their kinds in Python."""
    from graphcell_ir.backend.native.abi import add_checked_loop
    return _checked_entries(loops, "loop", lambda module, obj, address, symbol, layout:
                            add_checked_loop(module, address, obj.args, symbol, layout))


def _checked_entries(entries: list, what: str, add) -> dict:
    """``checked_calls``/``checked_loops``: ``add(module, object, address, symbol, layout)``
    for each ``(object, address)``, one module compiled and linked."""
    from graphcell_ir.backend import codegen
    from graphcell_ir.backend.native.abi import array_layout
    layout = array_layout()
    if not entries or layout is None or not codegen.available():
        return {}
    import llvmlite.ir as ir
    n = next(_CHECKED)
    module, symbols = ir.Module(f"checked{n}"), {}
    try:
        for i, (obj, address) in enumerate(entries):
            symbols[obj.id] = f"graphcell_{what}_checked{n}_{i}"
            add(module, obj, address, symbols[obj.id], layout)
        data, _ = codegen.object_code(str(module), process_target(), optimize=False)
        tracker = linker().link_code(data, symbols.values())
    except Exception as e:   # a dtype it lacks, an LLVM refusal: the Python checks still work
        log.info("no checked entries for an artifact's %ss (%s: %s)", what, type(e).__name__, e)
        return {}
    return {id_: (tracker[sym], tracker) for id_, sym in symbols.items()}

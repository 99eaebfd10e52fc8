"""Linking object files with llvmlite's ORC JIT (no numba) and calling their entries through
ctypes: NativeKernels, NativeLoops. See the package docstring.
"""
from __future__ import annotations

import ctypes
import hashlib
import itertools
import threading
from dataclasses import dataclass, field

import numpy as np

from graphcell_ir.backend.lower import KernelSource
from graphcell_ir.backend.native.emitting import (NativeObject, _SCALARS, STUBS, kinds_of, loop_key,
                                              signature, source_hash, symbol_of)
from graphcell_ir.backend.native.objfile import check_linkable
from graphcell_ir.backend.native.target import NativeError, Target, _llvm, host_target


# --- linking -------------------------------------------------------------------------------------

_JIT = None
_LINKED: dict[tuple[str, str], tuple] = {}    # (id, sha256 of the object) -> (tracker, address)
_LINK_LOCK = threading.Lock()
_LIBRARIES = itertools.count()


def _jit():
    global _JIT
    if _JIT is None:
        _JIT = _llvm().create_lljit_compiler(suppress_errors=True)
    return _JIT


class NativeFunction:
    """A linked kernel entry, called like the numba kernel: ``fn(*operands, *consts, *outputs)``.

    Every argument must be an ndarray of the recorded dtype and shape (operands that are not
    C-contiguous are copied; outputs must be); anything else raises TypeError, which the runner
    answers by rerunning the call on the interpreter.
    """

    def __init__(self, obj: NativeObject, address: int, tracker, n_outputs: int):
        self.id, self.key, self.tracker = obj.id, obj.key, tracker   # the tracker keeps the code
        self.args = tuple((np.dtype(d), tuple(s)) for d, s in obj.args)
        self.n_inputs = len(self.args) - n_outputs
        proto = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.c_void_p] * (len(self.args) + 2))
        self.cfunc = proto(address)
        self._ret = ctypes.create_string_buffer(64)    # numba's return slot (None: unused)
        self._exc = ctypes.create_string_buffer(64)    # its exception slot (never raised)

    def __call__(self, *arrays) -> None:
        if len(arrays) != len(self.args):
            raise TypeError(f"native kernel {self.id}: {len(arrays)} arguments for "
                            f"{len(self.args)}")
        ptrs = []
        for i, (a, (dtype, shape)) in enumerate(zip(arrays, self.args)):
            if a.__class__ is not np.ndarray or a.dtype != dtype or a.shape != shape:
                got = f"{getattr(a, 'dtype', type(a).__name__)}{list(getattr(a, 'shape', ()))}"
                raise TypeError(f"native kernel {self.id}: argument {i} is {got}, compiled for "
                                f"{dtype}{list(shape)}")
            if not a.flags.c_contiguous:
                if i >= self.n_inputs:
                    raise TypeError(f"native kernel {self.id}: output {i} is not C-contiguous")
                a = np.ascontiguousarray(a)
            ptrs.append(a)
        status = self.cfunc(self._ret, self._exc, *[a.ctypes.data for a in ptrs])
        if status not in (0, -2):   # numba: 0 ok, -2 "returned None"
            raise RuntimeError(f"native kernel {self.id} failed (status {status})")

    def __repr__(self) -> str:
        return f"<NativeFunction {symbol_of(self.id)}>"


class LoopRecorder:
    """A loops namespace running ``inner``'s loops that records ``(name, kinds)`` of each call:
    what an export runs an op through to learn which loops, for which types, to emit."""

    def __init__(self, inner):
        self.inner, self.seen = inner, set()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args):
            self.seen.add((name, kinds_of(args)))
            return getattr(self.inner, name)(*args)
        return call


class NativeLoop:
    """A linked loop for one tuple of argument kinds; ``fn(*args)`` like numba's dispatcher."""

    def __init__(self, obj: NativeObject, address: int, tracker):
        self.id, self.tracker = obj.id, tracker
        ctypes_args = [ctypes.c_void_p, ctypes.c_void_p]
        for kind in obj.args:
            ctypes_args += ([ctypes.c_void_p] + [ctypes.c_int64] * kind[2]
                            if kind[0] == "array" else [_SCALARS[kind[1]]])
        self.cfunc = ctypes.CFUNCTYPE(ctypes.c_int32, *ctypes_args)(address)
        self._ret = ctypes.create_string_buffer(64)
        self._exc = ctypes.create_string_buffer(64)

    def __call__(self, *args) -> None:
        flat = []
        for a in args:
            if a.__class__ is np.ndarray:
                flat.append(a.ctypes.data)
                flat.extend(a.shape)
            else:
                flat.append(a)
        status = self.cfunc(self._ret, self._exc, *flat)
        if status not in (0, -2):
            raise RuntimeError(f"native loop {self.id} failed (status {status})")


class NativeLoops:
    """Loops by name, ``ns.im2col(*args)``: the linked code for those argument kinds, else the
    loop of ``fallback()`` (numba's, built on first need): a drop-in for a loops namespace."""

    def __init__(self, variants: dict, fallback):
        self._variants = variants     # name -> {kinds: NativeLoop}
        self._fallback = fallback
        self._compiled = None

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        variants = self._variants.get(name, {})

        def call(*args):
            fn = variants.get(kinds_of(args))
            if fn is not None:
                return fn(*args)
            return getattr(self.compiled(), name)(*args)
        call.__name__ = name
        setattr(self, name, call)   # bound once per name
        return call

    def compiled(self):
        """The fallback loops (numba's): what runs the argument kinds without native code."""
        if self._compiled is None:
            self._compiled = self._fallback()
        return self._compiled

    def native_names(self) -> list[str]:
        return sorted(self._variants)


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

    def lookup(self, ks: KernelSource) -> NativeFunction | None:
        """The linked entry for ``ks`` (same source, shapes, constants and outputs), or None."""
        for obj, address, tracker in self.by_key.get(ks.key, ()):
            try:
                same = signature(ks, [d for d, _ in obj.args[:len(ks.in_shapes)]]) == obj.args
            except NativeError:
                same = False
            if same:
                return NativeFunction(obj, address, tracker, len(ks.outputs))
        self.missed.append(ks.key)
        return None

    def loops(self, source: str, fallback) -> NativeLoops:
        """The linked loops of module text ``source`` (see :class:`NativeLoops`)."""
        prefix = loop_key(source_hash(source), "")
        variants: dict = {}
        for key, entries in self.by_key.items():
            if key.startswith(prefix):
                for obj, address, tracker in entries:
                    variants.setdefault(key[len(prefix):], {})[obj.args] = \
                        NativeLoop(obj, address, tracker)
        return NativeLoops(variants, fallback)

    def __len__(self) -> int:
        return sum(map(len, self.by_key.values()))


def link(objects, host: Target | None = None) -> NativeKernels:
    """Link ``objects`` (NativeObjects) into this process. An object that does not check
    (:func:`~.objfile.check_linkable`: only what graphcell emits is linked) or link (a symbol
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
    with _LINK_LOCK:
        fresh = list({o.symbol: o for o in todo if cache_key(o) not in _LINKED}.values())
        if fresh:
            _link_objects(fresh, kernels.failed)
        for obj in todo:
            got = _LINKED.get(cache_key(obj))
            if got is not None:
                kernels.by_key.setdefault(obj.key, []).append((obj, got[1], got[0]))
    return kernels


def cache_key(obj: NativeObject) -> tuple[str, str]:
    """What identifies a linked object in this process: its id and the hash of its bytes."""
    return obj.id, hashlib.sha256(obj.data).hexdigest()


def link_once(key, symbol: str, images: list, imports: dict) -> tuple:
    """(tracker, address of ``symbol``) of one JIT library made of the object ``images`` —
    linked once per ``key`` in this process. ``imports``: symbol -> address for names the
    process lacks (stubs). RuntimeError when it does not link."""
    with _LINK_LOCK:
        got = _LINKED.get(key)
        if got is None:
            builder = _llvm().JITLibraryBuilder()
            for image in images:
                builder.add_object_img(image)
            builder.export_symbol(symbol)
            builder.add_current_process()
            for name, address in imports.items():
                builder.import_symbol(name, address)
            tracker = builder.link(_jit(), f"graphcell-jit-{next(_LIBRARIES)}")
            got = _LINKED[key] = (tracker, tracker[symbol])
        return got


def _link_objects(objects: list, failed: dict) -> None:
    """One JIT library for all ``objects``; when that fails, one per object, to keep the good."""
    try:
        tracker = _link_library(objects)
    except RuntimeError as e:
        if len(objects) == 1:
            failed[objects[0].id] = f"llvmlite could not link it: {e}"
            return
        for obj in objects:
            _link_objects([obj], failed)
        return
    for obj in objects:
        _LINKED[cache_key(obj)] = (tracker, tracker[obj.symbol])


def _link_library(objects: list):
    llvm = _llvm()
    builder = llvm.JITLibraryBuilder()
    for obj in objects:
        builder.add_object_img(obj.data)
        builder.export_symbol(obj.symbol)
    builder.add_current_process()   # libm (tanhf, expf...) is in the process already
    for name, stub in STUBS.items():
        builder.import_symbol(name, ctypes.cast(stub, ctypes.c_void_p).value)
    return builder.link(_jit(), f"graphcell-native-{next(_LIBRARIES)}")



"""Native kernels: a kernel's machine code for this CPU, emitted once, linked later without numba.

**Emitting** (needs numba; ``graphcell.export`` does it): :func:`emit` compiles a
:class:`~graphcell_ir.backend.lower.KernelSource` for fixed argument types with the same source
and numba flags as :mod:`.kernels` — serially: ``prange`` stays ``range``, because numba's
parallel runtime is numba — behind a generated entry taking one data pointer per argument::

    def entry(p0, p1, p2):
        kernel(carray(p0, (32, 10), D0), carray(p1, (32, 10), D1), carray(p2, (1, 10), D2))

:func:`emit_loop` does the same for a function of a module of loops (the convolution/pooling
loops of ``nnkernels``), for the argument kinds it was called with (each array becomes its data
pointer and dimensions, each scalar is passed by value).

In numba's LLVM module the entry is renamed ``graphcell_kernel_<id>``, everything else becomes
internal under a name derived from it (so the same kernel gives the same bytes in any process)
and what the entry does not reach is dropped (numba's Python wrappers, hence every reference to
the Python C API). llvmlite emits the object file for this CPU: its triple, CPU name and
features are the :class:`Target` recorded beside it. The undefined symbols left are libm's
(``tanhf``...); code that still needs numba's runtime (it allocates, or calls numba's C helpers)
is refused with a NativeError, except for ``NRT_MemInfo_call_dtor``, which numba's decref names
but never calls on the meminfo-less arrays an entry builds (it links to a stub).

**Linking** (llvmlite only; ``graphcell.load(native=True)``): :func:`link` adds object files to
one ORC JIT library that may use the process's symbols, and returns :class:`NativeKernels`, which
:func:`~graphcell_ir.backend.kernels.compile_kernel` asks for a kernel by its source before
compiling anything, and whose :meth:`NativeKernels.loops` is a drop-in loops namespace
(``nnkernels.use_native_loops``). A :class:`NativeFunction` calls its entry through ctypes with numba's CPU
calling convention, ``int32 entry(void *ret, void *excinfo, void *p0, ...)`` (0: success), after
checking each array's dtype, shape and memory order: the machine code trusts its arguments.

**The JIT's disk cache** (``kernels``/``nnkernels``, no export involved): :func:`emit_jit` keeps
what numba's dispatcher compiled for some argument kinds (numba's own object file plus a
trampoline reading numpy's array struct; nothing compiled again),
:func:`store_jit` writes it under ``<cache dir>/native-jit/`` (header: id, kinds, target,
SHA-256), :func:`load_jit` links it in a later process, or says why not (missing, corrupt, for
another CPU: the caller compiles with numba and rewrites it).

Example (emitting needs numba)::

    >>> from graphcell_ir.backend.lower import KernelSource, Output
    >>> src = "def kernel(x, out0):\\n    for i0 in range(3):\\n        out0[i0] = x[i0] * 2\\n"
    >>> f4 = np.dtype(np.float32)
    >>> ks = KernelSource(src, ((3,),), (), (Output((3,), f4, (3,), f4),), False)
    >>> obj = emit(ks, [f4])
    >>> obj.symbol == "graphcell_kernel_" + obj.id, obj.args[0]
    (True, ('float32', (3,)))
    >>> fn = link([obj]).lookup(ks)
    >>> out = np.empty(3, np.float32)
    >>> fn(np.arange(3, dtype=np.float32), out); out
    array([0., 2., 4.], dtype=float32)
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import itertools
import json
import os
import struct
import tempfile
import threading
from dataclasses import dataclass, field

import numpy as np

from graphcell_ir.backend.cache_dir import cache_dir
from graphcell_ir.backend.lower import KernelSource

__all__ = ["ABI", "NativeError", "Target", "NativeObject", "NativeFunction", "NativeKernels",
           "NativeLoops", "LoopRecorder", "emit", "emit_loop", "link", "host_target", "native_id",
           "signature", "symbol_of", "check_object", "kinds_of", "loop_key", "source_hash",
           "JIT_ABI", "JIT_MISMATCH", "JitFunction", "JitLookup", "array_layout", "emit_jit",
           "jit_cache_enabled", "kernel_kinds", "load_jit", "store_jit"]

ABI = "graphcell-native-1"
"""The entry's calling convention and naming; an artifact recording another one is not linked."""

class NativeError(Exception):
    """A kernel has no native code (emitting) or its code cannot be used here (linking); ``str()``
    says why. Callers fall back to compiling the kernel; it never reaches users as an error."""


# --- the target ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """What an object file was emitted for: LLVM triple, CPU name, features (``+avx2,-avx512f``)."""

    triple: str
    cpu: str
    features: str

    def required(self) -> set[str]:
        """The features the code may use (the ``+`` ones)."""
        return {f[1:] for f in self.features.split(",") if f.startswith("+")}

    def runs_on(self, host: Target) -> str | None:
        """None when code for this target runs on ``host``, else the reason it does not. The CPU
        name only tunes scheduling; the triple and the enabled features decide."""
        if self.triple != host.triple:
            return f"the code is for {self.triple}, this machine is {host.triple}"
        missing = sorted(self.required() - host.required())
        if missing:
            more = " ..." if len(missing) > 8 else ""
            return (f"the code was emitted for a {self.cpu} and uses CPU feature(s) this "
                    f"{host.cpu} lacks: {', '.join(missing[:8])}{more}")
        return None


@functools.lru_cache(maxsize=1)
def host_target() -> Target:
    """This process's CPU as llvmlite sees it (no numba)."""
    llvm = _llvm()
    try:
        features = llvm.get_host_cpu_features().flatten()
    except RuntimeError:   # llvmlite cannot read them here: only feature-free code may run
        features = ""
    return Target(llvm.get_process_triple(), llvm.get_host_cpu_name(), features)


def _emit_target() -> Target:
    """The target numba compiles for (it honours NUMBA_CPU_NAME / NUMBA_CPU_FEATURES)."""
    from numba.core import config
    from numba.core.codegen import get_host_cpu_features
    llvm = _llvm()
    cpu = config.CPU_NAME or llvm.get_host_cpu_name()
    features = config.CPU_FEATURES if config.CPU_FEATURES is not None else get_host_cpu_features()
    return Target(llvm.get_process_triple(), cpu, features)


# --- emitting ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class NativeObject:
    """One kernel's object file: ``key`` (its source's), ``id`` (source and argument types),
    ``args`` (dtype name and shape per entry argument), ``data`` (the object file's bytes)."""

    key: str
    id: str
    args: tuple
    data: bytes
    target: Target | None = None
    needs: tuple = ()   # JIT objects: the outside symbols the kernel itself calls (libm...)

    @property
    def symbol(self) -> str:
        return symbol_of(self.id)


def signature(ks: KernelSource, input_dtypes) -> tuple:
    """The entry's arguments for ``ks`` with operands of ``input_dtypes``: the operands, the
    constants, the outputs, each ``(dtype name, shape)``. NativeError for a scalar operand (its
    type is whatever Python value the runner passes, which only numba's dispatch can follow)."""
    if len(input_dtypes) != len(ks.in_shapes):
        raise NativeError(f"{len(input_dtypes)} operand types for {len(ks.in_shapes)} operands")
    if any(s is None for s in ks.in_shapes):
        raise NativeError("a scalar operand")
    args = [(np.dtype(d).name, tuple(s)) for d, s in zip(input_dtypes, ks.in_shapes)]
    args += [(c.dtype.name, tuple(c.shape)) for c in ks.consts]
    args += [(np.dtype(o.dtype).name, tuple(o.shape)) for o in ks.outputs]
    return tuple(args)


def native_id(key: str, args) -> str:
    """The name of a kernel's native code: a hash of the ABI, its source key and argument types
    (JSON-like: tuples and lists hash alike, so a manifest's entry gives the same id)."""
    text = f"{ABI}\n{key}\n{json.dumps(args)}"
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def symbol_of(id_: str) -> str:
    return f"graphcell_kernel_{id_}"


_EMITTED: dict[tuple, NativeObject | NativeError] = {}
_EMIT_LOCK = threading.Lock()


def emit(ks: KernelSource, input_dtypes) -> NativeObject:
    """The object file of ``ks`` for operands of ``input_dtypes`` on this CPU (memory and disk
    cached). NativeError when there can be none (numba missing, a scalar operand, numba refuses)."""
    args = signature(ks, input_dtypes)
    id_ = native_id(ks.key, args)
    return _cached(ks.key, id_, args, lambda target: _compile(ks, args, id_, target))


def _cached(key: str, id_: str, args, build) -> NativeObject:
    try:
        target = _emit_target()
    except ImportError as e:
        raise NativeError(f"numba is not installed ({e})") from None
    with _EMIT_LOCK:
        obj = _EMITTED.get((id_, target))
        if obj is None:
            path = _disk_path(id_, target)
            data = _read_cached(path, symbol_of(id_))
            if data is None:
                try:
                    data = build(target)
                except Exception as e:   # remembered too: numba would refuse it again
                    reason = str(e) if isinstance(e, NativeError) else \
                        f"emitting it failed ({type(e).__name__}: {e})"
                    if isinstance(e, NativeError):   # not a passing failure: on disk as well
                        _write_cached(path.with_suffix(".err"), reason.encode())
                    _EMITTED[(id_, target)] = NativeError(reason)
                    raise NativeError(reason) from None
                _write_cached(path, data)
            obj = _EMITTED[(id_, target)] = NativeObject(key, id_, tuple(args), data, target)
    if isinstance(obj, NativeError):
        raise NativeError(str(obj))
    return obj


def _entry_source(args) -> str:
    ptrs = [f"p{i}" for i in range(len(args))]
    arrays = ", ".join(f"carray(p{i}, {tuple(s)!r}, D{i})" for i, (_, s) in enumerate(args))
    return f"def entry({', '.join(ptrs)}):\n    kernel({arrays})\n"


def _compile(ks: KernelSource, args, id_: str, target: Target) -> bytes:
    """numba -> LLVM module of the entry alone -> object file."""
    import numba
    from numba import types
    from graphcell_ir.backend.kernels import file_text
    ns: dict = {"__name__": f"graphcell_native_{ks.key}"}
    exec(compile(file_text(ks), f"<graphcell kernel {ks.key}>", "exec"), ns)  # prange = range
    flags = dict(error_model="numpy", fastmath=False)
    entry_ns = {"kernel": numba.njit(**flags)(ns["kernel"]), "carray": numba.carray}
    entry_ns.update({f"D{i}": np.dtype(d).type for i, (d, _) in enumerate(args)})
    exec(compile(_entry_source(args), f"<graphcell native entry {id_}>", "exec"), entry_ns)
    return _entry_object(entry_ns["entry"], (types.voidptr,) * len(args), id_, target)


def _entry_object(entry, sig: tuple, id_: str, target: Target) -> bytes:
    import numba
    entry = numba.njit(error_model="numpy", fastmath=False)(entry)
    try:
        entry.compile(sig)
    except Exception as e:  # numba's typing/lowering errors: this one stays compiled by numba
        raise NativeError(f"numba cannot compile it ({type(e).__name__}: "
                          f"{str(e).splitlines()[0] if str(e) else ''})") from None
    cres = entry.overloads[sig]
    return _object_code(cres.library.get_llvm_str(), cres.fndesc.llvm_func_name, id_, target)


def _object_code(llvm_ir: str, entry_name: str, id_: str, target: Target) -> bytes:
    llvm = _llvm()
    mod = llvm.parse_assembly(llvm_ir)
    symbol = symbol_of(id_)
    n = itertools.count()
    for f in mod.functions:
        if f.is_declaration:
            continue
        if f.name == entry_name:
            f.name = symbol
        else:
            f.linkage = llvm.Linkage.internal
            f.name = f"{symbol}.f{next(n)}"
    for g in mod.global_variables:
        if not g.is_declaration and not g.name.startswith("llvm."):
            g.linkage = llvm.Linkage.internal
            g.name = f"{symbol}.g{next(n)}"
    mod.name = symbol
    tm = _target_machine(target)
    pm = llvm.create_new_module_pass_manager()
    pm.add_global_dead_code_eliminate_pass()   # drops numba's Python wrappers and their imports
    pm.run(mod, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(3)))
    mod.verify()
    data = tm.emit_object(mod)
    runtime = sorted(n for n in (undefined_symbols(data) if data[:4] == _ELF else [])
                     if n.startswith(_RUNTIME_PREFIXES) and n not in _STUBS)
    if runtime:   # numba's allocator or C helpers: they exist only once numba is imported
        raise NativeError(f"it needs numba's runtime ({', '.join(runtime)}): it allocates or "
                          "calls numba's C helpers")
    return data


_RUNTIME_PREFIXES = ("NRT_", "numba_", "Py", "_Py")
_STUB_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_STUB_TYPE
def _never_called(meminfo) -> None:
    """``NRT_MemInfo_call_dtor``: numba's decref calls it when an array's last reference goes,
    but every array native code sees is built over a caller's pointer with no meminfo (numba's
    decref skips those), and code that allocates one is refused at export. Kept as a stub so
    the symbol resolves; it is never called."""
    import logging
    logging.getLogger("graphcell.backend").error("native code released a meminfo it cannot own")


_STUBS = {"NRT_MemInfo_call_dtor": _never_called}
"""Runtime symbols native code may name but never calls: linked to stubs."""


def _target_machine(target: Target):
    """A target machine as numba's JIT makes one (static relocations on x86, the JIT's code
    model), so the objects link like numba's own cached code."""
    llvm = _llvm()
    t = llvm.Target.from_triple(target.triple)
    reloc = ("static" if t.name.startswith("x86") else "pic" if t.name.startswith("ppc")
             else "default")
    return t.create_target_machine(cpu=target.cpu, features=target.features, opt=3, reloc=reloc,
                                   codemodel="jitdefault", jit=True)


# --- loops: functions of a source module, for the argument types they were called with ----------
#
# The convolution and pooling loops (``nnkernels``/``nn_loops``) take arrays of any shape and
# Python scalars. Their entry takes, per array, its data pointer then its dimensions, and each
# scalar by value; a *kind* names one argument type: ``("array", "float32", 4)`` (C order) or
# ``("scalar", "int64")``.

_SCALARS = {"int64": ctypes.c_int64, "float64": ctypes.c_double, "float32": ctypes.c_float}


def source_hash(source: str) -> str:
    """The hash naming a loops module's text (an artifact's loops are valid for that text only)."""
    return hashlib.sha256(source.encode()).hexdigest()[:24]


def loop_key(source_sha: str, name: str) -> str:
    """The key of function ``name`` of the module text of :func:`source_hash` ``source_sha``."""
    return f"{source_sha}.{name}"


def kinds_of(args) -> tuple | None:
    """The kinds of runtime arguments as numba types them, or None when one has no native form
    (an array not in C order, a scalar of another type)."""
    out = []
    for a in args:
        if a.__class__ is np.ndarray:
            if not a.flags.c_contiguous:
                return None
            out.append(("array", a.dtype.name, a.ndim))
        elif a.__class__ is int:
            out.append(("scalar", "int64"))
        elif a.__class__ is float:
            out.append(("scalar", "float64"))
        elif isinstance(a, np.generic) and a.dtype.name in _SCALARS:
            out.append(("scalar", a.dtype.name))
        else:
            return None
    return tuple(out)


def emit_loop(source: str, name: str, kinds) -> NativeObject:
    """The object file of function ``name`` of ``source`` for arguments of ``kinds``."""
    kinds = tuple(tuple(k) for k in kinds)
    key = loop_key(source_hash(source), name)
    id_ = native_id(key, kinds)
    return _cached(key, id_, kinds, lambda target: _compile_loop(source, name, kinds, id_, target))


def _compile_loop(source: str, name: str, kinds, id_: str, target: Target) -> bytes:
    import numba
    from numba import types
    ns: dict = {"__name__": f"graphcell_native_loops_{id_}"}
    exec(compile(source, f"<graphcell loops {id_}>", "exec"), ns)
    ns["prange"] = range   # serial: numba's parallel runtime is not there at load
    for f, fn in list(ns.items()):   # the loops call each other through these globals
        if callable(fn) and getattr(fn, "__module__", None) == ns["__name__"]:
            ns[f] = numba.njit(error_model="numpy", fastmath=False)(fn)
    params, call, sig = [], [], []
    entry_ns = {"fn": ns[name], "carray": numba.carray}
    for i, kind in enumerate(kinds):
        if kind[0] == "array":
            dims = [f"n{i}_{k}" for k in range(kind[2])]
            params += [f"p{i}", *dims]
            sig += [types.voidptr] + [types.int64] * len(dims)
            entry_ns[f"D{i}"] = np.dtype(kind[1]).type
            call.append(f"carray(p{i}, ({', '.join(dims)}{',' if len(dims) == 1 else ''}), D{i})")
        else:
            params.append(f"s{i}")
            sig.append(numba.from_dtype(np.dtype(kind[1])))
            call.append(f"s{i}")
    text = f"def entry({', '.join(params)}):\n    fn({', '.join(call)})\n"
    exec(compile(text, f"<graphcell native entry {id_}>", "exec"), entry_ns)
    return _entry_object(entry_ns["entry"], tuple(sig), id_, target)


# --- the disk cache of emitted objects (export only) ----------------------------------------------

def _disk_path(id_: str, target: Target):
    from importlib import metadata
    versions = []
    for dist in ("numba", "llvmlite"):
        try:
            versions.append(metadata.version(dist))
        except metadata.PackageNotFoundError:
            versions.append("?")
    h = hashlib.sha256(repr((id_, target, versions)).encode()).hexdigest()[:32]
    return cache_dir() / "native" / f"{id_}-{h}.o"


def _read_cached(path, symbol: str) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        try:
            reason = path.with_suffix(".err").read_text()
        except (OSError, UnicodeDecodeError):
            return None
        raise NativeError(reason) from None
    try:
        check_object(data, symbol)
    except NativeError:
        return None   # damaged: emitted again and rewritten
    return data


def _write_cached(path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass   # an unwritable cache only costs the next export a compile


# --- checking an object file before LLVM sees it -------------------------------------------------

_ELF_MACHINES = {"x86_64": 62, "aarch64": 183, "arm64": 183, "ppc64le": 21, "powerpc64le": 21,
                 "s390x": 22, "riscv64": 243}


_ELF = b"\x7fELF"


def check_object(data: bytes, symbol: str, triple: str | None = None) -> None:
    """NativeError unless ``data`` is a whole 64-bit little-endian ELF relocatable object (for
    ``triple``'s machine when known) whose tables lie inside it and which names ``symbol``.
    LLVM checks more when it links; this refuses the plainly wrong before it does. (Objects of
    non-ELF platforms, Mach-O and COFF, are only checked for the symbol.)"""
    if triple is not None and ("apple" in triple or "windows" in triple) and data[:4] != _ELF:
        if symbol.encode() not in data:
            raise NativeError(f"it does not define {symbol}")
        return
    if len(data) < 64 or data[:4] != _ELF:
        raise NativeError("not an ELF object file")
    if data[4] != 2 or data[5] != 1:
        raise NativeError("not a 64-bit little-endian ELF object")
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    if e_type != 1:
        raise NativeError(f"ELF type {e_type} is not a relocatable object")
    if triple is not None:
        arch = triple.split("-", 1)[0]
        want = _ELF_MACHINES.get(arch)
        if want is not None and e_machine != want:
            raise NativeError(f"ELF machine {e_machine} is not {arch}")
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 58)
    if e_shentsize != 64 or e_shoff + e_shnum * 64 > len(data):
        raise NativeError("its section table lies outside the file (truncated?)")
    for i in range(e_shnum):
        offset, size = struct.unpack_from("<QQ", data, e_shoff + i * 64 + 24)
        sh_type, = struct.unpack_from("<I", data, e_shoff + i * 64 + 4)
        if sh_type != 8 and offset + size > len(data):   # 8: NOBITS (.bss) occupies no bytes
            raise NativeError(f"section {i} lies outside the file (truncated?)")
    if b"\0" + symbol.encode() + b"\0" not in data:
        raise NativeError(f"it does not define {symbol}")


def undefined_symbols(data: bytes) -> list[str]:
    """The global symbols an ELF64 object uses without defining (what linking must resolve)."""
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shnum, = struct.unpack_from("<H", data, 60)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * 64) for i in range(e_shnum)]
    out = []
    for _, sh_type, _, _, offset, size, link, _, _, entsize in sections:
        if sh_type != 2 or not entsize:   # 2: SHT_SYMTAB
            continue
        str_offset = sections[link][4]
        for k in range(size // entsize):
            st_name, st_info, _, st_shndx = struct.unpack_from("<IBBH", data, offset + k * entsize)
            if st_shndx == 0 and st_name and st_info >> 4 in (1, 2):   # undefined global/weak
                end = data.index(b"\0", str_offset + st_name)
                out.append(data[str_offset + st_name:end].decode("latin-1"))
    return out


# --- linking -------------------------------------------------------------------------------------

_JIT = None
_LINKED: dict[tuple[str, str], tuple] = {}    # (id, sha256 of the object) -> (tracker, address)
_LINK_LOCK = threading.Lock()
_LIBRARIES = itertools.count()


@functools.lru_cache(maxsize=1)
def _llvm():
    """llvmlite's binding, with the host target initialised (once)."""
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


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
    for that have no native code here (they were compiled instead).
    """

    by_key: dict[str, list] = field(default_factory=dict)  # key -> [(object, address, tracker)]
    failed: dict[str, str] = field(default_factory=dict)
    missed: list[str] = field(default_factory=list)

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
    """Link ``objects`` (NativeObjects) into this process. An object that does not check or link
    (a symbol this process lacks...) is left out and listed in ``failed``; nothing raises but a
    missing llvmlite (ImportError)."""
    kernels = NativeKernels()
    todo = []
    triple = (host or host_target()).triple if objects else None
    for obj in objects:
        try:
            check_object(obj.data, obj.symbol, triple)
        except NativeError as e:
            kernels.failed[obj.id] = str(e)
            continue
        todo.append(obj)
    with _LINK_LOCK:
        fresh = list({o.symbol: o for o in todo if _cache_key(o) not in _LINKED}.values())
        if fresh:
            _link_objects(fresh, kernels.failed)
        for obj in todo:
            got = _LINKED.get(_cache_key(obj))
            if got is not None:
                kernels.by_key.setdefault(obj.key, []).append((obj, got[1], got[0]))
    return kernels


def _cache_key(obj: NativeObject) -> tuple[str, str]:
    return obj.id, hashlib.sha256(obj.data).hexdigest()


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
        _LINKED[_cache_key(obj)] = (tracker, tracker[obj.symbol])


def _link_library(objects: list):
    llvm = _llvm()
    builder = llvm.JITLibraryBuilder()
    for obj in objects:
        builder.add_object_img(obj.data)
        builder.export_symbol(obj.symbol)
    builder.add_current_process()   # libm (tanhf, expf...) is in the process already
    for name, stub in _STUBS.items():
        builder.import_symbol(name, ctypes.cast(stub, ctypes.c_void_p).value)
    return builder.link(_jit(), f"graphcell-native-{next(_LIBRARIES)}")


# --- the JIT's disk cache: numba's own machine code, linked later without numba ------------------
#
# When numba compiles a kernel (or a loop of ``nn_loops``) in the normal JIT path, the object
# file its JIT loaded — the very code it runs — is written to ``<cache dir>/native-jit/`` with a
# small trampoline's object (:func:`emit_jit`: nothing compiled again; numba's LLVM IR is only
# checked). A later process links both with llvmlite (:func:`load_jit`) instead of importing
# numba. numba's Python wrappers, also in that object, name numba's runtime: those symbols link
# to a stub, as the IR check proved the kernel itself reaches none of them.
#
# The trampoline takes each array as the ndarray object itself (a ``py_object`` for ctypes:
# nothing to convert per call) and each scalar by value. It reads the array's data pointer,
# dimensions and strides from numpy's array struct, and checks its rank, dtype number and C
# order there first: an array the code was not compiled for makes it return JIT_MISMATCH (the
# caller then runs numba's dispatcher), never a wrong read. The struct's offsets are probed in
# each process (:func:`array_layout`) and are part of every object's id.

JIT_ABI = "graphcell-jit-native-1"
JIT_MISMATCH = 7777
"""The status a JIT native entry returns for an argument of another rank, dtype or layout."""

_MAGIC = b"GCJIT1\n"


class ArrayLayout:
    """Offsets of numpy's array struct (``data``, ``nd``, ``dimensions``, ``strides``,
    ``descr``, ``flags``) and of ``type_num`` in a dtype's struct, in bytes."""

    def __init__(self, base: int):
        self.data, self.nd, self.dims, self.strides = base, base + 8, base + 16, base + 24
        self.descr, self.flags, self.type_num = base + 40, base + 48, base + 12

    def __repr__(self) -> str:
        return (f"layout(data={self.data},nd={self.nd},dims={self.dims},strides={self.strides},"
                f"descr={self.descr},flags={self.flags},type_num={self.type_num})")


@functools.lru_cache(maxsize=1)
def array_layout() -> ArrayLayout | None:
    """numpy's array struct as this process has it (after ``PyObject_HEAD``), checked on sample
    arrays against numpy's own accessors; None when it is not the expected one (then no JIT
    native code: numba runs everything)."""
    L = ArrayLayout(object.__basicsize__)

    def at(address, ctype):
        return ctype.from_address(address).value

    try:
        samples = [np.zeros((3, 4), np.float32), np.zeros(5, np.int64)[::2],
                   np.zeros((2, 1, 3), np.bool_).T]
        for a in samples:
            p = id(a)
            ok = (at(p + L.data, ctypes.c_void_p) == a.__array_interface__["data"][0]
                  and at(p + L.nd, ctypes.c_int32) == a.ndim
                  and at(p + L.descr, ctypes.c_void_p) == id(a.dtype)
                  and at(id(a.dtype) + L.type_num, ctypes.c_int32) == a.dtype.num
                  and bool(at(p + L.flags, ctypes.c_int32) & 1) == a.flags.c_contiguous)
            dims = ctypes.cast(at(p + L.dims, ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64))
            strides = ctypes.cast(at(p + L.strides, ctypes.c_void_p),
                                  ctypes.POINTER(ctypes.c_int64))
            ok = ok and all(dims[i] == a.shape[i] and strides[i] == a.strides[i]
                            for i in range(a.ndim))
            if not ok:
                return None
    except (ValueError, TypeError, OverflowError):
        return None
    return L


def jit_cache_enabled() -> bool:
    """Whether the JIT keeps native objects of what numba compiles and links them later:
    llvmlite is importable and numpy's array struct is the expected one
    (``GRAPHCELL_NATIVE_CACHE=0`` turns it off)."""
    if os.environ.get("GRAPHCELL_NATIVE_CACHE", "1") in ("0", "false", "no"):
        return False
    try:
        _llvm()
    except ImportError:
        return False
    return array_layout() is not None


_TYPE_NUMS = {n: np.dtype(n).num for n in ("bool", "int8", "int16", "int32", "int64", "uint8",
                                           "float16", "float32", "float64")}
_JIT_SCALARS = {"int64": ("i64", ctypes.c_int64), "float64": ("double", ctypes.c_double),
                "float32": ("float", ctypes.c_float)}


def kernel_kinds(ks: KernelSource) -> tuple | None:
    """The argument kinds of kernel ``ks`` (operands, constants, outputs; all C-ordered arrays),
    or None when it has no JIT native code: a scalar operand (typed by the value the runner
    passes), a parallel kernel (native code is serial), a 0-d array or another dtype."""
    if ks.parallel or len(ks.in_dtypes) != len(ks.in_shapes) or \
            any(s is None for s in ks.in_shapes):
        return None
    kinds = [("array", np.dtype(d).name, len(s)) for d, s in zip(ks.in_dtypes, ks.in_shapes)]
    kinds += [("array", c.dtype.name, c.ndim) for c in ks.consts]
    kinds += [("array", np.dtype(o.dtype).name, len(o.shape)) for o in ks.outputs]
    if any(k[2] == 0 or k[1] not in _TYPE_NUMS for k in kinds):
        return None
    return tuple(kinds)


def _signature_kinds(sig) -> tuple | None:
    """The kinds of a numba signature (arrays in C order, int64/float scalars), else None."""
    from numba.core import types
    from numba.np.numpy_support import as_dtype
    out = []
    for t in sig:
        if isinstance(t, types.Array):
            name = as_dtype(t.dtype).name
            if t.layout != "C" or t.ndim == 0 or name not in _TYPE_NUMS:
                return None
            out.append(("array", name, t.ndim))
        elif t in (types.int64, types.float64, types.float32):
            out.append(("scalar", str(t)))
        else:
            return None
    return tuple(out)


def jit_id(key: str, kinds) -> str:
    """The id of the JIT native code of function ``key`` for ``kinds`` (ABI and array layout
    included: an object for another struct layout is never paired with this process)."""
    return native_id(f"{JIT_ABI}/{array_layout()!r}/{key}", [list(k) for k in kinds])


def _trampoline(symbol: str, callee: str, kinds, L: ArrayLayout) -> tuple[str, list[str]]:
    """The entry ``i32 symbol(arrays as PyObject*, scalars by value)`` calling numba's native
    function ``callee`` (arrays flattened as numba passes them: meminfo, parent, nitems,
    itemsize, data, shape..., strides...), and the callee's parameter types it assumes."""
    params, checks, run, args = [], [], [], ["ptr %ret", "ptr %exc"]
    expect = ["ptr", "ptr"]
    ok = "true"
    for i, kind in enumerate(kinds):
        if kind[0] != "array":
            ty = _JIT_SCALARS[kind[1]][0]
            params.append(f"{ty} %s{i}")
            args.append(f"{ty} %s{i}")
            expect.append(ty)
            continue
        _, dtype, nd = kind
        a = f"%a{i}"
        params.append(f"ptr {a}")
        checks += [f"  %ndp{i} = getelementptr i8, ptr {a}, i64 {L.nd}",
                   f"  %nd{i} = load i32, ptr %ndp{i}",
                   f"  %c{i}a = icmp eq i32 %nd{i}, {nd}",
                   f"  %flp{i} = getelementptr i8, ptr {a}, i64 {L.flags}",
                   f"  %fl{i} = load i32, ptr %flp{i}",
                   f"  %flc{i} = and i32 %fl{i}, 1",
                   f"  %c{i}b = icmp ne i32 %flc{i}, 0",
                   f"  %dsp{i} = getelementptr i8, ptr {a}, i64 {L.descr}",
                   f"  %ds{i} = load ptr, ptr %dsp{i}",
                   f"  %tnp{i} = getelementptr i8, ptr %ds{i}, i64 {L.type_num}",
                   f"  %tn{i} = load i32, ptr %tnp{i}",
                   f"  %c{i}c = icmp eq i32 %tn{i}, {_TYPE_NUMS[dtype]}",
                   f"  %ok{i}a = and i1 {ok}, %c{i}a",
                   f"  %ok{i}b = and i1 %ok{i}a, %c{i}b",
                   f"  %ok{i} = and i1 %ok{i}b, %c{i}c"]
        ok = f"%ok{i}"
        run += [f"  %dp{i} = getelementptr i8, ptr {a}, i64 {L.data}",
                f"  %d{i} = load ptr, ptr %dp{i}",
                f"  %dmp{i} = getelementptr i8, ptr {a}, i64 {L.dims}",
                f"  %dm{i} = load ptr, ptr %dmp{i}",
                f"  %stp{i} = getelementptr i8, ptr {a}, i64 {L.strides}",
                f"  %st{i} = load ptr, ptr %stp{i}"]
        for j in range(nd):
            run += [f"  %n{i}_{j}p = getelementptr i64, ptr %dm{i}, i64 {j}",
                    f"  %n{i}_{j} = load i64, ptr %n{i}_{j}p",
                    f"  %s{i}_{j}p = getelementptr i64, ptr %st{i}, i64 {j}",
                    f"  %s{i}_{j} = load i64, ptr %s{i}_{j}p"]
        size = f"%n{i}_0"
        for j in range(1, nd):
            run.append(f"  %z{i}_{j} = mul i64 {size}, %n{i}_{j}")
            size = f"%z{i}_{j}"
        args += ["ptr null", "ptr null", f"i64 {size}", f"i64 {np.dtype(dtype).itemsize}",
                 f"ptr %d{i}"]
        args += [f"i64 %n{i}_{j}" for j in range(nd)] + [f"i64 %s{i}_{j}" for j in range(nd)]
        expect += ["ptr", "ptr", "i64", "i64", "ptr"] + ["i64"] * (2 * nd)
    text = "\n".join([
        f"define i32 @{symbol}({', '.join(params)}) {{",
        "entry:",
        "  %ret = alloca [8 x i64], align 16",
        "  %exc = alloca [8 x i64], align 16",
        *checks,
        f"  br i1 {ok}, label %run, label %bad",
        "run:",
        *run,
        f"  %r = call i32 @{callee}({', '.join(args)})",
        "  ret i32 %r",
        "bad:",
        f"  ret i32 {JIT_MISMATCH}",
        "}", ""])
    return text, expect


def emit_jit(dispatcher, key: str, kinds) -> NativeObject:
    """The native code of what numba's ``dispatcher`` compiled for ``kinds``, without compiling
    anything again: numba's own object file (the one its JIT loaded) and a trampoline's, packed
    (:func:`_pack`). Its LLVM IR is checked first: the kernel must take the parameters the
    trampoline passes, and what it reaches must not need numba's runtime (numba's Python
    wrappers in the object do; they are never called, and link to stubs). NativeError (a
    lasting refusal) when it allocates or calls outside its object; LookupError (this time
    only) when numba has no such specialisation or loaded it from its own cache (no IR)."""
    for sig, cres in list(dispatcher.overloads.items()):
        if _signature_kinds(sig) == tuple(kinds):
            break
    else:
        raise LookupError("numba compiled no specialisation for these argument kinds")
    try:
        ir = cres.library.get_llvm_str()
        machine_code = bytes(cres.library._get_compiled_object())
    except Exception as e:   # a library numba loaded from its cache has machine code only
        raise LookupError(f"numba has no LLVM IR or object for it ({type(e).__name__})") from None
    L = array_layout()
    if L is None:
        raise NativeError("numpy's array struct is not the expected one")
    id_ = jit_id(key, kinds)
    target = _emit_target()
    callee = cres.fndesc.llvm_func_name
    text, expect = _trampoline(symbol_of(id_), callee, kinds, L)
    needs = _check_kernel_ir(ir, callee, expect, target)
    decl = f"declare i32 @{callee}({', '.join(expect)})\n"
    trampoline = _target_machine(target).emit_object(_llvm().parse_assembly(decl + text))
    return NativeObject(key, id_, tuple(kinds), _pack(trampoline, machine_code), target, needs)


def _check_kernel_ir(ir: str, callee: str, expect, target: Target) -> tuple:
    """The outside symbols numba's function ``callee`` calls (libm...; a later process must
    have them); NativeError unless it takes ``expect`` and reaches nothing of numba's runtime
    (but the never-called stubs) — an IR check, no codegen."""
    llvm = _llvm()
    mod = llvm.parse_assembly(ir)
    params = [str(a.type) for a in mod.get_function(callee).arguments]
    if params != list(expect):
        raise NativeError(f"numba's function takes ({', '.join(params)}), not the expected "
                          f"({', '.join(expect)})")
    for f in mod.functions:
        if not f.is_declaration and f.name != callee:
            f.linkage = llvm.Linkage.internal
    for g in mod.global_variables:
        if not g.is_declaration and not g.name.startswith("llvm."):
            g.linkage = llvm.Linkage.internal
    pm = llvm.create_new_module_pass_manager()
    pm.add_global_dead_code_eliminate_pass()   # what the kernel does not reach goes
    pm.run(mod, llvm.create_pass_builder(_target_machine(target),
                                         llvm.create_pipeline_tuning_options(3)))
    # what the kernel still names must exist without numba (libm...): anything else links to
    # the stub, so it must be something only the wrappers call
    external = sorted(f.name for f in mod.functions if f.is_declaration
                      and not f.name.startswith("llvm.") and f.name not in _STUBS
                      and (f.name.startswith(_RUNTIME_PREFIXES) or not _in_process(f.name)))
    if external:
        raise NativeError(f"it needs numba's runtime or code outside its object "
                          f"({', '.join(external)}): it allocates or calls numba's C helpers")
    return tuple(sorted(f.name for f in mod.functions if f.is_declaration
                        and not f.name.startswith("llvm.") and f.name not in _STUBS))


def _pack(trampoline: bytes, machine_code: bytes) -> bytes:
    return struct.pack("<Q", len(trampoline)) + trampoline + machine_code


def _unpack(data: bytes) -> tuple[bytes, bytes]:
    if len(data) < 8:
        raise NativeError("truncated")
    n, = struct.unpack_from("<Q", data)
    if 8 + n > len(data):
        raise NativeError("truncated")
    return data[8:8 + n], data[8 + n:]


# -- the files --

def _numba_settings() -> tuple:
    """What else decides numba's code: its version and llvmlite's (read without importing
    numba, nor importlib.metadata: 25 ms), and the environment variables of its code
    generation."""
    return _jit_versions() + tuple(os.environ.get(v) for v in (
        "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_ENABLE_AVX", "NUMBA_OPT",
        "NUMBA_BOUNDSCHECK", "NUMBA_FASTMATH"))


@functools.lru_cache(maxsize=1)
def _versions() -> tuple:
    from importlib import metadata
    out = []
    for dist in ("numba", "llvmlite"):
        try:
            out.append(metadata.version(dist))
        except metadata.PackageNotFoundError:
            out.append("?")
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _jit_versions() -> tuple:
    import importlib.util
    import llvmlite
    try:
        spec = importlib.util.find_spec("numba")
        site = os.path.dirname(os.path.dirname(spec.origin))
        numba = sorted(n for n in os.listdir(site) if n.startswith("numba-")
                       and n.endswith((".dist-info", ".egg-info")))
    except (ImportError, AttributeError, TypeError, OSError):
        numba = []
    return (numba[-1] if numba else "numba ?", llvmlite.__version__)


def jit_dir():
    return cache_dir() / "native-jit"


def _jit_path(id_: str):
    h = hashlib.sha256(repr((id_, host_target(), _numba_settings())).encode()).hexdigest()[:16]
    return jit_dir() / f"{id_}-{h}.o"


def store_jit(key: str, kinds, obj: NativeObject | NativeError) -> None:
    """Write ``obj`` (or a refusal: numba alone runs that one, from its own cache) to the JIT
    cache, atomically. An unwritable cache dir costs the next process a compile, nothing else."""
    id_ = jit_id(key, kinds)
    path = _jit_path(id_)
    if isinstance(obj, NativeError):
        _write_cached(path.with_suffix(".err"), str(obj).encode())
        return
    t = obj.target
    header = json.dumps({"id": id_, "key": key, "kinds": [list(k) for k in kinds],
                         "target": [t.triple, t.cpu, t.features], "needs": list(obj.needs),
                         "sha256": hashlib.sha256(obj.data).hexdigest()})
    _write_cached(path, _MAGIC + header.encode() + b"\n" + obj.data)


@dataclass
class JitLookup:
    """What :func:`load_jit` found: ``fn`` (linked) or why not; ``refused``: numba alone runs
    it (a refusal on disk), so its own cache should be used."""

    fn: "JitFunction | None"
    why: str = ""
    refused: bool = False


def load_jit(key: str, kinds) -> JitLookup:
    """The linked native code of ``key`` for ``kinds`` from the JIT cache, or why there is none
    (never raises: a corrupt, stale or foreign entry is a miss, and is rewritten after numba
    compiles it)."""
    try:
        id_ = jit_id(key, kinds)
        path = _jit_path(id_)
        raw = path.read_bytes()
    except FileNotFoundError:
        try:
            return JitLookup(None, path.with_suffix(".err").read_text(), True)
        except (OSError, UnicodeDecodeError):
            return JitLookup(None, "no native object on disk")
    except (OSError, ImportError, RuntimeError) as e:
        return JitLookup(None, f"native cache unusable ({type(e).__name__}: {e})")
    obj = _check_jit(raw, id_, kinds)
    if isinstance(obj, str):
        return JitLookup(None, obj)
    try:
        tracker, address = _link_jit(obj)
    except RuntimeError as e:
        return JitLookup(None, f"native object not linked ({e}): rebuilt")
    return JitLookup(JitFunction(obj, address, tracker))


_PROCESS = None


def _in_process(name: str) -> bool:
    """Whether this process defines symbol ``name`` (libm, Python's C API...)."""
    global _PROCESS
    if _PROCESS is None:
        _PROCESS = ctypes.CDLL(None)
    try:
        getattr(_PROCESS, name)
        return True
    except AttributeError:
        return False


def _link_jit(obj: NativeObject) -> tuple:
    """(tracker, entry address) of a JIT cache object: its trampoline and numba's object in one
    JIT library; symbols of numba's runtime that only numba's wrappers name (checked at
    emission) link to a stub that is never called. RuntimeError when it does not link."""
    with _LINK_LOCK:
        got = _LINKED.get(_cache_key(obj))
        if got is not None:
            return got
        trampoline, machine_code = _unpack(obj.data)
        llvm = _llvm()
        builder = llvm.JITLibraryBuilder()
        builder.add_object_img(trampoline)
        builder.add_object_img(machine_code)
        builder.export_symbol(obj.symbol)
        builder.add_current_process()
        stub = ctypes.cast(_never_called, ctypes.c_void_p).value
        for name in undefined_symbols(machine_code):
            # only numba's runtime: anything else (expf, which LLVM's intrinsics become at
            # codegen...) must resolve, or linking fails and numba compiles it
            if name.startswith(_RUNTIME_PREFIXES) and not _in_process(name):
                builder.import_symbol(name, stub)
        tracker = builder.link(_jit(), f"graphcell-jit-{next(_LIBRARIES)}")
        got = _LINKED[_cache_key(obj)] = (tracker, tracker[obj.symbol])
        return got


def _check_jit(raw: bytes, id_: str, kinds) -> NativeObject | str:
    """The object of a JIT cache file, or why it cannot be used."""
    try:
        if not raw.startswith(_MAGIC):
            raise ValueError("no header")
        end = raw.index(b"\n", len(_MAGIC))
        header = json.loads(raw[len(_MAGIC):end])
        data = raw[end + 1:]
        target = Target(*header["target"])
        if not isinstance(header["needs"], list) or \
                not all(isinstance(n, str) for n in header["needs"]):
            raise ValueError("its list of needed symbols is not one")
        if header["id"] != id_ or [tuple(k) for k in header["kinds"]] != list(kinds):
            raise ValueError("it names another function")
        if hashlib.sha256(data).hexdigest() != header["sha256"]:
            raise ValueError("its bytes do not match their hash")
        trampoline, machine_code = _unpack(data)
        check_object(trampoline, symbol_of(id_), target.triple)
        check_object(machine_code, "", target.triple)
    except (ValueError, KeyError, TypeError, NativeError) as e:
        return f"native object corrupt ({e}): rebuilt"
    reason = target.runs_on(host_target())
    if reason is not None:
        return f"native object not for this CPU ({reason}): rebuilt"
    missing = [n for n in header["needs"] if not _in_process(n)]
    if missing:   # they would link to the stub
        return f"native object calls symbols this process lacks ({', '.join(missing)}): rebuilt"
    return NativeObject(header["key"], id_, tuple(kinds), data, target, tuple(header["needs"]))


class JitFunction:
    """A JIT native entry: ``fn(*args)`` is True when it ran, False when an argument is not of
    the kinds it was compiled for (rank, dtype, C order; checked by the code itself). Arrays
    must be ndarrays (their struct is read), scalars Python numbers of the recorded kinds."""

    def __init__(self, obj: NativeObject, address: int, tracker):
        self.id, self.key, self.kinds, self.tracker = obj.id, obj.key, obj.args, tracker
        types_ = [ctypes.py_object if k[0] == "array" else _JIT_SCALARS[k[1]][1]
                  for k in obj.args]
        self.cfunc = ctypes.CFUNCTYPE(ctypes.c_int32, *types_)(address)

    def __call__(self, *args) -> bool:
        status = self.cfunc(*args)
        if status == 0 or status == -2:   # numba: 0 ok, -2 "returned None"
            return True
        if status == JIT_MISMATCH:
            return False
        raise RuntimeError(f"native kernel {self.key} failed (status {status})")

    def __repr__(self) -> str:
        return f"<JitFunction {symbol_of(self.id)}>"

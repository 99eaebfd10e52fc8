"""The JIT's disk cache: numba's own machine code for a kernel, kept beside the kernel cache and
linked in a later process without importing numba. See the package docstring.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import os
import struct
from dataclasses import dataclass

import numpy as np

from graphcell_ir.backend.cache_dir import cache_dir
from graphcell_ir.backend.lower import KernelSource
from graphcell_ir.backend.native.emitting import (RUNTIME_PREFIXES, STUBS, NativeObject,
                                                  native_id, symbol_of, target_machine,
                                                  write_cached)
from graphcell_ir.backend.native.linking import cache_key, link_once
from graphcell_ir.backend.native.objfile import check_object, undefined_symbols
from graphcell_ir.backend.native.target import NativeError, Target, _emit_target, _llvm, host_target


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


def kernel_kinds(ks: KernelSource, parallel: bool = False) -> tuple | None:
    """The argument kinds of kernel ``ks`` (operands, constants, outputs; all C-ordered arrays),
    or None when it has no JIT native code: a scalar operand (typed by the value the runner
    passes), a parallel kernel unless ``parallel`` (native code is serial: the caller runs it
    on blocks of rows), a 0-d array or another dtype."""
    if (ks.parallel and not parallel) or len(ks.in_dtypes) != len(ks.in_shapes) or \
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


def trampoline_ir(symbol: str, callee: str, kinds, L: ArrayLayout) -> tuple[str, list[str]]:
    """The entry ``i32 symbol(arrays as PyObject*, scalars by value)`` calling numba's native
    function ``callee`` (arrays flattened as numba passes them: meminfo, parent, nitems,
    itemsize, data, shape..., strides...), and the callee's parameter types it assumes. The
    code generator (``backend/codegen``) gives its functions the same parameters."""
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
    text, expect = trampoline_ir(symbol_of(id_), callee, kinds, L)
    needs = _check_kernel_ir(ir, callee, expect, target)
    decl = f"declare i32 @{callee}({', '.join(expect)})\n"
    trampoline = target_machine(target).emit_object(_llvm().parse_assembly(decl + text))
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
    pm.run(mod, llvm.create_pass_builder(target_machine(target),
                                         llvm.create_pipeline_tuning_options(3)))
    # what the kernel still names must exist without numba (libm...): anything else links to
    # the stub, so it must be something only the wrappers call
    external = sorted(f.name for f in mod.functions if f.is_declaration
                      and not f.name.startswith("llvm.") and f.name not in STUBS
                      and (f.name.startswith(RUNTIME_PREFIXES) or not in_process(f.name)))
    if external:
        raise NativeError(f"it needs numba's runtime or code outside its object "
                          f"({', '.join(external)}): it allocates or calls numba's C helpers")
    return tuple(sorted(f.name for f in mod.functions if f.is_declaration
                        and not f.name.startswith("llvm.") and f.name not in STUBS))


def _pack(trampoline: bytes, machine_code: bytes) -> bytes:
    return struct.pack("<Q", len(trampoline)) + trampoline + machine_code


def pack_single(obj: bytes) -> bytes:
    """The data of an entry whose trampoline and kernel are one object (the code generator's)."""
    return _pack(obj, b"")


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
    from graphcell_ir.backend.codegen import VERSION
    return _jit_versions() + (VERSION,) + tuple(os.environ.get(v) for v in (
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
        write_cached(path.with_suffix(".err"), str(obj).encode())
        return
    t = obj.target
    header = json.dumps({"id": id_, "key": key, "kinds": [list(k) for k in kinds],
                         "target": [t.triple, t.cpu, t.features], "needs": list(obj.needs),
                         "sha256": hashlib.sha256(obj.data).hexdigest()})
    write_cached(path, _MAGIC + header.encode() + b"\n" + obj.data)


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


def link_jit(obj: NativeObject) -> "JitFunction":
    """Link a JIT cache object made in this process (RuntimeError when it does not link)."""
    tracker, address = _link_jit(obj)
    return JitFunction(obj, address, tracker)


_PROCESS = None


def in_process(name: str) -> bool:
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
    """(tracker, entry address) of a JIT cache object: its trampoline and numba's object (or
    the code generator's single object) in one JIT library; symbols of numba's runtime that
    only numba's wrappers name (checked at emission) link to a stub that is never called.
    RuntimeError when it does not link."""
    trampoline, machine_code = _unpack(obj.data)
    stub = ctypes.cast(STUBS["NRT_MemInfo_call_dtor"], ctypes.c_void_p).value
    # only numba's runtime: anything else (expf, which LLVM's intrinsics become at codegen...)
    # must resolve, or linking fails and the kernel is compiled again
    imports = {name: stub for name in (undefined_symbols(machine_code) if machine_code else ())
               if name.startswith(RUNTIME_PREFIXES) and not in_process(name)}
    images = [trampoline] + ([machine_code] if machine_code else [])
    return link_once(cache_key(obj), obj.symbol, images, imports)


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
        if machine_code:
            check_object(machine_code, "", target.triple)
    except (ValueError, KeyError, TypeError, NativeError) as e:
        return f"native object corrupt ({e}): rebuilt"
    reason = target.runs_on(host_target())
    if reason is not None:
        return f"native object not for this CPU ({reason}): rebuilt"
    missing = [n for n in header["needs"] if not in_process(n)]
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

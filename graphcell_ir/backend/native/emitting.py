"""Emitting: a kernel's (or an nn loop's) machine code for this CPU, through numba and llvmlite,
behind a C entry taking data pointers; and the disk cache of emitted objects used by export. See
the package docstring.
"""
from __future__ import annotations

import ctypes
import hashlib
import itertools
import json
import os
import tempfile
import threading
from dataclasses import dataclass

import numpy as np

from graphcell_ir.backend.cache_dir import cache_dir
from graphcell_ir.backend.lower import KernelSource
from graphcell_ir.backend.native.objfile import _ELF, check_object, undefined_symbols
from graphcell_ir.backend.native.target import ABI, NativeError, Target, _emit_target, _llvm


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
                        write_cached(path.with_suffix(".err"), reason.encode())
                    _EMITTED[(id_, target)] = NativeError(reason)
                    raise NativeError(reason) from None
                write_cached(path, data)
            obj = _EMITTED[(id_, target)] = NativeObject(key, id_, tuple(args), data, target)
    if isinstance(obj, NativeError):
        raise NativeError(str(obj))
    return obj


def _entry_source(args) -> str:
    ptrs = [f"p{i}" for i in range(len(args))]
    arrays = ", ".join(f"carray(p{i}, {tuple(s)!r}, D{i})" for i, (_, s) in enumerate(args))
    return f"def entry({', '.join(ptrs)}):\n    kernel({arrays})\n"


def _generated(source: str, name: str, kinds, symbol: str, target: Target, shapes=None,
               no_overflow: bool = False) -> bytes | None:
    """The entry's object file from graphcell's code generator (``backend/codegen``: no
    numba), or None when it refuses the source (numba compiles it then)."""
    from graphcell_ir.backend import codegen
    from graphcell_ir.backend.lower import Unsupported
    if not codegen.enabled():
        return None
    try:
        text = codegen.lower_ir(source, name, kinds, symbol, no_overflow, abi="pointers",
                                shapes=shapes)
        return codegen.object_code(text, target)[0]
    except Unsupported:
        return None
    except Exception as e:   # LLVM failed, or a bug of the generator: numba emits it
        import logging
        logging.getLogger("graphcell.backend").warning(
            "%s: the code generator failed (%s: %s); numba emits it", name, type(e).__name__, e)
        return None


def _compile(ks: KernelSource, args, id_: str, target: Target) -> bytes:
    """The code generator's object, else numba -> LLVM module of the entry alone -> object
    file."""
    from graphcell_ir.backend.kernels import file_text
    kinds = [("array", d, len(s)) for d, s in args]
    data = _generated(file_text(ks), "kernel", kinds, symbol_of(id_), target,
                      shapes=[tuple(s) for _, s in args])
    if data is not None:
        return data
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
    tm = target_machine(target)
    pm = llvm.create_new_module_pass_manager()
    pm.add_global_dead_code_eliminate_pass()   # drops numba's Python wrappers and their imports
    pm.run(mod, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(3)))
    mod.verify()
    data = tm.emit_object(mod)
    runtime = sorted(n for n in (undefined_symbols(data) if data[:4] == _ELF else [])
                     if n.startswith(RUNTIME_PREFIXES) and n not in STUBS)
    if runtime:   # numba's allocator or C helpers: they exist only once numba is imported
        raise NativeError(f"it needs numba's runtime ({', '.join(runtime)}): it allocates or "
                          "calls numba's C helpers")
    return data


RUNTIME_PREFIXES = ("NRT_", "numba_", "Py", "_Py")
_STUB_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_STUB_TYPE
def _never_called(meminfo) -> None:
    """``NRT_MemInfo_call_dtor``: numba's decref calls it when an array's last reference goes,
    but every array native code sees is built over a caller's pointer with no meminfo (numba's
    decref skips those), and code that allocates one is refused at export. Kept as a stub so
    the symbol resolves; it is never called."""
    import logging
    logging.getLogger("graphcell.backend").error("native code released a meminfo it cannot own")


STUBS = {"NRT_MemInfo_call_dtor": _never_called}
"""Runtime symbols native code may name but never calls: linked to stubs."""


def target_machine(target: Target):
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
    data = _generated(source, name, kinds, symbol_of(id_), target, no_overflow=True)
    if data is not None:
        return data
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
    from graphcell_ir.backend.codegen import VERSION
    versions = [VERSION]
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


def write_cached(path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass   # an unwritable cache only costs the next export a compile



"""Native kernels: a kernel's machine code for this CPU, emitted once, linked later without numba.

**Emitting** (``graphcell.export`` does it): :func:`emit` compiles a
:class:`~graphcell_ir.backend.lower.KernelSource` for fixed argument types — with graphcell's code
generator (``backend/codegen``, ``abi="pointers"``: the shapes are constants of the code), or,
for what it refuses, with the same source and numba flags as :mod:`.kernels` — serially:
``prange`` stays ``range`` — behind an entry taking one data pointer per argument, as this
numba entry does::

    def entry(p0, p1, p2):
        kernel(carray(p0, (32, 10), D0), carray(p1, (32, 10), D1), carray(p2, (1, 10), D2))

:func:`emit_loop` does the same for a function of a module of loops (the convolution/pooling
loops of ``nnkernels``), for the argument kinds it was called with (each array becomes its data
pointer and dimensions, each scalar is passed by value).

(The code generator emits the same entries directly.) In numba's LLVM module the entry is renamed ``graphcell_kernel_<id>``, everything else becomes
internal under a name derived from it (so the same kernel gives the same bytes in any process)
and what the entry does not reach is dropped (numba's Python wrappers, hence every reference to
the Python C API). llvmlite emits the object file for this CPU: its triple, CPU name and
features are the :class:`Target` recorded beside it. The undefined symbols left are libm's
(``tanhf``...); code that still needs numba's runtime (it allocates, or calls numba's C helpers)
is refused with a NativeError, except for ``NRT_MemInfo_call_dtor``, which numba's decref names
but never calls on the meminfo-less arrays an entry builds (it links to a stub).

**Linking** (llvmlite only; ``graphcell.load(native=True)``): :func:`link` checks each object
(:func:`check_linkable`: only what graphcell emits) and adds them to one ORC JIT library that
may use the process's symbols, and returns :class:`NativeKernels`, which
:func:`~graphcell_ir.backend.kernels.compile_kernel` asks for a kernel by its source before
compiling anything, and whose :meth:`NativeKernels.loops` is a drop-in loops namespace (the
executable that was given the kernels uses it, nothing else). A :class:`NativeFunction` calls
its entry through ctypes with numba's CPU calling convention, ``int32 entry(void *ret, void
*excinfo, void *p0, ...)`` (0: success), after checking each array's dtype, shape and memory
order: the machine code trusts its arguments.

**The JIT's disk cache** (``kernels``/``nnkernels``, no export involved): graphcell's code
generator (``backend/codegen``) compiles a kernel for some argument kinds into one object, the
same trampoline and the kernel (:func:`trampoline_ir`, :func:`pack_single`); :func:`emit_jit`
keeps what numba's dispatcher compiled (numba's own object file plus a trampoline reading
numpy's array struct; nothing compiled again);
:func:`store_jit` writes it under ``<cache dir>/native-jit/`` (header: id, kinds, target,
SHA-256), :func:`load_jit` links it in a later process, or says why not (missing, corrupt, for
another CPU: the caller compiles again and rewrites it); :func:`link_jit` links an object made
in this process.

Example (emitting needs numba)::

    >>> import numpy as np
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

from graphcell_ir.backend.native.target import ABI, NativeError, Target, host_target
from graphcell_ir.backend.native.emitting import (NativeObject, emit, emit_loop, kinds_of, loop_key,
                                              native_id, signature, source_hash, symbol_of,
                                              target_machine)
from graphcell_ir.backend.native.objfile import check_linkable, check_object, checkable
from graphcell_ir.backend.native.linking import (LoopRecorder, NativeFunction, NativeKernels,
                                              NativeLoops, link)
from graphcell_ir.backend.native.jit_cache import (JIT_ABI, JIT_MISMATCH, JitFunction, JitLookup,
                                                   array_layout, emit_jit, jit_cache_enabled,
                                                   jit_dir, jit_id, in_process, kernel_kinds, link_jit, load_jit,
                                                   pack_single, store_jit, trampoline_ir)

__all__ = ["ABI", "NativeError", "Target", "NativeObject", "NativeFunction", "NativeKernels",
           "NativeLoops", "LoopRecorder", "emit", "emit_loop", "link", "host_target", "native_id",
           "signature", "symbol_of", "check_object", "check_linkable", "checkable", "kinds_of",
           "loop_key", "source_hash",
           "JIT_ABI", "JIT_MISMATCH", "JitFunction", "JitLookup", "array_layout", "emit_jit",
           "jit_cache_enabled", "jit_dir", "jit_id", "in_process", "kernel_kinds", "link_jit", "load_jit",
           "pack_single", "store_jit", "target_machine", "trampoline_ir"]

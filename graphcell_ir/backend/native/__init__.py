"""Native code: object files for this CPU, stored once and linked without numba.

The code generator (``backend/codegen``) turns a kernel's or a loop's source into an object file;
this package is everything around that object, for the JIT and for ahead-of-time artifacts alike:

- :mod:`.target`: what code is emitted for (LLVM triple, CPU, features) and LLVM's target machine;
- :mod:`.abi`: the entry-point ABI — argument kinds, the two entries (the JIT's, taking ndarray
  objects, and the artifacts', taking data pointers), the ctypes wrappers calling them, numpy's
  array struct; nothing else knows those layouts;
- :mod:`.objfile`: reading an object's ELF tables before LLVM sees it, and refusing what
  graphcell never emits (``check_linkable``, for artifacts);
- :mod:`.store`: the object store on disk and in memory, shared by the JIT cache and export;
- :mod:`.linking`: linking objects into the process with llvmlite's ORC JIT.

``backend/objects.py`` is the one route through them: source -> code generator -> store ->
linker.

Example (the code generator emits, the store keeps, the linker links)::

    >>> import numpy as np
    >>> from graphcell_ir.backend import objects
    >>> src = "def twice(x, out):\\n    for i in range(x.shape[0]):\\n        out[i] = x[i] * 2\\n"
    >>> kinds = (("array", "float32", 1), ("array", "float32", 1))
    >>> fn, why = objects.jit_function(src, "twice", kinds, key="doc-twice")
    >>> out = np.empty(3, np.float32)
    >>> fn(np.arange(3, dtype=np.float32), out), out
    (True, array([0., 2., 4.], dtype=float32))
"""
from __future__ import annotations

from graphcell_ir.backend.native.abi import (ABI, JIT_ABI, MISMATCH, OK, ObjectEntry,
                                             PointerKernel, PointerLoop, array_layout,
                                             data_address, jit_id,
                                             kernel_kinds, kinds_of, loop_key, native_id,
                                             signature, source_hash, symbol_of)
from graphcell_ir.backend.native.linking import (LoopRecorder, NativeKernels, NativeLoops,
                                                 in_process, link, link_entry)
from graphcell_ir.backend.native.objfile import check_linkable, check_object, checkable
from graphcell_ir.backend.native.store import Found, NativeObject, ObjectStore
from graphcell_ir.backend.native.target import (NativeError, Target, emit_target, host_target,
                                                process_target, target_machine)

__all__ = ["ABI", "JIT_ABI", "MISMATCH", "OK", "ObjectEntry", "PointerKernel", "PointerLoop",
           "array_layout", "data_address", "jit_id", "kernel_kinds", "kinds_of", "loop_key", "native_id",
           "signature", "source_hash", "symbol_of", "LoopRecorder", "NativeKernels",
           "NativeLoops", "in_process", "link", "link_entry", "check_linkable", "check_object",
           "checkable", "Found", "NativeObject", "ObjectStore", "NativeError", "Target",
           "emit_target", "host_target", "process_target", "target_machine"]

"""LLVM itself, for the code generator: llvmlite's binding (initialised once) and the target
machine an object is emitted with.

Apart from ``native/target.py`` (which describes targets and re-exports these) because the
compile worker (:mod:`.worker`) runs :func:`~graphcell_ir.backend.codegen.object_code` in a
process of its own that imports llvmlite and this package, not the ``native`` package (its
``__init__`` imports numpy: ~100 ms more of the worker's start).
"""
from __future__ import annotations

import functools


@functools.lru_cache(maxsize=1)
def llvm_binding():
    """llvmlite's binding, with the host target initialised (once)."""
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


def target_machine(target, opt: int = 3):
    """LLVM's target machine for ``target`` (a ``native.target.Target``: triple, cpu,
    features), as a JIT makes one: static relocations on x86 and the JIT's code model, so
    objects link into the process like JIT-compiled code (the relocations
    ``objfile.check_linkable`` accepts are exactly these). ``opt``: the code generator's
    optimisation level."""
    llvm = llvm_binding()
    t = llvm.Target.from_triple(target.triple)
    reloc = ("static" if t.name.startswith("x86") else "pic" if t.name.startswith("ppc")
             else "default")
    return t.create_target_machine(cpu=target.cpu, features=target.features, opt=opt, reloc=reloc,
                                   codemodel="jitdefault", jit=True)

"""Where the native step's callees come from: the entry address of each kernel and loop it calls.

:func:`~.emit.build` asks its ``code`` for every fused group's or lone op's kernel
(``kernel(ks, optimize)``: its shape-generic pointer entry, the arrays' dimensions passed as
arguments; ``optimize=False``: the object compiled without LLVM's optimisation, for small calls)
and every loop (``loop(source, name, kinds)``: the softmax family's, batch norm's, the layout
transposes'); each answer is
``(what to keep alive, entry address)`` of the pointer entry (``native/abi.py``), or
:class:`~graphcell_ir.backend.lower.Unsupported` when there is none (the executable then keeps
its Python runner):

- :class:`ProcessCode` (the JIT's): emitted by the code generator, or found in the object
  store, and linked into this process;
- :class:`RecordingCode` (export): the same, remembering every object, so that an artifact
  holds the step's kernels and loops beside the runner's (``graphcell_ir/backend/aot.py``);
- :class:`LinkedCode` (``load(native=True)``): only the artifact's own linked objects
  (``native.NativeKernels``), so a loaded step compiles no kernel; one the artifact lacks (an
  artifact exported before steps were, a kernel that did not link) means no step.

Example::

    >>> from graphcell_ir.backend.native import NativeKernels
    >>> LinkedCode(NativeKernels()).loop("def f(x):\\n    pass\\n", "f", [("array", "float32", 1)])
    Traceback (most recent call last):
    ...
    graphcell_ir.backend.lower.Unsupported: loop f: the artifact has no native code for it
"""
from __future__ import annotations

from graphcell_ir.backend import objects
from graphcell_ir.backend.lower import Unsupported
from graphcell_ir.backend.native import abi
from graphcell_ir.backend.native.target import NativeError

__all__ = ["ProcessCode", "RecordingCode", "LinkedCode"]


class ProcessCode:
    """Kernels and loops emitted (or found in the object store) and linked here."""

    def kernel(self, ks, optimize: bool = True) -> tuple:
        # counted: a compile's kernels, in the cache statistics and the compile report
        return self._linked("kernel", lambda: objects.emit_kernel(ks, ks.in_dtypes,
                                                                  fixed_shapes=False,
                                                                  counted=True,
                                                                  optimize=optimize),
                            f"{'/'.join(ks.ops) or 'kernel'}: no native kernel")

    def loop(self, source: str, name: str, kinds) -> tuple:
        return self._linked("loop", lambda: objects.emit_loop(source, name, kinds, counted=True),
                            f"loop {name}: no native code")

    def _linked(self, kind: str, emit, what: str) -> tuple:
        from graphcell_ir.backend.native.linking import linker
        try:
            obj = emit()
            got = linker().link_one(obj)
        except (NativeError, RuntimeError) as e:
            raise Unsupported(f"{what} ({e})") from None
        self.emitted(kind, obj)
        return got

    def emitted(self, kind: str, obj) -> None:
        """Called with every object the step calls (nothing to do in-process)."""


class RecordingCode(ProcessCode):
    """:class:`ProcessCode` that keeps every object the step calls: ``objects`` as
    ``(kind, NativeObject)``, kind ``"kernel"`` or ``"loop"`` (what an export stores)."""

    def __init__(self):
        self.objects: list = []

    def emitted(self, kind: str, obj) -> None:
        self.objects.append((kind, obj))


class LinkedCode:
    """The objects an artifact brought (``native.NativeKernels``, checked, trusted and linked by
    the loader), and nothing else."""

    def __init__(self, kernels):
        self.kernels = kernels

    def kernel(self, ks, optimize: bool = True) -> tuple:
        """The artifact's object of ``ks``; the optimised one serves a call that asked for the
        unoptimised one (an artifact of a version that had none: the same results)."""
        try:
            want = tuple(("array", d, len(s)) for d, s in abi.signature(ks, ks.in_dtypes))
        except NativeError as e:
            raise Unsupported(f"{'/'.join(ks.ops) or 'kernel'}: no native kernel ({e})") from None
        keys = [ks.key] if optimize else [objects.unoptimized_key(ks.key), ks.key]
        for obj, address, tracker in (e for key in keys for e in self.kernels.by_key.get(key, ())):
            if obj.args == want:
                return tracker, address
        raise Unsupported(f"{'/'.join(ks.ops) or 'kernel'}: the artifact has no native code "
                          f"for kernel {ks.key}")

    def loop(self, source: str, name: str, kinds) -> tuple:
        want = tuple(tuple(k) for k in kinds)
        key = abi.loop_key(abi.source_hash(source), name)
        for obj, address, tracker in self.kernels.by_key.get(key, ()):
            if obj.args == want:
                return tracker, address
        raise Unsupported(f"loop {name}: the artifact has no native code for it")

"""graphcell's own code generator: kernel source (the Python subset graphcell writes) to machine
code with llvmlite, without numba.

The kernels graphcell generates (``backend/lower.py``) and its convolution/pooling loops
(``backend/nn_loops.py``) are small Python functions in a narrow subset: loops over ``range``,
``if``/``while``, scalar locals, array elements and views, arithmetic, comparisons, casts,
``math`` functions, immediately called lambdas, and calls of the module's other functions
(inlined; a helper may return one number). numba compiles them in 0.1-0.7 s each (its
typing, its lowering and two LLVM optimisation runs, after 0.5 s of start-up); this package
types the subset with numba's rules (:mod:`.typerules`), emits numba's scalar semantics
(:mod:`.arith`), lowers it to LLVM IR (:mod:`.lowering`) and runs LLVM once, O2 with the loop
vectoriser (:func:`object_code`): 20-130 ms a function, and the same arithmetic, so the results
are the same bits. :func:`compile_jit` makes a JIT cache entry of ``backend/native`` (the
trampoline that checks the ndarrays is the numba path's), so a later process links it as it
links what numba compiled; ``abi="pointers"`` gives an exported artifact's entries.

``prange`` is ``range`` here: the caller runs a parallel kernel's code on blocks of rows
(``kernels._Blocks``). Anything outside the subset raises
:class:`~graphcell_ir.backend.lower.Unsupported`, and the caller compiles with numba as before.
``GRAPHCELL_CODEGEN=0`` turns the code generator off (numba compiles everything).

Example::

    >>> import numpy as np
    >>> from graphcell_ir.backend import native
    >>> src = "def axpy(a, x, y):\\n    for i in range(x.shape[0]):\\n        y[i] += a * x[i]\\n"
    >>> kinds = (("scalar", "float64"), ("array", "float32", 1), ("array", "float32", 1))
    >>> fn = native.link_jit(compile_jit(src, "axpy", kinds, key="doc-axpy"))
    >>> y = np.ones(3, np.float32)
    >>> fn(2.0, np.arange(3, dtype=np.float32), y), y
    (True, array([1., 3., 5.], dtype=float32))
"""
from __future__ import annotations

import ast
import functools
import os

VERSION = "graphcell-codegen-1"
"""Part of every cache entry's name: a change to what the generator emits must change it."""


def enabled() -> bool:
    """Whether kernels are compiled here first (``GRAPHCELL_CODEGEN=0``: numba only; an
    llvmlite without opaque pointers or the new pass manager: numba only)."""
    if os.environ.get("GRAPHCELL_CODEGEN", "1") in ("0", "false", "no"):
        return False
    return _llvmlite_usable()


@functools.lru_cache(maxsize=1)
def _llvmlite_usable() -> bool:
    try:
        import llvmlite.binding as llvm
        import llvmlite.ir as ir
        ir.PointerType()   # opaque pointers (llvmlite >= 0.45)
        return hasattr(llvm, "create_pipeline_tuning_options")
    except (ImportError, TypeError):
        return False


def arg_types(kinds) -> tuple:
    """The kernel language's types of JIT argument kinds (``("array", "float32", 2)``...)."""
    import numpy as np

    from graphcell_ir.backend.codegen.typerules import Array
    return tuple(Array(np.dtype(k[1]), k[2]) if k[0] == "array" else np.dtype(k[1])
                 for k in kinds)


def lower_ir(source: str, entry: str, kinds, symbol: str = "gc_entry",
             no_overflow: bool = False, abi: str = "numba", shapes=None) -> str:
    """The LLVM IR (text) of function ``entry`` of module ``source`` for arguments of ``kinds``,
    behind a function ``symbol`` returning ``i32`` 0 after ``i8* ret, i8* excinfo`` and:

    - ``abi="numba"``: numba's parameters, each array as numba flattens it (meminfo, parent,
      nitems, itemsize, data, shape..., strides...): ``native.trampoline_ir``'s callee (internal);
    - ``abi="pointers"``: each array as its data pointer, then its dimensions unless ``shapes``
      gives them (one tuple per argument, constants in the code): the entry of an exported
      kernel or loop (``native.emit``), external.

    ``no_overflow``: the source's integer arithmetic is index arithmetic that never overflows
    (``nsw``: LLVM then sees consecutive accesses; im2col ran 2.7x faster with it)."""
    import llvmlite.ir as ir

    from graphcell_ir.backend.codegen.llvmtypes import I32, I64, PTR, value_type
    from graphcell_ir.backend.codegen.lowering import ModuleLowering
    from graphcell_ir.backend.codegen.typerules import Array
    from graphcell_ir.backend.lower import Unsupported
    types = arg_types(kinds)
    mod = ModuleLowering(ast.parse(source), no_overflow)
    impl = mod.function(entry, types)
    if not isinstance(impl.function_type.return_type, ir.VoidType):
        raise Unsupported(f"{entry}() returns a value: a kernel writes its results into arrays")
    impl.linkage = "internal"
    params = [PTR, PTR]
    for k, t in enumerate(types):
        if not isinstance(t, Array):
            params.append(value_type(t))
        elif abi == "numba":
            params += [PTR, PTR, I64, I64, PTR] + [I64] * (2 * t.ndim)
        else:
            params += [PTR] + ([] if shapes is not None else [I64] * t.ndim)
    fn = ir.Function(mod.module, ir.FunctionType(I32, params), symbol)
    if abi == "numba":
        fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    args, at = [], 2
    for k, t in enumerate(types):
        if not isinstance(t, Array):
            args.append(fn.args[at])
            at += 1
        elif abi == "numba":   # numba's array: meminfo, parent, nitems, itemsize, data...
            args += [fn.args[at + 4]] + list(fn.args[at + 5:at + 5 + t.ndim])
            at += 5 + 2 * t.ndim
        elif shapes is not None:
            args += [fn.args[at]] + [I64(d) for d in shapes[k]]
            at += 1
        else:
            args += list(fn.args[at:at + 1 + t.ndim])
            at += 1 + t.ndim
    b.call(impl, args)
    b.ret(I32(0))
    return str(mod.module)


def compile_jit(source: str, entry: str, kinds, key: str, no_overflow: bool = False):
    """A JIT cache object (``native.NativeObject``) of function ``entry`` of ``source`` for
    arguments of ``kinds``, named by ``key`` as numba's would be; Unsupported when the function
    is outside the subset (or calls a symbol this process lacks). ``no_overflow``: see
    :func:`lower_ir`."""
    from graphcell_ir.backend import native
    from graphcell_ir.backend.lower import Unsupported
    layout = native.array_layout()
    if layout is None:
        raise Unsupported("numpy's array struct is not the expected one")
    kinds = tuple(tuple(k) for k in kinds)
    id_ = native.jit_id(key, kinds)
    callee = "gc_kernel"
    text = lower_ir(source, entry, kinds, callee, no_overflow)
    trampoline, _ = native.trampoline_ir(native.symbol_of(id_), callee, kinds, layout)
    target = native.host_target()
    data, needs = object_code(text + "\n" + trampoline, target)
    return native.NativeObject(key, id_, kinds, native.pack_single(data), target, needs)


def compile_cached(source: str, entry: str, kinds, key: str, no_overflow: bool = False):
    """``(linked function, "")`` for :func:`compile_jit`'s object, linked in this process
    (``native.JitFunction``) and written to the JIT disk cache; ``(None, why)`` when the
    generator refuses the source or fails (logged: the caller compiles with numba, and a bug of
    the generator never ends a user's run — its own tests surface it)."""
    import logging
    from graphcell_ir.backend import native
    from graphcell_ir.backend.lower import Unsupported
    log = logging.getLogger("graphcell.backend")
    try:
        obj = compile_jit(source, entry, kinds, key, no_overflow)
        fn = native.link_jit(obj)
    except Unsupported as e:
        log.info("%s: the code generator refuses it (%s); numba compiles it", key, e)
        return None, f"not in the code generator's subset ({e})"
    except Exception as e:   # LLVM refused the module or the link, or a bug of the generator
        log.warning("%s: the code generator failed (%s: %s); numba compiles it", key,
                    type(e).__name__, e)
        return None, f"code generator failed ({type(e).__name__}: {e})"
    native.store_jit(key, kinds, obj)
    return fn, ""


def optimized_ir(source: str, entry: str, kinds, no_overflow: bool = False) -> str:
    """The LLVM IR of ``entry`` for ``kinds`` after LLVM's passes, behind a plain entry taking
    data pointers and dimensions: what to read when a kernel is slow (is its loop vectorised?).
    ``save_graphs`` dumps it beside each kernel's source."""
    from graphcell_ir.backend import native
    text = lower_ir(source, entry, kinds, entry, no_overflow, abi="pointers")
    return str(_optimized(text, native.host_target())[0])


def object_code(text: str, target) -> tuple[bytes, tuple]:
    """The object file of LLVM IR ``text`` for ``target`` (optimised by :func:`_optimize`) and
    the outside symbols it calls (libm's); Unsupported when this process lacks one."""
    from graphcell_ir.backend import native
    from graphcell_ir.backend.lower import Unsupported
    mod, tm = _optimized(text, target)
    needs = tuple(sorted(f.name for f in mod.functions
                         if f.is_declaration and not f.name.startswith("llvm.")))
    missing = [n for n in needs if not native.in_process(n)]
    if missing:
        raise Unsupported(f"it calls {', '.join(missing)}, which this process lacks")
    return tm.emit_object(mod), needs


def _optimized(text: str, target) -> tuple:
    """(module, target machine): LLVM IR ``text`` parsed for ``target``, verified, optimised."""
    from graphcell_ir.backend import native
    from graphcell_ir.backend.native.target import _llvm
    llvm = _llvm()
    tm = native.target_machine(target)
    mod = llvm.parse_assembly(text)
    mod.triple = target.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    _optimize(llvm, mod, tm)
    return mod, tm


def _optimize(llvm, mod, tm) -> None:
    """LLVM's O2 with the loop vectoriser, no unrolling, interleaving or SLP. Measured on the
    LeNet5 loops against numba's O3 with everything (compile ms / run ms): im2col 79 / 0.12
    against 300 / 0.15, max_pool_grad 130 / 0.21 against 450 / 0.15, col2im 51 / 0.29 against
    120 / 0.34 — unrolling and interleaving cost compile time and won nothing here."""
    pto = llvm.create_pipeline_tuning_options(speed_level=2)
    pto.loop_vectorization = True
    pto.slp_vectorization = False
    pto.loop_unrolling = False
    pto.loop_interleaving = False
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)

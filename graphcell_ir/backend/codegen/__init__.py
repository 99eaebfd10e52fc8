"""graphcell's own code generator: kernel source (the Python subset graphcell writes) to machine
code with llvmlite, without numba — the one route by which graphcell's kernels become machine code.

The kernels graphcell generates (``backend/lower.py``) and its convolution/pooling loops
(``backend/nn_loops.py``) are small Python functions in a narrow subset: loops over ``range``,
``if``/``while``, scalar locals, array elements and views, arithmetic, comparisons, casts,
``math`` functions, immediately called lambdas, and calls of the module's other functions
(inlined; a helper may return one number). This package types the subset with numba's rules
(:mod:`.typerules`), emits numba's scalar semantics (:mod:`.arith`), lowers it to LLVM IR
(:mod:`.lowering`), puts one of the entries of ``native/abi.py`` in front of it
(:func:`lower_module`) and runs LLVM once, O2 with the loop vectoriser (:func:`object_code`;
a short pipeline for what gains nothing from O2: :func:`pipeline`):
20-130 ms a function, where numba took 0.1-0.7 s after 0.5 s of start-up, and the same
arithmetic, so the results are numba's bits (numba stays the tests' oracle).

A kernel's final ``prange`` loop calls the native thread pool (:mod:`.parallel`,
``native/pool.py``); any other ``prange`` is ``range``. Anything outside the subset raises
:class:`~graphcell_ir.backend.lower.Unsupported`; ``backend/objects.py`` (the route: code
generator, object store, linker) records the refusal and the caller falls back to numba.

Example::

    >>> src = "def axpy(a, x, y):\\n    for i in range(x.shape[0]):\\n        y[i] += a * x[i]\\n"
    >>> kinds = (("scalar", "float64"), ("array", "float32", 1), ("array", "float32", 1))
    >>> text = lower_module(src, "axpy", kinds, "axpy_entry", entry="pointers")
    >>> 'define i32 @"axpy_entry"' in text
    True
"""
from __future__ import annotations

import ast
import functools

VERSION = "graphcell-codegen-18"
"""Part of every stored object's name: a change to what the generator emits must change it."""


def available() -> bool:
    """Whether this llvmlite can run the generator (opaque pointers and the new pass manager,
    llvmlite >= 0.45); without it numba compiles every kernel."""
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
    """The kernel language's types of argument kinds (``("array", "float32", 2)``...)."""
    import numpy as np

    from graphcell_ir.backend.codegen.typerules import Array
    return tuple(Array(np.dtype(k[1]), k[2]) if k[0] == "array" else np.dtype(k[1])
                 for k in kinds)


def lower_module(source: str, name: str, kinds, symbol: str, *, entry: str = "object",
                 layout=None, shapes=None, no_overflow: bool = False,
                 parallel: bool = False, noalias: bool = False) -> str:
    """The LLVM IR (text) of function ``name`` of module ``source`` for arguments of ``kinds``,
    behind an entry ``symbol`` of ``native/abi.py``:

    - ``entry="object"``: the JIT's object entry (ndarray objects in, checked against numpy's
      array struct ``layout``: ``abi.array_layout()``);
    - ``entry="pointers"``: an artifact's pointer entry (data pointers, then dimensions unless
      ``shapes`` gives them: one tuple per argument, constants in the code).

    ``no_overflow``: the source's integer arithmetic is index arithmetic that never overflows
    (``nsw``: LLVM then sees consecutive accesses; im2col ran 2.7x faster with it).
    ``parallel``: ``name``'s final ``prange`` loop runs on the native thread pool
    (:mod:`.parallel`); otherwise ``prange`` is ``range``. ``noalias``: no array argument
    overlaps one the function writes (``lower.py``'s kernels: fresh outputs), so its pointers
    are marked ``noalias``."""
    import llvmlite.ir as ir

    from graphcell_ir.backend.codegen.lowering import ModuleLowering
    from graphcell_ir.backend.lower import Unsupported
    from graphcell_ir.backend.native import abi
    from graphcell_ir.backend.codegen.parallel import mark_noalias
    from graphcell_ir.backend.codegen.release import release
    written = _hand_written()
    if source in written:   # a kernel written as LLVM IR, not in the subset
        module = ir.Module(name="graphcell_direct_conv")
        impl = written[source].function(module, name, kinds)
    else:
        mod = ModuleLowering(_parsed(source), no_overflow, name if parallel else None, noalias)
        module, impl = mod.module, mod.function(name, arg_types(kinds))
    if noalias:
        mark_noalias(impl)
    if not isinstance(impl.function_type.return_type, ir.VoidType):
        raise Unsupported(f"{name}() returns a value: a kernel writes its results into arrays")
    impl.linkage = "internal"
    impl.attributes.add("alwaysinline")
    if entry == "object":
        abi.add_object_entry(module, impl, kinds, symbol, layout)
    else:
        abi.add_pointer_entry(module, impl, kinds, symbol, shapes)
    text = str(module)
    release(module)   # its cycles freed now, not by the collector after the compile
    return text


def _hand_written() -> dict:
    """source -> module of the kernels written as LLVM IR with llvmlite's builder."""
    from graphcell_ir.backend.codegen import direct_conv, direct_filter, winograd_conv
    return {m.SOURCE: m for m in (direct_conv, direct_filter, winograd_conv)}


SHORT = "short"
"""``object_code``'s ``optimize`` for a short pipeline (:func:`_optimize_short`)."""


def pipeline(source: str, name: str):
    """``object_code``'s ``optimize`` for function ``name`` of ``source``: :data:`SHORT` for
    the kernels written as LLVM IR (their loops, vectors and register tiles are explicit
    already: LLVM's O2 gained them nothing but its time) and for the functions a source lists
    in a top-level ``SHORT_PIPELINE = ("name", ...)`` (``nn_loops``' layout loops that ran as
    fast without O2), True (O2 with the loop vectoriser) for the rest. A hand-written module
    that O2 still speeds up says so in its ``PIPELINE``."""
    written = _hand_written().get(source)
    if written is not None:
        return getattr(written, "PIPELINE", SHORT)
    listed = "SHORT_PIPELINE" in source and name in _short_pipeline(source)   # (no parse else)
    return SHORT if listed else True


@functools.lru_cache(maxsize=16)
def _short_pipeline(source: str) -> tuple:
    """The names of ``source``'s top-level ``SHORT_PIPELINE`` tuple (none without one)."""
    for node in _parsed(source).body:
        if isinstance(node, ast.Assign) and \
                [getattr(t, "id", None) for t in node.targets] == ["SHORT_PIPELINE"]:
            return tuple(ast.literal_eval(node.value))
    return ()


_MICROSECONDS_A_CHAR = {True: 3.0, SHORT: 0.5, False: 0.2}
"""LLVM's time per character of a module's IR by ``optimize``: W2's step objects (process
time, best of 3) took 2.4-4 us a char at O2 (the smallest kernels ~5), 0.5-1.1 with the short
pipeline, 0.2-0.35 unoptimised."""


def expected_seconds(text: str, optimize=True) -> float:
    """A rough guess of :func:`object_code`'s time for ``text``: which of the objects waiting
    to compile are the long ones (``step/code.py`` compiles them first)."""
    return len(text) * _MICROSECONDS_A_CHAR[SHORT if optimize == SHORT else bool(optimize)] \
        * 1e-6


@functools.lru_cache(maxsize=16)
def _parsed(source: str) -> ast.Module:
    """The syntax tree of ``source``, parsed once: every loop of ``nn_loops`` is lowered from
    the whole module's 470 lines (2.4 ms a parse; ResNet-18's cold compile lowers nine loops,
    10 ms less with the tree shared). The lowering only reads the tree."""
    return ast.parse(source)


def optimized_ir(source: str, name: str, kinds, no_overflow: bool = False,
                 parallel: bool = False, noalias: bool = False) -> str:
    """The LLVM IR of ``name`` for ``kinds`` after LLVM's passes, behind a pointer entry taking
    data pointers and dimensions: what to read when a kernel is slow (is its loop vectorised?).
    ``save_graphs`` dumps it beside each kernel's source."""
    from graphcell_ir.backend.native.target import host_target
    text = lower_module(source, name, kinds, name, entry="pointers", no_overflow=no_overflow,
                        parallel=parallel, noalias=noalias)
    return str(_optimized(text, host_target(), pipeline(source, name))[0])


def object_code(text: str, target, optimize=True) -> tuple[bytes, tuple]:
    """The object file of LLVM IR ``text`` for ``target`` (optimised by :func:`_optimize`
    when ``optimize`` is true, by :func:`_optimize_short` when it is :data:`SHORT`
    (:func:`pipeline`); not at all when it is false: straight-line calls, as the native step's,
    gain nothing from the passes but their time — nor from the code generator's optimisation,
    level 0 then: the ResNet-18 step's module took 270-600 ms to compile at level 3, 30-60 ms
    at 0, the steps measured the same) and the outside symbols it calls (libm's)."""
    mod, tm = _optimized(text, target, optimize)
    needs = tuple(sorted(f.name for f in mod.functions
                         if f.is_declaration and not f.name.startswith("llvm.")))
    return tm.emit_object(mod), needs


def _optimized(text: str, target, optimize=True) -> tuple:
    """(module, target machine): LLVM IR ``text`` parsed for ``target``, verified, optimised
    (``optimize`` as for :func:`object_code`)."""
    from graphcell_ir.backend.codegen.machine import llvm_binding
    llvm = llvm_binding()
    tm = _machine(target, 3 if optimize else 0)
    mod = llvm.parse_assembly(text)
    mod.triple = target.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    if optimize == SHORT:
        _optimize_short(llvm, mod, tm)
    elif optimize:
        _optimize(llvm, mod, tm)
    return mod, tm


@functools.lru_cache(maxsize=8)
def _machine(target, opt: int):
    """LLVM's target machine for ``target`` at code generator level ``opt``, made once: a new one
    per object rebuilt its subtarget (the CPU's tables and features) for every emission, ~1 ms
    an object (W5's 16 objects: 241 -> 226 ms of LLVM, process time, best of 4; the same object
    bytes). llvmlite runs each LLVM call under its one lock, so objects compiled from several
    threads still use it one at a time."""
    from graphcell_ir.backend.codegen.machine import target_machine
    return target_machine(target, opt)


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


def _optimize_short(llvm, mod, tm) -> None:
    """The passes a kernel written as LLVM IR needs (``direct_conv``, ``direct_filter``): its
    implementation inlined into its entry and dropped, its allocas (loop counters, register
    tiles) to SSA values, the builder's redundant arithmetic folded and its blocks merged;
    the code generator's own optimisation (level 3) does the rest. Against :func:`_optimize`
    (process time, best of 3): conv_direct 31 -> 16 ms, filter_direct 40 -> 18, pad_image
    17 -> 9, the kernels as fast (a ResNet block's 3x3 32 -> 32 forward, input and filter
    gradients; docs/decisions.md, "Short pipelines")."""
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    pm = llvm.create_new_module_pass_manager()
    pm.add_always_inliner_pass()
    pm.add_sroa_pass()
    pm.add_instruction_combine_pass()
    pm.add_simplify_cfg_pass()
    pm.add_global_dead_code_eliminate_pass()
    pm.run(mod, pb)

"""The executable: one generated Python function per IR function, calling kernels and references.

``compile_executable(module, fn)`` returns an :class:`Executable`; ``exe(args)`` returns the list
of the function's results, exactly as the reference interpreter's compiled functions do. The
runner is straight-line Python generated from the IR (``exe.source`` shows it)::

    def run(args):
        x, w = args
        if x.__class__ is not ndarray or x.shape != (4, 8) or x.dtype != float32:
            return slow(args)
        v0, v1 = K0(x, w)  # fused: mul, tanh (kernel 0ae8072e9a99)
        v2 = R1(v1, w)  # matmul
        return [v0, v2]

- a lone relu, sigmoid, sqrt or erf (no group took it) is a one-op kernel (:data:`LONE_KERNELS`);
  in a function with a native step, every lone elementwise op is the step's one-op kernel (the
  calls the step declines give its bits);
- a lone reduction is the one-op kernel the native step calls for it, at any size (with the JIT):
  numpy's float32 ``sum`` would give other bits than the step's;
- a ``fused`` op calls its kernel (:mod:`.lower`, :mod:`.kernels`: native code from graphcell's
  code generator); when the group cannot be lowered, or its domain has fewer than
  ``kernel_min_size`` elements, its body runs inline with the registry's references instead (the
  reason is logged and kept in ``exe.fallbacks``);
- every other primitive calls its registry ``ref`` (numpy: BLAS for ``matmul``, vectorized
  softmax...) or, for convolution and pooling gradients, the kernel :mod:`.nnkernels` gives
  (the one PyNative uses too), attributes bound once with ``functools.partial``;
- ``const`` and literals are globals of the runner; ``if``/``while`` are Python control flow;
  ``call`` calls the callee's own executable.

Anything unusual at run time (an argument of another type or shape than compiled for, any
exception) reruns the call with the reference interpreter, which gives the same results or raises
the same error as it always does. A rerun restores the random generator's state first (random
ops draw the same numbers, once); a call that fails after a host callback or a collective ran
(``Trait.EXTERNAL``) is not rerun.
Compiling never raises either: a function the generator cannot handle runs on the interpreter.

A function of fixed shapes runs as a native step instead (:mod:`.step`: a static buffer plan
and llvmlite functions calling the kernels' pointer entries and BLAS): one native call when
every op has a native lowering, else native segments with the other ops called from Python
between them (``exe.run.step.host_ops``); the runner above stays for the calls it declines and
for profiled runs (made when one first needs it: ``exe.runner``), and runs functions with
control flow or external ops (``exe.step_fallback`` says why there is no step;
``GRAPHCELL_NATIVE_STEP=0`` turns it off). Random ops run in Python between segments; a declined
call restores the generator before the runner reruns it.
Functions that run GEMMs time their calls to choose BLAS's thread count (:mod:`.blas_threads`).
"""
from __future__ import annotations

import functools
import logging
import sys
import threading
from pathlib import Path

import numpy as np

from graphcell_ir import switches
from graphcell_ir.backend import naming, profile, report
from graphcell_ir.backend.blas_threads import Tuner
from graphcell_ir.backend.interp import Interpreter
from graphcell_ir.backend.kernels import Kernel, compile_kernel, jit_enabled
from graphcell_ir.backend.lower import Unsupported, lower_fused, lower_single
from graphcell_ir.backend.nnkernels import implementation
from graphcell_ir.ir.core import Block, Function, Literal, Module, Op, Value
from graphcell_ir.ir.structural import CALL, CONST, FUSED, IF, WHILE, const_array
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops import conv as C
from graphcell_ir.ops import elementwise as E
from graphcell_ir.ops import random as op_random
from graphcell_ir.ops.effects import assign
from graphcell_ir.ops.layout import broadcast_to, take
from graphcell_ir.ops.registry import Kind, Trait
from graphcell_ir.text.printer import name_values, print_function

log = logging.getLogger("graphcell.backend")

__all__ = ["compile_executable", "Executable"]


LONE_KERNELS = frozenset({E.relu, E.sigmoid, E.sqrt, E.erf})
"""Elementwise ops that run as a one-op kernel when no fused group took them: the ones whose
kernel measured faster than their numpy reference (f32, 64k and 512k elements, 2 cores: relu
3.5x — numpy's maximum against a zeros array —, sqrt 1.8x, sigmoid 1.2x, erf 8-25x — numpy has
no erf ufunc). Plain arithmetic, comparisons, tanh and exp (numpy's are SIMD; numba calls scalar
libm exp) measured equal or slower, so they keep numpy."""

LONE_MIN_SIZE = 4096
"""Below this many elements a kernel call's overhead eats what it saves."""


def compiling_soon() -> None:
    """A function's compile begins (its front end): the backend may start its compile worker
    now, on an empty object store (``step.code.compiling_soon``).

    >>> compiling_soon()   # nothing to return; at most the compile lanes start
    """
    from graphcell_ir.backend.step import code
    code.compiling_soon()


def compile_executable(module: Module, fn: Function | str, *, jit: bool | None = None,
                       kernel_min_size: int = 0, dump_dir: str | Path | None = None,
                       interpreter: Interpreter | None = None, native=None,
                       donated=()) -> Executable:
    """The executable of ``fn`` (a Function of ``module`` or its name). Never raises: what
    cannot be compiled runs on the reference interpreter. ``kernel_min_size``: fused groups
    with fewer elements run their references. ``native``: linked kernels
    (``native.NativeKernels``) used instead of compiling the ones they have. ``donated``: the
    indices of the arguments whose arrays the caller gives up (it replaces them by the results
    it writes back): the native step may write their updates into them (``step/donate.py``),
    and then returns that argument as the new value."""
    if isinstance(fn, str):
        fn = module[fn]
    interp = interpreter or Interpreter(module)
    opts = _Options(jit_enabled(jit), kernel_min_size,
                    Path(dump_dir) if dump_dir is not None else None, interp)
    opts.native = native
    opts.donated = {fn: tuple(donated)}   # this function's arguments, not its callees'
    return _build(fn, opts, {})


class _Options:
    native = None   # linked native kernels (graphcell_ir.backend.native), or None
    donated = None   # {function: the indices of its donated arguments}, or None

    def __init__(self, jit, min_size, dump_dir, interp):
        self.jit, self.min_size, self.dump_dir, self.interp = jit, min_size, dump_dir, interp


class Executable:
    """Runs one function: ``exe(args) -> list of results``.

    ``runner``: its generated Python runner (:class:`PythonRunner`), or a function making it —
    then it is made on first use (a declined call, a profiled run, reading ``source`` or
    ``kernels``): a function its native step runs needs it only for those."""

    def __init__(self, fn: Function, runner, uses_blas: bool = False):
        self.function = fn
        self._runner = runner if isinstance(runner, PythonRunner) else None
        self._make_runner = None if self._runner is not None else runner
        self._lock = threading.Lock()
        self.run = self._runner.run if self._runner is not None else self.python_run
        self._timed_run = None             # the runner with its sites timed, built on first use
        # BLAS's thread count, timed per executable, for functions that call BLAS
        self.blas = Tuner() if uses_blas and _uses_blas(fn) else None
        self.step_fallback = "no runner"   # why the function has no native step (None: it has)

    @property
    def runner(self) -> "PythonRunner":
        """The generated Python runner, made now if it was left for later."""
        if self._runner is None:
            with self._lock:   # made once, whichever thread asks first
                if self._runner is None:
                    self._runner = self._make_runner()
        return self._runner

    def python_run(self, args) -> list:
        """Run ``args`` on the Python runner (what a call the native step declines takes)."""
        return self.runner.run(args)

    # what the runner is made of (reading them makes it)
    source = property(lambda self: self.runner.source)          # its Python source
    kernels = property(lambda self: self.runner.kernels)        # the Kernel objects it calls
    fallbacks = property(lambda self: self.runner.fallbacks)    # why each op that could have
    #                                                             been a kernel is not
    namespace = property(lambda self: self.runner.namespace)    # its globals
    sites = property(lambda self: self.runner.sites)            # global -> naming.Site it calls

    def __call__(self, args) -> list:
        run = self.run if profile.active() is None else self.timed_run()
        if self.blas is not None:
            return self.blas(lambda: run(args))
        return run(args)

    def timed_run(self):
        """The runner whose kernel and op calls note profile events (``backend/profile.py``):
        the same source, run with its sites wrapped; the plain runner stays untouched."""
        if self._timed_run is None:
            if not self.source:
                return self.runner.run
            ns = dict(self.namespace)
            for g, site in self.sites.items():
                ns[g] = profile.timed(self.function.name, site, ns[g])
            exec(compile(self.source, f"<graphcell timed runner @{self.function.name}>", "exec"),
                 ns)
            self._timed_run = ns["run"]
        return self._timed_run

    @property
    def kernel_names(self) -> list[str]:
        """The names of the kernels the runner calls (``backend/naming.py``), in call order."""
        return [g for g, s in self.sites.items() if s.kind == "kernel"]

    def __repr__(self) -> str:
        if self._runner is None:
            return f"<Executable @{self.function.name}: a native step, no Python runner yet>"
        return (f"<Executable @{self.function.name}: {len(self.kernels)} kernels, "
                f"{len(self.fallbacks)} fallbacks>")


class PythonRunner:
    """A function's generated Python runner (``_Gen``): ``run``, its ``source`` and globals
    (``namespace``), the kernels it calls, why ops that could have been kernels are not
    (``fallbacks``) and the call sites a profiled run times (``sites``); or the interpreter
    (``source`` empty) when the generator failed."""

    def __init__(self, run, source: str = "", kernels: list | None = None,
                 fallbacks: list[str] | None = None, namespace: dict | None = None,
                 sites: dict | None = None):
        self.run, self.source = run, source
        self.kernels, self.fallbacks = kernels or [], fallbacks or []
        self.namespace, self.sites = namespace or {}, sites or {}


def _build(fn: Function, opts: _Options, done: dict) -> Executable:
    slow = opts.interp.compiled(fn)
    counts = []
    with report.timed(f"lower @{fn.name}", _Counts(counts)):
        refusal = _step_refusal(fn, opts)
        step, why = _native_step(fn, opts, refusal)
        # the runner of a function that may have a step gives its bits, with or without an
        # artifact's kernels (the export records the runner's kernels without building a step)
        step_bits = refusal is None
        if step is None or opts.native is not None:
            # an artifact's runner is made at load: it says then which kernels the artifact
            # lacks (graphcell.aot's warning), and its kernels are only looked up
            runner = _python_runner(fn, opts, done, slow, lazy=False, step_bits=step_bits)
            exe = Executable(fn, runner, uses_blas=bool(runner.source))
            if step is not None:
                exe.run = _step_run(step, fn, runner.run)
        else:   # the runner is made (its kernels compiled lazily) if a call needs it
            exe = Executable(fn, functools.partial(_python_runner, fn, opts, done, slow,
                                                   lazy=True, step_bits=step_bits),
                             uses_blas=True)
            exe.run = _step_run(step, fn, exe.python_run)
        exe.step_fallback = why
        counts.append(exe)
    done[fn] = exe
    if opts.dump_dir is not None:
        _dump(exe, opts.dump_dir)
    return exe


def _python_runner(fn: Function, opts: _Options, done: dict, slow, lazy: bool,
                   step_bits: bool = False) -> PythonRunner:
    """``fn``'s generated Python runner; the interpreter when the generator fails (compiling
    never crashes). ``lazy``: its kernels are compiled when first called (``_Gen.compile``);
    ``step_bits``: ``fn`` may run as a native step, whose bits the runner gives (``_Gen.lone``)."""
    try:
        gen = _Gen(fn, opts, done, slow, lazy=lazy, step_bits=step_bits)
        source = gen.function()
        ns = dict(gen.globals)
        exec(compile(source, f"<graphcell runner @{fn.name}>", "exec"), ns)
        return PythonRunner(ns["run"], source, gen.kernels, gen.fallbacks, dict(gen.globals),
                            gen.sites)
    except Exception as e:  # never crash: the interpreter runs it
        log.warning("@%s runs on the interpreter: %s: %s", fn.name, type(e).__name__, e)
        return PythonRunner(lambda args: slow(args), fallbacks=[f"whole function: {e}"])


NOT_ASKED = "not asked for"
"""Why a function has no native step when none is asked for (no JIT, ``kernel_min_size``, the
``GRAPHCELL_NATIVE_STEP`` switch off, the export's kernel recorder)."""


def _step_refusal(fn: Function, opts: _Options) -> str | None:
    """Why ``fn`` has no native step whatever its kernels' source, or None: it may have one (a
    cheap scan of its ops: refusals compile nothing). Not without the JIT, or with
    ``kernel_min_size`` (which asks for references on small groups)."""
    if not opts.jit or opts.min_size or not switches.on("GRAPHCELL_NATIVE_STEP"):
        return NOT_ASKED
    from graphcell_ir.backend.step import emit
    return emit.unsupported(fn, segments=True)


def _native_step(fn: Function, opts: _Options, why: str | None) -> tuple:
    """``(step, None)``: ``fn``'s native step (one call into machine code, :mod:`.step`), or
    ``(None, why not)``: the generated Python runner runs it. The runner also takes the calls
    the step declines (arguments of other shapes or dtypes): its guards send them on as before.
    Every call an executable runs with given arguments takes the same route, so its results do
    not depend on which call it is or on other threads (the runner's numpy and the step's
    kernels may round differently). With an artifact's kernels (``native``) the step calls only
    those (a kernel it lacks: no step). ``why``: :func:`_step_refusal`'s answer."""
    code = _step_code(opts.native)
    if code is None or why is NOT_ASKED:
        return None, NOT_ASKED
    from graphcell_ir.backend.step import emit
    if why is None:
        try:
            return emit.build(fn, host=functools.partial(primitive_callable, opts=opts),
                              code=code, donated=(opts.donated or {}).get(fn, ())), None
        except Unsupported as e:
            why = str(e)
        except Exception as e:   # a bug of the emitter: the runner still runs the function
            why = f"{type(e).__name__}: {e}"
            log.warning("@%s: the native step failed to build (%s)", fn.name, why)
    log.info("@%s: no native step (%s); the Python runner runs it", fn.name, why)
    return None, why


def _step_run(step, fn: Function, python_run):
    """What runs ``fn`` with a native step: the step, and ``python_run`` for the calls it
    declines (``run.step`` is the step)."""
    if not _draws_random(fn):
        def run(args):
            results = step(args)
            return python_run(args) if results is None else results
    else:   # a declined call reruns on the runner: it must draw what the step drew
        def run(args):
            state = op_random.generator().bit_generator.state
            results = step(args)
            if results is None:
                op_random.generator().bit_generator.state = state
                return python_run(args)
            return results
    run.step = step
    return run


class _CompiledOnFirstCall:
    """A kernel's compiled function, compiled on its first call (``_Gen.compile``)."""

    def __init__(self, ks, jit, native):
        self.ks, self.jit, self.native, self.fn = ks, jit, native, None

    def __call__(self, *args):
        if self.fn is None:
            self.fn = compile_kernel(self.ks, self.jit, self.native).fn
        return self.fn(*args)


def _step_code(native):
    """Where a native step's kernels come from (``step/code.py``): compiled here, or an
    artifact's linked objects only (``native.NativeKernels``); None for anything else standing
    for kernels (the export's recorder: the export records the step's kernels itself)."""
    from graphcell_ir.backend.native.linking import NativeKernels
    from graphcell_ir.backend.step import code
    if native is None:
        return code.ProcessCode()
    return code.LinkedCode(native) if isinstance(native, NativeKernels) else None


class _Counts:
    """The lower phase's detail, read when the phase ends: "3 kernels, 1 fallbacks"."""

    def __init__(self, holder: list):
        self.holder = holder

    def __str__(self) -> str:
        exe = self.holder[0] if self.holder else None
        if exe is None:
            return ""
        if exe._runner is None:   # not made for a report
            return "a native step; the Python runner is made if a call needs it"
        return f"{len(exe.kernels)} kernels, {len(exe.fallbacks)} fallbacks"


def _dump(exe: Executable, d: Path) -> None:
    """The runner's and every kernel's source into ``d``, and the LLVM IR (after LLVM's passes)
    of each kernel the code generator compiles."""
    try:
        d.mkdir(parents=True, exist_ok=True)
        (d / f"runner_{exe.function.name}.py").write_text(exe.source)
        (d / f"ir_{exe.function.name}.gcir").write_text(_ir_with_kernels(exe))
        step = getattr(exe.run, "step", None)
        if step is not None:
            (d / f"step_{exe.function.name}.ll").write_text(step.text)
        for g, k in zip(exe.kernel_names, exe.kernels):
            head = naming.header(exe.sites[g], k.ks.key)
            (d / f"kernel_{g}.py").write_text(head + k.ks.module_text)
            text = _kernel_ir(k.ks)
            if text is not None:
                (d / f"kernel_{g}.ll").write_text(head.replace("# ", "; ") + text)
    except OSError as e:
        log.warning("could not dump the generated source to %s: %s", d, e)


def _ir_with_kernels(exe: Executable) -> str:
    """The function's IR as the runner saw it, then which kernel computes which values (the
    kernel files' names, so the dump, the runner and the kernel files can be read together)."""
    lines = [print_function(exe.function), "// kernels of the runner (kernel_<name>.py):"]
    for g in exe.kernel_names:
        s = exe.sites[g]
        lines.append(f"//   {g}: {', '.join(s.values)} = {', '.join(s.ops)}"
                     + (f"  from {', '.join(s.sources)}" if s.sources else ""))
    return "\n".join(lines) + "\n"


def _kernel_ir(ks) -> str | None:
    from graphcell_ir.backend import codegen
    from graphcell_ir.backend.native.abi import kernel_kinds
    kinds = kernel_kinds(ks)
    if kinds is None or not codegen.available():
        return None
    try:
        return codegen.optimized_ir(ks.module_text, "kernel", kinds, parallel=ks.parallel,
                                    noalias=True)
    except Unsupported:
        return None


class _Call:
    """``call`` of another function: its executable, built on first use (recursion-safe)."""

    def __init__(self, callee: Function, opts: _Options, done: dict):
        self.callee, self.opts, self.done, self.exe = callee, opts, done, None

    def __call__(self, *args):
        if self.exe is None:
            self.exe = self.done.get(self.callee) or _build(self.callee, self.opts, self.done)
        return self.exe(list(args))


class _Gen:
    """Writes the runner's source; ``globals`` holds what it refers to."""

    def __init__(self, fn: Function, opts: _Options, done: dict, slow, lazy: bool = False,
                 step_bits: bool = False):
        self.fn, self.opts, self.done = fn, opts, done
        self.lazy = lazy   # the native step will run it: compile kernels when first called
        self.step_bits = step_bits   # fn may run as a native step: give its bits
        self.globals: dict = {"ndarray": np.ndarray, "slow": slow,
                              "failed": functools.partial(_failed, fn.name, slow)}
        self.names: dict[Value, str] = {}
        self.lines: list[str] = []
        self.kernels: list = []
        self.fresh: set[Value] = set()   # results of kernel calls: new arrays nobody else holds
        self.deferred: dict[Value, tuple] = {}   # broadcast_to results left to the kernels
        self.fallbacks: list[str] = []
        self.ir_names = name_values(fn)    # the IR's printed names: the runner uses them
        self.taken: set[str] = set()
        self.sites: dict[str, naming.Site] = {}   # the timed call sites, by runner global
        self.into: set[Op] = set()   # updates written into the loop-carried array they update
        self.n = 0

    # -- names --
    def var(self, v: Value) -> str:
        """The runner's variable for ``v``: the IR's name (``%17`` -> ``v17``)."""
        ir = self.ir_names.get(v)
        name = naming.python_name(ir) if ir is not None else f"t{self.n}"
        self.n += 1
        if name in self.taken:
            name = f"{name}_{self.n}"
        self.taken.add(name)
        self.names[v] = name
        return name

    def site(self, op: Op, name: str, kind: str, obj) -> str:
        """``obj`` as the runner global ``name`` (made unique), a timed site of the profile."""
        while name in self.globals:
            name += "_"
        self.globals[name] = obj
        self.sites[name] = naming.site_of(op, name, kind, self.ir_names)
        return name

    def glob(self, prefix: str, obj) -> str:
        name = f"{prefix}{len(self.globals)}"
        self.globals[name] = obj
        return name

    def use(self, v: Value) -> str:
        if isinstance(v, Literal):
            return self.glob("L", v.value)
        return self.names[v]

    # -- the function --
    def function(self) -> str:
        args = [self.var(a) for a in self.fn.args]
        self.lines.append("def run(args):")
        if args:
            self.lines.append(f"    {', '.join(args)}{',' if len(args) == 1 else ''} = args")
        for a, name in zip(self.fn.args, args):
            if isinstance(a.type, TensorType):
                d = self.glob("D", a.type.dtype.np_dtype)
                self.lines.append(f"    if {name}.__class__ is not ndarray or {name}.shape != "
                                  f"{a.type.shape!r} or {name}.dtype != {d}:")
                self.lines.append("        return slow(args)")
        state, effects = "None", "False"
        if _draws_random(self.fn):  # a rerun must draw what this run drew: save the state
            self.globals["rng"] = op_random.generator
            self.lines.append("    state = rng().bit_generator.state")
            state = "state"
        if _calls_back(self.fn):
            self.lines.append("    effects = False")
            effects = "effects"
        self.lines.append("    try:")
        outs = self.block(self.fn.body, "        ")
        self.lines.append(f"        return [{', '.join(outs)}]")
        self.lines.append("    except Exception:  # the interpreter reproduces the error exactly")
        self.lines.append(f"        return failed(args, {state}, {effects})")
        return "\n".join(self.lines) + "\n"

    def block(self, block: Block, ind: str) -> list[str]:
        """Emit ``block``'s ops; returns the expressions of what its terminator yields."""
        start = len(self.lines)
        outs: list[str] = []
        for op in block:
            if op.is_terminator:
                outs = [self.use(v) for v in op.operands]
                break
            self.op(op, ind)
        if len(self.lines) == start:
            self.lines.append(f"{ind}pass")
        return outs

    def assign(self, op: Op, ind: str, call: str, comment: str) -> None:
        res = [self.var(r) for r in op.results]
        if not res:
            self.lines.append(f"{ind}{call}  # {comment}")
        elif len(res) == 1 and op.opdef not in (FUSED, CALL):
            self.lines.append(f"{ind}{res[0]} = {call}  # {comment}")
        else:
            self.lines.append(f"{ind}{', '.join(res)}{',' if len(res) == 1 else ''} = {call}"
                              f"  # {comment}")

    def op(self, op: Op, ind: str) -> None:
        d = op.opdef
        if d is CONST:
            arr = const_array(op)
            if arr is None:
                raise Unsupported(f"constant {op.attrs.get('ref')} is not loaded")
            view = arr.view()
            view.setflags(write=False)
            self.names[op.results[0]] = self.glob("C", view)
        elif d is FUSED:
            self.fused(op, ind)
        elif d is IF:
            self.if_(op, ind)
        elif d is WHILE:
            self.while_(op, ind)
        elif d.kind is Kind.ELEMENTWISE and not op.regions and self.lone(op, ind):
            pass
        elif d.kind is Kind.REDUCTION and not op.regions and self.lone_reduction(op, ind):
            pass
        elif d is broadcast_to and self.kernels_broadcast(op):
            self.deferred[op.results[0]] = (op, ind)
        elif d is assign and self.fresh_only_for(op):
            self.assign(op, ind, self.use(op.operands[1]), "assign (the kernel's new buffer)")
        elif op in self.into:
            fn = specialized(op, into=True) or (
                functools.partial(d.ref_into, **op.attrs) if op.attrs else d.ref_into)
            args = ", ".join(self.use(v) for v in op.operands)
            r = self.site(op, naming.kernel_name(op, self.ir_names), "op", fn)
            self.assign(op, ind, f"{r}({args})", f"{d.name} (in place)")
        elif d is CALL:
            callee = self.fn.module[op.attrs["callee"]]
            if _calls_back(callee):
                self.lines.append(f"{ind}effects = True")
            f = self.glob("F", _Call(callee, self.opts, self.done))
            args = ", ".join(self.use(v) for v in op.operands)
            self.assign(op, ind, f"{f}({args})", f"call @{callee.name}")
        else:
            self.ref(op, ind)

    def lone(self, op: Op, ind: str) -> bool:
        """A lone elementwise op (in no fused group) as a one-op kernel: the one the native step
        calls, at any size, when the function has a step — the calls it declines then give its
        bits (the kernel's libm ``exp``, ``tanh``, ``log``... round otherwise than numpy's SIMD
        ones); else when its kind is one whose kernel beats its numpy reference
        (:data:`LONE_KERNELS`) and it is big enough."""
        if self.step_bits:
            from graphcell_ir.backend.step.emit import kernel_refusal
            return self.lone_kernel(op, ind, refusal=kernel_refusal)
        if op.opdef not in LONE_KERNELS:
            return False
        size = max(int(np.prod(r.type.shape)) for r in op.results
                   if isinstance(r.type, TensorType)) if op.results else 0
        if size < max(self.opts.min_size, LONE_MIN_SIZE):
            return False
        return self.lone_kernel(op, ind)

    def lone_reduction(self, op: Op, ind: str) -> bool:
        """A lone reduction (in no fused group) as the one-op kernel the native step calls for
        it, at any size, so that both give the same bits (numpy's ``sum`` adds float32 in
        float32 in its own order, the kernel in float64 along the loops); the reference where
        the step declines the kernel (and runs the reference between native segments), without
        the JIT, or with ``kernel_min_size`` (no native step then)."""
        if not self.opts.jit or self.opts.min_size:
            return False
        from graphcell_ir.backend.step.emit import kernel_refusal
        return self.lone_kernel(op, ind, refusal=kernel_refusal)

    def lone_kernel(self, op: Op, ind: str, refusal=None) -> bool:
        """Call ``op``'s one-op kernel; False (its reference runs) when it cannot be lowered,
        linked or compiled, or ``refusal`` names why it should not be."""
        try:
            ks = lower_single(op)
            why = refusal(ks) if refusal is not None else None
            if why is not None:
                log.info("lone %s keeps its reference: %s", op.opdef.name, why)
                return False
            if not self.linked(ks):
                return False
            kernel = self.compile(ks)
        except Exception as e:
            log.info("lone %s not compiled, its reference runs: %s", op.opdef.name, e)
            return False
        self.kernels.append(kernel)
        self.fresh.update(op.results)
        k = self.site(op, naming.kernel_name(op, self.ir_names), "kernel", kernel)
        args = ", ".join(self.use(v) for v in op.operands)
        (r,) = op.results
        self.lines.append(f"{ind}{self.var(r)}, = {k}({args})  # {op.opdef.name} "
                          f"(kernel_{k}.py, source hash {kernel.ks.key})")
        return True

    def compile(self, ks) -> Kernel:
        """``ks``'s kernel, compiled now, or (``lazy``) when the runner first calls it: a
        function the native step runs calls its runner only for what the step declines
        (another layout, a bad label, a profiled run), so a cold compile pays for the step's
        kernels alone."""
        if self.lazy:
            return Kernel(ks, _CompiledOnFirstCall(ks, self.opts.jit, self.opts.native))
        return compile_kernel(ks, self.opts.jit, self.opts.native)

    def linked(self, ks) -> bool:
        """Whether ``ks`` may be used: always, unless kernels come linked from an artifact
        (``native.by_key``) — then only those it has (asked without counting a miss), since an
        artifact exported before lone-op and broadcast kernels existed has plain group kernels."""
        by_key = getattr(self.opts.native, "by_key", None)
        return by_key is None or not self.opts.jit or ks.key in by_key

    def kernels_broadcast(self, op: Op) -> bool:
        """A ``broadcast_to`` read only by fused groups of its block is left to their kernels
        (which broadcast by index) instead of materialising the big array; it is emitted after
        all if one of them falls back to references (:meth:`materialise`)."""
        (x,), (r,) = op.operands, op.results
        return (isinstance(x.type, TensorType)
                and x.type.dtype == r.type.dtype and bool(r.uses)
                and all(u.opdef is FUSED and u.parent is op.parent for u in r.uses))

    def materialise(self, values, ind: str) -> None:
        for v in values:
            if v in self.deferred:
                op, _ = self.deferred.pop(v)
                self.ref(op, ind)

    def fresh_only_for(self, op: Op) -> bool:
        """``assign(variable, value)`` may take ``value`` as the variable's new array instead of
        a copy: ``value`` is a buffer a kernel just allocated, of the variable's type, and this
        assign is its only use (nothing else can see or change it). Saves a copy of every
        parameter per training step."""
        variable, value = op.operands
        return (value in self.fresh and value.uses == {op: 1}
                and isinstance(value.type, TensorType) and value.type == variable.type)

    def ref(self, op: Op, ind: str) -> None:
        if op.opdef.has(Trait.EXTERNAL):  # a callback, a collective: from here on a failure
            # must not rerun the call (the other processes would wait for a second collective)
            self.lines.append(f"{ind}effects = True")
        fn = primitive_callable(op, self.opts)
        args = ", ".join(self.use(v) for v in op.operands)
        r = self.site(op, naming.kernel_name(op, self.ir_names), "op", fn)
        self.assign(op, ind, f"{r}({args})", op.opdef.name)

    def fused(self, op: Op, ind: str) -> None:
        names = ", ".join(o.opdef.name for o in op.regions[0].block.ops[:-1])
        try:
            size = max(int(np.prod(r.type.shape)) for r in op.results)
            size = max([size] + [int(np.prod(v.type.shape)) for v in op.operands
                                 if isinstance(v.type, TensorType)])
            if size < self.opts.min_size:
                raise Unsupported(f"{size} elements, below kernel_min_size")
            operands, shapes = list(op.operands), {}
            for i, v in enumerate(operands):
                if v in self.deferred:  # the kernel reads broadcast_to's input by index
                    operands[i] = self.deferred[v][0].operands[0]
                    shapes[i] = operands[i].type.shape
            ks = lower_fused(op, shapes)
            if shapes and not self.linked(ks):  # an artifact's kernel takes the full array
                self.materialise(op.operands, ind)
                operands, ks = list(op.operands), lower_fused(op)
            kernel = self.compile(ks)
        except Exception as e:
            reason = f"fused ({names}): {e}"
            if not isinstance(e, Unsupported):
                log.info("kernel not compiled, references run instead: %s", reason)
            self.fallbacks.append(reason)
            self.materialise(op.operands, ind)
            return self.inline_body(op, ind)
        self.kernels.append(kernel)
        self.fresh.update(op.results)
        k = self.site(op, naming.kernel_name(op, self.ir_names), "kernel", kernel)
        args = ", ".join(self.use(v) for v in operands)
        self.assign(op, ind, f"{k}({args})", f"fused: {names} (kernel_{k}.py, source hash "
                    f"{kernel.ks.key})")

    def inline_body(self, op: Op, ind: str) -> None:
        body = op.regions[0].block
        for a, v in zip(body.args, op.operands):
            self.names[a] = self.use(v)
        outs = self.block(body, ind)
        for r, o in zip(op.results, outs):
            self.lines.append(f"{ind}{self.var(r)} = {o}")

    def if_(self, op: Op, ind: str) -> None:
        res = [self.var(r) for r in op.results]
        self.lines.append(f"{ind}if {self.use(op.operands[0])}:")
        for i, label in enumerate(("then", "else")):
            if i:
                self.lines.append(f"{ind}else:")
            outs = self.block(op.regions[i].block, ind + "    ")
            if res:
                self.lines.append(f"{ind}    {', '.join(res)}, = {', '.join(outs)},")

    def while_(self, op: Op, ind: str) -> None:
        carried = [f"c{self.n + i}" for i in range(len(op.operands))]
        self.n += len(carried)
        tup = lambda xs: ", ".join(xs) + ("," if len(xs) == 1 else "")  # noqa: E731
        if carried:
            self.lines.append(f"{ind}{tup(carried)} = {tup([self.use(v) for v in op.operands])}")
        updates = in_place_updates(op)
        self.into.update(updates)
        for i in sorted(set(updates.values())):   # the loop's own array, written step by step
            self.lines.append(f"{ind}{carried[i]} = {carried[i]}.copy()")
        self.lines.append(f"{ind}while True:")
        cond, body = op.regions[0].block, op.regions[1].block
        inner = ind + "    "
        if carried:
            self.lines.append(f"{inner}{tup([self.var(a) for a in cond.args])} = {tup(carried)}")
        (pred,) = self.block(cond, inner)
        self.lines.append(f"{inner}if not {pred}:")
        self.lines.append(f"{inner}    break")
        if carried:
            self.lines.append(f"{inner}{tup([self.var(a) for a in body.args])} = {tup(carried)}")
        outs = self.block(body, inner)
        if carried:
            self.lines.append(f"{inner}{tup(carried)} = {tup(outs)}")
            res = [self.var(r) for r in op.results]
            self.lines.append(f"{ind}{tup(res)} = {tup(carried)}")


def primitive_callable(op: Op, opts: _Options):
    """What runs non-fused primitive ``op`` (the runner's call, and the native step's for an op
    it runs in Python): its nnkernels kernel (convolution, pooling) or its reference, with its
    attributes bound; a multi-result one checked to give its results."""
    attrs = dict(op.attrs)
    impl = implementation(op.opdef, opts.jit,
                          getattr(opts.native, "nn_loops", None))   # an artifact's own
    # a form specialised to the static types replaces both (it declines the sizes where an nn
    # kernel's own policy matters, as matmul declines the GEMMs nnkernels splits)
    fn = specialized(op) or (functools.partial(impl, **attrs) if attrs else impl)
    if len(op.results) > 1:
        fn = _unpacking(fn, len(op.results), op.opdef.name)
    return fn


def specialized(op: Op, into: bool = False):
    """``op``'s reference (``ref_into`` when ``into``) specialised to its operands' static types
    (``OpDef.specialize``), or None: a literal operand may be a Python number, which the
    specialised forms do not take."""
    d = op.opdef
    if d.specialize is None or any(isinstance(v, Literal) or not isinstance(v.type, TensorType)
                                   for v in op.operands):
        return None
    return d.specialize(tuple(v.type for v in op.operands), dict(op.attrs), into)


def in_place_updates(op: Op) -> dict[Op, int]:
    """The ops of a ``while`` body that may write into the array the loop carries at index
    ``i`` (op -> i): an update with a ``ref_into`` (``scatter_update``, ``scatter_add``) whose
    operand 0 is that carried value, otherwise only read by ``take`` ops before it (whose
    results are copies), and whose result is yielded back to that place only. The runner copies
    such a carried array once, when the loop starts, and then updates it in place, so writing
    one row per step costs the row, not the array (a recurrent layer's outputs, the gradient's
    saved states, output cotangents and accumulated input cotangents)."""
    body = op.regions[1].block
    yields = body.terminator.operands
    position = {o: n for n, o in enumerate(body.ops)}
    out: dict[Op, int] = {}
    for i, a in enumerate(body.args):
        updates = [u for u in a.uses if u.opdef.ref_into is not None and u.parent is body
                   and u.operands[0] is a and a.uses[u] == 1 and len(u.results) == 1]
        if len(updates) != 1:
            continue
        (update,) = updates
        readers = [u for u in a.uses if u is not update]
        if all(u.opdef is take and u.parent is body and position[u] < position[update]
               for u in readers) and \
                [j for j, y in enumerate(yields) if y is update.results[0]] == [i]:
            out[update] = i
    return out


def _failed(name: str, slow, args, state=None, effects: bool = False):
    """The runner raised: log why, and let the interpreter run the call (and raise its error).

    ``state``: the random generator's state when the call began, restored first so the rerun
    draws the same numbers and the generator advances once. ``effects``: a host callback or a
    collective already ran, so the call is not rerun (it would run twice): the error is raised.
    """
    error = sys.exc_info()[1]
    if effects:
        log.info("@%s: the compiled runner raised %r after an external op ran; not rerun",
                 name, error)
        raise error
    log.info("@%s: the compiled runner raised %r; the interpreter reruns the call", name, error)
    if state is not None:
        op_random.generator().bit_generator.state = state
    return slow(args)


def _ops(fn: Function, seen: set | None = None):
    """Every op of ``fn``, in its regions and in the functions it calls."""
    seen = set() if seen is None else seen
    if fn in seen:
        return
    seen.add(fn)
    stack = list(fn.body)
    while stack:
        op = stack.pop()
        yield op
        for r in op.regions:
            stack.extend(r.block)
        if op.opdef is CALL:
            yield from _ops(fn.module[op.attrs["callee"]], seen)


_BLAS_OPS = frozenset({C.conv2d, C.conv2d_backprop_input, C.conv2d_backprop_filter})


def _uses_blas(fn: Function) -> bool:
    """Whether ``fn`` runs GEMMs: contractions and the convolutions (im2col + GEMM)."""
    return any(op.opdef.kind is Kind.CONTRACTION or op.opdef in _BLAS_OPS
               for op in _ops(fn))


def _draws_random(fn: Function) -> bool:
    return any(Trait.RANDOM in op.opdef.traits for op in _ops(fn))


def _calls_back(fn: Function) -> bool:
    """Whether ``fn`` acts outside itself (host callbacks, collectives: ``Trait.EXTERNAL``)."""
    return any(op.opdef.has(Trait.EXTERNAL) for op in _ops(fn))


def _unpacking(fn, n: int, name: str):
    """A multi-result reference, checked to give ``n`` values (as the interpreter checks)."""
    def call(*args):
        res = fn(*args)
        if not isinstance(res, tuple) or len(res) != n:
            raise TypeError(f"{name}: the reference gave {type(res).__name__} for {n} results")
        return res
    return call

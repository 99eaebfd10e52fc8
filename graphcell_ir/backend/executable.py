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

- a ``fused`` op calls its numba kernel (:mod:`.lower`, :mod:`.kernels`); when the group cannot be
  lowered, or its domain has fewer than ``kernel_min_size`` elements, its body runs inline with the
  registry's references instead (the reason is logged and kept in ``exe.fallbacks``);
- every other primitive calls its registry ``ref`` (numpy: BLAS for ``matmul``, vectorized
  conv/pool/softmax...), attributes bound once with ``functools.partial``;
- ``const`` and literals are globals of the runner; ``if``/``while`` are Python control flow;
  ``call`` calls the callee's own executable.

Anything unusual at run time (an argument of another type or shape than compiled for, any
exception) reruns the call with the reference interpreter, which gives the same results or raises
the same error as it always does. Compiling never raises either: a function the generator cannot
handle runs on the interpreter.
"""
from __future__ import annotations

import functools
import logging
import os
import sys
import time
from pathlib import Path

import numpy as np

from graphcell_ir.backend import report
from graphcell_ir.backend.interp import Interpreter
from graphcell_ir.backend.kernels import compile_kernel, file_text, jit_enabled
from graphcell_ir.backend.lower import Unsupported, lower_fused
from graphcell_ir.ir.core import Block, Function, Literal, Module, Op, Value
from graphcell_ir.ir.structural import CALL, CONST, FUSED, IF, WHILE, const_array
from graphcell_ir.ir.types import TensorType

log = logging.getLogger("graphcell.backend")

__all__ = ["compile_executable", "Executable"]


def default_kernel_min_size() -> int:
    """Fused groups smaller than this run with references (``GRAPHCELL_KERNEL_MIN_SIZE``)."""
    try:
        return int(os.environ.get("GRAPHCELL_KERNEL_MIN_SIZE", "0"))
    except ValueError:
        return 0


def compile_executable(module: Module, fn: Function | str, *, jit: bool | None = None,
                       kernel_min_size: int | None = None, dump_dir: str | Path | None = None,
                       interpreter: Interpreter | None = None) -> Executable:
    """The executable of ``fn`` (a Function of ``module`` or its name). Never raises: what
    cannot be compiled runs on the reference interpreter."""
    if isinstance(fn, str):
        fn = module[fn]
    interp = interpreter or Interpreter(module)
    opts = _Options(jit_enabled(jit), default_kernel_min_size() if kernel_min_size is None
                    else kernel_min_size, Path(dump_dir) if dump_dir is not None else None, interp)
    return _build(fn, opts, {})


class _Options:
    def __init__(self, jit, min_size, dump_dir, interp):
        self.jit, self.min_size, self.dump_dir, self.interp = jit, min_size, dump_dir, interp


class Executable:
    """Runs one function: ``exe(args) -> list of results``."""

    def __init__(self, fn: Function, run, source: str, kernels: list, fallbacks: list[str]):
        self.function = fn
        self.run = run
        self.source = source
        self.kernels = kernels        # the Kernel objects it calls
        self.fallbacks = fallbacks    # why each op that could have been a kernel is not

    def __call__(self, args) -> list:
        return self.run(args)

    def __repr__(self) -> str:
        return (f"<Executable @{self.function.name}: {len(self.kernels)} kernels, "
                f"{len(self.fallbacks)} fallbacks>")


def _build(fn: Function, opts: _Options, done: dict) -> Executable:
    slow = opts.interp.compiled(fn)
    t0 = time.perf_counter()
    try:
        gen = _Gen(fn, opts, done, slow)
        source = gen.function()
        ns = dict(gen.globals)
        exec(compile(source, f"<graphcell runner @{fn.name}>", "exec"), ns)
        exe = Executable(fn, ns["run"], source, gen.kernels, gen.fallbacks)
    except Exception as e:  # never crash: the interpreter runs it
        log.warning("@%s runs on the interpreter: %s: %s", fn.name, type(e).__name__, e)
        exe = Executable(fn, lambda args: slow(args), "", [], [f"whole function: {e}"])
    done[fn] = exe
    report.phase(f"lower @{fn.name}", time.perf_counter() - t0,
                 f"{len(exe.kernels)} kernels, {len(exe.fallbacks)} fallbacks")
    if opts.dump_dir is not None:
        _dump(exe, opts.dump_dir)
    return exe


def _dump(exe: Executable, d: Path) -> None:
    try:
        d.mkdir(parents=True, exist_ok=True)
        (d / f"runner_{exe.function.name}.py").write_text(exe.source)
        for k in exe.kernels:
            (d / f"kernel_{k.ks.key}.py").write_text(file_text(k.ks))
    except OSError as e:
        log.warning("could not dump the generated source to %s: %s", d, e)


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

    def __init__(self, fn: Function, opts: _Options, done: dict, slow):
        self.fn, self.opts, self.done = fn, opts, done
        self.globals: dict = {"ndarray": np.ndarray, "slow": slow,
                              "failed": functools.partial(_failed, fn.name, slow)}
        self.names: dict[Value, str] = {}
        self.lines: list[str] = []
        self.kernels: list = []
        self.fallbacks: list[str] = []
        self.n = 0

    # -- names --
    def var(self, v: Value) -> str:
        name = f"v{self.n}"
        self.n += 1
        self.names[v] = name
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
        self.lines.append("    try:")
        outs = self.block(self.fn.body, "        ")
        self.lines.append(f"        return [{', '.join(outs)}]")
        self.lines.append("    except Exception:  # the interpreter reproduces the error exactly")
        self.lines.append("        return failed(args)")
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
        elif d is CALL:
            callee = self.fn.module[op.attrs["callee"]]
            f = self.glob("F", _Call(callee, self.opts, self.done))
            args = ", ".join(self.use(v) for v in op.operands)
            self.assign(op, ind, f"{f}({args})", f"call @{callee.name}")
        else:
            self.ref(op, ind)

    def ref(self, op: Op, ind: str) -> None:
        attrs = dict(op.attrs)
        fn = functools.partial(op.opdef.ref, **attrs) if attrs else op.opdef.ref
        r = self.glob("R", fn)
        args = ", ".join(self.use(v) for v in op.operands)
        if len(op.results) > 1:
            r = self.glob("R", _unpacking(fn, len(op.results), op.opdef.name))
        self.assign(op, ind, f"{r}({args})", op.opdef.name)

    def fused(self, op: Op, ind: str) -> None:
        names = ", ".join(o.opdef.name for o in op.regions[0].block.ops[:-1])
        try:
            size = max(int(np.prod(r.type.shape)) for r in op.results)
            size = max([size] + [int(np.prod(v.type.shape)) for v in op.operands
                                 if isinstance(v.type, TensorType)])
            if size < self.opts.min_size:
                raise Unsupported(f"{size} elements, below kernel_min_size")
            kernel = compile_kernel(lower_fused(op), self.opts.jit)
        except Exception as e:
            reason = f"fused ({names}): {e}"
            if not isinstance(e, Unsupported):
                log.info("kernel not compiled, references run instead: %s", reason)
            self.fallbacks.append(reason)
            return self.inline_body(op, ind)
        self.kernels.append(kernel)
        k = self.glob("K", kernel)
        args = ", ".join(self.use(v) for v in op.operands)
        self.assign(op, ind, f"{k}({args})", f"fused: {names} (kernel {kernel.ks.key[:12]})")

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


def _failed(name: str, slow, args):
    """The runner raised: log why, and let the interpreter run the call (and raise its error)."""
    log.info("@%s: the compiled runner raised %r; the interpreter reruns the call", name,
             sys.exc_info()[1])
    return slow(args)


def _unpacking(fn, n: int, name: str):
    """A multi-result reference, checked to give ``n`` values (as the interpreter checks)."""
    def call(*args):
        res = fn(*args)
        if not isinstance(res, tuple) or len(res) != n:
            raise TypeError(f"{name}: the reference gave {type(res).__name__} for {n} results")
        return res
    return call

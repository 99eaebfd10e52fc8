"""A kernel's ``prange`` loop as a call of the native thread pool (``native/pool.py``).

The loop's body is outlined into a task function ``task(ctx, lo, hi)`` that runs the
iterations ``[start + lo, start + hi)``; the kernel calls
``graphcell_parallel_for(task, ctx, stop - start, work)``, which runs the chunks on the pool's
threads (or all of them on the caller, below the pool's size threshold). ``ctx`` holds the
value of every local bound outside the loop (the parameters, what was computed before it), one
8-byte slot each, as it was when the loop started: each task starts with a private copy (a
parameter never rebound is an argument of the task's body, as of the kernel: no slot); the
locals only the loop binds (the loop index, the loads, the values) are each task's own, fresh.
``work``, what the pool's threshold compares, is the elements of all its array arguments
together: what a memory-bound kernel's time follows (an optimizer update reading four arrays of
a 1024x784 weight and writing three touches 5.6M elements, though none of them reaches the
threshold alone).

Only a ``prange`` loop that is the entry function's last top-level statement, or the last of a
branch of its last ``if``, is outlined (what ``lower.py`` writes): its iterations write
disjoint elements and nothing after it reads what its body assigned, so running chunks in any
order on any thread gives the serial loop's results.
Any other ``prange`` is a serial ``range``.

With ``noalias`` (a kernel's arrays never overlap what it writes) the kernel's and the body's
array pointers are marked so: an accumulator ``acc[0, c, 0, 0]`` then stays in a register
across the loop instead of being stored and reloaded at every element (which also kept LLVM
from vectorising).
"""
from __future__ import annotations

import ast
import copy
import dataclasses

import llvmlite.ir as ir

from graphcell_ir.backend.codegen import typerules as T
from graphcell_ir.backend.codegen.arith import Arith
from graphcell_ir.backend.codegen.llvmtypes import I64, PTR, VOID
from graphcell_ir.backend.native.abi import PARALLEL_FOR

_TASK = ir.FunctionType(VOID, [PTR, I64, I64])


def outlinable(fl, st: ast.For) -> bool:
    """Whether ``st`` is a ``prange`` loop of step 1 that :func:`lower_prange` may outline."""
    it = st.iter
    return (fl.mod.parallel_entry == fl.node.name and not fl.loops and not fl.lambdas
            and _last(fl.node.body, st)
            and isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
            and it.func.id == "prange" and len(it.args) <= 2)


def _last(body: list, st) -> bool:
    """Whether ``st`` ends ``body``: is its last statement, or ends a branch of the ``if`` that
    is (``lower.py`` writes a loop nest twice under ``if c: ... else: ...``)."""
    last = body[-1] if body else None
    return last is st or (isinstance(last, ast.If)
                          and (_last(last.body, st) or _last(last.orelse, st)))


def lower_prange(fl, st: ast.For) -> None:
    """Lower ``st`` (see :func:`outlinable`) in function lowering ``fl``: the task function and
    the pool's call."""
    b = fl.b
    start, stop, _ = fl.range_of(st.iter)
    taken = _taken(fl, _bound_outside(fl, st))
    values = [v for _, vs in taken for v in vs]
    here = b.block
    b.position_at_start(fl.fn.entry_basic_block)
    ctx = b.alloca(PTR, size=I64(len(values) + 1), name="par.ctx")
    b.position_at_end(here)
    # the values, not their slots' addresses: the kernel's slots then never escape, and LLVM
    # keeps its locals in registers instead of building every one in memory for the task
    for k, value in enumerate(values + [start]):
        b.store(value, b.gep(ctx, [I64(k)], inbounds=True, source_etype=PTR))
    task = ir.Function(fl.mod.module, _TASK,
                       fl.mod.module.get_unique_name(f"{fl.fn.name}.prange"))
    task.linkage = "internal"
    _Task(fl, task, st, taken, start if isinstance(start, ir.Constant) else None).run()
    pfor = fl.mod.declare(PARALLEL_FOR, VOID, [PTR, PTR, I64, I64])
    b.call(pfor, [task, ctx, b.sub(stop, start), _work(fl)])


def _taken(fl, names: set) -> list:
    """``[(name, values)]``: what the task is given of each local in ``names``, as it is when
    the loop starts (an array: its pointer and dimensions). A parameter the function never
    rebinds is its argument (no slot at all), any other local its slots' contents."""
    out = []
    for name in list(fl.params) + [n for n in fl.locals if n not in fl.params]:
        if name not in names or not (name in fl.fixed or name in fl.locals):
            continue
        value, t = fl.load_local(name)
        out.append((name, [value.ptr, *value.dims] if isinstance(t, T.Array) else [value]))
    return out


def _bound_outside(fl, st: ast.For) -> set:
    """The locals the loop may read from before it: the parameters and every name bound
    outside the loop (which may end a branch of the function's last ``if``). The rest (the
    loop's index, a kernel's loads and values) are each iteration's own, assigned before they
    are read: the task makes them fresh, and the kernel's copies, no longer passed by address,
    are left to LLVM to remove (ResNet-18's batch-norm gradient kernel had 41 slots copied into
    every task, 26 of them its body's)."""
    inside = {id(n) for n in ast.walk(st)}
    return set(fl.params) | {n.id for stmt in fl.node.body for n in ast.walk(stmt)
                             if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
                             and id(n) not in inside}


def _work(fl):
    """The elements of every array parameter together (what the kernel reads and writes)."""
    b, work = fl.b, I64(0)
    for name, t in fl.params.items():
        if isinstance(t, T.Array):
            size = I64(1)
            for d in fl.load_local(name)[0].dims:
                size = b.mul(size, d)
            work = b.add(work, size)
    return work


class _Task:
    """The task function of one outlined loop: ``task(ctx, lo, hi)`` loads the locals' values
    and calls ``body(values..., lo, hi)``, whose array pointers are ``noalias`` when the
    kernel's are (:func:`mark_noalias`): LLVM then keeps accumulators in registers and
    vectorises without run-time overlap checks. The body lowers the loop over the chunk with a
    copy of the kernel's :class:`FunctionLowering`, the values its private locals."""

    def __init__(self, parent, fn: ir.Function, st: ast.For, taken: list, start=None):
        self.parent, self.fn, self.st, self.taken = parent, fn, st, taken
        self.kinds = [v.type for _, vs in taken for v in vs]
        self.start = start   # a constant start is the task's constant: LLVM then knows the
        #                      index's sign (no wrap-around selects, contiguous vector accesses)

    def run(self) -> None:
        kinds = self.kinds
        body = ir.Function(self.fn.module, ir.FunctionType(VOID, kinds + [I64, I64, I64]),
                           f"{self.fn.name}.body")
        body.linkage = "internal"
        if self.parent.mod.noalias:
            for arg, t in zip(body.args, kinds):
                if isinstance(t, ir.PointerType):
                    arg.add_attribute("noalias")
        self.trampoline(body)
        self.lower_body(body)

    def trampoline(self, body: ir.Function) -> None:
        ctx, lo, hi = self.fn.args
        b = ir.IRBuilder(self.fn.append_basic_block("entry"))

        def passed(k, typ):
            return b.load(b.gep(ctx, [I64(k)], inbounds=True, source_etype=PTR), typ=typ)

        values = [passed(k, t) for k, t in enumerate(self.kinds)]
        start = self.start if self.start is not None else passed(len(self.kinds), I64)
        b.call(body, values + [start, lo, hi])
        b.ret_void()

    def lower_body(self, body: ir.Function) -> None:
        fl = copy.copy(self.parent)
        fl.fn = body
        *values, start, lo, hi = body.args
        fl.b = b = ir.IRBuilder(body.append_basic_block("entry"))
        fl.A = Arith(b, fl.mod, fl.mod.no_overflow)
        fl.loops, fl.lambdas = [], []
        fl.exit = body.append_basic_block("exit")
        given, rest = {}, iter(values)
        for name, vs in self.taken:
            given[name] = [next(rest) for _ in vs]
        # a parameter the kernel never rebinds is its argument here too; a local, its own slots
        # holding what it was given (the loop's own locals: fresh slots)
        fl.fixed = {name: (dataclasses.replace(value, ptr=given[name][0], dims=given[name][1:])
                           if isinstance(self.parent.params[name], T.Array) else given[name][0])
                    for name, value in self.parent.fixed.items() if name in given}
        fl.locals = {}
        for name, local in self.parent.locals.items():
            own = [b.alloca(s.allocated_type, name=s.name) for s in local.slots]
            for slot, v in zip(own, given.get(name, ())):
                b.store(v, slot)
            fl.locals[name] = type(local)(local.type, own)
        # the pool's chunks lie in [0, n): lo >= 0 always
        assume = fl.mod.declare("llvm.assume", VOID, [ir.IntType(1)])
        b.call(assume, [b.icmp_signed(">=", lo, I64(0))])
        b.call(assume, [b.icmp_signed("<=", lo, hi)])
        if self.start is not None:
            start = self.start
        first, last = b.add(start, lo, flags=["nsw"]), b.add(start, hi, flags=["nsw"])
        _loop(fl, self.st, first, last)
        if not b.block.is_terminated:
            b.branch(fl.exit)
        b.position_at_end(fl.exit)
        b.ret_void()


def mark_noalias(fn: ir.Function) -> None:
    """Mark ``fn``'s pointer parameters ``noalias``: for a kernel whose arrays never overlap
    one it writes (``lower.py``'s kernels: outputs are fresh arrays, operands only read)."""
    for arg in fn.args:
        if isinstance(arg.type, ir.PointerType):
            arg.add_attribute("noalias")


def _loop(fl, st: ast.For, first, last) -> None:
    """``for target in range(first, last): body`` in ``fl`` (as ``FunctionLowering._For``)."""
    b = fl.b
    counter = fl.entry_alloca(I64, "par.i")
    b.store(first, counter)
    head, body, latch, done = (fl.fn.append_basic_block(n) for n in
                               ("par.cond", "par.body", "par.inc", "par.end"))
    b.branch(head)
    b.position_at_end(head)
    i = b.load(counter)
    b.cbranch(b.icmp_signed("<", i, last), body, done)
    b.position_at_end(body)
    fl.store_local(st.target.id, i, T.I64)
    fl.loop_body(st.body, latch, done)
    b.position_at_end(latch)
    b.store(b.add(b.load(counter), I64(1), flags=["nsw"]), counter)
    b.branch(head)
    b.position_at_end(done)

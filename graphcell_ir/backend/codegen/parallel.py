"""A kernel's ``prange`` loop as a call of the native thread pool (``native/pool.py``).

The loop's body is outlined into a task function ``task(ctx, lo, hi)`` that runs the
iterations ``[start + lo, start + hi)``; the kernel calls
``graphcell_parallel_for(task, ctx, stop - start, work)``, which runs the chunks on the pool's
threads (or all of them on the caller, below the pool's size threshold). ``ctx`` holds the
address of every local's slot: each task starts with a private copy of every local as it was
when the loop started, so a thread's temporaries (the loop index, the loads, the values) are its
own. ``work``, what the pool's threshold compares, is the elements of all its array arguments
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
    slots = [s for local in fl.locals.values() for s in local.slots]
    here = b.block
    b.position_at_start(fl.fn.entry_basic_block)
    ctx = b.alloca(PTR, size=I64(len(slots) + 1), name="par.ctx")
    b.position_at_end(here)
    first = fl.entry_alloca(I64, "par.start")
    b.store(start, first)
    for k, s in enumerate(slots + [first]):
        b.store(s, b.gep(ctx, [I64(k)], inbounds=True, source_etype=PTR))
    task = ir.Function(fl.mod.module, _TASK,
                       fl.mod.module.get_unique_name(f"{fl.fn.name}.prange"))
    task.linkage = "internal"
    _Task(fl, task, st, slots, start if isinstance(start, ir.Constant) else None).run()
    pfor = fl.mod.declare(PARALLEL_FOR, VOID, [PTR, PTR, I64, I64])
    b.call(pfor, [task, ctx, b.sub(stop, start), _work(fl)])


def _work(fl):
    """The elements of every array parameter together (what the kernel reads and writes)."""
    b, work = fl.b, I64(0)
    for name, t in fl.params.items():
        if isinstance(t, T.Array):
            size = I64(1)
            for slot in fl.locals[name].slots[1:]:
                size = b.mul(size, b.load(slot))
            work = b.add(work, size)
    return work


class _Task:
    """The task function of one outlined loop: ``task(ctx, lo, hi)`` loads the locals' values
    and calls ``body(values..., lo, hi)``, whose array pointers are ``noalias`` when the
    kernel's are (:func:`mark_noalias`): LLVM then keeps accumulators in registers and
    vectorises without run-time overlap checks. The body lowers the loop over the chunk with a
    copy of the kernel's :class:`FunctionLowering`, the values its private locals."""

    def __init__(self, parent, fn: ir.Function, st: ast.For, slots: list, start=None):
        self.parent, self.fn, self.st, self.slots = parent, fn, st, slots
        self.start = start   # a constant start is the task's constant: LLVM then knows the
        #                      index's sign (no wrap-around selects, contiguous vector accesses)

    def run(self) -> None:
        kinds = [s.allocated_type for s in self.slots]
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

        def parent_slot(k):
            return b.load(b.gep(ctx, [I64(k)], inbounds=True, source_etype=PTR), typ=PTR)

        values = [b.load(parent_slot(k), typ=s.allocated_type) for k, s in enumerate(self.slots)]
        start = self.start if self.start is not None else \
            b.load(parent_slot(len(self.slots)), typ=I64)
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
        mine = {}
        for s, v in zip(self.slots, values):
            own = b.alloca(s.allocated_type, name=s.name)
            b.store(v, own)
            mine[id(s)] = own
        fl.locals = {name: type(local)(local.type, [mine[id(s)] for s in local.slots])
                     for name, local in self.parent.locals.items()}
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

"""The native thread pool every kernel runs its parallel loops on: ``graphcell_parallel_for``.

Native code calls ``void graphcell_parallel_for(void (*fn)(ptr ctx, i64 lo, i64 hi), ptr ctx,
i64 n, i64 work)``: ``fn`` runs on chunks ``[lo, hi)`` covering ``[0, n)`` exactly once each,
spread over the pool's threads and the caller, and the call returns when every chunk has run.
``work`` (the elements the loop touches) below :data:`MIN_WORK` runs ``fn(ctx, 0, n)`` on the
caller, as does a second caller while the pool is busy (another Python thread, or a parallel
loop inside a chunk: never a wait, so never a deadlock). Kernels compiled with a ``prange`` loop
(``codegen.parallel``) call it, and so can a native whole-step runner: the split lives in native
code, so nothing returns to Python between a kernel's chunks.

**The mechanism.** The pool's code is LLVM IR built here with llvmlite's builder and linked
into the process by the JIT (:mod:`.linking`, which resolves kernels' calls to it). Its workers
are persistent Python threads (daemons) that each enter the native worker loop once through
ctypes, which releases the GIL for the call: they then never touch Python again until shutdown.
Chosen over pthreads created from LLVM IR because Python then owns the threads' lifetime
(``atexit`` stops and joins them; they show in ``threading.enumerate()``), and over numba's
threading layer because graphcell uses nothing private of numba's. A job is published in one
64-bit word (job number, chunk count, next chunk): a thread claims a chunk with a
compare-and-swap on that word, so a thread that wakes late can never claim a chunk of a job
that ended (the job number differs) and the caller runs every chunk itself when no worker
comes. A call that waits for a worker's chunk more than twice as long as it took to run its own
share, and more than :data:`LATE_MIN_CYCLES` (a busy machine: the worker was descheduled; cycle
counter), makes the next calls serial, :data:`BACKOFF_FIRST` of them, twice as many after each
call late again, up to :data:`BACKOFF_MAX`, and back to the first after a call on time — a
worker merely still busy with a long chunk (a GEMM block) is not late. Idle workers spin
:data:`SPIN` rounds (a step's next kernel usually comes within them) and then sleep on a futex
(Linux); elsewhere the pool has no workers and every loop runs serially.

**Determinism.** The chunks are a function of ``n`` and the thread count only, and every chunk
writes its own elements: a kernel's results do not depend on which thread ran which chunk, nor
on timing. Reductions are parallel only across the axes they keep, so each accumulator is
summed by one thread in the serial order (bit-identical to one thread).

**Safety.** Interpreter exit stops and joins the workers (``atexit``); a forked child gets a
fresh, serial state (its parent's workers do not exist there) and starts its own workers at the
next :func:`ensure_started` (every kernel compile calls it).

``GRAPHCELL_KERNEL_THREADS`` forces the thread count (1 = every loop serial); the default is the
CPUs this process may run on.

Example::

    >>> import ctypes
    >>> pool = started()
    >>> pool.threads >= 1
    True
"""
from __future__ import annotations

import atexit
import ctypes
import os
import platform
import threading

from graphcell_ir import switches
from graphcell_ir.backend.native.abi import PARALLEL_FOR

SYMBOL = PARALLEL_FOR
"""The function kernels call (the linker gives them this process's pool's address)."""
MIN_WORK = 1 << 20
"""Loops touching fewer elements run serially. Publishing a job and waking a worker cost
microseconds, and a memory-bound kernel's 256k float32 elements take ~20 us on one core (a ReLU
in cache): with a second thread it took 96 us on this shared machine (load 8-9), so below 1M
elements the second core is not worth asking for (the same kernel serial against the pool,
interleaved; an idle machine could not be had to refine it: ``tools/bench_kernels.py``). A
fused kernel's work is the elements of all its arrays together (``codegen/parallel.py``; that
ReLU: 512k, serial)."""
CHUNKS_PER_THREAD = 4
"""Chunks per thread: more than one, so a thread that is descheduled (a busy machine) holds up
a small part, which the others take over."""
SPIN = 2000
"""Rounds an idle worker polls for the next job (a ``pause`` each, some microseconds in all)
before it sleeps on the futex; also the rounds a caller polls for chunks other threads hold
before it yields its core."""
BACKOFF_FIRST, BACKOFF_MAX = 4, 64
"""Calls that run serially after one that waited for a descheduled worker's chunk (late: the
machine is busy), the first time; each call late again after a back-off doubles it, up to the
second; a call on time resets it. On a loaded machine a second thread of ours only competes
with the first, and waiting for a descheduled worker costs a scheduler tick, so the pool tries
again every 64 calls; but a late call is also what a moment's contention gives (another
library's threads still spinning, a process starting): a fixed 64 then held a W1 forward (two
parallel calls a step) on one core for its next 32 steps, 2.8 against 1.45 ms each."""
LATE_MIN_CYCLES = 1 << 20
"""A wait shorter than this is never late (~0.3-0.5 ms of the cycle counter): a worker woken
from its futex, or one whose chunk began a little later, is not a busy machine
(``nnkernels.LATE_MIN``, the Python pool's rule, in seconds)."""

_FUTEX_SYSCALL = {"x86_64": 202, "aarch64": 98}
_FUTEX_WAIT_PRIVATE, _FUTEX_WAKE_PRIVATE = 128, 129

# The state: i64 slots, hot words on their own 64-byte lines (no false sharing).
_WORD, _DONE, _BELL, _SLEEPERS, _BUSY = 0, 8, 16, 24, 32
_FN, _CTX, _N = 40, 41, 42
_THREADS, _SHUTDOWN, _MIN_WORK = 48, 49, 50
_BACKOFF, _BACKOFF_NEXT = 56, 57
_SLOTS = 64


def _build_ir(state_address: int, futex: int | None) -> str:
    """The pool's LLVM IR, its state at ``state_address`` (a constant: the code is this
    process's); ``futex``: the futex syscall number, None for no sleeping (no workers)."""
    import llvmlite.ir as ir
    i1, i32, i64, ptr, void = ir.IntType(1), ir.IntType(32), ir.IntType(64), ir.PointerType(), \
        ir.VoidType()
    m = ir.Module(name="graphcell_pool")
    task_t = ir.FunctionType(void, [ptr, i64, i64])
    syscall = ir.Function(m, ir.FunctionType(i64, [i64], var_arg=True), "syscall")
    sched_yield = ir.Function(m, ir.FunctionType(i32, []), "sched_yield")
    cycles = ir.Function(m, ir.FunctionType(i64, []), "llvm.readcyclecounter")
    pause = ir.Function(m, ir.FunctionType(void, []), "llvm.x86.sse2.pause") \
        if platform.machine() == "x86_64" else None

    def slot(b, k):
        return b.inttoptr(i64(state_address + 8 * k), ptr)

    def load(b, k, typ=i64):
        return b.load_atomic(slot(b, k), "seq_cst", 8 if typ is i64 else 4, typ=typ)

    def relax(b):
        if pause is not None:
            b.call(pause, [])

    def wake_all(b):
        if futex is not None:
            b.call(syscall, [i64(futex), slot(b, _BELL), i64(_FUTEX_WAKE_PRIVATE),
                             i64(0x7FFFFFFF)])

    # i1 drain(): claim and run chunks of the current job until none is left; whether it ran any
    drain = ir.Function(m, ir.FunctionType(i1, []), "graphcell_pool_drain")
    drain.linkage = "internal"
    b = ir.IRBuilder(drain.append_basic_block("entry"))
    head, claim, run, out = (drain.append_basic_block(n) for n in ("head", "claim", "run", "out"))
    ran = b.alloca(i1)
    b.store(i1(0), ran)
    b.branch(head)
    b.position_at_end(head)
    w0 = load(b, _WORD)
    b.branch(claim)
    b.position_at_end(claim)
    w = b.phi(i64)
    w.add_incoming(w0, head)
    idx = b.and_(w, i64(0xFFFF))
    parts = b.and_(b.lshr(w, i64(16)), i64(0xFFFF))
    b.cbranch(b.icmp_unsigned("<", idx, parts), run, out)
    b.position_at_end(run)
    pair = b.cmpxchg(slot(b, _WORD), w, b.add(w, i64(1)), "seq_cst", "seq_cst")
    old, ok = b.extract_value(pair, 0), b.extract_value(pair, 1)
    w.add_incoming(old, run)
    go = drain.append_basic_block("go")
    b.cbranch(ok, go, claim)
    b.position_at_end(go)
    fn = b.inttoptr(b.load(slot(b, _FN), typ=i64), ptr)
    ctx = b.inttoptr(b.load(slot(b, _CTX), typ=i64), ptr)
    n = b.load(slot(b, _N), typ=i64)
    lo = b.udiv(b.mul(n, idx), parts)
    hi = b.udiv(b.mul(n, b.add(idx, i64(1))), parts)
    b.call(_FnPtr(fn, task_t), [ctx, lo, hi])
    b.atomic_rmw("add", slot(b, _DONE), i64(1), "seq_cst")
    b.store(i1(1), ran)
    b.branch(head)
    b.position_at_end(out)
    b.ret(b.load(ran))

    # void parallel_for(fn, ctx, n, work)
    pf = ir.Function(m, ir.FunctionType(void, [ptr, ptr, i64, i64]), SYMBOL)
    fn_a, ctx_a, n_a, work_a = pf.args
    b = ir.IRBuilder(pf.append_basic_block("entry"))
    serial, take, publish = (pf.append_basic_block(x) for x in ("serial", "take", "publish"))
    threads = load(b, _THREADS)
    small = b.or_(b.icmp_signed("<", threads, i64(2)), b.icmp_signed("<", n_a, i64(2)))
    small = b.or_(small, b.icmp_signed("<", work_a, load(b, _MIN_WORK)))
    backoff = pf.append_basic_block("backoff")
    b.cbranch(small, serial, backoff)
    b.position_at_end(backoff)
    busy_machine = b.icmp_signed(">", load(b, _BACKOFF), i64(0))
    count_down = pf.append_basic_block("count_down")
    b.cbranch(busy_machine, count_down, take)
    b.position_at_end(count_down)
    b.atomic_rmw("sub", slot(b, _BACKOFF), i64(1), "seq_cst")
    b.branch(serial)
    b.position_at_end(serial)
    b.call(_FnPtr(fn_a, task_t), [ctx_a, i64(0), n_a])
    b.ret_void()
    b.position_at_end(take)
    got = b.extract_value(b.cmpxchg(slot(b, _BUSY), i64(0), i64(1), "seq_cst", "seq_cst"), 1)
    b.cbranch(got, publish, serial)
    b.position_at_end(publish)
    chunks = b.mul(threads, i64(CHUNKS_PER_THREAD))
    chunks = b.select(b.icmp_signed("<", n_a, chunks), n_a, chunks)
    chunks = b.select(b.icmp_signed(">", chunks, i64(0xFFFF)), i64(0xFFFF), chunks)
    b.store(b.ptrtoint(fn_a, i64), slot(b, _FN))
    b.store(b.ptrtoint(ctx_a, i64), slot(b, _CTX))
    b.store(n_a, slot(b, _N))
    b.atomic_rmw("xchg", slot(b, _DONE), i64(0), "seq_cst")
    job = b.add(b.lshr(load(b, _WORD), i64(32)), i64(1))
    b.atomic_rmw("xchg", slot(b, _WORD), b.or_(b.shl(job, i64(32)), b.shl(chunks, i64(16))),
                 "seq_cst")
    b.atomic_rmw("add", b.inttoptr(i64(state_address + 8 * _BELL), ptr), i32(1), "seq_cst")
    wake, drained = pf.append_basic_block("wake"), pf.append_basic_block("drained")
    b.cbranch(b.icmp_signed(">", load(b, _SLEEPERS), i64(0)), wake, drained)
    b.position_at_end(wake)
    wake_all(b)
    b.branch(drained)
    b.position_at_end(drained)
    began = b.call(cycles, [])
    b.call(drain, [])
    drained_at = b.call(cycles, [])
    # wait for chunks other threads claimed: spin, then yield the core
    wait, spin, yld, done = (pf.append_basic_block(x) for x in ("wait", "spin", "yield", "done"))
    spins, was_late = b.alloca(i64), b.alloca(i1)
    b.store(i64(0), spins)
    b.store(i1(0), was_late)
    b.branch(wait)
    b.position_at_end(wait)
    b.cbranch(b.icmp_signed("<", load(b, _DONE), chunks), spin, done)
    b.position_at_end(spin)
    k = b.load(spins)
    b.store(b.add(k, i64(1)), spins)
    relax(b)
    b.cbranch(b.icmp_signed("<", k, i64(SPIN)), wait, yld)
    b.position_at_end(yld)
    # a worker still running a chunk is no sign of a busy machine (a GEMM block takes ms); one
    # that has taken more than twice the caller's own share of the work since the caller
    # finished it was descheduled: back off
    waited = b.sub(b.call(cycles, []), drained_at)
    late = b.and_(b.icmp_unsigned(">", waited, b.mul(b.sub(drained_at, began), i64(2))),
                  b.icmp_unsigned(">", waited, i64(LATE_MIN_CYCLES)))
    b.store(b.or_(b.load(was_late), late), was_late)
    b.call(sched_yield, [])
    b.branch(wait)
    b.position_at_end(done)
    # the back-off: BACKOFF_FIRST serial calls after a late one, doubled while calls stay late
    back_off, on_time, release = (pf.append_basic_block(x)
                                  for x in ("back_off", "on_time", "release"))
    b.cbranch(b.load(was_late), back_off, on_time)
    b.position_at_end(back_off)
    calls = load(b, _BACKOFF_NEXT)
    calls = b.select(b.icmp_signed("<", calls, i64(BACKOFF_FIRST)), i64(BACKOFF_FIRST), calls)
    b.atomic_rmw("xchg", slot(b, _BACKOFF), calls, "seq_cst")
    doubled = b.mul(calls, i64(2))
    b.atomic_rmw("xchg", slot(b, _BACKOFF_NEXT),
                 b.select(b.icmp_signed(">", doubled, i64(BACKOFF_MAX)), i64(BACKOFF_MAX),
                          doubled), "seq_cst")
    b.branch(release)
    b.position_at_end(on_time)
    b.atomic_rmw("xchg", slot(b, _BACKOFF_NEXT), i64(BACKOFF_FIRST), "seq_cst")
    b.branch(release)
    b.position_at_end(release)
    b.atomic_rmw("xchg", slot(b, _BUSY), i64(0), "seq_cst")
    b.ret_void()

    # void worker(): run chunks until shutdown, sleeping on the bell when idle
    wk = ir.Function(m, ir.FunctionType(void, []), "graphcell_pool_worker")
    b = ir.IRBuilder(wk.append_basic_block("entry"))
    loop, idle, poll, sleep, nap, leave = (wk.append_basic_block(x) for x in
                                           ("loop", "idle", "poll", "sleep", "nap", "leave"))
    spins = b.alloca(i64)
    b.store(i64(0), spins)
    b.branch(loop)
    b.position_at_end(loop)
    did = b.call(drain, [])
    reset = wk.append_basic_block("reset")
    b.cbranch(did, reset, idle)
    b.position_at_end(reset)
    b.store(i64(0), spins)
    b.branch(loop)
    b.position_at_end(idle)
    b.cbranch(b.icmp_signed("!=", load(b, _SHUTDOWN), i64(0)), leave, poll)
    b.position_at_end(poll)
    k = b.load(spins)
    b.store(b.add(k, i64(1)), spins)
    relax(b)
    b.cbranch(b.icmp_signed("<", k, i64(SPIN)), loop, sleep)
    b.position_at_end(sleep)
    seen = load(b, _BELL, i32)
    b.atomic_rmw("add", slot(b, _SLEEPERS), i64(1), "seq_cst")
    w = load(b, _WORD)
    has_work = b.icmp_unsigned("<", b.and_(w, i64(0xFFFF)),
                               b.and_(b.lshr(w, i64(16)), i64(0xFFFF)))
    stop = b.icmp_signed("!=", load(b, _SHUTDOWN), i64(0))
    after = wk.append_basic_block("after")
    b.cbranch(b.or_(has_work, stop), after, nap)
    b.position_at_end(nap)
    if futex is not None:
        b.call(syscall, [i64(futex), slot(b, _BELL), i64(_FUTEX_WAIT_PRIVATE), b.zext(seen, i64),
                         ir.Constant(ptr, None)])
    else:
        b.call(sched_yield, [])
    b.branch(after)
    b.position_at_end(after)
    b.atomic_rmw("sub", slot(b, _SLEEPERS), i64(1), "seq_cst")
    b.store(i64(0), spins)
    b.branch(loop)
    b.position_at_end(leave)
    b.ret_void()

    # void wake(): ring the bell (shutdown)
    wf = ir.Function(m, ir.FunctionType(void, []), "graphcell_pool_wake")
    b = ir.IRBuilder(wf.append_basic_block("entry"))
    b.atomic_rmw("add", b.inttoptr(i64(state_address + 8 * _BELL), ptr), i32(1), "seq_cst")
    wake_all(b)
    b.ret_void()
    return str(m)


class _FnPtr:
    """A function pointer called through llvmlite's builder (``call`` wants its type)."""

    def __init__(self, value, fnty):
        self.value, self.function_type, self.type = value, fnty, value.type

    def get_reference(self):
        return self.value.get_reference()

    def __getattr__(self, name):
        return getattr(self.value, name)


def _link(text: str, symbols: list) -> tuple[dict, tuple]:
    """Compile LLVM IR ``text`` and link it into this process with an LLJIT of its own (the
    kernels' linker asks this module for the addresses, not the other way round);
    ``({symbol: address}, what keeps it linked)``."""
    from graphcell_ir.backend.codegen import object_code
    from graphcell_ir.backend.native.target import llvm_binding, process_target
    llvm = llvm_binding()
    # Unoptimised, as the step's module: every process compiles the pool (its state's address is
    # a constant of the code), and LLVM's passes and level-3 code generator took 20-40 ms of each
    # cold compile, against 5 ms. The code is hand-written SSA around atomics, calls and the
    # futex: the same instructions but a few register moves either way.
    data, _ = object_code(text, process_target(), optimize=False)
    jit = llvm.create_lljit_compiler(suppress_errors=True)
    builder = llvm.JITLibraryBuilder()
    builder.add_object_img(data)
    for name in symbols:
        builder.export_symbol(name)
    builder.add_current_process()   # syscall, sched_yield
    tracker = builder.link(jit, "graphcell-pool")
    return {name: tracker[name] for name in symbols}, (jit, tracker)


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def configured_threads() -> int:
    """``GRAPHCELL_KERNEL_THREADS``, else the CPUs this process may run on."""
    return switches.number("GRAPHCELL_KERNEL_THREADS") or _default_threads()


class Pool:
    """This process's pool: its state, its linked code and its worker threads."""

    def __init__(self):
        self.state = (ctypes.c_int64 * _SLOTS)()
        self.futex = _FUTEX_SYSCALL.get(platform.machine()) if os.name == "posix" and \
            platform.system() == "Linux" else None
        self.addresses, self._keep = _link(_build_ir(ctypes.addressof(self.state), self.futex),
                                           [SYMBOL, "graphcell_pool_worker",
                                            "graphcell_pool_wake"])
        self._worker = ctypes.CFUNCTYPE(None)(self.addresses["graphcell_pool_worker"])
        self._wake = ctypes.CFUNCTYPE(None)(self.addresses["graphcell_pool_wake"])
        self.parallel_for = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p,
                                             ctypes.c_int64, ctypes.c_int64)(
            self.addresses[SYMBOL])
        self.workers: list[threading.Thread] = []
        self.pid = os.getpid()
        self.threads = 1
        self.lock = threading.Lock()

    @property
    def address(self) -> int:
        return self.addresses[SYMBOL]

    def start(self) -> None:
        """Start the workers (``configured_threads() - 1``; none without a futex)."""
        with self.lock:
            if self.workers:
                return
            want = configured_threads()
            if self.futex is None:
                want = 1
            self.state[_MIN_WORK] = MIN_WORK
            self.state[_BACKOFF_NEXT] = BACKOFF_FIRST
            self.state[_SHUTDOWN] = 0
            for k in range(want - 1):
                t = threading.Thread(target=self._worker, name=f"graphcell-kernel-{k}",
                                     daemon=True)
                t.start()
                self.workers.append(t)
            self.threads = want
            self.state[_THREADS] = want

    def limit(self, threads: int) -> int:
        """Use at most ``threads`` of the started threads from now on (1: every loop serial),
        forgetting any back-off; the previous limit. For measuring one thread against all in
        the same process."""
        with self.lock:
            self.state[_BACKOFF], self.state[_BACKOFF_NEXT] = 0, BACKOFF_FIRST
            before = int(self.state[_THREADS])
            self.state[_THREADS] = max(1, min(threads, len(self.workers) + 1))
            return before

    def stop(self, timeout: float = 5.0) -> None:
        """Stop and join the workers: loops run serially from now on (:meth:`start` again)."""
        with self.lock:
            self.state[_THREADS] = 1
            self.state[_SHUTDOWN] = 1
            self._wake()
            for t in self.workers:
                t.join(timeout)
            self.workers = []
            self.threads = 1

    def after_fork(self) -> None:
        """In a forked child: the parent's workers are not here; a fresh, serial state."""
        self.lock = threading.Lock()
        for k in range(_SLOTS):
            self.state[k] = 0
        self.workers = []
        self.threads = 1
        self.pid = os.getpid()


class _Holder:
    """Where the process's one :class:`Pool` is kept once made (under a lock)."""

    def __init__(self):
        self.pool: Pool | None = None
        self.lock = threading.RLock()


_HOLDER = _Holder()


def pool() -> Pool:
    """The process's pool, linked and its workers started at the first need."""
    with _HOLDER.lock:
        if _HOLDER.pool is None:
            p = Pool()
            atexit.register(p.stop)
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=p.after_fork)
            _HOLDER.pool = p
            p.start()
        return _HOLDER.pool


def started() -> Pool:
    """The process's pool with its workers running."""
    p = pool()
    if p.state[_THREADS] == 0:
        p.start()
    return p


def ensure_started() -> None:
    """Start the pool's workers if the pool exists and has none yet (its first use, or a forked
    child): cheap, called by every kernel compile."""
    p = _HOLDER.pool
    if p is not None and p.state[_THREADS] == 0:
        p.start()

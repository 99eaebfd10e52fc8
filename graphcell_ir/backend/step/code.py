"""Where the native step's callees come from: the entry address of each kernel and loop it calls.

:func:`~.emit.build` asks its ``code`` for every fused group's or lone op's kernel
(``kernel(ks, optimize)``: its shape-generic pointer entry, the arrays' dimensions passed as
arguments; ``optimize=False``: the object compiled without LLVM's optimisation, for small calls)
and every loop (``loop(source, name, kinds)``: the softmax family's, batch norm's, the layout
transposes'); each answer is
``(what to keep alive, symbol)``: the step's IR calls the pointer entry (``native/abi.py``) by
that symbol, which ``code.bind()`` maps to its address when the step is linked (so the objects
may still be compiling while the step is emitted; ``code.step_object(text)`` compiles the step's
own module meanwhile: only its link needs the addresses) — or
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

import itertools
import os
import sys
import threading
from contextlib import contextmanager

from graphcell_ir.backend import objects
from graphcell_ir.backend.lower import Unsupported
from graphcell_ir.backend.native import abi
from graphcell_ir.backend.native.target import NativeError

__all__ = ["ProcessCode", "RecordingCode", "LinkedCode"]


class ProcessCode:
    """Kernels and loops emitted (or found in the object store) and linked here.

    What LLVM does for them — compile an object the store lacks, link every object — runs on
    the compile lanes (:func:`_compile_thread`, first in first out: a compile thread, and
    beside it, on a machine with two cores, a lane compiling in a worker process, as llvmlite
    runs one LLVM call at a time in a process) while the step's build goes on emitting on the
    caller's: each answer is a symbol that :meth:`bind` resolves once the lanes are done. What
    the code generator refuses raises at once, as before; what fails on a lane (LLVM refused
    the object, it did not link, the worker died twice on it) raises :class:`CalleeFailed`
    from :meth:`bind`, and the callee is refused at once from then on, so the build emitted
    again meets it where it asked (``emit.build``)."""

    def __init__(self):
        self._asked: dict = {}     # request -> symbol
        self._pending: list = []   # (symbol, request, kind, what, the _Call)
        self._failed: dict = {}    # request -> the Unsupported a failure on the thread gave
        self._bound: dict = {}     # symbol -> address
        self._trackers: list = []  # what keeps the linked callees linked
        self._steps: list = []     # the step modules' compiles (step_object)

    def start(self) -> None:
        """Start the compile lanes now (a build begins). The compile worker starts at the first
        object the store lacks (``_CompileThread``)."""
        _compile_thread()

    def kernel(self, ks, optimize: bool = True) -> tuple:
        # counted: a compile's kernels, in the cache statistics and the compile report
        return self._later(("kernel", ks.key, optimize, tuple(ks.in_dtypes)), "kernel",
                           lambda later: objects.emit_kernel(ks, ks.in_dtypes,
                                                             fixed_shapes=False, counted=True,
                                                             optimize=optimize, later=later),
                           f"{'/'.join(ks.ops) or 'kernel'}: no native kernel")

    def loop(self, source: str, name: str, kinds) -> tuple:
        kinds = tuple(tuple(k) for k in kinds)
        return self._later(("loop", abi.source_hash(source), name, kinds), "loop",
                           lambda later: objects.emit_loop(source, name, kinds, counted=True,
                                                           later=later),
                           f"loop {name}: no native code")

    def _later(self, request, kind: str, emit, what: str) -> tuple:
        """``(what keeps it linked, symbol)``: the callee's symbol, its object compiled (when
        the store lacks it) and linked on the compile thread."""
        symbol = self._known(request)
        if symbol is None:
            try:
                got = emit(lambda job: job)   # the object, or the Compile of one the store lacks
            except NativeError as e:
                raise Unsupported(f"{what} ({e})") from None
            compiles = isinstance(got, objects.Compile)
            symbol = self._submit(request, kind, what, _compiled_and_linked, got,
                                  portable=compiles,
                                  seconds=got.expected_seconds() if compiles else 0.0)
        return self._trackers, symbol

    def parallel_for(self) -> str:
        """The symbol of the native pool's ``graphcell_parallel_for`` (the pool built, when this
        process has none yet, and started on the compile thread: its build is LLVM's work too,
        which waited there for the compiles before it)."""
        return self._known(_POOL) or self._submit(_POOL, "pool", "the native pool",
                                                  _started_pool, seconds=POOL_SECONDS)

    def _known(self, request) -> str | None:
        """The symbol already given for ``request``; raises what a failure on the thread gave."""
        if request in self._failed:
            raise self._failed[request]
        return self._asked.get(request)

    def _submit(self, request, kind: str, what: str, fn, *args, portable: bool = False,
                seconds: float = 0.0) -> str:
        """A new symbol for ``request``, bound by :meth:`bind` to what ``fn(object_code,
        *args)`` gives on a compile lane (``portable``: on the worker's too; ``seconds``: its
        expected time, see ``_Queue``)."""
        symbol = self._asked[request] = f"graphcell_callee_{next(_SYMBOLS)}"
        call = _compile_thread().submit(fn, *args, portable=portable, starts_worker=portable,
                                        seconds=seconds)
        self._pending.append((symbol, request, kind, what, call))
        return symbol

    def bind(self) -> dict:
        """symbol -> entry address of every callee asked for, once the compile thread has
        compiled and linked them (each compile counted here, in the order asked).
        :class:`CalleeFailed` when one failed there (the others stay bound)."""
        failed = []
        for symbol, request, kind, what, call in self._pending:
            try:
                obj, job, tracker, address = call.result()
            except (NativeError, RuntimeError) as e:
                self._failed[request] = Unsupported(f"{what} ({e})")
                del self._asked[request]
                failed.append(what)
                continue
            if job is not None:
                job.record()
            if obj is not None:
                self.emitted(kind, obj)
            self._trackers.append(tracker)
            self._bound[symbol] = address
        self._pending = []
        if failed:
            self.cancel()   # the step's module too: it is emitted again
            raise CalleeFailed("; ".join(failed))
        return dict(self._bound)

    def step_object(self, text: str) -> "_Call":
        """The object of the step's own LLVM IR ``text`` (``.result()``: its bytes), compiled
        at once on the first compile lane free, while its callees may still compile: only its
        link needs their addresses (docs/decisions.md, "Two compile lanes")."""
        from graphcell_ir.backend.native.target import process_target
        call = _compile_thread().submit(_step_object, text, process_target(), urgent=True,
                                        portable=True)
        self._steps.append(call)
        return call

    def cancel(self) -> None:
        """Drop the compiles not begun (the step is not built)."""
        for *_, call in self._pending:
            call.cancel()
        for call in self._steps:
            call.cancel()
        self._pending, self._steps = [], []

    def emitted(self, kind: str, obj) -> None:
        """Called with every object the step calls (nothing to do in-process)."""


class CalleeFailed(Exception):
    """A callee failed on the compile thread (:meth:`ProcessCode.bind`): emit the step again."""


def compiling_soon() -> None:
    """A function's compile begins (its front end): when the object store holds nothing yet
    and native steps are on (not the interpreter backend), every object of the build will compile, so the compile lanes and
    the worker start now. The worker's start (~50 ms of a core: a process importing llvmlite)
    then runs beside the front end's Python, on a core that has nothing else to do, instead
    of beside the build's Python and the compile thread (W5: the worker's first object came
    160 ms after the compile thread's). With objects in the store, the worker still waits for
    the first object the store lacks (:class:`_CompileThread`).

    Example::

        >>> compiling_soon()   # nothing to return; at most the lanes start
    """
    from graphcell_ir import switches
    if switches.on("GRAPHCELL_NATIVE_STEP") and switches.value("GRAPHCELL_BACKEND") != "interp" \
            and objects.store().holds_nothing():
        _compile_thread().start_worker()


def _compiled_and_linked(object_code, got) -> tuple:
    """``(object, its Compile or None, tracker, address)`` of ``got`` (an object, or the
    :class:`~graphcell_ir.backend.objects.Compile` of one, compiled by ``object_code``), on a
    compile lane."""
    from graphcell_ir.backend.native.linking import linker
    job = got if isinstance(got, objects.Compile) else None
    obj = job.run(object_code) if job is not None else got
    tracker, address = linker().link_one(obj)
    return obj, job, tracker, address


def _step_object(object_code, text: str, target) -> bytes:
    """The step module's object (unoptimised: see ``codegen.object_code``), on a compile lane."""
    return object_code(text, target, False)[0]


def _started_pool(object_code) -> tuple:
    """``(None, None, the pool, its graphcell_parallel_for)``, on a compile lane (built in this
    process, whichever the lane: it is linked here)."""
    from graphcell_ir.backend.native import pool
    started = pool.started()
    return None, None, started, started.address


_POOL = ("pool",)   # ProcessCode's request of the pool
POOL_SECONDS = 0.015
"""The native pool's build (its drain loop compiled, linked, its threads started): 12-15 ms
on W5's compile thread."""
_SYMBOLS = itertools.count()
_THREAD = None
_THREAD_LOCK = threading.Lock()

SWITCH_INTERVAL = 0.0002
"""The interpreter's switch interval (``sys.setswitchinterval``) while a step is built, in
seconds: the compile thread, back from each of its LLVM calls (~30 an object: parse, verify,
the passes, emit, link, and the small ones between), waits for the GIL while the build's Python
runs — up to the interval each time, 5 ms by default: W5's first call took ~100 ms longer with
it (docs/decisions.md, "Compiling while the step is built")."""


class _OftenSwitching:
    """Counts the builds under way; the switch interval is :data:`SWITCH_INTERVAL` while any is,
    what it was before when none is."""

    def __init__(self):
        self.lock, self.builds, self.before = threading.Lock(), 0, None

    @contextmanager
    def during(self):
        with self.lock:
            if self.builds == 0:
                self.before = sys.getswitchinterval()
                sys.setswitchinterval(min(self.before, SWITCH_INTERVAL))
            self.builds += 1
        try:
            yield
        finally:
            with self.lock:
                self.builds -= 1
                if self.builds == 0:
                    sys.setswitchinterval(self.before)


_SWITCHING = _OftenSwitching()


def switching_often():
    """A context in which the GIL changes hands every :data:`SWITCH_INTERVAL` (a step's build,
    whose compile thread needs it back after each LLVM call)."""
    return _SWITCHING.during()


def _compile_thread() -> "_CompileThread":
    """The process's compile lanes (made at the first need, and again in a forked child, which
    has the parent's object but not its threads, nor a worker of its own)."""
    global _THREAD
    with _THREAD_LOCK:
        if _THREAD is None or _THREAD.pid != os.getpid():
            _THREAD = _CompileThread()
        return _THREAD


class _CompileThread:
    """The compile lanes: daemon threads taking the calls submitted from one queue, first in
    first out (an urgent call first: the step's own module, which the build waits for), each
    call given its lane's ``object_code`` (``codegen.object_code``'s signature):

    - the compile thread: LLVM in this process;
    - the worker lane, when this process may use two cores (``codegen.worker.wanted``): it
      starts the compile worker process (``codegen/worker.py``) and sends it the LLVM text of
      each object; the object store and the linking stay in this process. llvmlite runs one
      LLVM call at a time in a process, so only another process compiles beside the thread.

    The worker starts at the first call submitted ``starts_worker`` (an object the store
    lacks), not with the lanes: a build whose callees are all stored compiles only the step's
    own module (a few ms, on the compile thread), and a worker started for it would spend
    ~50 ms of the second core importing llvmlite while the user's first calls run (W1's first
    dozen steps took twice as long).

    Not ``concurrent.futures``: importing it took ~6 ms of the first call."""

    def __init__(self, worker=None):
        from graphcell_ir.backend.codegen import worker as compile_worker
        self.pid, self.calls = os.getpid(), _Queue()
        self.worth_a_worker, self.stopped = threading.Event(), False
        self.worker = worker or (compile_worker.CompileWorker() if compile_worker.wanted()
                                 else None)
        _daemon("graphcell-compile", self._serve, _in_process)
        if self.worker is not None:
            _daemon("graphcell-compile-worker", self._serve_worker)

    def submit(self, fn, *args, urgent: bool = False, portable: bool = False,
               starts_worker: bool = False, seconds: float = 0.0) -> "_Call":
        """``fn(object_code, *args)`` on a lane; ``portable``: its LLVM work is all in
        ``object_code`` (the worker lane may take it: compiling an object; not building the
        pool, whose LLVM runs here and would only take turns with the compile thread's);
        ``starts_worker``: the worker is worth its start (see the class); ``seconds``: its
        expected time (the longest waiting call goes first: :class:`_Queue`)."""
        call = _Call(fn, args, portable, seconds)
        self.calls.put(call, urgent)
        if starts_worker:
            self.worth_a_worker.set()
        return call

    def start_worker(self) -> None:
        """Start the worker now (if this process has one), not at the first object the store
        lacks (:func:`compiling_soon`)."""
        if self.worker is not None:
            self.worth_a_worker.set()

    def _serve(self, object_code, portable_only: bool = False) -> None:
        while (call := self.calls.get(portable_only)) is not _STOP:
            call.run(object_code)
        self.calls.put(_STOP)   # for the other lane

    def _serve_worker(self) -> None:
        self.worth_a_worker.wait()
        # (a worker that does not start: the compile thread alone, as on one core)
        if not self.stopped and self.worker.start():
            self._serve(self._in_worker, portable_only=True)

    def _in_worker(self, text: str, target, optimize: bool) -> tuple:
        return self.worker.object_code(text, target, optimize)

    def stop(self) -> None:
        """End the lanes once the calls submitted have run, and the worker (tests)."""
        self.calls.put(_STOP)
        self.stopped = True
        self.worth_a_worker.set()   # a worker lane still waiting for it ends too
        if self.worker is not None:
            self.worker.stop()


def _in_process(text: str, target, optimize: bool) -> tuple:
    """The compile thread's lane: ``codegen.object_code`` in this process."""
    from graphcell_ir.backend import codegen
    return codegen.object_code(text, target, optimize)


_STOP = object()   # ends a lane (_CompileThread.stop)


def _daemon(name: str, target, *args) -> None:
    threading.Thread(target=target, args=args, name=name, daemon=True).start()


class _Queue:
    """The calls waiting for a lane: :meth:`put` ``urgent`` goes first (the step's module:
    the build waits for it), then the longest expected (``_Call.seconds``; equal ones first in
    first out), then the end (:data:`_STOP`); :meth:`get` ``portable_only`` takes only portable
    calls (or the end).

    Longest first: the build submits its objects as it emits them and then waits for all of
    them; by then most are queued, and the two lanes end closest together when the long ones
    go first and the short ones fill in (in arrival order, W5's last object was its longest
    but one: filter_direct alone on the worker lane for 58 ms while the compile thread
    idled; docs/decisions.md, "Longest first")."""

    def __init__(self):
        self.items, self.ready = [], threading.Condition()
        self.arrivals = itertools.count()

    def put(self, item, urgent: bool = False) -> None:
        rank = (0,) if item is _STOP else (2,) if urgent else (1, item.seconds)
        with self.ready:
            self.items.append((rank, -next(self.arrivals), item))
            self.ready.notify_all()   # (a lane waiting for portable calls may not take it)

    def get(self, portable_only: bool = False):
        with self.ready:
            while True:
                ready = [entry for entry in self.items if not portable_only
                         or entry[2] is _STOP or entry[2].portable]
                if ready:
                    entry = max(ready, key=lambda e: e[:2])
                    self.items.remove(entry)
                    return entry[2]
                self.ready.wait()


class _Call:
    """A submitted call: :meth:`result` waits for its value (or raises its exception)."""

    def __init__(self, fn, args, portable: bool = False, seconds: float = 0.0):
        self.fn, self.args, self.portable, self.done = fn, args, portable, threading.Event()
        self.seconds = seconds   # expected (the queue's order)
        self.value = self.error = None
        self.cancelled = False

    def run(self, object_code) -> None:
        """``fn(object_code, *args)``, unless cancelled."""
        if not self.cancelled:
            try:
                self.value = self.fn(object_code, *self.args)
            except BaseException as e:   # raised by result(), on the caller's thread
                self.error = e
        self.done.set()

    def cancel(self) -> None:
        """Do not run it if it has not begun (the step is not built)."""
        self.cancelled = True

    def result(self):
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value


class RecordingCode(ProcessCode):
    """:class:`ProcessCode` that keeps every object the step calls: ``objects`` as
    ``(kind, NativeObject)``, kind ``"kernel"`` or ``"loop"`` (what an export stores)."""

    def __init__(self):
        super().__init__()
        self.objects: list = []

    def emitted(self, kind: str, obj) -> None:
        self.objects.append((kind, obj))


class LinkedCode:
    """The objects an artifact brought (``native.NativeKernels``, checked, trusted and linked by
    the loader), and nothing else."""

    def __init__(self, kernels):
        self.kernels = kernels
        self._bound: dict = {}   # symbol -> address

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
                return tracker, self._symbol(address)
        raise Unsupported(f"{'/'.join(ks.ops) or 'kernel'}: the artifact has no native code "
                          f"for kernel {ks.key}")

    def loop(self, source: str, name: str, kinds) -> tuple:
        want = tuple(tuple(k) for k in kinds)
        key = abi.loop_key(abi.source_hash(source), name)
        for obj, address, tracker in self.kernels.by_key.get(key, ()):
            if obj.args == want:
                return tracker, self._symbol(address)
        raise Unsupported(f"loop {name}: the artifact has no native code for it")

    def _symbol(self, address: int) -> str:
        symbol = f"graphcell_callee_{next(_SYMBOLS)}"
        self._bound[symbol] = address
        return symbol

    def parallel_for(self) -> str:
        """The symbol of the native pool's ``graphcell_parallel_for`` (started here)."""
        from graphcell_ir.backend.native import pool
        return self._symbol(pool.started().address)

    def start(self) -> None:
        """Nothing to start: nothing compiles but the step's module."""

    def bind(self) -> dict:
        """symbol -> entry address of every callee asked for (linked already)."""
        return dict(self._bound)

    def step_object(self, text: str) -> "_Call":
        """The object of the step's own LLVM IR ``text``, compiled here and now (nothing else
        compiles: the callees are linked)."""
        from graphcell_ir.backend.native.target import process_target
        call = _Call(_step_object, (text, process_target()))
        call.run(_in_process)
        return call

    def cancel(self) -> None:
        """Nothing to drop: the artifact's objects are linked."""

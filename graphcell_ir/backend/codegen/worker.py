"""The compile worker: a process of its own that turns LLVM IR text into object files
(:func:`~graphcell_ir.backend.codegen.object_code`), the second compile lane of a native step's
build (:class:`CompileWorker`, below, starts it and talks to it; ``step/code.py`` feeds it).

llvmlite runs one LLVM call at a time in a process, so a second thread gains nothing; a second
process compiles on the other core. It imports llvmlite and this package only (no numpy): it
is ready ~45 ms after it is started, ~50 ms of CPU (most of it loading llvmlite's library;
without ``site`` it took 1-2 ms less: not worth finding llvmlite's directory for it).

The wire: each message is an 8-byte little-endian length, then that many bytes of
:mod:`marshal` (both ends are the same interpreter, ``sys.executable``). A request is
``(text, triple, cpu, features, optimize)``; the answer ``("ok", object bytes, needs)`` or
``("error", the exception's type name, its message)``; the worker's first message is
:data:`READY`. End of input ends the worker.

Example (one request, answered in this process)::

    >>> import io
    >>> from graphcell_ir.backend.native.target import host_target
    >>> t = host_target()
    >>> text = 'define i32 @f(i32 %x) {\\n  ret i32 %x\\n}\\n'
    >>> ask, answer = io.BytesIO(), io.BytesIO()
    >>> write_message(ask.write, (text, t.triple, t.cpu, t.features, True))
    >>> serve(io.BytesIO(ask.getvalue()).read, answer.write)
    >>> status, data, needs = read_message(io.BytesIO(answer.getvalue()).read)
    >>> status, data[:4], needs
    ('ok', b'\\x7fELF', ())
"""
from __future__ import annotations

import functools
import marshal
import os
import struct
import sys
import threading
from collections import namedtuple

_LENGTH = struct.Struct("<Q")
READY = "ready"
"""The worker's first message: LLVM is initialised, requests are welcome."""

WorkerTarget = namedtuple("WorkerTarget", "triple cpu features")
"""What ``object_code`` needs of a ``native.target.Target`` (whose module the worker does not
import)."""


def write_message(write, value) -> None:
    """Send ``value`` (marshal's types) through ``write``, length first."""
    data = marshal.dumps(value)
    write(_LENGTH.pack(len(data)) + data)


def read_message(read):
    """The next message from ``read`` (``read(n)`` gives at most n bytes); EOFError at the end
    of input (also in the middle of a message: the other end died)."""
    size, = _LENGTH.unpack(_exactly(read, _LENGTH.size))
    return marshal.loads(_exactly(read, size))


def _exactly(read, n: int) -> bytes:
    parts, left = [], n
    while left:
        part = read(left)
        if not part:
            raise EOFError("the other end closed the pipe")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def answer(request) -> tuple:
    """The answer to one request (see the module docstring)."""
    from graphcell_ir.backend import codegen
    text, triple, cpu, features, optimize = request
    try:
        data, needs = codegen.object_code(text, WorkerTarget(triple, cpu, features), optimize)
    except Exception as e:   # LLVM refused the module: the caller's outcome, as in its process
        return "error", type(e).__name__, str(e)
    return "ok", data, tuple(needs)


def serve(read, write) -> None:
    """Answer requests from ``read`` through ``write`` until the end of input."""
    while True:
        try:
            request = read_message(read)
        except EOFError:
            return
        write_message(write, answer(request))


def main() -> None:
    """The worker process: requests on stdin, answers on stdout. Anything else that writes to
    stdout (LLVM, a library) goes to stderr instead, so it cannot corrupt an answer."""
    requests, answers = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from graphcell_ir.backend.codegen.machine import llvm_binding
    llvm_binding()   # LLVM's start, before the first request
    write = functools.partial(_write_all, answers)
    try:
        write_message(write, READY)
        serve(functools.partial(os.read, requests), write)
    except BrokenPipeError:   # the owner ended (a compile that failed early): nobody to answer
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# --- the client (in the process that builds the step) ---------------------------------------------

def wanted() -> bool:
    """Whether this process should have a compile worker: the switch
    ``GRAPHCELL_COMPILE_WORKER`` is on and the process may run on two cores or more (on one,
    the worker's LLVM would only take turns with the process's own)."""
    from graphcell_ir import switches
    if not switches.on("GRAPHCELL_COMPILE_WORKER"):
        return False
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:   # no affinity on this platform
        return (os.cpu_count() or 1) > 1


MAX_DEATHS = 4
"""Workers that may die in a process before it stops starting new ones (then every object is
compiled in the process, as without a worker)."""


class WorkerCrashed(RuntimeError):
    """The compile worker died twice on the same module (LLVM aborted on it, most likely): the
    object has no native code, as when LLVM refuses it."""


class CompileWorker:
    """The compile worker as seen from the process that owns it (one thread asks at a time:
    the compile worker lane of ``step/code.py``).

    :meth:`object_code` is ``codegen.object_code`` run in the worker: the same object bytes and
    needs, or the same exception type and message. A worker that dies (killed, LLVM aborted) is
    no error: a new one is started and asked again; when that one dies on the same module too,
    :class:`WorkerCrashed` (the object is refused, the user's process lives on). After
    :data:`MAX_DEATHS` deaths, or once one did not start, objects are compiled in this
    process.

    >>> from graphcell_ir.backend.native.target import host_target
    >>> worker = CompileWorker()
    >>> data, needs = worker.object_code('define void @g() {\\n  ret void\\n}\\n', host_target())
    >>> worker.running(), data[:4]
    (True, b'\\x7fELF')
    >>> worker.stop(); worker.running()
    False
    """

    def __init__(self):
        self._process = None
        self.deaths = 0
        self._gave_up = False   # a worker did not start: none will
        self._lock = threading.RLock()   # one request on the pipes at a time

    def start(self) -> bool:
        """Start a worker (when none runs) and wait until it is ready; False when none could
        start (the process then compiles everything itself)."""
        with self._lock:
            return self._started()

    def _started(self) -> bool:
        if self.running():
            return True
        if self._process is not None:   # found dead (killed while idle): a death all the same
            self._died()
        if self._gave_up or self.deaths >= MAX_DEATHS:
            return False
        import subprocess
        try:
            process = subprocess.Popen([sys.executable, "-m", __name__], bufsize=0,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       env=_environment())
        except OSError:   # no interpreter to run it (an embedded Python...)
            self._gave_up = True
            return False
        self._process = process
        if hasattr(os, "register_at_fork"):   # (not on Windows, which does not fork)
            os.register_at_fork(after_in_child=functools.partial(_forget_in_child, process))
        try:
            if read_message(process.stdout.read) == READY:
                return True
        except (EOFError, ValueError, TypeError):   # it could not import llvmlite...
            pass
        self._died()
        self._gave_up = True
        return False

    def running(self) -> bool:
        """Whether a worker is running (started by this process, not dead)."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The running worker's process id."""
        return self._process.pid if self.running() else None

    def object_code(self, text: str, target, optimize=True) -> tuple[bytes, tuple]:
        """``codegen.object_code(text, target, optimize)``, run in the worker."""
        with self._lock:
            return self._object_code(text, target, optimize)

    def _object_code(self, text: str, target, optimize) -> tuple[bytes, tuple]:
        request = (text, target.triple, target.cpu, target.features, optimize)
        for _ in range(2):
            if not self.start():
                from graphcell_ir.backend import codegen
                return codegen.object_code(text, target, optimize)
            process = self._process
            try:
                write_message(functools.partial(_write_all, process.stdin.fileno()), request)
                status, *rest = read_message(process.stdout.read)
            except (OSError, EOFError, ValueError, TypeError):
                self._died()
                continue
            if status == "ok":
                return rest[0], tuple(rest[1])
            raise _error(*rest)
        raise WorkerCrashed("the compile worker died twice compiling it (LLVM aborted?)")

    def _died(self) -> None:
        process, self._process = self._process, None
        self.deaths += 1
        _close_pipes(process)
        try:
            process.kill()
        except OSError:
            pass
        process.wait()

    def stop(self) -> None:
        """End the worker (it exits at the end of its input)."""
        with self._lock:
            process, self._process = self._process, None
            if process is not None:
                process.stdin.close()
                process.wait()
                process.stdout.close()


def _environment() -> dict:
    """The worker's environment: this process's, with the directory this ``graphcell_ir`` was
    imported from first on its path (the worker runs the same code generator)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _forget_in_child(process) -> None:
    """In a forked child: close its copies of the parent's pipes to the parent's worker (the
    child starts a worker of its own when it compiles), so the worker still sees the end of
    its input when the parent ends (unbuffered: nothing of the parent's is sent)."""
    _close_pipes(process)


def _close_pipes(process) -> None:
    for pipe in (process.stdin, process.stdout):
        try:
            pipe.close()
        except OSError:
            pass


def _error(type_name: str, message: str) -> Exception:
    """The worker's exception, as this process would have raised it: a builtin exception type
    again (llvmlite's RuntimeError), any other as a RuntimeError naming it."""
    import builtins
    kind = getattr(builtins, type_name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        return kind(message)
    return RuntimeError(f"{type_name}: {message}")


if __name__ == "__main__":
    main()

"""The object store: native objects on disk and in memory, one store for the JIT and for export.

An entry is the object file of one function (a kernel or a loop) for one tuple of argument kinds
and one target, named by its id (``abi.jit_id``/``abi.native_id``). On disk it is
``<cache dir>/objects/<id>-<h>.o``, ``h`` a hash of the target and the producer (the code
generator's version and llvmlite's: code of another generator is never read back): a magic line,
one JSON header line (id, key, argument kinds, target, the outside symbols it needs, SHA-256 of
the bytes) and the object's bytes. A refusal — the code generator cannot compile that function
for those kinds — is ``<id>-<h>.err`` holding the reason, so later processes do not try again.
Writes are atomic (a temporary file, then ``os.replace``); an unwritable cache directory costs a
later process a compile, nothing else.

A read checks the entry before anything uses its bytes: the header names the entry asked for,
the bytes match their hash, the object is an ELF object for the target's machine defining the
entry's symbol (``objfile.check_object``). Anything else is a miss whose reason says what was
wrong; the caller compiles again and :meth:`ObjectStore.put` rewrites the file. Whether an
object may be *linked* here (its CPU features, the symbols it needs) is the linker's question.

What a process read or put is kept in memory too (per cache directory), under a lock.

Example::

    >>> import tempfile
    >>> from pathlib import Path
    >>> from graphcell_ir.backend.native.target import Target
    >>> d = Path(tempfile.mkdtemp())
    >>> store = ObjectStore(lambda: d, producer="example")
    >>> t = Target("x86_64-unknown-linux-gnu", "generic", "")
    >>> store.get("0123", t).why
    'no native object on disk'
    >>> store.refuse("0123", t, "not in the subset")
    >>> store.get("0123", t).refused
    True
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from graphcell_ir.backend.native.abi import symbol_of
from graphcell_ir.backend.native.objfile import check_object
from graphcell_ir.backend.native.target import NativeError, Target

_MAGIC = b"GCOBJ1\n"


@dataclass(frozen=True)
class NativeObject:
    """One function's object file: ``key`` (its source's), ``id`` (:mod:`.abi`), ``args``
    (its argument kinds: ``("array", dtype, ndim)``..., or for a fixed-shape kernel
    ``(dtype, shape)`` per argument), ``data`` (the object file's bytes), ``target``, ``needs``
    (the outside symbols it calls: libm's)."""

    key: str
    id: str
    args: tuple
    data: bytes
    target: Target | None = None
    needs: tuple = ()

    @property
    def symbol(self) -> str:
        return symbol_of(self.id)


@dataclass(frozen=True)
class Found:
    """What :meth:`ObjectStore.get` found: ``obj``, else why not; ``refused``: the entry is a
    recorded refusal (``why`` is its reason)."""

    obj: NativeObject | None
    why: str = ""
    refused: bool = False


class ObjectStore:
    """Native objects by id and target, on disk under ``root()`` and in memory (see the module
    docstring). ``producer`` names what made the objects (part of every file name)."""

    def __init__(self, root: Callable[[], Path], producer: str):
        self.root, self.producer = root, producer
        self._memory: dict[tuple, Found] = {}
        self._lock = threading.Lock()

    def path(self, id_: str, target: Target) -> Path:
        h = hashlib.sha256(repr((id_, target, self.producer)).encode()).hexdigest()[:16]
        return self.root() / f"{id_}-{h}.o"

    def get(self, id_: str, target: Target) -> Found:
        """The entry ``id_`` for ``target``, or why there is none (never raises)."""
        try:
            path = self.path(id_, target)
        except (OSError, RuntimeError) as e:
            return Found(None, f"native cache unusable ({type(e).__name__}: {e})")
        with self._lock:
            found = self._memory.get((path, id_))
        if found is not None:
            return found
        found = self._read(path, id_, target)
        if found.obj is not None or found.refused:
            with self._lock:
                self._memory[(path, id_)] = found
        return found

    def _read(self, path: Path, id_: str, target: Target) -> Found:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            try:
                return Found(None, path.with_suffix(".err").read_text(), refused=True)
            except (OSError, UnicodeDecodeError):
                return Found(None, "no native object on disk")
        except OSError as e:
            return Found(None, f"native cache unusable ({type(e).__name__}: {e})")
        try:
            return Found(_parse(raw, id_, target))
        except _Foreign as e:
            return Found(None, f"native object not for this target ({e}): rebuilt")
        except (ValueError, KeyError, TypeError, NativeError) as e:
            return Found(None, f"native object corrupt ({e}): rebuilt")

    def put(self, obj: NativeObject) -> None:
        """Keep ``obj`` (in memory, and on disk when the directory is writable)."""
        path = self.path(obj.id, obj.target)
        t = obj.target
        header = json.dumps({"id": obj.id, "key": obj.key, "args": _plain(obj.args),
                             "target": [t.triple, t.cpu, t.features], "needs": list(obj.needs),
                             "sha256": hashlib.sha256(obj.data).hexdigest()})
        with self._lock:
            self._memory[(path, obj.id)] = Found(obj)
        _write(path, _MAGIC + header.encode() + b"\n" + obj.data)

    def holds_nothing(self) -> bool:
        """Whether the store's directory has no entry at all (a new cache directory: a build
        compiles every object it needs), or cannot be read."""
        try:
            with os.scandir(self.root()) as entries:
                return next(entries, None) is None
        except (OSError, RuntimeError):
            return True

    def refuse(self, id_: str, target: Target, reason: str) -> None:
        """Record that entry ``id_`` cannot be compiled, and why."""
        path = self.path(id_, target)
        with self._lock:
            self._memory[(path, id_)] = Found(None, reason, refused=True)
        _write(path.with_suffix(".err"), reason.encode())

    def forget(self) -> None:
        """Drop what is kept in memory (the disk stays): for tests."""
        with self._lock:
            self._memory.clear()

    def summary(self) -> dict:
        """What the store's directory holds: objects, refusals, bytes."""
        try:
            files = [f for f in self.root().iterdir() if f.is_file()]
        except OSError:
            files = []
        return {"native objects": sum(1 for f in files if f.suffix == ".o"),
                "refusals": sum(1 for f in files if f.suffix == ".err"),
                "bytes": sum(f.stat().st_size for f in files)}


def _plain(args) -> list:
    return [list(_plain(a)) if isinstance(a, (tuple, list)) else a for a in args]


def _tuples(args) -> tuple:
    return tuple(_tuples(a) if isinstance(a, list) else a for a in args)


def _parse(raw: bytes, id_: str, target: Target) -> NativeObject:
    """The object of a store file, checked (ValueError... saying what is wrong)."""
    if not raw.startswith(_MAGIC):
        raise ValueError("no header")
    end = raw.index(b"\n", len(_MAGIC))
    header = json.loads(raw[len(_MAGIC):end])
    data = raw[end + 1:]
    if header["id"] != id_:
        raise ValueError("it names another function")
    emitted = Target(*header["target"])
    if emitted != target:
        raise _Foreign(emitted.runs_on(target) or f"it was emitted for {emitted}")
    needs = header["needs"]
    if not isinstance(needs, list) or not all(isinstance(n, str) for n in needs):
        raise ValueError("its list of needed symbols is not one")
    if hashlib.sha256(data).hexdigest() != header["sha256"]:
        raise ValueError("its bytes do not match their hash")
    check_object(data, symbol_of(id_), target.triple)
    return NativeObject(header["key"], id_, _tuples(header["args"]), data, target, tuple(needs))


class _Foreign(ValueError):
    """A store file of another target (its file name's hash collided, or it was edited)."""


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass   # an unwritable cache only costs a later process a compile

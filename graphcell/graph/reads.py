"""Which attributes of which cells a compile reads (DESIGN §10.9: recompile when they change).

The frontend reads ``self.threshold``, ``self.training``, ``self.conv1``... with ``getattr``
while it compiles. To know which, :class:`ReadRecorder` gives every cell the compile meets a
recording class for the duration of the compile: a subclass of the cell's own class, with the
same name, whose ``__getattribute__`` notes the attribute name before the usual lookup. Nothing
else changes — ``isinstance``, methods, properties and ``cls_name`` behave as before — and the
cells get their own class back when the compile ends, whether it succeeded or failed. (A class
that cannot be given a recording subclass counts as reading every attribute it has: more
recompiles, never a stale graph.)

Compiles in several threads may watch one cell at once: they share its recording class and its
set of names (each compile's guards then hold the others' reads too: more guards, never fewer),
and the cell gets its own class back when the last of them closes.

Example::

    >>> from graphcell import nn
    >>> relu = nn.ReLU()
    >>> with ReadRecorder() as rec:
    ...     rec.watch(relu)
    ...     _ = relu.training, type(relu).__name__
    >>> sorted(rec.names(relu)), type(relu) is nn.ReLU
    (['training'], True)
"""
from __future__ import annotations

import threading

__all__ = ["ReadRecorder"]

_recording: dict[int, set] = {}     # id(cell) -> the names read, while a compile watches it
_classes: dict[type, type] = {}     # cell class -> its recording subclass
_owners: dict[int, list] = {}       # id(cell) -> [its own class, how many recorders watch it]
_lock = threading.Lock()            # held while the three tables change


def _recording_class(cls: type) -> type:
    sub = _classes.get(cls)
    if sub is None:
        base_get = cls.__getattribute__

        def __getattribute__(self, name):
            names = _recording.get(id(self))
            if names is not None and not name.startswith("__"):
                names.add(name)
            return base_get(self, name)
        sub = type(cls.__name__, (cls,), {"__getattribute__": __getattribute__,
                                          "__qualname__": cls.__qualname__,
                                          "__module__": cls.__module__,
                                          "__graphcell_recording__": cls})
        _classes[cls] = sub
    return sub


class ReadRecorder:
    """Records attribute reads on the cells it watches until it is closed (a context manager)."""

    def __init__(self):
        self._watched: dict[int, object] = {}   # id -> object, in the order first watched
        self._owned: set[int] = set()            # the ids this recorder still counts in _owners
        self._names: dict[int, set] = {}

    def watch(self, obj) -> None:
        """Record the attributes read on ``obj`` from now until the recorder closes."""
        key = id(obj)
        if key in self._watched:
            return
        self._watched[key] = obj
        with _lock:
            owner = _owners.get(key)
            if owner is not None:   # another compile (enclosing, or in another thread) watches it
                owner[1] += 1
                self._owned.add(key)
                self._names[key] = _recording[key]
                return
            cls = type(obj)
            try:
                if "__graphcell_recording__" in cls.__dict__:
                    raise TypeError("a copy of a watched cell")   # its class is not its own
                object.__setattr__(obj, "__class__", _recording_class(cls))
            except TypeError:   # cannot be watched this way: assume it reads everything
                self._names[key] = set(getattr(obj, "__dict__", ()))
                return
            _owners[key] = [cls, 1]
            self._owned.add(key)
            self._names[key] = _recording[key] = set()

    def names(self, obj) -> set:
        """The attribute names read on ``obj`` (while watching, or after closing)."""
        return self._names.get(id(obj), set())

    def objects(self) -> list:
        """The watched objects, in the order they were first watched."""
        return list(self._watched.values())

    def close(self) -> None:
        """Stop watching; each object gets its own class back when no other recorder watches
        it (idempotent)."""
        with _lock:
            for key in self._owned:
                owner = _owners[key]
                owner[1] -= 1
                if owner[1] == 0:
                    object.__setattr__(self._watched[key], "__class__", owner[0])
                    del _owners[key]
                    _recording.pop(key, None)
            self._owned.clear()

    def __enter__(self) -> "ReadRecorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

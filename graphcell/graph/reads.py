"""Which attributes of which cells a compile reads (DESIGN §10.9: recompile when they change).

The frontend reads ``self.threshold``, ``self.training``, ``self.conv1``... with ``getattr``
while it compiles. To know which, :class:`ReadRecorder` gives every cell the compile meets a
recording class for the duration of the compile: a subclass of the cell's own class, with the
same name, whose ``__getattribute__`` notes the attribute name before the usual lookup. Nothing
else changes — ``isinstance``, methods, properties and ``cls_name`` behave as before — and the
cells get their own class back when the compile ends, whether it succeeded or failed. (A class
that cannot be given a recording subclass counts as reading every attribute it has: more
recompiles, never a stale graph.)

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

__all__ = ["ReadRecorder"]

_recording: dict[int, set] = {}     # id(cell) -> the names read, while a compile watches it
_classes: dict[type, type] = {}     # cell class -> its recording subclass


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
        self._watched: dict[int, tuple[object, type | None]] = {}
        self._names: dict[int, set] = {}

    def watch(self, obj) -> None:
        """Record the attributes read on ``obj`` from now until the recorder closes."""
        key = id(obj)
        if key in self._watched:
            return
        cls = type(obj)
        if "__graphcell_recording__" in cls.__dict__:  # an enclosing compile watches it already
            self._names[key] = _recording.setdefault(key, set())
            self._watched[key] = (obj, None)
            return
        try:
            sub = _recording_class(cls)
            object.__setattr__(obj, "__class__", sub)
        except TypeError:  # a class that cannot be subclassed this way: assume it reads everything
            self._names[key] = set(getattr(obj, "__dict__", ()))
            self._watched[key] = (obj, None)
            return
        self._names[key] = _recording[key] = set()
        self._watched[key] = (obj, cls)

    def names(self, obj) -> set:
        """The attribute names read on ``obj`` (while watching, or after closing)."""
        return self._names.get(id(obj), set())

    def objects(self) -> list:
        """The watched objects, in the order they were first watched."""
        return [obj for obj, _ in self._watched.values()]

    def close(self) -> None:
        """Give every watched object its own class back (idempotent)."""
        for key, (obj, cls) in self._watched.items():
            if cls is not None:
                object.__setattr__(obj, "__class__", cls)
                _recording.pop(key, None)
            self._watched[key] = (obj, None)

    def __enter__(self) -> "ReadRecorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

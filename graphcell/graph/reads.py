"""Which attributes of which cells a compile reads (DESIGN §10.9: recompile when they change).

The frontend reads ``self.threshold``, ``self.training``, ``self.conv1``... through the resolver
protocol (``graphcell_ir/frontend/resolve.py``: ``read_attribute``), and ``GraphResolver`` notes
each read in this compile's :class:`ReadRecorder`. Nothing about the cells changes while they are
compiled. A read of a property or a method counts as reading the attributes its code names
(:func:`attribute_reads`): a property's getter or ``self.trainable_params()`` runs as Python while
compiling, and what it reads decides the graph too (more guards, never a stale graph).

One recorder per compile: compiles in several threads share nothing here.

Example::

    >>> from graphcell import nn
    >>> rec = ReadRecorder()
    >>> relu = nn.ReLU()
    >>> names = rec.watch(relu)
    >>> names.update(attribute_reads(type(relu), "training"))
    >>> sorted(rec.names(relu))
    ['training']
"""
from __future__ import annotations

import functools
import inspect
import types

__all__ = ["ReadRecorder", "attribute_reads"]


class ReadRecorder:
    """The attribute names read on each watched object during one compile (a context manager,
    for the compile's scope)."""

    def __init__(self):
        self._watched: dict[int, object] = {}   # id -> object, in the order first watched
        self._names: dict[int, set] = {}

    def watch(self, obj) -> set:
        """Start recording reads on ``obj``; returns its set of names, which the resolver fills."""
        key = id(obj)
        if key not in self._watched:
            self._watched[key] = obj
            self._names[key] = set()
        return self._names[key]

    def names(self, obj) -> set:
        """The attribute names read on ``obj``."""
        return self._names.get(id(obj), set())

    def objects(self) -> list:
        """The watched objects, in the order they were first watched."""
        return list(self._watched.values())

    def close(self) -> None:
        """The compile is over (nothing to undo: reads were only noted)."""

    def __enter__(self) -> "ReadRecorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@functools.lru_cache(maxsize=4096)
def attribute_reads(cls: type, name: str) -> frozenset:
    """The attribute names reading ``name`` on an instance of ``cls`` reads: ``name`` itself, and
    when ``cls`` defines ``name`` as a property or a method, the names its code mentions —
    transitively through the class's other properties and methods it mentions. An
    over-approximation (a mentioned name may be a global), which only adds guards."""
    if name.startswith("__"):
        return frozenset()
    out, todo = {name}, [name]
    while todo:
        code = _code_of(inspect.getattr_static(cls, todo.pop(), None))
        for n in _names_in(code) if code is not None else ():
            if n not in out and not n.startswith("__"):
                out.add(n)
                todo.append(n)
    return frozenset(out)


def _code_of(attr) -> types.CodeType | None:
    if isinstance(attr, property):
        attr = attr.fget
    elif isinstance(attr, (staticmethod, classmethod)):
        attr = attr.__func__
    return getattr(attr, "__code__", None) if isinstance(attr, types.FunctionType) else None


def _names_in(code: types.CodeType):
    """The attribute and global names of ``code`` and of the code objects nested in it."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names_in(const)

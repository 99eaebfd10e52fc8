"""The functional op API that bprop rules are written against, and ``bind``.

A rule such as ``lambda x, y, out, dout: (F.mul(dout, y), F.mul(dout, x))`` runs in two worlds:
PyNative installs an eager emitter (the op runs at once on Tensors and may be taped, so gradients
of gradients work), graph-mode autodiff installs an IR emitter (the op becomes an IR op at the
location of the forward op it differentiates). ``bind`` hands each call to whichever emitter is
current; the ContextVar below is the only dynamic state.

Every registry entry is reachable as ``F.<name>`` (and its aliases): positional arguments fill
the operands and then the attributes in declared order, keywords name attributes::

    >>> from graphcell_ir.ops import functional as F
    >>> F.reduce_sum.opdef.name
    'reduce_sum'

Composite helpers used by many rules (``sum_to``, ``zeros_like``...) are defined here too.
Values in both worlds expose ``.shape`` and ``.dtype``, so rules never ask which world they are in.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

from graphcell_ir.errors import NoEmitterError, OpTypeError
from graphcell_ir.ops.registry import OpDef, lookup


class Emitter(Protocol):
    def emit(self, op: OpDef, args: tuple, attrs: dict) -> Any:
        """Run or record ``op`` on ``args`` with checked, complete ``attrs``."""


_emitter: ContextVar[Emitter | None] = ContextVar("graphcell_emitter", default=None)
_default: list[Emitter | None] = [None]


def set_default_emitter(emitter: Emitter | None) -> None:
    """The emitter ``bind`` uses outside any ``using_emitter`` context.

    graphcell installs its eager (PyNative) emitter here at import, so ``F.add(x, y)`` on Tensors
    runs at once; graphcell_ir on its own has none, and ``bind`` then raises NoEmitterError.
    """
    _default[0] = emitter


@contextmanager
def using_emitter(emitter: Emitter):
    """Make ``emitter`` receive every ``bind`` in this context."""
    token = _emitter.set(emitter)
    try:
        yield emitter
    finally:
        _emitter.reset(token)


def current_emitter() -> Emitter | None:
    return _emitter.get() or _default[0]


def split_args(op: OpDef, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Split a call's arguments into operands and attrs: extra positionals fill attrs in order."""
    n = len(args) if op.operand_count is None else min(len(args), op.operand_count)
    operands, extra = args[:n], args[n:]
    if len(extra) > len(op.attrs):
        raise OpTypeError(f"{op.display_name}: takes {len(op.operands)} operand(s) and "
                          f"{len(op.attrs)} attribute(s), got {len(args)} positional arguments", op)
    attrs = dict(kwargs)
    for a, v in zip(op.attrs, extra):
        if a.name in attrs:
            raise OpTypeError(f"{op.display_name}: attribute {a.name!r} given twice", op)
        attrs[a.name] = v
    return operands, attrs


def bind(op: OpDef, /, *args, **kwargs):
    """Apply ``op`` through the current emitter."""
    emitter = _emitter.get() or _default[0]
    if emitter is None:
        raise NoEmitterError(f"{op.name} was called outside any emitter; functional ops run inside "
                             "graphcell's PyNative runtime or an IR builder")
    if not kwargs and len(args) == op.operand_count and op.default_attrs is not None:
        # operands only: nothing to split or check (what split_args and check_attrs give)
        return emitter.emit(op, args, dict(op.default_attrs))
    operands, attrs = split_args(op, args, kwargs)
    op._check_arity(len(operands))
    return emitter.emit(op, operands, checked_attrs(op, attrs))


_checked: dict = {}
"""(op, the attrs as given, with their classes) -> ``op.check_attrs`` of them (never mutated:
callers get a copy). Only attrs that were accepted are kept: a refused call is refused again."""


def _attr_class(v):
    """What tells values apart that compare equal (``1``, ``True``, ``1.0``; ``(1,)``,
    ``(True,)``), which an attr's check does not all accept alike."""
    return (tuple, *map(type, v)) if v.__class__ is tuple else v.__class__


def checked_attrs(op: OpDef, attrs: dict) -> dict:
    """``op.check_attrs(attrs)``, remembered per op and attrs (by value and class)."""
    try:
        key = (op, *attrs.items(), *map(_attr_class, attrs.values()))
        hit = _checked.get(key)
    except TypeError:   # an unhashable value (a list, a slice in an index): checked each time
        return op.check_attrs(attrs)
    if hit is None:
        hit = op.check_attrs(attrs)
        if len(_checked) >= _CHECKED_MAX:   # attrs that change every call (a scalar, a
            _checked.clear()                # callback) must not grow it without end
        _checked[key] = hit
    return dict(hit)


_CHECKED_MAX = 4096


class _OpFunction:
    """``F.<op>``: calls ``bind``; ``.opdef`` lets the frontend resolve it without calling it."""

    def __init__(self, opdef: OpDef):
        self.opdef = opdef
        self.__name__ = opdef.name
        self.__doc__ = opdef.doc

    def __call__(self, *args, **kwargs):
        op = self.opdef
        if not kwargs and len(args) == op.operand_count and op.default_attrs is not None:
            emitter = _emitter.get() or _default[0]   # bind's fast path, inlined: every
            if emitter is not None:                   # PyNative op call comes through here
                return emitter.emit(op, args, dict(op.default_attrs))
        return bind(op, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<functional {self.opdef.name}>"


def __getattr__(name: str) -> _OpFunction:
    try:
        fn = _OpFunction(lookup(name))
    except KeyError as e:
        raise AttributeError(str(e)) from None
    globals()[name] = fn
    return fn


# --- composite helpers -------------------------------------------------------------------------

def sum_to(g, shape: tuple[int, ...]):
    """Sum ``g`` over the axes that broadcasting added or stretched, giving ``shape``.

    The adjoint of broadcasting: every bprop of a broadcasting op ends with it.
    """
    gshape = tuple(g.shape)
    shape = tuple(shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and gshape[i + lead] != 1)
    out = bind(lookup("reduce_sum"), g, axis=axes, keep_dims=False) if axes else g
    if tuple(out.shape) != shape:
        out = bind(lookup("reshape"), out, shape=shape)
    return out


def broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether broadcasting ``shape`` gives ``target`` (so ``sum_to(g, shape)`` undoes it).

    >>> broadcasts_to((2,), (3, 2)), broadcasts_to((1, 2), (3, 2)), broadcasts_to((3,), (3, 2))
    (True, True, False)
    """
    shape, target = tuple(shape), tuple(target)
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


def zeros_like(x):
    return bind(lookup("fill"), dtype=x.dtype, shape=tuple(x.shape), value=0)


def ones_like(x):
    return bind(lookup("fill"), dtype=x.dtype, shape=tuple(x.shape), value=1)


def cast_like(g, x):
    """``g`` cast to ``x``'s dtype when they differ (gradients keep their input's dtype)."""
    return g if g.dtype == x.dtype else bind(lookup("cast"), g, dtype=x.dtype)

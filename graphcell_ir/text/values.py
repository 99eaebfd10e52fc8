"""How values inside ``.gcir`` text are spelled: attributes, literals, names, host objects.

Attribute values are printed by their Python type, so one printer serves every ``AttrKind``:

    ==================  =========================  =============================
    Python value        text                       kinds
    ==================  =========================  =============================
    True / False        ``true`` / ``false``       BOOL, SCALAR
    3, -1               ``3``, ``-1``              INT, SCALAR
    0.5, nan, -inf      ``0.5``, ``nan``, ``-inf`` FLOAT, SCALAR (always a ``.``, ``e``, nan or inf)
    "valid"             ``"valid"`` (JSON)         STR
    float32             ``f32``                    DTYPE
    TensorType, obj     ``f32[2,3]``, ``obj``      TYPES elements (a scalar type: ``f32``)
    None                ``none``                   OPT_INTS, defaults
    (1, 2)              ``[1,2]``                  INTS, OPT_INTS, INDEX
    slice(1, 3), ...    ``1:3``, ``...``           INDEX elements
    ndarray             nested lists               const values
    other objects       ``@name``                  ANY (host callbacks)
    ==================  =========================  =============================

An opaque object (an ``ANY`` attribute such as a host callback) cannot be written as a literal: it
is printed as a reference ``@<its __name__>`` and parsed back as a ``HostRef`` that names it; the
runtime that owns the object is responsible for binding it again.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from graphcell_ir.errors import GraphcellError
from graphcell_ir.ir.types import DType, Type


@dataclass(frozen=True)
class HostRef:
    """A host object (callback) known only by name, as parsed from ``@name`` in an attribute."""

    name: str

    def __call__(self, *args, **kwargs):
        raise GraphcellError(f"host object @{self.name} was read from text and is not bound to a "
                             "Python object; the runtime must supply it")


_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.]")
_BARE_SYMBOL = re.compile(r"[A-Za-z0-9_.]+")


def sanitize_name(hint: str | None) -> str | None:
    """A name hint as a ``%name`` (letters, digits, ``_`` and ``.``); None when nothing is left.

    All-digit names are the printer's numbers, so a hint ``"3"`` becomes ``_3``.
    """
    if not hint:
        return None
    s = _SAFE_NAME.sub("_", hint)
    return "_" + s if s.isdigit() else s


def format_symbol(name: str) -> str:
    """``@name``, quoted when the name has characters a bare symbol cannot hold."""
    return "@" + (name if _BARE_SYMBOL.fullmatch(name) else json.dumps(name))


def format_float(x: float) -> str:
    """repr() of a Python float, which is its shortest exact spelling (``nan``, ``inf`` too)."""
    return repr(float(x))


def format_scalar(x) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, np.floating):
        return _np_float(x)
    if isinstance(x, float):
        return format_float(x)
    raise TypeError(f"not a scalar: {x!r}")


def _np_float(x: np.floating) -> str:
    """The shortest spelling that reads back to the same value *in x's dtype*."""
    s = str(x)
    if s in ("nan", "inf", "-inf") or any(c in s for c in ".e"):
        return s
    return s + ".0"


def format_slice(s: slice) -> str:
    parts = ["" if v is None else str(int(v)) for v in (s.start, s.stop)]
    text = ":".join(parts)
    return text + (f":{int(s.step)}" if s.step is not None else "")


def format_array(arr: np.ndarray) -> str:
    """Nested lists, elements spelled so they read back exactly in the array's dtype."""
    if arr.ndim == 0:
        return format_scalar(arr[()])
    return "[" + ",".join(format_array(a) for a in arr) + "]"


class ObjectNames:
    """Names for opaque attribute objects, assigned in print order (``@fn``, ``@fn_1``)."""

    def __init__(self):
        self._by_obj: list[tuple[object, str]] = []
        self._used: set[str] = set()

    def name(self, obj) -> str:
        if isinstance(obj, HostRef):
            return obj.name
        for o, n in self._by_obj:
            if o is obj:
                return n
        base = sanitize_name(getattr(obj, "__name__", None) or type(obj).__name__) or "obj"
        name, k = base, 0
        while name in self._used:
            k += 1
            name = f"{base}_{k}"
        self._used.add(name)
        self._by_obj.append((obj, name))
        return name


def format_attr(value, objects: ObjectNames) -> str:
    """The text of an attribute value (see the table in the module docstring)."""
    if value is None:
        return "none"
    if isinstance(value, (bool, int, float, np.generic)):
        return format_scalar(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, DType):
        return value.short
    if isinstance(value, Type):   # a TYPES attribute's entries: f32[2], i64, obj
        return str(value)
    if value is Ellipsis:
        return "..."
    if isinstance(value, slice):
        return format_slice(value)
    if isinstance(value, (tuple, list)):
        return "[" + ",".join(format_attr(v, objects) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return format_array(value)
    return format_symbol(objects.name(value))

"""The op registry: each primitive declared once, as one ``OpDef``.

Every layer reads the same record: the frontend and the text parser find ops by name here, the
verifier and PyNative call ``infer_types``, PyNative, the reference interpreter and constant folding
call ``ref``, both autodiffs call ``bprop``, fusion/DCE/CSE read ``kind``, the backend reads
``kernel``. No other module keeps a table of ops.

Entries are declared by the family modules (``elementwise.py``, ``reduction.py``, ...) with
:func:`defop`; ``graphcell_ir.ops`` imports them all and then freezes the registry. After that, the
one extension point is :func:`register_custom_op`.

Example::

    >>> from graphcell_ir.ops import REGISTRY
    >>> add = REGISTRY["add"]
    >>> add.kind, add.ms_name, add.operands
    (<Kind.ELEMENTWISE: 'elementwise'>, 'Add', ('x', 'y'))
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, Callable

import numpy as np

from graphcell_ir.errors import AttrError, OpError, OpTypeError, RegistryError
from graphcell_ir.ir.types import DType, ObjectType, ScalarType, TensorType, to_dtype


class Kind(Enum):
    """What an op does to memory; fusion, DCE and CSE decide on this alone."""

    ELEMENTWISE = "elementwise"
    REDUCTION = "reduction"
    CONTRACTION = "contraction"
    LAYOUT = "layout"
    OPAQUE = "opaque"
    SIDE_EFFECT = "side_effect"


class Trait(Enum):
    COMMUTATIVE = "commutative"
    ASSOCIATIVE = "associative"
    IDEMPOTENT = "idempotent"
    RANDOM = "random"  # draws from the seeded generator: never folded or merged by CSE
    EXTERNAL = "external"  # acts outside the program (host callbacks, collectives): runs exactly
                           # once per call, so a failed compiled call is not rerun


class AttrKind(Enum):
    """The type of a static attribute; ``check`` normalises a Python value or raises AttrError."""

    INT = "int"
    FLOAT = "float"          # accepts ints too; stored as float
    BOOL = "bool"
    STR = "str"
    DTYPE = "dtype"
    INTS = "ints"            # tuple of ints (a list is accepted)
    OPT_INTS = "opt_ints"    # None, an int (taken as a 1-tuple) or a tuple of ints
    SCALAR = "scalar"        # a Python bool, int or float
    INDEX = "index"          # a static index: tuple of int | slice | None | Ellipsis
    ANY = "any"              # an opaque Python object (host callbacks); never printed as a literal
    TYPES = "types"          # tuple of value types (a host call's results); DType: a scalar type

    def check(self, name: str, value):
        ok, norm = _CHECKS[self](value)
        if not ok:
            raise AttrError(f"attribute {name!r} expects {self.value}, got {value!r}")
        return norm


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _ints(v):
    if isinstance(v, (list, tuple)) and all(_is_int(e) for e in v):
        return True, tuple(int(e) for e in v)
    return False, None


def _opt_ints(v):
    if v is None:
        return True, None
    if _is_int(v):
        return True, (int(v),)
    return _ints(v)


def _dtype(v):
    try:
        return True, to_dtype(v)
    except TypeError:
        return False, None


def _types(v):
    if not isinstance(v, (list, tuple)):
        return False, None
    out = []
    for t in v:
        if isinstance(t, DType):
            t = ScalarType(t)
        if not isinstance(t, (TensorType, ScalarType, ObjectType)):
            return False, None
        out.append(t)
    return True, tuple(out)


def _index(v):
    items = v if isinstance(v, tuple) else (v,)
    for e in items:
        if not (e is None or e is Ellipsis or _is_int(e) or isinstance(e, slice)):
            return False, None
    return True, tuple(int(e) if _is_int(e) else e for e in items)


_CHECKS: dict[AttrKind, Callable[[Any], tuple[bool, Any]]] = {
    AttrKind.INT: lambda v: (True, int(v)) if _is_int(v) else (False, None),
    AttrKind.FLOAT: lambda v: ((True, float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool)
                               else (False, None)),
    AttrKind.BOOL: lambda v: (True, bool(v)) if isinstance(v, bool) else (False, None),
    AttrKind.STR: lambda v: (True, v) if isinstance(v, str) else (False, None),
    AttrKind.DTYPE: _dtype,
    AttrKind.INTS: _ints,
    AttrKind.OPT_INTS: _opt_ints,
    AttrKind.SCALAR: lambda v: (True, v) if isinstance(v, (bool, int, float)) else (False, None),
    AttrKind.INDEX: _index,
    AttrKind.ANY: lambda v: (True, v),
    AttrKind.TYPES: lambda v: _types(v),
}

_REQUIRED = object()


@dataclass(frozen=True)
class Attr:
    """A typed static attribute of an op, with a default (``required`` when it has none)."""

    name: str
    kind: AttrKind
    default: Any = _REQUIRED

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED


def attr(name: str, kind: AttrKind | str, default: Any = _REQUIRED) -> Attr:
    return Attr(name, AttrKind(kind) if isinstance(kind, str) else kind, default)


class _NonDiff:
    """Marker for ops that have no gradient; an explicit choice, never a missing rule."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NONDIFF"


NONDIFF = _NonDiff()

InferFn = Callable[..., Any]     # (*operand types, **attrs) -> Type | tuple[Type, ...]
RefFn = Callable[..., Any]       # (*numpy values, **attrs) -> ndarray | tuple[ndarray, ...]
BpropFn = Callable[..., Any]     # (*inputs, out, dout, **attrs) -> tuple of input gradients


@dataclass(frozen=True, eq=False)
class OpDef:
    """Everything graphcell knows about one primitive.

    ``operands`` names the runtime inputs (``"*xs"`` for a variadic tail); ``attrs`` are static.
    ``infer`` maps operand types (and attrs) to the result type, or a tuple of types for an op
    with several results; ``ref`` is the numpy reference and must agree with ``infer`` (a
    registry meta-test checks this for every entry). ``bprop`` is a vjp rule written against
    ``graphcell_ir.ops.functional`` or ``NONDIFF``. ``kernel`` is the scalar template of an
    elementwise op; ``kernel_f32``, where given, its template for float32 operands and result
    (an approximant that float32's precision lets be shorter: :meth:`template`). ``ms_name`` is MindSpore's Primitive name; ``prim_init`` lists the attrs a
    MindSpore Primitive takes in its constructor (the others follow the operands in its call).
    ``mutates`` lists the operands whose variable (a Parameter) takes the op's result, as
    ``assign`` does: PyNative writes it at once, graph mode threads it back as an extra result.
    ``ref_into`` is ``ref`` writing the result into operand 0's array and returning it, for an op
    whose result is operand 0 updated (the scatters): the executable uses it where it owns that
    array, a buffer a loop carries from step to step, so a step costs its update, not a copy.
    ``cost`` estimates the op's FLOPs from its types (``graphcell_ir.ops.cost``); None means
    what the ``kind`` implies. ``specialize(types, attrs, into)`` returns ``ref`` (``ref_into``
    when ``into``) for operands of exactly these static types, its checks and shape work done
    once, or None where it has no faster form: compiled runners call it in loops, where the
    references' per-call work (resolving shapes, checking indices) costs more than the copy.
    """

    name: str
    operands: tuple[str, ...]
    kind: Kind
    infer: InferFn
    ref: RefFn
    bprop: BpropFn | _NonDiff
    attrs: tuple[Attr, ...] = ()
    kernel: str | None = None
    kernel_f32: str | None = None
    traits: frozenset[Trait] = frozenset()
    ms_name: str = ""
    prim_init: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    mutates: tuple[int, ...] = ()
    doc: str = ""
    ref_into: RefFn | None = None
    cost: Callable[..., int] | None = None
    specialize: Callable[..., RefFn | None] | None = None
    attr_index: MappingProxyType = field(init=False, repr=False)
    bprop_takes_needs: bool = field(init=False, repr=False)
    operand_count: int | None = field(init=False, repr=False)
    default_attrs: MappingProxyType | None = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "attr_index", MappingProxyType({a.name: a for a in self.attrs}))
        # A rule may declare a keyword ``needs`` (one bool per operand) to skip gradients nobody
        # asked for, as JAX's transpose rules see which inputs are undefined primals. Callers
        # that cannot tell (IR autodiff, which removes unused ops afterwards) leave it out.
        takes = callable(self.bprop) and "needs" in inspect.signature(self.bprop).parameters
        object.__setattr__(self, "bprop_takes_needs", takes)
        # What a call with only its operands needs, computed once (``functional.bind``'s fast
        # path): the operand count (None: variadic), the complete attrs (None: one is required).
        object.__setattr__(self, "operand_count", None if self.variadic else len(self.operands))
        defaults = None if any(a.required for a in self.attrs) else \
            MappingProxyType({a.name: a.default for a in self.attrs})
        object.__setattr__(self, "default_attrs", defaults)

    def template(self, float32: bool) -> str | None:
        """The scalar template of the op computing in float32 (``float32``) or another dtype."""
        return self.kernel_f32 if float32 and self.kernel_f32 is not None else self.kernel

    @property
    def display_name(self) -> str:
        """How messages name the op: MindSpore's name when it has one."""
        return self.ms_name or self.name

    @property
    def variadic(self) -> bool:
        return bool(self.operands) and self.operands[-1].startswith("*")

    @property
    def differentiable(self) -> bool:
        return self.bprop is not NONDIFF

    def has(self, trait: Trait) -> bool:
        return trait in self.traits

    def check_attrs(self, attrs: dict) -> dict:
        """Validate and complete ``attrs``: unknown names and bad types raise AttrError."""
        unknown = set(attrs) - set(self.attr_index)
        if unknown:
            expected = ", ".join(self.attr_index) or "none"
            raise AttrError(f"{self.display_name}: unknown attribute(s) {', '.join(sorted(unknown))}; "
                            f"it takes {expected}", self)
        out = {}
        for a in self.attrs:
            if a.name in attrs:
                try:
                    out[a.name] = a.kind.check(a.name, attrs[a.name])
                except AttrError as e:
                    raise e.with_op(self) from None
            elif a.required:
                raise AttrError(f"{self.display_name}: missing attribute {a.name!r}", self)
            else:
                out[a.name] = a.default
        return out

    def infer_types(self, *operand_types, **attrs):
        """``infer`` with the op's name put in front of any error it raises."""
        self._check_arity(len(operand_types))
        try:
            return self.infer(*operand_types, **attrs)
        except OpError as e:
            raise e.with_op(self) from None

    def _check_arity(self, n: int) -> None:
        if n == self.operand_count:
            return
        fixed = len(self.operands) - self.variadic
        if n < fixed or (n > fixed and not self.variadic):
            want = f"at least {fixed}" if self.variadic else str(fixed)
            raise OpTypeError(f"{self.display_name}: expected {want} operand(s) "
                              f"({', '.join(self.operands)}), got {n}", self)

    def __repr__(self) -> str:
        return f"<OpDef {self.name}>"


# --- the registry itself ----------------------------------------------------------------------

_entries: dict[str, OpDef] = {}
_frozen = False

REGISTRY: MappingProxyType = MappingProxyType(_entries)
"""Name -> OpDef, read-only. Aliases are not keys; see :func:`lookup`."""


def defop(name: str, operands: tuple[str, ...] | list[str], *, kind: Kind, infer: InferFn,
          ref: RefFn, bprop: BpropFn | _NonDiff, attrs=(), kernel: str | None = None,
          kernel_f32: str | None = None, traits=(), ms_name: str = "", prim_init=(), aliases=(),
          mutates=(), doc: str = "", ref_into: RefFn | None = None,
          cost: Callable[..., int] | None = None,
          specialize: Callable[..., RefFn | None] | None = None) -> OpDef:
    """Declare a primitive. Only the family modules call this, at import time."""
    if _frozen:
        raise RegistryError(f"cannot declare op {name!r}: the registry is frozen; "
                            "use register_custom_op for user ops")
    op = OpDef(name=name, operands=tuple(operands), kind=kind, infer=infer, ref=ref, bprop=bprop,
               attrs=tuple(attrs), kernel=kernel, kernel_f32=kernel_f32,
               traits=frozenset(traits), ms_name=ms_name, prim_init=tuple(prim_init),
               aliases=tuple(aliases), mutates=tuple(mutates), doc=doc, ref_into=ref_into,
               cost=cost, specialize=specialize)
    _add(op)
    return op


def _add(op: OpDef) -> None:
    if op.bprop is None:
        raise RegistryError(f"op {op.name!r} has bprop=None: give a rule or NONDIFF explicitly")
    for key in (op.name, *op.aliases):
        if key in _entries or key in _aliases:
            raise RegistryError(f"duplicate op name {key!r}")
    _entries[op.name] = op
    for a in op.aliases:
        _aliases[a] = op


_aliases: dict[str, OpDef] = {}


def freeze() -> None:
    """Called once by ``graphcell_ir.ops`` after every family module has declared its ops."""
    global _frozen
    _frozen = True


def register_custom_op(op: OpDef) -> OpDef:
    """The one documented way to add an op after import (user custom ops).

    Example::

        my_op = register_custom_op(OpDef("my_square", ("x",), Kind.ELEMENTWISE,
                                         infer=same_as_input, ref=np.square, bprop=NONDIFF))
    """
    if not isinstance(op, OpDef):
        raise RegistryError(f"register_custom_op expects an OpDef, got {type(op).__name__}")
    _add(op)
    return op


def lookup(name: str) -> OpDef:
    """The OpDef called ``name`` (or one of its aliases); KeyError names close matches."""
    op = _entries.get(name) or _aliases.get(name)
    if op is None:
        import difflib
        close = difflib.get_close_matches(name, list(_entries) + list(_aliases), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"no op named {name!r} in the registry{hint}")
    return op


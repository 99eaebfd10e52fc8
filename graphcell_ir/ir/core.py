"""The IR's data structures: values with use lists, ops, blocks, regions, functions, modules.

Nodes have identity semantics (no ``__eq__``): two structurally equal ops are still two ops; use
:func:`graphcell_ir.ir.walk.structurally_equal` to compare shapes of IR. Names are chosen only
when printing; ``Value.name_hint`` carries the user's variable name for the printer.

- ``Value``: has a ``.type`` (``.shape``/``.dtype`` shortcuts, so bprop rules written against the
  functional API run on IR values) and a use list ``uses`` (op -> number of operand slots).
  Kinds: ``OpResult``, ``BlockArg`` (function arguments, loop-carried values), ``Literal`` (a
  Python scalar or None written inline as an operand, ``0.0:f32``).
- ``Op``: ``opdef`` (an ``OpDef``, never a string), operands, results, static ``attrs``
  (validated by ``opdef.check_attrs`` and read-only), ``regions`` and a ``loc``.
- ``Block``: an ordered, doubly linked list of ops (insert and erase are O(1)) plus block args.
- ``Region``: one block owned by an op (``if`` branches, ``while`` cond and body). Structured
  control flow needs no control-flow graph, so a region holds exactly one block.
- ``Function``: arguments (parameters are flagged), a body block ending in ``return``, declared
  result types and a small attribute dict (``{"backward_of": "Net.construct"}``).
- ``Module``: functions by name, and the side table of large constants (``consts/N``).

Create ops through :class:`graphcell_ir.ir.builder.Builder`, which types every result with the
op's shape rule. Example::

    >>> from graphcell_ir.ir import Builder, Function, Module, TensorType, float32
    >>> fn = Function("f"); x = fn.add_arg(TensorType(float32, (3,)), "x")
    >>> b = Builder.at_end(fn.body)
    >>> y = b.op("neg", x); _ = b.return_(y)
    >>> x.users[0].opdef.name, y.shape
    ('neg', (3,))
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Callable, Iterator, Sequence

import numpy as np

from graphcell_ir.errors import IRError
from graphcell_ir.ir.loc import UNKNOWN, Loc
from graphcell_ir.ir.types import (NONE, DType, ScalarType, Type, bool_, float32, int64)


# --- values ------------------------------------------------------------------------------------

class Value:
    """An SSA value: a type, an optional name hint for the printer, and its uses."""

    __slots__ = ("type", "name_hint", "uses")
    is_literal = False   # a Literal: a per-use constant with no defining op (the printer asks)

    def __init__(self, type: Type, name_hint: str | None = None):
        self.type = type
        self.name_hint = name_hint
        self.uses: dict[Op, int] = {}   # user op -> how many of its operand slots hold this value

    @property
    def shape(self) -> tuple[int, ...]:
        return self.type.shape

    @property
    def dtype(self) -> DType:
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return len(self.type.shape)

    @property
    def users(self) -> list[Op]:
        """The ops that use this value, in the order they started using it."""
        return list(self.uses)

    def has_uses(self) -> bool:
        return bool(self.uses)

    def replace_all_uses_with(self, new: Value, where: Callable[[Op], bool] | None = None) -> None:
        """Make every user (or those for which ``where(op)`` holds) use ``new`` instead."""
        if new is self:
            return
        for op in list(self.uses):
            if where is None or where(op):
                op._swap_operand(self, new)

    def __repr__(self) -> str:
        hint = f" {self.name_hint!r}" if self.name_hint else ""
        return f"<{type(self).__name__}{hint}: {self.type}>"


class OpResult(Value):
    """Result number ``index`` of ``op``."""

    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: Op, index: int, name_hint: str | None = None):
        super().__init__(type, name_hint)
        self.op = op
        self.index = index


class BlockArg(Value):
    """Argument number ``index`` of ``block``; ``param`` marks a function argument that is a
    network parameter (its qualified name is the name hint, ``fc.weight``)."""

    __slots__ = ("block", "index", "param")

    def __init__(self, type: Type, block: Block, index: int, name_hint: str | None = None,
                 param: bool = False):
        super().__init__(type, name_hint)
        self.block = block
        self.index = index
        self.param = param


def literal_type(value) -> Type:
    """The type a Python literal operand gets: ``bool``, ``i64``, ``f32`` or ``none``."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return ScalarType(bool_)
    if isinstance(value, int):
        return ScalarType(int64)
    if isinstance(value, float):
        return ScalarType(float32)
    raise IRError(f"a literal operand must be a Python bool, int, float or None, got "
                  f"{type(value).__name__}")


def _normalize_literal(value, t: Type):
    if t == NONE:
        if value is not None:
            raise IRError(f"literal {value!r} cannot have type none")
        return None
    if not isinstance(t, ScalarType) or not isinstance(value, (bool, int, float)):
        raise IRError(f"literal {value!r} of type {t} must be a Python scalar of a scalar type")
    d = t.dtype
    if d.is_float:
        return float(value)
    if d.is_bool:
        if not isinstance(value, bool):
            raise IRError(f"literal {value!r} cannot have type bool")
        return value
    if isinstance(value, float) and not value.is_integer():
        raise IRError(f"literal {value!r} cannot have integer type {t}")
    return int(value)


class Literal(Value):
    """A Python scalar (or None) used directly as an operand; printed inline as ``0.0:f32``.

    Each use site gets its own ``Literal`` object; it has no defining op.
    """

    __slots__ = ("value",)
    is_literal = True

    def __init__(self, value, type: Type | None = None):
        type = literal_type(value) if type is None else type
        super().__init__(type)
        self.value = _normalize_literal(value, type)

    def __repr__(self) -> str:
        return f"<Literal {self.value!r}:{self.type}>"


# --- ops ---------------------------------------------------------------------------------------

class Op:
    """One operation. Build ops with a ``Builder``; this constructor does no type inference.

    ``attrs`` is validated and completed by ``opdef.check_attrs`` and stored read-only; change it
    with :meth:`set_attrs`. ``operands`` is a tuple: change it with :meth:`set_operand` so use
    lists stay right.
    """

    __slots__ = ("opdef", "operands", "results", "attrs", "regions", "loc", "parent",
                 "_prev", "_next")

    def __init__(self, opdef, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
                 attrs: dict | None = None, regions: Sequence[Region] = (), loc: Loc = UNKNOWN):
        self.opdef = opdef
        self.attrs = MappingProxyType(opdef.check_attrs(dict(attrs) if attrs else {}))
        self.operands: tuple[Value, ...] = ()
        self.parent: Block | None = None
        self._prev: Op | None = None
        self._next: Op | None = None
        self.loc = loc
        self.results = tuple(OpResult(t, self, i) for i, t in enumerate(result_types))
        self.regions: tuple[Region, ...] = ()
        self.set_operands(operands)
        for r in regions:
            if r.parent is not None:
                raise IRError(f"{opdef.name}: region already belongs to {r.parent.opdef.name}")
            r.parent = self
        self.regions = tuple(regions)

    # -- reading --
    @property
    def name(self) -> str:
        return self.opdef.name

    @property
    def result(self) -> OpResult:
        """The one result of a single-result op."""
        if len(self.results) != 1:
            raise IRError(f"{self.opdef.name} has {len(self.results)} results, not one")
        return self.results[0]

    @property
    def is_terminator(self) -> bool:
        return getattr(self.opdef, "terminator", False)

    @property
    def prev_op(self) -> Op | None:
        return self._prev

    @property
    def next_op(self) -> Op | None:
        return self._next

    @property
    def parent_op(self) -> Op | None:
        """The op whose region holds this op (None at function level)."""
        return self.parent.parent_op if self.parent is not None else None

    @property
    def function(self) -> Function | None:
        return self.parent.function if self.parent is not None else None

    # -- operands and attrs --
    def set_operands(self, values: Sequence[Value]) -> None:
        for i, v in enumerate(values):
            if not isinstance(v, Value):
                raise IRError(f"{self.opdef.name}: operand {i} is a {type(v).__name__}, not an IR "
                              "Value (Builder turns Python numbers into literals)")
        for v in self.operands:
            _drop_use(v, self)
        for v in values:
            v.uses[self] = v.uses.get(self, 0) + 1
        self.operands = tuple(values)

    def set_operand(self, index: int, value: Value) -> None:
        ops = list(self.operands)
        ops[index] = value
        self.set_operands(ops)

    def _swap_operand(self, old: Value, new: Value) -> None:
        n = old.uses.pop(self)
        self.operands = tuple(new if v is old else v for v in self.operands)
        new.uses[self] = new.uses.get(self, 0) + n

    def set_attrs(self, **changes) -> None:
        """Change some attributes; the whole dict is validated again by the OpDef."""
        self.attrs = MappingProxyType(self.opdef.check_attrs({**self.attrs, **changes}))

    def set_result_types(self, types: Sequence[Type]) -> None:
        """Give a result-less op its results (builders of ``if``/``while`` type them last)."""
        if self.results:
            raise IRError(f"{self.opdef.name} already has results")
        self.results = tuple(OpResult(t, self, i) for i, t in enumerate(types))

    # -- mutation --
    def erase(self) -> None:
        """Remove this op (and everything in its regions) from the IR.

        Its results must be unused; its operands' use lists are updated. Erasing the op a
        ``for op in block`` loop is visiting is safe.
        """
        for r in self.results:
            if r.uses:
                users = ", ".join(sorted({u.opdef.name for u in r.uses}))
                raise IRError(f"cannot erase {self.opdef.name}: result {r.index} is still used by "
                              f"{users}; replace its uses first")
        self.drop_references()
        if self.parent is not None:
            self.parent._unlink(self)

    def drop_references(self) -> None:
        """Forget the operands of this op and of every op nested in its regions."""
        for v in self.operands:
            v.uses.pop(self, None)
        self.operands = ()
        for region in self.regions:
            for op in region.block:
                op.drop_references()

    def detach(self) -> Op:
        """Take the op out of its block, keeping operands and uses (to move it elsewhere)."""
        if self.parent is not None:
            self.parent._unlink(self)
        return self

    def move_before(self, anchor: Op) -> None:
        self.detach()
        anchor.parent.insert_before(anchor, self)

    def move_after(self, anchor: Op) -> None:
        self.detach()
        anchor.parent.insert_after(anchor, self)

    def __repr__(self) -> str:
        types = ", ".join(str(r.type) for r in self.results)
        where = f" at {self.loc}" if self.loc.known else ""
        return f"<Op {self.opdef.name} : ({types}){where}>"


def _drop_use(v: Value, op: Op) -> None:
    n = v.uses.get(op, 0)
    if n <= 1:
        v.uses.pop(op, None)
    else:
        v.uses[op] = n - 1


# --- blocks and regions ------------------------------------------------------------------------

class Block:
    """An ordered list of ops (doubly linked) and the block's arguments.

    Iterating visits ops in order; erasing the op being visited is safe. For other mutations
    while iterating, iterate over the snapshot ``block.ops``.
    """

    __slots__ = ("args", "parent", "_first", "_last", "_len")

    def __init__(self, arg_types: Sequence[Type] = (), arg_names: Sequence[str | None] = ()):
        self.args: list[BlockArg] = []
        self.parent: Region | Function | None = None
        self._first: Op | None = None
        self._last: Op | None = None
        self._len = 0
        names = list(arg_names) + [None] * (len(arg_types) - len(arg_names))
        for t, n in zip(arg_types, names):
            self.add_arg(t, n)

    def add_arg(self, type: Type, name_hint: str | None = None, *, param: bool = False) -> BlockArg:
        arg = BlockArg(type, self, len(self.args), name_hint, param)
        self.args.append(arg)
        return arg

    def erase_arg(self, index: int) -> None:
        """Remove argument ``index``, which must be unused."""
        arg = self.args[index]
        if arg.uses:
            raise IRError(f"cannot erase block argument {index}: it is still used")
        del self.args[index]
        for i, a in enumerate(self.args):
            a.index = i

    # -- reading --
    def __iter__(self) -> Iterator[Op]:
        op = self._first
        while op is not None:
            nxt = op._next
            yield op
            op = op._next if op.parent is self else nxt

    def __reversed__(self) -> Iterator[Op]:
        op = self._last
        while op is not None:
            prv = op._prev
            yield op
            op = op._prev if op.parent is self else prv

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return True

    @property
    def ops(self) -> list[Op]:
        """A snapshot list of the ops."""
        return list(self)

    @property
    def first(self) -> Op | None:
        return self._first

    @property
    def last(self) -> Op | None:
        return self._last

    @property
    def terminator(self) -> Op | None:
        """The last op when it is a terminator (``yield``/``return``)."""
        return self._last if self._last is not None and self._last.is_terminator else None

    @property
    def parent_op(self) -> Op | None:
        return self.parent.parent if isinstance(self.parent, Region) else None

    @property
    def function(self) -> Function | None:
        block = self
        while isinstance(block.parent, Region):
            op = block.parent.parent
            if op is None or op.parent is None:
                return None
            block = op.parent
        return block.parent if isinstance(block.parent, Function) else None

    # -- mutation --
    def append(self, op: Op) -> Op:
        return self._link(op, self._last, None)

    def prepend(self, op: Op) -> Op:
        return self._link(op, None, self._first)

    def insert_before(self, anchor: Op, op: Op) -> Op:
        self._check_member(anchor)
        return self._link(op, anchor._prev, anchor)

    def insert_after(self, anchor: Op, op: Op) -> Op:
        self._check_member(anchor)
        return self._link(op, anchor, anchor._next)

    def _check_member(self, anchor: Op) -> None:
        if anchor.parent is not self:
            raise IRError(f"{anchor.opdef.name} is not in this block")

    def _link(self, op: Op, prev: Op | None, nxt: Op | None) -> Op:
        if op.parent is not None:
            raise IRError(f"{op.opdef.name} is already in a block; detach it first")
        op.parent, op._prev, op._next = self, prev, nxt
        if prev is None:
            self._first = op
        else:
            prev._next = op
        if nxt is None:
            self._last = op
        else:
            nxt._prev = op
        self._len += 1
        return op

    def _unlink(self, op: Op) -> None:
        prev, nxt = op._prev, op._next
        if prev is None:
            self._first = nxt
        else:
            prev._next = nxt
        if nxt is None:
            self._last = prev
        else:
            nxt._prev = prev
        op.parent = op._prev = op._next = None
        self._len -= 1

    def __repr__(self) -> str:
        return f"<Block: {len(self.args)} args, {self._len} ops>"


class Region:
    """The single block an op owns (a branch of ``if``, the cond or body of ``while``)."""

    __slots__ = ("block", "parent")

    def __init__(self, block: Block | None = None):
        self.block = block if block is not None else Block()
        if self.block.parent is not None:
            raise IRError("block already belongs to a region or function")
        self.block.parent = self
        self.parent: Op | None = None

    def __repr__(self) -> str:
        return f"<Region of {self.parent.opdef.name if self.parent else 'nothing'}>"


# --- functions and modules ---------------------------------------------------------------------

class Function:
    """A named function: typed arguments (some flagged ``param``), one body block ending in
    ``return``, declared ``result_types``, and ``attrs``: a small dict of plain values (str, int,
    float, bool, None, tuples of them) such as ``{"backward_of": "Net.construct"}``."""

    __slots__ = ("name", "body", "result_types", "attrs", "module")

    def __init__(self, name: str, result_types: Sequence[Type] | None = None,
                 attrs: dict | None = None):
        self.name = name
        self.body = Block()
        self.body.parent = self
        self.result_types: tuple[Type, ...] | None = (tuple(result_types)
                                                      if result_types is not None else None)
        self.attrs: dict = dict(attrs or {})
        self.module: Module | None = None

    @property
    def args(self) -> list[BlockArg]:
        return self.body.args

    @property
    def params(self) -> list[BlockArg]:
        return [a for a in self.body.args if a.param]

    def add_arg(self, type: Type, name: str | None = None, *, param: bool = False) -> BlockArg:
        """Append an argument; ``param=True`` for network parameters (``name`` is qualified)."""
        return self.body.add_arg(type, name, param=param)

    @property
    def return_op(self) -> Op | None:
        return self.body.terminator

    def __str__(self) -> str:
        from graphcell_ir.text.printer import print_function
        return print_function(self)

    def __repr__(self) -> str:
        return f"<Function @{self.name}: {len(self.args)} args, {len(self.body)} ops>"


class Module:
    """Functions by name (in insertion order) and the table of large constants.

    ``consts`` maps keys such as ``"consts/0"`` to arrays; ``const`` ops refer to them with
    ``{ref="consts/0"}``, and an export writes the table next to the text (``.npz``).
    """

    __slots__ = ("functions", "consts")

    def __init__(self, functions: Sequence[Function] = ()):
        self.functions: dict[str, Function] = {}
        self.consts: dict[str, np.ndarray] = {}
        for fn in functions:
            self.add(fn)

    def add(self, fn: Function) -> Function:
        if fn.name in self.functions:
            raise IRError(f"module already has a function named @{fn.name}")
        if fn.module is not None:
            raise IRError(f"@{fn.name} already belongs to a module")
        self.functions[fn.name] = fn
        fn.module = self
        return fn

    def remove(self, name: str) -> Function:
        fn = self.functions.pop(name)
        fn.module = None
        return fn

    def add_const(self, array: np.ndarray) -> str:
        """Put ``array`` in the constant table; returns its key (``consts/N``)."""
        n = len(self.consts)
        while f"consts/{n}" in self.consts:
            n += 1
        key = f"consts/{n}"
        self.consts[key] = array
        return key

    def __getitem__(self, name: str) -> Function:
        try:
            return self.functions[name]
        except KeyError:
            have = ", ".join("@" + n for n in self.functions) or "none"
            raise KeyError(f"no function @{name} in the module (it has {have})") from None

    def get(self, name: str) -> Function | None:
        return self.functions.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self.functions

    def __iter__(self) -> Iterator[Function]:
        return iter(list(self.functions.values()))

    def __len__(self) -> int:
        return len(self.functions)

    def __str__(self) -> str:
        from graphcell_ir.text.printer import print_module
        return print_module(self)

    def __repr__(self) -> str:
        return f"<Module: {', '.join('@' + n for n in self.functions)}>"

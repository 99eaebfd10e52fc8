"""The IR verifier: ``verify(module)`` returns None or raises ``IRVerifyError``.

What it checks, per function:

- **SSA and scoping**: every operand is defined before its use, in the op's block or an enclosing
  one (a value defined inside a region is visible only in that region, after its definition);
  use lists, parent links and result/argument indices are consistent.
- **Types**: a primitive's result types equal what its OpDef's shape rule infers from the operand
  types and attributes, and its attributes are complete; structural ops pass their own check
  (``if``/``while`` region yields match the op's results and carried values, ``call`` matches the
  callee's signature, ``return`` matches the function's declared result types, ...).
- **Well-formed types**: every result type is a tensor (with non-negative dimensions), scalar,
  tuple or none type.
- **Blocks**: every block ends with its terminator (``return`` in a function body, ``yield`` in a
  region) and a terminator is only ever last.
- **Side effects**: the results of an op that writes a variable (``opdef.mutates``: ``assign``)
  are used; an unused one would mean the parameter update is lost. Other side-effecting ops (a
  host callback) act when they run: passes keep them whether or not their results are used.
- **Locations**: every op has a ``Loc``. With ``require_locs=True`` no op but a terminator may have
  the unknown location; by default (``None``) that is required only of functions where some op
  has a location, so text printed with ``locs="none"`` verifies while a pass that forgot to set
  locations in located IR does not.

The error names the op, its location and the problem, and shows the printed function from ten
lines before to ten after the bad op, marked with ``>>``. Example::

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module('''func @f(%x: f32[2]) -> f32[3] {
    ...   %0 = neg(%x) : f32[3]
    ...   return %0
    ... }
    ... ''')
    >>> try:
    ...     verify(m)
    ... except IRVerifyError as e:
    ...     print(str(e).splitlines()[0])
    in @f: op 'neg': result 0 has type f32[3] but Neg's shape rule gives f32[2]
"""
from __future__ import annotations

from graphcell_ir.errors import IRVerifyError, OpError
from graphcell_ir.ir.core import Block, BlockArg, Function, Literal, Module, Op, OpResult, Value
from graphcell_ir.ir.loc import Loc
from graphcell_ir.ir.structural import RETURN, YIELD, StructuralOpDef
from graphcell_ir.ir.types import type_problem
from graphcell_ir.ops.registry import Kind, OpDef

CONTEXT_LINES = 10


def verify(target: Module | Function, *, require_locs: bool | None = None) -> None:
    """Check ``target`` (a Module, or one Function) and raise IRVerifyError at the first problem."""
    fns = list(target) if isinstance(target, Module) else [target]
    for fn in fns:
        _FunctionVerifier(fn, require_locs).run()


class _FunctionVerifier:
    def __init__(self, fn: Function, require_locs: bool | None):
        self.fn = fn
        self.require_locs = require_locs
        self.in_scope: set[Value] = set()
        self.seen: set[Value] = set()

    # -- reporting --
    def fail(self, op: Op | None, message: str):
        raise IRVerifyError(format_error(self.fn, op, message), op, self.fn)

    def name(self, v: Value) -> str:
        from graphcell_ir.text.printer import Printer, name_values
        try:
            names = name_values(self.fn)
        except Exception:  # naming malformed IR must not hide the real problem
            names = {}
        return Printer().operand(v, names)

    # -- walking --
    def run(self) -> None:
        fn = self.fn
        if fn.body.parent is not fn:
            self.fail(None, "the body block does not point back to the function")
        if self.require_locs is None:
            self.require_locs = _has_locations(fn.body)
        self.block(fn.body, None)
        if fn.body.terminator is None or fn.body.terminator.opdef is not RETURN:
            self.fail(fn.body.last, f"@{fn.name} does not end with return")

    def block(self, block: Block, owner: Op | None) -> None:
        added: list[Value] = []
        for i, a in enumerate(block.args):
            if not isinstance(a, BlockArg) or a.block is not block or a.index != i:
                self.fail(owner, f"block argument {i} has a wrong owner or index")
            added.append(a)
        self.in_scope.update(added)
        self.seen.update(added)
        for op in block:
            if op.parent is not block:
                self.fail(op, "its parent link does not point to the block holding it")
            self.op(op, block)
            self.in_scope.update(op.results)
            self.seen.update(op.results)
            added.extend(op.results)
        if owner is not None:
            self.in_scope.difference_update(added)
            term = block.terminator
            if term is None or term.opdef is not YIELD:
                i = owner.regions.index(block.parent)
                label = getattr(owner.opdef, "region_names", ())[i:i + 1] or ("",)
                self.fail(owner, f"region {i} ({label[0]}) does not end with yield")

    def op(self, op: Op, block: Block) -> None:
        opdef = op.opdef
        if not isinstance(opdef, OpDef):
            self.fail(op, f"its opdef is a {type(opdef).__name__}, not an OpDef")
        if op.is_terminator and op is not block.last:
            self.fail(op, f"{opdef.name} must be the last op of its block")
        self.operands(op)
        for i, r in enumerate(op.results):
            if not isinstance(r, OpResult) or r.op is not op or r.index != i:
                self.fail(op, f"result {i} has a wrong owner or index")
            problem = type_problem(r.type)
            if problem:
                self.fail(op, f"result {i} has a malformed type: {problem}")
        self.regions(op)
        self.types(op)
        self.effects(op)
        if not isinstance(op.loc, Loc):
            self.fail(op, f"its location is a {type(op.loc).__name__}, not a Loc")
        if self.require_locs and not op.loc.known and not op.is_terminator:
            self.fail(op, "it has no source location (ops created by passes take the location "
                          "of the op they replace)")

    def operands(self, op: Op) -> None:
        for i, v in enumerate(op.operands):
            if isinstance(v, Literal):
                pass
            elif v not in self.in_scope:
                self.fail(op, f"operand {i} ({self.name(v)}) {self.why_not_visible(v)}")
            if op.operands.count(v) != v.uses.get(op, 0):
                self.fail(op, f"the use list of operand {i} ({self.name(v)}) is out of date")

    def why_not_visible(self, v: Value) -> str:
        if v in self.seen:
            return "is defined inside a region that does not enclose this op"
        owner = v.op.function if isinstance(v, OpResult) else \
            v.block.function if isinstance(v, BlockArg) else None
        if owner is self.fn:
            return "is used before it is defined"
        return "is not defined in this function"

    def regions(self, op: Op) -> None:
        labels = getattr(op.opdef, "region_names", ())
        if len(op.regions) != len(labels):
            self.fail(op, f"{op.opdef.name} takes {len(labels)} region(s), has {len(op.regions)}")
        for region in op.regions:
            if region.parent is not op or region.block.parent is not region:
                self.fail(op, "a region's parent links are wrong")
            self.block(region.block, op)

    def types(self, op: Op) -> None:
        opdef = op.opdef
        if isinstance(opdef, StructuralOpDef):
            problem = opdef.check(op) if opdef.check is not None else None
            if problem:
                self.fail(op, problem)
            return
        if len(op.attrs) != len(opdef.attr_index) or any(k not in opdef.attr_index for k in op.attrs):
            self.fail(op, f"its attributes {sorted(op.attrs)} are not those of {opdef.name} "
                          f"({sorted(opdef.attr_index)})")
        try:
            inferred = opdef.infer_types(*[v.type for v in op.operands], **op.attrs)
        except OpError as e:
            self.fail(op, f"its operands do not fit: {e}")
        except Exception as e:  # a shape rule crashing is still this op's problem to report
            self.fail(op, f"type inference failed with {type(e).__name__}: {e}")
        expected = inferred if isinstance(inferred, tuple) else (inferred,)
        if len(expected) != len(op.results):
            self.fail(op, f"it has {len(op.results)} result(s) but {opdef.display_name}'s shape "
                          f"rule gives {len(expected)}")
        for i, (r, t) in enumerate(zip(op.results, expected)):
            if r.type != t:
                self.fail(op, f"result {i} has type {r.type} but {opdef.display_name}'s shape rule "
                              f"gives {t}")

    def effects(self, op: Op) -> None:
        if op.opdef.mutates and not op.is_terminator:
            for i, r in enumerate(op.results):
                if not r.uses:
                    self.fail(op, f"result {i} of the side-effecting {op.opdef.name} is never "
                                  "used, so its effect would be lost; thread it to the results")


def _has_locations(block: Block) -> bool:
    for op in block:
        if op.loc.known and not op.is_terminator:
            return True
        for r in op.regions:
            if _has_locations(r.block):
                return True
    return False


def format_error(fn: Function, op: Op | None, message: str) -> str:
    """``in @f: op 'add' (at net.py:9:4 Net.construct): <message>`` and the marked neighbourhood."""
    where = ""
    if op is not None:
        loc = op.loc if isinstance(op.loc, Loc) else None
        at = f" (at {loc})" if loc is not None and loc.known else ""
        where = f"op '{op.opdef.name}'{at}: "
    head = f"in @{fn.name}: {where}{message}"
    excerpt = _excerpt(fn, op)
    return head + ("\n" + excerpt if excerpt else "")


def _excerpt(fn: Function, op: Op | None) -> str:
    from graphcell_ir.text.printer import Printer
    try:
        lines, where, _ = Printer().function_lines(fn)
    except Exception:  # printing malformed IR must not hide the real problem
        return ""
    mark = where.get(op) if op is not None else None
    if mark is None:
        return ""
    lo, hi = max(0, mark - CONTEXT_LINES), min(len(lines), mark + CONTEXT_LINES + 1)
    out = ["   ..."] if lo > 0 else []
    out += [(">> " if i == mark else "   ") + lines[i] for i in range(lo, hi)]
    if hi < len(lines):
        out.append("   ...")
    return "\n".join(out)

"""``inline``: replace each ``call`` by a copy of the callee's body.

The frontend leaves calls for helper functions and bprop graphs; fusion and the other passes see
more once the body is in place. Each copied op's location gets the call site's chain
(``Loc.inlined_at``: ``net.py:9:16 Net.construct>Dense.construct``), so messages and dumps still
point at the user's line inside the helper and say how it was reached. Calls made by the copied
body are inlined in turn.

Not inlined: calls into a recursive cycle of functions (inlining would never end), calls to a
function the module does not have (the verifier reports those), and calls that ignore a result
through which the callee hands back a side effect's result (inlined, the effect's result would
be unused, which the verifier rejects; the frontend threads such results, so this is rare).
Callee functions stay in the module even when no call is left: which functions are entry
points is the caller's business.

Precondition: valid IR. Postcondition: valid IR with the same values and effects, in the same
order; no ``call`` left except recursive ones.
"""
from __future__ import annotations

from typing import Callable

from graphcell_ir.ir.core import Block, Function, Module, Op, OpResult
from graphcell_ir.ir.loc import Loc
from graphcell_ir.ir.structural import CALL
from graphcell_ir.ir.walk import Cloner, walk
from graphcell_ir.ops.registry import Kind
from graphcell_ir.passes.support import replace_value


def inline(target: Module | Function) -> bool:
    """Inline calls in every function of a Module, or in one Function (of a module)."""
    fns = list(target) if isinstance(target, Module) else [target]
    changed = False
    for fn in fns:
        changed |= _inline_in(fn)
    return changed


def _inline_in(fn: Function) -> bool:
    module = fn.module
    if module is None:
        return False
    changed = False
    worklist = [op for op in walk(fn) if op.opdef is CALL]
    while worklist:
        call = worklist.pop()
        callee = module.get(call.attrs["callee"])
        if callee is None or _recursive(module, callee) or _would_drop_effect(call, callee):
            continue
        worklist.extend(op for op in inline_call(call, callee) if op.opdef is CALL)
        changed = True
    return changed


def inline_call(call: Op, callee: Function) -> list[Op]:
    """Put a copy of ``callee``'s body in place of ``call``, its locations inlined at the call
    site's; returns the copied ops."""
    site = call.loc
    return inline_block(call, callee.body, (lambda loc: loc.inlined_at(site)) if site.known
                        else None)


def inline_block(op: Op, body: Block, loc_of: Callable[[Loc], Loc] | None = None) -> list[Op]:
    """Replace ``op`` by a copy of ``body`` (a callee's, a ``fused`` op's own region) whose
    arguments are ``op``'s operands and whose terminator's values replace ``op``'s results;
    ``loc_of`` maps the copies' locations. Returns the copied ops (nested ones too).
    The one inliner: this pass, autodiff (``autodiff/inline.py``) and unfusing use it."""
    cloner = Cloner(dict(zip(body.args, op.operands)), loc_of)
    copies, results = cloner.body(body)
    for new in copies:
        op.parent.insert_before(op, new)
    copied = [inner for new in copies for inner in walk(new)]
    defined = {id(inner) for inner in copied}
    for r, v in zip(op.results, results):
        if isinstance(v, OpResult) and id(v.op) in defined and v.name_hint is None:
            v.name_hint = r.name_hint  # the caller's name for what the callee returns
        replace_value(r, v)
    op.erase()
    return copied


def _would_drop_effect(call: Op, callee: Function) -> bool:
    """Whether inlining would leave a side effect's result unused: the callee only returns it
    and the caller ignores that result (the verifier requires effect results to be used)."""
    ret = callee.return_op
    for i, v in enumerate(ret.operands):
        if isinstance(v, OpResult) and v.op.opdef.kind is Kind.SIDE_EFFECT \
                and set(v.uses) == {ret} \
                and not any(call.results[j].uses for j, w in enumerate(ret.operands) if w is v):
            return True
    return False


def _recursive(module: Module, fn: Function) -> bool:
    """Whether ``fn`` can reach a call of itself through the module's call graph."""
    seen: set[str] = set()
    stack = _callees(fn)
    while stack:
        name = stack.pop()
        if name == fn.name:
            return True
        if name in seen or name not in module:
            continue
        seen.add(name)
        stack.extend(_callees(module[name]))
    return False


def _callees(fn: Function) -> list[str]:
    return [op.attrs["callee"] for op in walk(fn) if op.opdef is CALL]

"""Inlining ``call`` ops (and expanding ``fused`` kernels) before differentiation, with the pass
pipeline's inliner (``passes/inline.py``).

The transform differentiates a callee by inlining it at each call site: the callee's ops then
take part in the caller's activity analysis, replay and backward like any others, and each call
site gets its own cotangents. Every inlined op's location gets the call site as its caller
(``Loc.inlined_at``), so backward code points at the user's line through the call chain.

A ``fused`` op (one kernel made by elementwise fusion) is expanded back into its body's ops, so
fused IR differentiates op by op too (the pipeline normally runs autodiff before fusion).

A call whose callee carries a ``bprop`` attribute (``func @Cell.construct(...) attributes
{bprop="Cell.bprop"}``) is kept: the custom bprop Function replaces differentiating the callee
(``custom.py``).

Example::

    >>> from graphcell_ir.text import parse_module, print_function
    >>> m = parse_module('''func @sq(%a: f32[2]) -> f32[2] {
    ...   %0 = mul(%a, %a) : f32[2]
    ...   return %0
    ... }
    ...
    ... func @f(%x: f32[2]) -> f32[2] {
    ...   %0 = call(%x) {callee="sq"} : f32[2]
    ...   return %0
    ... }
    ... ''')
    >>> print(print_function(inline_calls(m["f"], m)), end="")
    func @f(%x: f32[2]) -> f32[2] {
      %0 = mul(%x, %x) : f32[2]
      return %0
    }
"""
from __future__ import annotations

from graphcell_ir.errors import AutodiffError
from graphcell_ir.ir.builder import Builder
from graphcell_ir.ir.core import Function, Module, Op
from graphcell_ir.ir.structural import CALL, FUSED
from graphcell_ir.ir.walk import clone_function, walk
from graphcell_ir.passes.inline import inline_block, inline_call

MAX_ROUNDS = 64
"""Call nesting deeper than this is taken for recursion, which the IR cannot inline."""


def custom_bprop_name(callee: Function) -> str | None:
    """The name of the Function replacing ``callee``'s gradient, if it has one."""
    name = callee.attrs.get("bprop")
    return name if isinstance(name, str) else None


def callee_of(op: Op, module: Module) -> Function:
    name = op.attrs["callee"]
    callee = module.get(name)
    if callee is None:
        raise AutodiffError(f"a call of @{name} in the function is to a function not in the module")
    return callee


def inline_calls(fn: Function, module: Module) -> Function:
    """A copy of ``fn`` (not added to ``module``) whose calls are inlined, recursively, except
    those to callees with a custom bprop. When ``fn`` itself has one, the copy is a single call
    of ``fn``, so its gradient is its custom bprop too. The pass pipeline's inliner does the
    work (``passes/inline.py``)."""
    if custom_bprop_name(fn) is not None:
        return _calling(fn)
    out = clone_function(fn)
    for op in [op for op in walk(out) if op.opdef is FUSED]:
        inline_block(op, op.regions[0].block)
    for _ in range(MAX_ROUNDS):
        calls = [op for op in walk(out) if op.opdef is CALL
                 and custom_bprop_name(callee_of(op, module)) is None]
        if not calls:
            return out
        for op in calls:
            inline_call(op, callee_of(op, module))
    raise AutodiffError(f"@{fn.name}: calls nest deeper than {MAX_ROUNDS} levels; a recursive "
                        "function cannot be inlined for differentiation")


def _calling(fn: Function) -> Function:
    """``func @fn(args) { return call @fn(args) }``, at the location of ``fn``'s first op."""
    out = Function(fn.name, fn.result_types, fn.attrs)
    args = [out.add_arg(a.type, a.name_hint, param=a.param) for a in fn.args]
    first = next(iter(fn.body), None)
    b = Builder.at_end(out.body, first.loc if first is not None else fn.return_op.loc)
    op = Op(CALL, args, fn.result_types, {"callee": fn.name}, (), b.loc)
    b.insert(op)
    b.return_(*op.results)
    return out

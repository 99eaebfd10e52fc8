"""``break`` and ``continue`` in a ``while`` loop whose condition is a tensor, as flags.

An IR ``while`` has one exit, its condition. So the body of such a loop is rewritten (on the AST,
before it is compiled) the classic way: ``break`` and ``continue`` set flags, the statements a
jump may skip run under ``if not skip``, and the loop's condition becomes ``not brk and (test)``;
its ``else`` runs under ``if not brk``::

    while x.sum() < 10:                 brk = False
        x = x * 2                       while not brk and (x.sum() < 10):
        if x.max() > 3:        ->           skip = False
            break                           x = x * 2
        x = x + 1                           if x.max() > 3:
                                                skip = True; brk = True
                                            if not skip:
                                                x = x + 1

The flags start as bool tensors, so a branch setting one to ``True`` joins with the other
branch as any tensor variable does. An unrolled ``for`` gets the same treatment
(:func:`rewrite_for`), its iterations under ``if not brk``. Jumps inside nested loops belong to those
loops and are left alone. ``return`` in such a loop is not rewritten (it would need a carried
value of the function's result type) and stays an error.

Example::

    >>> import ast
    >>> loop = ast.parse("while c:\\n    if t:\\n        break\\n    y = 1\\n").body[0]
    >>> print(ast.unparse(rewrite(loop)))
    while not jump.break.1.0 and c:
        jump.skip.1.0 = jump.false
        if t:
            jump.skip.1.0 = True
            jump.break.1.0 = True
        if not jump.skip.1.0:
            y = 1
"""
from __future__ import annotations

import ast

from graphcell_ir.frontend.source import contains

FALSE = "jump.false"
"""The name bound to a ``False`` bool tensor (a while loop's flags start as tensors)."""


def flags(loop: ast.AST) -> tuple[str, str]:
    """The loop's (break, skip) flag names: not Python identifiers, so no variable of the user's
    can be one, and told apart by the loop's position, so nested loops keep their own."""
    at = f"{loop.lineno}.{loop.col_offset}"
    return f"jump.break.{at}", f"jump.skip.{at}"

_JUMPS = (ast.Break, ast.Continue)


def has_jumps(loop: ast.While) -> bool:
    """Whether ``break``/``continue`` leave this loop (not a loop nested in it)."""
    return contains(loop.body, _JUMPS, into_loops=False)


def rewrite(loop: ast.While) -> ast.While:
    """The loop without ``break``/``continue`` (see the module); ``loop`` is not changed. Its
    flags must be bound before it runs (to :data:`FALSE`'s tensor)."""
    brk, skip = flags(loop)
    test = ast.BoolOp(ast.And(), [_not(brk, loop.test), loop.test])
    body = [_assign(skip, ast.Name(FALSE, ast.Load()), loop)] + _body(loop.body, brk, skip)
    orelse = [ast.If(_not(brk, loop), loop.orelse, [])] if loop.orelse else []
    out = ast.While(test, body, orelse)
    ast.copy_location(out, loop)
    return ast.fix_missing_locations(out)


def rewrite_for(loop: ast.For) -> ast.For:
    """An unrolled ``for`` without ``break``/``continue``: each iteration runs under
    ``if not brk``, the same flags as :func:`rewrite` but starting as Python ``False`` (bind them
    before the loop). A jump decided while compiling keeps the flags static, so the loop unrolls
    exactly as before; one under a tensor condition makes them bool scalars and the rest of the
    loop ``if`` ops — one per iteration, where compiling the rest of the loop into both branches
    would double it at every jump."""
    brk, skip = flags(loop)
    guarded = ast.If(_not(brk, loop), [_assign(skip, ast.Constant(False), loop)]
                     + _body(loop.body, brk, skip), [])
    orelse = [ast.If(_not(brk, loop), loop.orelse, [])] if loop.orelse else []
    out = ast.For(loop.target, loop.iter, [ast.copy_location(guarded, loop)], orelse,
                  loop.type_comment)
    ast.copy_location(out, loop)
    return ast.fix_missing_locations(out)


def _body(stmts: list, brk: str, skip: str) -> list:
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, _JUMPS):
            out.append(_assign(skip, ast.Constant(True), s))
            if isinstance(s, ast.Break):
                out.append(_assign(brk, ast.Constant(True), s))
            return out   # what follows a jump never runs
        if isinstance(s, ast.If) and contains([s], _JUMPS, into_loops=False):
            out.append(ast.copy_location(ast.If(s.test, _body(s.body, brk, skip),
                                                _body(s.orelse, brk, skip)), s))
            rest = stmts[i + 1:]
            if rest:
                out.append(ast.copy_location(ast.If(_not(skip, rest[0]),
                                                    _body(rest, brk, skip), []), rest[0]))
            return out
        out.append(s)   # loops keep their own jumps; other statements hold none
    return out


def _assign(name: str, value: ast.expr, at: ast.AST) -> ast.Assign:
    node = ast.Assign([ast.Name(name, ast.Store())], value)
    return ast.fix_missing_locations(ast.copy_location(node, at))


def _not(name: str, at: ast.AST) -> ast.expr:
    node = ast.UnaryOp(ast.Not(), ast.Name(name, ast.Load()))
    return ast.fix_missing_locations(ast.copy_location(node, at))

"""Reading Python source for the frontend: parse once, map AST positions back to the file.

:func:`parse_function` returns a :class:`ParsedFunction` for a function or lambda: its AST node,
its file, and the offsets that turn AST positions (relative to the dedented snippet that was
parsed) into the file's real line and column. Results are cached per code object, so compiling a
network twice parses each ``construct`` once.

The syntactic questions the compiler asks of statement lists live here too: which names they
assign (:func:`assigned_names`), whether they ``return`` (:func:`contains`), and the local names
of a function.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import threading
from dataclasses import dataclass, field

from graphcell_ir.ir.loc import Loc


class SourceUnavailable(Exception):
    """The source of a function cannot be read (a builtin, code made by exec, a REPL session...)."""


@dataclass(eq=False)
class ParsedFunction:
    """A function's AST with what it takes to point at the file.

    ``line_offset`` and ``col_offset`` are added to an AST node's ``lineno`` and ``col_offset``
    to get the 1-based line and 0-based column in ``file``; ``lines`` are the function's source
    lines as written (indentation included).
    """

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    file: str
    line_offset: int
    col_offset: int
    lines: list[str]
    name: str
    local_names: frozenset[str] = field(default_factory=frozenset)

    def loc(self, node: ast.AST, scope: tuple[str, ...], caller: Loc | None,
            marks: tuple[str, ...]) -> Loc:
        """The location of ``node``: 1-based line and column in the file."""
        return Loc(self.file, node.lineno + self.line_offset, node.col_offset + self.col_offset + 1,
                   scope, caller, marks)

    def end_col(self, node: ast.AST) -> int:
        """The 1-based exclusive end column of ``node`` on its first line (0 when unknown)."""
        end_line, end = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end is None:
            return 0
        if end_line != node.lineno:  # a compound statement: its first line
            return len(self.source_line(node).rstrip()) + 1
        return end + self.col_offset + 1

    def source_line(self, node: ast.AST) -> str:
        i = node.lineno - 1
        return self.lines[i].rstrip("\n") if 0 <= i < len(self.lines) else ""


_cache: dict = {}
_CACHE_LIMIT = 4096  # code objects kept parsed; beyond it the cache starts over
_CACHE_LOCK = threading.Lock()   # compiles in several threads share the cache


def parse_function(fn) -> ParsedFunction:
    """The parsed source of ``fn`` (a Python function or lambda); SourceUnavailable if none."""
    code = getattr(fn, "__code__", None)
    if code is None:
        raise SourceUnavailable(f"{_describe(fn)} has no Python source (is it a builtin or a C "
                                "function?)")
    with _CACHE_LOCK:
        hit = _cache.get(code)
    if hit is None:
        try:
            hit = _parse(fn, code)   # outside the lock: two threads may both parse, harmlessly
        except SourceUnavailable as e:
            hit = e
        with _CACHE_LOCK:
            if len(_cache) >= _CACHE_LIMIT:
                _cache.clear()
            _cache[code] = hit
    if isinstance(hit, SourceUnavailable):
        raise hit
    return hit


def _describe(fn) -> str:
    return qualname(fn)


def qualname(fn) -> str:
    """``fn``'s qualified name without the ``<locals>`` of enclosing functions (``Net.helper``,
    ``f``): how locations and messages name a function."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return name.rsplit("<locals>.", 1)[-1]


def _parse(fn, code) -> ParsedFunction:
    try:
        lines, start = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or code.co_filename
    except (OSError, TypeError) as e:
        raise SourceUnavailable(f"cannot read the source of {_describe(fn)}: {e}") from None
    src = "".join(lines)
    dedented = textwrap.dedent(src)
    shift = _indent(lines[0]) - _indent(dedented.splitlines()[0]) if lines else 0
    try:
        tree = ast.parse(dedented)
    except SyntaxError:
        # a lambda's source is its whole line, which may not parse on its own
        raise SourceUnavailable(f"cannot parse the source of {_describe(fn)} on its own "
                                f"({code.co_filename}:{code.co_firstlineno})") from None
    node = _find(tree, code, start, shift)
    if node is None:   # the file on disk no longer has the code that was imported
        raise SourceUnavailable(f"cannot find {_describe(fn)} in its source "
                                f"({file}:{code.co_firstlineno}): was the file edited after it "
                                "was imported? Graph mode compiles the source on disk; restart "
                                "the program to run the new code")
    parsed = ParsedFunction(node, file, start - 1, shift, lines, _describe(fn))
    parsed.local_names = frozenset(arg_names(node.args)) | frozenset(assigned_names(_body(node)))
    return parsed


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _body(node) -> list[ast.stmt]:
    return node.body if isinstance(node.body, list) else [ast.Expr(node.body)]


def _find(tree: ast.AST, code, start: int, shift: int = 0):
    """The FunctionDef or Lambda of ``code`` in ``tree`` (lines relative to the snippet; columns
    shifted by ``shift`` from the file's)."""
    want_line = code.co_firstlineno - start + 1
    candidates = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            candidates.append((first != want_line, node.lineno, node))
        elif isinstance(node, ast.Lambda) and code.co_name == "<lambda>":
            candidates.append((node.lineno != want_line, node.lineno, node))
    if not candidates:
        return None
    candidates.sort(key=lambda c: (c[0], c[1]))
    lambdas = [c[2] for c in candidates if not c[0] and isinstance(c[2], ast.Lambda)]
    if len(lambdas) > 1:  # several lambdas start on the line: the code's own positions decide
        return _lambda_by_position(lambdas, code, start, shift)
    return candidates[0][2]


def _lambda_by_position(lambdas: list[ast.Lambda], code, start: int, shift: int) -> ast.Lambda:
    """The lambda whose body spans the source positions ``code``'s instructions carry."""
    spans = [p for p in getattr(code, "co_positions", lambda: ())()
             if None not in p and p[2] != p[3]]
    if spans:
        first = min((p[0], p[2]) for p in spans)
        last = max((p[1], p[3]) for p in spans)
        for node in lambdas:
            b = node.body
            if ((b.lineno + start - 1, b.col_offset + shift) == first and
                    (b.end_lineno + start - 1, b.end_col_offset + shift) == last):
                return node
    raise SourceUnavailable(f"several lambdas start on line {code.co_firstlineno} of "
                            f"{code.co_filename} and the compiler cannot tell which one this is; "
                            "put each lambda on its own line or give it a name with def")


def arg_names(args: ast.arguments) -> list[str]:
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


# --- syntactic questions --------------------------------------------------------------------------

_NEW_SCOPE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
              ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _walk_scope(nodes):
    """Every node under ``nodes`` without entering nested functions, classes or comprehensions
    (whose names are their own); the nested node itself is yielded."""
    stack = list(reversed(list(nodes)))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NEW_SCOPE):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def assigned_names(stmts) -> tuple[str, ...]:
    """The names that ``stmts`` bind (assignments, loop targets, walrus, def/class/import names),
    in order of first appearance (deterministic, unlike a set of strings)."""
    out: dict[str, None] = {}
    for node in _walk_scope(stmts):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out[node.id] = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update(dict.fromkeys((a.asname or a.name).split(".")[0] for a in node.names))
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for gen in node.generators:  # a walrus in a comprehension binds in the function
                out.update(dict.fromkeys(n.target.id for n in ast.walk(gen)
                                         if isinstance(n, ast.NamedExpr)))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out[node.name] = None
    return tuple(out)


def rebound_names(stmts) -> tuple[str, ...]:
    """The variables ``stmts`` give new values in graph mode: :func:`assigned_names` and the
    variables written through an item (``x[k] = v``, ``x[k] += v``), which the frontend rebinds to
    the written copy (Python would mutate the object instead; for a tensor the result is the
    same). A loop carries these."""
    out = dict.fromkeys(assigned_names(stmts))
    for node in _walk_scope(stmts):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name):
            out[node.value.id] = None
    return tuple(out)


def contains(stmts, types, *, into_loops: bool = True) -> bool:
    """Whether ``stmts`` hold a node of ``types`` (not looking into nested functions; with
    ``into_loops=False``, not into nested loops either: for ``break``/``continue``)."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, types):
            return True
        if isinstance(node, _NEW_SCOPE):
            continue
        if not into_loops and isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def first(stmts, types, *, into_loops: bool = True) -> ast.AST | None:
    """The first node of ``types`` in ``stmts`` in source order (see :func:`contains`)."""
    best = None
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, types):
            if best is None or (node.lineno, node.col_offset) < (best.lineno, best.col_offset):
                best = node
            continue
        if isinstance(node, _NEW_SCOPE):
            continue
        if not into_loops and isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return best


# --- entries: calls compiled without source of their own ----------------------------------------

ENTRY_TARGET = "<target>"
"""The name the object called by an entry has in the entry's globals (not an identifier: no user
name can be it)."""


def entry_function(name: str, params: list[str], kwparams: list[str]) -> ParsedFunction:
    """A function ``name(params..., *, kwparams...)`` whose body is one statement,
    ``return <target>(params..., kwparam=kwparam...)``, built as an AST (it has no source file):
    what the frontend compiles to call an object that has no Python source of its own (a
    gradient function, a cell with its hooks). Its positions are line 1 of ``<graphcell: name>``.
    """
    load = ast.Load()
    call = ast.Call(ast.Name(ENTRY_TARGET, load), [ast.Name(p, load) for p in params],
                    [ast.keyword(k, ast.Name(k, load)) for k in kwparams])
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                              kwonlyargs=[ast.arg(k) for k in kwparams],
                              kw_defaults=[None] * len(kwparams), kwarg=None, defaults=[])
    node = ast.FunctionDef(name=name, args=arguments, body=[ast.Return(call)], decorator_list=[],
                           returns=None, type_comment=None)
    ast.fix_missing_locations(ast.Module([node], type_ignores=[]))
    return ParsedFunction(node, f"<graphcell: {name}>", 0, 0, [], name,
                          frozenset(params) | frozenset(kwparams))

"""Python builtins in compiled code.

Most builtins simply run while compiling on static arguments (``round``, ``sorted``, exception
classes for ``raise``...). Those below also understand frontend values:

- ``len(x)``: a tensor's first dimension, a tuple's length;
- ``isinstance(x, cls)``: for a tensor value, the resolver's optional ``is_tensor_class(cls)``;
- ``range``: static bounds only (a tensor bound: use ``while``);
- ``enumerate``, ``zip``, ``reversed``, ``tuple``, ``list``: over tuples, lists, CellLists, the
  rows of a tensor;
- ``abs``, ``min``, ``max``, ``sum``, ``all``, ``any``: on tensors they emit ``abs``,
  ``maximum``/``minimum``, ``add``, ``logical_and``/``logical_or``, with Python's meaning (so
  ``max`` and ``all`` need single-element tensors, as in PyNative);
- ``bool(x)`` is the truth value; ``int(x)``/``float(x)`` of a tensor are errors (the value is
  only known when the graph runs);
- ``getattr``/``hasattr`` with a static name; zero-argument ``super()``;
- ``print(...)`` prints when the graph runs, in program order (as ``jax.debug.print``): the
  tensor arguments become the operands of one ``host_callback`` op whose callback prints them
  with the static ones, through the resolver's optional ``print_callback()`` (the function that
  prints; default: Python's ``print``, with numpy arrays).
"""
from __future__ import annotations

import ast
import builtins

import numpy as np

from graphcell_ir.frontend.errors import Kind
from graphcell_ir.frontend.resolve import read_attribute
from graphcell_ir.frontend.scope import POISON, BoundMethod, Closure, Poison
from graphcell_ir.ir.core import Value
from graphcell_ir.ir.types import ScalarType, TensorType, TupleType
from graphcell_ir.ops.registry import lookup


def _one(c, args, kwargs, node, name: str):
    if len(args) != 1 or kwargs:
        c.fail(node, f"{name}() takes exactly one argument here", Kind.TYPE)
    return args[0]


def _len(c, args, kwargs, node):
    x = c.realize(_one(c, args, kwargs, node, "len"), node)
    if isinstance(x, Value):
        t = x.type
        if isinstance(t, TupleType):
            return len(t.elements)
        if not isinstance(t, TensorType) or not t.shape:
            c.fail(node, f"len() of a 0-d value ({t})", Kind.TYPE)
        return t.shape[0]
    try:
        return len(x)
    except TypeError as e:
        c.fail(node, f"len() of {type(x).__name__}: {e}", Kind.TYPE, e)


def _isinstance(c, args, kwargs, node):
    if len(args) != 2 or kwargs:
        c.fail(node, "isinstance() takes two arguments", Kind.TYPE)
    obj, cls = args
    cls = c.require_static(cls, node, "the class given to isinstance()")
    if isinstance(obj, Poison):
        return POISON
    if isinstance(obj, Value):
        check = getattr(c.resolver, "is_tensor_class", None)
        classes = cls if isinstance(cls, tuple) else (cls,)
        return bool(check) and any(check(k) for k in classes)
    try:
        return isinstance(obj, cls)
    except TypeError as e:
        c.fail(node, f"isinstance(): {e}", Kind.TYPE, e)


def _range(c, args, kwargs, node):
    for a in args:
        if isinstance(c.realize(a, node), Value):
            c.fail(node, "range() with a bound that is a tensor is not supported in graph mode: "
                         "a for loop is unrolled while compiling; use a while loop",
                   Kind.UNSUPPORTED)
    return c.call_static(range, args, kwargs, node, "range")


def _print(c, args, kwargs, node):
    kw = {k: c.require_static(v, node, f"the {k}= argument of print()")
          for k, v in kwargs.items()}
    values: list = []
    pieces = [_print_piece(c, a, values, node) for a in args]
    get = getattr(c.resolver, "print_callback", None)
    show = get() if get is not None else builtins.print

    def print_(*xs):
        show(*[_build(p, xs) for p in pieces], **kw)

    print_.__name__ = "print"
    c.emit(lookup("host_callback"), tuple(values), {"fn": print_, "name": "print"}, node)
    return None


def _print_piece(c, a, values: list, node):
    """What ``print`` shows for argument ``a``: ``("value", i)`` (run-time value ``i``),
    ``("item", i)`` (a run-time Python number), ``("seq", tuple|list, pieces)`` (a tuple or list
    holding run-time values, as hooks print their ``inputs``) or ``("static", a)``."""
    a = c.realize(a, node)
    if isinstance(a, Value):
        if not isinstance(a.type, (TensorType, ScalarType)):
            c.fail(node, f"print() of a {a.type} value is not supported in graph mode; print "
                         "its elements", Kind.UNSUPPORTED)
        values.append(a if isinstance(a.type, TensorType) else _as_tensor(c, a, node))
        # a run-time Python number travels as a 0-d tensor (autodiff saves tensors only) and is
        # given back to print as a Python number
        return ("value" if isinstance(a.type, TensorType) else "item", len(values) - 1)
    if type(a) in (list, tuple) and _holds_value(a):
        return ("seq", type(a), [_print_piece(c, e, values, node) for e in a])
    if isinstance(a, (list, tuple, dict)) and _holds_value(a):
        c.fail(node, "print() of a dict (or a tuple subclass) holding tensors is not supported "
                     "in graph mode; print its elements", Kind.UNSUPPORTED)
    return ("static", a)


def _build(p, xs):
    kind = p[0]
    if kind == "value":
        return xs[p[1]]
    if kind == "item":
        return xs[p[1]].item()
    if kind == "seq":
        return p[1](_build(e, xs) for e in p[2])
    return p[1]


def _as_tensor(c, v, node):
    zero = c.b.const(np.zeros((), v.type.dtype.np_dtype))
    op = "logical_or" if v.type.dtype.np_dtype == np.bool_ else "add"
    return c.emit(lookup(op), (zero, v), {}, node)


def _holds_value(x) -> bool:
    items = x.values() if isinstance(x, dict) else x
    return any(isinstance(e, Value) or isinstance(e, (list, tuple, dict)) and _holds_value(e)
               for e in items)


def _items(c, x, node, what):
    return c.iterate(x, node, what)


def _enumerate(c, args, kwargs, node):
    start = kwargs.get("start", args[1] if len(args) > 1 else 0)
    start = c.require_static(start, node, "the start of enumerate()")
    return [(start + i, x) for i, x in enumerate(_items(c, args[0], node, "enumerate()"))]


def _zip(c, args, kwargs, node):
    return list(zip(*(_items(c, a, node, "zip()") for a in args)))


def _reversed(c, args, kwargs, node):
    return list(reversed(_items(c, _one(c, args, kwargs, node, "reversed"), node, "reversed()")))


def _sequence(kind):
    def make(c, args, kwargs, node):
        if not args:
            return kind()
        return kind(_items(c, _one(c, args, kwargs, node, kind.__name__), node,
                           f"{kind.__name__}()"))
    return make


def _bool(c, args, kwargs, node):
    if not args:
        return False
    return c.truth(_one(c, args, kwargs, node, "bool"), node)


def _number(kind):
    def convert(c, args, kwargs, node):
        if args and isinstance(c.realize(args[0], node), Value):
            c.fail(node, f"{kind.__name__}() of a tensor is not supported in graph mode: its value "
                         "is only known when the graph runs (use ops.cast or x.astype)",
                   Kind.UNSUPPORTED)
        return c.call_static(kind, args, kwargs, node, kind.__name__)
    return convert


def _abs(c, args, kwargs, node):
    x = c.realize(_one(c, args, kwargs, node, "abs"), node)
    if isinstance(x, Value):
        return c.emit(lookup("abs"), (x,), {}, node)
    return c.call_static(abs, [x], {}, node, "abs")


def _fold(opname: str, pyfn, empty_ok: bool = False):
    def fold(c, args, kwargs, node):
        items = _items(c, args[0], node, f"{pyfn.__name__}()") if len(args) == 1 else list(args)
        items = [c.realize(x, node) for x in items]
        if not any(isinstance(x, Value) for x in items):
            return c.call_static(pyfn, [items] if len(args) == 1 else items, kwargs, node,
                                 pyfn.__name__)
        if kwargs:
            c.fail(node, f"{pyfn.__name__}() with keyword arguments on tensors is not supported "
                         "in graph mode", Kind.UNSUPPORTED)
        op = lookup(opname)
        if opname in ("logical_and", "logical_or"):
            items = [c.truth(x, node) for x in items]
        elif any(isinstance(x, Value) and getattr(x.type, "size", 1) != 1 for x in items):
            # Python compares the whole values, which is ambiguous for a tensor of several
            # elements (PyNative raises too): ops.maximum is the element-wise one
            c.fail(node, f"{pyfn.__name__}() of tensors with more than one element is "
                         f"ambiguous, as in Python; use ops.{opname} for the element-wise "
                         f"{opname}", Kind.TYPE)
        acc = items[0]
        for x in items[1:]:
            acc = c.emit(op, (acc, x), {}, node)
        return acc
    return fold


def _sum(c, args, kwargs, node):
    items = _items(c, args[0], node, "sum()")
    acc = kwargs.get("start", args[1] if len(args) > 1 else 0)
    for x in items:
        acc = c.binop(ast.Add, acc, x, node)
    return acc


def _getattr(c, args, kwargs, node):
    if len(args) not in (2, 3):
        c.fail(node, "getattr() takes two or three arguments", Kind.TYPE)
    name = c.require_static(args[1], node, "the attribute name given to getattr()")
    if len(args) == 3 and not _has(c, args[0], name):
        return args[2]
    return c.get_attr(args[0], name, node)


def _has(c, obj, name: str) -> bool:
    if c.is_tensor_object(obj):
        if name in ("shape", "dtype", "ndim"):
            return True
        return c.resolver.tensor_method(name) is not None
    if isinstance(obj, (Closure, BoundMethod, Poison)):
        return False
    try:
        read_attribute(c.resolver, obj, name)
    except AttributeError:
        return False
    return True


def _hasattr(c, args, kwargs, node):
    if len(args) != 2:
        c.fail(node, "hasattr() takes two arguments", Kind.TYPE)
    return _has(c, args[0], c.require_static(args[1], node, "the name given to hasattr()"))


def _super(c, args, kwargs, node):
    if args:
        return c.call_static(super, args, kwargs, node, "super")
    frame = c.frame
    cls = frame.closure.get("__class__")
    a = frame.parsed.node.args
    first = (a.posonlyargs + a.args)[:1]
    if cls is None or not first or first[0].arg not in frame.vars:
        c.fail(node, "super() without arguments works only in a method", Kind.ERROR)
    return super(cls, frame.vars[first[0].arg])


def _type(c, args, kwargs, node):
    if len(args) == 1 and isinstance(c.realize(args[0], node), Value):
        c.fail(node, "type() of a tensor value is not supported in graph mode (use isinstance)",
               Kind.UNSUPPORTED)
    return c.call_static(type, args, kwargs, node, "type")


def _callable(c, args, kwargs, node):
    x = _one(c, args, kwargs, node, "callable")
    return isinstance(x, (Closure, BoundMethod)) or (not isinstance(x, Value) and callable(x))


def _unsupported(what: str):
    def handler(c, args, kwargs, node):
        c.fail(node, f"{what} is not supported in graph mode", Kind.UNSUPPORTED)
    handler.rejects = True
    return handler


_HANDLERS = {
    len: _len, isinstance: _isinstance, range: _range, print: _print, enumerate: _enumerate,
    zip: _zip, reversed: _reversed, tuple: _sequence(tuple), list: _sequence(list), bool: _bool,
    int: _number(int), float: _number(float), abs: _abs, min: _fold("minimum", min),
    max: _fold("maximum", max), all: _fold("logical_and", all), any: _fold("logical_or", any),
    sum: _sum, getattr: _getattr, hasattr: _hasattr, super: _super, type: _type,
    callable: _callable, iter: _unsupported("iter()"), next: _unsupported("next()"),
    setattr: _unsupported("setattr()"), delattr: _unsupported("delattr()"),
    input: _unsupported("input()"), open: _unsupported("open()"), eval: _unsupported("eval()"),
    exec: _unsupported("exec()"), globals: _unsupported("globals()"),
    locals: _unsupported("locals()"), vars: _unsupported("vars()"),
}
_OTHERS = {id(v): v for v in vars(builtins).values() if callable(v)}


def builtin_handler(func):
    """The handler for a Python builtin ``func`` (``handler(compiler, args, kwargs, node)``), or
    None when ``func`` is no builtin."""
    try:
        h = _HANDLERS.get(func)
    except TypeError:  # unhashable: no builtin
        return None
    if h is not None:
        return h
    if _OTHERS.get(id(func)) is func:
        name = getattr(func, "__name__", "builtin")
        return lambda c, args, kwargs, node: c.call_static(func, args, kwargs, node, name)
    return None

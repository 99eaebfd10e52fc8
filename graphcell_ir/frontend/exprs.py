"""Expressions: names, constants, operators, attributes, indexing, displays, comprehensions.

Every operator has two meanings: on static operands it is Python's, evaluated while compiling
(shapes, numbers, tuples); as soon as one operand is an IR value it is the registry op
(``x + 1`` -> ``add``, ``a < b`` -> ``less``, ``x @ w`` -> ``matmul``). ``and``/``or``/``not``
on tensors give bool tensors (both sides are evaluated, as MindSpore does).

Indexing a tensor with a static key (ints, slices with static bounds, None, ``...``) gives
``getitem``; with one integer index tensor (or a list/array of ints) and only ``:`` elsewhere
(``x[i]``, ``x[:, i]``) it gives ``take`` along that axis, as PyNative does. A boolean mask selects
a data-dependent number of elements, which a static-shape graph cannot hold: it is refused.
Indexing a tuple, list or any static object is Python's.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import operator

import numpy as np

from graphcell_ir.frontend import resolve as R
from graphcell_ir.frontend.errors import Kind, PoisonAbort
from graphcell_ir.frontend.scope import (MISSING, POISON, BoundMethod, Closure, Poison,
                                         Undefined, has_poison, is_object, leaves)
from graphcell_ir.ir.core import Value
from graphcell_ir.ir.loc import LIB
from graphcell_ir.ir.types import ObjectType, ScalarType, TensorType, TupleType, bool_, int64
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.operators import BY_SYMBOL, UNARY_BY_SYMBOL
from graphcell_ir.ops.registry import lookup

_PYOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
"""Python's meaning of each binary operator, for static operands; on tensors an operator is the
registry op of ``graphcell_ir.ops.operators`` (the table PyNative's Tensor reads too)."""
_CMPOPS = {
    ast.Lt: ("less", operator.lt), ast.LtE: ("less_equal", operator.le),
    ast.Gt: ("greater", operator.gt), ast.GtE: ("greater_equal", operator.ge),
    ast.Eq: ("equal", operator.eq), ast.NotEq: ("not_equal", operator.ne),
}
_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>", ast.Lt: "<", ast.LtE: "<=",
           ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_OPS = {name: lookup(name) for name in ("add", "sub", "mul", "div", "floor_div", "mod", "pow",
                                        "matmul", "logical_and", "logical_or", "logical_not",
                                        "not_equal", "less", "less_equal", "greater",
                                        "greater_equal", "equal", "neg", "getitem", "setitem",
                                        "reshape", "fill", "take", "scatter_update", "select", "cast")}
MAX_ITEMS = 100_000
"""Iterating a static Python object while compiling stops here (an endless generator...)."""


def describe(v) -> str:
    """How messages name a frontend value: its IR type, or the Python type of a static."""
    if isinstance(v, Value):
        return f"a tensor {v.type}" if isinstance(v.type, TensorType) else f"a value {v.type}"
    if isinstance(v, tuple):
        return f"a tuple of {len(v)}"
    if v is None:
        return "None"
    if isinstance(v, (bool, int, float)):
        return f"the {type(v).__name__} {v!r}"
    return f"a {type(v).__name__}"


class ExprMixin:
    """``visit_<expr>`` methods and the expression helpers other mixins use."""

    def owned(self, v):
        """A list or dict read from the user's objects, copied: the compiled code may append to
        it (``outs.append(y)``) without changing the user's object while compiling. The copy is
        remembered as *outside* state (``host.py``: a hook that changes it runs as Python)."""
        t = type(v)
        if t is not list and t is not dict:
            return v
        copy = list(v) if t is list else dict(v)
        self.outside[id(copy)] = copy
        return copy

    # -- leaves --
    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        return self.lookup(node.id, node)

    def lookup(self, name: str, node):
        f = self.frame
        while f is not None:
            v = f.vars.get(name, MISSING)
            if v is not MISSING:
                if isinstance(v, Undefined):
                    self.fail(node, v.message, v.kind or Kind.ERROR)
                return v
            if f.outer is None and name in f.parsed.local_names:
                self.fail(node, f"local variable {name!r} is used before it is assigned")
            f = f.outer
        frame = self.frame
        if name in frame.closure:
            return self.owned(frame.closure[name])
        if name in frame.globals:
            return self.owned(frame.globals[name])
        if hasattr(builtins, name):
            return getattr(builtins, name)
        self.fail(node, f"name {name!r} is not defined")

    def require_static(self, v, node, what: str):
        """``v`` when nothing in it is an IR value; else an error saying ``what`` needs it."""
        v = self.realize_deep(v, node)
        for x in leaves(v):
            if isinstance(x, Value):
                self.fail(node, f"{what} must be known while compiling, but it depends on "
                                f"{describe(x)}", Kind.UNSUPPORTED)
        return v

    # -- displays --
    def elements(self, elts) -> list:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.iterate(self.eval(e.value), e))
            else:
                out.append(self.eval(e))
        return out

    def visit_Tuple(self, node):
        return tuple(self.elements(node.elts))

    def visit_List(self, node):
        return self.elements(node.elts)

    def visit_Set(self, node):
        self.refuse_in_user_code(node, "a set literal", "use a tuple, or set(...)")
        items = self.require_static(self.elements(node.elts), node, "a set's elements")
        return set(items)

    def refuse_in_user_code(self, node, what: str, instead: str) -> None:
        """MindSpore 2.10's graph mode refuses ``what`` ("Unsupported expression"); so does
        graphcell's, in the user's code (graphcell's own inlined code may use it)."""
        if LIB not in self.frame.marks:
            self.fail(node, f"{what} is not supported in graph mode (as in MindSpore); {instead}",
                      Kind.UNSUPPORTED)

    def visit_Dict(self, node):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:  # {**other}
                other = self.realize(self.eval(v), v)
                if type(other) is not dict:
                    self.fail(v, f"'**' in a dict display needs a dict, got {describe(other)}")
                out.update(other)
            else:
                key = self.eval(k)
                if not self.is_parameter_object(key):  # {self.w: dw}: keyed by the Parameter
                    key = self.require_static(key, k, "a dict key")
                out[key] = self.eval(v)
        return out

    def is_parameter_object(self, v) -> bool:
        """Whether ``v`` is a Parameter as a Python object (read from ``self``, not computed)."""
        return not isinstance(v, Value) and self.is_tensor_object(v) and \
            isinstance(self.classify(v), R.Param)

    def visit_Starred(self, node):
        self.fail(node, "a starred expression is only allowed in calls, displays and "
                        "assignment targets", Kind.UNSUPPORTED)

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            parts.append(v.value if isinstance(v, ast.Constant) else self.eval(v))
        return "".join(parts)

    def visit_FormattedValue(self, node):
        v = self.realize(self.eval(node.value), node.value)
        if isinstance(v, Value):  # only error messages format tensors while compiling
            v = f"Tensor({v.type})"
        conv = {115: str, 114: repr, 97: ascii}.get(node.conversion)
        if conv is not None:
            v = conv(v)
        spec = self.eval(node.format_spec) if node.format_spec is not None else ""
        try:
            return format(v, spec)
        except Exception as e:
            self.fail(node, f"formatting {describe(v)}: {e}")

    # -- operators --
    def visit_BinOp(self, node):
        return self.binop(type(node.op), self.eval(node.left), self.eval(node.right), node)

    def binop(self, op: type, a, b, node):
        a, b = self.realize(a, node), self.realize(b, node)
        if isinstance(a, Poison) or isinstance(b, Poison):
            return POISON
        symbol = _SYMBOL[op]
        if is_object(a) or is_object(b):   # JIT Fallback values: Python's operator, when run
            return self.fallback(_PYOPS[op], [a, b], {}, node, f"the operator {symbol}")
        if not isinstance(a, Value) and not isinstance(b, Value):
            return self.static_op(_PYOPS[op], symbol, a, b, node)
        for x in (a, b):
            if type(x) in (tuple, list, dict):
                self.fail(node, f"unsupported operand types for {symbol}: {describe(a)} and "
                                f"{describe(b)}", Kind.TYPE)
        entry = BY_SYMBOL.get(symbol)
        if entry is None:
            self.fail(node, f"unsupported operand types for {symbol}: {describe(a)} and "
                            f"{describe(b)} (tensors have no {symbol} operator, as in MindSpore)",
                      Kind.TYPE)
        _, reflected, name = entry
        if not isinstance(a, Value) and reflected is None:
            self.fail(node, f"unsupported operand types for {symbol}: {describe(a)} and "
                            f"{describe(b)} (a tensor has no reflected {symbol}, as in MindSpore)",
                      Kind.TYPE)
        return self.emit(lookup(name), (a, b), {}, node)

    def static_op(self, pyop, symbol: str, a, b, node):
        try:
            return pyop(a, b)
        except Exception as e:
            self.fail(node, f"{describe(a)} {symbol} {describe(b)} while compiling: "
                            f"{type(e).__name__}: {e}", Kind.TYPE if isinstance(e, TypeError)
                      else Kind.ERROR, e)

    def visit_UnaryOp(self, node):
        v = self.realize(self.eval(node.operand), node.operand)
        if isinstance(v, Poison):
            return POISON
        op = type(node.op)
        if is_object(v):
            fn = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
                  ast.Not: operator.not_}[op]
            return self.fallback(fn, [v], {}, node, f"the operator {fn.__name__}")
        if op is ast.Not:
            t = self.truth(v, node.operand)
            return (not t) if not isinstance(t, Value) else \
                self.emit(_OPS["logical_not"], (t,), {}, node)
        if not isinstance(v, Value):
            pyop = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[op]
            try:
                return pyop(v)
            except Exception as e:
                self.fail(node, f"{type(e).__name__} while compiling: {e}", Kind.TYPE, e)
        if op is ast.UAdd:
            return v
        symbol = "-" if op is ast.USub else "~"
        return self.emit(lookup(UNARY_BY_SYMBOL[symbol]), (v,), {}, node)

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        result = self.realize(self.eval(node.values[0]), node.values[0])
        for rhs_node in node.values[1:]:
            if isinstance(result, Poison):
                return POISON
            if not isinstance(result, Value):
                t = self.truth(result, node)
                if t != is_and:  # Python's short circuit: the static operand decides
                    return result
                result = self.realize(self.eval(rhs_node), rhs_node)
                continue
            rhs = self.truth(self.eval(rhs_node), rhs_node)
            left = self.truth(result, node)
            if isinstance(rhs, Poison):
                return POISON
            if not isinstance(rhs, Value):
                result = left if rhs == is_and else rhs
            else:
                result = self.emit(_OPS["logical_and" if is_and else "logical_or"],
                                   (left, rhs), {}, node)
        return result

    def visit_Compare(self, node):
        left = self.eval(node.left)
        result = True
        for op, comp in zip(node.ops, node.comparators):
            right = self.eval(comp)
            r = self.compare(type(op), left, right, node)
            if isinstance(r, Poison):
                return POISON
            if result is True:
                result = r
            else:
                result = self.emit(_OPS["logical_and"], (self.truth(result, node),
                                                         self.truth(r, node)), {}, node) \
                    if isinstance(r, Value) or isinstance(result, Value) else (result and r)
            if result is False:
                return False  # Python stops at the first false comparison
            left = right
        return result

    def compare(self, op: type, a, b, node):
        if op in (ast.Is, ast.IsNot):  # identity of Python objects, never realized
            same = a is b
            return same if op is ast.Is else not same
        a, b = self.realize(a, node), self.realize(b, node)
        if isinstance(a, Poison) or isinstance(b, Poison):
            return POISON
        if op in (ast.In, ast.NotIn):
            if is_object(a) or is_object(b):
                r = self.fallback(operator.contains, [b, a], {}, node, "'in'",
                                  result=ScalarType(bool_))
                return r if op is ast.In else self.emit(_OPS["logical_not"], (r,), {}, node)
            if isinstance(b, Value):
                self.fail(node, "'in' on a tensor is not supported in graph mode",
                          Kind.UNSUPPORTED)
            r = self.static_op(lambda x, y: x in y, "in", a, b, node)
            return r if op is ast.In else not r
        name, pyop = _CMPOPS[op]
        if is_object(a) or is_object(b):
            return self.fallback(pyop, [a, b], {}, node, f"the comparison {_SYMBOL[op]}")
        if not isinstance(a, Value) and not isinstance(b, Value):
            return self.static_op(pyop, _SYMBOL[op], a, b, node)
        if a is None or b is None:  # x == None: a static answer, as for Python objects
            return (op is ast.NotEq)
        return self.emit(_OPS[name], (a, b), {}, node)

    def truth(self, v, node):
        """``bool(v)``: a Python bool for statics, a bool predicate (``bool`` or ``bool[]``) for
        IR values. A tensor of more than one element is an error, as in Python."""
        v = self.realize(v, node)
        if isinstance(v, Poison):
            return POISON
        if not isinstance(v, Value):
            try:
                return bool(v)
            except Exception as e:
                self.fail(node, f"the truth value of {describe(v)}: {type(e).__name__}: {e}",
                          Kind.TYPE, e)
        t = v.type
        if isinstance(t, ObjectType):
            return self.fallback(bool, [v], {}, node, "the truth value", result=ScalarType(bool_))
        if isinstance(t, ScalarType):
            return v if t.dtype is bool_ else self.emit(_OPS["not_equal"], (v, 0), {}, node)
        if not isinstance(t, TensorType):
            self.fail(node, f"the truth value of a value of type {t} is not defined", Kind.TYPE)
        if t.size != 1:
            self.fail(node, f"the truth value of a tensor of shape {list(t.shape)} is ambiguous "
                            "in a condition: reduce it first (x.all(), x.any(), x.sum() > 0)",
                      Kind.VALUE)
        if t.shape != ():
            v = self.emit(_OPS["reshape"], (v,), {"shape": ()}, node)
        if t.dtype is not bool_:
            v = self.emit(_OPS["not_equal"], (v, 0), {}, node)
        return v

    def visit_IfExp(self, node):
        c = self.truth(self.eval(node.test), node.test)
        if isinstance(c, Poison):
            return POISON
        if not isinstance(c, Value):
            return self.eval(node.body if c else node.orelse)
        return self.ir_ifexp(node, c)

    def visit_NamedExpr(self, node):
        self.refuse_in_user_code(node, "an assignment expression (:=)",
                                 "assign in a statement of its own")
        v = self.eval(node.value)
        self.assign(node.target, v, node)
        return v

    # -- attributes --
    def visit_Attribute(self, node):
        return self.get_attr(self.eval(node.value), node.attr, node)

    def get_attr(self, base, name: str, node):
        if isinstance(base, Poison):
            return POISON
        if is_object(base):
            return self.fallback(getattr, [base, name], {}, node, f"reading .{name}")
        if self.is_tensor_object(base):
            if not isinstance(base, Value) and self._python_attribute(base, name):
                return self.owned(getattr(base, name))   # a Parameter's name, requires_grad...
            return self.tensor_attr(self.realize(base, node), name, node)
        if isinstance(base, (Closure, BoundMethod)):
            self.fail(node, f"attribute {name!r} of {describe(base)} is not supported in graph "
                            "mode", Kind.UNSUPPORTED)
        if self.written:
            value = self.written_value(base, name)   # written earlier in this compile
            if value is not MISSING:
                return value
        try:
            value = R.read_attribute(self.resolver, base, name)
        except AttributeError as e:
            self.fail(node, str(e) or f"{describe(base)} has no attribute {name!r}", Kind.ERROR, e)
        except Exception as e:
            self.fail(node, f"reading .{name} while compiling raised {type(e).__name__}: {e}",
                      Kind.ERROR, e)
        dtype = self.cell_precision.get(id(base)) if self.cell_precision else None
        if dtype is not None and self.is_parameter_object(value):
            return self.param_in_precision(value, dtype, node)  # a to_float cell's Parameter
        return self.owned(value)

    def _python_attribute(self, obj, name: str) -> bool:
        """Whether ``obj.<name>`` of a tensor object still in Python (a Parameter read from
        ``self``) is a plain attribute of the object rather than a tensor attribute or method."""
        if name in ("shape", "dtype", "ndim") or name.startswith("__"):
            return False
        if name not in self._tensor_methods:
            self._tensor_methods[name] = self.resolver.tensor_method(name)
        return self._tensor_methods[name] is None and hasattr(obj, name)

    def tensor_attr(self, v: Value, name: str, node):
        t = v.type
        if name in ("shape", "dtype", "ndim") and isinstance(t, (TensorType, ScalarType)):
            return tuple(t.shape) if name == "shape" else t.dtype if name == "dtype" \
                else len(t.shape)
        if name not in self._tensor_methods:
            self._tensor_methods[name] = self.resolver.tensor_method(name)
        rec = self._tensor_methods[name]
        if rec is None:
            self.fail(node, f"a tensor has no attribute {name!r}")
        if isinstance(rec, R.Static):
            return rec.value
        if isinstance(rec, R.Unsupported):
            self.fail(node, rec.reason, Kind.UNSUPPORTED)
        if isinstance(rec, R.Traced) and rec.is_property:
            return self.call_traced(rec.function, [v], {}, node, name)
        return BoundMethod(rec, v, name)

    # -- indexing --
    def visit_Subscript(self, node):
        base = self.realize(self.eval(node.value), node.value)
        key = self.eval(node.slice)
        if isinstance(base, Poison) or has_poison(key):
            return POISON
        key = self.realize_deep(key, node)
        if is_object(base) or any(is_object(k) for k in leaves(key)) or self._mask_read(base, key):
            return self.fallback(operator.getitem, [base, key], {}, node, "indexing x[...]"
                                 if not self._mask_read(base, key) else "x[mask]")
        if isinstance(base, Value):
            return self.getitem(base, key, node)
        key = self.require_static(key, node.slice, "an index into a tuple, list or Python object")
        try:
            return self.owned(base[key])
        except Exception as e:
            self.fail(node, f"{describe(base)}[{key!r}] while compiling: {type(e).__name__}: {e}",
                      Kind.VALUE if isinstance(e, (IndexError, KeyError)) else Kind.TYPE, e)

    @staticmethod
    def _mask_read(base, key) -> bool:
        """``x[mask]`` with a bool mask tensor: its shape depends on the data, so it runs as
        Python (MindSpore's JIT Fallback runs it too)."""
        return isinstance(base, Value) and isinstance(base.type, TensorType) and any(
            isinstance(k, Value) and isinstance(k.type, TensorType) and k.type.dtype is bool_
            for k in (key if type(key) is tuple else (key,)))

    def visit_Slice(self, node):
        parts = []
        for p in (node.lower, node.upper, node.step):
            v = None if p is None else self.require_static(self.eval(p), p, "a slice bound")
            if v is not None and not isinstance(v, (int, np.integer)):
                self.fail(p, f"a slice bound must be an int or None, got {describe(v)}", Kind.TYPE)
            parts.append(None if v is None else int(v))
        return slice(*parts)

    def getitem(self, v: Value, key, node):
        if isinstance(v.type, TupleType):
            return self._tuple_get(v, self.require_static(key, node, "an index into a tuple"), node)
        items = [self.realize(k, node) for k in (key if type(key) is tuple else (key,))]
        n_arrays = sum(isinstance(k, (Value, list, np.ndarray)) for k in items)
        if n_arrays > 1 or (n_arrays == 1 and any(
                isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in items)):
            return self.gather_points(v, items, node)
        gather = self.index_tensor(key, node)
        if gather is not None:
            axis, index = gather
            return self.emit(_OPS["take"], (v, index), {"axis": axis}, node)
        return self.emit(_OPS["getitem"], (v,), {"key": self.tensor_key(key, node)}, node)

    def index_tensor(self, key, node, mask_ok: bool = False) -> tuple[int, Value] | None:
        """``(axis, integer index tensor)`` when ``key`` indexes one axis with a tensor or a
        list/array of ints and has only ``:`` elsewhere (``x[i]``, ``x[:, i]``); None for a
        static key. The rules and messages are PyNative's (``graphcell/_indexing.py``).
        ``mask_ok``: a boolean mask tensor at axis 0 is returned too (``x[mask] = v``)."""
        items = [self.realize(k, node) for k in (key if type(key) is tuple else (key,))]
        arrays = [i for i, k in enumerate(items) if isinstance(k, (Value, list, np.ndarray))]
        if not arrays:
            return None
        pos = arrays[0]
        if len(arrays) > 1 or any(not (isinstance(k, slice) and k == slice(None))
                                  for i, k in enumerate(items) if i != pos):
            self.fail(node, "graphcell supports one integer index tensor per subscript, with "
                            "only ':' in the other positions", Kind.UNSUPPORTED)
        index = items[pos]
        if not isinstance(index, Value):
            index = self.static_index_array(index, node)
        t = index.type
        if isinstance(t, TensorType) and t.dtype is bool_:
            if mask_ok and pos == 0:
                return pos, index
            self.fail(node, "indexing with a boolean mask selects a data-dependent number of "
                            "elements, which graph mode cannot give a static shape; use "
                            "ops.select (or arithmetic with the mask) instead", Kind.UNSUPPORTED)
        if not isinstance(t, TensorType) or not t.dtype.is_int:
            self.fail(node, f"indexing a tensor with {describe(index)} is not supported in graph "
                            "mode: an index tensor must be an integer tensor", Kind.TYPE)
        return pos, index

    def gather_points(self, x: Value, items: list, node) -> Value:
        """``x[i, j]`` with several integer index tensors (lists, or ints among them) at adjacent
        positions and ``:`` elsewhere: numpy's advanced indexing, as one ``gather_nd`` of the
        broadcast indices stacked on a last axis (negative indices wrap, as in PyNative)."""
        adv = [i for i, k in enumerate(items) if not (isinstance(k, slice) and k == slice(None))]
        first, last = adv[0], adv[-1]
        xt = x.type
        if adv != list(range(first, last + 1)) or Ellipsis in items or None in items or \
                len(items) > len(xt.shape):
            self.fail(node, "indexing with several index tensors is supported in graph mode when "
                            "they (and ints among them) are adjacent, with only ':' elsewhere",
                      Kind.UNSUPPORTED)
        index = []
        for pos in adv:
            k = items[pos]
            if not isinstance(k, Value):
                if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer, list,
                                                                         np.ndarray)):
                    self.fail(node, f"indexing a tensor with {describe(k)} among index tensors is "
                                    "not supported in graph mode", Kind.UNSUPPORTED)
                k = self.static_index_array(k, node)
            if not isinstance(k.type, TensorType) or not k.type.dtype.is_int:
                self.fail(node, f"indexing a tensor with {describe(k)} is not supported in graph "
                                "mode: index tensors must be integer tensors", Kind.TYPE)
            index.append(k)
        try:
            shape = tuple(np.broadcast_shapes(*(tuple(k.type.shape) for k in index)))
        except ValueError:
            self.fail(node, "the index tensors do not broadcast together: shapes "
                            f"{[list(k.type.shape) for k in index]}", Kind.VALUE)
        self.b.loc = self.loc(node)
        with self.op_errors(node), F.using_emitter(self.emitter):
            cols = []
            for pos, k in zip(adv, index):
                k = F.cast(k, dtype=int64) if k.type.dtype is not int64 else k
                k = F.select(F.less(k, 0), F.add(k, xt.shape[pos]), k)   # wrap negatives
                if tuple(k.type.shape) != shape:
                    k = F.broadcast_to(k, shape=shape)
                cols.append(F.expand_dims(k, axis=-1))
            lead = list(range(first))
            if lead:   # the indexed axes first, for gather_nd
                perm = tuple(adv) + tuple(lead) + tuple(range(last + 1, len(xt.shape)))
                x = F.transpose(x, perm=perm)
            out = F.gather_nd(x, F.concat(*cols, axis=-1) if len(cols) > 1 else cols[0])
            if lead:   # numpy puts the indexed block where it was
                n, b = len(lead), len(shape)
                out = F.transpose(out, perm=tuple(range(b, b + n)) + tuple(range(b)) +
                                  tuple(range(b + n, len(out.type.shape))))
        return out

    def static_index_array(self, index, node) -> Value:
        """A list or numpy array used as an index, as a constant int64 index tensor."""
        arr = np.asarray(index)
        self.b.loc = self.loc(node)
        if arr.dtype == np.bool_:
            return self.b.const(arr)
        if arr.dtype.kind not in "iu":
            self.fail(node, f"index lists and arrays must hold ints, got dtype {arr.dtype}",
                      Kind.TYPE)
        return self.b.const(arr.astype(np.int64))

    def _tuple_get(self, v: Value, index, node):
        self.b.loc = self.loc(node)
        with self.op_errors(node):
            return self.b.tuple_get(v, int(index))

    def tensor_key(self, key, node) -> tuple:
        items = key if type(key) is tuple else (key,)
        out = []
        for k in items:
            k = self.realize(k, node)
            if isinstance(k, Value):
                self.fail(node, f"indexing a tensor with {describe(k)} is not supported in graph "
                                "mode yet: the index must be known while compiling (ints, "
                                "slices, None, ...)", Kind.UNSUPPORTED)
            if k is None or k is Ellipsis or isinstance(k, slice):
                out.append(k)
            elif isinstance(k, (bool, np.bool_)):
                self.fail(node, "indexing a tensor with a bool is not supported in graph mode",
                          Kind.UNSUPPORTED)
            elif isinstance(k, (int, np.integer)):
                out.append(int(k))
            else:
                self.fail(node, f"indexing a tensor with {describe(k)} is not supported in graph "
                                "mode (use ints, slices, None and ...)", Kind.UNSUPPORTED)
        return tuple(out)

    # -- iteration --
    def iterate(self, v, node, what: str = "iterating") -> list:
        """The items of ``v`` while compiling: a tuple/list's elements, a tensor's rows
        (``x[0]``, ``x[1]``...), a static Python iterable's items."""
        v = self.realize(v, node)
        if isinstance(v, Poison):
            raise PoisonAbort()
        if type(v) in (tuple, list):
            return list(v)
        if type(v) is dict:
            return list(v)
        if is_object(v):
            self.fail(node, f"{what} over a run-time Python object (JIT Fallback) is not "
                            "supported in graph mode: its length is only known when the graph "
                            "runs", Kind.UNSUPPORTED)
        if isinstance(v, Value):
            t = v.type
            if isinstance(t, TupleType):
                return [self._tuple_get(v, i, node) for i in range(len(t.elements))]
            if not isinstance(t, TensorType) or not t.shape:
                self.fail(node, f"{what} over {describe(v)}: a 0-d tensor is not iterable",
                          Kind.TYPE)
            return [self.emit(_OPS["getitem"], (v,), {"key": (i,)}, node)
                    for i in range(t.shape[0])]
        if isinstance(v, (Closure, BoundMethod)):
            self.fail(node, f"{describe(v)} is not iterable", Kind.TYPE)
        try:
            it = iter(v)
            out = []
            for x in it:
                out.append(x)
                if len(out) > MAX_ITEMS:
                    self.fail(node, f"{what} over {describe(v)} gave more than {MAX_ITEMS} items "
                                    "while compiling", Kind.UNSUPPORTED)
            return out
        except TypeError as e:
            self.fail(node, f"{describe(v)} is not iterable", Kind.TYPE, e)

    # -- comprehensions --
    def visit_ListComp(self, node):
        return self.comprehension(node, lambda: [self.eval(node.elt)], list)

    def visit_GeneratorExp(self, node):
        # materialised as a tuple: graph mode has no lazy generators, only their values
        return self.comprehension(node, lambda: [self.eval(node.elt)], tuple)

    def visit_SetComp(self, node):
        self.refuse_in_user_code(node, "a set comprehension", "use a list, or set(...)")
        items = self.comprehension(node, lambda: [self.eval(node.elt)], list)
        return set(self.require_static(items, node, "a set's elements"))

    def visit_DictComp(self, node):
        pairs = self.comprehension(node, lambda: [(self.require_static(
            self.eval(node.key), node.key, "a dict key"), self.eval(node.value))], list)
        return dict(pairs)

    def comprehension(self, node, element, kind):
        frame = self.frame
        saved, saved_scope = frame.vars, frame.comprehension
        frame.vars = dict(saved)  # the loop variables are the comprehension's own
        targets = {n.id for gen in node.generators for n in ast.walk(gen.target)
                   if isinstance(n, ast.Name)}
        frame.comprehension = {**saved_scope, **dict.fromkeys(targets, frame.vars)}
        out: list = []
        try:
            self._generators(node.generators, 0, element, out)
        except _Poisoned:
            return POISON
        finally:
            frame.vars, frame.comprehension = saved, saved_scope
        return kind(out)

    def _generators(self, gens, i: int, element, out: list) -> None:
        if i == len(gens):
            out.extend(element())
            return
        gen = gens[i]
        if gen.is_async:
            self.fail(gen, "an async comprehension is not supported in graph mode",
                      Kind.UNSUPPORTED)
        src = self.realize(self.eval(gen.iter), gen.iter)
        if isinstance(src, Poison):
            raise _Poisoned()
        if isinstance(src, Value):
            self.fail(gen.iter, f"a comprehension over {describe(src)} is not supported in graph "
                                "mode: use a for loop, or ops on the whole tensor",
                      Kind.UNSUPPORTED)
        for item in self.iterate(src, gen.iter, "a comprehension"):
            self.assign(gen.target, item, gen)
            keep = True
            for cond in gen.ifs:
                t = self.truth(self.eval(cond), cond)
                if isinstance(t, Value):
                    self.fail(cond, "a comprehension filtered by a tensor condition is not "
                                    "supported in graph mode", Kind.UNSUPPORTED)
                if not t:
                    keep = False
                    break
            if keep:
                self._generators(gens, i + 1, element, out)

    # -- functions made in the code --
    def visit_Lambda(self, node):
        return self.make_closure(node, "<lambda>", node.body)

    def make_closure(self, node, name: str, body) -> Closure:
        """A ``lambda`` or nested ``def``: its free names are looked up in this frame when it is
        called (Python's late binding), so a captured tensor is the value the variable holds at
        the call — visible there, since closures are inlined where they are called. A closure
        compiled into a Function of its own (a gradient transform) gets the tensors it captures
        as extra arguments (``grads._capture``); they are constants to that gradient, as
        closed-over values are to ``jax.grad``. Made in a comprehension, it also reads the
        comprehension's variables as they are when it is called (``[lambda: x * i for i in
        range(3)]``: each reads the last ``i``, as in Python), after the comprehension too."""
        return Closure(node, self.frame, self.frame.vars, self._signature(node.args), name,
                       dict(self.frame.comprehension))

    def _signature(self, args: ast.arguments) -> inspect.Signature:
        P = inspect.Parameter
        params = []
        pos = args.posonlyargs + args.args
        defaults = [self.eval(d) for d in args.defaults]
        first_default = len(pos) - len(defaults)
        for i, a in enumerate(pos):
            kind = P.POSITIONAL_ONLY if i < len(args.posonlyargs) else P.POSITIONAL_OR_KEYWORD
            d = defaults[i - first_default] if i >= first_default else P.empty
            params.append(P(a.arg, kind, default=d))
        if args.vararg is not None:
            params.append(P(args.vararg.arg, P.VAR_POSITIONAL))
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            params.append(P(a.arg, P.KEYWORD_ONLY,
                            default=P.empty if d is None else self.eval(d)))
        if args.kwarg is not None:
            params.append(P(args.kwarg.arg, P.VAR_KEYWORD))
        return inspect.Signature(params)

    # -- unsupported expressions --
    def visit_Yield(self, node):
        self.fail(node, "'yield' (a generator) is not supported in graph mode", Kind.UNSUPPORTED)

    def visit_YieldFrom(self, node):
        self.fail(node, "'yield from' (a generator) is not supported in graph mode",
                  Kind.UNSUPPORTED)

    def visit_Await(self, node):
        self.fail(node, "'await' is not supported in graph mode", Kind.UNSUPPORTED)


class _Poisoned(Exception):
    """A comprehension over a poisoned value: its value is poison too (already reported)."""


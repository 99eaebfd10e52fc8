"""The types of the kernel language and its typing rules, numba's for the same source.

A value is a scalar (a numpy dtype: bool, the integers, float32, float64), an :class:`Array` (a
C-contiguous array of one dtype and rank), a :class:`Shape` (``x.shape``) or a name the language
knows (:class:`Builtin`: a cast, ``min``, ``math.exp``...; :class:`Function`: another function of
the module). The rules are numba's, so the same source computes the same bits under either
compiler: integers and bools compute in int64 (``int32 + int32`` is int64); a float mixed with
an integer takes numpy's promotion (``int64 * float32`` is float64, ``int8 * float32`` float32);
``/`` of integers is float64; comparisons give bool.

:func:`infer_locals` gives each local name one type, unifying all its assignments (``s = 0``
then ``s += 0.5`` makes ``s`` float64), as numba's type inference does.

    >>> binop_type("Add", I32, I32), binop_type("Div", I64, I64), binop_type("Mult", I64, F32)
    (dtype('int64'), dtype('float64'), dtype('float64'))
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from graphcell_ir.backend.lower import Unsupported

BOOL, I8, I16, I32, I64, U8 = (np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64",
                                                     "uint8"))
F32, F64 = np.dtype("float32"), np.dtype("float64")
SCALARS = frozenset({BOOL, I8, I16, I32, I64, U8, F32, F64})
"""The scalar types the language computes with (float16 and the wider unsigned types are
refused: numba's rules for them are not worth copying for kernels that never use them)."""

CASTS = {"bool_": BOOL, "int8": I8, "int16": I16, "int32": I32, "int64": I64, "uint8": U8,
         "float32": F32, "float64": F64, "bool": BOOL, "int": I64, "float": F64}
"""Callables that convert their argument: numpy's scalar types (bare, as the kernel header
imports them, or ``np.float32``) and Python's ``bool``/``int``/``float``."""

MATH_FLOAT = frozenset({"exp", "log", "sqrt", "sin", "cos", "tan", "erf", "erfc", "log1p",
                        "expm1", "tanh", "atan", "asin", "acos", "sinh", "cosh", "fabs", "log10",
                        "log2"})
"""``math`` functions of one float (an integer argument is taken as float64)."""
MATH_PREDICATES = frozenset({"isnan", "isinf", "isfinite"})
MATH_FLOAT2 = frozenset({"atan2"})
"""``math`` functions of two floats (numba: float32 with float32 stays float32, else float64)."""
MATH_CONSTANTS = {"inf": float("inf"), "nan": float("nan"), "pi": np.pi, "e": np.e}


@dataclass(frozen=True)
class Array:
    """A C-contiguous array: what a kernel argument or a view of one is."""

    dtype: np.dtype
    ndim: int


@dataclass(frozen=True)
class Shape:
    """``x.shape`` of an array of rank ``ndim``: indexed or unpacked, never stored."""

    ndim: int


@dataclass(frozen=True)
class Builtin:
    """A callable the language knows: ``cast:<dtype>``, ``min``, ``max``, ``abs``, ``fma``,
    ``math:<name>``, ``range``."""

    name: str


@dataclass(frozen=True)
class Function:
    """Another function of the kernel's module (compiled inline at each call)."""

    name: str


@dataclass(frozen=True)
class Namespace:
    """``math`` or ``np``: only their attributes are values."""

    name: str


def is_int(t) -> bool:
    return isinstance(t, np.dtype) and t.kind in "iub"


def is_float(t) -> bool:
    return isinstance(t, np.dtype) and t.kind == "f"


def scalar(t, what: str) -> np.dtype:
    if not isinstance(t, np.dtype):
        raise Unsupported(f"{what} is not a number ({t})")
    if t not in SCALARS:
        raise Unsupported(f"{what} has type {t}, which the code generator does not compute with")
    return t


def unify(a, b):
    """The one type of a name (or a conditional expression) that is ``a`` here and ``b``
    there: numba's unification (ints widen to int64, a float and an int to their promotion)."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if isinstance(a, np.dtype) and isinstance(b, np.dtype):
        if is_int(a) and is_int(b):
            return I64
        return np.promote_types(a, b)
    raise Unsupported(f"a name holds both {a} and {b}")


def arith(a, b) -> np.dtype:
    """The type two numbers compute in (``+ - * // %``, comparisons, min/max)."""
    a, b = scalar(a, "an operand"), scalar(b, "an operand")
    if is_int(a) and is_int(b):
        return I64
    return np.promote_types(a, b)


BITWISE = frozenset({"BitAnd", "BitOr", "BitXor"})
SHIFTS = frozenset({"LShift", "RShift"})


def binop_type(op: str, a, b) -> np.dtype:
    """The result type of ``a <op> b`` (``op`` is the ``ast`` operator's class name)."""
    t = arith(a, b)
    if op in BITWISE or op in SHIFTS:   # numba: integers in int64, bool & bool stays bool
        if is_float(t):
            raise Unsupported(f"the operator {op} on {a} and {b} (numba refuses floats)")
        return BOOL if op in BITWISE and a == BOOL and b == BOOL else I64
    if op == "Div":
        return F64 if is_int(t) else t
    if op == "Pow" and is_float(t) and not (is_float(a) and is_float(b)):
        raise Unsupported("** of a float and an integer (numba multiplies in a loop there; "
                          "float ** float and int ** int are compiled)")
    if op not in ("Add", "Sub", "Mult", "FloorDiv", "Mod", "Pow"):
        raise Unsupported(f"the operator {op}")
    return t


def unary_type(op: str, a) -> np.dtype:
    a = scalar(a, "an operand")
    if op == "Not":
        return BOOL
    if op == "Invert":   # numba follows numpy: ~ of a bool is its negation, not Python's -2
        if is_float(a):
            raise Unsupported(f"the operator ~ on {a}")
        return BOOL if a == BOOL else I64
    if op not in ("USub", "UAdd"):
        raise Unsupported(f"the operator {op}")
    return I64 if is_int(a) else a


def call_type(fn: Builtin, args: list):
    """The result type of a call of a builtin on arguments of types ``args``."""
    name = fn.name
    if name.startswith("cast:"):
        if len(args) != 1:
            raise Unsupported(f"{name[5:]}() of {len(args)} arguments")
        if args[0] != "str":
            scalar(args[0], f"the argument of {name[5:]}()")
        return np.dtype(name[5:])
    if name in ("min", "max"):
        if len(args) < 2:
            raise Unsupported(f"{name}() of one argument (an iterable)")
        t = scalar(args[0], f"an argument of {name}()")
        for a in args[1:]:   # numba's do_minmax unifies as it folds
            t = unify(t, scalar(a, f"an argument of {name}()"))
        return t
    if name == "abs":
        (a,) = args
        a = scalar(a, "the argument of abs()")
        return I64 if is_int(a) else a
    if name == "fma":   # graphcell_ir.backend.fma: as numba's math functions of two floats
        if len(args) != 3:
            raise Unsupported(f"fma() of {len(args)} arguments")
        ts = [scalar(x, "an argument of fma()") for x in args]
        return F32 if all(t == F32 for t in ts) else F64
    if name.startswith("math:") and name[5:] in MATH_FLOAT2:
        if len(args) != 2:
            raise Unsupported(f"math.{name[5:]}() of {len(args)} arguments")
        a, b = (scalar(x, f"an argument of math.{name[5:]}()") for x in args)
        return F32 if a == b == F32 else F64
    if name.startswith("math:"):
        f = name[5:]
        if len(args) != 1:
            raise Unsupported(f"math.{f}() of {len(args)} arguments")
        a = scalar(args[0], f"the argument of math.{f}()")
        if f in MATH_PREDICATES:
            return BOOL
        return F64 if is_int(a) else a
    raise Unsupported(f"a call of {name}")


# --- names -----------------------------------------------------------------------------------

def global_value(name: str, functions) -> object:
    """What a module-level name is, or Unsupported."""
    if name in CASTS:
        return Builtin(f"cast:{CASTS[name].name}")
    if name in ("min", "max", "abs", "fma"):
        return Builtin(name)
    if name in ("range", "prange"):
        return Builtin("range")
    if name in ("math", "np", "numpy"):
        return Namespace("np" if name == "numpy" else name)
    if name in functions:
        return Function(name)
    raise Unsupported(f"the name {name!r}")


def attribute_value(ns: Namespace, attr: str):
    """``math.<attr>`` or ``np.<attr>``."""
    if ns.name == "math" and (attr in MATH_FLOAT or attr in MATH_PREDICATES
                              or attr in MATH_FLOAT2):
        return Builtin(f"math:{attr}")
    if attr in MATH_CONSTANTS:
        return F64
    if ns.name == "np" and attr in CASTS and attr not in ("bool", "int", "float"):
        return Builtin(f"cast:{CASTS[attr].name}")
    raise Unsupported(f"{ns.name}.{attr}")


# --- the types of expressions ------------------------------------------------------------------

class Typer:
    """The type of each expression, given the types of the names in scope (``env``: locals,
    parameters, lambda parameters) and the module's function names."""

    def __init__(self, functions, memo: dict | None = None):
        self.functions = functions   # name -> FunctionDef of the module
        self.memo = memo
        self.returns: dict = {}      # (name, argument types) -> what the function returns

    def memoized(self) -> "Typer":
        """A typer that remembers each node's type: for lowering, once the locals' types are
        settled (every node then has one type; a nested template would otherwise be typed
        again at every level)."""
        t = Typer(self.functions, {})
        t.returns = self.returns
        return t

    def return_type(self, name: str, args: tuple):
        """What function ``name`` returns for arguments of types ``args`` (None: nothing)."""
        key = (name, args)
        if key not in self.returns:
            node = self.functions[name]
            params = [a.arg for a in node.args.args]
            if len(params) != len(args):
                raise Unsupported(f"{name}() takes {len(params)} arguments, not {len(args)}")
            self.returns[key] = None   # a recursive call, while typing, returns nothing yet
            self.returns[key] = infer_locals(node, dict(zip(params, args)), self).get(RETURN)
        return self.returns[key]

    def name(self, node: ast.Name, env: dict):
        if node.id in env:
            return env[node.id]
        return global_value(node.id, self.functions)

    def expr(self, node: ast.expr, env: dict):
        if self.memo is not None and id(node) in self.memo:
            return self.memo[id(node)]
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise Unsupported(f"a {type(node).__name__} expression")
        t = method(node, env)
        if self.memo is not None:
            self.memo[id(node)] = t
        return t

    def _Name(self, node, env):
        return self.name(node, env)

    def _Constant(self, node, env):
        v = node.value
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            return I64
        if isinstance(v, float):
            return F64
        if isinstance(v, str):
            return "str"
        raise Unsupported(f"the constant {v!r}")

    def _Attribute(self, node, env):
        base = self.expr(node.value, env)
        if isinstance(base, Namespace):
            return attribute_value(base, node.attr)
        if isinstance(base, Array) and node.attr == "shape":
            return Shape(base.ndim)
        if isinstance(base, Array) and node.attr in ("size", "ndim"):
            return I64
        raise Unsupported(f"the attribute .{node.attr} of {base}")

    def _Subscript(self, node, env):
        base = self.expr(node.value, env)
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(i, ast.Slice) for i in index):
            raise Unsupported("a slice (x[a:b]): slices are not compiled")
        if isinstance(base, Shape):
            if len(index) != 1 or not isinstance(index[0], ast.Constant):
                raise Unsupported("x.shape indexed by anything but a constant")
            return I64
        if not isinstance(base, Array):
            raise Unsupported(f"indexing a {base}")
        for i in index:
            if not is_int(self.expr(i, env)):
                raise Unsupported("an index that is not an integer (slices are not compiled)")
        if len(index) > base.ndim:
            raise Unsupported(f"{len(index)} indices into an array of rank {base.ndim}")
        if len(index) == base.ndim:
            return base.dtype
        return Array(base.dtype, base.ndim - len(index))

    def _BinOp(self, node, env):
        return binop_type(type(node.op).__name__, self.expr(node.left, env),
                          self.expr(node.right, env))

    def _UnaryOp(self, node, env):
        return unary_type(type(node.op).__name__, self.expr(node.operand, env))

    def _BoolOp(self, node, env):
        for v in node.values:
            if self.expr(v, env) != BOOL:
                raise Unsupported("and/or of values that are not bool (write bool(x))")
        return BOOL

    def _Compare(self, node, env):
        operands = [node.left] + list(node.comparators)
        for op in node.ops:
            if type(op).__name__ not in ("Lt", "LtE", "Gt", "GtE", "Eq", "NotEq"):
                raise Unsupported(f"the comparison {type(op).__name__}")
        for a, b in zip(operands, operands[1:]):
            arith(self.expr(a, env), self.expr(b, env))
        return BOOL

    def _IfExp(self, node, env):
        if self.expr(node.test, env) != BOOL:
            scalar(self.expr(node.test, env), "a condition")
        a, b = self.expr(node.body, env), self.expr(node.orelse, env)
        scalar(a, "a branch of a conditional expression")
        scalar(b, "a branch of a conditional expression")
        return unify(a, b)

    def _Call(self, node, env):
        if node.keywords:
            raise Unsupported("keyword arguments")
        if isinstance(node.func, ast.Lambda):
            return self.expr(node.func.body, self.lambda_env(node, env))
        fn = self.expr(node.func, env)
        args = [self.expr(a, env) for a in node.args]
        if isinstance(fn, Function):
            t = self.return_type(fn.name, tuple(args))
            if t is None:
                raise Unsupported(f"the value of a call of {fn.name}(), which returns nothing")
            return t
        if not isinstance(fn, Builtin) or fn.name == "range":
            raise Unsupported(f"a call of {fn}")
        return call_type(fn, args)

    def lambda_env(self, node: ast.Call, env: dict) -> dict:
        """The scope of an immediately called lambda's body: its parameters bound."""
        lam = node.func
        params = [a.arg for a in lam.args.args]
        if (lam.args.vararg or lam.args.kwarg or lam.args.kwonlyargs or lam.args.defaults
                or lam.args.posonlyargs or len(params) != len(node.args)):
            raise Unsupported("a lambda with other than plain positional parameters")
        inner = dict(env)
        for p, a in zip(params, node.args):
            inner[p] = self.expr(a, env)
        return inner


# --- the types of a function's locals -----------------------------------------------------------

def located(e: Unsupported, function: str, line: int) -> Unsupported:
    """``e`` with the function and line it is about (once: the innermost place wins)."""
    if getattr(e, "located", False):
        return e
    err = Unsupported(f"{function}, line {line}: {e}")
    err.located = True
    return err


RETURN = "<return>"
"""The key under which :func:`infer_locals` gives what the function returns (absent: nothing)."""


def infer_locals(fn: ast.FunctionDef, params: dict, typer: Typer) -> dict:
    """The type of every name of ``fn`` (parameters included): each local's assignments unified,
    iterated until no type changes (a name read before any assignment that types it is an
    error); under :data:`RETURN`, the unified type of its ``return`` values (a scalar)."""
    env = dict(params)
    for _ in range(20):
        before = dict(env)
        _assign_types(fn.body, env, typer, final=False, where=fn.name)
        if env == before:
            _assign_types(fn.body, env, typer, final=True, where=fn.name)
            return env
    raise Unsupported(f"{fn.name}: the types of the locals do not settle")


def _assign_types(body: list, env: dict, typer: Typer, final: bool, where: str) -> None:
    for st in body:
        try:
            _assign_type(st, env, typer, final, where)
        except Unsupported as e:
            raise located(e, where, st.lineno) from None


def _assign_type(st: ast.stmt, env: dict, typer: Typer, final: bool, where: str) -> None:
    def value(expr):
        try:
            return typer.expr(expr, env)
        except (Unsupported, KeyError):
            if final:
                raise
            return None

    def bind(name: str, t) -> None:
        if t is None:
            return
        env[name] = unify(env.get(name), t)

    if isinstance(st, ast.Assign):
        if len(st.targets) != 1:
            raise Unsupported("a chained assignment")
        target = st.targets[0]
        if isinstance(target, ast.Name):
            bind(target.id, value(st.value))
        elif isinstance(target, ast.Tuple):
            if not all(isinstance(e, ast.Name) for e in target.elts):
                raise Unsupported("tuple unpacking into anything but names")
            if isinstance(st.value, ast.Tuple):   # a, b = x.shape[0], x.shape[1]
                if len(st.value.elts) != len(target.elts):
                    raise Unsupported("tuple unpacking of another number of values")
                for e, v in zip(target.elts, st.value.elts):
                    bind(e.id, value(v))
                return
            t = value(st.value)
            if t is None:
                return
            if not isinstance(t, Shape) or len(target.elts) != t.ndim:
                raise Unsupported("tuple unpacking of anything but x.shape or a tuple")
            for e in target.elts:
                bind(e.id, I64)
        elif not isinstance(target, ast.Subscript):
            raise Unsupported(f"assignment to a {type(target).__name__}")
        elif final:
            value(target)
            value(st.value)
    elif isinstance(st, ast.AugAssign):
        if isinstance(st.target, ast.Name):
            cur, rhs = env.get(st.target.id), value(st.value)
            if cur is not None and rhs is not None:
                bind(st.target.id, binop_type(type(st.op).__name__, cur, rhs))
        elif final:
            value(st.target)
            value(st.value)
    elif isinstance(st, ast.For):
        if not isinstance(st.target, ast.Name):
            raise Unsupported("a for loop over anything but one name")
        bind(st.target.id, I64)
        _assign_types(st.body, env, typer, final, where)
        if st.orelse:
            raise Unsupported("for ... else")
    elif isinstance(st, ast.While):
        if st.orelse:
            raise Unsupported("while ... else")
        _assign_types(st.body, env, typer, final, where)
    elif isinstance(st, ast.If):
        _assign_types(st.body, env, typer, final, where)
        _assign_types(st.orelse, env, typer, final, where)
    elif isinstance(st, ast.Return) and st.value is not None:
        t = value(st.value)
        if t is not None:
            bind(RETURN, scalar(t, "a returned value"))

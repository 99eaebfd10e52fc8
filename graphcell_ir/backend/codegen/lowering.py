"""Lowering a kernel function's Python AST to LLVM IR (llvmlite.ir), numba's semantics.

One :class:`FunctionLowering` per function and argument types. Every local lives in an
``alloca`` of its inferred type (LLVM's mem2reg turns them into SSA values), so loop-carried
accumulators and names assigned in branches need nothing special; an array parameter the
function never rebinds is its arguments themselves (fewer instructions for LLVM to promote). An array is its data pointer
and its dimensions (C order: no strides); a view ``x[n, c]`` is a pointer and the trailing
dimensions. Conditional expressions and ``and``/``or`` branch, so a guarded read
(``x[i] if 0 <= i < n else 0``) never loads out of bounds; LLVM turns what is safe into selects.

Semantics copied from numba (``error_model="numpy"``): negative indices wrap once; integer ``//``
and ``%`` floor, and give 0 for a zero divisor or ``MIN // -1``; float ``//`` and ``%`` follow
CPython's ``float_divmod`` (numba's ``real_divmod``), a zero divisor giving ``x / 0`` and
``fmod``; ``max(a, b)`` is ``b if b > a else a`` (so a NaN first argument stays); float-to-int
conversion truncates. A float stored into an integer array converts; a bool is a byte in memory.

Example::

    >>> import ast
    >>> from graphcell_ir.backend.codegen.typerules import Array, F32
    >>> src = "def scale(x, a, out):\\n    for i in range(x.shape[0]):\\n        out[i] = x[i] * a\\n"
    >>> mod = ModuleLowering(ast.parse(src))
    >>> fn = mod.function("scale", (Array(F32, 1), F32, Array(F32, 1)))
    >>> "fmul float" in str(mod.module)
    True
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import llvmlite.ir as ir
import numpy as np

from graphcell_ir.backend.codegen import parallel
from graphcell_ir.backend.codegen import typerules as T
from graphcell_ir.backend.codegen.arith import Arith
from graphcell_ir.backend.codegen.llvmtypes import (I1, I8, I64, PTR, VOID, memory_type,
                                                   param_types, value_type)
from graphcell_ir.backend.lower import Unsupported


@dataclass
class ArrayValue:
    """An array in registers: its data pointer and its dimensions (C order)."""

    ptr: ir.Value
    dims: list


@dataclass
class Local:
    """A name's storage: one alloca, or an array's pointer and dimension allocas."""

    type: object
    slots: list


class ModuleLowering:
    """The functions of one kernel module, lowered on demand into one LLVM module (each function
    once per argument types; helpers are internal and always inlined)."""

    def __init__(self, tree: ast.Module, no_overflow: bool = False,
                 parallel_entry: str | None = None, noalias: bool = False):
        self.no_overflow = no_overflow
        self.noalias = noalias                 # the entry's arrays never overlap one it writes
        self.parallel_entry = parallel_entry   # whose last prange loop runs on the pool
        self.defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.module = ir.Module(name="graphcell_codegen")
        self.typer = T.Typer(self.defs)
        self.lowered: dict[tuple, ir.Function] = {}
        self.declared: dict[str, ir.Function] = {}

    def function(self, name: str, arg_types: tuple, symbol: str | None = None) -> ir.Function:
        """The LLVM function of ``name`` for ``arg_types`` (lowered now if it is new)."""
        key = (name, arg_types)
        fn = self.lowered.get(key)
        if fn is None:
            node = self.defs.get(name)
            if node is None:
                raise Unsupported(f"no function {name!r} in the module")
            symbol = symbol or f"gc.{name}.{len(self.lowered)}"
            ret = self.typer.return_type(name, arg_types)
            fnty = ir.FunctionType(VOID if ret is None else value_type(ret),
                                   [p for t in arg_types for p in param_types(t)])
            fn = self.lowered[key] = ir.Function(self.module, fnty, symbol)
            FunctionLowering(self, node, arg_types, fn).run()
        return fn

    def declare(self, name: str, ret: ir.Type, args: list) -> ir.Function:
        fn = self.declared.get(name)
        if fn is None:
            fn = self.declared[name] = ir.Function(self.module, ir.FunctionType(ret, args), name)
        return fn

    def intrinsic(self, name: str, t: ir.Type, nargs: int = 1) -> ir.Function:
        suffix = "f32" if isinstance(t, ir.FloatType) else "f64"
        return self.declare(f"llvm.{name}.{suffix}", t, [t] * nargs)


class FunctionLowering:
    """One function of the module for one tuple of argument types, lowered into ``fn``: the
    statements in order, each expression as ``(value, type)``, types from :mod:`.typerules`
    and scalar operations from :class:`~.arith.Arith`."""

    def __init__(self, mod: ModuleLowering, node: ast.FunctionDef, arg_types: tuple,
                 fn: ir.Function):
        self.mod, self.node, self.fn = mod, node, fn
        names = [a.arg for a in node.args.args]
        if (node.args.vararg or node.args.kwarg or node.args.kwonlyargs or node.args.defaults
                or len(names) != len(arg_types)):
            raise Unsupported(f"{node.name}() takes other than {len(arg_types)} plain parameters")
        self.params = dict(zip(names, arg_types))
        self.types = T.infer_locals(node, self.params, mod.typer)
        self.returns = self.types.pop(T.RETURN, None)   # the type of what it returns, if any
        self.typer = mod.typer.memoized()
        self.locals: dict[str, Local] = {}
        self.lambdas: list[dict] = []      # scopes of lambda parameters: name -> (value, type)
        self.loops: list[tuple] = []       # (continue block, break block)
        self.counters, self.bound, self.non_negative = _bindings(node)   # see _bindings
        self.fixed: dict = {}   # parameters never rebound: the arguments (ArrayValue or scalar)

    # -- the function --
    def run(self) -> None:
        entry = self.fn.append_basic_block("entry")
        self.b = ir.IRBuilder(entry)
        self.A = Arith(self.b, self.mod, self.mod.no_overflow)
        args = iter(self.fn.args)
        passed = {name: [next(args) for _ in param_types(t)] for name, t in self.params.items()}
        for name, t in self.params.items():
            if name not in self.bound:
                self.fixed[name] = ArrayValue(passed[name][0], passed[name][1:]) \
                    if isinstance(t, T.Array) else passed[name][0]
        for name, t in self.types.items():
            if name in self.fixed:   # no allocas: nothing for LLVM to promote, nothing to load
                continue
            if isinstance(t, T.Array):
                slots = [self.b.alloca(PTR, name=name)] + \
                    [self.b.alloca(I64, name=f"{name}.d{k}") for k in range(t.ndim)]
            elif isinstance(t, np.dtype):
                slots = [self.b.alloca(value_type(T.scalar(t, name)), name=name)]
            else:
                raise Unsupported(f"the local {name!r} holds a {t}")
            self.locals[name] = Local(t, slots)
        for name in self.params:
            if name not in self.fixed:
                for value, slot in zip(passed[name], self.locals[name].slots):
                    self.b.store(value, slot)
        if self.returns is not None:   # falling off the end returns whatever the slot holds
            self.result = self.b.alloca(value_type(self.returns), name="result")
        self.exit = self.fn.append_basic_block("exit")
        self.block(self.node.body)
        if not self.b.block.is_terminated:
            self.b.branch(self.exit)
        self.b.position_at_end(self.exit)
        if self.returns is None:
            self.b.ret_void()
        else:
            self.b.ret(self.b.load(self.result))

    def block(self, body: list) -> None:
        for st in body:
            if self.b.block.is_terminated:   # after return/break: unreachable, still lowered
                self.b.position_at_end(self.fn.append_basic_block("dead"))
            try:
                self.stmt(st)
            except Unsupported as e:
                raise T.located(e, self.node.name, st.lineno) from None

    # -- statements --
    def stmt(self, st: ast.stmt) -> None:
        method = getattr(self, f"_{type(st).__name__}", None)
        if method is None:
            raise Unsupported(f"a {type(st).__name__} statement")
        method(st)

    def _Pass(self, st):
        pass

    def _Expr(self, st):
        if isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            return   # a docstring
        if isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name):
            callee = self.typeof(st.value.func)
            if isinstance(callee, T.Function):
                self.call_function(callee, st.value)
                return
        self.expr(st.value)

    def _Return(self, st):
        if st.value is not None:
            if self.returns is None:
                raise Unsupported("return of a value from a function that returns nothing")
            v, t = self.expr(st.value)
            self.b.store(self.A.cast(v, t, self.returns), self.result)
        self.b.branch(self.exit)

    def _Break(self, st):
        if not self.loops:
            raise Unsupported("break outside a loop")
        self.b.branch(self.loops[-1][1])

    def _Continue(self, st):
        if not self.loops:
            raise Unsupported("continue outside a loop")
        self.b.branch(self.loops[-1][0])

    def _Assign(self, st):
        target = st.targets[0]
        if isinstance(target, ast.Tuple):   # n, c, h, w = x.shape / a, b = x.shape[0], 1
            if isinstance(st.value, ast.Tuple):
                values = [self.expr(v) for v in st.value.elts]
            else:
                values = [(d, T.I64) for d in self.expr(st.value)[0]]
            for e, (v, t) in zip(target.elts, values):
                self.store_local(e.id, v, t)
            return
        value, t = self.expr(st.value)
        if isinstance(target, ast.Name):
            self.store_local(target.id, value, t)
        else:
            ptr, elem = self.element_address(target)
            if self.mod.noalias and _accumulates(target, st.value, elem):
                value.flags.append("reassoc")   # see _accumulates
            self.store_element(ptr, elem, value, t)

    def _AugAssign(self, st):
        op = type(st.op).__name__
        if isinstance(st.target, ast.Name):
            cur, ct = self.load_local(st.target.id)
            rhs, rt = self.expr(st.value)
            value, t = self.A.binop(op, cur, ct, rhs, rt)
            self.store_local(st.target.id, value, t)
            return
        ptr, elem = self.element_address(st.target)   # the target's index is evaluated once
        cur = self.load_element(ptr, elem)
        rhs, rt = self.expr(st.value)
        value, t = self.A.binop(op, cur, elem, rhs, rt)
        self.store_element(ptr, elem, value, t)

    def _If(self, st):
        cond = self.A.truth(*self.expr(st.test))
        then = self.fn.append_basic_block("if.then")
        other = self.fn.append_basic_block("if.else") if st.orelse else None
        done = self.fn.append_basic_block("if.end")
        self.b.cbranch(cond, then, other or done)
        self.b.position_at_end(then)
        self.block(st.body)
        if not self.b.block.is_terminated:
            self.b.branch(done)
        if other is not None:
            self.b.position_at_end(other)
            self.block(st.orelse)
            if not self.b.block.is_terminated:
                self.b.branch(done)
        self.b.position_at_end(done)

    def _While(self, st):
        head = self.fn.append_basic_block("while.cond")
        body = self.fn.append_basic_block("while.body")
        done = self.fn.append_basic_block("while.end")
        self.b.branch(head)
        self.b.position_at_end(head)
        self.b.cbranch(self.A.truth(*self.expr(st.test)), body, done)
        self.b.position_at_end(body)
        self.loop_body(st.body, head, done)
        self.b.position_at_end(done)

    def _For(self, st):
        if parallel.outlinable(self, st):
            return parallel.lower_prange(self, st)
        start, stop, step = self.range_of(st.iter)
        counter = self.entry_alloca(I64, "for.i")
        self.b.store(start, counter)
        head = self.fn.append_basic_block("for.cond")
        body = self.fn.append_basic_block("for.body")
        latch = self.fn.append_basic_block("for.inc")
        done = self.fn.append_basic_block("for.end")
        self.b.branch(head)
        self.b.position_at_end(head)
        i = self.b.load(counter)
        going = self.b.icmp_signed("<" if step > 0 else ">", i, stop)
        self.b.cbranch(going, body, done)
        self.b.position_at_end(body)
        self.store_local(st.target.id, i, T.I64)
        self.loop_body(st.body, latch, done)
        self.b.position_at_end(latch)
        self.b.store(self.b.add(self.b.load(counter), I64(step), flags=["nsw"]), counter)
        self.b.branch(head)
        self.b.position_at_end(done)

    def loop_body(self, body: list, next_block, done) -> None:
        """A loop's statements: ``continue`` (and the end) go to ``next_block``, ``break`` to
        ``done``."""
        self.loops.append((next_block, done))
        self.block(body)
        self.loops.pop()
        if not self.b.block.is_terminated:
            self.b.branch(next_block)

    def range_of(self, it: ast.expr) -> tuple:
        """(start, stop, constant step) of ``range(...)``/``prange(...)``."""
        if not (isinstance(it, ast.Call) and isinstance(self.typeof(it.func), T.Builtin)
                and self.typeof(it.func).name == "range" and 1 <= len(it.args) <= 3
                and not it.keywords):
            raise Unsupported("a for loop over anything but range(...)")
        step = 1
        if len(it.args) == 3:
            step = _constant_int(it.args[2])
            if not step:
                raise Unsupported("a range whose step is not a non-zero integer constant")
        bounds = []
        for a in it.args[:2]:
            v, t = self.expr(a)
            if not T.is_int(t):
                raise Unsupported("a range bound that is not an integer")
            bounds.append(self.A.cast(v, t, T.I64))
        start, stop = (I64(0), bounds[0]) if len(bounds) == 1 else bounds
        return start, stop, step

    def entry_alloca(self, t: ir.Type, name: str) -> ir.AllocaInstr:
        here = self.b.block
        self.b.position_at_start(self.fn.entry_basic_block)
        slot = self.b.alloca(t, name=name)
        self.b.position_at_end(here)
        return slot

    # -- names --
    def store_local(self, name: str, value, t) -> None:
        local = self.locals[name]
        if isinstance(local.type, T.Array):
            if t != local.type:
                raise Unsupported(f"{name} holds both {local.type} and {t}")
            self.b.store(value.ptr, local.slots[0])
            for slot, d in zip(local.slots[1:], value.dims):
                self.b.store(d, slot)
        else:
            self.b.store(self.A.cast(value, t, local.type), local.slots[0])

    def load_local(self, name: str):
        fixed = self.fixed.get(name)
        if fixed is not None:
            return fixed, self.params[name]
        local = self.locals[name]
        if isinstance(local.type, T.Array):
            return ArrayValue(self.b.load(local.slots[0]),
                              [self.b.load(s) for s in local.slots[1:]]), local.type
        return self.b.load(local.slots[0]), local.type

    def typeof(self, node: ast.expr):
        t = self.typer.memo.get(id(node))
        if t is not None:
            return t
        env = dict(self.types)
        for scope in self.lambdas:
            env.update({k: t for k, (_, t) in scope.items()})
        return self.typer.expr(node, env)

    # -- expressions: each gives (value, type) --
    def expr(self, node: ast.expr):
        method = getattr(self, f"_e_{type(node).__name__}", None)
        if method is None:
            raise Unsupported(f"a {type(node).__name__} expression")
        return method(node)

    def _e_Constant(self, node):
        t = self.typeof(node)
        if t == "str":
            raise Unsupported("a string")
        return ir.Constant(value_type(t), node.value), t

    def _e_Name(self, node):
        for scope in reversed(self.lambdas):
            if node.id in scope:
                return scope[node.id]
        if node.id in self.locals or node.id in self.fixed:
            return self.load_local(node.id)
        return None, self.typeof(node)

    def _e_Attribute(self, node):
        t = self.typeof(node)
        if isinstance(t, T.Builtin):
            return None, t
        base, bt = self.expr(node.value)
        if isinstance(bt, T.Namespace):
            return ir.Constant(ir.DoubleType(), T.MATH_CONSTANTS[node.attr]), T.F64
        if node.attr == "shape":
            return base.dims, t
        if node.attr == "ndim":
            return I64(bt.ndim), T.I64
        size = I64(1)
        for d in base.dims:
            size = self.b.mul(size, d)
        return size, T.I64

    def _e_Subscript(self, node):
        t = self.typeof(node)
        base, bt = self.expr(node.value)
        if isinstance(bt, T.Shape):
            k = node.slice.value
            if not -bt.ndim <= k < bt.ndim:
                raise Unsupported(f"x.shape[{k}] of a rank-{bt.ndim} array")
            return base[k], T.I64
        if isinstance(t, T.Array):
            return self.view(base, bt, _indices(node)), t
        ptr, elem = self.element_address(node, (base, bt))
        return self.load_element(ptr, elem), elem

    def _e_BinOp(self, node):
        a, at = self.expr(node.left)
        b, bt = self.expr(node.right)
        return self.A.binop(type(node.op).__name__, a, at, b, bt)

    def _e_UnaryOp(self, node):
        v, t = self.expr(node.operand)
        op = type(node.op).__name__
        rt = T.unary_type(op, t)
        if op == "Not":
            return self.b.not_(self.A.truth(v, t)), T.BOOL
        v = self.A.cast(v, t, rt)
        if op == "UAdd":
            return v, rt
        if op == "Invert":
            return (self.b.not_(v) if rt == T.BOOL else self.b.xor(v, v.type(-1))), rt
        return (self.b.neg(v) if T.is_int(rt) else self.b.fneg(v)), rt

    def _e_BoolOp(self, node):
        self.typeof(node)   # checks every operand is a bool
        is_and = isinstance(node.op, ast.And)
        done = self.fn.append_basic_block("bool.end")
        incoming = []
        for k, v in enumerate(node.values):
            value = self.A.truth(*self.expr(v))
            if k == len(node.values) - 1:
                incoming.append((value, self.b.block))
                self.b.branch(done)
                break
            nxt = self.fn.append_basic_block("bool.next")
            incoming.append((I1(0 if is_and else 1), self.b.block))
            if is_and:
                self.b.cbranch(value, nxt, done)
            else:
                self.b.cbranch(value, done, nxt)
            self.b.position_at_end(nxt)
        return self.merge(done, incoming, I1), T.BOOL

    def _e_Compare(self, node):
        """``a < b < c``: ``a < b and b < c``, ``b`` evaluated once."""
        self.typeof(node)
        done = self.fn.append_basic_block("cmp.end")
        incoming = []
        left, lt = self.expr(node.left)
        for k, (op, right_node) in enumerate(zip(node.ops, node.comparators)):
            right, rt = self.expr(right_node)
            value = self.A.compare(type(op).__name__, left, lt, right, rt)
            if k == len(node.ops) - 1:
                incoming.append((value, self.b.block))
                self.b.branch(done)
                break
            nxt = self.fn.append_basic_block("cmp.next")
            incoming.append((I1(0), self.b.block))
            self.b.cbranch(value, nxt, done)
            self.b.position_at_end(nxt)
            left, lt = right, rt
        if len(incoming) == 1:
            self.b.position_at_end(done)
            return incoming[0][0], T.BOOL
        return self.merge(done, incoming, I1), T.BOOL

    def _e_IfExp(self, node):
        t = self.typeof(node)
        cond = self.A.truth(*self.expr(node.test))
        then = self.fn.append_basic_block("ifx.then")
        other = self.fn.append_basic_block("ifx.else")
        done = self.fn.append_basic_block("ifx.end")
        self.b.cbranch(cond, then, other)
        incoming = []
        for block, arm in ((then, node.body), (other, node.orelse)):
            self.b.position_at_end(block)
            v, vt = self.expr(arm)
            incoming.append((self.A.cast(v, vt, t), self.b.block))
            self.b.branch(done)
        return self.merge(done, incoming, value_type(t)), t

    def merge(self, done, incoming: list, ty: ir.Type) -> ir.Value:
        """At the start of block ``done``, the value that arrives from each ``(value, block)``."""
        self.b.position_at_end(done)
        phi = self.b.phi(ty)
        for value, block in incoming:
            phi.add_incoming(value, block)
        return phi

    def _e_Call(self, node):
        if isinstance(node.func, ast.Lambda):   # (lambda a, b: body)(x, y): names for values
            t = self.typeof(node)
            scope = {p.arg: self.expr(a) for p, a in zip(node.func.args.args, node.args)}
            self.lambdas.append(scope)
            try:
                v, vt = self.expr(node.func.body)
            finally:
                self.lambdas.pop()
            return self.A.cast(v, vt, t), t
        fn = self.typeof(node.func)
        if isinstance(fn, T.Function):
            self.typeof(node)   # checks that it returns something
            return self.call_function(fn, node)
        t = self.typeof(node)
        name = fn.name
        if name.startswith("cast:"):
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                try:
                    return ir.Constant(value_type(t), float(arg.value)), t
                except ValueError:
                    raise Unsupported(f"float({arg.value!r})") from None
            v, vt = self.expr(arg)
            if t == T.BOOL:
                return self.A.truth(v, vt), t
            return self.A.cast(v, vt, t), t
        args = [self.expr(a) for a in node.args]
        if name in ("min", "max"):
            return self.A.minmax(name, args)
        if name == "abs":
            v, vt = args[0]
            v = self.A.cast(v, vt, t)
            if T.is_int(t):
                return self.b.select(self.b.icmp_signed("<", v, v.type(0)), self.b.neg(v), v), t
            return self.b.call(self.mod.intrinsic("fabs", v.type), [v]), t
        if name == "fma":
            return self.A.fma(args, t)
        if name[5:] in T.MATH_FLOAT2:
            return self.A.math2(name[5:], args, t)
        return self.A.math(name[5:], *args[0], t)

    # -- calls of module functions --
    def call_function(self, callee: T.Function, node: ast.Call):
        """Call another function of the module (always inlined); ``(value, type)`` of what it
        returns, ``(None, None)`` when it returns nothing."""
        if node.keywords:
            raise Unsupported("keyword arguments")
        values, types = [], []
        for a in node.args:
            v, t = self.expr(a)
            if isinstance(t, T.Array):
                values += [v.ptr] + list(v.dims)
            elif isinstance(t, np.dtype):
                values.append(v)
            else:
                raise Unsupported(f"passing a {t} to {callee.name}()")
            types.append(t)
        fn = self.mod.function(callee.name, tuple(types))
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        result = self.b.call(fn, values)
        t = self.mod.typer.return_type(callee.name, tuple(types))
        return (None, None) if t is None else (result, t)

    # -- arrays --
    def index(self, node: ast.expr, dim):
        """An index as int64, a negative one wrapped once (numba's wraparound)."""
        v, t = self.expr(node)
        v = self.A.cast(v, t, T.I64)
        if isinstance(v, ir.Constant) and v.constant >= 0 or self.is_counter(node) or \
                _non_negative(node, self.non_negative):
            return v
        return self.b.select(self.b.icmp_signed("<", v, I64(0)),
                             self.b.add(v, dim, flags=["nsw"]), v)

    def is_counter(self, node: ast.expr) -> bool:
        """Whether ``node`` names a loop counter never negative (no wraparound to emit: three
        instructions an index that LLVM's passes spend compile time proving dead)."""
        return isinstance(node, ast.Name) and node.id in self.counters

    def offset(self, array: ArrayValue, indices: list):
        """The element offset of the leading ``indices`` (C order), times the trailing size.
        ``nsw`` as numba marks it: an offset never overflows, which lets LLVM see consecutive
        accesses (vector loads instead of gathers)."""
        dims, nsw = array.dims, ["nsw"]
        off = None
        for k, node in enumerate(indices):
            i = self.index(node, dims[k])
            off = i if off is None else self.b.add(self.b.mul(off, dims[k], flags=nsw), i,
                                                   flags=nsw)
        for d in dims[len(indices):]:
            off = self.b.mul(off, d, flags=nsw)
        return off

    def view(self, array: ArrayValue, t: T.Array, indices: list) -> ArrayValue:
        off = self.offset(array, indices)
        ptr = self.b.gep(array.ptr, [off], inbounds=True, source_etype=memory_type(t.dtype))
        return ArrayValue(ptr, array.dims[len(indices):])

    def element_address(self, node: ast.Subscript, base=None):
        array, t = base if base is not None else self.expr(node.value)
        indices = _indices(node)
        if not isinstance(t, T.Array) or len(indices) != t.ndim:
            raise Unsupported("a store into anything but one array element")
        off = self.offset(array, indices)
        return (self.b.gep(array.ptr, [off], inbounds=True, source_etype=memory_type(t.dtype)),
                t.dtype)

    def load_element(self, ptr, dtype):
        v = self.b.load(ptr, typ=memory_type(dtype))
        return self.b.icmp_unsigned("!=", v, I8(0)) if dtype == T.BOOL else v

    def store_element(self, ptr, dtype, value, t) -> None:
        v = self.A.cast(value, T.scalar(t, "a stored value"), dtype)
        if dtype == T.BOOL:
            v = self.b.zext(v, I8)
        self.b.store(v, ptr)


def _accumulates(target: ast.Subscript, value: ast.expr, elem) -> bool:
    """Whether ``target = target + x`` (or ``*``) accumulates into a float64 array element: a
    reduction of ``lower.py``'s kernels (float64 accumulators only). Its add may be reassociated
    (``reassoc``): LLVM then sums in vector lanes, combined in a fixed order at the end, instead
    of one element at a time (4 cycles each) — the order is the compiled code's, the same on
    every call and any number of threads, but not the source's index order."""
    return (elem == T.F64 and isinstance(value, ast.BinOp)
            and isinstance(value.op, (ast.Add, ast.Mult))
            and ast.unparse(value.left) == ast.unparse(target))


def _bindings(fn: ast.FunctionDef) -> tuple[frozenset, frozenset, frozenset]:
    """``(counters, bound, non_negative)`` of ``fn``: the names it binds only as the targets of
    ``for ... in range(...)`` loops counting up from a start that is never negative (not as a
    parameter, a lambda's, nor by any other store: never negative, whatever the bounds), the
    names it binds anywhere in its body (a parameter not among them never changes), and the
    names never negative (those counters and the locals below): an index built from them
    (:func:`_non_negative`) needs no wraparound either (``layout.strided_source``'s flat
    offsets, which otherwise cost a select per element and LLVM's vector loads).

    A start is never negative when it is built from non-negative integer constants, array
    extents, counters and locals assigned once from such an expression, with ``+``, ``*``,
    ``//``, ``min`` of such and ``max`` with one such (``lower.py``'s tiles:
    ``range(t1 * tile, ...)`` after ``tile = max(1, ...)``)."""
    loops, stores, bound, args, assigns = [], {}, set(), set(), []
    for node in ast.walk(fn):   # one walk: the function's nodes are many, its names few
        kind = node.__class__
        if kind is ast.Name:
            if node.ctx.__class__ is not ast.Load:
                bound.add(node.id)
                stores[node.id] = stores.get(node.id, 0) + 1
        elif kind is ast.For:
            if isinstance(node.target, ast.Name):
                loops.append(node)
        elif kind is ast.Assign:
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assigns.append(node)
        elif kind is ast.arg:
            args.add(node.arg)
    once = {a.targets[0].id: a.value for a in assigns   # locals stored once, by a plain
            if stores[a.targets[0].id] == 1}           # assignment: their value
    by_target: dict = {}
    for f in loops:
        by_target.setdefault(f.target.id, []).append(f)
    only_loops = {n for n, fs in by_target.items() if stores[n] == len(fs) and n not in args}
    known: set = set()
    while True:   # a fixpoint: a start may use counters and locals found in an earlier round
        found = {n for n in only_loops
                 if all(_counts_up_from_non_negative(f.iter, known) for f in by_target[n])}
        found |= {n for n, v in once.items() if n not in args and _non_negative(v, known)}
        if found <= known:
            break
        known |= found
    return frozenset(known & only_loops), frozenset(bound), frozenset(known)


def _counts_up_from_non_negative(it: ast.expr, known: set) -> bool:
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
            and it.func.id in ("range", "prange") and 1 <= len(it.args) <= 3):
        return False
    step = 1 if len(it.args) < 3 else _constant_int(it.args[2])
    return (len(it.args) == 1 or _non_negative(it.args[0], known)) and step is not None \
        and step > 0


def _non_negative(node: ast.expr, known: set) -> bool:
    """Whether integer expression ``node`` is never negative (see :func:`_bindings`)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int and node.value >= 0
    if isinstance(node, ast.Name):
        return node.id in known
    if isinstance(node, ast.Subscript):   # an extent: x.shape[k]
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.FloorDiv)):
        return _non_negative(node.left, known) and _non_negative(node.right, known)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        ok = [_non_negative(a, known) for a in node.args]
        return bool(ok) and (node.func.id == "min" and all(ok) or node.func.id == "max" and any(ok))
    return False


def _indices(node: ast.Subscript) -> list:
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]


def _constant_int(node: ast.expr):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _constant_int(node.operand)
        return None if v is None else -v
    return None

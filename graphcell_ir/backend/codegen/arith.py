"""numba's scalar semantics in LLVM IR: conversions, truth, arithmetic, comparisons, min/max and
``math`` (``error_model="numpy"``: nothing traps, nothing raises).

:class:`Arith` emits them with one ``IRBuilder``; :mod:`.lowering` asks it for every operator of
the kernel language. The rules (which type an operation computes in) are :mod:`.typerules`'.

    >>> import llvmlite.ir as ir
    >>> from graphcell_ir.backend.codegen.lowering import ModuleLowering
    >>> import ast
    >>> mod = ModuleLowering(ast.parse(""))
    >>> fn = ir.Function(mod.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64)] * 2), "f")
    >>> A = Arith(ir.IRBuilder(fn.append_basic_block()), mod)
    >>> q, r = A.int_divmod(*fn.args)
    >>> "sdiv i64" in str(fn)
    True
"""
from __future__ import annotations

import llvmlite.ir as ir

from graphcell_ir.backend.codegen import typerules as T
from graphcell_ir.backend.codegen.llvmtypes import I1, I64, value_type

# math functions LLVM knows as intrinsics; the others are libm's (``erff``/``erf``...)
_INTRINSICS = {"exp": "exp", "log": "log", "sqrt": "sqrt", "sin": "sin", "cos": "cos",
               "fabs": "fabs", "log10": "log10", "log2": "log2"}


class Arith:
    """Scalar operations at the builder's position; ``mod`` declares intrinsics and libm."""

    def __init__(self, builder: ir.IRBuilder, mod, no_overflow: bool = False):
        self.b, self.mod, self.no_overflow = builder, mod, no_overflow

    def cast(self, v, src, dst):
        """``v`` of scalar type ``src`` as ``dst`` (numba's conversions; bools to 0/1)."""
        if src == dst:
            return v
        src, dst = T.scalar(src, "a value"), T.scalar(dst, "a value")
        b = self.b
        if dst == T.BOOL:
            return self.truth(v, src)
        to = value_type(dst)
        if T.is_float(src) and T.is_float(dst):
            return b.fpext(v, to) if dst.itemsize > src.itemsize else b.fptrunc(v, to)
        if T.is_float(src):   # truncation toward zero; through int64, as numpy's astype
            wide = b.fptosi(v, I64)
            return wide if dst.itemsize == 8 else b.trunc(wide, to)
        unsigned = src == T.BOOL or src.kind == "u"
        if T.is_float(dst):
            return b.uitofp(v, to) if unsigned else b.sitofp(v, to)
        if dst.itemsize * 8 > v.type.width:
            return b.zext(v, to) if unsigned else b.sext(v, to)
        return b.trunc(v, to) if dst.itemsize * 8 < v.type.width else v

    def truth(self, v, t):
        """Python's ``bool(v)`` (NaN is true)."""
        t = T.scalar(t, "a condition")
        if t == T.BOOL:
            return v
        if T.is_int(t):
            return self.b.icmp_unsigned("!=", v, v.type(0))
        return self.b.fcmp_unordered("!=", v, v.type(0.0))

    def binop(self, op: str, a, at, b, bt):
        t = T.binop_type(op, at, bt)
        if op in T.BITWISE or op in T.SHIFTS:
            return self.bitwise(op, self.cast(a, at, t), self.cast(b, bt, t)), t
        work = T.arith(at, bt) if op != "Div" else t
        a, b = self.cast(a, at, work), self.cast(b, bt, work)
        B = self.b
        if T.is_int(work):
            flags = ["nsw"] if self.no_overflow else []
            if op == "Add":
                return B.add(a, b, flags=flags), t
            if op == "Sub":
                return B.sub(a, b, flags=flags), t
            if op == "Mult":
                return B.mul(a, b, flags=flags), t
            if op == "Pow":
                return B.call(self.int_power(), [a, b]), t
            q, r = self.int_divmod(a, b)
            return (q if op == "FloorDiv" else r), t
        if op == "Add":
            return B.fadd(a, b), t
        if op == "Sub":
            return B.fsub(a, b), t
        if op == "Mult":
            return B.fmul(a, b), t
        if op == "Div":
            return B.fdiv(a, b), t
        if op == "Pow":
            return B.call(self.mod.intrinsic("pow", a.type, 2), [a, b]), t
        q, r = self.float_divmod(a, b)
        return (q if op == "FloorDiv" else r), t

    def bitwise(self, op: str, a, b):
        """``& | ^ << >>`` on two values of one type (i1 for bools, i64 for integers); ``>>``
        is arithmetic, as numba's on signed integers (unsigned ones are zero-extended first)."""
        B = self.b
        return {"BitAnd": B.and_, "BitOr": B.or_, "BitXor": B.xor, "LShift": B.shl,
                "RShift": B.ashr}[op](a, b)

    def int_power(self) -> ir.Function:
        """``i64 gc.ipow(a, b)``, numba's ``int_power`` with the numpy error model: squaring
        and multiplying (wrapping); a negative exponent gives 0, but for a base of ±1 (±1) and
        of 0 (INT64_MIN, numba's "zero division" value); an exponent beyond 2**16 takes
        ``pow`` in float64. Defined once per module."""
        fn = self.mod.module.globals.get("gc.ipow")
        if fn is not None:
            return fn
        fn = ir.Function(self.mod.module, ir.FunctionType(I64, [I64, I64]), "gc.ipow")
        fn.linkage = "internal"
        a, b = fn.args
        blocks = {n: fn.append_basic_block(n) for n in
                  ("entry", "negative", "zero", "small", "unit", "check", "big", "loop",
                   "step", "done", "invert", "plain")}
        B = ir.IRBuilder(blocks["entry"])
        B.cbranch(B.icmp_signed("<", b, I64(0)), blocks["negative"], blocks["check"])
        B.position_at_end(blocks["negative"])
        B.cbranch(B.icmp_signed("==", a, I64(0)), blocks["zero"], blocks["small"])
        B.position_at_end(blocks["zero"])
        B.ret(I64(-(1 << 63)))
        B.position_at_end(blocks["small"])
        unit = B.or_(B.icmp_signed("==", a, I64(1)), B.icmp_signed("==", a, I64(-1)))
        B.cbranch(unit, blocks["check"], blocks["unit"])
        B.position_at_end(blocks["unit"])
        B.ret(I64(0))
        B.position_at_end(blocks["check"])   # exp = |b| (unsigned: -INT64_MIN stays finite)
        exp = B.select(B.icmp_signed("<", b, I64(0)), B.neg(b), b)
        B.cbranch(B.icmp_unsigned(">", exp, I64(0x10000)), blocks["big"], blocks["loop"])
        B.position_at_end(blocks["big"])
        f64 = ir.DoubleType()
        p = B.call(self.mod.intrinsic("pow", f64, 2), [B.sitofp(a, f64), B.sitofp(b, f64)])
        B.ret(B.fptosi(p, I64))
        B.position_at_end(blocks["loop"])
        r, base, e = B.phi(I64), B.phi(I64), B.phi(I64)
        r.add_incoming(I64(1), blocks["check"])
        base.add_incoming(a, blocks["check"])
        e.add_incoming(exp, blocks["check"])
        B.cbranch(B.icmp_unsigned("!=", e, I64(0)), blocks["step"], blocks["done"])
        B.position_at_end(blocks["step"])
        odd = B.icmp_unsigned("!=", B.and_(e, I64(1)), I64(0))
        r2 = B.select(odd, B.mul(r, base), r)
        r.add_incoming(r2, blocks["step"])
        base.add_incoming(B.mul(base, base), blocks["step"])
        e.add_incoming(B.lshr(e, I64(1)), blocks["step"])
        B.branch(blocks["loop"])
        B.position_at_end(blocks["done"])
        B.cbranch(B.icmp_signed("<", b, I64(0)), blocks["invert"], blocks["plain"])
        B.position_at_end(blocks["invert"])   # numba: 1.0 / r, as an integer again
        B.ret(B.fptosi(B.fdiv(f64(1.0), B.sitofp(r, f64)), I64))
        B.position_at_end(blocks["plain"])
        B.ret(r)
        return fn

    def int_divmod(self, a, b):
        """numba's signed divmod with the numpy error model, without branches: a zero divisor
        and ``MIN // -1`` give (0, 0), never a trap."""
        B, ty = self.b, a.type
        minval = ty(-(1 << (ty.width - 1)))
        bad = B.or_(B.icmp_signed("==", b, ty(0)),
                    B.and_(B.icmp_signed("==", a, minval), B.icmp_signed("==", b, ty(-1))))
        safe = B.select(bad, ty(1), b)
        q, r = B.sdiv(a, safe), B.srem(a, safe)
        fix = B.and_(B.icmp_signed("!=", r, ty(0)),
                     B.icmp_signed("<", B.xor(safe, r), ty(0)))
        q = B.select(fix, B.sub(q, ty(1)), q)
        r = B.select(fix, B.add(r, safe), r)
        return B.select(bad, ty(0), q), B.select(bad, ty(0), r)

    def float_divmod(self, x, y):
        """CPython's ``float_divmod`` as numba lowers it (``real_divmod``), selects for its
        branches; a zero divisor gives ``(x / y, fmod(x, y))``."""
        B, ty = self.b, x.type
        zero, one = ty(0.0), ty(1.0)
        mod = B.frem(x, y)
        div = B.fdiv(B.fsub(x, mod), y)
        mod_nonzero = B.fcmp_unordered("!=", mod, zero)
        signs_differ = B.icmp_unsigned("!=", B.fcmp_ordered("<", y, zero),
                                       B.fcmp_ordered("<", mod, zero))
        fix = B.and_(mod_nonzero, signs_differ)
        div = B.select(fix, B.fsub(div, one), div)
        mod = B.select(fix, B.fadd(mod, y), mod)
        mod = B.select(mod_nonzero, mod, B.select(B.fcmp_ordered("<", y, zero), ty(-0.0), zero))
        floor = B.call(self.mod.intrinsic("floor", ty), [div])
        floor = B.select(B.fcmp_ordered(">", B.fsub(div, floor), ty(0.5)), B.fadd(floor, one),
                         floor)
        div2 = B.fmul(div, div)
        signed_zero = B.fdiv(B.fmul(div2, x), y)
        floordiv = B.select(B.fcmp_ordered("!=", div, zero), floor, signed_zero)
        y_zero = B.fcmp_ordered("==", y, zero)
        return (B.select(y_zero, B.fdiv(x, y), floordiv),
                B.select(y_zero, B.frem(x, y), mod))

    def compare(self, op: str, a, at, b, bt):
        t = T.arith(at, bt)
        a, b = self.cast(a, at, t), self.cast(b, bt, t)
        sym = {"Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=", "Eq": "==", "NotEq": "!="}[op]
        if T.is_int(t):
            return self.b.icmp_signed(sym, a, b)
        if sym == "!=":
            return self.b.fcmp_unordered(sym, a, b)
        return self.b.fcmp_ordered(sym, a, b)

    def minmax(self, name: str, args: list):
        """numba's ``do_minmax``: fold left, taking the new value when it compares greater
        (max) or less (min) than the accumulator."""
        acc, at = args[0]
        for v, vt in args[1:]:
            t = T.unify(at, vt)
            acc, v = self.cast(acc, at, t), self.cast(v, vt, t)
            pred = self.compare("Gt" if name == "max" else "Lt", v, t, acc, t)
            acc, at = self.b.select(pred, v, acc), t
        return acc, at

    def fma(self, args: list, t):
        """``x * y + z`` rounded once (``llvm.fma``: one instruction, and a vector one when the
        loop vectorises), in type ``t``."""
        vs = [self.cast(v, vt, t) for v, vt in args]
        return self.b.call(self.mod.intrinsic("fma", vs[0].type, 3), vs), t

    def math2(self, name: str, args: list, t):
        """A ``math`` function of two floats (libm's ``atan2``/``atan2f``), in type ``t``."""
        vs = [self.cast(v, vt, t) for v, vt in args]
        symbol = name + ("f" if t == T.F32 else "")
        return self.b.call(self.mod.declare(symbol, vs[0].type, [vs[0].type] * 2), vs), t

    def math(self, name: str, v, vt, t):
        if T.is_int(vt):
            if name == "isfinite":
                return I1(1), T.BOOL
            if name in ("isnan", "isinf"):
                return I1(0), T.BOOL
        v = self.cast(v, vt, T.F64 if T.is_int(vt) else vt)
        B = self.b
        if name == "isnan":
            return B.fcmp_unordered("uno", v, v), T.BOOL
        if name in ("isinf", "isfinite"):
            mag = B.call(self.mod.intrinsic("fabs", v.type), [v])
            inf = v.type(float("inf"))
            return (B.fcmp_ordered("==", mag, inf) if name == "isinf"
                    else B.fcmp_ordered("!=", mag, inf)), T.BOOL
        if name in _INTRINSICS:
            return B.call(self.mod.intrinsic(_INTRINSICS[name], v.type), [v]), t
        symbol = name + ("f" if t == T.F32 else "")
        return B.call(self.mod.declare(symbol, v.type, [v.type]), [v]), t

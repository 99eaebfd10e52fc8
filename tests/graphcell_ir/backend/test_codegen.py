"""graphcell's code generator (graphcell_ir/backend/codegen): the kernel language compiled with
llvmlite, without numba.

- its semantics, construct by construct, against the same source run as Python (the oracle),
  on values hypothesis picks (negative, zero divisors, NaN, ±Inf);
- every elementwise/reduction registry template against numba on the same generated source,
  bit for bit (a sample of ops by default, all of them under ``-m slow``);
- what it refuses: a clear reason naming the function and line, and the caller compiles with
  numba instead; integer ``**`` as numba's loop, edge cases included.
"""
from __future__ import annotations

import ast
import math
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from backend_support import one_op_module
from samples import SAMPLES, Gen

from graphcell_ir.backend import codegen, kernels, objects
from graphcell_ir.backend import native as N
from graphcell_ir.backend.codegen.lowering import ModuleLowering
from graphcell_ir.backend.codegen.typerules import F32, Array
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.fma import fma
from graphcell_ir.backend.lower import Unsupported, lower_fused
from graphcell_ir.ops import REGISTRY, Kind

pytestmark = pytest.mark.skipif(N.array_layout() is None, reason="no native code here")


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    """Kernel files and objects of this module's compiles in a directory of their own."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path_factory.mktemp("codegen-cache")))
        yield

_COMPILED: dict = {}


def compiled(source: str, name: str, args, no_overflow=False):
    """The code generator's function ``name`` of ``source`` for these arguments (cached)."""
    kinds = N.kinds_of(args)
    key = (source, name, kinds, no_overflow)
    if key not in _COMPILED:
        fn, why = objects.jit_function(source, name, kinds, key=f"test-{len(_COMPILED)}",
                                       no_overflow=no_overflow)
        assert fn is not None, why
        _COMPILED[key] = fn
    return _COMPILED[key]


def both(source: str, name: str, *args):
    """Run ``name`` compiled and as Python on copies of ``args``; the arrays after each."""
    ns: dict = {"math": kernels._IEEEMath(), "np": np, "fma": fma}   # libm's NaN/Inf where
    # Python raises
    exec(source, ns)
    a1 = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    a2 = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"):
        assert compiled(source, name, args)(*a1)
        ns[name](*a2)
    return [a for a in a1 if isinstance(a, np.ndarray)], [a for a in a2 if isinstance(a, np.ndarray)]


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal values, NaN where NaN, and the sign of every zero."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    return bool(np.array_equal(a, b, equal_nan=True)
                and (np.signbit(a) == np.signbit(b))[~np.isnan(a)].all())


# --- semantics, against Python -------------------------------------------------------------------

ARITH = textwrap.dedent("""
    def arith(x, y, out):
        for i in range(x.shape[0]):
            a = x[i]
            b = y[i]
            out[i, 0] = a // b
            out[i, 1] = a % b
            out[i, 2] = a / b
            out[i, 3] = max(a, b)
            out[i, 4] = min(a, b)
            out[i, 5] = abs(a) - b * 2
            out[i, 6] = 1 if (a < b) else (2 if a == b else (3 if a != a else 4))
            out[i, 7] = a if (0 < b <= 2 or not (a > 0)) else -b
""")

floats = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, -7.25, 3.0, 1e300, -1e-300, math.inf,
                          -math.inf, math.nan, 0.1, 1e-45]) | st.floats(-1e6, 1e6)
ints = st.sampled_from([0, 1, -1, 7, -7, 3, 2**31 - 1, -2**31]) | st.integers(-100, 100)


@settings(max_examples=30)
@given(st.lists(st.tuples(floats, floats), min_size=1, max_size=12),
       st.sampled_from(["float32", "float64"]))
def test_float_arithmetic_is_pythons(pairs, dtype):
    with np.errstate(over="ignore"):   # 1e300 in float32 is inf
        x = np.array([p[0] for p in pairs]).astype(dtype)
        y = np.array([p[1] for p in pairs]).astype(dtype)
    got, want = both(ARITH, "arith", x, y, np.zeros((len(pairs), 8), dtype))
    assert same_bits(got[-1], want[-1]), (x, y, got[-1], want[-1])


@settings(max_examples=30)
@given(st.lists(st.tuples(ints, ints), min_size=1, max_size=12),
       st.sampled_from(["int32", "int64"]))
def test_integer_arithmetic_is_numbas(pairs, dtype):
    """Floor division and modulo as Python's, and a zero divisor (or MIN // -1) gives 0 where
    Python raises: numba's numpy error model."""
    x = np.array([p[0] for p in pairs]).astype(dtype)
    y = np.array([p[1] for p in pairs]).astype(dtype)
    out = np.zeros((len(pairs), 8), np.float64)
    got = out.copy()
    assert compiled(ARITH, "arith", (x, y, out))(x, y, got)
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        ok = b != 0
        assert got[i, 0] == (a // b if ok else 0) and got[i, 1] == (a % b if ok else 0)
        assert got[i, 3] == max(a, b) and got[i, 4] == min(a, b)
        assert got[i, 5] == abs(a) - b * 2
        assert got[i, 6] == (1 if a < b else 2 if a == b else 4)


def test_integer_power_is_numbas():
    """Squaring-and-multiplying with wraparound; a negative exponent gives 0, ±1 for a base of
    ±1 and INT64_MIN for 0; exponents beyond 2**16 go through float64 pow — numba's rules."""
    src = "def p(a, b, out):\n    for i in range(a.shape[0]):\n        out[i] = a[i] ** b[i]\n"
    bases, exps = [0, 1, -1, 2, -2, 3, -7, 100], [0, 1, 2, 5, 63, 64, -1, -2, -3, 70000, -70000]
    a = np.array([x for x in bases for _ in exps], np.int64)
    b = np.array(exps * len(bases), np.int64)
    got, want = np.zeros_like(a), np.zeros_like(a)
    assert compiled(src, "p", (a, b, got))(a, b, got)
    ns: dict = {}
    exec(src, ns)
    import numba
    numba.njit(error_model="numpy")(ns["p"])(a, b, want)
    np.testing.assert_array_equal(got, want)


def test_int64_min_floordiv_minus_one_is_zero_not_a_trap():
    """x86 traps on INT64_MIN / -1 (SIGFPE, the end of the process); numba gives 0 and 0."""
    x = np.array([np.iinfo(np.int64).min, 7], np.int64)
    y = np.array([-1, 0], np.int64)
    got = np.zeros((2, 8))
    assert compiled(ARITH, "arith", (x, y, got))(x, y, got)
    assert got[:, :2].tolist() == [[0.0, 0.0], [0.0, 0.0]]


CASTS = textwrap.dedent("""
    def casts(x, out_i, out_u, out_b, out_f):
        for i in range(x.shape[0]):
            out_i[i] = int32(x[i])
            out_u[i] = uint8(x[i] * 0.5)
            out_b[i] = bool_(x[i])
            out_f[i] = float32(x[i]) + int8(3)
""")


@settings(max_examples=20)
@given(st.lists(st.floats(-1e4, 1e4) | st.sampled_from([0.0, -0.0, 0.5, -0.5, math.nan]),
                min_size=1, max_size=10))
def test_casts_truncate_as_numpy(values):
    x = np.array(values)
    n = len(values)
    ns = {"int32": np.int32, "uint8": np.uint8, "bool_": np.bool_, "float32": np.float32,
          "int8": np.int8}
    outs = [np.zeros(n, np.int32), np.zeros(n, np.uint8), np.zeros(n, np.bool_),
            np.zeros(n, np.float32)]
    f = compiled(CASTS, "casts", (x, *outs))
    got = [o.copy() for o in outs]
    assert f(x, *got)
    finite = ~np.isnan(x)   # NaN to an integer is undefined (numpy warns, numba differs)
    np.testing.assert_array_equal(got[0][finite], x[finite].astype(np.int32))
    np.testing.assert_array_equal(got[1][finite], (x[finite] * 0.5).astype(np.int64)
                                  .astype(np.uint8))
    np.testing.assert_array_equal(got[2], x.astype(np.bool_))
    want = np.array([ns["float32"](v) + ns["int8"](3) for v in x], np.float32)
    assert same_bits(got[3], want)


CONTROL = textwrap.dedent("""
    def control(x, out):
        n = x.shape[0]
        total = 0
        for i in range(n - 1, -1, -1):
            if x[i] < 0:
                continue
            if x[i] > 100:
                break
            total += x[i]
        out[0] = total
        k = 0
        while k < n and x[k] != 0:
            k += 1
        out[1] = k
        out[2] = x[-1] + x[n - 2] if n > 1 else -1
        acc = 0
        for a in range(3):
            for b in range(a, 3):
                acc = acc * 2 + a - b
        out[3] = acc
        i = 0
        for i in range(n):
            pass
        out[4] = i
""")


@settings(max_examples=30)
@given(st.lists(st.integers(-5, 120), min_size=1, max_size=9))
def test_control_flow_and_negative_indices_are_pythons(values):
    x = np.array(values, np.int64)
    (_, got), (_, want) = both(CONTROL, "control", x, np.zeros(5, np.int64))
    np.testing.assert_array_equal(got, want)


VIEWS = textwrap.dedent("""
    def _row_sum(row, out, at):
        s = 0.0
        for j in range(row.shape[0]):
            s += row[j]
        out[at] = s

    def views(x, out):
        n_, c_, w = x.shape
        for n in range(n_):
            plane = x[n]
            for c in range(c_):
                _row_sum(plane[c], out[n], c)
""")


def test_views_and_helper_calls():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5
    (_, got), (_, want) = both(VIEWS, "views", x, np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, x.sum(axis=2))


LAMBDAS = textwrap.dedent("""
    def lambdas(x, out):
        for i in range(x.shape[0]):
            out[i] = (lambda a: (lambda b, a: a * b + 1.0)(a + 1.0, a))(x[i]) \\
                + (math.exp(x[i]) if math.isfinite(x[i]) else 0.0) + math.sqrt(abs(x[i]))
""")


@settings(max_examples=15)
@given(st.lists(floats, min_size=1, max_size=8))
def test_lambdas_and_math(values):
    x = np.array(values, np.float64)
    (_, got), (_, want) = both(LAMBDAS, "lambdas", x, np.zeros(len(values)))
    np.testing.assert_allclose(got, want, rtol=1e-15, equal_nan=True)


FMA = textwrap.dedent("""
    def fused(x, y, z, out):
        for i in range(x.shape[0]):
            out[i] = fma(x[i], y[i], z[i])
""")


@settings(max_examples=20)
@given(st.lists(st.tuples(floats, floats, floats), min_size=1, max_size=8),
       st.sampled_from(["float32", "float64"]))
def test_fma_rounds_once_as_its_python_meaning(triples, dtype):
    with np.errstate(over="ignore"):   # 1e300 is inf in float32
        x, y, z = (np.array(c, dtype) for c in zip(*([(0.1, 10.0, -1.0)] + triples)))
    (*_, got), (*_, want) = both(FMA, "fused", x, y, z, np.zeros(len(x), dtype))
    assert same_bits(got, want), (x, y, z, got, want)
    if dtype == "float64":   # 0.1 * 10 rounds to 1.0; the exact product is 5.55e-17 more
        assert got[0] == 2.0 ** -54 and 0.1 * 10.0 - 1.0 == 0.0


def test_fma_is_llvms_intrinsic():
    mod = ModuleLowering(ast.parse(FMA))
    mod.function("fused", (Array(F32, 1),) * 4)
    assert 'call float @"llvm.fma.f32"' in str(mod.module)


def test_guarded_reads_never_leave_the_array():
    """A read under a false guard is never executed (a wild index would fault)."""
    src = textwrap.dedent("""
        def guarded(x, idx, out):
            for i in range(idx.shape[0]):
                j = idx[i]
                out[i] = x[j] if 0 <= j < x.shape[0] else -1.0
                out[i] += x[j] if j < x.shape[0] and j >= 0 else 0.0
    """)
    x = np.arange(4.0)
    idx = np.array([0, 3, 10**12, -10**12, 2], np.int64)
    (_, _, got), (_, _, want) = both(src, "guarded", x, idx, np.zeros(5))
    np.testing.assert_array_equal(got, want)


# --- every registry template, against numba --------------------------------------------------------

OPS = sorted((op for op in REGISTRY.values() if op.kind in (Kind.ELEMENTWISE, Kind.REDUCTION)),
             key=lambda op: op.name)
SAMPLE_OPS = {"add", "sub", "mul", "div", "floor_div", "mod", "pow", "maximum", "minimum",
              "tanh", "exp", "sigmoid", "select", "relu", "cast", "reduce_sum", "reduce_max",
              "logical_and", "sign", "erf"}


def _template_cases():
    for op in OPS:
        mark = () if op.name in SAMPLE_OPS else (pytest.mark.slow,)
        for dt in SAMPLES[op.name].dtypes:
            if dt != "float16":
                yield pytest.param(op, dt, id=f"{op.name}-{dt}", marks=mark)


def _array_operands(op, dtype, data):
    operands, attrs = SAMPLES[op.name].make(Gen(data), dtype)
    operands = tuple(o if isinstance(o, np.ndarray) else np.asarray(o) for o in operands)
    return operands, attrs


@pytest.mark.parametrize("op,dtype", list(_template_cases()))
@settings(max_examples=1)
@given(data=st.data())
def test_template_compiles_to_numbas_bits(op, dtype, data):
    operands, attrs = _array_operands(op, dtype, data)
    m, args = one_op_module(op, operands, attrs)
    (fused,) = [o for o in m["main"].body if o.opdef.name == "fused"]
    ks = lower_fused(fused)
    kinds = N.kernel_kinds(ks)
    if kinds is None:
        pytest.skip("no native kinds (a 0-d operand): numba alone runs it")
    ins = [np.ascontiguousarray(a).reshape(s) for a, s in zip(args, ks.in_shapes)]
    outs = [np.full(o.shape, o.fill if o.fill is not None else 0, o.dtype) for o in ks.outputs]
    mine, why = objects.jit_function(ks.module_text, "kernel", kinds, ks.key)
    assert mine is not None, why
    theirs = kernels._numba_kernel(ks)
    got, want = [o.copy() for o in outs], [o.copy() for o in outs]
    with np.errstate(all="ignore"):
        assert mine(*ins, *ks.consts, *got)
        theirs(*ins, *ks.consts, *want)
    for g, w in zip(got, want):
        assert same_bits(g, w), (op.name, dtype, ins, g, w)


# --- refusals -------------------------------------------------------------------------------------

@pytest.mark.parametrize("body,why", [
    ("out[0] = len(x)", "line 3: the name 'len'"),
    ("out[0] = x[0:2]", "slices are not compiled"),
    ("t = (1, 2)", "a Tuple expression"),
    ("out[0] = 1.5 ** 3", "\\*\\* of a float and an integer"),
    ("s = x\n    s = 1.0", "a name holds both"),
    ("out[0] = x[0] & 1.5", "the operator BitAnd on int64 and float64"),
])
def test_refusals_name_the_construct_and_line(body, why):
    src = f"def f(x, out):\n    y = 0\n    {body}\n"
    with pytest.raises(Unsupported, match=why.replace("(", r"\(").replace("*", r"\*")):
        codegen.lower_module(src, "f", (("array", "int64", 1), ("array", "int64", 1)), "r",
                             layout=N.array_layout())


def test_a_refused_kernel_is_compiled_by_numba(tmp_path, monkeypatch):
    """No registry template is refused today; a refusal (simulated) leaves the kernel to numba
    and is the reason the cache statistics give."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    kernels.reset_cache()

    def refuse(source, *args, **kwargs):
        raise Unsupported("kernel, line 9: a construct (simulated)")
    monkeypatch.setattr(codegen, "lower_module", refuse)
    x = np.arange(-3, 5, dtype=np.int32)
    m, args = one_op_module(REGISTRY["pow"], (x, np.full(8, 2, np.int32)), {})
    exe = compile_executable(m, "main", jit=True, kernel_min_size=0)
    (got,) = exe(args)
    np.testing.assert_array_equal(got, x ** 2)
    (miss,) = kernels.cache_stats().misses
    assert "numba (not in the code generator's subset (kernel, line 9: a construct" in miss
    (runner,) = kernels._MEMORY.runners.values()
    assert isinstance(runner, kernels._Numba)


# --- parallel kernels: the prange loop on the native thread pool ---------------------------------

def test_parallel_kernel_runs_its_prange_loop_on_the_pool(tmp_path, monkeypatch):
    """A kernel lowering marks parallel calls the native pool from its entry (the object needs
    ``graphcell_parallel_for``), with the serial results; a broadcast operand included."""
    from graphcell_ir.backend import lower
    from graphcell_ir.backend.native import pool
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")   # the runner's kernel is what is looked at
    monkeypatch.setattr(lower, "PARALLEL_MIN", 1)
    kernels.reset_cache()
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 5)).astype(np.float32)
    row = rng.standard_normal((1, 5)).astype(np.float32)
    m, args = one_op_module(REGISTRY["mul"], (x, row), {})
    old = pool.pool().state[pool._MIN_WORK]
    pool.pool().state[pool._MIN_WORK] = 0   # this small loop runs in chunks too
    try:
        exe = compile_executable(m, "main", jit=True, kernel_min_size=0)
        (got,) = exe(args)
    finally:
        pool.pool().state[pool._MIN_WORK] = old
    np.testing.assert_array_equal(got, x * row)
    (fn,) = kernels._MEMORY.runners.values()
    assert isinstance(fn, kernels._Native) and fn.ks.parallel
    assert "prange" in fn.ks.source
    found = objects.store().get(fn.native.id, N.host_target())
    assert pool.SYMBOL in found.obj.needs


RETURNS = textwrap.dedent("""
    def _row_max(row):
        m = row[0]
        for k in range(1, row.shape[0]):
            if row[k] > m:
                m = row[k]
        return m

    def _sign(v):
        if v > 0:
            return 1
        if v < 0:
            return -1.0
        return 0

    def returns(x, out):
        for r in range(x.shape[0]):
            m = _row_max(x[r])
            out[r, 0] = m
            out[r, 1] = _sign(m) + _sign(-m) * 2
            _row_max(x[r])
""")


@settings(max_examples=20)
@given(st.lists(st.lists(st.floats(-50, 50), min_size=3, max_size=3), min_size=1, max_size=6))
def test_helpers_return_values(rows):
    """A helper's returns unify to one type (int 1 and float -1.0: float64), as numba's do."""
    x = np.array(rows, np.float32)
    (_, got), (_, want) = both(RETURNS, "returns", x, np.zeros((len(rows), 2)))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("src,why", [
    ("def f(x, out):\n    return 1\n", "f\\(\\) returns a value"),
    ("def g(x):\n    out = 0\n\ndef f(x, out):\n    out[0] = g(x)\n", "g\\(\\), which returns nothing"),
    ("def g(n):\n    return g(n - 1) if n > 0 else 0\n\ndef f(x, out):\n    out[0] = g(3)\n",
     "returns nothing"),
])
def test_returns_the_generator_refuses(src, why):
    with pytest.raises(Unsupported, match=why):
        codegen.lower_module(src, "f", (("array", "int64", 1), ("array", "int64", 1)), "ret",
                             layout=N.array_layout())


def test_a_failing_code_generator_leaves_the_run_to_numba(tmp_path, monkeypatch, caplog):
    """Not only refusals: any failure inside the generator (here a simulated bug) is logged and
    numba compiles the kernel; the user's run never sees it."""
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    kernels.reset_cache()

    def broken(*args, **kwargs):
        raise KeyError("a bug in the generator")
    monkeypatch.setattr(codegen, "lower_module", broken)
    m, args = one_op_module(REGISTRY["mul"], (np.arange(6.0), np.arange(6.0)), {})
    with caplog.at_level("WARNING", logger="graphcell.backend"):
        (got,) = compile_executable(m, "main", jit=True, kernel_min_size=0)(args)
    np.testing.assert_array_equal(got, np.arange(6.0) ** 2)
    (miss,) = kernels.cache_stats().misses
    assert "code generator failed (KeyError" in miss
    assert "numba compiles it" in caplog.text


def test_scalar_operands_get_native_code_at_the_first_call(tmp_path, monkeypatch):
    """A Python-scalar operand's type is known at the call (int64 for an int, float64 for a
    float, as numba types them): each new kind is compiled then, without numba."""
    from graphcell_ir.ir import Builder, Function, Module, TensorType
    from graphcell_ir.ir.types import ScalarType, float32, int64
    from graphcell_ir.passes.fuse import build_fused
    monkeypatch.setenv("GRAPHCELL_CACHE_DIR", str(tmp_path))
    kernels.reset_cache()
    fn = Function("main")
    m = Module([fn])
    b = Builder.at_end(fn.body)
    x = fn.add_arg(TensorType(float32, (5,)), "x")
    i = fn.add_arg(ScalarType(int64), "i")
    op = b.create(REGISTRY["mul"], [x, i], {})
    b.return_(*op.results)
    build_fused([op])
    op.erase()
    exe = compile_executable(m, "main", jit=True, kernel_min_size=0)
    xs = np.arange(5, dtype=np.float32)
    for k in (3, -2, 7):
        (got,) = exe([xs, k])
        np.testing.assert_array_equal(got, xs * np.float32(k))
    (runner,) = kernels._MEMORY.runners.values()
    assert isinstance(runner, kernels._PerKinds) and runner.numba is None
    (kinds,) = runner.by_kinds
    assert kinds[1] == ("scalar", "int64") and runner.by_kinds[kinds][0] is not None
    stats = kernels.cache_stats()
    assert len(stats.misses) == 1 and stats.native_hits == 0   # compiled once, for int64
    # a float at the same operand: float64 arithmetic, numba's bits
    got, want = np.empty(5, np.float32), np.empty(5, np.float32)
    runner(xs, 0.1, got)
    kernels._numba_kernel(runner.ks)(xs, 0.1, want)
    assert runner.numba is None and len(runner.by_kinds) == 2 and same_bits(got, want)


COUNTERS = textwrap.dedent("""
    def counters(x, out):
        n = x.shape[0]
        for i in range(n):
            out[0, i] = x[i]
        for j in range(-1, n - 1):
            out[1, j + 1] = x[j]
        for k in range(n - 1, -n - 1, -1):
            out[2, k + n] = x[k]
        for m in range(n):
            m = m - 1
            out[3, m] = x[m]
        for p in range(n):
            out[4, p] = (lambda p: x[p])(p - n)
""")


@pytest.mark.parametrize("n", [1, 2, 5])
def test_loop_counters_skip_wraparound_and_everything_else_keeps_it(n):
    """An index that is a loop counter counting up from 0 (or more) needs no wraparound; one
    starting below 0, counting down, rebound in the body or shadowed by a lambda's parameter
    keeps it (Python's semantics, so Python is the oracle)."""
    x = np.arange(1, n + 1, dtype=np.float64)
    (_, got), (_, want) = both(COUNTERS, "counters", x, np.zeros((5, 2 * n)))
    np.testing.assert_array_equal(got, want)


def test_a_counter_index_has_no_wraparound_in_the_ir():
    src = textwrap.dedent("""
        def copy(x, out):
            for i in range(x.shape[0]):
                out[i] = x[i]
        def shifted(x, out):
            for i in range(-1, x.shape[0] - 1):
                out[i + 1] = x[i]
    """)
    kinds = (("array", "float32", 1), ("array", "float32", 1))
    plain = codegen.lower_module(src, "copy", kinds, "e", entry="pointers")
    assert "select" not in plain.split('define i32 @"e"')[0]
    shifted = codegen.lower_module(src, "shifted", kinds, "e", entry="pointers")
    assert shifted.split('define i32 @"e"')[0].count("select") == 2   # x[i] and out[i + 1]


PARAMETERS = textwrap.dedent("""
    def scaled(x, a, b, out):
        for i in range(x.shape[0]):
            out[i] = x[i] * a
        b = b + 1.5
        for i in range(x.shape[0]):
            out[i] = out[i] + b
""")


def test_a_scalar_parameter_never_rebound_is_its_argument():
    """``a`` is never stored: its uses are the argument itself (no alloca to promote, no loads);
    ``b`` is rebound, so it keeps its slot — and both compute what Python does."""
    x = np.arange(1.0, 6.0)
    (_, got), (_, want) = both(PARAMETERS, "scaled", x, 2.0, 0.25, np.zeros(5))
    np.testing.assert_array_equal(got, want)
    kinds = (("array", "float64", 1), ("scalar", "float64"), ("scalar", "float64"),
             ("array", "float64", 1))
    body = codegen.lower_module(PARAMETERS, "scaled", kinds, "e",
                                entry="pointers").split('define i32 @"e"')[0]
    assert '%"b" = alloca double' in body and '%"a" = alloca' not in body


TILE_STARTS = textwrap.dedent("""
    def tiles(x, s, out):
        n = x.shape[0]
        tile = max(1, min(3, (n + 1) // 2))
        for t in range((n + tile - 1) // tile):
            for i in range(t * tile, min(t * tile + tile, n)):
                out[0, i] = x[i]
        for j in range(n - 2, n):
            out[1, j + 2] = x[j]
        for k in range(s * 1, s + 1):
            out[2, k + 2] = x[k]
        twice = 1
        twice = -1
        for m in range(twice, 0):
            out[3, m + 2] = x[m]
""")


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_range_from_a_non_negative_start_has_a_counter(n):
    """A tile's loop ``range(t * tile, ...)`` after ``tile = max(1, ...)`` counts from a start
    never negative: a counter (no wraparound); a start with a subtraction, a parameter or a name
    stored twice keeps the wraparound (Python is the oracle: those indices go negative)."""
    x = np.arange(1, n + 1, dtype=np.float64)
    (_, got), (_, want) = both(TILE_STARTS, "tiles", x, -1, np.zeros((4, n + 2)))
    np.testing.assert_array_equal(got, want)
    kinds = (("array", "float64", 1), ("scalar", "int64"), ("array", "float64", 2))
    text = codegen.lower_module(TILE_STARTS, "tiles", kinds, "e", entry="pointers")
    blocks = _blocks(text.split('define i32 @"e"')[0])
    assert "select" not in blocks["for.body.1"]   # out[0, i] = x[i]: i counts from t * tile
    for loop in ("for.body.2", "for.body.3", "for.body.4"):   # j, k, m: x[...] wraps
        assert "select" in blocks[loop]


FLAT_OFFSETS = textwrap.dedent("""
    def flat(x, o, s, out):
        p = max(0, o)
        t = max(0, s)
        for i in range(out.shape[1]):
            for j in range(out.shape[2]):
                out[0, i, j] = x[p + i * t + j]
        for i in range(out.shape[1]):
            for j in range(out.shape[2]):
                out[1, i, j] = x[o + i * s + j]
""")


@pytest.mark.parametrize("o, s", [(0, 3), (2, 4), (-9, 3)])
def test_an_index_built_from_names_never_negative_has_no_wraparound(o, s):
    """A flat index summed from counters and locals assigned once from ``max(0, ...)``
    (``step/layout.strided_source``'s views) is never negative: no wraparound, so LLVM sees
    consecutive loads; with a parameter in it the wraparound stays (Python is the oracle: ``o =
    -9`` reads from the end)."""
    x = np.arange(1.0, 25.0)
    (_, got), (_, want) = both(FLAT_OFFSETS, "flat", x, o, s, np.zeros((2, 3, 3)))
    np.testing.assert_array_equal(got, want)
    kinds = (("array", "float64", 1), ("scalar", "int64"), ("scalar", "int64"),
             ("array", "float64", 3))
    text = codegen.lower_module(FLAT_OFFSETS, "flat", kinds, "e", entry="pointers")
    bodies = [b for label, b in _blocks(text.split('define i32 @"e"')[0]).items()
              if "store double" in b]
    assert len(bodies) == 2 and "select" not in bodies[0] and "select" in bodies[1]


def _blocks(text: str) -> dict:
    """LLVM IR text's basic blocks: label -> its instructions."""
    out, label = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            label = line[:-1].strip('"')
            out[label] = ""
        elif label is not None:
            out[label] += line + "\n"
    return out


def test_loops_lowered_from_the_shared_tree_are_those_of_a_fresh_parse(monkeypatch):
    """Every loop is lowered from the one parsed tree of ``nn_loops`` (``_parsed``): lowering
    must leave the tree as it was, so each loop's IR is the one a fresh parse gives."""
    import ast

    from graphcell_ir.backend import codegen as cg
    from graphcell_ir.backend import loops
    src = loops.source()
    tree = cg._parsed(src)
    before = ast.dump(tree)
    kinds = (("array", "bool", 1), ("array", "float32", 1), ("array", "float32", 1),
             ("array", "float32", 1))
    shared = [cg.lower_module(src, "select", kinds, "s", entry="pointers") for _ in range(2)]
    assert cg._parsed(src) is tree and ast.dump(tree) == before
    monkeypatch.setattr(cg, "_parsed", ast.parse)
    assert shared == [cg.lower_module(src, "select", kinds, "s", entry="pointers")] * 2


def test_the_short_pipeline_is_for_hand_written_kernels_and_the_loops_a_source_lists():
    from graphcell_ir.backend.codegen import direct_conv, direct_filter, winograd_conv
    from graphcell_ir.backend.loops import source
    listed = 'SHORT_PIPELINE = ("copy",)\n\ndef copy(x, y):\n    y[0] = x[0]\n'
    assert codegen.pipeline(direct_conv.SOURCE, direct_conv.PAD) == codegen.SHORT
    assert codegen.pipeline(direct_filter.SOURCE, direct_filter.LANES) == codegen.SHORT
    assert codegen.pipeline(winograd_conv.SOURCE, winograd_conv.NAME) is True   # O2 pays there
    assert codegen.pipeline(source(), "filter_taps") == codegen.SHORT
    assert codegen.pipeline(source(), "swap_last") is True
    assert codegen.pipeline(listed, "copy") == codegen.SHORT
    assert codegen.pipeline(listed.replace("SHORT_PIPELINE", "OTHER"), "copy") is True

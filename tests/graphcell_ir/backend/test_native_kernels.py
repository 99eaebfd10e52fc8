"""An artifact's native kernels (graphcell_ir.backend.objects.emit_kernel/emit_loop, pointer
entries linked by llvmlite) give exactly the JIT's results (same source, same code generator) and
numba's (the oracle), close to the interpreter's; bad objects and unresolvable symbols are
reported, never crash; calls with the wrong arrays are refused."""
from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from backend_support import assert_same, lenet_calls

from graphcell_ir.backend import kernels as K
from graphcell_ir.backend import loops, objects
from graphcell_ir.backend import native as N
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import Interpreter
from graphcell_ir.backend.lower import lower_fused
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.ir.walk import walk
from graphcell_ir.passes.manager import PassManager
from graphcell_ir.passes.pipelines import DEFAULT, resolve
from graphcell_ir.text import parse_module

PROGRAMS = {
    "tanh_reduce": """func @main(%x: f32[4,8], %a: f32[8]) -> (f32[4,8], f32[4]) {
  %0 = mul(%x, %a) : f32[4,8]
  %1 = tanh(%0) : f32[4,8]
  %2 = reduce_sum(%1) {axis=[1]} : f32[4]
  return %1, %2
}
""",
    "softmax": """func @main(%x: f32[6,5]) -> f32[6,5] {
  %m = reduce_max(%x) {axis=[1], keep_dims=true} : f32[6,1]
  %0 = sub(%x, %m) : f32[6,5]
  %e = exp(%0) : f32[6,5]
  %s = reduce_sum(%e) {axis=[1], keep_dims=true} : f32[6,1]
  %y = div(%e, %s) : f32[6,5]
  %z = mul(%y, 2.0:f32) : f32[6,5]
  return %z
}
""",
    "relu_grad_f64_mean": """func @main(%x: f64[3,7], %g: f64[3,7]) -> (f64[3,7], f64[7]) {
  %p = greater(%x, 0.0:f64) : bool[3,7]
  %z = fill() {dtype=f64, shape=[3,7], value=0} : f64[3,7]
  %d = select(%p, %g, %z) : f64[3,7]
  %m = reduce_mean(%d) {axis=[0]} : f64[7]
  return %d, %m
}
""",
    "int_and_bool": """func @main(%a: i32[10], %b: i32[10]) -> (i32[10], bool[10]) {
  %0 = add(%a, %b) : i32[10]
  %1 = mul(%0, %a) : i32[10]
  %2 = less(%1, %b) : bool[10]
  %3 = logical_not(%2) : bool[10]
  return %1, %3
}
""",
    "big_parallel_domain": """func @main(%x: f32[512,300], %y: f32[512,300]) -> f32[512,300] {
  %0 = mul(%x, %y) : f32[512,300]
  %1 = sigmoid(%0) : f32[512,300]
  return %1
}
""",
}


def _module(name):
    m = parse_module(PROGRAMS[name])
    PassManager(resolve(DEFAULT)).run(m)
    return m


def _inputs(fn, rng):
    out = []
    for a in fn.args:
        t = a.type
        if t.dtype.np_dtype.kind == "f":
            out.append(rng.standard_normal(t.shape).astype(t.dtype.np_dtype))
        else:
            out.append(rng.integers(-5, 6, t.shape).astype(t.dtype.np_dtype))
    return out


class _Asked:
    """Stands for linked kernels while an executable is built: records what it asks for."""

    def __init__(self):
        self.seen = {}

    def lookup(self, ks):
        self.seen[(ks.key, ks.in_dtypes)] = ks
        return None


def native_kernels_of(module) -> N.NativeKernels:
    """Every kernel the executable of @main runs, emitted and linked."""
    asked = _Asked()
    compile_executable(module, module["main"], jit=True, kernel_min_size=0, native=asked)
    assert asked.seen, "the program has no kernel"
    kernels = N.link([objects.emit_kernel(ks, ks.in_dtypes) for ks in asked.seen.values()])
    assert not kernels.failed
    return kernels


def numba_executable(module, fn, monkeypatch):
    """The executable of ``fn`` with every kernel compiled by numba (the oracle)."""
    monkeypatch.setattr(objects, "usable", lambda: "the test asks for numba")
    K.reset_cache()
    try:
        return compile_executable(module, fn, jit=True, kernel_min_size=0)
    finally:
        monkeypatch.undo()
        K.reset_cache()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_native_equals_jit_numba_and_interpreter(name, monkeypatch):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")   # the runners' kernels are compared
    module = _module(name)
    fn = module["main"]
    args = _inputs(fn, np.random.default_rng(len(name)))
    want = Interpreter(module).compiled(fn)([a.copy() for a in args])
    jit_exe = compile_executable(module, fn, jit=True, kernel_min_size=0)
    numba_exe = numba_executable(module, fn, monkeypatch)
    kernels = native_kernels_of(module)
    native_exe = compile_executable(module, fn, jit=True, kernel_min_size=0, native=kernels)
    assert native_exe.kernels and all(isinstance(k.fn, N.PointerKernel)
                                      for k in native_exe.kernels)
    assert all(isinstance(k.fn, K._Numba) for k in numba_exe.kernels)
    assert not kernels.missed
    got = native_exe(list(args))
    for exe in (jit_exe, numba_exe):   # the same arithmetic from the same source: the same bits
        for g, r in zip(got, exe(list(args))):
            assert g.dtype == r.dtype and g.shape == r.shape
            np.testing.assert_array_equal(g, r)
    assert_same(got, list(want), native_exe.source)


def test_emit_is_deterministic_across_processes(tmp_path):
    """A fresh process with an empty cache emits the very same bytes (names are derived from
    the kernel, not from counters), so exporting twice gives the same artifact."""
    module = _module("softmax")
    op = next(o for o in walk(module) if o.opdef is FUSED)
    ks = lower_fused(op)
    here = objects.emit_kernel(ks, [v.type.dtype.np_dtype for v in op.operands])
    script = f"""
import hashlib, sys
from graphcell_ir.backend import objects
from graphcell_ir.backend.lower import lower_fused
from graphcell_ir.ir.structural import FUSED
from graphcell_ir.ir.walk import walk
from graphcell_ir.passes.manager import PassManager
from graphcell_ir.passes.pipelines import DEFAULT, resolve
from graphcell_ir.text import parse_module
m = parse_module('''{PROGRAMS["softmax"]}''')
PassManager(resolve(DEFAULT)).run(m)
op = next(o for o in walk(m) if o.opdef is FUSED)
print(hashlib.sha256(objects.emit_kernel(lower_fused(op), [v.type.dtype.np_dtype for v in op.operands]).data).hexdigest())
"""
    env = {**os.environ, "GRAPHCELL_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         check=True, timeout=300).stdout.split()[-1]
    assert out == hashlib.sha256(here.data).hexdigest()
    assert list((tmp_path / "objects").glob("*.o"))   # and it was compiled there, not read


def _tanh_kernel():
    module = _module("tanh_reduce")
    op = next(o for o in walk(module) if o.opdef is FUSED)
    ks = lower_fused(op)
    return ks, objects.emit_kernel(ks, [v.type.dtype.np_dtype for v in op.operands])


def test_native_function_checks_its_arguments():
    ks, obj = _tanh_kernel()
    fn = N.link([obj]).lookup(ks)
    x, a = np.ones((4, 8), np.float32), np.ones((1, 8), np.float32)
    out, acc = np.empty((4, 8), np.float32), np.zeros((4, 1), np.float64)
    fn(x, a, out, acc)
    np.testing.assert_allclose(out, np.tanh(1.0), rtol=1e-6)
    np.testing.assert_allclose(acc, 8 * np.tanh(1.0), rtol=1e-6)
    with pytest.raises(TypeError, match="argument 0 is float64"):
        fn(x.astype(np.float64), a, out, acc)
    with pytest.raises(TypeError, match=r"compiled for float32\[4, 8\]"):
        fn(np.ones((8, 4), np.float32), a, out, acc)
    with pytest.raises(TypeError, match="3 arguments for 4"):
        fn(x, a, out)
    strided = np.ones((4, 16), np.float32)[:, ::2]   # not C-contiguous: copied, same result
    out2, acc2 = np.empty_like(out), np.zeros_like(acc)
    fn(strided, a, out2, acc2)
    np.testing.assert_array_equal(out2, out)
    with pytest.raises(TypeError, match="output 2 is not C-contiguous"):
        fn(x, a, np.empty((4, 16), np.float32)[:, ::2], acc)


def test_lookup_needs_the_same_source_and_types():
    ks, obj = _tanh_kernel()
    kernels = N.link([obj])
    other = objects.emit_kernel(ks, [np.dtype(np.float64), np.dtype(np.float64)])   # another
    # signature
    assert other.id != obj.id
    assert kernels.lookup(ks) is not None
    softmax = lower_fused(next(o for o in walk(_module("softmax")) if o.opdef is FUSED))
    assert kernels.lookup(softmax) is None and kernels.missed == [softmax.key]


def test_bad_objects_are_refused_before_llvm_sees_them():
    _, obj = _tanh_kernel()
    triple = N.host_target().triple
    N.check_object(obj.data, obj.symbol, triple)
    for data, message in [(b"not an object", "not an ELF"),
                          (obj.data[:len(obj.data) // 2], "outside the file"),
                          (obj.data.replace(obj.symbol.encode(), b"x" * len(obj.symbol)),
                           "does not define")]:
        with pytest.raises(N.NativeError, match=message):
            N.check_object(data, obj.symbol, triple)
        bad = N.NativeObject(obj.key, obj.id, obj.args, data)
        kernels = N.link([bad])
        assert obj.id in kernels.failed and len(kernels) == 0


def _calling(name: str, id_: str) -> bytes:
    """An object whose entry calls ``name`` (a float -> float function), as graphcell emits."""
    import llvmlite.binding as llvm
    mod = llvm.parse_assembly(f"""
declare float @{name}(float)
define i32 @{N.symbol_of(id_)}(ptr %r, ptr %e, ptr %x) {{
  %v = call float @{name}(float 1.0)
  store float %v, ptr %x
  ret i32 0
}}
""")
    return N.target_machine(N.host_target()).emit_object(mod)


def _a_runtime_helper_this_process_lacks() -> str:
    """A compiler-runtime helper graphcell's code may call and this process does not define (a
    library loaded earlier may bring some: onnxruntime defines the __trunc/__extend ones)."""
    lib = ctypes.CDLL(None)
    return next(n for n in ("__truncdfhf2", "__gnu_f2h_ieee", "__gnu_h2f_ieee")
                if not hasattr(lib, n))


def test_an_unresolvable_symbol_is_a_link_failure_not_a_crash():
    _, good = _tanh_kernel()
    id_ = "0" * 24
    bad = N.NativeObject("1" * 24, id_, (("float32", (1,)),),
                         _calling(_a_runtime_helper_this_process_lacks(), id_))
    kernels = N.link([bad, good])   # one library fails: each is linked alone, the good one kept
    assert "llvmlite could not link it" in kernels.failed[id_]
    assert len(kernels) == 1 and good.key in kernels.by_key


def test_imports_graphcell_never_emits_are_refused_before_linking():
    id_ = "0" * 24
    for name in ("system", "graphcell_no_such_function", "dlopen"):
        obj = N.NativeObject("1" * 24, id_, (("float32", (1,)),), _calling(name, id_))
        N.check_object(obj.data, obj.symbol, N.host_target().triple)   # a sound object
        with pytest.raises(N.NativeError, match=f"it imports {name}, which graphcell's kernels "
                                                "never call"):
            N.check_linkable(obj.data, obj.symbol, N.host_target().triple)
        assert "never call" in N.link([obj]).failed[id_]


def test_targets():
    host = N.host_target()
    assert host.runs_on(host) is None
    assert N.Target(host.triple, "generic", "").runs_on(host) is None   # needs no feature
    assert "lacks: madeup" in N.Target(host.triple, "future", "+madeup,-sse2").runs_on(host)
    assert "is for riscv64" in N.Target("riscv64-unknown-linux-gnu", "x", "").runs_on(host)


def test_the_process_target_is_the_emit_target_narrowed_never_wider(monkeypatch):
    """NUMBA_CPU_NAME/NUMBA_CPU_FEATURES narrow what this process compiles and links; asking
    for a feature the host lacks leaves the host's target (no code that cannot run here)."""
    host = N.host_target()
    for var in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_ENABLE_AVX"):
        monkeypatch.delenv(var, raising=False)
    assert N.process_target() == host
    narrow = ",".join("-" + f[1:] if f[1:].startswith("avx") else f
                      for f in host.features.split(",") if f)
    monkeypatch.setenv("NUMBA_CPU_FEATURES", narrow)
    assert N.process_target() == N.Target(host.triple, host.cpu, narrow)
    assert not any(f.startswith("avx") for f in N.process_target().required())
    monkeypatch.setenv("NUMBA_CPU_FEATURES", host.features + ",+madeup")
    assert N.process_target() == host
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    monkeypatch.delenv("NUMBA_CPU_FEATURES")
    assert N.process_target() == N.Target(host.triple, "generic", "")


# --- the convolution/pooling loops (nnkernels) -----------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_native_loops_equal_jit_and_numba_loops(dtype):
    import functools
    from graphcell_ir.backend import nnkernels
    from graphcell_ir.ops import REGISTRY
    calls = [(REGISTRY[name], ops, REGISTRY[name].check_attrs(attrs))
             for name, ops, attrs in lenet_calls(np.random.default_rng(3), dtype, batch=2)]
    recorder = N.LoopRecorder(loops.namespace(True))
    want = [functools.partial(nnkernels.KERNELS[op], recorder)(*ops, **attrs)
            for op, ops, attrs in calls]
    oracle = loops.numba_loops()
    for (op, ops, attrs), w in zip(calls, want):   # numba's code: the same bits
        got = functools.partial(nnkernels.KERNELS[op], oracle)(*ops, **attrs)
        np.testing.assert_array_equal(got, w, err_msg=op.name)
    source = loops.source()
    assert all(kinds is not None for _, kinds in recorder.seen)
    emitted = [objects.emit_loop(source, name, kinds) for name, kinds in sorted(recorder.seen)]
    assert recorder.written   # LeNet's first convolution: the direct kernels
    emitted += [objects.emit_loop(m.SOURCE, name, m.kinds(name, dtype))
                for m, name, dtype in recorder.written]
    kernels = N.link(emitted)
    assert not kernels.failed

    def no_fallback():
        raise AssertionError("a loop ran without native code")
    native = kernels.loops(source, no_fallback)
    assert set(native.native_names()) == {name for name, _ in recorder.seen}
    for (op, ops, attrs), w in zip(calls, want):
        got = functools.partial(nnkernels.KERNELS[op], native)(*ops, **attrs)
        np.testing.assert_array_equal(got, w, err_msg=op.name)   # the JIT's: the same bits
        np.testing.assert_allclose(got, op.ref(*ops, **attrs), rtol=2e-4, atol=2e-4)


def test_native_loops_fall_back_for_kinds_without_code():
    source = loops.source()
    calls = []

    class Fallback:
        def __getattr__(self, name):
            return lambda *args: calls.append(name)
    native = N.NativeKernels().loops(source, Fallback)
    native.col2im(np.zeros((1, 4, 4)), 2, 2, 1, 1, 1, 1, 2, 2, np.zeros((1, 1, 3, 3)))
    strided = np.zeros((1, 8, 4))[:, ::2]   # not C order: no native kind
    assert N.kinds_of((strided,)) is None and N.kinds_of((np.float16(1),)) is None
    assert calls == ["col2im"]


@pytest.mark.parametrize("checked", [True, False], ids=["object entries", "pointer entries"])
def test_native_loops_choose_by_kind_on_every_call(checked, monkeypatch):
    """The loops namespace remembers which entry a call's argument kinds take: a later call
    with arrays of another dtype, rank or order must not reach the entry of the first —
    through the object entries emitted at the first call (the arrays checked natively), or,
    where those cannot be made, the pointer entries behind a check in Python."""
    from graphcell_ir.backend.native import linking
    if checked:
        monkeypatch.setattr(N.PointerLoop, "__call__",
                            lambda *a: pytest.fail("a pointer entry called from Python"))
    else:
        monkeypatch.setattr(linking, "checked_loops", lambda loops: {})
    source = loops.source()
    cols, out = np.arange(16.0).reshape(1, 4, 4), np.zeros((1, 1, 3, 3))
    args = (2, 2, 1, 1, 1, 1, 2, 2)
    linked = N.link([objects.emit_loop(source, "col2im", N.kinds_of((cols, *args, out)))])
    calls = []

    class Fallback:
        def __getattr__(self, name):
            return lambda *a: calls.append(name)
    native = linked.loops(source, Fallback)
    native.col2im(cols, *args, out)
    assert calls == [] and out.any()
    native.col2im(cols.astype(np.float32), *args, out.astype(np.float32))   # another dtype
    native.col2im(np.zeros((1, 8, 4))[:, ::2], *args, np.zeros((1, 1, 3, 3)))   # not C order
    native.col2im(cols, *(float(a) for a in args), out)                      # float scalars
    assert calls == ["col2im"] * 3
    again = np.zeros_like(out)
    native.col2im(cols, *args, again)                                        # the entry again
    np.testing.assert_array_equal(again, out)
    assert len(calls) == 3


def test_data_addresses_are_numpys():
    base = np.arange(40, dtype=np.float32).reshape(5, 8)
    for a in (base, base[2:], base[:, 3:], base.T, np.zeros(0), np.float64(1) * np.ones(3)):
        assert N.data_address()(a) == a.ctypes.data


@pytest.mark.slow
@settings(max_examples=24, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_native_on_random_graphs(data):
    """Random fused graphs (passes/graph_strategies): native kernels give the JIT's bits."""
    sys.path.insert(0, str(Path(__file__).parent.parent / "passes"))
    import graph_strategies
    import pass_oracle as oracle
    module = data.draw(graph_strategies.graphs(max_ops=8))
    PassManager(resolve(DEFAULT)).run(module)
    fn = module["main"]
    args = oracle.inputs_for(fn, np.random.default_rng(data.draw(st.integers(0, 2**16))))
    asked = _Asked()
    compile_executable(module, fn, jit=True, kernel_min_size=0, native=asked)
    if args is None or not asked.seen:   # about half the graphs have no kernel
        return
    emitted = []
    for ks in asked.seen.values():
        try:
            emitted.append(objects.emit_kernel(ks, ks.in_dtypes))
        except N.NativeError:
            pass   # a scalar operand: that kernel stays the JIT's
    kernels = N.link(emitted)
    assert not kernels.failed
    jit_exe = compile_executable(module, fn, jit=True, kernel_min_size=0)
    native_exe = compile_executable(module, fn, jit=True, kernel_min_size=0, native=kernels)
    from graphcell_ir.ops import random as op_random
    op_random.seed(oracle.SEED)
    ref = jit_exe([a.copy() if hasattr(a, "copy") else a for a in args])
    op_random.seed(oracle.SEED)
    got = native_exe([a.copy() if hasattr(a, "copy") else a for a in args])
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(r))
    keys = {o.key for o in emitted}
    assert all(isinstance(k.fn, N.PointerKernel) for k in native_exe.kernels if k.ks.key in keys)

"""``host_callback``: a side effect the passes keep in order, never fuse, and the backends run."""
from __future__ import annotations

import numpy as np

from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import Interpreter
from graphcell_ir.frontend import compile_function
from graphcell_ir.frontend.simple import PythonResolver
from graphcell_ir.ir import TensorType, float32, verify
from graphcell_ir.ir.walk import walk
from graphcell_ir.ops import functional as F
from graphcell_ir.passes import PassManager, resolve
from graphcell_ir.passes.pipelines import DEFAULT
from graphcell_ir.text import print_module

SEEN: list = []


def probe_a(x):
    SEEN.append(("a", np.array(x)))


def probe_b(x):
    SEEN.append(("b", np.array(x)))


def _program(x):
    y = F.exp(x) * 2.0
    y = F.host_callback(y, fn=probe_a, name="after_exp")
    z = F.tanh(y) + 1.0
    w = F.host_callback(z, fn=probe_b, name="before_neg")
    return F.neg(F.depend(z, w)) * 3.0  # an ordering edge only: the effect stays


def _compiled():
    m = compile_function(_program, None, [TensorType(float32, (4,))], PythonResolver()).module
    PassManager(resolve(DEFAULT), verify_each=True).run(m)
    verify(m)
    return m


def _callbacks(fn):
    return [op for op in walk(fn) if op.opdef.name == "host_callback"]


def test_default_pipeline_keeps_callbacks_in_order_and_unfused():
    m = _compiled()
    fn = m["_program"]
    cbs = _callbacks(fn)
    assert [op.attrs["name"] for op in cbs] == ["after_exp", "before_neg"]
    assert all(op.parent is fn.body for op in cbs)  # fusion never takes one into a kernel
    text = m.as_text() if hasattr(m, "as_text") else print_module(m)
    assert "@probe_a" in text and "@probe_b" in text
    assert text.index("@probe_a") < text.index("@probe_b")


def _run_both(m):
    x = np.linspace(-1, 1, 4).astype(np.float32)
    want_z = np.tanh(np.exp(x) * 2) + 1
    for runner in (lambda a: Interpreter(m).run("_program", *a),
                   lambda a: compile_executable(m, "_program")(a)):
        SEEN.clear()
        out = runner([x])
        out = out[0] if isinstance(out, (list, tuple)) else out
        np.testing.assert_allclose(out, -want_z * 3, rtol=1e-5)
        assert [k for k, _ in SEEN] == ["a", "b"]
        np.testing.assert_allclose(SEEN[0][1], np.exp(x) * 2, rtol=1e-6)
        np.testing.assert_allclose(SEEN[1][1], want_z, rtol=1e-6)


def test_interpreter_and_executable_run_the_callback():
    _run_both(_compiled())


def test_replacement_values_flow_on():
    def double(x):
        return x * 2

    def prog(x):
        return F.host_callback(x + 1.0, fn=double, name="dbl") - 1.0

    m = compile_function(prog, None, [TensorType(float32, (3,))], PythonResolver()).module
    PassManager(resolve(DEFAULT)).run(m)
    x = np.arange(3, dtype=np.float32)
    out = compile_executable(m, "prog")([x])
    np.testing.assert_allclose(out[0], (x + 1) * 2 - 1)

"""A call the compiled runner cannot finish is rerun on the interpreter: the rerun must not draw
random numbers a second time, and a call that already ran a host callback or a collective is not
rerun (the other processes of a job would wait for a second collective)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from graphcell_ir import comm
from graphcell_ir.backend.executable import compile_executable
from graphcell_ir.backend.interp import interpret
from graphcell_ir.frontend import compile_function
from graphcell_ir.frontend.simple import PythonResolver
from graphcell_ir.ir import TensorType, float32
from graphcell_ir.ops import functional as F
from graphcell_ir.ops import random as op_random

X = np.linspace(-1, 1, 64).astype(np.float32)
CALLS: list = []


def probe(x):
    CALLS.append(np.array(x))


def _noisy(x):
    return F.neg(F.dropout(x, keep_prob=0.5)[0])


def _calls_back(x):
    y = F.host_callback(F.exp(x), fn=probe, name="probe")
    return F.neg(F.depend(F.exp(x), y))


def _module(fn):
    return compile_function(fn, None, [TensorType(float32, X.shape)], PythonResolver()).module


def _sabotage(exe, op_name: str) -> list:
    """Make the runner's ``op_name`` call raise (once): the runner fails midway."""
    (name,) = re.findall(rf"= ({op_name}_\w+)\(.*\)  # {op_name}$", exe.source, re.M)
    ns, real, raised = exe.run.__globals__, exe.run.__globals__[name], []

    def broken(*args):
        if not raised:
            raised.append(True)
            raise RuntimeError("runner failure")
        return real(*args)
    ns[name] = broken
    return raised


def test_a_rerun_draws_the_same_numbers_once():
    m = _module(_noisy)
    exe = compile_executable(m, "_noisy", jit=False)
    raised = _sabotage(exe, "neg")
    op_random.seed(3)
    got = exe([X])
    after = op_random.generator().random()
    assert raised  # the runner did fail after dropout drew its mask
    op_random.seed(3)
    want = interpret(m, X)
    np.testing.assert_array_equal(got[0], want[0] if isinstance(want, (tuple, list)) else want)
    assert op_random.generator().random() == after  # the generator advanced exactly once


def test_no_rerun_after_a_host_callback():
    m = _module(_calls_back)
    exe = compile_executable(m, "_calls_back", jit=False)
    _sabotage(exe, "neg")
    CALLS.clear()
    with pytest.raises(RuntimeError, match="runner failure"):
        exe([X])
    assert len(CALLS) == 1  # the callback ran once; the call was not rerun
    CALLS.clear()
    np.testing.assert_allclose(exe([X])[0], -np.exp(X), rtol=1e-6)  # the next call is fine
    assert len(CALLS) == 1


def _communicates(x):
    return F.neg(F.all_reduce(F.exp(x), op="sum", group="hccl_world_group"))


def test_no_rerun_after_a_collective():
    m = _module(_communicates)
    exe = compile_executable(m, "_communicates", jit=False)
    _sabotage(exe, "neg")
    stats = comm.world().stats
    stats.reset()
    with pytest.raises(RuntimeError, match="runner failure"):
        exe([X])
    assert stats.calls == {"all_reduce": 1}   # ran once; the call was not rerun
    np.testing.assert_allclose(exe([X])[0], -np.exp(X), rtol=1e-6)
    assert stats.calls == {"all_reduce": 2}

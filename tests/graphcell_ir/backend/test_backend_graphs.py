"""Random fused graphs (``passes/graph_strategies``) after the default pipeline: the executable
(plain-Python kernels, and a few with numba) against the reference interpreter."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "passes"))
import graph_strategies  # noqa: E402
import pass_oracle as oracle  # noqa: E402
from backend_support import assert_same  # noqa: E402

from graphcell_ir.backend.executable import compile_executable  # noqa: E402
from graphcell_ir.ops import random as op_random  # noqa: E402
from graphcell_ir.passes.manager import PassManager  # noqa: E402
from graphcell_ir.passes.pipelines import DEFAULT, resolve  # noqa: E402

SETTINGS = dict(deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _check(module, seed: int, jit: bool) -> None:
    PassManager(resolve(DEFAULT)).run(module)
    fn = module["main"]
    args = oracle.inputs_for(fn, np.random.default_rng(seed))
    if args is None:
        return
    try:
        want = oracle.run(module, "main", [a.copy() if hasattr(a, "copy") else a for a in args])
    except Exception:
        return  # the program fails on the interpreter too
    exe = compile_executable(module, fn, jit=jit, kernel_min_size=0)
    op_random.seed(oracle.SEED)  # dropout draws the numbers it drew in the oracle's run
    got = exe(list(args))
    assert_same(got, list(want) if isinstance(want, (tuple, list)) else [want], exe.source)


@settings(max_examples=60, **SETTINGS)
@given(module=graph_strategies.graphs(), seed=st.integers(0, 2**16))
def test_python_kernels_on_random_graphs(module, seed):
    _check(module, seed, jit=False)


@settings(max_examples=6, **SETTINGS)
@given(module=graph_strategies.graphs(max_ops=8), seed=st.integers(0, 2**16))
def test_numba_kernels_on_random_graphs(module, seed):
    _check(module, seed, jit=True)

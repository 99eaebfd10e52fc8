"""Every differentiable registry entry: PyNative gradients against finite differences (DESIGN §11).

Each op runs the way a user runs it (``ops.<name>`` through the eager dispatcher, differentiated
by the tape and ``GradOperation``) and is checked with the public ``graphcell.testing.check_grads``
in float64. Inputs come from the op's row in ``tests/graphcell_ir/ops/samples.py``, the one table
of per-op sample generators, which keeps each op in its domain (log and sqrt positive, pow
bases positive, denominators away from zero, valid axes, layouts and windows...). The rule-level
twin of this test, on numpy values without the runtime, is ``tests/graphcell_ir/ops/test_grads.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcell import Tensor
from graphcell_ir.ops import functional as F
from graphcell.testing import check_grads
from graphcell_ir.ops import REGISTRY

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "graphcell_ir" / "ops"))
from samples import SAMPLES, Gen  # noqa: E402  (the shared sample table lives with the op tests)

KNOWN_FAILURES: dict[str, str] = {}
"""Op name -> why its PyNative gradient check fails. Expected empty: each entry is a bug to fix
(strict xfails, so the fix makes the entry's test fail until the entry is deleted)."""

DIFFERENTIABLE = sorted(name for name, op in REGISTRY.items() if op.differentiable)


def _params():
    marks = {name: [pytest.mark.xfail(reason=KNOWN_FAILURES[name], strict=True)]
             for name in KNOWN_FAILURES}
    return [pytest.param(name, marks=marks.get(name, []), id=name) for name in DIFFERENTIABLE]


def test_every_differentiable_op_has_a_sample_row():
    missing = [name for name in DIFFERENTIABLE if name not in SAMPLES]
    assert not missing, (f"differentiable op(s) without a sample row, so their gradients are not "
                         f"checked: {', '.join(missing)}; add a row to tests/graphcell_ir/ops/samples.py")


def test_known_failures_name_registry_ops():
    stale = [name for name in KNOWN_FAILURES if name not in DIFFERENTIABLE]
    assert not stale, f"KNOWN_FAILURES names ops that are not differentiable registry entries: {stale}"


def _as_value(v):
    return Tensor(v) if isinstance(v, np.ndarray) else v  # Python scalars stay weakly typed


def _case(name: str, data):
    """The op as a function of its operands, the operands, the positions to differentiate (None:
    every float Tensor) and the sample row."""
    op, row = REGISTRY[name], SAMPLES[name]
    operands, attrs = row.make(Gen(data), "float64")
    attrs = {**attrs, **row.grad_attrs}
    fn = getattr(F, op.name)

    def apply_op(*xs):
        return fn(*xs, **attrs)
    shown = ", ".join([*op.operands, *(f"{k}={v!r}" for k, v in attrs.items())])
    apply_op.__qualname__ = f"ops.{name}({shown})"  # how check_grads' messages name it
    return apply_op, tuple(_as_value(x) for x in operands), row.diff, row


@pytest.mark.parametrize("name", _params())
@settings(max_examples=20)
@given(data=st.data())
def test_pynative_gradient_matches_finite_differences(name, data):
    if name not in SAMPLES:
        pytest.fail(f"{name} has no sample row (see test_every_differentiable_op_has_a_sample_row)")
    fn, args, diff, row = _case(name, data)
    if not any(isinstance(a, Tensor) and a.dtype.is_float for a in args):
        return  # every operand drawn as a Python scalar: nothing to differentiate
    check_grads(fn, args, grad_position=diff, rtol=row.rtol)

"""Every differentiable registry entry through the IR gradient transform (DESIGN.md §11).

Each op becomes a one-op Function of its sample operands (``tests/graphcell_ir/ops/samples.py``;
tensors are arguments, Python scalars literals), is differentiated by ``grad_function`` and run on
the reference interpreter: gradients against central finite differences in float64, and equal to
what the op's bprop rule gives when run directly on numpy values (the rule-level twin in
``ops/test_grads.py``) — graph mode and the rule share the rule, not the plumbing.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcell_ir.ir import Builder, Function, Module
from graphcell_ir.ir.types import type_of_value
from graphcell_ir.ops import REGISTRY, Trait
from graphcell_ir.ops import random as op_random

from numpy_emitter import run_bprop
from samples import SAMPLES, Gen

from ad_check import SEED, _float, check_grad_function

DIFFERENTIABLE = sorted(n for n, op in REGISTRY.items() if op.differentiable and n in SAMPLES)


def _one_op_module(op, operands, attrs):
    """``@f(tensor operands...) = op(operands, attrs)``, all results returned; which argument
    each operand became (None for a literal)."""
    m = Module()
    fn = m.add(Function("f"))
    values, arg_of = [], []
    for x in operands:
        if isinstance(x, np.ndarray):
            arg_of.append(len(fn.args))
            values.append(fn.add_arg(type_of_value(x), f"x{len(fn.args)}"))
        else:
            arg_of.append(None)
            values.append(x)
    b = Builder.at_end(fn.body)
    out = b.op(op, *values, **attrs)
    b.return_(*(out if isinstance(out, tuple) else (out,)))
    return m, arg_of


@pytest.mark.parametrize("name", DIFFERENTIABLE)
@settings(max_examples=10, deadline=None, derandomize=True)
@given(data=st.data())
def test_op_gradient_through_the_ir(name, data):
    op, row = REGISTRY[name], SAMPLES[name]
    g = Gen(data)
    operands, attrs = row.make(g, "float64")
    attrs = op.check_attrs({**attrs, **row.grad_attrs})
    m, arg_of = _one_op_module(op, operands, attrs)
    args = [x for x in operands if isinstance(x, np.ndarray)]
    diff = row.diff if row.diff is not None else [i for i, x in enumerate(operands) if _float(x)]
    wrt = [arg_of[i] for i in diff if arg_of[i] is not None]
    if not wrt:
        return  # every float operand drawn as a Python scalar
    _, grads = check_grad_function(m, "f", args, wrt, rng=g.rng, rtol=row.rtol, atol=row.atol)
    _same_as_the_rule(op, operands, attrs, arg_of, wrt, grads, m)


def _same_as_the_rule(op, operands, attrs, arg_of, wrt, grads, m):
    """The transform's gradients equal the rule's own, run eagerly on numpy (same cotangents)."""
    from ad_check import run
    outs = run(m, "f", *[x for x in operands if isinstance(x, np.ndarray)])
    res_g = run(m, "f.grad", *[x for x in operands if isinstance(x, np.ndarray)],
                *[np.ones(np.shape(o), np.asarray(o).dtype) for o in outs])
    if op.has(Trait.RANDOM):
        op_random.seed(SEED)
    outs_ref = op.ref(*operands, **attrs)
    outs_ref = outs_ref if isinstance(outs_ref, tuple) else (outs_ref,)
    dout = tuple(np.ones(np.shape(o), np.asarray(o).dtype) if _float(np.asarray(o)) else None
                 for o in outs_ref)
    rule = run_bprop(op, operands, attrs, outs_ref if len(outs_ref) > 1 else outs_ref[0],
                     dout if len(dout) > 1 else dout[0])
    by_arg = {a: gr for a, gr in zip(arg_of, rule) if a is not None}
    for i, gr in zip(wrt, res_g[len(outs):]):
        want = by_arg.get(i)
        want = np.zeros_like(gr) if want is None else want
        np.testing.assert_allclose(gr, want, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{op.name}: gradient of argument {i}")

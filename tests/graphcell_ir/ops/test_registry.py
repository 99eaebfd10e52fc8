"""Meta-tests over the whole registry (STYLE.md §9.9.1): every entry, every row of samples.py.

For each OpDef: it has a sample row; its bprop is a rule or NONDIFF; ``infer_types`` agrees with
the dtype and shape of ``ref`` on drawn inputs; bad inputs raise ShapeError/OpTypeError naming
the op; an elementwise op has a kernel template, and that template, evaluated as a Python scalar
expression, agrees with ``ref`` (including at NaN/±Inf/±0 where the row asks for it); an
in-place reference (``ref_into``) writes what ``ref`` returns, and so do the references
specialised to static types (``specialize``).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphcell_ir.backend.fma import fma
from graphcell_ir.errors import OpError
from graphcell_ir.ir.types import type_of_value
from graphcell_ir.ops import NONDIFF, REGISTRY, Kind, Trait
from graphcell_ir.ops import random as op_random
from numpy_emitter import check_result
from samples import SAMPLES, Gen

EXAMPLES = settings(max_examples=8, deadline=None, derandomize=True)


def _param(name: str, *rest, test: str):
    """A pytest param for op ``name``, marked xfail(strict) when its row says so for ``test``."""
    reason = SAMPLES[name].xfail.get(test) if name in SAMPLES else None
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(name, *rest, marks=marks, id="-".join((name, *rest)))


def _cases(test: str, where=lambda op: True, dtypes=True):
    out = []
    for name, op in REGISTRY.items():
        if name not in SAMPLES or not where(op):
            continue
        if dtypes:
            out += [_param(name, dt, test=test) for dt in SAMPLES[name].dtypes]
        else:
            out.append(_param(name, test=test))
    return out


def run_ref(op, operands, attrs):
    """``op.ref``; random ops draw from a freshly seeded generator, so reruns agree."""
    if op.has(Trait.RANDOM):
        op_random.seed(1234)
    return op.ref(*operands, **attrs)


# --- structure --------------------------------------------------------------------------------

def test_every_op_has_a_row():
    missing = sorted(set(REGISTRY) - set(SAMPLES))
    assert not missing, (f"ops without a row in tests/graphcell_ir/ops/samples.py: {missing}; "
                         "`python tools/new_op.py NAME` prints a skeleton")
    assert not sorted(set(SAMPLES) - set(REGISTRY)), "sample rows for ops that do not exist"


_TEST_NAMES = {"infer_ref", "bad", "kernel", "kernel_specials", "kernel_points", "reduce_kernel",
               "grad", "grad_types", "grad2"}


def test_xfail_entries_name_real_tests():
    typos = {f"{n}: {t}" for n, row in SAMPLES.items() for t in row.xfail if t not in _TEST_NAMES}
    assert not typos, f"xfail keys that name no test: {sorted(typos)}"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_bprop_is_a_rule_or_nondiff(name):
    op = REGISTRY[name]
    assert op.bprop is NONDIFF or callable(op.bprop)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_operand_names_leave_out_and_dout_to_bprop(name):
    """bprop(*inputs, out, dout, **attrs): an operand called ``out`` or ``dout`` would clash with
    the rule's own parameters whenever a caller passes those by keyword."""
    assert not {"out", "dout"} & {o.lstrip("*") for o in REGISTRY[name].operands}


@pytest.mark.parametrize("name", [n for n, op in REGISTRY.items() if op.kind is Kind.ELEMENTWISE])
def test_elementwise_has_a_kernel(name):
    kernel = REGISTRY[name].kernel
    assert isinstance(kernel, str) and kernel.strip()


# --- infer against ref --------------------------------------------------------------------------

@pytest.mark.parametrize("name,dtype", _cases("infer_ref"))
@EXAMPLES
@given(data=st.data())
def test_infer_matches_ref(name, dtype, data):
    op, row = REGISTRY[name], SAMPLES[name]
    operands, attrs = row.make(Gen(data), dtype)
    attrs = op.check_attrs(attrs)
    types = op.infer_types(*(type_of_value(v) for v in operands), **attrs)
    check_result(op, types, run_ref(op, operands, attrs))


@pytest.mark.parametrize("name,dtype", _cases("ref_into", where=lambda op: op.ref_into is not None))
@EXAMPLES
@given(data=st.data())
def test_ref_into_writes_what_ref_returns(name, dtype, data):
    """An op's in-place reference (loops update their carried arrays with it) returns operand 0's
    own array holding exactly what ``ref`` returns."""
    op, row = REGISTRY[name], SAMPLES[name]
    operands, attrs = row.make(Gen(data), dtype)
    attrs = op.check_attrs(attrs)
    want = op.ref(*operands, **attrs)
    target = np.array(operands[0], copy=True)
    got = op.ref_into(target, *operands[1:], **attrs)
    assert got is target
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name,dtype", _cases("specialize",
                                              where=lambda op: op.specialize is not None))
@EXAMPLES
@given(data=st.data())
def test_specialized_refs_compute_what_ref_computes(name, dtype, data):
    """An op's reference specialised to its operands' static types (compiled runners call it)
    returns what ``ref`` returns, and its in-place form writes it into operand 0's array; where
    it declines (None) the runner calls ``ref``."""
    op, row = REGISTRY[name], SAMPLES[name]
    operands, attrs = row.make(Gen(data), dtype)
    attrs = op.check_attrs(attrs)
    types = tuple(type_of_value(v) for v in operands)
    want = op.ref(*operands, **attrs)
    fast = op.specialize(types, dict(attrs), False)
    if fast is not None:
        before = [np.array(v, copy=True) for v in operands]
        np.testing.assert_array_equal(fast(*operands), want)
        for v, b in zip(operands, before):   # the copying form leaves its operands alone
            np.testing.assert_array_equal(v, b)
    into = op.specialize(types, dict(attrs), True) if op.ref_into is not None else None
    if into is not None:
        target = np.array(operands[0], copy=True)
        got = into(target, *operands[1:])
        assert got is target
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", _cases("bad", dtypes=False))
def test_bad_inputs_raise_naming_the_op(name):
    op, row = REGISTRY[name], SAMPLES[name]
    assert row.bad, f"give {name}'s sample row at least one Bad input"
    for bad in row.bad:
        with pytest.raises(bad.error) as info:
            op.infer_types(*bad.types, **op.check_attrs(bad.attrs))
        assert isinstance(info.value, OpError)
        assert str(info.value).startswith(f"{op.display_name}: "), str(info.value)


# --- kernel templates ---------------------------------------------------------------------------

_BUILTINS = {"abs": abs, "max": max, "min": min, "bool": bool, "int": int, "float": float,
             "fma": fma}


class _IEEEMath:
    """``math`` as compiled kernels see it: where Python raises a domain or range error
    (``math.log(-1)``, ``math.exp(1000)``), libm — and so numba — returns NaN or ±Inf, as numpy
    does. Every other error (``math.floor(nan)`` cannot make an int) still fails the test."""

    def __getattr__(self, name):
        fn = getattr(math, name)
        if not callable(fn):
            return fn

        def ieee(*args):
            try:
                return fn(*args)
            except (OverflowError, ValueError) as e:
                if "math domain error" not in str(e) and "math range error" not in str(e):
                    raise
                with np.errstate(all="ignore"):
                    return float(getattr(np, name)(*args))
        return ieee


_MATH = _IEEEMath()
_SPECIALS = {"f": [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.5, -2.5], "b": [True, False],
             "i": [0, 2, -3], "u": [0, 2]}


def render(template: str, names, attrs: dict) -> str:
    """The kernel as Python source: operands become variables ``_x``, attrs literals."""
    return template.format(**{n: f"_{n}" for n in names}, **{k: repr(v) for k, v in attrs.items()})


def eval_kernel(template: str, values: dict, attrs: dict):
    src = render(template, values, attrs)
    try:
        return eval(src, {"math": _MATH, "__builtins__": _BUILTINS}, {f"_{k}": v for k, v in values.items()})
    except (ArithmeticError, ValueError) as e:
        raise AssertionError(f"kernel {src!r} raised {type(e).__name__}: {e} at {values}") from None


def _as_element(v, like):
    """A Python scalar operand stays one; an array operand becomes a 0-d array of its dtype."""
    return np.asarray(v, like.dtype) if isinstance(like, np.ndarray) else v


def _check_point(op, operands, point: tuple, attrs: dict) -> None:
    want = np.asarray(op.ref(*(_as_element(p, o) for p, o in zip(point, operands)), **attrs))
    names = [n.lstrip("*") for n in op.operands]
    template = op.template(float32=want.dtype == np.float32)   # (evaluated in float64 here)
    with np.errstate(all="ignore"):
        got = np.asarray(eval_kernel(template, dict(zip(names, point)), attrs)).astype(want.dtype)
    got = np.broadcast_to(got, want.shape)  # an op without operands (fill) is one value everywhere
    if want.dtype.kind == "f":
        tight = want.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-12 if tight else 1e-5, atol=1e-14 if tight else 1e-6,
                                   equal_nan=True, err_msg=f"{op.name} kernel {template!r} at {point}")
    else:
        assert np.array_equal(got, want), f"{op.name} kernel {template!r} at {point}: {got} != ref {want}"


def _points(operands, n: int):
    arrays = [o if isinstance(o, np.ndarray) else np.asarray(o) for o in operands]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    flat = [np.broadcast_to(a, shape).ravel() for a in arrays]
    size = int(np.prod(shape))
    for k in range(min(size, n)):
        yield tuple(f[k].item() if isinstance(o, np.ndarray) else o for f, o in zip(flat, operands))


_EW = lambda op: op.kind is Kind.ELEMENTWISE  # noqa: E731


@pytest.mark.parametrize("name,dtype", _cases("kernel", _EW))
@settings(max_examples=4, deadline=None, derandomize=True)
@given(data=st.data())
def test_kernel_matches_ref(name, dtype, data):
    op = REGISTRY[name]
    operands, attrs = SAMPLES[name].make(Gen(data), dtype)
    attrs = op.check_attrs(attrs)
    if not operands:
        _check_point(op, operands, (), attrs)
    for point in _points(operands, 12):
        _check_point(op, operands, point, attrs)


@pytest.mark.parametrize("name,dtype", [c for c in _cases("kernel_specials", lambda op: _EW(op))
                                        if SAMPLES[c.values[0]].specials and c.values[1] in ("float32", "float64")])
@settings(max_examples=1, deadline=None, derandomize=True)
@given(data=st.data())
def test_kernel_matches_ref_at_special_values(name, dtype, data):
    op = REGISTRY[name]
    operands, attrs = SAMPLES[name].make(Gen(data), dtype)
    attrs = op.check_attrs(attrs)
    choices = [_SPECIALS[np.asarray(o).dtype.kind] for o in operands]
    for point in itertools.product(*choices):
        _check_point(op, operands, point, attrs)


@pytest.mark.parametrize("name,dtype", [c for c in _cases("kernel_points", _EW)
                                        if c.values[1] in SAMPLES[c.values[0]].points])
def test_kernel_matches_ref_at_listed_points(name, dtype):
    """Edge cases a row lists explicitly (rounding of floor division, huge integers...)."""
    op = REGISTRY[name]
    for point in SAMPLES[name].points[dtype]:
        _check_point(op, tuple(np.asarray(v, dtype) for v in point), point, {})


@pytest.mark.parametrize("name,dtype", _cases("reduce_kernel", lambda op: op.kind is Kind.REDUCTION
                                              and op.kernel is not None))
@settings(max_examples=4, deadline=None, derandomize=True)
@given(data=st.data())
def test_reduction_kernel_folds_to_ref(name, dtype, data):
    """A reduction template folded over every element (``acc`` starts at the first) is ref's
    full reduction."""
    op = REGISTRY[name]
    (x,), attrs = SAMPLES[name].make(Gen(data), dtype)
    attrs = op.check_attrs({"axis": None, "keep_dims": False})
    values = x.ravel().tolist()
    acc = values[0]
    for v in values[1:]:
        acc = eval_kernel(op.kernel, {"acc": acc, "x": v}, {})
    want = np.asarray(op.ref(x, **attrs))
    got = np.asarray(acc).astype(want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=f"{name} kernel {op.kernel!r}")

"""``functional.bind``'s shortcuts: attrs checked once per (value, class), an operands-only call
completed from the op's defaults, axes normalised once — each answer the uncached one."""
from __future__ import annotations

import numpy as np
import pytest

from graphcell_ir.errors import AttrError, OpTypeError, ShapeError
from graphcell_ir.ops import REGISTRY
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.functional import checked_attrs, using_emitter


class Recorder:
    """An emitter that keeps what it was given and runs nothing."""

    def __init__(self):
        self.calls = []

    def emit(self, op, args, attrs):
        self.calls.append((op.name, args, attrs))
        return attrs


def test_equal_values_of_other_classes_are_checked_again():
    op = REGISTRY["reduce_sum"]
    assert checked_attrs(op, {"axis": (0,), "keep_dims": True}) == {"axis": (0,), "keep_dims": True}
    for _ in range(2):   # 1 == True and (False,) == (0,), but the rules refuse these
        with pytest.raises(AttrError, match="keep_dims"):
            checked_attrs(op, {"axis": (0,), "keep_dims": 1})
        with pytest.raises(AttrError, match="axis"):
            checked_attrs(op, {"axis": (False,), "keep_dims": True})
    assert checked_attrs(op, {"axis": 0}) == {"axis": (0,), "keep_dims": False}
    assert checked_attrs(op, {"axis": [0, 1]}) == {"axis": (0, 1), "keep_dims": False}  # a list


def test_checked_attrs_are_copies():
    op = REGISTRY["reduce_sum"]
    first = checked_attrs(op, {"axis": (1,)})
    first["keep_dims"] = "changed by a caller"
    assert checked_attrs(op, {"axis": (1,)}) == {"axis": (1,), "keep_dims": False}


def test_the_cache_stays_bounded(monkeypatch):
    monkeypatch.setattr(F, "_CHECKED_MAX", 8)
    op = REGISTRY["reduce_sum"]
    for i in range(40):
        assert checked_attrs(op, {"axis": (i,)})["axis"] == (i,)
    assert len(F._checked) <= 8


def test_operands_only_calls_take_the_defaults_and_check_arity():
    rec = Recorder()
    with using_emitter(rec):
        F.reduce_sum("x")
        F.relu("x")
        F.reduce_sum("x", (0,), True)          # positional attrs: the checked path
        with pytest.raises(OpTypeError, match="expected 1 operand"):
            F.relu()
        with pytest.raises(AttrError, match="missing attribute"):
            F.reshape("x")                     # a required attr: never completed silently
    assert rec.calls[0] == ("reduce_sum", ("x",), {"axis": None, "keep_dims": False})
    assert rec.calls[1] == ("relu", ("x",), {})
    assert rec.calls[2] == ("reduce_sum", ("x",), {"axis": (0,), "keep_dims": True})
    rec.calls[0][2]["axis"] = (5,)            # an emitter's dict is its own
    with using_emitter(rec):
        F.reduce_sum("x")
    assert rec.calls[-1][2] == {"axis": None, "keep_dims": False}


def test_reduction_axes_are_checked_on_every_call():
    ref = REGISTRY["reduce_sum"].ref
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(ref(x, axis=(1,)), [3.0, 12.0])
    for _ in range(2):
        with pytest.raises(ShapeError, match="out of range"):
            ref(x, axis=(2,))
    np.testing.assert_array_equal(ref(x, axis=[-1]), [3.0, 12.0])   # a list: not cached

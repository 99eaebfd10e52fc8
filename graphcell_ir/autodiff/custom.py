"""Custom bprop at the IR level: a ``call`` whose callee names its own gradient Function.

The frontend turns a Cell with a ``bprop`` method into two Functions: ``construct`` (the callee,
called from the network) and ``bprop``, linked by an attribute on the callee::

    func @Mul3.construct(%x: f32[3]) -> f32[3] attributes {bprop="Mul3.bprop"} { ... }
    func @Mul3.bprop(%x: f32[3], %out: f32[3], %dout: f32[3]) -> f32[3] { ... }

The transform then keeps the call in the forward (the callee is not inlined) and, instead of
differentiating the callee, calls the bprop Function in the backward:
``%dx... = call(%inputs..., %outs..., %douts...) {callee="Mul3.bprop"}``.

The bprop Function's signature is the callee's arguments, then its results (``out``), then one
cotangent per result (``dout``, zeros where none arrived), as in MindSpore's
``bprop(self, *inputs, out, dout)`` with a single result. It returns one gradient per callee
argument; or one per non-parameter argument, the parameters then getting none (MindSpore's
``bprop`` without ``internal_params``). A result of type ``none`` means no gradient for that
argument. As in PyNative, a gradient of the wrong shape is an error (``BpropShapeError``, when
the gradient Function is built) and one of another dtype is cast to its argument's dtype.

Because the bprop Function is an ordinary Function of the module, a gradient of a gradient
differentiates it like any other code (it is inlined in the next transform).
"""
from __future__ import annotations

from graphcell_ir.errors import AutodiffError, BpropShapeError
from graphcell_ir.ir.core import Function, Op
from graphcell_ir.ir.types import NONE, TensorType
from graphcell_ir.ops import functional as F
from graphcell_ir.autodiff.cotangent import materialize_as
from graphcell_ir.autodiff.inline import callee_of, custom_bprop_name
from graphcell_ir.autodiff.replay import Tape, where


def bprop_function(callee: Function, module) -> Function:
    """The custom bprop Function of ``callee``, checked against its signature."""
    name = custom_bprop_name(callee)
    bfn = module.get(name) if name is not None else None
    if bfn is None:
        raise AutodiffError(f"@{callee.name} names @{name} as its bprop, which is not a function "
                            "of the module")
    _check_signature(callee, bfn)
    return bfn


def _types(ts) -> str:
    return "(" + ", ".join(map(str, ts)) + ")"


def _check_signature(callee: Function, bfn: Function) -> None:
    results = list(callee.result_types or ())
    want = [a.type for a in callee.args] + results + results
    got = [a.type for a in bfn.args]
    if got != want:
        raise AutodiffError(f"the bprop @{bfn.name} of @{callee.name} takes {_types(got)}; it must "
                            f"take the inputs, the outputs and their cotangents: {_types(want)}")
    targets = _grad_targets(callee, bfn)
    for i, (a, t) in enumerate(zip(targets, bfn.result_types or ())):
        if t == NONE:
            continue
        if not isinstance(t, TensorType) or not isinstance(a.type, TensorType) or t.shape != a.shape:
            raise BpropShapeError(f"the bprop @{bfn.name} of @{callee.name} returns {t} as the "
                                  f"gradient of argument {a.index} ({a.type}): shapes must match")


def _grad_targets(callee: Function, bfn: Function) -> list:
    """The callee arguments the bprop Function's results are gradients of, in order."""
    n = len(bfn.result_types or ())
    if n == len(callee.args):
        return list(callee.args)
    inputs = [a for a in callee.args if not a.param]
    if n == len(inputs):
        return inputs
    raise AutodiffError(f"the bprop @{bfn.name} of @{callee.name} returns {n} value(s); it must "
                        f"return one gradient per argument of @{callee.name} ({len(callee.args)}), "
                        f"or per non-parameter argument ({len(inputs)})")


def backward_call(bw, op: Op, tape: Tape, douts: list, ct: dict) -> None:
    """The backward of a kept ``call``: call the callee's bprop Function."""
    callee = callee_of(op, bw.module)
    if custom_bprop_name(callee) is None:
        raise AutodiffError(f"the call of @{callee.name}{where(op)} should have been inlined")
    bfn = bprop_function(callee, bw.module)
    b = bw.b
    ins = [tape.new(v) for v in op.operands]
    outs = [tape.vmap[r] for r in op.results]
    dvals = [materialize_as(b, d, r.type) for d, r in zip(douts, op.results)]
    results = b.call(bfn, *ins, *outs, *dvals)
    by_arg = dict(zip(_grad_targets(callee, bfn), results))
    grads = []
    for a, v in zip(callee.args, op.operands):
        g = by_arg.get(a)
        if g is None or g.type == NONE:
            grads.append(None)
        else:
            grads.append(F.cast(g, dtype=v.dtype) if g.dtype != v.dtype else g)
    bw.distribute(op, grads, ct, f"the bprop @{bfn.name}")

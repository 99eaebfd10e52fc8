"""PyNative reverse mode: a tape of the ops that touch tracked Tensors, and the backward walk.

A Tensor is *tracked* when its ``_node`` is set: it is a gradient leaf (an input or weight being
differentiated) or the output of a recorded op. Recording is on only while a gradient call is
running (``recording()``), and an op is recorded only when one of its inputs is tracked — so
ordinary PyNative code pays one ``is None`` check per op and builds nothing.

The backward walk calls each op's registry bprop rule under the eager emitter. When a gradient
call is nested inside another (``grad(grad(f))``), the outer level keeps recording during the inner
walk, so the inner gradients are themselves tracked and can be differentiated again.

Nodes hold their inputs and outputs strongly (rules need both); the cycle tensor -> node ->
outputs -> tensor is broken by ``release`` after each backward walk, so the tape is freed without
waiting for the garbage collector.
"""
from __future__ import annotations

import itertools
from contextlib import contextmanager
from typing import Callable

from graphcell.runtime import dispatch
from graphcell_ir.ops.functional import using_emitter
from graphcell_ir.ops.registry import OpDef


_seq = itertools.count()

TENSOR_HOOKS = [0]
"""How many tensor hooks were ever registered (``Tensor.register_hook``): while none, nothing
looks for them (reading an unset ``_hooks`` slot is slow)."""


class Node:
    """One recorded application: ``backward(douts) -> one gradient (or None) per input``.

    ``douts`` has one entry per output (None where no gradient arrived). ``inputs`` are the
    values the op was applied to (Tensors or Python numbers). ``seq`` numbers nodes in the order
    they were recorded: the backward walk runs them latest first.
    """

    __slots__ = ("inputs", "sources", "outputs", "backward", "name", "seq")

    def __init__(self, inputs: tuple, outputs: tuple, backward: Callable | None, name: str):
        self.inputs = inputs
        # where each tracked input's value came from, fixed now: an in-place write later
        # (``b[...] = relu(b)``) gives the Tensor object ``b`` a new node, but this op read the
        # value of the old one
        self.sources = tuple(map(_source, inputs))
        self.outputs = outputs
        self.backward = backward
        self.name = name
        self.seq = next(_seq)

    @property
    def is_leaf(self) -> bool:
        return self.backward is None

    def __repr__(self) -> str:
        return f"<Node {self.name}>"


def _source(value) -> tuple | None:
    """``(node, output index)`` of a tracked value, None for an untracked one."""
    node = getattr(value, "_node", None)
    if node is None:
        return None
    for k, o in enumerate(node.outputs):
        if o is value:
            return node, k
    return None


def op_backward(op: OpDef, inputs: tuple, attrs: dict, outputs: tuple):
    """The backward of a registry op: its bprop rule with ``out``/``dout`` shaped like the op's.

    Rules that take ``needs`` are told which inputs are tracked, so an expensive gradient nobody
    asked for (a network input's, through the first convolution) is never computed.
    """
    single = len(outputs) == 1
    if op.bprop_takes_needs:
        attrs = {**attrs, "needs": tuple(getattr(a, "_node", None) is not None for a in inputs)}

    def backward(douts):
        out = outputs[0] if single else outputs
        dout = douts[0] if single else tuple(douts)
        if not single and any(d is None for d in dout):
            from graphcell_ir.ops import functional as F
            dout = tuple(F.zeros_like(o) if d is None else d for d, o in zip(dout, outputs))
        return op.bprop(*inputs, out, dout, **attrs)
    return backward


_depth = 0  # number of gradient calls currently recording


def _record(op: OpDef, args: tuple, attrs: dict, result) -> None:
    """The dispatch recorder: tape ``op`` if any input is tracked (nothing otherwise)."""
    for a in args:
        if getattr(a, "_node", None) is not None:
            break
    else:
        return
    outputs = result if isinstance(result, tuple) else (result,)
    if not op.differentiable:
        return  # outputs stay untracked: no gradient flows through comparisons, argmax, ...
    node = Node(args, outputs, op_backward(op, args, attrs, outputs), op.name)
    for o in outputs:
        o._node = node


@contextmanager
def recording():
    """Record ops on tracked Tensors for the duration (nests)."""
    global _depth
    _depth += 1
    dispatch.recorder = _record
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            dispatch.recorder = None


@contextmanager
def paused():
    """No recording (a top-level backward walk: its ops need no gradient)."""
    saved = dispatch.recorder
    dispatch.recorder = None
    try:
        yield
    finally:
        dispatch.recorder = saved


def is_recording() -> bool:
    return dispatch.recorder is not None


def make_leaf(value, name: str = "leaf"):
    """A tracked Tensor standing for ``value`` in this gradient call.

    When an outer gradient call is recording and ``value`` is tracked there, the leaf is an
    identity of it on the outer tape, so second-order gradients flow through.
    """
    from graphcell.tensor import Tensor
    leaf = Tensor._wrap(value._data)
    if TENSOR_HOOKS[0]:
        hooks = getattr(value, "_hooks", None)
        if hooks:   # the input's tensor hooks see the leaf's gradient
            leaf._hooks = hooks
    outer = value._node
    if outer is not None and is_recording():
        leaf._node = Node((value,), (leaf,), lambda douts: (douts[0],), f"{name}:identity")
        return leaf, leaf._node
    leaf._node = Node((), (leaf,), None, name)
    return leaf, leaf._node


def record_custom(inputs: tuple, outputs: tuple, backward: Callable, name: str) -> None:
    """Tape a Python-level backward (custom bprop, hooks) over tracked ``inputs``."""
    if not is_recording() or not any(getattr(a, "_node", None) is not None for a in inputs):
        return
    node = Node(inputs, outputs, backward, name)
    for o in outputs:
        o._node = node


def _toposort(roots: list) -> list[Node]:
    """Nodes reachable from ``roots``, latest recorded first — so each comes after every node
    that consumes its outputs, and independent branches run in reverse program order, as in
    MindSpore 2.10 and PyTorch (two ``HookBackward`` hooks on ``a`` and ``b`` of ``a + b`` run
    ``b``'s first) and in IR autodiff."""
    order, seen = [], set()
    stack = [(n, False) for n in roots]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for src in node.sources:
            if src is not None and id(src[0]) not in seen:
                stack.append((src[0], False))
    order.sort(key=_by_seq, reverse=True)
    return order


def _by_seq(node: Node) -> int:
    return node.seq


def backward(outputs: tuple, sens: tuple, stop_at: set[int] | frozenset = frozenset()) -> dict:
    """Propagate ``sens`` from ``outputs``; return ``{id(leaf node): gradient}``.

    Leaves are keyed by node, not by tensor: an in-place write (``x[0] = v``) moves a leaf's value
    to a snapshot tensor, but the node stays. ``stop_at`` holds ids of nodes whose inputs are not
    followed (this call's leaves when it is nested in an outer gradient call).
    """
    from graphcell_ir.ops import functional as F
    ct: dict[tuple, object] = {}   # (id(node), output index) -> cotangent
    roots = []
    for o, s in zip(outputs, sens):
        src = _source(o)
        if src is None or s is None:
            continue
        key = (id(src[0]), src[1])
        ct[key] = s if key not in ct else F.add(ct[key], s)
        roots.append(src[0])
    grads = {}
    with using_emitter(dispatch.EAGER):
        hooked = TENSOR_HOOKS[0]
        for node in _toposort(roots):
            douts = [ct.pop((id(node), k), None) for k in range(len(node.outputs))]
            if hooked:
                douts = [_hooked(o, d) for o, d in zip(node.outputs, douts)]
            if node.is_leaf or id(node) in stop_at:
                if douts[0] is not None:
                    grads[id(node)] = douts[0]
                continue
            if all(d is None for d in douts):
                continue
            in_grads = node.backward(douts)
            _accumulate(node, in_grads, ct, F)
    return grads


def _hooked(tensor, grad):
    """``grad``, the whole gradient of ``tensor``, after its tensor hooks (``register_hook``)."""
    hooks = getattr(tensor, "_hooks", None)
    if not hooks or grad is None:
        return grad
    from graphcell.runtime.hooks import run_tensor_hooks
    return run_tensor_hooks(tuple(hooks.values()), grad)


def _accumulate(node: Node, in_grads, ct: dict, F) -> None:
    if len(in_grads) != len(node.inputs):
        raise RuntimeError(f"the backward of {node.name} returned {len(in_grads)} gradient(s) for "
                           f"{len(node.inputs)} input(s)")
    for src, g in zip(node.sources, in_grads):
        if g is None or src is None:
            continue
        key = (id(src[0]), src[1])
        prev = ct.get(key)
        ct[key] = g if prev is None else F.add(prev, g)


def release(outputs: tuple) -> None:
    """Drop the tape reachable from ``outputs`` (breaks the tensor <-> node cycles)."""
    roots = [o._node for o in outputs if getattr(o, "_node", None) is not None]
    for node in _toposort(roots):
        for o in node.outputs:
            o._node = None
        node.inputs = ()
        node.sources = ()
        node.outputs = ()
        node.backward = None

"""Functional loops: MindSpore 2.10's ``ops.WhileLoop``, ``ops.ForiLoop`` and ``ops.Scan``, and
:func:`scan`, the stacked form graphcell's recurrent layers use.

In PyNative they are Python loops (as in MindSpore). In graph mode a Python ``for`` over
``range`` is unrolled; these are the loops that stay loops: the frontend compiles each into one
IR ``while`` (``graphcell_ir/frontend/loops.py``), so compile time does not grow with the number
of steps — ``WhileLoop`` always, ``ForiLoop`` and ``Scan`` with ``unroll=False`` (with
``unroll=True``, their default, graph mode unrolls them when the bounds are known).

Where graph mode differs from PyNative (documented in ``docs/decisions.md``): numbers in the
carry, and ``ForiLoop``'s index, are 0-d tensors inside the compiled loop; ``Scan``'s outputs
are the rows of one stacked tensor per output (the same values). graphcell accepts a tensor as
``Scan``'s ``xs`` (its rows are the steps), and any callable as a loop function.

Example::

    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> ops.ForiLoop()(0, 4, lambda i, total: total + i, 0)
    6
    >>> carry, ys = scan(lambda c, x: (c + x, c * 2), ms.Tensor(0.0), ms.Tensor([1.0, 2.0]))
    >>> float(carry), ys.asnumpy().tolist()
    (3.0, [0.0, 2.0])
"""
from __future__ import annotations

from graphcell.ops.primitive import Primitive
from graphcell.tensor import Tensor
from graphcell_ir.frontend.resolve import LoopKind
from graphcell_ir.ops import functional as F

__all__ = ["WhileLoop", "ForiLoop", "Scan"]


def _check_callable(owner: str, name: str, fn) -> None:
    if not callable(fn):
        raise TypeError(f"{owner}: '{name}' must be a function, got {type(fn).__name__}")


def _check_bool(owner: str, name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: '{name}' must be a bool, got {value!r}")


def _steps(owner: str, xs, length) -> list:
    """The per-step inputs of a scan: the elements of a list/tuple, the rows of a tensor, or
    ``length`` Nones."""
    if xs is None:
        if not isinstance(length, int) or isinstance(length, bool) or length < 0:
            raise TypeError(f"{owner}: with xs None, 'length' must be a non-negative int, got "
                            f"{length!r}")
        return [None] * length
    if isinstance(xs, Tensor):
        if xs.ndim == 0:
            raise TypeError(f"{owner}: 'xs' must be a tensor of at least one dimension")
        steps = [xs[i] for i in range(xs.shape[0])]
    elif isinstance(xs, (list, tuple)):
        steps = list(xs)
    else:
        raise TypeError(f"{owner}: 'xs' must be a list, a tuple, a Tensor or None, got "
                        f"{type(xs).__name__}")
    if length is not None and length != len(steps):
        raise ValueError(f"{owner}: 'length' is {length} but 'xs' has {len(steps)} elements")
    return steps


def _pair(owner: str, out) -> tuple:
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"{owner}: the loop function must return a pair (carry, output), got "
                        f"{type(out).__name__}")
    return out[0], out[1]


class WhileLoop(Primitive):
    """MindSpore's ``ops.WhileLoop()``: ``while cond_func(val): val = loop_func(val)``.

    >>> WhileLoop()(lambda x: x < 100, lambda x: x + 1, 10)
    100
    """

    __graphcell_loop__ = LoopKind.WHILE

    def __call__(self, cond_func, loop_func, init_val):
        _check_callable("WhileLoop", "cond_func", cond_func)
        _check_callable("WhileLoop", "loop_func", loop_func)
        val = init_val
        while cond_func(val):
            val = loop_func(val)
        return val


class ForiLoop(Primitive):
    """MindSpore's ``ops.ForiLoop()``: ``for i in range(lower, upper): val = loop_func(i, val)``.

    >>> ForiLoop()(0, 4, lambda i, total: total + i, 0)
    6
    """

    __graphcell_loop__ = LoopKind.FORI

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        for name, bound in (("lower", lower), ("upper", upper)):
            if not isinstance(bound, (int, Tensor)) or isinstance(bound, bool):
                raise TypeError(f"ForiLoop: '{name}' must be an int or a Tensor, got "
                                f"{type(bound).__name__}")
        _check_callable("ForiLoop", "loop_func", loop_func)
        _check_bool("ForiLoop", "unroll", unroll)
        val = init_val
        for i in range(int(lower), int(upper)):
            val = loop_func(i, val)
        return val


class Scan(Primitive):
    """MindSpore's ``ops.Scan()``: ``carry, y = loop_func(carry, x)`` for each ``x`` of ``xs``;
    returns the last carry and the list of outputs.

    >>> Scan()(lambda c, x: (c + x, c + x), 0, [1, 2, 3, 4])
    (10, [1, 3, 6, 10])
    """

    __graphcell_loop__ = LoopKind.SCAN

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        _check_callable("Scan", "loop_func", loop_func)
        _check_bool("Scan", "unroll", unroll)
        carry, ys = init, []
        for x in _steps("Scan", xs, length):
            carry, y = _pair("Scan", loop_func(carry, x))
            ys.append(y)
        return carry, ys


def scan(loop_func, init, xs=None, length=None, reverse=False):
    """``ops.Scan`` with each output stacked into one tensor along a new first axis (JAX's
    ``lax.scan``), and always a loop in graph mode: ``carry, y = loop_func(carry, xs[t])`` for
    ``t`` in ``0..n-1`` (``n-1..0`` with ``reverse``; output ``t`` is still row ``t``).
    Returns ``(carry, ys)``, ``ys`` shaped like ``y`` (a tensor, or a tuple of them) with ``n``
    rows. ``xs`` is a tensor (its rows are the steps), a list/tuple of per-step values, or None
    with ``length``; there must be at least one step (the outputs' shapes come from one).

    >>> import graphcell as ms
    >>> carry, ys = scan(lambda c, x: (c + x, c), ms.Tensor(0.0), ms.Tensor([1.0, 2.0, 3.0]),
    ...                  reverse=True)
    >>> float(carry), ys.asnumpy().tolist()
    (6.0, [5.0, 3.0, 0.0])
    """
    owner = "scan"
    _check_callable(owner, "loop_func", loop_func)
    _check_bool(owner, "reverse", reverse)
    steps = _steps(owner, xs, length)
    if not steps:
        raise ValueError(f"{owner}: there must be at least one step: the outputs' shapes come "
                         "from one")
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    carry, ys = init, [None] * len(steps)
    for t in order:
        carry, ys[t] = _pair(owner, loop_func(carry, steps[t]))
    return carry, _stack_outputs(ys)


scan.__graphcell_loop__ = LoopKind.SCAN_STACKED


def _stack_outputs(ys: list):
    """The per-step outputs (one structure each) as one structure of stacked tensors."""
    first = ys[0]
    if isinstance(first, (tuple, list)):
        return type(first)(_stack_outputs([y[i] for y in ys]) for i in range(len(first)))
    return F.concat(*[F.expand_dims(_as_tensor(y), axis=0) for y in ys], axis=0)


def _as_tensor(y):
    return y if isinstance(y, Tensor) else Tensor(y)

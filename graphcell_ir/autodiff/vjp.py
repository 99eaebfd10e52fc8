"""Reverse-mode autodiff on the IR: ``grad_function`` turns a Function into one that also
returns gradients (DESIGN.md §6).

The new Function is added to the same module. It takes the original arguments (plus one
cotangent argument per differentiated output with ``sens="arg"``) and returns::

    (original outputs..., one gradient per ``wrt`` index..., written-back parameters...)

It is built from the registry's bprop rules — the same rules PyNative runs — by copying the
primal ops into the new Function and emitting the backward with a Builder as the functional
API's emitter. The pieces: ``inline.py`` inlines calls (except those with a custom bprop,
``custom.py``), ``analysis.py`` finds the values that depend on ``wrt``, ``replay.py`` copies the
forward and says what is saved for the backward and what is recomputed (with the memory
trade-off of ``if`` and ``while``), ``backward.py`` and ``control.py`` emit the reverse sweep,
``cotangent.py`` keeps absent gradients symbolic until a boundary, and the pipeline's ``dce``
(``passes/dce.py``) drops what the rules computed but nothing uses.

Example: the gradient of ``f(x, y) = sum(tanh(x) * y)``::

    >>> from graphcell_ir.text import parse_module
    >>> from graphcell_ir.backend.interp import interpret
    >>> import numpy as np
    >>> m = parse_module('''func @f(%x: f32[2], %y: f32[2]) -> f32[] {
    ...   %0 = tanh(%x) : f32[2]
    ...   %1 = mul(%0, %y) : f32[2]
    ...   %2 = reduce_sum(%1) {axis=none, keep_dims=false} : f32[]
    ...   return %2
    ... }
    ... ''')
    >>> g = grad_function(m, "f", wrt=[0, 1])
    >>> [str(t) for t in g.result_types]
    ['f32[]', 'f32[2]', 'f32[2]']
    >>> out, dx, dy = interpret(g, np.zeros(2, np.float32), np.ones(2, np.float32))
    >>> dx.tolist(), dy.tolist()
    ([1.0, 1.0], [0.0, 0.0])

Conventions the frontend and the bridge share with the transform:

- **Written-back parameters.** The last ``n_mutated`` results are the new values of Parameters
  the runtime writes back (``CompiledFrontend.mutated``). They pass through undifferentiated and
  stay last; the gradient Function records their number as ``attrs["n_mutated"]``, which is
  also the default of ``n_mutated``, so it can be differentiated again as it is.
- **Custom bprop.** A callee with ``attrs["bprop"] = "<Function name>"`` (``custom.py``).
- The new Function's attributes record what it is: ``grad_of``, ``wrt``, ``sens`` and
  ``diff_outputs`` (the indices of the outputs differentiated), and ``n_mutated``.
"""
from __future__ import annotations

from collections import ChainMap
from typing import Sequence

from graphcell_ir.errors import AutodiffError
from graphcell_ir.ir.builder import Builder
from graphcell_ir.ir.core import Function, Literal, Module
from graphcell_ir.ir.loc import UNKNOWN, Loc
from graphcell_ir.ir.types import TensorType, TupleType, Type
from graphcell_ir.ir.verify import verify
from graphcell_ir.ops import functional as F
from graphcell_ir.passes.dce import dce
from graphcell_ir.autodiff.analysis import active_values
from graphcell_ir.autodiff.backward import Backward
from graphcell_ir.autodiff.cotangent import accumulate, materialize
from graphcell_ir.autodiff.inline import inline_calls
from graphcell_ir.autodiff.replay import Copier, grad_loc

DEFAULT_LOOP_CAPACITY = 128
"""Iterations of a ``while`` whose entry values are stored for the backward (``replay.py``);
later iterations are recomputed. Memory is ``(capacity + 1) x`` the loop's carried values."""

SENS_MODES = ("ones", "arg")


def grad_function(module: Module, fn: str | Function, wrt: Sequence[int], *, sens: str = "ones",
                  has_aux: bool = False, outputs: Sequence[int] | None = None,
                  n_mutated: int | None = None, name: str | None = None,
                  loop_capacity: int = DEFAULT_LOOP_CAPACITY) -> Function:
    """Add to ``module`` the gradient Function of ``fn`` with respect to arguments ``wrt``.

    - ``wrt``: argument indices (inputs or parameters; negative ones count from the end), each a
      numeric tensor. Each gets one gradient result, zeros when the outputs do not depend on it
      (DESIGN.md §10.6); integer arguments get the gradients integer arithmetic gives, as in
      PyNative.
    - ``sens="ones"`` seeds every differentiated output with ones (``GradOperation`` without
      ``sens_param``); ``sens="arg"`` appends one argument per differentiated output, of that
      output's type, holding its cotangent (``sens_param=True``).
    - ``has_aux=True`` differentiates the first output only; the others are returned as they
      are. ``outputs`` names the differentiated outputs explicitly (default: all of them but the
      written-back parameters).
    - ``n_mutated``: how many of the last results are written-back Parameters (default
      ``fn.attrs.get("n_mutated", 0)``).
    - ``name`` of the new Function (default ``<fn>.grad``, made unique).
    - ``loop_capacity``: see :data:`DEFAULT_LOOP_CAPACITY`.

    The result verifies; AutodiffError (or BpropShapeError) says what cannot be differentiated.
    """
    fn = _function(module, fn)
    if sens not in SENS_MODES:
        raise AutodiffError(f"sens must be one of {', '.join(SENS_MODES)}, got {sens!r}")
    if not isinstance(loop_capacity, int) or loop_capacity < 1:
        raise AutodiffError(f"loop_capacity must be a positive int, got {loop_capacity!r}")
    wrt = _check_wrt(fn, wrt)
    n_mutated = _mutated(fn, n_mutated)
    n_primal = len(fn.result_types) - n_mutated
    diff = _diff_outputs(fn, n_primal, outputs, has_aux)
    work = inline_calls(fn, module)
    active = active_values(work, [work.args[i] for i in wrt])
    new = Function(_unique_name(module, name, f"{fn.name}.grad"),
                   attrs=_attrs(fn, wrt, sens, diff, n_mutated))
    for a in work.args:
        new.add_arg(a.type, a.name_hint, param=a.param)
    sens_args = [new.add_arg(fn.result_types[j], "sens") for j in diff] if sens == "arg" else None
    module.add(new)
    try:
        _build(new, work, module, active, wrt, diff, sens_args, n_primal, loop_capacity)
        dce(new)   # the rules' gradients of inactive operands, replays the backward did not use
        verify(new)
    except BaseException:
        module.remove(new.name)
        raise
    return new


def _build(new: Function, work: Function, module: Module, active: set, wrt, diff, sens_args,
           n_primal: int, capacity: int) -> None:
    b = Builder.at_end(new.body)
    ret = work.return_op
    end = grad_loc(_end_loc(work))
    with F.using_emitter(b):
        vmap = ChainMap(dict(zip(work.args, new.args)))
        tape = Copier(b, active, capacity, mark=False).block(work.body, vmap, {}, tape=True,
                                                            replayed=False)
        ct: dict = {}
        with b.at_loc(end):
            for pos, j in enumerate(diff):
                v = ret.operands[j]
                if not isinstance(v, Literal) and v in active:
                    accumulate(b, ct, v, _ones(v.type) if sens_args is None else sens_args[pos])
        Backward(b, module, active, capacity).block(tape, ct)
        with b.at_loc(end):
            grads = [materialize(b, ct.get(work.args[i]), work.args[i].type) for i in wrt]
        for i, g in zip(wrt, grads):
            if g.name_hint is None and work.args[i].name_hint:
                g.name_hint = "d" + work.args[i].name_hint
        b.loc = ret.loc
        b.return_(*tape.yields[:n_primal], *grads, *tape.yields[n_primal:])


def _ones(t: Type):
    """A cotangent of ones for a value of type ``t`` (None for what has no gradient)."""
    if isinstance(t, TensorType):
        return F.ones_like(t)
    if isinstance(t, TupleType):
        return tuple(_ones(e) for e in t.elements)
    return None


def _end_loc(fn: Function) -> Loc:
    """Where boundary ops (sens, zero gradients) point: the return, else the last located op."""
    for op in reversed(fn.body):
        if op.loc.known:
            return op.loc
    return UNKNOWN


# --- checking the request ----------------------------------------------------------------------

def _function(module: Module, fn) -> Function:
    if isinstance(fn, Function):
        if fn.module is not module:
            raise AutodiffError(f"@{fn.name} is not a function of the given module")
        return fn
    f = module.get(fn)
    if f is None:
        have = ", ".join("@" + n for n in module.functions) or "none"
        raise AutodiffError(f"no function @{fn} in the module (it has {have})")
    return f


def _check_wrt(fn: Function, wrt) -> list[int]:
    if isinstance(wrt, int) or not all(isinstance(i, int) and not isinstance(i, bool) for i in wrt):
        raise AutodiffError(f"wrt must be a sequence of argument indices, got {wrt!r}")
    n = len(fn.args)
    out = []
    for i in wrt:
        if not -n <= i < n:
            raise AutodiffError(f"wrt index {i} is out of range: @{fn.name} has {n} argument(s)")
        a = fn.args[i % n]
        if not isinstance(a.type, TensorType) or a.type.dtype.is_bool:
            raise AutodiffError(f"argument {i % n} (%{a.name_hint or i % n}: {a.type}) of "
                                f"@{fn.name} is not a numeric tensor and has no gradient")
        out.append(i % n)
    return out


def _mutated(fn: Function, n_mutated) -> int:
    n = fn.attrs.get("n_mutated", 0) if n_mutated is None else n_mutated
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= len(fn.result_types or ()):
        raise AutodiffError(f"n_mutated must count some of @{fn.name}'s "
                            f"{len(fn.result_types or ())} results, got {n!r}")
    return n


def _diff_outputs(fn: Function, n_primal: int, outputs, has_aux: bool) -> tuple[int, ...]:
    if outputs is not None and has_aux:
        raise AutodiffError("give has_aux or outputs, not both")
    if has_aux:
        if n_primal < 1:
            raise AutodiffError(f"has_aux: @{fn.name} returns no output to differentiate")
        return (0,)
    if outputs is None:
        return tuple(range(n_primal))
    out = tuple(outputs)
    bad = [j for j in out if not (isinstance(j, int) and 0 <= j < n_primal)]
    if bad or len(set(out)) != len(out):
        raise AutodiffError(f"outputs must be distinct indices of @{fn.name}'s {n_primal} "
                            f"output(s), got {list(out)}")
    return out


def _unique_name(module: Module, name: str | None, default: str) -> str:
    if name is not None:
        if name in module:
            raise AutodiffError(f"the module already has a function @{name}")
        return name
    out, k = default, 0
    while out in module:
        k += 1
        out = f"{default}_{k}"
    return out


def _attrs(fn: Function, wrt, sens: str, diff, n_mutated: int) -> dict:
    attrs = {"grad_of": fn.name, "wrt": tuple(wrt), "sens": sens, "diff_outputs": tuple(diff)}
    if n_mutated:
        attrs["n_mutated"] = n_mutated
    return attrs

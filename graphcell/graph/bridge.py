"""Graph mode's side of ``Cell.__call__`` and ``Cell.compile`` (the seam in ``nn/cell.py``).

In ``GRAPH_MODE`` a cell call compiles the call — forward-pre hooks, ``construct``, forward
hooks, as MindSpore 2.x does — once per input signature, and runs the compiled function with the
cell's current Parameter values (``cache.py`` says when it recompiles). ``Cell.compile(*inputs)``
compiles ahead of time and returns the :class:`Lowered` IR.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn, ops
    >>> class Threshold(nn.Cell):
    ...     def __init__(self, threshold, value):
    ...         super().__init__()
    ...         self.threshold, self.value = threshold, value
    ...     def construct(self, inputs):
    ...         cond = ops.gt(inputs, self.threshold)
    ...         value = ops.fill(inputs.dtype, inputs.shape, self.value)
    ...         return ops.select(cond, inputs, value)
    >>> ms.set_context(mode=ms.GRAPH_MODE)
    >>> m = Threshold(0.1, 20)
    >>> m(ms.Tensor([0.1, 0.2, 0.3], ms.float32)).asnumpy()
    array([20. ,  0.2,  0.3], dtype=float32)
    >>> ms.set_context(mode=ms.PYNATIVE_MODE)
"""
from __future__ import annotations

from graphcell.graph.cache import Staged
from graphcell.graph.errors import without_frames
from graphcell.graph.jit import staged_for
from graphcell.graph.lowered import Lowered
from graphcell.graph.resolver import construct_of
from graphcell.tensor import DynamicShape, Tensor
from graphcell_ir.errors import GraphcellError

__all__ = ["call_cell", "compile_cell", "cell_staged"]

_CALL = "call"   # the key of a cell's graph-mode call in its _graph_cache
_MAX_FITS = 256   # argument signatures remembered per set_inputs declaration (dynamic shapes)


def cell_staged(cell) -> Staged:
    """The :class:`Staged` of ``cell``'s graph-mode call (made on first use)."""
    cache = cell.__dict__.get("_graph_cache")
    staged = cache.get(_CALL) if cache is not None else None
    if staged is None:
        # a jit_level given by Cell.set_jit_config overrides the context's for this cell
        staged = staged_for(cell, construct_of(cell), call_cell=True,
                            jit_level=cell.jit_config_dict.get("jit_level"))
        cell.__dict__["_graph_cache"][_CALL] = staged
    return staged


def call_cell(cell, args: tuple, kwargs: dict):
    """``cell(*args, **kwargs)`` in graph mode (a graphcell error leaves it without the
    compiler's frames, as ``errors.user_facing`` does: written out, one frame less per call)."""
    try:
        d = cell.__dict__
        cache = d.get("_graph_cache")
        staged = cache.get(_CALL) if cache is not None else None
        if staged is None:
            staged = cell_staged(cell)
        declared = d.get("_declared_inputs")
        if isinstance(declared, tuple):  # inputs declared by name are recorded, not checked
            fitting_declared_inputs(staged, cell, declared, args)
        return staged(args, kwargs)
    except GraphcellError as e:
        raise without_frames(e) from e.__cause__


def fitting_declared_inputs(staged: Staged, cell, declared: tuple, args: tuple) -> None:
    """:func:`check_declared_inputs`, once per declaration and signature of the arguments (the
    check depends on nothing else), remembered in ``staged.declared_fits``; only fits are
    remembered, so a misfit raises every time. A declaration by a Tensor with data is checked
    on every call (its shape is its data's)."""
    try:
        key = tuple([(a._data.dtype, a._data.shape) if isinstance(a, Tensor) else type(a)
                     for a in args])
    except AttributeError:   # a Tensor without data (a declaration) passed as an input
        key = None
    fits = staged.declared_fits
    if fits is None or fits[0] is not declared:   # set_inputs called (again): anew
        fits = staged.declared_fits = (declared, set() if all(
            type(spec) is DynamicShape or not isinstance(spec, Tensor) for spec in declared)
            else None)   # None: declared by a Tensor with data, checked on every call
    known = fits[1]
    if known is None or key is None:
        check_declared_inputs(cell, declared, args)
    elif key not in known:
        check_declared_inputs(cell, declared, args)
        if len(known) >= _MAX_FITS:
            known.clear()
        known.add(key)


def check_declared_inputs(cell, declared: tuple, args: tuple) -> None:
    """A graph-mode call's inputs against ``cell.set_inputs(...)``: as many, and each Tensor of
    the declared dtype, rank and fixed dimensions (MindSpore's checks)."""
    if len(args) != len(declared):
        raise TypeError(f"{type(cell).__name__}: set_inputs declared {len(declared)} input(s), "
                        f"the call gives {len(args)}")
    for i, (spec, x) in enumerate(zip(declared, args)):
        if not isinstance(spec, Tensor):
            continue
        if not isinstance(spec, DynamicShape):   # a Tensor with data declares its full shape
            spec = DynamicShape(dtype=spec.dtype, shape=spec.shape)
        error = spec.mismatch(x)
        if error is not None:
            raise type(error)(f"{type(cell).__name__}: input {i} does not fit set_inputs: "
                              f"{error}")


def compile_cell(cell, args: tuple, kwargs: dict) -> Lowered:
    """``cell.compile(*args)``: compile for these inputs, cache, and return the IR."""
    return cell_staged(cell).compile(args, kwargs).lowered()

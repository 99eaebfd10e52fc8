"""The loops of the layout ops the native step runs itself, as source for graphcell's code
generator (compiled once per source, optimised and vectorised like ``nn_loops``): one source
per permutation, its index expression written out, so the compiler sees plain strided copies;
one per rank for basic indexing (``getitem``, ``setitem``: the view's offset and strides are
arguments).

    >>> print(transpose_source((1, 0, 2)), end="")
    def transpose(x, out):
        for i0 in range(out.shape[0]):
            for i1 in range(out.shape[1]):
                for i2 in range(out.shape[2]):
                    out[i0, i1, i2] = x[i1, i0, i2]
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from graphcell_ir.backend.lower import Unsupported
from graphcell_ir.ir.core import Literal
from graphcell_ir.ir.types import TensorType
from graphcell_ir.ops.layout import getitem, setitem


def transpose_source(perm: tuple[int, ...]) -> str:
    """``transpose(x, out)``: ``out = x.transpose(perm)``, iterating ``out`` in C order (its
    writes contiguous; the reads too along the last axis when ``perm`` keeps it last)."""
    n = len(perm)
    at = [""] * n
    for k, p in enumerate(perm):   # out's axis k is x's axis perm[k]
        at[p] = f"i{k}"
    lines = ["def transpose(x, out):"]
    for k in range(n):
        lines.append("    " * (k + 1) + f"for i{k} in range(out.shape[{k}]):")
    out = ", ".join(f"i{k}" for k in range(n))
    lines.append("    " * (n + 1) + f"out[{out}] = x[{', '.join(at)}]")
    return "\n".join(lines) + "\n"


def basic_view(shape: tuple[int, ...], key: tuple):
    """``(offset, strides, view shape)`` in elements of ``x[key]`` for a C-ordered ``x`` of
    ``shape`` when ``key`` is basic indexing (ints, slices, ``...``, None: a view), else None.
    Computed by numpy on a stand-in array that is never read.

    >>> basic_view((4, 6), (Ellipsis, slice(2, 5)))
    (2, (6, 1), (4, 3))
    """
    if not isinstance(key, tuple):
        key = (key,)
    if not all(e is Ellipsis or e is None or isinstance(e, slice) or
               isinstance(e, (int, np.integer)) and not isinstance(e, (bool, np.bool_))
               for e in key):
        return None
    strides, n = [], 1
    for d in reversed(shape):
        strides.insert(0, n)
        n *= d
    probe = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), shape, strides)
    try:
        view = probe[key]
    except IndexError:
        return None
    if not isinstance(view, np.ndarray):
        return None
    offset = view.__array_interface__["data"][0] - probe.__array_interface__["data"][0]
    return offset, tuple(view.strides), tuple(view.shape)


def strided_source(rank: int, unit_last: bool, write: bool, ascending: bool = False) -> str:
    """``strided(x, out, o, s0, ...)``: a copy between a C-ordered array and a strided view
    (offset ``o``, strides ``s0``... in elements) of a flat one — ``out[i] = x[view i]``
    (a basic ``getitem``), or with ``write`` ``out[view i] = x[i]`` (``setitem``'s value).
    ``unit_last``: the last stride is 1, written so (the inner loop is contiguous).
    ``ascending``: no stride is negative, said with ``max(0, ...)`` so the code generator knows
    the flat index is never negative and emits no wraparound per element (a select that kept
    LLVM from vector loads: the (64, 8, 768) q/k/v slices of attention copied at 2.5x numpy's
    time, at numpy's without it).

    >>> print(strided_source(2, True, False), end="")
    def strided(x, out, o, s0, s1):
        for i0 in range(out.shape[0]):
            for i1 in range(out.shape[1]):
                out[i0, i1] = x[o + i0 * s0 + i1]
    >>> print(strided_source(2, True, False, ascending=True), end="")
    def strided(x, out, o, s0, s1):
        p = max(0, o)
        t0 = max(0, s0)
        for i0 in range(out.shape[0]):
            for i1 in range(out.shape[1]):
                out[i0, i1] = x[p + i0 * t0 + i1]
    """
    o, strides = ("p", [f"t{k}" for k in range(rank)]) if ascending else \
        ("o", [f"s{k}" for k in range(rank)])
    terms = [o] + [f"i{k}" if unit_last and k == rank - 1 else f"i{k} * {strides[k]}"
                   for k in range(rank)]
    flat, dense = " + ".join(terms), ", ".join(f"i{k}" for k in range(rank))
    lines = [f"def strided(x, out, o, {', '.join(f's{k}' for k in range(rank))}):"]
    if ascending:
        lines += ["    p = max(0, o)"] + [f"    t{k} = max(0, s{k})" for k in range(rank)
                                         if not (unit_last and k == rank - 1)]
    for k in range(rank):
        lines.append("    " * (k + 1) + f"for i{k} in range({'x' if write else 'out'}.shape[{k}]):")
    lines.append("    " * (rank + 1) + (f"out[{flat}] = x[{dense}]" if write else
                                          f"out[{dense}] = x[{flat}]"))
    return "\n".join(lines) + "\n"


def _lowered_view(op):
    """:func:`basic_view` of the ``getitem``/``setitem`` ``op`` when :func:`indexing` lowers
    it (the view and the value of one dtype and shape, not empty), else None."""
    x, r = op.operands[0], op.results[0]
    value = op.operands[1] if op.opdef is setitem else r
    view = basic_view(x.type.shape, op.attrs["key"])
    if view is None or isinstance(value, Literal) or not isinstance(value.type, TensorType) or \
            value.type.dtype != x.type.dtype or r.type.dtype != x.type.dtype or \
            x.type.dtype.np_dtype.kind not in "fiub" or view[2] != value.type.shape or \
            not view[2] or 0 in view[2]:
        return None
    return view


def setitem_in_place(op, i: int, views) -> bool:
    """Whether ``setitem`` ``op`` may write its result into operand ``i``'s bytes (the plan's
    ``in_place``: when nothing reads them after ``op``): operand 0, ``x``, when :func:`indexing`
    lowers ``op`` and its value is not a view of ``x``'s buffer (``views(op)``: the operand
    a view op's result is; the copy would read bytes it writes). Then the only copy is the
    value's into the view: no full copy of ``x`` per ``setitem`` (a chain of them into one
    zero fill, the gradient of q, k and v sliced from one projection, writes each slice
    once)."""
    if op.opdef is not setitem or i != 0 or _lowered_view(op) is None:
        return False
    x, v = op.operands
    return _buffer_of(v, views) is not _buffer_of(x, views)


def _buffer_of(v, views):
    """The value whose buffer ``v`` is, following view ops (``views``) to the first non-view."""
    while True:
        producer = getattr(v, "op", None)
        at = views(producer) if producer is not None else None
        if at is None or isinstance(producer.operands[at], Literal):
            return v
        v = producer.operands[at]


def written_over(plan, v) -> bool:
    """Whether every element of ``v`` (a ``fill``'s result) is written by a chain of lowered
    ``setitem``s into its own buffer (``plan.shares``) before anything reads it: nothing then
    needs the fill's values (the q/k/v gradient's chain of :func:`setitem_in_place`, whose
    slices tile the buffer: a 1.5 MB fill saved). Only a value read once at each link counts;
    coverage is marked element by element through each view (up to 2^24 elements)."""
    size = v.type.size
    if not 0 < size <= 1 << 24:
        return False
    seen = np.zeros(size, bool)
    while len(v.uses) == 1:
        (op,) = v.uses
        r = op.results[0]
        if op.opdef is not setitem or op.operands[0] is not v or op.operands[1] is v or \
                not plan.shares(r, v):
            break
        view = _lowered_view(op)
        if view is None:
            break
        offset, strides, shape = view   # the view over the marks, as numpy's over x's bytes
        as_strided(seen[offset:], shape, [k * seen.itemsize for k in strides])[...] = True
        v = r
    return bool(seen.all())


def indexing(e, op) -> None:
    """A basic ``getitem`` (the view copied out) or ``setitem`` (``x`` copied, the value copied
    into the view) in emitter ``e``'s step, by a strided-copy loop (:func:`strided_source`)
    into the step's own buffers: as host ops, numpy's fresh arrays page-faulted on every call.
    One element, a broadcast value, other dtypes: Unsupported (a host op)."""
    x, r = op.operands[0], op.results[0]
    value = op.operands[1] if op.opdef is setitem else r
    view = _lowered_view(op)
    if view is None:
        raise Unsupported(f"{op.opdef.name} {op.attrs['key']} of {x.type}")
    offset, strides, shape = view
    if op.opdef is getitem:
        arrays = [(x, (x.type.size,)), (r, shape)]
    else:
        if not e.plan.shares(r, x):
            e.copy(x, r)
        arrays = [(value, shape), (r, (r.type.size,))]
    e.nn_loop("strided", [*arrays, offset, *strides],
              strided_source(len(shape), strides[-1] == 1, op.opdef is setitem,
                             ascending=min(strides) >= 0))

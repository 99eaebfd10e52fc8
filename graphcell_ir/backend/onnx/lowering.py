"""How each registry primitive becomes ONNX nodes: :data:`LOWERINGS`, one table keyed by ``OpDef``.

A lowering is ``fn(g, op) -> list of ONNX names``, one per result of ``op``; it reads the op's
operands and attributes and appends nodes to ``g`` (``graph.OnnxGraph``). An op that is not in
the table has no ONNX mapping; a lowering that meets an attribute value ONNX cannot say (a
training-mode ``batch_norm``, ``data_format="NHWC"``) raises :class:`NoMapping` with the reason.
The caller (``graphcell_ir.backend.onnx``) turns both into an ``OnnxExportError`` at the op's
source line.

Dtypes: ONNX operators take operands of one type where graphcell promotes (``int32 + 1.5``,
``f32 * 2``), so each lowering asks for its operands in the dtype the op computes in (the
result's for arithmetic, the promoted operands' for comparisons); ``OnnxGraph.operand`` adds the
``Cast`` or writes the literal in that dtype. Shapes are static, so ``reshape``, ``squeeze``,
``expand_dims`` and ``broadcast_to`` write the result shape the IR already knows.

Only mappings with the same results as the registry's references are here (up to rounding):
``floor_div``/``mod`` of integers, ``sign`` (0 for NaN in graphcell), ``one_hot`` (negative
indices) and the special functions are not, and are refused like any op without a mapping.

Example::

    >>> from graphcell_ir.ops import REGISTRY
    >>> REGISTRY["relu"] in LOWERINGS, REGISTRY["dropout"] in LOWERINGS
    (True, False)
"""
from __future__ import annotations

from types import MappingProxyType

import numpy as np

from graphcell_ir.ir.core import Op
from graphcell_ir.ir.types import TensorType, bool_, int64
from graphcell_ir.ops import conv as CV
from graphcell_ir.ops import contraction as C
from graphcell_ir.ops import effects as FX
from graphcell_ir.ops import elementwise as E
from graphcell_ir.ops import layout as L
from graphcell_ir.ops import nn as N
from graphcell_ir.ops import reduction as R
from graphcell_ir.ops import unary_math as U
from graphcell_ir.ops.shape_rules import normalize_axes, result_dtype

__all__ = ["LOWERINGS", "NoMapping"]


class NoMapping(Exception):
    """An op whose attributes (or dtypes) ONNX cannot express; ``args[0]`` says why."""


def _result(op: Op, i: int = 0):
    return op.results[i].type


# --- elementwise -------------------------------------------------------------------------------

def _same(onnx_op: str):
    """Operands in the result's dtype, one ONNX node (arithmetic, unary math)."""
    def lower(g, op):
        d = _result(op).dtype
        return [g.node(onnx_op, [g.operand(v, d) for v in op.operands])]
    return lower


def _compare(onnx_op: str):
    """Operands in their promoted dtype, a bool result."""
    def lower(g, op):
        d = result_dtype(*(v.type for v in op.operands))
        return [g.node(onnx_op, [g.operand(v, d) for v in op.operands])]
    return lower


def _logical(onnx_op: str):
    """Operands as bools (a number is true when it is not zero, as in graphcell)."""
    def lower(g, op):
        return [g.node(onnx_op, [g.operand(v, bool_) for v in op.operands])]
    return lower


def _not(inner):
    def lower(g, op):
        return [g.node("Not", inner(g, op))]
    return lower


def _float_only(lower_fn):
    """Refuse integer results (ONNX's integer division truncates; graphcell's floors)."""
    def lower(g, op):
        if not _result(op).dtype.is_float:
            raise NoMapping(f"on {_result(op).dtype.ms_name} tensors (ONNX rounds integer "
                            "division another way)")
        return lower_fn(g, op)
    return lower


def _floor_div(g, op):
    d = _result(op).dtype
    return [g.node("Floor", [g.node("Div", [g.operand(v, d) for v in op.operands])])]


def _mod(g, op):   # Python's floored modulo: x - floor(x / y) * y
    d = _result(op).dtype
    x, y = (g.operand(v, d) for v in op.operands)
    return [g.node("Sub", [x, g.node("Mul", [g.node("Floor", [g.node("Div", [x, y])]), y])])]


def _rounding(onnx_op: str):
    """Floor, Ceil, Round: integers are their own rounding (ONNX takes floats only)."""
    def lower(g, op):
        x = op.operands[0]
        return [g.node(onnx_op if x.dtype.is_float else "Identity", [g.name_of(x)])]
    return lower


def _square(g, op):
    x = g.operand(op.operands[0], _result(op).dtype)
    return [g.node("Mul", [x, x])]


def _isfinite(g, op):
    x = g.name_of(op.operands[0])
    return [g.node("Not", [g.node("Or", [g.node("IsNaN", [x]), g.node("IsInf", [x])])])]


def _select(g, op):
    d = _result(op).dtype
    cond, x, y = op.operands
    return [g.node("Where", [g.operand(cond, bool_), g.operand(x, d), g.operand(y, d)])]


def _cast(g, op):
    return [g.operand(op.operands[0], op.attrs["dtype"])]


def _fill(g, op):
    t = _result(op)
    return [g.constant(np.full(t.shape, op.attrs["value"], t.dtype.np_dtype))]


def _identity(g, op):
    return [g.node("Identity", [g.name_of(op.operands[0])])]


# --- reductions --------------------------------------------------------------------------------

def _reduce(onnx_op: str, axes_as_input: bool = False):
    """ReduceSum takes its axes as an input from opset 13; the others as an attribute until 18."""
    def lower(g, op):
        x = op.operands[0]
        d = _result(op).dtype
        axes = normalize_axes(op.attrs["axis"], x.ndim)
        keep = int(op.attrs["keep_dims"])
        src = g.operand(x, d)
        if not axes:
            return [g.node("Identity", [src])]
        if axes_as_input:
            return [g.node(onnx_op, [src, g.ints(axes)], keepdims=keep)]
        return [g.node(onnx_op, [src], axes=list(axes), keepdims=keep)]
    return lower


def _arg(onnx_op: str):
    def lower(g, op):
        x = op.operands[0]
        axis = op.attrs["axis"] % max(x.ndim, 1)
        index = g.node(onnx_op, [g.name_of(x)], axis=axis, keepdims=0)   # first of equal ones
        return [g.cast(index, op.attrs["output_type"])]
    return lower


# --- layout ------------------------------------------------------------------------------------

def _to_result_shape(g, op):
    """reshape, squeeze, expand_dims: the static result shape, whatever the attributes said."""
    return [g.node("Reshape", [g.name_of(op.operands[0]), g.ints(_result(op).shape)])]


def _broadcast_to(g, op):
    return [g.node("Expand", [g.name_of(op.operands[0]), g.ints(_result(op).shape)])]


def _transpose(g, op):
    x = op.operands[0]
    if x.ndim < 2:
        return [g.node("Identity", [g.name_of(x)])]
    perm = op.attrs["perm"]
    perm = tuple(reversed(range(x.ndim))) if perm is None else tuple(p % x.ndim for p in perm)
    return [g.node("Transpose", [g.name_of(x)], perm=list(perm))]


def _concat(g, op):
    d = _result(op).dtype
    axis = op.attrs["axis"] % len(_result(op).shape)
    return [g.node("Concat", [g.operand(v, d) for v in op.operands], axis=axis)]


def _take(g, op):
    x, indices = op.operands
    if not indices.dtype.is_int:
        raise NoMapping("with non-integer indices")
    axis = op.attrs["axis"] % x.ndim
    return [g.node("Gather", [g.name_of(x), g.operand(indices, int64)], axis=axis)]


def _getitem(g, op):
    """A static key: one Slice over the sliced and indexed axes, then the result's shape (ints
    drop their axis, ``None`` adds one)."""
    x = op.operands[0]
    key = op.attrs["key"]
    n_axes = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_axes > x.ndim:
        raise NoMapping(f"with {n_axes} indices for a tensor of rank {x.ndim}")
    bounds = []   # (start, end, step, axis) per sliced or indexed axis
    axis = 0
    for k in key:
        if k is Ellipsis:
            axis += x.ndim - n_axes
            continue
        if k is None:
            continue
        size = x.shape[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(size)
            if step < 0 and stop < 0:   # "before index 0": ONNX clamps a very negative end
                stop = -(1 << 62)
        else:
            start = k % size if size else 0
            stop, step = start + 1, 1
        bounds.append((start, stop, step, axis))
        axis += 1
    src = g.name_of(x)
    if bounds:
        starts, ends, steps, axes = zip(*bounds)
        src = g.node("Slice", [src, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps)])
    return [g.node("Reshape", [src, g.ints(_result(op).shape)])]


# --- contraction and nn ------------------------------------------------------------------------

def _swap_last(g, name: str, ndim: int) -> str:
    perm = list(range(ndim))
    perm[-2:] = perm[-1], perm[-2]
    return g.node("Transpose", [name], perm=perm)


def _matmul(g, op):
    d = _result(op).dtype
    (x, y), attrs = op.operands, op.attrs
    a, b = g.operand(x, d), g.operand(y, d)
    if attrs["transpose_a"]:
        a = _swap_last(g, a, x.ndim)
    if attrs["transpose_b"]:
        b = _swap_last(g, b, y.ndim)
    return [g.node("MatMul", [a, b])]


def _nchw(op):
    if op.attrs.get("data_format", "NCHW") != "NCHW":
        raise NoMapping(f"with data_format={op.attrs['data_format']!r} (only NCHW is written)")


def _window_attrs(win):
    return dict(kernel_shape=[win.kh, win.kw], strides=[win.sh, win.sw],
                pads=[win.pt, win.pl, win.pb, win.pr])


def _conv2d(g, op):
    _nchw(op)
    x, w = op.operands
    a = op.attrs
    win = CV.window_geometry(x.shape[2:], w.shape[2:], a["stride"], a["dilation"], a["pad_mode"],
                             a["pad"])
    return [g.node("Conv", [g.name_of(x), g.name_of(w)], group=a["group"],
                   dilations=[win.dh, win.dw], **_window_attrs(win))]


def _pool(onnx_op: str, **extra):
    def lower(g, op):
        _nchw(op)
        x = op.operands[0]
        if not x.dtype.is_float:
            raise NoMapping(f"on {x.dtype.ms_name} tensors (ONNX pools floats)")
        a = op.attrs
        win = CV.window_geometry(x.shape[2:], a["kernel_size"], a["strides"], (1, 1),
                                 a["pad_mode"])
        return [g.node(onnx_op, [g.name_of(x)], **_window_attrs(win), **extra)]
    return lower


def _batch_norm(g, op):
    """Computed in the widest dtype of x and the statistics (float64 statistics of a float32 x
    stay float64, as in the reference), then cast back to x's dtype."""
    _nchw(op)
    if op.attrs["is_training"]:
        raise NoMapping("in training mode (call net.set_train(False) before exporting)")
    x = op.operands[0]
    wide = max((v.dtype for v in op.operands), key=lambda d: d.np_dtype.itemsize)
    y = g.node("BatchNormalization", [g.operand(v, wide) for v in op.operands],
               epsilon=op.attrs["epsilon"])
    if wide is not x.dtype:
        y = g.cast(y, x.dtype)
    mean, var = (g.name_of(v) for v in op.operands[3:])
    return [y, g.node("Identity", [mean]), g.node("Identity", [var])]


def _bias_add(g, op):
    """NCHW: the bias along axis 1; NHWC: along the last axis, as ONNX broadcasts it."""
    x, bias = op.operands
    d = _result(op).dtype
    b = g.operand(bias, d)
    if op.attrs["data_format"] == "NCHW":
        b = g.node("Reshape", [b, g.ints((-1,) + (1,) * (x.ndim - 2))])
    elif op.attrs["data_format"] != "NHWC":
        raise NoMapping(f"with data_format={op.attrs['data_format']!r}")
    return [g.node("Add", [g.operand(x, d), b])]


def _softmax(onnx_op: str):
    def lower(g, op):
        x = op.operands[0]
        axis = op.attrs["axis"]
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        if len(axes) != 1:
            raise NoMapping(f"over several axes {list(axes)} (ONNX takes one)")
        return [g.node(onnx_op, [g.name_of(x)], axis=axes[0] % x.ndim)]
    return lower


LOWERINGS = MappingProxyType({
    # arithmetic
    E.add: _same("Add"), E.sub: _same("Sub"), E.mul: _same("Mul"), E.div: _same("Div"),
    E.floor_div: _float_only(_floor_div), E.mod: _float_only(_mod), E.pow: _same("Pow"),
    E.maximum: _same("Max"), E.minimum: _same("Min"),
    E.neg: _same("Neg"), E.abs: _same("Abs"), E.square: _square, E.relu: _same("Relu"),
    # unary math
    E.exp: _same("Exp"), E.log: _same("Log"), E.sqrt: _same("Sqrt"), E.tanh: _same("Tanh"),
    E.sigmoid: _same("Sigmoid"), E.erf: _same("Erf"), E.sin: _same("Sin"), E.cos: _same("Cos"),
    E.floor: _rounding("Floor"), U.ceil: _rounding("Ceil"), U.rint: _rounding("Round"),
    U.tan: _same("Tan"),
    U.asin: _same("Asin"), U.acos: _same("Acos"), U.atan: _same("Atan"),
    U.sinh: _same("Sinh"), U.cosh: _same("Cosh"), U.asinh: _same("Asinh"),
    U.acosh: _same("Acosh"), U.atanh: _same("Atanh"),
    # predicates and logic
    E.equal: _compare("Equal"), E.not_equal: _not(_compare("Equal")),
    E.less: _compare("Less"), E.less_equal: _compare("LessOrEqual"),
    E.greater: _compare("Greater"), E.greater_equal: _compare("GreaterOrEqual"),
    E.logical_and: _logical("And"), E.logical_or: _logical("Or"),
    E.logical_not: _logical("Not"), E.isnan: _compare("IsNaN"), U.isinf: _compare("IsInf"),
    U.isfinite: _isfinite,
    E.select: _select, E.cast: _cast, E.fill: _fill, FX.depend: _identity,
    # reductions
    R.reduce_sum: _reduce("ReduceSum", axes_as_input=True), R.reduce_mean: _reduce("ReduceMean"),
    R.reduce_max: _reduce("ReduceMax"), R.reduce_min: _reduce("ReduceMin"),
    R.reduce_prod: _reduce("ReduceProd"), N.argmax: _arg("ArgMax"), N.argmin: _arg("ArgMin"),
    # layout
    L.reshape: _to_result_shape, L.squeeze: _to_result_shape, L.expand_dims: _to_result_shape,
    L.broadcast_to: _broadcast_to, L.transpose: _transpose, L.concat: _concat, L.take: _take,
    L.getitem: _getitem,
    # contraction and nn
    C.matmul: _matmul, CV.conv2d: _conv2d, CV.max_pool2d: _pool("MaxPool"),
    CV.avg_pool2d: _pool("AveragePool", count_include_pad=0), N.batch_norm: _batch_norm,
    N.bias_add: _bias_add, N.softmax: _softmax("Softmax"), N.log_softmax: _softmax("LogSoftmax"),
})
"""OpDef -> its lowering (see the module docstring)."""

"""IR -> ONNX: write a compiled inference function as an ONNX model that onnxruntime runs.

:func:`lower_function` walks a function of the optimized IR once, in order: its tensor arguments
become graph inputs, its parameters initializers (with the values given), every registry op goes
through its entry of ``lowering.LOWERINGS``, and the IR's own structure is taken apart here —
``fused`` kernels are lowered op by op from their bodies, ``const`` becomes an initializer,
tuples are followed to their elements, and each returned value becomes an output
``output0``, ``output1``, ... (an ``Identity``, so outputs always have names of their own).
:func:`graph.to_model` then builds the ``onnx`` protobuf; only it needs the ``onnx`` package.

Anything without an ONNX mapping — an op missing from the table, an attribute value a lowering
refuses, ``if``/``while`` (not written yet), a call — raises ``OnnxExportError`` naming the op (by
its MindSpore name) and its location: the user's file, line and source line.

Example::

    >>> from graphcell_ir.text import parse_module
    >>> m = parse_module('''func @f(%x: f32[2], %w: f32[2] param) -> f32[2] {
    ...   %0 = mul(%x, %w) : f32[2]
    ...   %1 = relu(%0) : f32[2]
    ...   return %1
    ... }''')
    >>> import numpy as np
    >>> g = lower_function(m, m.get("f"), 1, {"w": np.ones(2, np.float32)})
    >>> [n.op_type for n in g.nodes], [i[0] for i in g.inputs], [o[0] for o in g.outputs]
    (['Mul', 'Relu', 'Identity'], ['x'], ['output0'])
"""
from __future__ import annotations

import numpy as np

from graphcell_ir.errors import OnnxExportError
from graphcell_ir.ir.core import Function, Module, Op
from graphcell_ir.ir.structural import (CALL, CONST, FUSED, IF, MAKE_TUPLE, RETURN, TUPLE_GET,
                                        WHILE, YIELD)
from graphcell_ir.ir.types import TensorType
from graphcell_ir.backend.onnx.graph import OPSET, Node, OnnxGraph, to_model
from graphcell_ir.backend.onnx.lowering import LOWERINGS, NoMapping

__all__ = ["lower_function", "to_model", "OPSET", "LOWERINGS"]

_NOT_YET = {IF: "a tensor-dependent `if`", WHILE: "a tensor-dependent `while` loop",
            CALL: "a call of another compiled function"}


def lower_function(module: Module, fn: Function, n_inputs: int,
                   weights: dict[str, np.ndarray]) -> OnnxGraph:
    """The ONNX graph of ``fn``: its first ``n_inputs`` arguments are the model's inputs, the
    others parameters whose values ``weights`` holds by name. OnnxExportError when an op has no
    ONNX mapping."""
    g = OnnxGraph(fn.name)
    used: set[str] = set()
    for i, arg in enumerate(fn.args):
        name = _unique(arg.name_hint or f"input{i}", used)
        if i < n_inputs:
            g.add_input(arg, name)
        else:
            g.initializers[name] = np.asarray(weights[arg.name_hint])
            g.bind(arg, name)
    for op in fn.body:
        if op.opdef is RETURN:
            _outputs(g, op)
        else:
            _lower(g, module, op)
    return g


def _unique(name: str, used: set[str]) -> str:
    out, n = name, 1
    while out in used:
        out, n = f"{name}_{n}", n + 1
    used.add(out)
    return out


def _lower(g: OnnxGraph, module: Module, op: Op) -> None:
    if op.opdef is CONST:
        ref = op.attrs.get("ref")
        g.bind(op.results[0], g.constant(module.consts[ref] if ref else op.attrs["value"]))
    elif op.opdef is FUSED:
        _lower_fused(g, module, op)
    elif op.opdef is MAKE_TUPLE:
        g.bind(op.results[0], tuple(g.name_of(v) for v in op.operands))
    elif op.opdef is TUPLE_GET:
        g.bind(op.results[0], g.name_of(op.operands[0])[op.attrs["index"]])
    elif op.opdef in _NOT_YET:
        raise _error(op, f"{_NOT_YET[op.opdef]} has no ONNX mapping in graphcell yet")
    else:
        lowering = LOWERINGS.get(op.opdef)
        if lowering is None:
            raise _error(op, f"{_op_name(op)} has no ONNX mapping")
        try:
            names = lowering(g, op)
        except NoMapping as e:
            raise _error(op, f"{_op_name(op)} cannot be written as ONNX {e.args[0]}") from None
        for value, name in zip(op.results, names):
            g.bind(value, name)


def _lower_fused(g: OnnxGraph, module: Module, op: Op) -> None:
    """A fusion group is its body's ops: bind the body's arguments to the operands' names."""
    body = op.regions[0].block
    for arg, operand in zip(body.args, op.operands):
        g.bind(arg, g.name_of(operand))
    for inner in body:
        if inner.opdef is YIELD:
            for result, value in zip(op.results, inner.operands):
                g.bind(result, g.operand(value))
        else:
            _lower(g, module, inner)


def _outputs(g: OnnxGraph, ret: Op) -> None:
    for i, value in enumerate(ret.operands):
        if not isinstance(value.type, TensorType):
            raise _error(ret, f"result {i} is {value.type}, not a tensor; an ONNX model returns "
                              "tensors only")
        name = f"output{i}"
        g.nodes.append(_identity(g.operand(value), name))
        g.add_output(name, value.type)


def _identity(src: str, dst: str) -> Node:
    return Node("Identity", [src], [dst])


def _op_name(op: Op) -> str:
    d = op.opdef
    return f"{d.ms_name} (IR op {d.name!r})" if d.ms_name and d.ms_name != d.name else f"op {d.name!r}"


def _error(op: Op, message: str) -> OnnxExportError:
    from graphcell_ir.frontend.errors import Diagnostic
    loc = op.loc.user_frame()
    where = Diagnostic(message, loc).format() if loc.known else f"{message} (no source location)"
    return OnnxExportError(f"ONNX export: {where}")

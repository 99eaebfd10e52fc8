"""An ONNX graph under construction, as plain records; ``to_model`` turns it into an ONNX model.

The lowering (``lowering.py``) only appends nodes and constants here, so it runs and is tested
without the ``onnx`` package; ``to_model`` is the one place that imports it.

Names: every IR value gets one ONNX name (``name_of``): graph inputs and parameters keep theirs
(``x``, ``fc1.weight``), the rest are ``%v0``, ``%c0``...; a value the lowering has not named yet is
an error (it would be a dangling edge in the file). Python literals (``0.5:f32``) become scalar
initializers of the dtype the op computes in, and tensors of another dtype get a ``Cast``: ONNX
operators take operands of one type, where graphcell promotes.

Example::

    >>> import numpy as np
    >>> from graphcell_ir.ir.core import Literal
    >>> from graphcell_ir.ir.types import float32
    >>> g = OnnxGraph("f")
    >>> g.node("Neg", [g.operand(Literal(2, None), float32)])
    '%v0'
    >>> [(n.op_type, n.inputs) for n in g.nodes], g.initializers["%c0"]
    ([('Neg', ['%c0'])], array(2., dtype=float32))
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graphcell_ir.ir.core import Literal, Value
from graphcell_ir.ir.types import DType, ScalarType, TensorType

__all__ = ["OnnxGraph", "Node", "to_model", "OPSET"]

OPSET = 17
"""The ONNX opset written (ONNX 1.12, 2022: onnxruntime 1.12 and later run it)."""


@dataclass
class Node:
    """One ONNX node: operator, input and output names, attributes (Python values)."""

    op_type: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict = field(default_factory=dict)


class OnnxGraph:
    """Nodes, initializers (name -> array), graph inputs and outputs of one function."""

    def __init__(self, name: str):
        self.name = name
        self.nodes: list[Node] = []
        self.initializers: dict[str, np.ndarray] = {}
        self.inputs: list[tuple[str, np.dtype, tuple[int, ...]]] = []
        self.outputs: list[tuple[str, np.dtype, tuple[int, ...]]] = []
        self._names: dict[Value, object] = {}   # a name, or a tuple of names for tuple values
        self._counts = {"v": 0, "c": 0}

    # --- names ---------------------------------------------------------------------------------
    def fresh(self, prefix: str = "v") -> str:
        n = self._counts[prefix]
        self._counts[prefix] = n + 1
        return f"%{prefix}{n}"   # '%': no parameter or argument name has it

    def bind(self, value: Value, name) -> None:
        """``value`` is ``name`` from now on (a tuple of names for a tuple value)."""
        self._names[value] = name

    def name_of(self, value: Value):
        try:
            return self._names[value]
        except KeyError:
            raise KeyError(f"no ONNX name for {value!r}: it is used before the op that defines "
                           "it was lowered") from None

    # --- operands ------------------------------------------------------------------------------
    def operand(self, value: Value, dtype: DType | None = None) -> str:
        """The name of ``value`` as a tensor of ``dtype`` (its own when None): literals become
        scalar constants, other dtypes a ``Cast``."""
        if isinstance(value, Literal):
            own = value.type.dtype if isinstance(value.type, ScalarType) else None
            want = dtype or own
            return self.constant(np.asarray(value.value, dtype=want.np_dtype))
        name = self.name_of(value)
        if dtype is None or value.type.dtype is dtype:
            return name
        return self.cast(name, dtype)

    def cast(self, name: str, dtype: DType) -> str:
        return self.node("Cast", [name], to=np.dtype(dtype.np_dtype))

    def constant(self, array) -> str:
        """An initializer holding ``array`` (copied); its name."""
        name = self.fresh("c")
        self.initializers[name] = np.array(array)
        return name

    def ints(self, values) -> str:
        """An int64 1-D constant (shapes, axes, pads, slice bounds)."""
        return self.constant(np.asarray(list(values), dtype=np.int64).reshape(-1))

    # --- nodes ---------------------------------------------------------------------------------
    def node(self, op_type: str, inputs: list[str], n_outputs: int = 1, **attrs):
        """Append a node; its output name (a list of names when ``n_outputs`` > 1)."""
        outs = [self.fresh() for _ in range(n_outputs)]
        self.nodes.append(Node(op_type, list(inputs), outs, attrs))
        return outs[0] if n_outputs == 1 else outs

    def add_input(self, value: Value, name: str) -> None:
        t = value.type
        self.inputs.append((name, np.dtype(t.dtype.np_dtype), tuple(t.shape)))
        self.bind(value, name)

    def add_output(self, name: str, t: TensorType) -> None:
        self.outputs.append((name, np.dtype(t.dtype.np_dtype), tuple(t.shape)))


def to_model(g: OnnxGraph, producer_version: str = ""):
    """The ``onnx.ModelProto`` of ``g`` (imports ``onnx``), checked by ``onnx.checker``."""
    import onnx
    from onnx import helper, numpy_helper

    def attr_value(v):
        if isinstance(v, np.dtype):
            return helper.np_dtype_to_tensor_dtype(v)
        return v

    def info(name, dtype, shape):
        return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(dtype),
                                             list(shape))

    nodes = [helper.make_node(n.op_type, n.inputs, n.outputs,
                              **{k: attr_value(v) for k, v in sorted(n.attrs.items())})
             for n in g.nodes]
    inits = [numpy_helper.from_array(np.array(a, order="C"), name)   # keeps 0-d arrays 0-d
             for name, a in g.initializers.items()]
    graph = helper.make_graph(nodes, g.name, [info(*i) for i in g.inputs],
                              [info(*o) for o in g.outputs], initializer=inits)
    model = helper.make_model(graph, producer_name="graphcell", producer_version=producer_version,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8   # what opset 17 needs; newer IR versions lock out older onnxruntimes
    onnx.checker.check_model(model, full_check=True)
    return model

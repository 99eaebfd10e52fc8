"""``ops.Custom``: MindSpore's user-defined operator, for a Python function (``func_type`` pyfunc).

``Custom(func, out_shape, out_dtype, func_type="pyfunc", bprop=None)`` calls ``func`` on the
inputs as numpy arrays and makes Tensors of what it returns, of the declared dtypes and shapes;
``out_shape``/``out_dtype`` are the shapes/dtypes themselves or functions of the inputs' (as
MindSpore's). ``bprop(*inputs, out, dout)``, written with ops, gives the inputs' gradients. In
graph mode the call runs as Python when the graph runs (a ``py_call`` with the declared types),
and its gradient is ``bprop``'s, run as in PyNative. MindSpore's other ``func_type``\\ s compile
native kernels (AOT, AKG, Ascend C...), which graphcell does not.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> def mul_add(x, y):
    ...     return x * y + 1
    >>> op = Custom(mul_add, out_shape=lambda x, y: x, out_dtype=lambda x, y: x, func_type="pyfunc")
    >>> op(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 2.0])).asnumpy().tolist()
    [2.0, 5.0]
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from graphcell.ops.primitive import PrimitiveWithInfer
from graphcell.runtime import tape
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import to_dtype

__all__ = ["Custom"]


class Custom(PrimitiveWithInfer):
    """MindSpore's ``ops.Custom`` for a Python function (see the module docstring)."""

    def __init__(self, func: Callable, out_shape=None, out_dtype=None, func_type: str = "hybrid",
                 bprop: Callable | None = None, reg_info=None):
        if func_type != "pyfunc":
            raise ValueError(f"Custom: func_type={func_type!r} compiles a native kernel, which "
                             "graphcell does not; use func_type='pyfunc' with a Python function")
        if not callable(func):
            raise TypeError(f"Custom: func must be a Python function, got {type(func).__name__}")
        if bprop is not None and not callable(bprop):
            raise TypeError(f"Custom: bprop must be a function, got {type(bprop).__name__}")
        super().__init__("Custom")
        self.func, self.out_shape, self.out_dtype, self.bprop = func, out_shape, out_dtype, bprop
        self.init_attrs = {"func_name": getattr(func, "__name__", "func"), "func_type": func_type}
        self.add_prim_attr("func_type", func_type)

    def infer_shape(self, *shapes):
        shape = self.out_shape(*shapes) if callable(self.out_shape) else self.out_shape
        if shape is None:
            raise ValueError("Custom: out_shape is needed (the outputs' shapes, or a function of "
                             "the inputs' shapes)")
        return shape

    def infer_dtype(self, *dtypes):
        dtype = self.out_dtype(*dtypes) if callable(self.out_dtype) else self.out_dtype
        if dtype is None:
            raise ValueError("Custom: out_dtype is needed (the outputs' dtypes, or a function of "
                             "the inputs' dtypes)")
        return dtype

    def __call__(self, *inputs):
        shapes = [list(x.shape) if isinstance(x, Tensor) else x for x in inputs]
        dtypes = [x.dtype if isinstance(x, Tensor) else x for x in inputs]
        declared = self.output_types(shapes, dtypes)
        arrays = [x.asnumpy() if isinstance(x, Tensor) else x for x in inputs]
        out = self.func(*arrays)
        values = out if len(declared) > 1 else (out,)
        if not isinstance(values, (tuple, list)) or len(values) != len(declared):
            raise ValueError(f"Custom {self.init_attrs['func_name']}: the function returned "
                             f"{len(values) if isinstance(values, (tuple, list)) else 1} value(s), "
                             f"{len(declared)} declared")
        outputs = tuple(_output(v, shape, dtype, self.init_attrs["func_name"])
                        for v, (shape, dtype) in zip(values, declared))
        if self.bprop is not None:
            self._record_bprop(inputs, outputs)
        return outputs if len(outputs) > 1 else outputs[0]

    def _record_bprop(self, inputs: tuple, outputs: tuple) -> None:
        bprop, single = self.bprop, len(outputs) == 1

        def backward(douts):
            from graphcell_ir.ops import functional as F
            dout = tuple(F.zeros_like(o) if d is None else d for d, o in zip(douts, outputs))
            grads = bprop(*inputs, outputs[0] if single else outputs, dout[0] if single else dout)
            grads = grads if isinstance(grads, tuple) else (grads,)
            if len(grads) != len(inputs):
                raise ValueError(f"Custom bprop {getattr(bprop, '__name__', 'bprop')} returned "
                                 f"{len(grads)} gradient(s) for {len(inputs)} input(s)")
            return grads
        tape.record_custom(inputs, outputs, backward, f"Custom.{self.init_attrs['func_name']}")


def _output(value, shape, dtype, name: str) -> Tensor:
    arr = np.asarray(value._data if isinstance(value, Tensor) else value)
    want = to_dtype(dtype).np_dtype
    if arr.dtype != want:
        arr = arr.astype(want)
    if tuple(arr.shape) != tuple(shape):
        raise ValueError(f"Custom {name}: the function returned shape {list(arr.shape)}, "
                         f"{list(shape)} declared")
    return Tensor._wrap(arr)

"""``PythonResolver``: a resolver for plain Python and numpy programs (no graphcell needed).

graphcell's own resolver knows Cells, Parameters and Primitives; this one knows only what
graphcell_ir itself has, which is enough to compile ordinary functions written against the
functional op API and numpy-style tensor methods — for tests, benchmarks, examples and the
people writing passes who want IR from Python::

    >>> import numpy as np
    >>> from graphcell_ir.frontend import compile_function
    >>> from graphcell_ir.ir import TensorType, float32
    >>> from graphcell_ir.ops import functional as F
    >>> from graphcell_ir.text import print_module
    >>> def f(x):
    ...     return F.relu(x).sum(axis=0) * 2.0
    >>> m = compile_function(f, None, [TensorType(float32, (2, 3))], PythonResolver()).module
    >>> print(print_module(m, locs="none"), end="")
    func @f(%x: f32[2,3]) -> f32[3] {
      %0 = relu(%x) : f32[2,3]
      %1 = reduce_sum(%0) {axis=[0], keep_dims=false} : f32[3]
      %2 = mul(%1, 2.0:f32) : f32[3]
      return %2
    }

What it answers:

- ``graphcell_ir.ops.functional`` functions (``F.relu``): ``PrimitiveCall``;
- functions in ``traced`` (given to the constructor): ``Traced``;
- Python functions and methods with source: ``Inline`` (except those of ``static_modules``,
  numpy's for instance, which run while compiling);
- numpy arrays: ``Constant``;
- classes, builtins, numpy functions and other callables: ``StaticCall``;
- anything else: ``Static``.

Tensor methods (``x.sum()``, ``x.reshape(...)``, ``x.T``...) are numpy's spelling, written
against the functional API; ``isinstance(x, np.ndarray)`` is True for tensor values, so the same
function also runs eagerly on numpy arrays.
"""
from __future__ import annotations

import inspect
import types

import numpy as np

from graphcell_ir.frontend import resolve as R
from graphcell_ir.ops import functional as F


def _axis(axis):
    if axis is None or axis == ():
        return None
    return (int(axis),) if isinstance(axis, (int, np.integer)) else tuple(axis)


def _shape(shape: tuple) -> tuple:
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


def _reduction(name: str):
    def method(x, axis=None, keepdims=False):
        return getattr(F, name)(x, axis=_axis(axis), keep_dims=bool(keepdims))
    method.__name__ = name
    return method


def _unary(name: str):
    def method(x):
        return getattr(F, name)(x)
    method.__name__ = name
    return method


def _reshape(x, *shape):
    return F.reshape(x, shape=_shape(shape))


def _transpose(x, *perm):
    perm = _shape(perm)
    return F.transpose(x, perm=perm or None)


def _astype(x, dtype):
    return F.cast(x, dtype=dtype)


TENSOR_METHODS = {
    "sum": R.Traced(_reduction("reduce_sum")), "mean": R.Traced(_reduction("reduce_mean")),
    "max": R.Traced(_reduction("reduce_max")), "min": R.Traced(_reduction("reduce_min")),
    "prod": R.Traced(_reduction("reduce_prod")), "all": R.Traced(_reduction("reduce_all")),
    "any": R.Traced(_reduction("reduce_any")), "reshape": R.Traced(_reshape),
    "transpose": R.Traced(_transpose), "astype": R.Traced(_astype),
    "T": R.Traced(lambda x: F.transpose(x), is_property=True),
    **{n: R.Traced(_unary(n)) for n in ("exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu",
                                        "neg", "square", "sin", "cos", "floor")},
}


class PythonResolver:
    """Classifies the objects of plain Python/numpy programs (see the module docstring)."""

    static_modules: tuple[str, ...] = ("numpy", "math", "operator", "functools", "itertools")
    """Python functions from these modules run while compiling (StaticCall), never inlined."""

    def __init__(self, traced=(), library_modules: tuple[str, ...] = ()):
        self.traced = {id(f): f for f in traced}
        self.library_modules = tuple(library_modules)

    def classify(self, obj):
        if id(obj) in self.traced:
            return R.Traced(obj)
        opdef = getattr(obj, "opdef", None)
        if opdef is not None and type(obj).__name__ == "_OpFunction":
            return R.PrimitiveCall(opdef)
        if isinstance(obj, np.ndarray):
            return R.Constant(obj)
        if isinstance(obj, (types.FunctionType, types.MethodType)) and \
                not (getattr(obj, "__module__", "") or "").startswith(self.static_modules):
            fn = getattr(obj, "__func__", obj)
            lib = getattr(fn, "__module__", "") or ""
            return R.Inline(obj, library=lib.startswith(self.library_modules)
                            if self.library_modules else False)
        if isinstance(obj, (type, types.BuiltinFunctionType, np.ufunc)) or (
                callable(obj) and not inspect.ismodule(obj)):
            return R.StaticCall(obj)
        return R.Static(obj)

    def tensor_method(self, name: str):
        return TENSOR_METHODS.get(name)

    def is_tensor_class(self, cls) -> bool:
        return cls is np.ndarray

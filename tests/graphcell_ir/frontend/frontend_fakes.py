"""Plain-Python stand-ins for graphcell's Cells, Parameters and Primitives, and their resolver.

graphcell_ir's tests never import graphcell; these classes are just enough to exercise every
record of the Resolver protocol. They also run eagerly on numpy arrays (``run_eager``), so a
compiled program can be compared with the same Python code executed op by op:

- ``Parameter``: an ``np.ndarray`` subclass with a name (the resolver says ``Param``);
- ``Cell``: ``construct`` plus forward-pre/forward hooks; ``CellList``/``SequentialCell``;
- ``Primitive("add")``: one registry op with constructor attributes (``PrimitiveCall``);
- ``ops``: library functions written against ``graphcell_ir.ops.functional`` (``Traced``);
- ``fori_loop``, ``while_loop``, ``scan``, ``scan_stacked``: functional loops (``Loop``).
"""
from __future__ import annotations

import inspect
import types
from contextlib import contextmanager

import numpy as np

from graphcell_ir.frontend import resolve as R
from graphcell_ir.frontend.simple import TENSOR_METHODS, PythonResolver
from graphcell_ir.ir.types import TensorType, dtype_from_numpy, to_dtype
from graphcell_ir.ops import functional as F
from graphcell_ir.ops.functional import split_args
from graphcell_ir.ops.registry import lookup


class Parameter(np.ndarray):
    """A named array; the resolver calls it a Param."""

    def __new__(cls, array, name: str = "", requires_grad: bool = True):
        p = np.array(array).view(cls)
        p.param_name, p.requires_grad = name, requires_grad
        return p

    def __array_finalize__(self, obj):
        self.param_name = getattr(obj, "param_name", "")
        self.requires_grad = getattr(obj, "requires_grad", True)

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        out = np.asarray(arr)  # results of numpy ops are plain arrays, not Parameters
        return out[()] if return_scalar else out


class Cell:
    """construct + hooks, callable eagerly on numpy arrays."""

    def __init__(self):
        self.training = False
        self._pre_hooks, self._hooks = [], []
        self.has_backward_hooks = False

    def register_forward_pre_hook(self, fn):
        self._pre_hooks.append(fn)

    def register_forward_hook(self, fn):
        self._hooks.append(fn)

    def construct(self, *args):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        inputs = args
        for h in self._pre_hooks:
            r = h(self, inputs)
            if r is not None:
                inputs = r if isinstance(r, tuple) else (r,)
        out = self.construct(*inputs, **kwargs)
        for h in self._hooks:
            r = h(self, inputs, out)
            if r is not None:
                out = r
        return out


class CellList(Cell):
    def __init__(self, cells):
        super().__init__()
        self.cells = list(cells)

    def __iter__(self):
        return iter(self.cells)

    def __len__(self):
        return len(self.cells)

    def __getitem__(self, i):
        return self.cells[i]


class SequentialCell(CellList):
    def construct(self, x):
        for cell in self.cells:
            x = cell(x)
        return x


class Primitive:
    """``Primitive("reduce_sum", keep_dims=True)``: an op with constructor attributes."""

    def __init__(self, name: str, **attrs):
        self.opdef = lookup(name)
        self.attrs = attrs

    def __call__(self, *args):
        operands, attrs = split_args(self.opdef, args, {})
        attrs.update(self.attrs)
        return F.bind(self.opdef, *operands, **attrs)


# --- ops written against the functional API (Traced) -------------------------------------

def _relu(x):
    return F.relu(x)


def _matmul(x, y, transpose_b=False):
    return F.matmul(x, y, transpose_b=transpose_b)


def _reshape(x, shape):
    return F.reshape(x, shape=tuple(shape))


def _assign(variable, value):
    return F.assign(variable, value)


def _reduce_sum(x, axis=None, keep_dims=False):
    axis = None if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    return F.reduce_sum(x, axis=axis, keep_dims=keep_dims)


def _cast(x, dtype):
    return F.cast(x, dtype=to_dtype(dtype))


def _depend(value, expr):
    return F.depend(value, expr)


def _max_pool2d(x, kernel_size, stride):
    return F.max_pool2d(x, kernel_size=kernel_size, stride=stride)


def _conv2d(x, w, out_channel, kernel_size):
    return F.conv2d(x, w, out_channel=out_channel, kernel_size=kernel_size, pad_mode="valid")


def _bias_add(x, b):
    return F.bias_add(x, b)


def _flatten(x):
    return F.reshape(x, shape=(x.shape[0], -1))


ops = types.SimpleNamespace(relu=_relu, matmul=_matmul, reshape=_reshape, assign=_assign,
                            reduce_sum=_reduce_sum, cast=_cast, depend=_depend,
                            max_pool2d=_max_pool2d, conv2d=_conv2d, bias_add=_bias_add,
                            flatten=_flatten)


# --- functional loops (Loop records); eagerly, Python loops ----------------------------------

def fori_loop(lower, upper, loop_func, init_val, unroll=True):
    for i in range(lower, upper):
        init_val = loop_func(i, init_val)
    return init_val


def while_loop(cond_func, loop_func, init_val):
    while cond_func(init_val):
        init_val = loop_func(init_val)
    return init_val


def scan(loop_func, init, xs, length=None, unroll=True):
    ys = []
    for x in (xs if xs is not None else [None] * length):
        init, y = loop_func(init, x)
        ys.append(y)
    return init, ys


def scan_stacked(loop_func, init, xs=None, length=None, reverse=False):
    steps = list(xs) if xs is not None else [None] * length
    ys = [None] * len(steps)
    for t in (reversed(range(len(steps))) if reverse else range(len(steps))):
        init, ys[t] = loop_func(init, steps[t])
    return init, np.stack(ys)


LOOPS = {fori_loop: R.LoopKind.FORI, while_loop: R.LoopKind.WHILE, scan: R.LoopKind.SCAN,
         scan_stacked: R.LoopKind.SCAN_STACKED}


# --- the resolver ---------------------------------------------------------------------------------

class FakeResolver(PythonResolver):
    """Classifies the fakes above; names Parameters by their path from ``root`` (``fc.weight``)."""

    def __init__(self, root=None, library=()):
        super().__init__(traced=vars(ops).values())
        self.names = _param_names(root) if root is not None else {}
        self.library = set(library)   # Cell classes whose construct is "framework code"
        self.calls = []               # what was classified, to check laziness

    def classify(self, obj):
        self.calls.append(obj)
        if isinstance(obj, Parameter):
            name = self.names.get(id(obj), obj.param_name or "param")
            return R.Param(obj, TensorType(dtype_from_numpy(obj.dtype), tuple(obj.shape)), name,
                           obj.requires_grad)
        if isinstance(obj, Cell):
            cls = type(obj)
            construct = R.Inline(cls.construct, obj, f"{cls.__name__}.construct",
                                 library=cls in self.library)
            return R.CellCall(obj, construct,
                              tuple(R.Inline(h, scope=h.__name__) for h in obj._pre_hooks),
                              tuple(R.Inline(h, scope=h.__name__) for h in obj._hooks),
                              obj.has_backward_hooks)
        if isinstance(obj, Primitive):
            return R.PrimitiveCall(obj.opdef, dict(obj.attrs))
        if isinstance(obj, types.FunctionType) and obj in LOOPS:
            return R.Loop(LOOPS[obj], inspect.signature(obj), obj.__name__)
        return super().classify(obj)

    def tensor_method(self, name):
        return TENSOR_METHODS.get(name)


def _param_names(root) -> dict:
    names = {}

    def walk(obj, prefix):
        items = enumerate(obj.cells) if isinstance(obj, CellList) else vars(obj).items()
        for k, v in items:
            if isinstance(v, Parameter):
                names.setdefault(id(v), f"{prefix}{k}")
            elif isinstance(v, Cell):
                walk(v, f"{prefix}{k}.")
    walk(root, "")
    return names


# --- eager execution on numpy ------------------------------------------------------------

class RefEmitter:
    """Runs each functional op with its numpy reference; ``assign`` writes its Parameter."""

    def emit(self, op, args, attrs):
        out = op.ref(*args, **attrs)
        for i in op.mutates:
            np.copyto(args[i], out)
        return out


@contextmanager
def eager():
    with F.using_emitter(RefEmitter()):
        yield


def run_eager(fn, *args):
    """``fn(*args)`` as plain Python on numpy arrays, functional ops run by their references."""
    with eager():
        return fn(*args)

"""Benchmark of the graph-mode frontend: compile LeNet5's ``construct`` (parse, inline every layer,
emit typed IR, verify) with a LeNet-like cell structure that does not need graphcell.

Target (issue 5): under 100 ms for frontend + verification. The layers below mirror graphcell's
(``Conv2d``, ``Dense``, ``ReLU``, ``MaxPool2d``, ``Flatten``): each validates its input with
``isinstance`` and a ``raise`` in a branch that is dead while compiling, reads attributes of
``self``, and calls ``ops`` functions written against the functional API. This is a benchmark,
not a test::

    python tools/bench_frontend.py           # 50 compilations
    python tools/bench_frontend.py -n 200 --print
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graphcell_ir.frontend import PythonResolver, compile_function  # noqa: E402
from graphcell_ir.frontend import resolve as R  # noqa: E402
from graphcell_ir.frontend import source  # noqa: E402
from graphcell_ir.ir import TensorType, float32  # noqa: E402
from graphcell_ir.ir.types import dtype_from_numpy  # noqa: E402
from graphcell_ir.ops import functional as F  # noqa: E402
from graphcell_ir.text import print_module  # noqa: E402


# --- a LeNet-like network without graphcell ---------------------------------------------------

class Parameter:
    def __init__(self, shape, name):
        self.data = np.zeros(shape, np.float32)
        self.name = name


class Tensor:
    """Stands for graphcell's Tensor class in isinstance checks."""


class Cell:
    training = False


def _check_input(cell, x, rank):
    if not isinstance(x, Tensor) or x.ndim != rank:
        raise ValueError(f"{type(cell).__name__}: expected a {rank}-D input")


class ops:  # noqa: N801 - stands for graphcell.ops
    @staticmethod
    def conv2d(x, w, out_channel, kernel_size, pad_mode, stride):
        return F.conv2d(x, w, out_channel=out_channel, kernel_size=kernel_size,
                        pad_mode=pad_mode, stride=stride)

    @staticmethod
    def bias_add(x, b):
        return F.bias_add(x, b)

    @staticmethod
    def matmul(x, w, transpose_b=False):
        return F.matmul(x, w, transpose_b=transpose_b)

    @staticmethod
    def reshape(x, shape):
        return F.reshape(x, shape=tuple(shape))

    @staticmethod
    def relu(x):
        return F.relu(x)

    @staticmethod
    def max_pool2d(x, kernel_size, stride):
        return F.max_pool2d(x, kernel_size=kernel_size, strides=stride)


class Conv2d(Cell):
    def __init__(self, cin, cout, k, pad_mode="valid", has_bias=True):
        self.in_channels, self.out_channels = cin, cout
        self.kernel_size, self.stride, self.pad_mode = (k, k), (1, 1), pad_mode
        self.has_bias = has_bias
        self.weight = Parameter((cout, cin, k, k), "weight")
        self.bias = Parameter((cout,), "bias")

    def construct(self, x):
        _check_input(self, x, 4)
        out = ops.conv2d(x, self.weight, out_channel=self.out_channels,
                         kernel_size=self.kernel_size, pad_mode=self.pad_mode, stride=self.stride)
        if self.has_bias:
            out = ops.bias_add(out, self.bias)
        return out


class Dense(Cell):
    def __init__(self, cin, cout):
        self.in_channels, self.out_channels = cin, cout
        self.weight = Parameter((cout, cin), "weight")
        self.bias = Parameter((cout,), "bias")
        self.has_bias, self.activation_flag = True, False

    def construct(self, x):
        _check_input(self, x, 2)
        x_shape = x.shape
        if len(x_shape) != 2:
            x = ops.reshape(x, (-1, x_shape[-1]))
        x = ops.matmul(x, self.weight, transpose_b=True)
        if self.has_bias:
            x = ops.bias_add(x, self.bias)
        if len(x_shape) != 2:
            x = ops.reshape(x, x_shape[:-1] + (self.out_channels,))
        return x


class ReLU(Cell):
    def construct(self, x):
        return ops.relu(x)


class MaxPool2d(Cell):
    def __init__(self, kernel_size, stride):
        self.kernel_size, self.stride = (kernel_size, kernel_size), (stride, stride)

    def construct(self, x):
        return ops.max_pool2d(x, self.kernel_size, self.stride)


class Flatten(Cell):
    def construct(self, x):
        return ops.reshape(x, (x.shape[0], -1))


class LeNet5(Cell):
    def __init__(self, num_class=10, num_channel=1):
        self.conv1 = Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = Dense(16 * 5 * 5, 120)
        self.fc2 = Dense(120, 84)
        self.fc3 = Dense(84, num_class)
        self.relu = ReLU()
        self.max_pool2d = MaxPool2d(kernel_size=2, stride=2)
        self.flatten = Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        x = self.fc3(x)
        return x


class Resolver(PythonResolver):
    """Cells, Parameters and the ``ops`` functions of this file, as graphcell's bridge would."""

    def __init__(self, root):
        super().__init__(traced=[getattr(ops, n) for n in vars(ops) if not n.startswith("_")])
        self.names = {}
        for name, cell in vars(root).items():
            for pname, p in vars(cell).items():
                if isinstance(p, Parameter):
                    self.names[id(p)] = f"{name}.{pname}"

    def classify(self, obj):
        if isinstance(obj, Parameter):
            return R.Param(obj, TensorType(dtype_from_numpy(obj.data.dtype), obj.data.shape),
                           self.names.get(id(obj), obj.name))
        if isinstance(obj, Cell):
            cls = type(obj)
            return R.CellCall(obj, R.Inline(cls.construct, obj, f"{cls.__name__}.construct",
                                            library=cls is not LeNet5))
        return super().classify(obj)

    def is_tensor_class(self, cls) -> bool:
        return cls is Tensor


def compile_lenet(net: LeNet5, batch: int = 32):
    return compile_function(LeNet5.construct, net, [TensorType(float32, (batch, 1, 32, 32))],
                            Resolver(net))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=50, help="compilations to time (default 50)")
    ap.add_argument("--print", action="store_true", help="print the IR once")
    args = ap.parse_args(argv)
    net = LeNet5()
    source._cache.clear()
    t0 = time.perf_counter()
    out = compile_lenet(net)
    cold = time.perf_counter() - t0
    times = []
    for _ in range(args.n):
        t0 = time.perf_counter()
        compile_lenet(net)
        times.append(time.perf_counter() - t0)
    n_ops = sum(1 for _ in out.function.body)
    print(f"LeNet5.construct: {n_ops} ops, {len(out.params)} parameters")
    print(f"  first compile (parses every construct): {cold * 1e3:7.2f} ms")
    print(f"  later compiles, median of {args.n}:        {statistics.median(times) * 1e3:7.2f} ms"
          f"   (target < 100 ms)")
    if args.print:
        print(print_module(out.module))


if __name__ == "__main__":
    main()

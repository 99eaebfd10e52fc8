"""The PyNative sections of debugging_in_pynative_mode.md, renamed to graphcell.

Samples whose values come from random initialisation are checked for shape, dtype and the
structure the page shows. The LeNet training sample lives in tests/graphcell/nn/test_nn_samples.py;
the hook samples (newer API) in test_seed_hooks.py. The ms_function (staging) samples need graph
mode and belong to the graph-mode issue.
"""
import numpy as np
import pytest

import graphcell
import graphcell.nn as nn
import graphcell.ops as ops
from graphcell import Tensor, context
from graphcell import dtype as mstype
from graphcell.ops import GradOperation
from graph_nets import CustomBpropNet


def test_executing_a_single_operator():
    context.set_context(mode=context.PYNATIVE_MODE)
    conv = nn.Conv2d(3, 4, 3, bias_init='zeros')
    input_data = Tensor(np.ones([1, 3, 5, 5]).astype(np.float32))
    output = conv(input_data).asnumpy()
    assert output.shape == (1, 4, 5, 5) and output.dtype == np.float32
    # pad_mode 'same' on an all-ones input: the 3x3 interior positions see the full kernel, so
    # every channel's interior is constant, as the page's printed values are.
    interior = output[0, :, 1:4, 1:4]
    np.testing.assert_allclose(interior, interior[:, :1, :1] * np.ones_like(interior), rtol=1e-5)


def test_executing_a_common_function(capsys):
    def add_func(x, y):
        z = ops.add(x, y)
        z = ops.add(z, x)
        return z

    x = Tensor(np.ones([3, 3], dtype=np.float32))
    y = Tensor(np.ones([3, 3], dtype=np.float32))
    output = add_func(x, y)
    print(output.asnumpy())
    assert capsys.readouterr().out == "[[3. 3. 3.]\n [3. 3. 3.]\n [3. 3. 3.]]\n"


def test_grad_operation_get_all_on_int32(capsys):
    def mul(x, y):
        return x * y

    def mainf(x, y):
        return ops.GradOperation(get_all=True)(mul)(x, y)

    print(mainf(Tensor(1, mstype.int32), Tensor(2, mstype.int32)))
    # the page's older printer wrote "value=2"; MindSpore 2.x writes "value= 2"
    assert capsys.readouterr().out == ("(Tensor(shape=[], dtype=Int32, value= 2), "
                                       "Tensor(shape=[], dtype=Int32, value= 1))\n")


@pytest.mark.both_modes
def test_hook_backward_with_grad_operation(capsys):
    def hook_fn(grad_out):
        print(grad_out)

    grad_all = GradOperation(get_all=True)
    hook = ops.HookBackward(hook_fn)

    def hook_test(x, y):
        z = x * y
        z = hook(z)
        z = z * y
        return z

    def net(x, y):
        return grad_all(hook_test)(x, y)

    output = net(Tensor(1, graphcell.float32), Tensor(2, graphcell.float32))
    print(output)
    assert capsys.readouterr().out == (
        "(Tensor(shape=[], dtype=Float32, value= 2),)\n"
        "(Tensor(shape=[], dtype=Float32, value= 4), Tensor(shape=[], dtype=Float32, value= 4))\n")


@pytest.mark.both_modes
def test_custom_bprop(capsys):
    grad_all = GradOperation(get_all=True)
    output = grad_all(CustomBpropNet())(Tensor(1, graphcell.float32), Tensor(2, graphcell.float32))
    print(output)
    assert capsys.readouterr().out == (
        "(Tensor(shape=[], dtype=Float32, value= 3), Tensor(shape=[], dtype=Float32, value= 2))\n")


def test_pynative_synchronize_is_accepted():
    context.set_context(pynative_synchronize=True)
    try:
        assert context.get_context("pynative_synchronize") is True
    finally:
        context.set_context(pynative_synchronize=False)

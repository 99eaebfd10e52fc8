"""Issue 10: ``print`` inside construct prints the run-time values in GRAPH_MODE, in order, as
PyNative prints them (a ``host_callback`` op); networks without print compile as before."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops


class Printing(nn.Cell):
    def construct(self, x):
        y = x * 2.0
        print("y is", y, "and x", x, sep=" | ")
        z = ops.exp(y).sum()
        print(z)
        return z + 1.0


class PrintInIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            print("positive", x)
        else:
            print("not positive", -x)
        return x * 3.0


class PrintInWhile(nn.Cell):
    def construct(self, x):
        i = 0
        while x.sum() < 10.0:
            x = x * 2.0
            print("step", i, x)
            i += 1
        return x


def _both(capsys, make, *inputs):
    out = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = make()
        capsys.readouterr()
        res = net(*inputs)
        out[mode] = (capsys.readouterr().out, res.asnumpy())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    (text_py, res_py), (text_g, res_g) = out[ms.PYNATIVE_MODE], out[ms.GRAPH_MODE]
    np.testing.assert_allclose(res_g, res_py, rtol=1e-6)
    assert text_g == text_py
    return text_py


def test_print_in_construct_matches_pynative(capsys):
    x = Tensor(np.array([0.5, -1.0, 2.0], np.float32))
    text = _both(capsys, Printing, x)
    assert text.startswith("y is | ") and text.count("\n") == 2


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_print_in_an_if_branch_prints_only_when_taken(capsys, sign):
    x = Tensor(np.array([1.0, 2.0], np.float32) * sign)
    text = _both(capsys, PrintInIf, x)
    assert ("not positive" in text) == (sign < 0)
    assert text.count("positive") == 1


def test_print_in_a_while_loop_prints_each_iteration(capsys):
    x = Tensor(np.array([0.5, 1.0], np.float32))
    text = _both(capsys, PrintInWhile, x)
    assert [line.split()[:2] for line in text.splitlines() if line.startswith("step")] == \
        [["step", str(i)] for i in range(3)]


def test_the_lowered_ir_shows_the_callback(graph_mode):
    x = Tensor(np.ones(3, np.float32))
    text = Printing().compile(x).as_text()
    assert text.count("host_callback(") == 2 and "@print" in text


class LeNetLike(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.fc = nn.Dense(4 * 6 * 6, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        return self.fc(self.flatten(self.pool(self.relu(self.conv(x)))))


def test_a_network_without_print_has_no_callback(graph_mode):
    x = Tensor(np.ones((2, 1, 14, 14), np.float32))
    text = LeNetLike().compile(x).as_text()
    assert "host_callback" not in text and "depend(" not in text


class PrintBeforeLoss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(3, 2)

    def construct(self, x):
        y = self.d(x)
        print("y", y)
        return (y * y).sum()


def test_print_in_a_differentiated_construct_prints_once(capsys):
    x = Tensor(np.ones((1, 3), np.float32))
    out = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = PrintBeforeLoss()
        capsys.readouterr()
        v, g = ms.value_and_grad(net, None, net.trainable_params())(x)
        out[mode] = (capsys.readouterr().out, v.asnumpy(), g[0].asnumpy())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    (t1, v1, g1), (t2, v2, g2) = out[ms.PYNATIVE_MODE], out[ms.GRAPH_MODE]
    assert t2 == t1 and t1.count("\n") == 1
    np.testing.assert_allclose(v2, v1, rtol=1e-6)
    np.testing.assert_allclose(g2, g1, rtol=1e-6)


def test_print_inside_if_and_loop_of_a_differentiated_network(capsys):
    # the callback runs in the forward of the gradient Function too; nothing needs its result
    class Net(ms.nn.Cell):
        def construct(self, x):
            y = x * 2
            if y.sum() > 0:
                print("positive:", y.sum())
            return (y * y).sum()
    x = ms.Tensor([1.0, 2.0])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    value, grad = ms.value_and_grad(Net())(x)
    pynative = capsys.readouterr().out
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        g_value, g_grad = ms.value_and_grad(Net())(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert capsys.readouterr().out == pynative == "positive: 6.0\n"
    assert float(g_value) == float(value) and g_grad.asnumpy().tolist() == grad.asnumpy().tolist()

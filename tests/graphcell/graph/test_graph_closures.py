"""Lambdas and nested functions that capture tensors, in graph mode: free names are read when the
closure is called (Python's late binding), inside IR ``if``/``while`` too, and a closure given to
``ms.grad`` treats what it captures as constants — PyNative's results, values and gradients."""
import numpy as np
from differential import assert_same_in_both_modes
from grad_differential import assert_grads_agree

import graphcell as ms
from graphcell import Tensor, nn


def vec(*v):
    return Tensor(np.array(v, np.float32))


class LateBound(nn.Cell):
    def construct(self, x, y):
        f = lambda t: t * x + y   # noqa: E731
        z = f(y)
        if x.sum() > 0:   # a tensor condition: an IR if whose branch calls the closure
            z = f(z)
        x = x * 3
        return f(z)


class GradOfClosure(nn.Cell):
    def construct(self, x, y):
        def loss(a):
            return (a * x).sum() + (a * a).sum()
        return ms.grad(loss)(y)


class InWhile(nn.Cell):
    def construct(self, x):
        f = lambda t: t * x   # noqa: E731
        while x.sum() < 10:
            x = f(x) + 1
        return x


class CapturesWeight(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(2, 2, weight_init="ones")

    def construct(self, x):
        h = self.dense(x)
        scale = lambda t: t * h   # noqa: E731
        return scale(x).sum()


class LambdasOfAComprehension(nn.Cell):
    """Closures made in comprehensions read the comprehension's variables when called, as
    Python does: each lambda of the list sees the last ``i`` (issue 22, defect 7: "name 'i' is
    not defined" in graph mode)."""

    def construct(self, x):
        fs = [lambda: x * i for i in range(3)]
        gs = [lambda t, k=k: t + k for k in (1.0, 2.0)]        # bound early, by a default
        nested = [[lambda: x * i - j for j in range(2)] for i in range(1, 3)]
        now = [(lambda: x + i)() for i in range(2)]             # called inside: that i
        return (fs[0]() + fs[1]() + fs[2](), gs[0](x) * gs[1](x), nested[0][0]() + nested[1][1](),
                now[0] * now[1])


def test_lambdas_made_in_a_comprehension():
    out = assert_same_in_both_modes(LambdasOfAComprehension(), vec(1, 2))
    np.testing.assert_allclose(out[0].asnumpy(), [6, 12])


def test_a_closure_reads_its_free_tensors_when_called():
    assert_same_in_both_modes(LateBound(), vec(1, 2), vec(3, -1))
    assert_same_in_both_modes(LateBound(), vec(-1, -2), vec(3, -1))


def test_a_closure_in_a_tensor_while():
    assert_same_in_both_modes(InWhile(), vec(1, 2))


def test_grad_of_a_closure_holds_its_captures_constant():
    out = assert_same_in_both_modes(GradOfClosure(), vec(1, 2), vec(3, -1))
    np.testing.assert_allclose(out.asnumpy(), [7, 0])   # x + 2a


def test_gradients_through_a_closure_that_captures_an_activation():
    net = CapturesWeight()
    x = Tensor(np.array([[0.5, -1.0]], np.float32))
    assert_grads_agree(net, x, weights=net.trainable_params())


def test_lambdas_sharing_a_line_each_compile_to_their_own_body():
    # the source of a lambda is its whole line: the compiler must pick the right one of several
    fs = [lambda x: x + 1, lambda x: x * 2, lambda x: x * x * 3]  # noqa: E731
    x = ms.Tensor(np.array([2.0, 3.0], np.float32))
    for f in fs:
        np.testing.assert_array_equal(ms.jit(f)(x).asnumpy(), f(x).asnumpy())
    nested = lambda x: x + (lambda y: y * 10)(x)  # noqa: E731
    np.testing.assert_array_equal(ms.jit(nested)(x).asnumpy(), [22.0, 33.0])

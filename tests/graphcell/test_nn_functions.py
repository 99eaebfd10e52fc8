"""The nn functions' behaviour that golden cases cannot check: gradients where MindSpore 2.10's
own are wrong, random ops (distributions, seeding), and graph-mode refusals of data-dependent
shapes."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.testing import check_grads


def _t(*shape, lo=-2.0, hi=2.0, seed=0, dtype=np.float64):
    return Tensor(np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_selu_gradient_is_the_derivative(mode):
    # MindSpore 2.10's CPU gradient of SeLU for x <= 0 is scale * (1 + y), not scale*alpha*e^x
    fn = ops.selu if mode == "pynative" else ms.jit(lambda x: ops.selu(x))
    assert check_grads(fn, (_t(3, 4),)).passed
    x = Tensor(np.array([-1.0, 0.5]))
    g = ms.grad(ops.selu)(x).asnumpy()
    np.testing.assert_allclose(g, [1.0507009873554805 * 1.6732632423543772 * np.exp(-1.0),
                                   1.0507009873554805], rtol=1e-12)

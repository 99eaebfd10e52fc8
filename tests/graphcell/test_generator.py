"""``ms.Generator`` and the default generator's functions: streams of their own, exact state
round trips, and where a generator is honoured (PyNative) or refused (graph mode)."""
from __future__ import annotations

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor


def draws(generator=None, n=4):
    return Tensor(np.zeros(n, np.float32)).uniform_(generator=generator).asnumpy()


def test_a_generator_is_a_stream_of_its_own():
    g1, g2 = ms.Generator().manual_seed(3), ms.Generator().manual_seed(3)
    a = draws(g1)
    ms.ops.rand(10)  # the default stream moves; g2 does not
    np.testing.assert_array_equal(draws(g2), a)
    assert not np.array_equal(draws(g1), a)  # g1 moved on
    assert ms.Generator().initial_seed() == 0  # MindSpore's Generator() starts from seed 0
    np.testing.assert_array_equal(draws(ms.Generator()), draws(ms.Generator()))


def test_state_round_trips_exactly():
    g = ms.Generator().manual_seed(-7)  # MindSpore takes negative seeds
    draws(g)
    state = g.get_state()
    a = draws(g)
    assert g.set_state(state) is g and g.initial_seed() == -7
    np.testing.assert_array_equal(draws(g), a)
    for method in ("normal_", "random_"):
        s = g.get_state()
        first = getattr(Tensor(np.zeros(3, np.float32)), method)(generator=g).asnumpy()
        g.set_state(s)
        np.testing.assert_array_equal(
            getattr(Tensor(np.zeros(3, np.float32)), method)(generator=g).asnumpy(), first)
    bern = Tensor(np.full(64, 0.5, np.float32))
    s = g.get_state()
    first = bern.bernoulli(generator=g).asnumpy()
    g.set_state(s)
    np.testing.assert_array_equal(bern.bernoulli(generator=g).asnumpy(), first)


def test_the_default_generator_is_the_stream_of_every_random_op():
    ms.manual_seed(11)
    assert ms.initial_seed() == 11 and ms.default_generator.initial_seed() == 11
    state = ms.get_rng_state()
    a, b = ms.ops.rand(3).asnumpy(), draws()
    ms.set_rng_state(state)
    np.testing.assert_array_equal(ms.ops.rand(3).asnumpy(), a)
    np.testing.assert_array_equal(draws(ms.default_generator), b)
    ms.set_seed(5)  # set_seed seeds the same stream
    assert ms.initial_seed() == 5
    fresh = ms.seed()
    assert isinstance(fresh, int) and ms.initial_seed() == fresh


def test_bad_seeds_and_states_are_named():
    g = ms.Generator()
    with pytest.raises(TypeError, match="Seed must be an integer"):
        g.manual_seed(1.5)
    with pytest.raises(TypeError, match="state Tensor from get_state"):
        g.set_state(np.zeros(3, np.uint8))
    with pytest.raises(ValueError, match="not a state from get_state"):
        g.set_state(Tensor(np.frombuffer(b"{}", np.uint8).copy()))
    with pytest.raises(TypeError, match="'generator' must be a mindspore Generator"):
        draws(np.random.default_rng(0))


def test_graph_mode_draws_from_the_default_generator_only():
    g = ms.Generator().manual_seed(1)

    @ms.jit
    def fill(x):
        return x.uniform(generator=g)

    with pytest.raises(TypeError, match="honoured in PyNative mode") as info:
        fill(Tensor(np.zeros(2, np.float32)))
    assert "test_generator.py" in str(info.value)

    @ms.jit
    def fill_default(x):
        return x.uniform()

    ms.manual_seed(2)
    a = fill_default(Tensor(np.zeros(2, np.float32))).asnumpy()
    ms.manual_seed(2)
    np.testing.assert_array_equal(fill_default(Tensor(np.zeros(2, np.float32))).asnumpy(), a)


@pytest.mark.parametrize("dtype, largest", [(np.float32, 2 ** 24), (np.float16, 2 ** 11),
                                            (np.uint8, 255), (np.int32, 2 ** 31 - 2)])
def test_random_without_bounds_draws_integers_the_dtype_holds(dtype, largest):
    x = Tensor(np.zeros(256, dtype)).random_(generator=ms.Generator().manual_seed(0)).asnumpy()
    assert x.dtype == dtype and x.min() >= 0 and x.max() <= largest
    assert np.array_equal(x, np.round(x)) and len(np.unique(x)) > 1

"""The distributions of the random functions (their golden cases compare shapes and dtypes only:
no two generators draw the same values), and seeding with ``ms.set_seed``."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops

N = 20000


def f32(a):
    return Tensor(np.asarray(a, np.float32))


def draws(t) -> np.ndarray:
    return t.asnumpy().astype(np.float64).ravel()


@pytest.fixture(autouse=True)
def _seeded():
    ms.set_seed(1234)


@pytest.mark.parametrize("sample", [
    lambda: ops.randn(N), lambda: ops.standard_normal((N,)), lambda: ops.StandardNormal()((N,)),
    lambda: ops.randn_like(Tensor(np.zeros(N, np.float32))),
])
def test_standard_normal_moments(sample):
    x = draws(sample())
    assert abs(x.mean()) < 0.04 and abs(x.std() - 1) < 0.03


@pytest.mark.parametrize("sample", [
    lambda: ops.rand(N), lambda: ops.UniformReal()((N,)),
    lambda: ops.rand_like(Tensor(np.zeros(N, np.float64))),
])
def test_standard_uniform_bounds_and_moments(sample):
    x = draws(sample())
    assert x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 0.01 and abs(x.var() - 1 / 12) < 0.005


def test_uniform_float_broadcasts_its_bounds():
    lo, hi = f32([0.0, 10.0]), f32([1.0, 20.0])
    x = ops.uniform((N, 2), lo, hi).asnumpy()
    assert (x[:, 0] >= 0).all() and (x[:, 0] < 1).all()
    assert (x[:, 1] >= 10).all() and (x[:, 1] < 20).all()
    assert abs(x[:, 1].mean() - 15) < 0.15


@pytest.mark.parametrize("sample, lo, hi", [
    (lambda: ops.uniform((N,), Tensor(np.int32(-2)), Tensor(np.int32(3)), dtype=ms.int32), -2, 3),
    (lambda: ops.UniformInt()((N,), Tensor(np.int32(1)), Tensor(np.int32(4))), 1, 4),
    (lambda: ops.randint(0, 5, (N,)), 0, 5),
    (lambda: ops.randint_like(Tensor(np.zeros(N, np.int32)), -3, 0), -3, 0),
])
def test_integers_cover_the_half_open_range_evenly(sample, lo, hi):
    x = sample().asnumpy()
    assert sorted(set(x.tolist())) == list(range(lo, hi))
    counts = np.bincount(x - lo) / x.size
    assert np.allclose(counts, 1 / (hi - lo), atol=0.02)


def test_normal_uses_its_mean_and_stddev():
    x = ops.normal((N, 2), f32([0.0, 5.0]), f32([1.0, 0.5])).asnumpy()
    assert np.allclose(x.mean(axis=0), [0.0, 5.0], atol=0.05)
    assert np.allclose(x.std(axis=0), [1.0, 0.5], atol=0.03)


def test_normal_is_differentiable_in_mean_and_stddev():
    gm, gs = ms.grad(lambda m, s: ops.normal((8,), m, s).sum(), grad_position=(0, 1))(
        f32(1.0), f32(2.0))
    assert gm.asnumpy() == 8  # d/dm sum(m + s z) = 8; d/ds = sum(z), random
    assert gs.shape == ()


def test_laplace_moments():
    x = draws(ops.laplace((N,), f32(1.0), f32(2.0)))
    assert abs(x.mean() - 1) < 0.1 and abs(x.var() - 8) < 0.5      # var = 2 b^2
    y = draws(ops.StandardLaplace()((N,)))
    assert abs(y.mean()) < 0.05 and abs(y.var() - 2) < 0.15


def test_gamma_moments():
    x = ops.gamma((N, 2), f32([2.0, 5.0]), f32([1.0, 2.0])).asnumpy()
    assert np.allclose(x.mean(axis=0), [2.0, 2.5], rtol=0.05)      # alpha / beta
    assert np.allclose(x.var(axis=0), [2.0, 1.25], rtol=0.1)       # alpha / beta^2
    y = ops.random_gamma((N,), f32([3.0])).asnumpy()
    assert y.shape == (N, 1) and abs(y.mean() - 3) < 0.1


def test_poisson_counts():
    x = ops.random_poisson((N,), f32([0.5, 4.0]), dtype=ms.int32).asnumpy()
    assert x.dtype == np.int32 and (x >= 0).all()
    assert np.allclose(x.mean(axis=0), [0.5, 4.0], rtol=0.05)


def test_multinomial_frequencies_follow_the_weights():
    w = f32([[1.0, 2.0, 7.0], [5.0, 5.0, 0.0]])
    x = ops.multinomial(w, 4000).asnumpy()
    assert np.allclose(np.bincount(x[0], minlength=3) / 4000, [0.1, 0.2, 0.7], atol=0.03)
    assert np.allclose(np.bincount(x[1], minlength=3) / 4000, [0.5, 0.5, 0.0], atol=0.03)


def test_multinomial_without_replacement_never_repeats():
    x = ops.multinomial(f32([[1.0, 1.0, 1.0, 1.0]] * 50), 4, replacement=False).asnumpy()
    assert all(sorted(row) == [0, 1, 2, 3] for row in x.tolist())


def test_random_categorical_follows_the_softmax():
    logits = f32([[0.0, np.log(3.0)]])
    x = ops.random_categorical(logits, 8000).asnumpy()
    assert abs(x.mean() - 0.75) < 0.02


def test_bernoulli_frequencies():
    x = draws(ops.bernoulli(Tensor(np.zeros(N, np.float32)), 0.3))
    assert set(x.tolist()) == {0.0, 1.0} and abs(x.mean() - 0.3) < 0.02
    p = Tensor(np.full(N, 0.8, np.float32))
    assert abs(draws(p.bernoulli()).mean() - 0.8) < 0.02


def test_tensor_uniform_and_cauchy():
    x = draws(Tensor(np.zeros(N, np.float32)).uniform(2.0, 3.0))
    assert x.min() >= 2 and x.max() < 3
    c = draws(Tensor(np.zeros(N, np.float32)).cauchy(1.0, 2.0))
    assert abs(np.median(c) - 1) < 0.1
    assert abs(np.percentile(c, 75) - np.percentile(c, 25) - 4) < 0.3  # IQR = 2 sigma


def test_in_place_fills():
    t = Tensor(np.zeros(N, np.float32))
    t.normal_(3.0, 2.0)
    assert abs(draws(t).mean() - 3) < 0.1 and abs(draws(t).std() - 2) < 0.1
    t.uniform_(-1, 1)
    assert draws(t).min() >= -1 and draws(t).max() < 1
    t.random_(0, 3)
    assert set(draws(t).tolist()) == {0.0, 1.0, 2.0}


def test_permutations():
    p = ops.randperm(10).asnumpy()
    assert sorted(p.tolist()) == list(range(10)) and p.dtype == np.int64
    padded = ops.Randperm(max_length=6, pad=-1)(Tensor(np.array([4], np.int32))).asnumpy()
    assert sorted(padded[:4].tolist()) == [0, 1, 2, 3] and padded[4:].tolist() == [-1, -1]
    x = Tensor(np.arange(12).reshape(6, 2))
    rows = ops.shuffle(x).asnumpy()
    assert sorted(map(tuple, rows.tolist())) == sorted(map(tuple, x.asnumpy().tolist()))


def test_random_choice_with_mask_picks_true_elements():
    x = np.zeros((3, 4), np.bool_)
    x[0, 1] = x[2, 3] = x[1, 0] = True
    index, mask = ops.RandomChoiceWithMask(count=5)(Tensor(x))
    index, mask = index.asnumpy(), mask.asnumpy()
    assert mask.tolist() == [True, True, True, False, False]
    assert sorted(map(tuple, index[:3].tolist())) == [(0, 1), (1, 0), (2, 3)]
    assert (index[3:] == 0).all()


def test_uniform_candidate_sampler_unique_draws_distinct_classes():
    classes = Tensor(np.array([[0], [1]], np.int64))
    sampled, true_count, sampled_count = ops.UniformCandidateSampler(1, 5, True, 5)(classes)
    assert sorted(sampled.asnumpy().tolist()) == [0, 1, 2, 3, 4]
    assert np.allclose(true_count.asnumpy(), 1.0) and np.allclose(sampled_count.asnumpy(), 1.0)


def test_set_seed_repeats_every_sampler():
    def run():
        return [ops.randn(3), ops.rand(3), ops.randint(0, 9, (3,)), ops.multinomial(f32([1, 2]), 3),
                ops.gamma((3,), f32(2.0), f32(1.0)), ops.randperm(5)]
    ms.set_seed(7)
    a = run()
    ms.set_seed(7)
    b = run()
    ms.set_seed(8)
    c = run()
    assert all((x.asnumpy() == y.asnumpy()).all() for x, y in zip(a, b))
    assert not (a[0].asnumpy() == c[0].asnumpy()).all()


def test_graph_mode_draws_from_the_same_seeded_generator():
    @ms.jit
    def sample(m):
        return ops.normal((4,), m, 1.0), ops.randn(4), ops.UniformReal()((2,))

    ms.set_seed(3)
    a = sample(f32(0.0))
    b = sample(f32(0.0))
    ms.set_seed(3)
    c = sample(f32(0.0))
    assert all((x.asnumpy() == y.asnumpy()).all() for x, y in zip(a, c))
    assert not (a[1].asnumpy() == b[1].asnumpy()).all()  # a second call draws new values


def test_truncated_normal_stays_within_two_deviations():
    x = draws(ops.TruncatedNormal()((N,)))
    assert np.abs(x).max() <= 2 and abs(x.mean()) < 0.03 and abs(x.std() - 0.88) < 0.02


def test_log_normal_reverse_and_cauchy_primitive():
    x = draws(ops.LogNormalReverse(mean=1.0, std=0.5)(Tensor(np.zeros(N, np.float32))))
    assert (x > 0).all() and abs(np.log(x).mean() - 1) < 0.02
    c = draws(ops.Cauchy(size=[N], median=2.0)())
    assert abs(np.median(c) - 2) < 0.05


def test_log_uniform_candidate_sampler_prefers_small_classes():
    sampled, true_count, _ = ops.log_uniform_candidate_sampler(
        Tensor(np.array([[0], [9]], np.int64)), 1, 2000, False, 10)
    counts = np.bincount(sampled.asnumpy(), minlength=10) / 2000
    p = np.log((np.arange(10) + 2) / (np.arange(10) + 1)) / np.log(11)
    assert np.allclose(counts, p, atol=0.03)
    assert np.allclose(true_count.asnumpy().ravel(), 2000 * p[[0, 9]])
    unique, _, _ = ops.LogUniformCandidateSampler(1, 5, True, 5)(Tensor(np.array([[0]], np.int64)))
    assert sorted(unique.asnumpy().tolist()) == [0, 1, 2, 3, 4]

"""Seeded weights and inputs that come out the same in graphcell and in MindSpore.

The model tests compare graphcell with goldens recorded by MindSpore on the same weights; rather
than storing the weights, both sides draw them from ``numpy.random.default_rng(seed)`` here and
load them with ``Parameter.set_data``, which both frameworks have::

    net = resnet50(num_classes=10)
    seed_parameters(net, seed=0)
    x = normal_input((2, 3, 64, 64), seed=1)

This module is written against ``import graphcell as ms`` only, so it runs under MindSpore when
``sys.modules["graphcell"]`` is ``mindspore`` (``tools/record_model_goldens.py`` does that).
"""
import numpy as np

import graphcell as ms


def seed_parameters(net, seed):
    """Set every Parameter of ``net`` (in order of name) from ``numpy.random.default_rng(seed)``.

    Weights (two or more axes): normal / sqrt(fan_in), fan_in being the product of all axes but
    the first (a Dense's in_channels, a Conv2d's in_channels * kernel area). Normalisation scales
    (``gamma``): 1 + 0.1 * normal; everything else with one axis (biases, ``beta``): 0.1 * normal.
    Moving statistics are fixed: mean 0, variance 1 (as a fresh BatchNorm has them), and draw
    nothing from the generator.
    """
    rng = np.random.default_rng(seed)
    for name, param in sorted(net.parameters_and_names(), key=lambda item: item[0]):
        shape = tuple(param.shape)
        param.set_data(ms.Tensor(_draw(rng, name, shape)))


def _draw(rng, name, shape):
    leaf = name.rsplit(".", 1)[-1]
    if leaf == "moving_mean":
        return np.zeros(shape, np.float32)
    if leaf == "moving_variance":
        return np.ones(shape, np.float32)
    noise = rng.standard_normal(shape)
    if len(shape) >= 2:
        return (noise / np.sqrt(np.prod(shape[1:]))).astype(np.float32)
    if leaf == "gamma":
        return (1.0 + 0.1 * noise).astype(np.float32)
    return (0.1 * noise).astype(np.float32)


def normal_input(shape, seed):
    """A float32 Tensor of standard normal values drawn from ``default_rng(seed)``."""
    return ms.Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def integer_input(shape, high, seed):
    """An int32 Tensor of integers in ``[0, high)`` (class labels, token ids) from
    ``default_rng(seed)``."""
    return ms.Tensor(np.random.default_rng(seed).integers(0, high, shape).astype(np.int32))

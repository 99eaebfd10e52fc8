"""MindSpore's normalization and dropout functions (``mindspore.ops.function.nn_func``):
``batch_norm``, ``layer_norm``, ``group_norm``, ``rms_norm``, ``lrn``, the dropouts, and their
Primitive classes (``BatchNorm``, ``LayerNorm``, ``RmsNorm``, ``LRN``, ``Dropout3D``; ``Dropout``
and ``Dropout2D`` are the registry's).

The statistics MindSpore's Primitives return or update carry no gradient there, and none here
(``F.stop_gradient``); the dropouts draw from graphcell's generator (``ms.set_seed``).
"""
from __future__ import annotations

import numpy as np

from graphcell.ops.function import _nn_utils as U
from graphcell.ops.primitive import primitive
from graphcell_ir.frontend.errors import FrontendError
from graphcell_ir.ops import functional as F

__all__ = [
    "batch_norm", "layer_norm", "group_norm", "rms_norm", "lrn", "add_rms_norm", "add_layer_norm",
    "BatchNorm", "LayerNorm", "RmsNorm", "LRN",
    "dropout", "dropout1d", "dropout2d", "dropout3d", "Dropout3D",
]


# --- normalization -----------------------------------------------------------------------------

def _write_statistics(stat, new) -> None:
    """MindSpore's BatchNorm writes the updated moving statistics into its ``mean``/``variance``
    operands. PyNative writes any Tensor (as MindSpore does); graph mode can write only a
    Parameter, and leaves other values alone."""
    try:
        F.assign(stat, new)
    except FrontendError:
        pass  # graph mode, and the statistics are not a Parameter: nothing to write back


def _bool_arg(name: str, value, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: '{what}' must be a bool, got {type(value).__name__}")
    return bool(value)


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-05):
    """``ops.batch_norm(input_x, running_mean, running_var, weight, bias, training=False,
    momentum=0.1, eps=1e-05)``: ``(x - mean) / sqrt(var + eps) * weight + bias`` per channel
    (axis 1), with the batch's statistics in training and the running ones otherwise.

    In training the running statistics are updated as
    ``running = (1 - momentum) * running + momentum * batch`` (unbiased batch variance) and written
    into ``running_mean``/``running_var`` (in graph mode when they are Parameters).
    """
    name = "ops.batch_norm"
    U.float_tensor(name, input_x, "input_x")
    for what, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        U.float_tensor(name, t, what)
    training = _bool_arg(name, training, "training")
    U.number(name, momentum, "momentum")
    U.number(name, eps, "eps")
    # MindSpore gives the running statistics no gradient
    y, mean, var = F.batch_norm(input_x, weight, bias, F.stop_gradient(running_mean),
                                F.stop_gradient(running_var), is_training=training, epsilon=float(eps),
                                momentum=float(momentum))
    if training:
        _write_statistics(running_mean, mean)
        _write_statistics(running_var, var)
    return y


def _batch_norm_prim(input_x, scale, bias, mean, variance, is_training=False, epsilon=1e-5,
                     momentum=0.1, data_format="NCHW"):
    """``ops.BatchNorm(is_training, epsilon, momentum, data_format)(x, scale, bias, mean,
    variance)``: five outputs, as MindSpore 2.10's CPU kernel gives them — ``y``, two zero
    vectors (``batch_mean``, ``batch_variance``), and in training the batch mean and (biased)
    variance it normalised with (``reserve_space_1/2``; zeros in inference). In training the
    moving statistics are written into ``mean``/``variance``."""
    name = "BatchNorm"
    U.float_tensor(name, input_x, "input_x")
    # MindSpore gives the moving statistics no gradient
    y, new_mean, new_var = F.batch_norm(input_x, scale, bias, F.stop_gradient(mean), F.stop_gradient(variance),
                                        is_training=_bool_arg(name, is_training, "is_training"),
                                        epsilon=float(epsilon), momentum=float(momentum),
                                        data_format=data_format)
    zeros = F.zeros_like(mean)
    if not is_training:
        return y, zeros, zeros, zeros, zeros
    _write_statistics(mean, new_mean)
    _write_statistics(variance, new_var)
    axes = (0,) + tuple(range(2, input_x.ndim))
    batch_mean = F.reduce_mean(input_x, axis=axes, keep_dims=True)
    centred = F.sub(input_x, batch_mean)
    batch_var = F.reduce_mean(F.mul(centred, centred), axis=axes, keep_dims=False)
    saved = (F.reshape(batch_mean, tuple(mean.shape)), batch_var)
    return (y, zeros, zeros) + tuple(F.stop_gradient(F.cast_like(v, mean)) for v in saved)


def _normalized(x, axes: tuple[int, ...], eps: float):
    """``((x - mean) / sqrt(var + eps), mean, var)`` over ``axes`` (kept as size-1 axes)."""
    mean = F.reduce_mean(x, axis=axes, keep_dims=True)
    centred = F.sub(x, mean)
    var = F.reduce_mean(F.mul(centred, centred), axis=axes, keep_dims=True)
    return F.div(centred, F.sqrt(F.add(var, eps))), mean, var


def _layer_norm_prim(input_x, gamma, beta, begin_norm_axis=1, begin_params_axis=1,
                     epsilon=1e-7):
    """``ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x, gamma, beta)``:
    ``(y, mean, variance)``, the statistics over the axes from ``begin_norm_axis`` on (kept as
    size-1 axes; MindSpore 2.10's CPU kernel returns the variance where its documentation says
    rstd); ``gamma``/``beta`` have the shape of ``x.shape[begin_params_axis:]``."""
    name = "LayerNorm"
    U.float_tensor(name, input_x, "input_x")
    U.float_tensor(name, gamma, "gamma")
    U.float_tensor(name, beta, "beta")
    nd = input_x.ndim
    norm_axis = U.int_arg(name, begin_norm_axis, "begin_norm_axis")
    params_axis = U.int_arg(name, begin_params_axis, "begin_params_axis")
    for what, a in (("begin_norm_axis", norm_axis), ("begin_params_axis", params_axis)):
        if not -1 <= a < max(nd, 1):
            raise ValueError(f"{name}: '{what}' must be in [-1, {nd}), got {a}")
    norm_axis, params_axis = norm_axis % max(nd, 1), params_axis % max(nd, 1)
    want = tuple(input_x.shape[params_axis:])
    for what, t in (("gamma", gamma), ("beta", beta)):
        if tuple(t.shape) != want:
            raise ValueError(f"{name}: '{what}' must have shape {list(want)} (x's shape from "
                             f"begin_params_axis), got {list(t.shape)}")
    normed, mean, var = _normalized(input_x, tuple(range(norm_axis, nd)), float(epsilon))
    # MindSpore's gradient takes no cotangent from the statistics it returns
    return F.add(F.mul(normed, gamma), beta), F.stop_gradient(mean), F.stop_gradient(var)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """``ops.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)``: ``input``
    normalised over its last ``len(normalized_shape)`` axes, then scaled and shifted."""
    name = "ops.layer_norm"
    U.float_tensor(name, input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
    if not isinstance(shape, (tuple, list)) or not all(isinstance(s, int) for s in shape):
        raise TypeError(f"{name}: 'normalized_shape' must be an int or a tuple of ints, got "
                        f"{normalized_shape!r}")
    shape = tuple(shape)
    k = len(shape)
    if k == 0 or k > input.ndim or tuple(input.shape[input.ndim - k:]) != shape:
        raise ValueError(f"{name}: 'normalized_shape' {list(shape)} must be the last axes of "
                         f"'input' (shape {list(input.shape)})")
    U.number(name, eps, "eps")
    y, _, _ = _normalized(input, tuple(range(input.ndim - k, input.ndim)), float(eps))
    if weight is not None:
        y = F.mul(y, weight)
    if bias is not None:
        y = F.add(y, bias)
    return y


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """``ops.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)``: the channels
    (axis 1) of each sample split into ``num_groups`` groups, each normalised over its channels
    and positions, then scaled and shifted per channel."""
    name = "ops.group_norm"
    U.float_tensor(name, input)
    groups = U.int_arg(name, num_groups, "num_groups")
    if input.ndim < 2:
        raise ValueError(f"{name}: 'input' must have rank >= 2 (N, C, ...), got shape "
                         f"{list(input.shape)}")
    n, c = input.shape[:2]
    if groups < 1 or c % groups:
        raise ValueError(f"{name}: 'num_groups' must be positive and divide the {c} channels, "
                         f"got {groups}")
    U.number(name, eps, "eps")
    grouped = F.reshape(input, (n, groups, -1))
    y, _, _ = _normalized(grouped, (2,), float(eps))
    y = F.reshape(y, tuple(input.shape))
    per_channel = U.channel_shape(input.ndim)
    if weight is not None:
        y = F.mul(y, F.reshape(weight, per_channel))
    if bias is not None:
        y = F.add(y, F.reshape(bias, per_channel))
    return y


def rms_norm(x, gamma, epsilon=1e-06):
    """``ops.rms_norm(x, gamma, epsilon=1e-06)``: ``(x * rstd * gamma, rstd)`` with
    ``rstd = 1 / sqrt(mean(x**2) + epsilon)`` over the last ``gamma.ndim`` axes (kept as size-1
    axes). MindSpore 2.10's CPU build has no RmsNorm kernel."""
    name = "ops.rms_norm"
    U.float_tensor(name, x, "x")
    U.float_tensor(name, gamma, "gamma")
    U.number(name, epsilon, "epsilon")
    if not 0 < epsilon <= 1:
        raise ValueError(f"{name}: 'epsilon' must be in (0, 1], got {epsilon}")
    k = gamma.ndim
    if k > x.ndim or tuple(x.shape[x.ndim - k:]) != tuple(gamma.shape):
        raise ValueError(f"{name}: 'gamma' of shape {list(gamma.shape)} must match the last axes "
                         f"of 'x' (shape {list(x.shape)})")
    axes = tuple(range(x.ndim - k, x.ndim))
    rstd = F.div(1, F.sqrt(F.add(F.reduce_mean(F.mul(x, x), axis=axes, keep_dims=True),
                                 float(epsilon))))
    return F.mul(F.mul(x, rstd), gamma), rstd


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """``ops.lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
    norm_region='ACROSS_CHANNELS')``: ``x / (bias + alpha * s)**beta`` where ``s`` sums the
    squares of the channels within ``depth_radius`` of each channel (NCHW)."""
    name = "ops.lrn"
    U.float_tensor(name, x, "x")
    r = U.int_arg(name, depth_radius, "depth_radius")
    for what, v in (("bias", bias), ("alpha", alpha), ("beta", beta)):
        if not isinstance(v, float):
            raise TypeError(f"{name}: '{what}' must be a float, got {type(v).__name__}")
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"{name}: 'norm_region' must be 'ACROSS_CHANNELS', got {norm_region!r}")
    if x.ndim != 4:
        raise ValueError(f"{name}: 'x' must be 4-D (N, C, H, W), got shape {list(x.shape)}")
    if r < 0:
        raise ValueError(f"{name}: 'depth_radius' must be non-negative, got {r}")
    c = x.shape[1]
    sq = F.pad(F.mul(x, x), paddings=(0, 0, r, r, 0, 0, 0, 0), value=0)
    total = None
    for k in range(2 * r + 1):
        part = F.getitem(sq, key=(slice(None), slice(k, k + c)))
        total = part if total is None else F.add(total, part)
    return F.div(x, F.pow(F.add(F.mul(total, alpha), bias), beta))


def add_rms_norm(x1, x2, gamma, epsilon=1e-06):
    """``ops.add_rms_norm(x1, x2, gamma, epsilon=1e-06)``: ``(y, rstd, x)`` where ``x = x1 + x2``
    and ``(y, rstd) = rms_norm(x, gamma, epsilon)``. MindSpore 2.10's CPU build has no AddRmsNorm
    kernel."""
    name = "ops.add_rms_norm"
    U.float_tensor(name, x1, "x1")
    U.float_tensor(name, x2, "x2")
    x = F.add(x1, x2)
    y, rstd = rms_norm(x, gamma, epsilon)
    return y, rstd, x


def add_layer_norm(x1, x2, gamma, beta, epsilon=1e-05, additional_output=False):
    """``ops.add_layer_norm(x1, x2, gamma, beta, epsilon=1e-05, additional_output=False)``:
    ``(y, mean, rstd, x)`` where ``x = x1 + x2`` is normalised over its last ``gamma.ndim`` axes
    (mean and rstd kept as size-1 axes). MindSpore 2.10's CPU build has no kernel for it."""
    name = "ops.add_layer_norm"
    for what, t in (("x1", x1), ("x2", x2), ("gamma", gamma), ("beta", beta)):
        U.float_tensor(name, t, what)
    U.number(name, epsilon, "epsilon")
    x = F.add(x1, x2)
    k = gamma.ndim
    if k > x.ndim or tuple(x.shape[x.ndim - k:]) != tuple(gamma.shape):
        raise ValueError(f"{name}: 'gamma' of shape {list(gamma.shape)} must match the last axes "
                         f"of x1 + x2 (shape {list(x.shape)})")
    normed, mean, var = _normalized(x, tuple(range(x.ndim - k, x.ndim)), float(epsilon))
    rstd = F.div(1, F.sqrt(F.add(var, float(epsilon))))
    return F.add(F.mul(normed, gamma), beta), mean, rstd, x


# --- dropout -------------------------------------------------------------------------------------

def _drop_probability(name: str, p) -> float:
    U.number(name, p, "p")
    if not 0 <= p <= 1:
        raise ValueError(f"{name}: 'p' must be in [0, 1], got {p}")
    return float(p)


def dropout(input, p=0.5, training=True, seed=None):  # noqa: A002
    """``ops.dropout(input, p=0.5, training=True, seed=None)``: each element zeroed with
    probability ``p``, the others scaled by ``1 / (1 - p)``; ``input`` itself when not training.
    Draws from graphcell's generator (``ms.set_seed``); ``seed`` is accepted and not used."""
    name = "ops.dropout"
    U.float_tensor(name, input)
    p = _drop_probability(name, p)
    if not training or p == 0:
        return input
    if p == 1:
        raise ValueError(f"{name}: 'p' must be less than 1 (MindSpore's keep_prob = 1 - p must be "
                         "in (0, 1])")
    return F.dropout(input, keep_prob=1 - p)[0]


def _channel_dropout(name: str, input, p, training, ranks: tuple[int, ...]):  # noqa: A002
    """Dropout of whole channels (axis 1 of a batched input, axis 0 of an unbatched one) through
    ``dropout2d`` on a 4-D view: ``(N, C, positions, 1)``."""
    U.numeric_tensor(name, input)
    p = _drop_probability(name, p)
    if input.ndim not in ranks:
        raise ValueError(f"{name}: 'input' must have rank {' or '.join(map(str, ranks))}, got "
                         f"shape {list(input.shape)}")
    if not training or p == 0:
        return input
    shape = tuple(input.shape)
    batched = shape if input.ndim == ranks[-1] else (1,) + shape
    view = F.reshape(input, batched[:2] + (-1, 1))
    return F.reshape(F.dropout2d(view, keep_prob=1 - p)[0], shape)


def dropout1d(input, p=0.5, training=True):  # noqa: A002
    """``ops.dropout1d(input, p=0.5, training=True)``: whole channels of an (N, C, L) or (C, L)
    input zeroed with probability ``p``, the others scaled by ``1 / (1 - p)``."""
    return _channel_dropout("ops.dropout1d", input, p, training, (2, 3))


def dropout2d(input, p=0.5, training=True):  # noqa: A002
    """``ops.dropout2d(input, p=0.5, training=True)``: whole channels of an (N, C, H, W) input
    zeroed with probability ``p``, the others scaled by ``1 / (1 - p)``."""
    return _channel_dropout("ops.dropout2d", input, p, training, (4,))


def dropout3d(input, p=0.5, training=True):  # noqa: A002
    """``ops.dropout3d(input, p=0.5, training=True)``: whole channels of an (N, C, D, H, W) input
    zeroed with probability ``p``, the others scaled by ``1 / (1 - p)``."""
    return _channel_dropout("ops.dropout3d", input, p, training, (5,))


def _dropout3d_prim(x, keep_prob=0.5):
    """``ops.Dropout3D(keep_prob)(x)``: ``(output, mask)`` for a 5-D NCDHW ``x``, the mask Bool."""
    name = "Dropout3D"
    U.numeric_tensor(name, x, "x")
    if x.ndim != 5:
        raise ValueError(f"{name}: 'x' must be 5-D (N, C, D, H, W), got shape {list(x.shape)}")
    U.number(name, keep_prob, "keep_prob")
    shape = tuple(x.shape)
    out, mask = F.dropout2d(F.reshape(x, shape[:2] + (-1, shape[-1])), keep_prob=float(keep_prob))
    return F.reshape(out, shape), F.reshape(mask, shape)


# --- Primitive classes -------------------------------------------------------------------------

BatchNorm = primitive("BatchNorm", _batch_norm_prim,
                      init=("is_training", "epsilon", "momentum", "data_format"))
LayerNorm = primitive("LayerNorm", _layer_norm_prim,
                      init=("begin_norm_axis", "begin_params_axis", "epsilon"))
RmsNorm = primitive("RmsNorm", rms_norm, init=("epsilon",))
LRN = primitive("LRN", lrn, init=("depth_radius", "bias", "alpha", "beta", "norm_region"))
Dropout3D = primitive("Dropout3D", _dropout3d_prim, init=("keep_prob",))

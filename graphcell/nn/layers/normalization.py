"""Normalization layers: ``BatchNorm1d/2d/3d``, ``SyncBatchNorm``, ``LayerNorm``,
``LayerNormExt``, ``GroupNorm``, ``InstanceNorm1d/2d/3d`` and ``LRN``.

Parameters, names and defaults are MindSpore's (checked against 2.10). A batch norm has
``moving_mean`` (named ``mean`` until a parent cell renames it), ``moving_variance``
(``variance``), ``gamma`` and ``beta``, in that order; the moving statistics never require
gradients, and ``affine=False`` keeps ``gamma``/``beta`` but freezes them.

Which statistics normalise a batch:

- ``use_batch_statistics=None`` (default): the batch's in training (``set_train()``), the moving
  ones otherwise;
- ``True``: always the batch's; ``False``: always the moving ones.

Whenever the batch statistics are used, the moving ones are updated with MindSpore's rule
``moving = momentum * moving + (1 - momentum) * batch``, using the unbiased batch variance, and
written through ``ops.assign`` so the same code compiles in graph mode (checked step by step
against MindSpore 2.10 in training loops: ``tests/graphcell/nn/test_batchnorm_training.py``).
``SyncBatchNorm`` is a batch norm over the one process's batch.
"""
from __future__ import annotations

import numbers

from graphcell import ops
from graphcell.common.initializer import Initializer, initializer
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import (_is_int, check_bool, check_float, check_positive_int,
                                           describe)
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32, to_dtype
from graphcell_ir.ops import functional as F

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LayerNorm",
           "LayerNormExt", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LRN"]


# --- batch norms ---------------------------------------------------------------------------------

class _BatchNorm(Cell):
    """The shared implementation; subclasses set ``_ranks``, the input ranks they accept."""

    _ranks: tuple[int, ...] = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=float32):
        super().__init__()
        owner = self.cls_name
        self.num_features = check_positive_int(num_features, "num_features", owner)
        self.eps = check_float(eps, "eps", owner, low=0.0, low_open=True)
        self.momentum = check_float(momentum, "momentum", owner, low=0.0, high=1.0)
        self.affine = check_bool(affine, "affine", owner)
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise ValueError(f"{owner}: 'use_batch_statistics' must be a bool or None, got "
                             f"{use_batch_statistics!r}")
        self.use_batch_statistics = use_batch_statistics
        if data_format != "NCHW":  # NHWC is GPU-only in MindSpore too
            raise ValueError(f"{owner}: 'data_format' must be 'NCHW', got {data_format!r}")
        self.format = data_format
        shape = (self.num_features,)
        self.moving_mean = Parameter(initializer(moving_mean_init, shape, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, shape, dtype),
                                         name="variance", requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma",
                               requires_grad=self.affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), name="beta",
                              requires_grad=self.affine)

    def construct(self, x):
        _check_input(self, x)
        use_batch = self.use_batch_statistics
        if use_batch is None:
            use_batch = self.training
        if use_batch:
            # the op's momentum weighs the batch (MindSpore's Primitive convention): 1 - momentum
            y, mean, variance = F.batch_norm(x, self.gamma, self.beta, self.moving_mean,
                                             self.moving_variance, is_training=True,
                                             epsilon=self.eps, momentum=1.0 - self.momentum)
            ops.assign(self.moving_mean, mean)
            ops.assign(self.moving_variance, variance)
            return y
        y, _, _ = F.batch_norm(x, self.gamma, self.beta, self.moving_mean, self.moving_variance,
                               is_training=False, epsilon=self.eps, momentum=1.0 - self.momentum)
        return y

    def extend_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


def _check_input(bn: _BatchNorm, x) -> None:
    if not isinstance(x, Tensor) or x.ndim not in bn._ranks:
        ranks = " or ".join(f"{r}-D" for r in bn._ranks)
        raise ValueError(f"{bn.cls_name}: expected a {ranks} input, got {describe(x)}")
    if x.shape[1] != bn.num_features:
        raise ValueError(f"{bn.cls_name}: expected num_features={bn.num_features} channels on "
                         f"axis 1, got an input of shape {list(x.shape)}")


class BatchNorm1d(_BatchNorm):
    """``BatchNorm1d(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones',
    beta_init='zeros', moving_mean_init='zeros', moving_var_init='ones',
    use_batch_statistics=None, data_format='NCHW', dtype=float32)`` over ``(N, C)`` or
    ``(N, C, L)`` inputs.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> bn = nn.BatchNorm1d(2).set_train()
        >>> y = bn(ms.Tensor(np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)))
        >>> np.round(y.asnumpy(), 3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
    """

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """``BatchNorm2d(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones',
    beta_init='zeros', moving_mean_init='zeros', moving_var_init='ones',
    use_batch_statistics=None, data_format='NCHW', dtype=float32)`` over ``(N, C, H, W)`` inputs.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> bn = nn.BatchNorm2d(1, momentum=0.5).set_train()
        >>> _ = bn(ms.Tensor(np.array([1.0, 3.0], np.float32).reshape(2, 1, 1, 1)))
        >>> bn.moving_mean.asnumpy()   # 0.5 * 0 + 0.5 * 2
        array([1.], dtype=float32)
    """

    _ranks = (4,)


class SyncBatchNorm(_BatchNorm):
    """``SyncBatchNorm(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones',
    beta_init='zeros', moving_mean_init='zeros', moving_var_init='ones',
    use_batch_statistics=None, process_groups=None, dtype=float32)`` over ``(N, C)`` or
    ``(N, C, H, W)`` inputs. The statistics are those of this process's batch: in one process it
    is ``BatchNorm``; ``process_groups`` (lists of rank ids) must name ranks of the one process.

    Example::

        >>> from graphcell import nn
        >>> nn.SyncBatchNorm(2).moving_mean.shape
        (2,)
    """

    _ranks = (2, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, process_groups=None, dtype=float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, dtype=dtype)
        self.process_groups = _check_process_groups(process_groups, self.cls_name)


def _check_process_groups(groups, owner: str):
    """None, 0 or lists of distinct rank ids of this job (graphcell runs one process: rank 0)."""
    if groups is None or groups == 0:
        return groups
    if not isinstance(groups, list) or not all(isinstance(g, list) for g in groups):
        raise TypeError(f"{owner}: 'process_groups' must be a list of lists of rank ids, got "
                        f"{groups!r}")
    ranks = [r for g in groups for r in g]
    if any(not _is_int(r) or r != 0 for r in ranks) or len(ranks) != len(set(ranks)):
        raise ValueError(f"{owner}: 'process_groups' must hold distinct rank ids in [0, 1) (one "
                         f"process), got {groups!r}")
    return groups


class BatchNorm3d(Cell):
    """``BatchNorm3d(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones',
    beta_init='zeros', moving_mean_init='zeros', moving_var_init='ones',
    use_batch_statistics=None, data_format='NCDHW', dtype=float32)`` over ``(N, C, D, H, W)``
    inputs: a ``BatchNorm2d`` (the child ``bn2d``, which owns the parameters) of the input seen as
    ``(N, C, D * H, W)``.

    Example::

        >>> from graphcell import nn
        >>> [name for name, _ in nn.BatchNorm3d(2).parameters_and_names()]
        ['bn2d.moving_mean', 'bn2d.moving_variance', 'bn2d.gamma', 'bn2d.beta']
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCDHW", dtype=float32):
        super().__init__()
        if data_format != "NCDHW":
            raise ValueError(f"{self.cls_name}: 'data_format' must be 'NCDHW', got "
                             f"{data_format!r}")
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                dtype=dtype)

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim != 5:
            raise ValueError(f"{self.cls_name}: expected a 5-D (N, C, D, H, W) input, got "
                             f"{describe(x)}")
        n, c, d, h, w = x.shape
        return ops.reshape(self.bn2d(ops.reshape(x, (n, c, d * h, w))), (n, c, d, h, w))


# --- layer and group norms -----------------------------------------------------------------------

class LayerNorm(Cell):
    """``LayerNorm(normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
    gamma_init='ones', beta_init='zeros', epsilon=1e-7, dtype=float32)``: ``x`` normalised over
    its axes from ``begin_norm_axis`` on, scaled by ``gamma`` and shifted by ``beta`` (both of
    shape ``normalized_shape``, the input's axes from ``begin_params_axis`` on).

    MindSpore 2.10 prints ``gammaParameter (...)`` (a missing ``=``); graphcell prints
    ``gamma=Parameter (...)``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LayerNorm((2,))(ms.Tensor([[1.0, 3.0]])).asnumpy().round(4)
        array([[-1.,  1.]], dtype=float32)
    """

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=float32):
        super().__init__()
        owner = self.cls_name
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"{owner}: 'normalized_shape' must be a tuple or list of ints, got "
                            f"{type(normalized_shape).__name__} {normalized_shape!r}")
        if not normalized_shape:
            raise ValueError(f"{owner}: 'normalized_shape' must hold at least one size, got "
                             f"{normalized_shape!r}")
        self.normalized_shape = normalized_shape
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = epsilon
        self.gamma = Parameter(initializer(gamma_init, tuple(normalized_shape), dtype),
                               name="gamma")
        self.beta = Parameter(initializer(beta_init, tuple(normalized_shape), dtype), name="beta")
        self._norm = ops.LayerNorm(begin_norm_axis=begin_norm_axis,
                                   begin_params_axis=begin_params_axis, epsilon=epsilon)

    def construct(self, input_x):
        y, _, _ = self._norm(input_x, ops.cast(self.gamma, input_x.dtype),
                             ops.cast(self.beta, input_x.dtype))
        return y

    def extend_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis="
                f"{self.begin_norm_axis}, begin_params_axis={self.begin_params_axis}, "
                f"gamma={self.gamma}, beta={self.beta}")


class LayerNormExt(Cell):
    """``LayerNormExt(normalized_shape, eps=1e-05, elementwise_affine=True, bias=True,
    dtype=None)``: PyTorch's ``LayerNorm`` — the last ``len(normalized_shape)`` axes normalised,
    then scaled by ``weight`` and shifted by ``bias`` (when ``elementwise_affine``).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LayerNormExt(2)(ms.Tensor([[1.0, 3.0]])).asnumpy().round(4)
        array([[-1.,  1.]], dtype=float32)
    """

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True,
                 dtype=None):
        super().__init__()
        owner = self.cls_name
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"{owner}: 'normalized_shape' must be an int or a tuple/list of "
                            f"ints, got {normalized_shape!r}")
        if not normalized_shape:
            raise ValueError(f"{owner}: 'normalized_shape' must hold at least one size")
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = check_bool(elementwise_affine, "elementwise_affine", owner)
        dtype = float32 if dtype is None else to_dtype(dtype)
        self.weight = self.bias = None
        if self.elementwise_affine:
            self.weight = Parameter(initializer("ones", self.normalized_shape, dtype),
                                    name="weight")
            if check_bool(bias, "bias", owner):
                self.bias = Parameter(initializer("zeros", self.normalized_shape, dtype),
                                      name="bias")

    def construct(self, input):  # noqa: A002
        return ops.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extend_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class GroupNorm(Cell):
    """``GroupNorm(num_groups, num_channels, eps=1e-05, affine=True, gamma_init='ones',
    beta_init='zeros', dtype=float32)``: the channels of each sample split into ``num_groups``
    groups, each normalised over its channels and positions, then scaled and shifted per
    channel.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.GroupNorm(1, 2)(ms.Tensor(np.array([[1.0, 3.0]], np.float32))).asnumpy().round(4)
        array([[-1.,  1.]], dtype=float32)
    """

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=float32):
        super().__init__()
        owner = self.cls_name
        self.num_groups = check_positive_int(num_groups, "num_groups", owner)
        self.num_channels = check_positive_int(num_channels, "num_channels", owner)
        if self.num_channels % self.num_groups:
            raise ValueError(f"{owner}: 'num_channels' ({num_channels}) must be divisible by "
                             f"'num_groups' ({num_groups})")
        if not isinstance(eps, float):
            raise TypeError(f"{owner}: 'eps' must be a float, got {type(eps).__name__} {eps!r}")
        self.eps = eps
        self.affine = check_bool(affine, "affine", owner)
        self.gamma = Parameter(initializer(gamma_init, (self.num_channels,), dtype),
                               name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, (self.num_channels,), dtype), name="beta",
                              requires_grad=affine)

    def construct(self, x):
        return ops.group_norm(x, self.num_groups, ops.cast(self.gamma, x.dtype),
                              ops.cast(self.beta, x.dtype), self.eps)

    def extend_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


# --- instance norms ------------------------------------------------------------------------------

class _InstanceNorm(Cell):
    """Each channel of each sample normalised over its positions (``group_norm`` with one group
    per channel), then scaled and shifted per channel. ``moving_mean``/``moving_variance`` carry
    MindSpore's parameter names and are never used nor updated: MindSpore 2.10's InstanceNorm
    runs on GPUs only, and uses the instance's statistics in training and inference alike."""

    _rank = 0

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=float32):
        super().__init__()
        owner = self.cls_name
        for name, value, kind in (("num_features", num_features, int), ("eps", eps, float),
                                  ("momentum", momentum, float), ("affine", affine, bool)):
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise TypeError(f"{owner}: '{name}' must be a {kind.__name__}, got "
                                f"{type(value).__name__} {value!r}")
        for name, value in (("gamma_init", gamma_init), ("beta_init", beta_init)):
            if not isinstance(value, (Tensor, numbers.Number, str, Initializer)):
                raise TypeError(f"{owner}: '{name}' must be a Tensor, a number, a str or an "
                                f"Initializer, got {type(value).__name__}")
            if isinstance(value, Tensor) and value.dtype != float32:
                raise TypeError(f"{owner}: '{name}' must be a Float32 tensor, got {value.dtype}")
        if num_features < 1:
            raise ValueError(f"{owner}: 'num_features' must be at least 1, got {num_features}")
        if not 0 <= momentum <= 1:
            raise ValueError(f"{owner}: 'momentum' must be in [0, 1], got {momentum}")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        shape = (num_features,)
        self.moving_mean = Parameter(initializer("zeros", shape, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer("ones", shape, dtype), name="variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), name="beta",
                              requires_grad=affine)

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim != self._rank:
            raise ValueError(f"{self.cls_name}: expected a {self._rank}-D input, got "
                             f"{describe(x)}")
        return ops.group_norm(x, self.num_features, self.gamma, self.beta, self.eps)

    def extend_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class InstanceNorm1d(_InstanceNorm):
    """``InstanceNorm1d(num_features, eps=1e-05, momentum=0.1, affine=True, gamma_init='ones',
    beta_init='zeros', dtype=float32)`` over (N, C, L) inputs.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.InstanceNorm1d(1)(ms.Tensor([[[1.0, 3.0]]])).asnumpy().round(4)
        array([[[-1.,  1.]]], dtype=float32)
    """

    _rank = 3


class InstanceNorm2d(_InstanceNorm):
    """``InstanceNorm2d(num_features, eps=1e-05, momentum=0.1, affine=True, gamma_init='ones',
    beta_init='zeros', dtype=float32)`` over (N, C, H, W) inputs.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.InstanceNorm2d(1)(ms.Tensor([[[[1.0, 3.0]]]])).asnumpy().round(4)
        array([[[[-1.,  1.]]]], dtype=float32)
    """

    _rank = 4


class InstanceNorm3d(_InstanceNorm):
    """``InstanceNorm3d(num_features, eps=1e-05, momentum=0.1, affine=True, gamma_init='ones',
    beta_init='zeros', dtype=float32)`` over (N, C, D, H, W) inputs.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.InstanceNorm3d(1)(ms.Tensor([[[[[1.0, 3.0]]]]])).asnumpy().round(4)
        array([[[[[-1.,  1.]]]]], dtype=float32)
    """

    _rank = 5


class LRN(Cell):
    """``LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')``:
    local response normalisation across the channels of an (N, C, H, W) input.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> nn.LRN()(ms.Tensor(np.ones((1, 2, 1, 1), np.float32))).shape
        (1, 2, 1, 1)
    """

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        super().__init__()
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, input_x):
        return ops.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta,
                       self.norm_region)

"""``BatchNorm1d`` and ``BatchNorm2d``: batch normalisation with moving statistics.

Parameters, names and defaults are MindSpore's (checked against 2.10): ``moving_mean`` (named
``mean`` until a parent cell renames it), ``moving_variance`` (``variance``), ``gamma`` and
``beta``, in that order; the moving statistics never require gradients, and ``affine=False``
keeps ``gamma``/``beta`` but freezes them.

Which statistics normalise the batch:

- ``use_batch_statistics=None`` (default): the batch's in training (``set_train()``), the moving
  ones otherwise;
- ``True``: always the batch's; ``False``: always the moving ones.

Whenever the batch statistics are used, the moving ones are updated with MindSpore's convention
``moving = momentum * moving + (1 - momentum) * batch``, using the unbiased batch variance, and the
update is written through ``ops.assign`` so the same code compiles in graph mode.
"""
from __future__ import annotations

from graphcell import ops
from graphcell.common.initializer import initializer
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import check_bool, check_float, check_positive_int, describe
from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import float32
from graphcell_ir.ops import functional as F

__all__ = ["BatchNorm1d", "BatchNorm2d"]


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
        if use_batch_statistics is not None:
            check_bool(use_batch_statistics, "use_batch_statistics", owner)
        self.use_batch_statistics = use_batch_statistics
        if data_format != "NCHW":
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

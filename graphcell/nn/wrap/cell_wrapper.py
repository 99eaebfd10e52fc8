"""Training wrappers: ``WithLossCell`` (network + loss), ``TrainOneStepCell`` (one step of
forward, gradients of the optimizer's parameters, and the optimizer's update) and ``WithEvalCell``
(network + loss for evaluation: the loss, the outputs and the label).

Both are created with ``auto_prefix=False``, as in MindSpore, so wrapping a network leaves its
parameter names unchanged (``conv1.weight``, not ``_backbone.conv1.weight``).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> net = nn.Dense(2, 1, weight_init='zeros', bias_init='zeros')
    >>> optimizer = nn.SGD(net.trainable_params())
    >>> step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), optimizer)
    >>> x, y = ms.Tensor(np.ones((4, 2), np.float32)), ms.Tensor(np.ones((4, 1), np.float32))
    >>> float(step(x, y)), float(step(x, y)) < 1.0     # the loss before each update
    (1.0, True)
"""
from __future__ import annotations

from graphcell import ops
from graphcell.autodiff import GradOperation, value_and_grad
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import check_bool
from graphcell.parameter import Parameter, ParameterTuple
from graphcell_ir.ir.types import float16, float32

__all__ = ["WithLossCell", "TrainOneStepCell", "WithEvalCell", "WithGradCell",
           "ForwardValueAndGrad", "ParameterUpdate"]


def no_reduction(grads):
    """The gradient reducer of a training cell when the training is not data parallel (the
    ``nn.Identity`` MindSpore puts there): the gradients as they are."""
    return grads


def _check_cell(owner: str, value, what: str) -> Cell:
    if not isinstance(value, Cell):
        raise TypeError(f"{owner}: '{what}' must be a Cell, got {type(value).__name__}")
    return value


class WithLossCell(Cell):
    """``WithLossCell(backbone, loss_fn)``: ``construct(data, label)`` returns
    ``loss_fn(backbone(data), label)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> fc = nn.Dense(2, 1, weight_init='ones', bias_init='zeros')
        >>> net = nn.WithLossCell(fc, nn.L1Loss())
        >>> float(net(ms.Tensor([[1.0, 1.0]]), ms.Tensor([[0.0]])))
        2.0
    """

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = _check_cell(self.cls_name, backbone, "backbone")
        self._loss_fn = _check_cell(self.cls_name, loss_fn, "loss_fn")

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self) -> Cell:
        """The wrapped network."""
        return self._backbone


class TrainOneStepCell(Cell):
    """``TrainOneStepCell(network, optimizer, sens=None, return_grad=False)``: one training step.

    ``construct(*inputs)`` runs ``network(*inputs)`` (which returns the loss) once, takes the
    gradients of the optimizer's parameters with ``sens`` (default 1.0) as the loss's gradient,
    passes them through ``grad_reducer`` (the identity unless training is data parallel),
    applies ``optimizer(grads)`` and returns the loss computed before the update — or
    ``(loss, {parameter name: gradient})`` with ``return_grad=True``. In ``DATA_PARALLEL`` mode
    (``set_auto_parallel_context``) the gradients are first summed over the processes of the job
    (averaged with ``gradients_mean=True``) by a ``DistributedGradReducer``.

    Example::

        >>> import numpy as np
        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> net = nn.WithLossCell(nn.Dense(2, 1), nn.MSELoss())
        >>> step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        >>> x, y = ms.Tensor(np.ones((4, 2), np.float32)), ms.Tensor(np.zeros((4, 1), np.float32))
        >>> loss = step(x, y)
        >>> loss.shape
        ()
    """

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        self.network = _check_cell(self.cls_name, network, "network")
        self.network.set_grad()
        self.optimizer = _check_cell(self.cls_name, optimizer, "optimizer")
        self.weights = self.optimizer.parameters
        if sens is not None and (isinstance(sens, bool) or not isinstance(sens, (int, float))):
            raise TypeError(f"{self.cls_name}: 'sens' must be a float or None, got {sens!r}")
        if sens == 0:
            raise ValueError(f"{self.cls_name}: 'sens' cannot be 0 (every gradient would be 0)")
        self.sens = 1.0 if sens is None else float(sens)
        self.return_grad = check_bool(return_grad, "return_grad", self.cls_name)
        # MindSpore's attributes, which subclasses written for MindSpore use
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        self._loss_and_grads = value_and_grad(self.network, None, self.weights)
        self._scaled_loss_and_grads = value_and_grad(self._scaled_loss, None, self.weights,
                                                     has_aux=True)
        self._data_parallel()

    def _scaled_loss(self, scale, *inputs):
        """``(loss * scale, loss)``: differentiated, the gradients of ``loss`` with ``scale`` as
        its sens — the scaled values flow through the backward pass, as with MindSpore's sens."""
        loss = self.network(*inputs)
        return loss * ops.cast(scale, loss.dtype), loss

    def _data_parallel(self) -> None:
        """In ``DATA_PARALLEL`` mode, a ``DistributedGradReducer`` sums (``gradients_mean``:
        averages) the gradients over the processes before the update (MindSpore's attributes
        ``reducer_flag``, ``grad_reducer``, ``mean``, ``degree``)."""
        from graphcell.parallel import _utils, replicas
        from graphcell.parallel.grad_reducer import DistributedGradReducer
        self.parallel_mode = _utils._get_parallel_mode()
        self.reducer_flag = _utils.is_data_parallel()
        self.grad_reducer = no_reduction
        if self.reducer_flag:
            self.mean, self.degree = _utils._get_gradients_mean(), _utils._get_device_num()
            self.grad_reducer = DistributedGradReducer(self.weights, self.mean, self.degree)
            replicas.prepare_replicas(self.network)

    def construct(self, *inputs):
        # one forward pass gives both the loss and the tape its gradients are read from, so
        # BatchNorm's moving statistics move once per step
        if self.sens == 1.0:
            loss, grads = self._loss_and_grads(*inputs)
        else:
            (_, loss), grads = self._scaled_loss_and_grads(self.sens, *inputs)
        grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, {p.name: g for p, g in zip(self.weights, grads)}
        return loss


class WithEvalCell(Cell):
    """``WithEvalCell(network, loss_fn, add_cast_fp32=False)``: ``construct(data, label)`` returns
    ``(loss_fn(outputs, label), outputs, label)`` with ``outputs = network(data)`` — what
    ``Model.eval`` feeds its metrics. ``add_cast_fp32`` casts float16 outputs and labels to
    float32 first (for networks run in float16).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> net = nn.WithEvalCell(nn.Dense(2, 1, weight_init='ones', bias_init='zeros'),
        ...                       nn.L1Loss())
        >>> loss, out, label = net(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[1.0]]))
        >>> float(loss), out.shape
        (2.0, (1, 1))
    """

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = _check_cell(self.cls_name, network, "network")
        self._loss_fn = _check_cell(self.cls_name, loss_fn, "loss_fn")
        self.add_cast_fp32 = check_bool(add_cast_fp32, "add_cast_fp32", self.cls_name)

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            label = _float16_to_float32(label)
            outputs = _float16_to_float32(outputs)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class WithGradCell(Cell):
    """``WithGradCell(network, loss_fn=None, sens=None)``: ``construct(*inputs)`` returns the
    gradients of ``network``'s trainable parameters — of ``loss_fn(network(data), label)`` when
    a ``loss_fn`` is given, else of ``network(*inputs)`` — with ``sens`` as the output's
    gradient.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> net = nn.Dense(2, 1, weight_init='ones', bias_init='zeros')
        >>> grads = nn.WithGradCell(net, nn.MSELoss())(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[0.0]]))
        >>> [g.asnumpy().tolist() for g in grads]          # d(out^2)/dw = 2 * 3 * x
        [[[6.0, 12.0]], [6.0]]
    """

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        self.network = _check_cell(self.cls_name, network, "network")
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = GradOperation(get_by_list=True, sens_param=sens is not None)
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()

    def construct(self, *inputs):
        if self.sens is None:
            return self.grad(self.network_with_loss, self.weights)(*inputs)
        return self.grad(self.network_with_loss, self.weights)(*inputs, self.sens)


class ForwardValueAndGrad(Cell):
    """``ForwardValueAndGrad(network, weights=None, get_all=False, get_by_list=False,
    sens_param=False)``: ``construct(*inputs)`` returns ``(network(*inputs), gradients)``, the
    gradients as ``ops.GradOperation(get_all, get_by_list, sens_param)`` gives them (with
    ``sens_param`` the last input is the output's gradient).

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> net = nn.Dense(2, 1, weight_init='ones', bias_init='zeros')
        >>> loss, grads = nn.ForwardValueAndGrad(net, net.trainable_params(),
        ...                                      get_by_list=True)(ms.Tensor([[1.0, 2.0]]))
        >>> float(loss), [g.asnumpy().tolist() for g in grads]
        (3.0, [[[1.0, 2.0]], [1.0]])
    """

    def __init__(self, network, weights=None, get_all=False, get_by_list=False,
                 sens_param=False):
        super().__init__(auto_prefix=False)
        owner = self.cls_name
        if not (isinstance(network, Cell) or callable(network)):
            raise TypeError(f"{owner}: 'network' must be a Cell or a function, got "
                            f"{type(network).__name__}")
        self.get_all = check_bool(get_all, "get_all", owner)
        self.get_by_list = check_bool(get_by_list, "get_by_list", owner)
        if self.get_by_list and not isinstance(weights, (ParameterTuple, tuple, list)):
            raise TypeError(f"{owner}: with get_by_list=True, 'weights' must be Parameters, got "
                            f"{type(weights).__name__}")
        self.network = network
        if isinstance(network, Cell):
            network.set_grad()
        self.weights = ParameterTuple(weights) if self.get_by_list else weights
        self.sens_param = sens_param
        self.grad = GradOperation(get_all=self.get_all, get_by_list=self.get_by_list,
                                  sens_param=self.sens_param)

    def construct(self, *inputs):
        grad_inputs = inputs
        if self.sens_param:
            inputs = inputs[:-1]
        loss = self.network(*inputs)
        if self.get_by_list:
            return loss, self.grad(self.network, self.weights)(*grad_inputs)
        return loss, self.grad(self.network)(*grad_inputs)


class ParameterUpdate(Cell):
    """``ParameterUpdate(param)``: ``construct(x)`` assigns ``x`` to ``param`` and returns ``x``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> _ = nn.ParameterUpdate(w)(ms.Tensor([5.0])); w.asnumpy()
        array([5.], dtype=float32)
    """

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"{self.cls_name}: 'param' must be a Parameter, got "
                            f"{type(param).__name__}")
        self._param = param

    def construct(self, x):
        ops.assign(self._param, x)
        return x


def _float16_to_float32(x):
    """MindSpore's ``mixed_precision_cast`` to float32: float16 tensors are cast, others kept."""
    return ops.cast(x, float32) if x.dtype == float16 else x

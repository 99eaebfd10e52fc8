"""``Optimizer``: the base of every optimizer — parameters, groups, learning rate, weight decay.

What it holds, with MindSpore 2.10's names and rules (checked against it):

- ``parameters``: a ParameterTuple of the parameters it updates (not renamed: the optimizer is a
  Cell with ``auto_prefix=False``);
- ``learning_rate``: a Float32 Parameter named ``learning_rate`` for a fixed rate; for a dynamic
  rate — a 1-D Tensor or a list (step ``i`` uses entry ``i``), or a ``LearningRateSchedule`` —
  a cell called with ``global_step``; with groups that set their own ``'lr'``, one entry per
  parameter (a ParameterTuple of ``learning_rate_group_<i>`` Parameters, or a CellList when some
  rate is dynamic);
- ``global_step``: an Int32 Parameter of shape ``(1,)``, advanced by every update (after the
  step's learning rate was read);
- ``weight_decay``: a float or a cell of the step (dynamic weight decay), per group with groups;
  without groups it applies to the parameters whose names contain neither ``beta`` nor
  ``gamma`` (``decay_flags``), with groups to every parameter of a group whose decay is a cell
  or positive. It is L2 decay added to the gradient, ``g + weight_decay * p``, multiplied by
  ``loss_scale`` as MindSpore stores it;
- ``grad_centralization`` (per group): the gradients of parameters of rank > 1 whose second axis
  is a multiple of 16 (convolution kernels) have their mean over all axes but the first
  subtracted;
- ``loss_scale``: gradients are multiplied by ``1 / loss_scale``.

Parameter groups: ``[{'params': [...], 'lr': ..., 'weight_decay': ..., 'grad_centralization':
...}, ..., {'order_params': [...]}]``; ``order_params`` (optional) gives the order of
``parameters``.

Subclasses write ``construct(self, gradients)`` the way MindSpore's do, with these helpers:
``prepare_gradients`` validates every gradient (count, type, shape) before anything changes, then
applies ``decay_weight``, ``gradients_centralization`` and ``scale_grad``; ``get_lr`` reads this
step's rate and ``advance_step`` then moves ``global_step``; updates go through ``ops.assign``
(directly, through MindSpore's optimizer Primitives, or through ``commit``), so the same code
compiles in graph mode. A bad gradient tuple raises an error naming the optimizer and the
parameter, and leaves every parameter unchanged.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.container import CellList
from graphcell.nn.layers._validate import _is_number, describe
from graphcell.nn.learning_rate_schedule import LearningRateSchedule
from graphcell.nn.optim._rates import _ConvertToCell, _IteratorLearningRate, _WrappedWeightDecay
from graphcell.parameter import Parameter, ParameterTuple
from graphcell.tensor import Tensor

__all__ = ["Optimizer"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")


class Optimizer(Cell):
    """``Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)``.

    ``learning_rate``: a float (>= 0), a 0-d Tensor, a 1-D Tensor or an iterable of floats (a
    dynamic rate), or a ``LearningRateSchedule``. ``weight_decay``: a float (>= 0) or a Cell of
    the step. Subclasses define ``construct(gradients)``.

    Example::

        >>> import graphcell as ms
        >>> from graphcell import nn, ops
        >>> class PlainSGD(nn.Optimizer):
        ...     def construct(self, gradients):
        ...         gradients = self.prepare_gradients(gradients)
        ...         lr = self.get_lr()
        ...         new = [p - lr * g for p, g in zip(self.parameters, gradients)]
        ...         return self.commit(list(zip(self.parameters, new)))
        >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
        >>> _ = PlainSGD(0.5, [w])((ms.Tensor([2.0, 2.0]),))
        >>> w.asnumpy()
        array([0., 1.], dtype=float32)
    """

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        owner = self.cls_name
        items = _items(parameters, owner)
        self.loss_scale = _positive_loss_scale(loss_scale, owner)
        self.dynamic_lr = False
        self.dynamic_weight_decay = False
        self.is_group = isinstance(items[0], dict)
        self.is_group_lr = False
        self.is_group_params_ordered = False
        self.global_step = Parameter(Tensor(np.zeros(1, np.int32)), name="global_step",
                                     requires_grad=False)
        learning_rate = self._preprocess_single_lr(learning_rate)
        if self.is_group:
            params, lrs, decays, centralize = self._parse_groups(items, learning_rate,
                                                                 weight_decay)
            self.learning_rate = self._group_learning_rates(lrs)
            self.decay_flags = tuple(isinstance(d, Cell) or d > 0 for d in decays)
            self.dynamic_decay_flags = tuple(isinstance(d, Cell) for d in decays)
            self.weight_decay = tuple(decays)
            self.grad_centralization_flags = tuple(centralize)
            self.grad_centralization = any(centralize)
            self.exec_weight_decay = any(self.decay_flags)
        else:
            params = items
            self.learning_rate = self._build_single_lr(learning_rate, "learning_rate")
            self.weight_decay = self._preprocess_weight_decay(weight_decay)
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name
                                     for p in params)
            self.dynamic_decay_flags = isinstance(self.weight_decay, Cell)
            self.grad_centralization = False
            self.exec_weight_decay = self.dynamic_decay_flags or self.weight_decay > 0
        _check_unique(params, owner)
        self.parameters = ParameterTuple(params)
        self.need_scale = self.loss_scale != 1.0
        self.reciprocal_scale = 1.0 / self.loss_scale

    # --- learning rates --------------------------------------------------------------------------

    def _preprocess_single_lr(self, value):
        """A float, a Float32 0-d Tensor, a Float32 1-D Tensor (dynamic) or a schedule."""
        owner = self.cls_name
        if isinstance(value, LearningRateSchedule):
            self.dynamic_lr = True
            return value
        if isinstance(value, bool):
            raise TypeError(f"{owner}: 'learning_rate' must be a float, a Tensor, a list or a "
                            f"LearningRateSchedule, got {value!r}")
        if _is_number(value):
            if value < 0:
                raise ValueError(f"{owner}: 'learning_rate' must be at least 0, got {value}")
            return float(value)
        if isinstance(value, Tensor):
            array = value.asnumpy()
        elif isinstance(value, Iterable) and not isinstance(value, (str, dict)):
            array = np.asarray(list(value))
        else:
            raise TypeError(f"{owner}: 'learning_rate' must be a float, a Tensor, a list or a "
                            f"LearningRateSchedule, got {type(value).__name__}")
        if array.ndim > 1 or array.size == 0 or array.dtype.kind not in "iuf":
            raise ValueError(f"{owner}: a Tensor or list 'learning_rate' must be a number or a "
                             f"non-empty 1-D sequence of numbers, got shape {list(array.shape)}")
        if array.ndim == 1:
            self.dynamic_lr = True
        return Tensor(array.astype(np.float32))

    def _build_single_lr(self, value, name: str):
        """The rate as a Parameter (fixed) or a cell of the step (dynamic)."""
        if isinstance(value, LearningRateSchedule):
            return value
        if isinstance(value, Tensor) and value.ndim == 1:
            return _IteratorLearningRate(value, name)
        param = Parameter(value if isinstance(value, Tensor) else
                          Tensor(np.asarray(value, np.float32)), name=name)
        return _ConvertToCell(param) if self.is_group_lr and self.dynamic_lr else param

    def _group_learning_rates(self, lrs: list):
        """One rate per parameter: the group's own or the default (built once each)."""
        if not self.is_group_lr:
            return lrs[0]
        return CellList(lrs, auto_prefix=False) if self.dynamic_lr else ParameterTuple(lrs)

    def get_lr(self):
        """The learning rate of this step: a 0-d Tensor, or one per parameter with group rates.

        Example::

            >>> import graphcell as ms
            >>> from graphcell import nn
            >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
            >>> nn.SGD([w], [0.1, 0.2]).get_lr().asnumpy()
            array(0.1, dtype=float32)
        """
        if not self.dynamic_lr:
            return self.learning_rate
        if self.is_group_lr:
            return tuple(ops.reshape(lr(self.global_step), ()) for lr in self.learning_rate)
        return ops.reshape(self.learning_rate(self.global_step), ())

    def get_lr_parameter(self, param):
        """The learning rate of ``param`` (a list of them for a list): its Parameter, or the
        schedule that computes it (a dynamic rate's Parameter for a 1-D rate)."""
        owner = self.cls_name
        if isinstance(param, list):
            return [self.get_lr_parameter(p) for p in param]
        if not isinstance(param, Parameter):
            raise TypeError(f"{owner}.get_lr_parameter: 'param' must be a Parameter or a list of "
                            f"Parameters, got {type(param).__name__}")
        for i, p in enumerate(self.parameters):
            if p is param:
                lr = self.learning_rate[i] if self.is_group_lr else self.learning_rate
                return lr.learning_rate if isinstance(lr, (_ConvertToCell,
                                                           _IteratorLearningRate)) else lr
        raise ValueError(f"{owner}.get_lr_parameter: parameter '{param.name}' is not updated by "
                         "this optimizer")

    def advance_step(self):
        """``global_step += 1`` (after this step's learning rate was read, as MindSpore)."""
        return ops.assign_add(self.global_step, ops.ones((1,), self.global_step.dtype))

    # --- weight decay --------------------------------------------------------------------------

    def _preprocess_weight_decay(self, value):
        """A float (times the loss scale) or a weight-decay cell (wrapped with the loss scale)."""
        owner = self.cls_name
        if isinstance(value, Cell):
            self.dynamic_weight_decay = True
            return _WrappedWeightDecay(value, self.loss_scale)
        if not _is_number(value):
            raise TypeError(f"{owner}: 'weight_decay' must be a float, an int or a Cell, got "
                            f"{type(value).__name__}")
        if value < 0:
            raise ValueError(f"{owner}: 'weight_decay' must be at least 0, got {value}")
        return float(value) * self.loss_scale

    def get_weight_decay(self):
        """This step's weight decay: a float, a Tensor for a dynamic one, or one per parameter
        with groups."""
        if not self.dynamic_weight_decay:
            return self.weight_decay
        if self.is_group:
            return tuple(d(self.global_step) if dynamic else d
                         for d, dynamic in zip(self.weight_decay, self.dynamic_decay_flags))
        return self.weight_decay(self.global_step)

    def decay_weight(self, gradients) -> tuple:
        """``g + weight_decay * p`` for the parameters that decay."""
        if not self.exec_weight_decay:
            return tuple(gradients)
        decays = self.get_weight_decay()
        if not self.is_group:
            decays = (decays,) * len(self.parameters)
        return tuple(g + p * _like(d, p) if flag else g
                     for p, g, d, flag in zip(self.parameters, gradients, decays,
                                              self.decay_flags))

    # --- gradients -----------------------------------------------------------------------------

    def gradients_centralization(self, gradients) -> tuple:
        """Subtract, from the gradient of each parameter whose group asked for it, its mean over
        every axis but the first — when it has rank > 1 and a second axis divisible by 16."""
        if not (self.is_group and self.grad_centralization):
            return tuple(gradients)
        return tuple(_centralize(g) if flag else g
                     for g, flag in zip(gradients, self.grad_centralization_flags))

    def scale_grad(self, gradients) -> tuple:
        """Undo the loss scale: ``g * (1 / loss_scale)``."""
        if not self.need_scale:
            return tuple(gradients)
        return tuple(g * self.reciprocal_scale for g in gradients)

    def flatten_gradients(self, gradients):
        """The gradients as they are (graphcell does not flatten parameters into chunks)."""
        return gradients

    def prepare_gradients(self, gradients) -> tuple:
        """Validate ``gradients`` against ``parameters``, then apply weight decay, gradient
        centralization and the loss scale, in MindSpore's order.

        Raises TypeError/ValueError naming the optimizer and the parameter; nothing is changed.
        """
        grads = self.check_gradients(gradients)
        grads = self.decay_weight(grads)
        grads = self.gradients_centralization(grads)
        return self.scale_grad(grads)

    def check_gradients(self, gradients) -> tuple:
        """One floating-point Tensor per parameter, of its shape (cast to its dtype)."""
        owner, params = self.cls_name, self.parameters
        if not isinstance(gradients, (tuple, list)):
            raise TypeError(f"{owner}: gradients must be a tuple of Tensors, one per parameter, "
                            f"got {type(gradients).__name__}")
        if len(gradients) != len(params):
            raise ValueError(f"{owner}: expected {len(params)} gradient(s), one per parameter "
                             f"({_names(params)}), got {len(gradients)}")
        out = []
        for p, g in zip(params, gradients):
            if not isinstance(g, Tensor) or not g.dtype.is_float:
                raise TypeError(f"{owner}: the gradient of parameter '{p.name}' must be a "
                                f"floating-point Tensor, got {describe(g)}")
            if tuple(g.shape) != tuple(p.shape):
                raise ValueError(f"{owner}: the gradient of parameter '{p.name}' has shape "
                                 f"{list(g.shape)}, but the parameter has shape {list(p.shape)}")
            out.append(g if g.dtype == p.dtype else ops.cast(g, p.dtype))
        return tuple(out)

    def commit(self, updates) -> tuple:
        """Advance ``global_step``, then assign every ``(target Parameter, new value)`` pair.

        Values are cast to their target's dtype first. Returns MindSpore's result, one True per
        parameter.
        """
        values = [(t, v if v.dtype == t.dtype else ops.cast(v, t.dtype)) for t, v in updates]
        self.advance_step()
        for target, value in values:
            ops.assign(target, value)
        return tuple(True for _ in self.parameters)

    # --- properties MindSpore has --------------------------------------------------------------

    @property
    def _parameters(self) -> ParameterTuple:
        """``parameters`` under the name MindSpore's own optimizers (and ported ones) use."""
        return self.parameters

    @property
    def target(self) -> str:
        """Where parameters are updated: always ``'CPU'`` (graphcell runs on the host)."""
        return "CPU"

    @property
    def unique(self) -> bool:
        """Whether sparse gradients are deduplicated first; graphcell's gradients are dense."""
        return True

    # --- groups --------------------------------------------------------------------------------

    def _parse_groups(self, groups: list, default_lr, default_wd):
        """Flatten parameter groups into per-parameter lists (in ``order_params`` order)."""
        owner = self.cls_name
        checked = [self._check_group(i, g) for i, g in enumerate(groups)]
        order = next((members for g, members in checked if "order_params" in g), None)
        self._check_group_rates(checked, default_lr)
        default = self._build_single_lr(default_lr, "learning_rate")
        params, lrs, decays, centralize = [], [], [], []
        for i, (group, members) in enumerate(checked):
            if "order_params" in group:
                continue
            lr = default
            if "lr" in group:
                lr = self._build_single_lr(self._preprocess_single_lr(group["lr"]),
                                           f"learning_rate_group_{i}")
            wd = self._preprocess_weight_decay(group.get("weight_decay", default_wd))
            gc = group.get("grad_centralization", False)
            if not isinstance(gc, bool):
                raise TypeError(f"{owner}: group {i} 'grad_centralization' must be a bool, got "
                                f"{type(gc).__name__}")
            params += members
            lrs += [lr] * len(members)
            decays += [wd] * len(members)
            centralize += [gc] * len(members)
        if order is not None:
            self.is_group_params_ordered = True
            params, lrs, decays, centralize = _reorder(order, params, lrs, decays, centralize,
                                                       owner)
        return params, lrs, decays, centralize

    def _check_group(self, i: int, group) -> tuple[dict, list]:
        owner = self.cls_name
        unknown = sorted(set(group) - set(_GROUP_KEYS))
        if unknown:
            raise KeyError(f"{owner}: group {i} has unknown key(s) {unknown}; the keys are "
                           f"{list(_GROUP_KEYS)}")
        if "order_params" in group:
            if len(group) > 1:
                raise ValueError(f"{owner}: the 'order_params' group must hold no other key, "
                                 f"got {sorted(group)}")
            return group, _items(group["order_params"], owner, "order_params")
        if "params" not in group:
            raise KeyError(f"{owner}: group {i} has no 'params'")
        members = _items(group["params"], owner, f"group {i} 'params'")
        if any(not isinstance(p, Parameter) for p in members):
            raise TypeError(f"{owner}: group {i} 'params' must hold Parameters only")
        if "lr" in group:
            self.is_group_lr = True
        return group, members

    def _check_group_rates(self, checked: list, default_lr) -> None:
        """Every group's rate is valid, and dynamic 1-D rates have one length."""
        lengths = {default_lr.shape[0]} if isinstance(default_lr, Tensor) and \
            default_lr.ndim == 1 else set()
        for group, _ in checked:
            if "lr" in group:
                lr = self._preprocess_single_lr(group["lr"])
                if isinstance(lr, Tensor) and lr.ndim == 1:
                    lengths.add(lr.shape[0])
        if len(lengths) > 1:
            raise ValueError(f"{self.cls_name}: the dynamic learning rates of the groups must "
                             f"have one length, got {sorted(lengths)}")

    def construct(self, gradients):
        raise NotImplementedError(f"{self.cls_name} must define construct(gradients)")


# --- helpers -------------------------------------------------------------------------------------

def _like(value, target):
    """A weight decay (float, or a Tensor from a schedule) in ``target``'s dtype."""
    return ops.cast(value, target.dtype) if isinstance(value, Tensor) else value


def _centralize(g):
    """``g`` minus its mean over every axis but the first, for ranks > 1 whose second axis is a
    multiple of 16 (MindSpore's rule: convolution kernels); other gradients unchanged."""
    if g.ndim < 2 or g.shape[1] % 16 != 0:
        return g
    return g - ops.mean(g, tuple(range(1, g.ndim)), True)


def _positive_loss_scale(value, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{owner}: 'loss_scale' must be a float, got {type(value).__name__} "
                        f"{value!r}")
    if value <= 0:
        raise ValueError(f"{owner}: 'loss_scale' must be positive, got {value}")
    return float(value)


def _items(value, owner: str, what: str = "parameters") -> list:
    """A non-empty list of Parameters or of group dicts (any iterable, e.g. a filter)."""
    if value is None or isinstance(value, (str, Tensor)) or not isinstance(value, Iterable):
        raise TypeError(f"{owner}: {what} must be a list of Parameters or of parameter-group "
                        f"dicts, got {type(value).__name__}")
    items = list(value)
    if not items:
        raise ValueError(f"{owner}: {what} must not be empty")
    if not (all(isinstance(x, Parameter) for x in items)
            or all(isinstance(x, dict) for x in items)):
        kinds = sorted({type(x).__name__ for x in items})
        raise TypeError(f"{owner}: {what} must be all Parameters or all parameter-group dicts, "
                        f"got {', '.join(kinds)}")
    return items


def _check_unique(params: list, owner: str) -> None:
    by_name: dict[str, Parameter] = {}
    for p in params:
        other = by_name.setdefault(p.name, p)
        if other is not p:
            raise ValueError(f"{owner}: two different parameters are named '{p.name}'; give each "
                             "a unique name (a parent Cell names them by attribute path)")
    if len({id(p) for p in params}) != len(params):
        twice = next(p for i, p in enumerate(params) if any(q is p for q in params[:i]))
        raise ValueError(f"{owner}: parameter '{twice.name}' is given twice; list each once")


def _reorder(order: list, params: list, *columns_and_owner):
    *columns, owner = columns_and_owner
    if len(order) != len(params) or {id(p) for p in order} != {id(p) for p in params}:
        raise ValueError(f"{owner}: 'order_params' must list exactly the grouped parameters "
                         f"({len(params)}), got {len(order)} parameter(s) ({_names(order)})")
    where = {id(p): i for i, p in enumerate(params)}
    idx = [where[id(p)] for p in order]
    return ([params[i] for i in idx],) + tuple([column[i] for i in idx] for column in columns)


def _names(params) -> str:
    names = [f"'{p.name}'" for p in params]
    return ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")



"""``Optimizer``: the base of every optimizer — parameters, groups, learning rate, weight decay.

What it holds, with MindSpore's names (checked against 2.10):

- ``parameters``: a ParameterTuple of the parameters it updates (not renamed: the optimizer is a
  Cell with ``auto_prefix=False``);
- ``learning_rate``: a Float32 Parameter named ``learning_rate`` (a 1-D one for a dynamic
  rate, read at ``global_step``), or a ParameterTuple with one entry per parameter when groups set
  their own ``'lr'`` (named ``learning_rate_group_<i>``);
- ``global_step``: an Int32 Parameter of shape ``(1,)``, incremented by every update;
- ``weight_decay`` and ``decay_flags``: without groups, the decay applies to parameters whose names
  contain neither ``beta`` nor ``gamma``; with groups, to every parameter of a group whose decay
  is positive. It is L2 decay added to the gradient, ``g + weight_decay * p``, before the update;
- ``loss_scale``: gradients are divided by it (and the weight decay multiplied by it).

Parameter groups: ``[{'params': [...], 'lr': ..., 'weight_decay': ...}, ..., {'order_params':
[...]}]``; ``order_params`` (optional) gives the order of ``parameters``.

Subclasses write ``construct(self, gradients)`` the way MindSpore's do, with these helpers:
``prepare_gradients`` validates every gradient (count, type, shape) before anything changes, and
applies weight decay and loss scale; ``get_lr`` reads the rates; ``commit`` writes every new value
through ``ops.assign`` (so the same code compiles in graph mode) after all were computed, then
advances ``global_step``. A bad gradient tuple therefore raises an error naming the optimizer and
leaves every parameter unchanged.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from graphcell import ops
from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_number, check_float, describe
from graphcell.parameter import Parameter, ParameterTuple
from graphcell.tensor import Tensor

__all__ = ["Optimizer"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")


class Optimizer(Cell):
    """``Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)``.

    ``learning_rate`` is a float (>= 0), a 0-d Tensor, or a 1-D Tensor / list (a dynamic rate:
    step ``i`` uses entry ``i``, the last entry once they run out). Subclasses define
    ``construct(gradients)``.

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
        items = _items(parameters, self.cls_name)
        self.loss_scale = check_float(loss_scale, "loss_scale", self.cls_name, low=0.0,
                                      low_open=True)
        self.is_group = isinstance(items[0], dict)
        self.is_group_lr = False
        self.global_step = Parameter(Tensor(np.zeros(1, np.int32)), name="global_step",
                                     requires_grad=False)
        default_lr = self._build_lr(learning_rate, "learning_rate")
        default_wd = self._check_weight_decay(weight_decay)
        if self.is_group:
            params, lrs, decays = self._parse_groups(items, default_lr, default_wd)
            self.learning_rate = ParameterTuple(lrs) if self.is_group_lr else default_lr
            self.weight_decay = tuple(decays)
            self.decay_flags = tuple(d > 0 for d in decays)
        else:
            params = items
            self.learning_rate = default_lr
            self.weight_decay = default_wd
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in params)
            decays = [default_wd] * len(params)
        _check_unique(params, self.cls_name)
        self.parameters = ParameterTuple(params)
        self.exec_weight_decay = any(d > 0 and f for d, f in zip(decays, self.decay_flags))
        # the decay each parameter gets (0: none), pre-multiplied by the loss scale as MindSpore's
        self._decays = tuple(d * self.loss_scale if f else 0.0
                             for d, f in zip(decays, self.decay_flags))
        self.dynamic_lr = any(lr.ndim == 1 for lr in self._lr_params())

    # --- construction helpers ----------------------------------------------------------------

    def _build_lr(self, value, name: str) -> Parameter:
        """A learning rate as a Float32 Parameter: 0-d for a fixed rate, 1-D for a dynamic one."""
        owner = self.cls_name
        if isinstance(value, bool):
            raise TypeError(f"{owner}: 'learning_rate' must be a float, a Tensor or a list, got "
                            f"{value!r}")
        if _is_number(value):
            rate = check_float(value, "learning_rate", owner, low=0.0)
            return Parameter(Tensor(np.asarray(rate, np.float32)), name=name)
        if isinstance(value, Tensor):
            array = value.asnumpy()
        elif isinstance(value, Iterable) and not isinstance(value, (str, dict)):
            array = np.asarray(list(value))
        else:
            raise TypeError(f"{owner}: 'learning_rate' must be a float, a Tensor or a list of "
                            f"floats, got {type(value).__name__} (learning-rate schedules are "
                            "not supported yet)")
        if array.ndim > 1 or array.size == 0 or array.dtype.kind not in "iuf":
            raise ValueError(f"{owner}: a Tensor or list 'learning_rate' must be a number or a "
                             f"non-empty 1-D sequence of numbers, got shape {list(array.shape)}")
        return Parameter(Tensor(array.astype(np.float32)), name=name)

    def _check_weight_decay(self, value) -> float:
        if isinstance(value, Cell):
            raise TypeError(f"{self.cls_name}: dynamic weight decay (a Cell) is not supported yet; "
                            "pass a float")
        return check_float(value, "weight_decay", self.cls_name, low=0.0)

    def _parse_groups(self, groups: list, default_lr: Parameter, default_wd: float):
        """Flatten parameter groups into per-parameter lists (in ``order_params`` order)."""
        owner = self.cls_name
        params, lrs, decays, order = [], [], [], None
        for i, group in enumerate(groups):
            unknown = sorted(set(group) - set(_GROUP_KEYS))
            if unknown:
                raise KeyError(f"{owner}: group {i} has unknown key(s) {unknown}; the keys are "
                               f"{list(_GROUP_KEYS)}")
            if "order_params" in group:
                if len(group) > 1:
                    raise ValueError(f"{owner}: the 'order_params' group must hold no other key, "
                                     f"got {sorted(group)}")
                order = _items(group["order_params"], owner, "order_params")
                continue
            if "params" not in group:
                raise KeyError(f"{owner}: group {i} has no 'params'")
            members = _items(group["params"], owner, f"group {i} 'params'")
            if any(not isinstance(p, Parameter) for p in members):
                raise TypeError(f"{owner}: group {i} 'params' must hold Parameters only")
            if group.get("grad_centralization", False):
                raise ValueError(f"{owner}: 'grad_centralization' is not supported yet")
            lr = default_lr
            if "lr" in group:
                self.is_group_lr = True
                lr = self._build_lr(group["lr"], f"learning_rate_group_{i}")
            wd = self._check_weight_decay(group.get("weight_decay", default_wd))
            params += members
            lrs += [lr] * len(members)
            decays += [wd] * len(members)
        if order is not None:
            params, lrs, decays = _reorder(order, params, lrs, decays, owner)
        return params, lrs, decays

    @property
    def _parameters(self) -> ParameterTuple:
        """``parameters`` under the name MindSpore's own optimizers (and ported ones) use."""
        return self.parameters

    def _lr_params(self) -> tuple:
        return tuple(self.learning_rate) if self.is_group_lr else (self.learning_rate,)

    # --- what construct uses -----------------------------------------------------------------

    def prepare_gradients(self, gradients) -> tuple:
        """Validate ``gradients`` against ``parameters``, then apply weight decay and loss scale.

        Raises TypeError/ValueError naming the optimizer and the parameter; nothing is changed.
        """
        grads = self.check_gradients(gradients)
        grads = self.decay_weight(grads)
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

    def decay_weight(self, gradients) -> tuple:
        """``g + weight_decay * p`` for the parameters that decay."""
        if not self.exec_weight_decay:
            return tuple(gradients)
        return tuple(g + p * d if d > 0 else g
                     for p, g, d in zip(self.parameters, gradients, self._decays))

    def scale_grad(self, gradients) -> tuple:
        """Undo the loss scale: ``g / loss_scale``."""
        if self.loss_scale == 1.0:
            return tuple(gradients)
        return tuple(g * (1.0 / self.loss_scale) for g in gradients)

    def get_lr(self):
        """The learning rate of this step: a 0-d Tensor, or one per parameter with group rates."""
        if self.is_group_lr:
            return tuple(self._current(lr) for lr in self.learning_rate)
        return self._current(self.learning_rate)

    def _current(self, lr: Parameter):
        if lr.ndim == 0:
            return lr
        step = ops.minimum(self.global_step, lr.shape[0] - 1)  # the last rate once they run out
        return ops.reshape(ops.gather(lr, step, 0), ())

    def get_lr_parameter(self, param):
        """The learning-rate Parameter of ``param`` (or a list of them for a list)."""
        if isinstance(param, (list, tuple)):
            return [self.get_lr_parameter(p) for p in param]
        for p, lr in zip(self.parameters, self._per_param_lr()):
            if p is param:
                return lr
        raise ValueError(f"{self.cls_name}: parameter '{getattr(param, 'name', param)}' is not "
                         "updated by this optimizer")

    def _per_param_lr(self) -> tuple:
        return tuple(self.learning_rate) if self.is_group_lr else (self.learning_rate,) * len(
            self.parameters)

    def commit(self, updates) -> tuple:
        """Assign every ``(target Parameter, new value)`` pair, then advance ``global_step``.

        Values are cast to their target's dtype first, so no assign can fail half-way.
        Returns MindSpore's result, one True per parameter.
        """
        values = [(t, v if v.dtype == t.dtype else ops.cast(v, t.dtype)) for t, v in updates]
        for target, value in values:
            ops.assign(target, value)
        ops.assign(self.global_step, self.global_step + 1)
        return tuple(True for _ in self.parameters)

    def construct(self, gradients):
        raise NotImplementedError(f"{self.cls_name} must define construct(gradients)")


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


def _reorder(order: list, params: list, lrs: list, decays: list, owner: str):
    if len(order) != len(params) or {id(p) for p in order} != {id(p) for p in params}:
        raise ValueError(f"{owner}: 'order_params' must list exactly the grouped parameters "
                         f"({len(params)}), got {len(order)} parameter(s) ({_names(order)})")
    where = {id(p): i for i, p in enumerate(params)}
    idx = [where[id(p)] for p in order]
    return [params[i] for i in idx], [lrs[i] for i in idx], [decays[i] for i in idx]


def _names(params) -> str:
    names = [f"'{p.name}'" for p in params]
    return ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")

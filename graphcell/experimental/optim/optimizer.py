"""The base of MindSpore's experimental (PyTorch-style) optimizers.

``Optimizer(params, defaults)``: ``params`` is an iterable of Parameters or of group dicts
(``{'params': [...], 'lr': ..., 'weight_decay': ..., <other defaults>}``); every group takes the
``defaults`` it does not set. ``param_groups`` holds the groups (their ``'lr'`` a Float32
Parameter named ``learning_rate_group_<i>``, also in ``lrs``), ``parameters`` every parameter in
group order and ``group_start_id`` where each group starts in it. Subclasses define
``construct(gradients)`` (one gradient per parameter, in that order).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from graphcell.nn.cell import Cell
from graphcell.nn.layers._validate import _is_number
from graphcell.parameter import Parameter, ParameterTuple
from graphcell.tensor import Tensor

__all__ = ["Optimizer"]


class Optimizer(Cell):
    """``Optimizer(params, defaults)``; see the module docstring.

    Example::

        >>> import graphcell as ms
        >>> from graphcell.experimental import optim
        >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
        >>> b = ms.Parameter(ms.Tensor([0.0]), name="b")
        >>> opt = optim.Optimizer([{"params": [w]}, {"params": [b], "lr": 0.5}], {"lr": 0.1})
        >>> [float(lr) for lr in opt.lrs], opt.group_start_id
        ([0.10000000149011612, 0.5], [0, 1, 2])
    """

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        groups = _non_empty(params, self.cls_name)
        self.defaults = dict(defaults)
        self.state = defaultdict(dict)
        self.param_groups = []
        self.lrs = []
        self.group_start_id = [0]
        self._members: list[Parameter] = []
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)
        self.parameters = ParameterTuple(self._members)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group (a dict with ``'params'``), filling the settings it lacks from
        ``defaults``."""
        group = self._checked_group(param_group)
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        group_id = len(self.param_groups)
        group["lr"] = self._lr_parameter(group.get("lr"), f"learning_rate_group_{group_id}")
        group["weight_decay"] = self._weight_decay(group.get("weight_decay", 0.0))
        self.lrs.append(group["lr"])
        self.param_groups.append(group)
        self._members += group["params"]
        self.group_start_id.append(self.group_start_id[-1] + len(group["params"]))

    def _checked_group(self, group) -> dict:
        owner = self.cls_name
        if not isinstance(group, dict):
            raise TypeError(f"{owner}: a parameter group must be a dict, got "
                            f"{type(group).__name__}")
        group = dict(group)
        members = group.get("params")
        if isinstance(members, Parameter):
            members = [members]
        elif isinstance(members, set):
            raise TypeError(f"{owner}: a group's 'params' must be ordered (a list), not a set")
        members = list(members) if isinstance(members, Iterable) else members
        if not isinstance(members, list) or not all(isinstance(p, Parameter) for p in members):
            raise TypeError(f"{owner}: a group's 'params' must be Parameters")
        taken = {id(p) for p in self._members}
        if any(id(p) in taken for p in members):
            raise ValueError(f"{owner}: some parameters appear in more than one parameter group")
        group["params"] = members
        return group

    def _lr_parameter(self, value, name: str) -> Parameter:
        owner = self.cls_name
        if _is_number(value) and not isinstance(value, bool):
            if value < 0:
                raise ValueError(f"{owner}: the learning rate must be at least 0, got {value}")
            return Parameter(Tensor(np.float32(value)), name=name)
        if isinstance(value, Tensor):
            if value.ndim != 0:
                raise ValueError(f"{owner}: a Tensor learning rate must be a scalar, got shape "
                                 f"{list(value.shape)}")
            return Parameter(Tensor(value.asnumpy().astype(np.float32)), name=name)
        raise TypeError(f"{owner}: the learning rate must be an int, a float or a Tensor, got "
                        f"{type(value).__name__}")

    def _weight_decay(self, value) -> float:
        if isinstance(value, bool) or not _is_number(value):
            raise TypeError(f"{self.cls_name}: 'weight_decay' must be an int or a float, got "
                            f"{type(value).__name__}")
        if value < 0:
            raise ValueError(f"{self.cls_name}: 'weight_decay' must be at least 0, got {value}")
        return float(value)

    def __repr__(self) -> str:
        lines = [f"{self.cls_name} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                value = group[key]
                shown = float(value.asnumpy()) if key == "lr" and isinstance(value, Parameter) \
                    else value
                lines.append(f"    {key}: {shown}")
        return "\n".join(lines) + "\n)"

    def construct(self, gradients):
        raise NotImplementedError(f"{self.cls_name} must define construct(gradients)")


def _non_empty(params, owner: str) -> list:
    if params is None:
        raise ValueError(f"{owner}: 'params' cannot be None")
    if not isinstance(params, Iterable) or isinstance(params, (str, Tensor)):
        raise TypeError(f"{owner}: 'params' must be an iterable of Parameters or of group dicts, "
                        f"got {type(params).__name__}")
    items = list(params)
    if not items:
        raise ValueError(f"{owner}: 'params' must not be empty")
    return items

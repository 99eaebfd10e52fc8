"""Operator-level sharding: ``shard``, ``Layout`` and the strategy search's parameters.

MindSpore's semi-automatic and automatic parallel modes split single operators across devices
according to a strategy (``shard(fn, in_strategy=((2, 1),))``, or a :class:`Layout` naming the
device-matrix axes each tensor dimension is split along). A strategy changes where the work runs,
never the result. graphcell trains in one process or data parallel across processes
(``docs/distributed.md``): in a job of one process ``shard`` returns ``fn`` itself, as MindSpore
does; in a job of several processes operator sharding is refused with an error that says so.
Layouts and the search parameters are checked as MindSpore checks them and kept, so strategy
code runs and can be inspected.

Example::

    >>> import graphcell as ms
    >>> layout = ms.Layout((2, 4), ("dp", "mp"))
    >>> layout("dp", "None").to_dict()["tensor_map"]
    (1, -1)
    >>> f = lambda x: x * 2
    >>> ms.shard(f, in_strategy=((2, 1),)) is f
    True
"""
from __future__ import annotations

import copy
import math

__all__ = ["shard", "Layout", "set_algo_parameters", "get_algo_parameters",
           "reset_algo_parameters"]

_NO_SPLIT = "None"
_INTERLEAVED = "interleaved_parallel"


class Layout:
    """``Layout(device_matrix, alias_name, rank_list=None)``: the devices as a matrix with named
    axes; calling it with one alias (or a tuple of aliases, or ``"None"``) per tensor dimension
    gives that tensor's layout, whose ``to_dict()`` has the tensor map (each dimension's device
    axis counted from the right, ``-1`` for not split)."""

    def __init__(self, device_matrix, alias_name, rank_list=None):
        if not isinstance(device_matrix, tuple) or not all(_is_int(d) for d in device_matrix):
            raise TypeError(f"Layout: device_matrix must be a tuple of ints, got {device_matrix!r}")
        if not isinstance(alias_name, tuple) or not all(isinstance(a, str) for a in alias_name):
            raise TypeError(f"Layout: alias_name must be a tuple of str, got {alias_name!r}")
        if len(device_matrix) != len(alias_name):
            raise ValueError(f"Layout: device_matrix {device_matrix} and alias_name {alias_name} "
                             "must have the same length")
        if any(not a for a in alias_name) or _NO_SPLIT in alias_name:
            raise ValueError(f"Layout: an alias name cannot be empty or 'None' ('None' means not "
                             f"split), got {alias_name}")
        if len(set(alias_name)) != len(alias_name):
            raise ValueError(f"Layout: the alias names {alias_name} must be different")
        if _INTERLEAVED in alias_name[:-1]:
            raise ValueError(f"Layout: {_INTERLEAVED!r} names the virtual split and must be the "
                             f"last alias, got {alias_name}")
        devices = math.prod(device_matrix)
        if rank_list is None:
            rank_list = list(range(devices))
        elif not isinstance(rank_list, list) or not all(_is_int(r) for r in rank_list):
            raise TypeError(f"Layout: rank_list must be a list of ints, got {rank_list!r}")
        elif len(rank_list) != devices:
            raise ValueError(f"Layout: rank_list has {len(rank_list)} ranks, the device matrix "
                             f"{device_matrix} has {devices} devices")
        self._device_shape, self._alias_name, self._rank_list = device_matrix, alias_name, rank_list
        self._tensor_map = None

    def _axis(self, alias: str, used: set) -> int:
        if alias == _NO_SPLIT:
            return -1
        if alias not in self._alias_name:
            raise ValueError(f"Layout: the axis {alias!r} is not one of {self._alias_name}")
        if alias in used:
            raise ValueError(f"Layout: the axis {alias!r} splits more than one dimension")
        used.add(alias)
        return len(self._alias_name) - 1 - self._alias_name.index(alias)

    def __call__(self, *tensor_map) -> Layout:
        used: set = set()
        layout = copy.copy(self)
        layout._tensor_map = tuple(
            tuple(self._axis(a, used) for a in dim) if isinstance(dim, tuple)
            else self._axis(dim, used) for dim in tensor_map)
        return layout

    def to_dict(self) -> dict:
        if self._tensor_map is None:
            raise ValueError("Layout.to_dict: call the layout with a tensor's axes first "
                             "(layout('dp', 'None'))")
        return {"device_matrix": self._device_shape, "tensor_map": self._tensor_map,
                "interleaved_parallel": _INTERLEAVED in self._alias_name,
                "alias_name": self._alias_name, "rank_list": self._rank_list}


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None):
    """Split ``fn``'s operators across devices by ``in_strategy`` (a tuple of per-input
    strategies or :class:`Layout` s). In a job of one process this is ``fn`` itself, as in
    MindSpore; graphcell's multi-process training is data parallel only, so there it refuses."""
    from graphcell.communication.management import get_group_size
    if not callable(fn):
        raise TypeError(f"shard: 'fn' must be a Cell or a function, got {type(fn).__name__}")
    if not isinstance(in_strategy, tuple):
        raise TypeError(f"shard: 'in_strategy' must be a tuple, got {type(in_strategy).__name__}")
    if out_strategy is not None and not isinstance(out_strategy, tuple):
        raise TypeError(f"shard: 'out_strategy' must be a tuple or None, got "
                        f"{type(out_strategy).__name__}")
    if parameter_plan is not None and not isinstance(parameter_plan, dict):
        raise TypeError(f"shard: 'parameter_plan' must be a dict or None, got "
                        f"{type(parameter_plan).__name__}")
    if get_group_size() == 1:
        return fn
    raise NotImplementedError(
        "shard: graphcell trains across processes in data-parallel mode only (each process runs "
        "the whole network on its share of the batch); operator-level sharding is not supported "
        "(see docs/distributed.md)")


_ALGO_DEFAULTS = {"fully_use_devices": False, "elementwise_op_strategy_follow": False,
                  "enable_algo_approxi": False, "algo_approxi_epsilon": 0.1,
                  "tensor_slice_align_enable": False, "tensor_slice_align_size": 16}


class _Algo:
    values = dict(_ALGO_DEFAULTS)


def _check_algo(key: str, value) -> None:
    if key not in _ALGO_DEFAULTS:
        raise ValueError(f"set_algo_parameters: {key!r} is not a parameter; the parameters are "
                         f"{list(_ALGO_DEFAULTS)}")
    if key == "algo_approxi_epsilon":
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value <= 1:
            raise ValueError(f"set_algo_parameters: 'algo_approxi_epsilon' must be a number in "
                             f"(0, 1], got {value!r}")
    elif key == "tensor_slice_align_size":
        if not _is_int(value) or not 1 <= value <= 1024:
            raise ValueError(f"set_algo_parameters: 'tensor_slice_align_size' must be an int in "
                             f"[1, 1024], got {value!r}")
    elif not isinstance(value, bool):
        raise TypeError(f"set_algo_parameters: {key!r} must be a bool, got {value!r}")


def set_algo_parameters(**kwargs) -> None:
    """Set parameters of the parallel strategy search (MindSpore's AUTO_PARALLEL mode). graphcell
    does not search strategies; the values are checked and kept (:func:`get_algo_parameters`)."""
    for key, value in kwargs.items():
        _check_algo(key, value)
    _Algo.values.update(kwargs)


def get_algo_parameters(attr_key: str):
    """The value of a strategy-search parameter."""
    if attr_key not in _ALGO_DEFAULTS:
        raise ValueError(f"get_algo_parameters: {attr_key!r} is not a parameter; the parameters "
                         f"are {list(_ALGO_DEFAULTS)}")
    return _Algo.values[attr_key]


def reset_algo_parameters() -> None:
    """Every strategy-search parameter back to its default."""
    _Algo.values = dict(_ALGO_DEFAULTS)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)

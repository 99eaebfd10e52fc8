"""``set_auto_parallel_context`` / ``get_auto_parallel_context`` / ``reset_auto_parallel_context``
and ``ParallelMode``: how training is spread over the processes of a job.

graphcell trains data-parallel: every process holds the whole network, reads its own shard of the
data, and the gradients are summed (``gradients_mean=True``: averaged) over the processes before
each update, by :class:`graphcell.nn.DistributedGradReducer`, which ``TrainOneStepCell`` (and so
``Model``) adds by itself in ``DATA_PARALLEL`` mode. ``HYBRID_PARALLEL`` runs the same way (with
no sharded operators it *is* data parallel). The model-parallel modes (``SEMI_AUTO_PARALLEL``,
``AUTO_PARALLEL``) and pipeline stages are refused when set — MindSpore's CPU build supports
data parallelism only.

Every key is declared once in ``_KEYS`` with MindSpore 2.10's default and a check; a bad key or
value raises before anything changes. The keys with an effect here: ``parallel_mode``,
``gradients_mean``, ``device_num`` (the divisor of the mean; default: the number of processes),
``parameter_broadcast`` (rank 0's weights are copied to every process when the training step is
built), ``all_reduce_fusion_config`` and ``comm_fusion``'s ``allreduce`` size (how gradients are
bucketed). The others are checked and recorded.

Example::

    >>> import graphcell as ms
    >>> ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
    ...                              gradients_mean=True)
    >>> ms.get_auto_parallel_context("parallel_mode"), ms.get_auto_parallel_context("device_num")
    ('data_parallel', 1)
    >>> ms.reset_auto_parallel_context()
"""
from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context", "is_set"]


class ParallelMode:
    """MindSpore's parallel modes (strings). graphcell runs ``STAND_ALONE`` and
    ``DATA_PARALLEL`` (``HYBRID_PARALLEL`` as data parallel)."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


@dataclass(frozen=True)
class _Key:
    default: Any
    check: Callable[[Any], Any]   # the normalised value, or raises TypeError/ValueError


def _typed(kind: type, name: str):
    def check(v):
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            raise TypeError(f"The parameter '{name}' must be {kind.__name__}, but got "
                            f"{type(v).__name__}")
        return v
    return check


def _parallel_mode(v):
    if v not in ParallelMode.MODE_LIST:
        raise ValueError("The context configuration parameter 'parallel_mode' only support "
                         "'stand_alone', 'data_parallel', 'hybrid_parallel', 'semi_auto_parallel' "
                         f"and 'auto_parallel', but got the value : {v}.")
    if v in (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL):
        raise ValueError(f"parallel_mode={v!r}: graphcell trains data-parallel only ('stand_alone', "
                         "'data_parallel', 'hybrid_parallel'), as MindSpore's CPU build does; "
                         "operator sharding strategies are not supported")
    return v


def _device_num(v):
    _typed(int, "device_num")(v)
    if v <= 0:
        raise ValueError("The context configuration parameter 'device_num' must be a positive "
                         f"integer, but got the value of device_num : {v}.")
    return v


def _global_rank(v):
    _typed(int, "global_rank")(v)
    if v < 0:
        raise ValueError(f"'global_rank' must be a non-negative integer, got {v}")
    return v


def _fusion_indices(v):
    if not isinstance(v, list) or not all(isinstance(i, int) and not isinstance(i, bool)
                                          for i in v):
        raise TypeError(f"'all_reduce_fusion_config' must be a list of ints, got {v!r}")
    if any(b <= a for a, b in zip(v, v[1:])) or any(i <= 0 for i in v):
        raise ValueError("'all_reduce_fusion_config' must be increasing positive parameter "
                         f"indices (where the gradient buckets split), got {v}")
    return list(v)


_FUSION_TYPES = ("openstate", "allreduce", "allgather", "reducescatter")


def _comm_fusion(v):
    if not isinstance(v, dict):
        raise TypeError(f"'comm_fusion' must be a dict, got {type(v).__name__}")
    merged = copy.deepcopy(_KEYS["comm_fusion"].default)
    for kind, config in v.items():
        if kind not in _FUSION_TYPES:
            raise KeyError(f"comm_fusion: the communication type must be one of "
                           f"{list(_FUSION_TYPES)}, got {kind!r}")
        if kind == "openstate":
            merged[kind] = _typed(bool, "comm_fusion['openstate']")(config)
            continue
        if not isinstance(config, dict) or config.get("mode") not in ("auto", "size", "index"):
            raise KeyError(f"comm_fusion[{kind!r}] must be {{'mode': 'auto'|'size'|'index', "
                           f"'config': ...}}, got {config!r}")
        if config["mode"] == "size" and (not isinstance(config.get("config"), (int, float))
                                         or config["config"] <= 0):
            raise ValueError(f"comm_fusion[{kind!r}]: mode 'size' needs a fusion threshold in MB "
                             f"> 0 as 'config', got {config.get('config')!r}")
        merged[kind] = {"mode": config["mode"], "config": config.get("config")}
    return merged


def _pipeline_stages(v):
    _typed(int, "pipeline_stages")(v)
    if v != 1:
        raise ValueError(f"pipeline_stages={v}: graphcell trains data-parallel only; pipeline "
                         "parallelism is not supported (MindSpore's CPU build does not either)")
    return v


def _parallel_optimizer(v):
    _typed(bool, "enable_parallel_optimizer")(v)
    if v:
        warnings.warn("enable_parallel_optimizer=True has no effect in graphcell: every process "
                      "keeps the whole optimizer state (the results are the same)", UserWarning,
                      stacklevel=4)
    return v


_b = lambda name: _typed(bool, name)  # noqa: E731
_s = lambda name: _typed(str, name)   # noqa: E731
_d = lambda name: _typed(dict, name)  # noqa: E731

_KEYS: dict[str, _Key] = {
    "parallel_mode": _Key(ParallelMode.STAND_ALONE, _parallel_mode),
    "gradients_mean": _Key(False, _b("gradients_mean")),
    "device_num": _Key(1, _device_num),
    "global_rank": _Key(0, _global_rank),
    "parameter_broadcast": _Key(False, _b("parameter_broadcast")),
    "all_reduce_fusion_config": _Key([], _fusion_indices),
    "comm_fusion": _Key({"openstate": True, "allreduce": {"mode": "auto", "config": None},
                         "allgather": {"mode": "auto", "config": None},
                         "reducescatter": {"mode": "auto", "config": None}}, _comm_fusion),
    "gradient_fp32_sync": _Key(True, _b("gradient_fp32_sync")),
    "loss_repeated_mean": _Key(True, _b("loss_repeated_mean")),
    "enable_parallel_optimizer": _Key(False, _parallel_optimizer),
    "force_fp32_communication": _Key(False, _b("force_fp32_communication")),
    "enable_alltoall": _Key(False, _b("enable_alltoall")),
    "pipeline_stages": _Key(1, _pipeline_stages),
    "pipeline_result_broadcast": _Key(False, _b("pipeline_result_broadcast")),
    "full_batch": _Key(False, _b("full_batch")),
    "dataset_strategy": _Key("data_parallel", lambda v: v),
    "search_mode": _Key("recursive_programming", _s("search_mode")),
    "auto_parallel_search_mode": _Key("recursive_programming", _s("auto_parallel_search_mode")),
    "sharding_propagation": _Key(False, _b("sharding_propagation")),
    "strategy_ckpt_load_file": _Key("", _s("strategy_ckpt_load_file")),
    "strategy_ckpt_save_file": _Key("", _s("strategy_ckpt_save_file")),
    "strategy_ckpt_config": _Key({"load_file": "", "save_file": "", "only_trainable_params": True},
                                 _d("strategy_ckpt_config")),
    "group_ckpt_save_file": _Key("", _s("group_ckpt_save_file")),
    "communi_parallel_mode": _Key("all_group_parallel", _s("communi_parallel_mode")),
    "optimizer_weight_shard_size": _Key(-1, _typed(int, "optimizer_weight_shard_size")),
    "optimizer_weight_shard_aggregated_save": _Key(False, _b(
        "optimizer_weight_shard_aggregated_save")),
    "grad_accumulation_step": _Key(1, _typed(int, "grad_accumulation_step")),
    "auto_pipeline": _Key(False, _b("auto_pipeline")),
    "dump_local_norm": _Key(False, _b("dump_local_norm")),
    "dump_local_norm_path": _Key("", _s("dump_local_norm_path")),
    "dump_device_local_norm": _Key(False, _b("dump_device_local_norm")),
    "parallel_optimizer_config": _Key({}, _d("parallel_optimizer_config")),
    "pipeline_config": _Key({}, _d("pipeline_config")),
}
_SET_ONLY = ("group_ckpt_save_file", "parallel_optimizer_config", "pipeline_config")
"""Keys MindSpore 2.10 sets but does not give back (``get_auto_parallel_context`` refuses them)."""

_values: dict[str, Any] = {}
_explicit: set[str] = set()


def set_auto_parallel_context(**kwargs) -> None:
    """Set auto-parallel keys (see the module docstring); nothing changes when one is bad."""
    checked = {}
    for key, value in kwargs.items():
        if key not in _KEYS:
            raise ValueError(f"Set context keyword {key} is not recognized!")
        checked[key] = _KEYS[key].check(value)
    _values.update(checked)
    _explicit.update(checked)


def get_auto_parallel_context(attr_key: str):
    """The value of one key (``device_num`` is 1 unless set, as in MindSpore; the gradient
    reducer's default divisor is the number of processes)."""
    if attr_key not in _KEYS or attr_key in _SET_ONLY:
        raise ValueError(f"Get context keyword {attr_key} is not recognized!")
    return copy.deepcopy(_values.get(attr_key, _KEYS[attr_key].default))


def reset_auto_parallel_context() -> None:
    """Every key back to its default."""
    _values.clear()
    _explicit.clear()


def is_set(key: str) -> bool:
    """Whether ``key`` was set since the last reset (``device_num`` unset means "every
    process")."""
    return key in _explicit

"""Run-time configuration: ``set_context`` / ``get_context`` and the execution modes.

Every key is declared once in ``_KEYS`` with its default and a check; an unknown key or a bad
value raises before anything changes, so a failed call leaves the context as it was.

Example::

    >>> import graphcell as ms
    >>> ms.set_context(mode=ms.GRAPH_MODE); ms.get_context("mode")
    0
    >>> ms.set_context(mode=ms.PYNATIVE_MODE)
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Any, Callable

GRAPH_MODE = 0
PYNATIVE_MODE = 1


@dataclass(frozen=True)
class _Key:
    default: Any
    check: Callable[[Any], Any]     # returns the normalised value or raises ValueError/TypeError
    doc: str


def _mode(v):
    if v not in (GRAPH_MODE, PYNATIVE_MODE) or isinstance(v, bool):
        raise ValueError(f"mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1), got {v!r}")
    return int(v)


def _device_target(v):
    if not isinstance(v, str) or v.upper() not in ("CPU", "GPU", "ASCEND", "DAVINCI"):
        raise ValueError(f"device_target must be one of 'CPU', 'GPU', 'Ascend', 'Davinci', "
                         f"got {v!r}")
    if v.upper() != "CPU":
        warnings.warn(f"device_target={v!r}: graphcell runs on the CPU; continuing on the CPU",
                      RuntimeWarning, stacklevel=4)
    return {"CPU": "CPU", "GPU": "GPU"}.get(v.upper(), "Ascend")


def _bool(name):
    def check(v):
        if not isinstance(v, bool):
            raise TypeError(f"{name} must be True or False, got {v!r}")
        return v
    return check


def _save_graphs(v):
    if isinstance(v, bool):  # MindSpore records True as level 2
        return 2 if v else 0
    if isinstance(v, int) and 0 <= v <= 3:
        return v
    raise TypeError(f"save_graphs must be True/False or a level 0-3, got {v!r}")


def _path(v):
    if not isinstance(v, (str, os.PathLike)):
        raise TypeError(f"save_graphs_path must be a path, got {type(v).__name__}")
    return os.fspath(v)


def _non_negative_int(name):
    def check(v):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{name} must be a non-negative int, got {v!r}")
        return v
    return check


def check_jit_level(v):
    """``v`` if it is a jit level (``'O0'``, ``'O1'``, ``'O2'``, or ``''`` for the default)."""
    if v not in ("", "O0", "O1", "O2"):
        raise ValueError(f"jit_level must be 'O0', 'O1' or 'O2' (or '' for the default), got {v!r}")
    return v


def _level(name, lo, hi):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"{name} must be an int in [{lo}, {hi}], got {v!r}")
        return v
    return check


def _choice(name, *options):
    def check(v):
        if v not in options:
            raise ValueError(f"{name} must be one of {list(options)}, got {v!r}")
        return v
    return check


_JIT_CONFIG_KEYS = {"jit_level": ("O0", "O1", "O2"), "infer_boost": ("on", "off")}


def _jit_config(v):
    if not isinstance(v, dict):
        raise TypeError(f"jit_config must be a dict, got {type(v).__name__}")
    for key, value in v.items():
        if key not in _JIT_CONFIG_KEYS:
            raise ValueError(f"the keys of jit_config must be one of {_JIT_CONFIG_KEYS}, got "
                             f"{key!r}")
        if value not in _JIT_CONFIG_KEYS[key]:
            raise ValueError(f"jit_config[{key!r}] must be one of {list(_JIT_CONFIG_KEYS[key])}, "
                             f"got {value!r}")
    return dict(v)


def _any(v):
    return v


STRICT, COMPATIBLE, LAX = 0, 1, 2
"""``jit_syntax_level`` values (MindSpore's): graphcell's frontend accepts the same code at each."""
RELEASE, DEBUG = 0, 1
"""``debug_level`` values."""

def _artifact_key(v):
    """A key for signing artifacts: None, or at least 16 bytes (a str is taken as UTF-8)."""
    if v is None:
        return None
    if isinstance(v, str):
        v = v.encode("utf-8")
    if not isinstance(v, (bytes, bytearray)):
        raise TypeError(f"artifact_key must be bytes or str (or None), got {type(v).__name__}")
    if len(v) < 16:
        raise ValueError("artifact_key must be at least 16 bytes: a random secret, such as "
                         "secrets.token_hex(32)")
    return bytes(v)


_KEYS: dict[str, _Key] = {
    "mode": _Key(PYNATIVE_MODE, _mode, "GRAPH_MODE (0) compiles construct; PYNATIVE_MODE (1) runs it op by op"),
    "device_target": _Key("CPU", _device_target, "'CPU'; 'GPU'/'Ascend' are accepted and run on the CPU"),
    "device_id": _Key(0, _non_negative_int("device_id"), "accepted for compatibility"),
    "pynative_synchronize": _Key(False, _bool("pynative_synchronize"),
                                 "accepted; graphcell's PyNative ops are always synchronous"),
    "save_graphs": _Key(0, _save_graphs, "write the IR after every pass that changed it, its "
                                         "summary and its dot graph (level 0-3 or a bool; level "
                                         "3, MindSpore's 'visualization' level, adds an SVG)"),
    "save_graphs_path": _Key(".", _path, "directory for save_graphs dumps"),
    "save_graphs_locs": _Key("user", _choice("save_graphs_locs", "user", "full", "none"),
                             "graphcell's own: the source locations in save_graphs' .gcir files "
                             "('user': the user's line and cells; 'full': every inlined frame; "
                             "'none'), as graphcell ir --locs"),
    "max_call_depth": _Key(1000, _non_negative_int("max_call_depth"),
                           "the deepest nesting of calls graph mode inlines (recursion stops "
                           "there with a GraphLimitError)"),
    "max_unroll": _Key(10_000, _non_negative_int("max_unroll"),
                       "graphcell's own: the most iterations graph mode unrolls of one for loop, "
                       "or of a while loop whose condition is known while compiling"),
    "compile_report": _Key(False, _bool("compile_report"), "print the time of each backend compile "
                                                           "phase and kernel cache hits (also GRAPHCELL_LOG=compile)"),
    "artifact_key": _Key(None, _artifact_key, "the key export signs artifacts with and load(native=True) "
                                              "trusts (HMAC-SHA256); None: GRAPHCELL_ARTIFACT_KEY, if set"),
    "jit_level": _Key("", check_jit_level, "graph mode: 'O0' runs the frontend's IR as it is; 'O1'/'O2' "
                                      "(and the default '') run the default pass pipeline"),
    "jit_config": _Key({}, _jit_config, "{'jit_level': 'O0'|'O1'|'O2', 'infer_boost': 'on'|'off'}; "
                                        "jit_level as the jit_level key"),
    "jit_syntax_level": _Key(LAX, _choice("jit_syntax_level", STRICT, COMPATIBLE, LAX),
                             "accepted; graph mode accepts the same code at every level"),
    "debug_level": _Key(RELEASE, _choice("debug_level", RELEASE, DEBUG), "accepted"),
    "deterministic": _Key("OFF", _choice("deterministic", "ON", "OFF"),
                          "accepted; graphcell's CPU kernels are deterministic"),
    "runtime_num_threads": _Key(2, _non_negative_int("runtime_num_threads"), "accepted"),
    "inter_op_parallel_num": _Key(0, _non_negative_int("inter_op_parallel_num"), "accepted"),
    "memory_optimize_level": _Key(0, _choice("memory_optimize_level", 0, 1, "O0", "O1"), "accepted"),
    "op_timeout": _Key(900, _non_negative_int("op_timeout"), "accepted"),
    "exec_order": _Key("bfs", _choice("exec_order", "bfs", "dfs", "gpto"), "accepted"),
    "enable_compile_cache": _Key(None, _bool("enable_compile_cache"),
                                 "accepted; graphcell always caches kernels on disk"),
    "compile_cache_path": _Key("", _path, "accepted (graphcell's cache: GRAPHCELL_CACHE_DIR)"),
    "check_bprop": _Key(False, _bool("check_bprop"),
                        "accepted; a custom bprop's gradient shapes are always checked"),
    "enable_graph_kernel": _Key(False, _bool("enable_graph_kernel"),
                                "accepted; graph mode always fuses elementwise kernels"),
    "graph_kernel_flags": _Key("", _any, "accepted"),
    "enable_profiling": _Key(False, _bool("enable_profiling"), "accepted"),
    "profiling_options": _Key("", _any, "accepted"),
    "env_config_path": _Key("", _any, "accepted"),
    "print_file_path": _Key("", _any, "accepted (an Ascend option in MindSpore)"),
    "reserve_class_name_in_scope": _Key(True, _bool("reserve_class_name_in_scope"), "accepted"),
    "support_binary": _Key(False, _bool("support_binary"), "accepted"),
    "enable_reduce_precision": _Key(True, _bool("enable_reduce_precision"),
                                    "accepted (an Ascend option in MindSpore)"),
    "variable_memory_max_size": _Key("", _any, "accepted (an Ascend option in MindSpore)"),
    "max_device_memory": _Key(1024.0, _any, "accepted (a GPU/Ascend option in MindSpore)"),
    "mempool_block_size": _Key("1GB", _any, "accepted (a GPU/Ascend option in MindSpore)"),
    "disable_format_transform": _Key(False, _bool("disable_format_transform"),
                                     "accepted (a GPU option in MindSpore)"),
    "ascend_config": _Key({}, _any, "accepted (an Ascend option in MindSpore)"),
    "gpu_config": _Key({}, _any, "accepted (a GPU option in MindSpore)"),
    "aoe_tune_mode": _Key("", _any, "accepted (an Ascend option in MindSpore)"),
    "aoe_config": _Key({}, _any, "accepted (an Ascend option in MindSpore)"),
}
"""Every key MindSpore 2.10 accepts on the CPU. The ones with an effect here: mode, save_graphs,
save_graphs_path, max_call_depth, jit_level/jit_config, compile_report, and max_unroll and
save_graphs_locs (graphcell's own); the others
are checked as MindSpore checks them and recorded, so ``get_context`` returns them."""

_IGNORED = ("enable_sparse", "auto_tune_mode", "enable_auto_mixed_precision")
"""Keys MindSpore 2.10 warns about and ignores."""

_REMOVED = {
    "grad_for_scalar": "has been removed since MindSpore 2.10; use the tensor derivative instead",
    "precompile_only": "has been removed since MindSpore 2.10; use the env MS_DEV_PRECOMPILE_ONLY",
}
_ASCEND_CONFIG = ("precision_mode", "jit_compile", "atomic_clean_policy", "matmul_allow_hf32",
                  "conv_allow_hf32", "op_precision_mode", "host_scheduling_max_threshold",
                  "ge_options", "op_debug_option")

_values: dict[str, Any] = {k: spec.default for k, spec in _KEYS.items()}


def set_context(**kwargs) -> None:
    """Set context keys: ``set_context(mode=GRAPH_MODE, save_graphs=True, jit_config={...})``.

    Every key MindSpore 2.10 accepts on the CPU is accepted (those without an effect here are
    checked and recorded); an unknown key or a bad value raises before anything changes.
    """
    checked = {}
    for key, value in kwargs.items():
        if key in _IGNORED:
            warnings.warn(f"set_context: {key!r} is deprecated in MindSpore and ignored",
                          DeprecationWarning, stacklevel=2)
            continue
        if key in _REMOVED:
            raise ValueError(f"set_context: the parameter {key!r} {_REMOVED[key]}")
        if key in _ASCEND_CONFIG:
            raise ValueError(f"set_context: please set {key!r} through the parameter "
                             "ascend_config (an Ascend option)")
        if key not in _KEYS:
            raise ValueError(f"set_context: unknown key {key!r}; valid keys are "
                             f"{', '.join(sorted(_KEYS))}")
        try:
            checked[key] = _KEYS[key].check(value)
        except (TypeError, ValueError) as e:
            raise type(e)(f"set_context: {e}") from None
    if "jit_config" in checked and "jit_level" in checked["jit_config"]:
        checked.setdefault("jit_level", checked["jit_config"]["jit_level"])
    _values.update(checked)


def get_context(attr_key: str):
    """The value of one context key."""
    if attr_key not in _KEYS:
        raise ValueError(f"get_context: unknown key {attr_key!r}; valid keys are "
                         f"{', '.join(sorted(_KEYS))}")
    return _values[attr_key]


def set_device(device_target: str, device_id: int | None = None) -> None:
    """``ms.set_device(device_target, device_id=None)``: MindSpore 2.10's way to pick a device;
    graphcell runs on the CPU ('GPU'/'Ascend' warn and run on the CPU)."""
    set_context(device_target=device_target, **({} if device_id is None else
                                                {"device_id": device_id}))


# MindSpore's context module also holds the auto-parallel settings (graphcell/parallel/)
from graphcell.parallel._auto_parallel_context import (ParallelMode,  # noqa: E402
                                                       get_auto_parallel_context,
                                                       reset_auto_parallel_context,
                                                       set_auto_parallel_context)


def _reset_for_tests() -> None:
    _values.update({k: spec.default for k, spec in _KEYS.items()})
    reset_auto_parallel_context()

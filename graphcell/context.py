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
    if not isinstance(v, str) or v.upper() not in ("CPU", "GPU", "ASCEND"):
        raise ValueError(f"device_target must be 'CPU', 'GPU' or 'Ascend', got {v!r}")
    if v.upper() != "CPU":
        warnings.warn(f"device_target={v!r}: graphcell runs on the CPU; continuing on the CPU",
                      RuntimeWarning, stacklevel=4)
    return "CPU" if v.upper() == "CPU" else ("GPU" if v.upper() == "GPU" else "Ascend")


def _bool(name):
    def check(v):
        if not isinstance(v, bool):
            raise TypeError(f"{name} must be True or False, got {v!r}")
        return v
    return check


def _save_graphs(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and 0 <= v <= 3:  # MindSpore 2.x accepts a level 0..3
        return v > 0
    raise TypeError(f"save_graphs must be True/False (or a level 0-3), got {v!r}")


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
    "save_graphs": _Key(False, _save_graphs, "write the IR after every pass that changed it"),
    "save_graphs_path": _Key(".", _path, "directory for save_graphs dumps"),
    "max_call_depth": _Key(1000, _non_negative_int("max_call_depth"), "accepted for compatibility"),
    "compile_report": _Key(False, _bool("compile_report"), "print the time of each backend compile "
                                                           "phase and kernel cache hits (also GRAPHCELL_LOG=compile)"),
    "artifact_key": _Key(None, _artifact_key, "the key export signs artifacts with and load(native=True) "
                                              "trusts (HMAC-SHA256); None: GRAPHCELL_ARTIFACT_KEY, if set"),
    "jit_level": _Key("", check_jit_level, "graph mode: 'O0' runs the frontend's IR as it is; 'O1'/'O2' "
                                      "(and the default '') run the default pass pipeline"),
}

_values: dict[str, Any] = {k: spec.default for k, spec in _KEYS.items()}


def set_context(**kwargs) -> None:
    """Set context keys (``mode``, ``device_target``, ``save_graphs``, ...). Unknown keys raise."""
    unknown = sorted(set(kwargs) - set(_KEYS))
    if unknown:
        raise ValueError(f"set_context: unknown key(s) {', '.join(map(repr, unknown))}; valid keys "
                         f"are {', '.join(sorted(_KEYS))}")
    checked = {}
    for key, value in kwargs.items():
        try:
            checked[key] = _KEYS[key].check(value)
        except (TypeError, ValueError) as e:
            raise type(e)(f"set_context: {e}") from None
    _values.update(checked)


def get_context(attr_key: str):
    """The value of one context key."""
    if attr_key not in _KEYS:
        raise ValueError(f"get_context: unknown key {attr_key!r}; valid keys are "
                         f"{', '.join(sorted(_KEYS))}")
    return _values[attr_key]


def _reset_for_tests() -> None:
    _values.update({k: spec.default for k, spec in _KEYS.items()})

"""``mindspore.common.jit_config``: ``JitConfig``, the options of one compiled cell or function.

Example::

    >>> from graphcell import JitConfig
    >>> JitConfig(jit_level="O0").jit_config_dict["jit_level"]
    'O0'
"""
from __future__ import annotations

from graphcell.context import check_jit_level

__all__ = ["JitConfig"]


class JitConfig:
    """``JitConfig(jit_level='', exc_mode='auto', jit_syntax_level='', debug_level='RELEASE',
    infer_boost='off', **kwargs)``: MindSpore's per-cell compile options.

    ``jit_level`` has the meaning of the context key (``'O0'`` skips graphcell's pass pipeline);
    the other options are checked and recorded.
    """

    def __init__(self, jit_level: str = "", exc_mode: str = "auto", jit_syntax_level: str = "",
                 debug_level: str = "RELEASE", infer_boost: str = "off", **kwargs):
        check_jit_level(jit_level)
        _one_of("exc_mode", exc_mode, ("auto", "sink", "no_sink"))
        _one_of("jit_syntax_level", jit_syntax_level, ("", "STRICT", "COMPATIBLE", "LAX"))
        _one_of("debug_level", debug_level, ("RELEASE", "DEBUG"))
        _one_of("infer_boost", infer_boost, ("on", "off"))
        self.jit_config_dict = {"jit_level": jit_level, "exc_mode": exc_mode,
                                "jit_syntax_level": jit_syntax_level, "debug_level": debug_level,
                                "infer_boost": infer_boost, **kwargs}

    def __repr__(self) -> str:
        return f"JitConfig({', '.join(f'{k}={v!r}' for k, v in self.jit_config_dict.items())})"


def _one_of(name: str, value, options: tuple) -> None:
    if value not in options:
        raise ValueError(f"JitConfig: {name} must be one of {list(options)}, got {value!r}")

"""Where compiled kernels are cached on disk: ``$GRAPHCELL_CACHE_DIR``, else the user's cache dir.

Example::

    >>> cache_dir().name in ("graphcell", switches.value("GRAPHCELL_CACHE_DIR").rstrip("/").split("/")[-1])
    True
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from graphcell_ir import switches


def cache_dir() -> Path:
    """The kernel cache directory (not created here)."""
    explicit = switches.value("GRAPHCELL_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "graphcell"

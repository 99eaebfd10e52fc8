"""A function whose file was edited after it was imported: the frontend reads the source on disk
(as ``inspect`` does), so the message says what happened instead of only "cannot find it"."""
from __future__ import annotations

import importlib.util
import os

import pytest

from graphcell_ir.frontend.source import SourceUnavailable, parse_function


def test_a_file_edited_after_import_is_named_as_the_cause(tmp_path):
    path = tmp_path / "edited_module.py"
    path.write_text("def f(x):\n    return x + 1\n")
    spec = importlib.util.spec_from_file_location("edited_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path.write_text("# a comment moves everything down\n\n\nX = 1\n")   # f is gone from line 1
    stat = path.stat()
    os.utime(path, (stat.st_atime, stat.st_mtime + 5))   # a new mtime: linecache re-reads it
    with pytest.raises(SourceUnavailable, match=r"edited_module\.py:1\): was the file edited "
                                                r"after it was imported\?"):
        parse_function(module.f)

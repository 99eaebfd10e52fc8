"""graphcell.runtime.allocator: glibc's malloc keeps numpy's temporaries (see its docstring)."""
import subprocess
import sys

import pytest

from graphcell.runtime import allocator

CHILD = ("import graphcell as ms, numpy as np\n"
         "from graphcell.runtime import allocator\n"
         "before = allocator._done\n"
         "ms.Tensor(np.ones(2, np.float32)) + 1\n"
         "print(before, allocator._done)")


def _child(env_value=None):
    env = None
    if env_value is not None:
        import os
        env = dict(os.environ, GRAPHCELL_MALLOC_TUNING=env_value)
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's")
def test_first_op_tunes_malloc_not_the_import():
    import ctypes
    try:
        ctypes.CDLL(None).mallopt
    except AttributeError:
        pytest.skip("not glibc")
    assert _child() == ["None", "True"]


def test_opt_out():
    assert _child("0") == ["None", "False"]


def test_tune_is_idempotent():
    first = allocator.tune()
    assert allocator.tune() is first

"""Writing an exported file so that a failure leaves none: the data goes to a temporary file in
the same directory, which then replaces ``path`` in one step.

Example::

    >>> import os, tempfile
    >>> from graphcell.aot.files import write_atomically
    >>> path = os.path.join(tempfile.mkdtemp(), "out.bin")
    >>> write_atomically(path, lambda f: f.write(b"data"), ".bin-")
    >>> open(path, "rb").read()
    b'data'
"""
from __future__ import annotations

import os
import tempfile
from typing import BinaryIO, Callable


def write_atomically(path: str, write: Callable[[BinaryIO], object], prefix: str) -> None:
    """Create ``path`` (and its directory) with what ``write(file)`` writes, readable by all;
    if anything fails, no file is left, neither ``path`` nor the temporary one."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

"""``Spares``: a compiled function's retired Parameter buffers, written again by its next call.

A train step gives every updated Parameter (and optimizer state) a new array: the update kernel
writes a buffer the call owns, the Parameter takes it after the call succeeded, and the array it
held before is dropped. A fresh 4 MB array costs more than the update itself (its first touch
page-faults: W1's 1024x1024 SGD update took 0.9 ms into fresh outputs, 0.3-0.45 ms into warm
ones). So the runner *retires* each updated Parameter's incoming array into a slot of its site,
and the next call *takes* it back as that site's output buffer — a ping-pong between two buffers
per Parameter, never a write into the array the Parameter holds:

- A failed call leaves every Parameter as it was: the kernel writes only a retired array, which
  no Parameter holds (the write-back runs only after a successful call, DESIGN §2).
- A retired array is taken only when nothing else refers to it: its reference count says that
  the slot is its only holder (``sys.getrefcount``: a user's ``p.asnumpy()`` from an earlier
  step, a Tensor the step returned, a numpy view or a buffer export each add a reference, and
  then the array is dropped, not written), it owns its memory (``base is None``: a view's owner
  could be held elsewhere), it is C-ordered and writeable. So the kernel's ``noalias`` holds: no
  argument of the call can be it (the call's arguments hold references of their own).
- ``pop`` is one operation under the GIL: two threads running one executable never take the
  same array.

Cost: between calls the retired arrays keep a second copy of the updated Parameters alive (as
every call did while it ran). Example::

    >>> import numpy as np
    >>> spares = Spares()
    >>> spares.retire(0, np.zeros(4, np.float32))
    >>> spares.take(0).shape
    (4,)
    >>> spares.take(0) is None
    True
"""
from __future__ import annotations

import sys

import numpy as np

__all__ = ["Spares"]


class Spares:
    """The retired arrays of one runner, one slot per update site (see the module docstring)."""

    def __init__(self):
        self._slots: dict[int, np.ndarray] = {}

    def retire(self, key: int, array) -> None:
        """Keep ``array`` (a Parameter's incoming value at site ``key``) for the next call."""
        if array.__class__ is np.ndarray and array.base is None:
            self._slots[key] = array

    def take(self, key: int) -> np.ndarray | None:
        """The array retired at ``key`` when nothing else refers to it, else None."""
        a = self._slots.pop(key, None)
        # two references: ``a`` and getrefcount's argument
        if a is not None and sys.getrefcount(a) == 2 and a.flags.c_contiguous \
                and a.flags.writeable:
            return a
        return None

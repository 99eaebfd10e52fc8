"""Training progress: a bar per epoch on a terminal, one plain line per epoch otherwise.

``Model.train`` and ``Model.fit`` report each epoch's steps, the latest loss and the steps per
second on stderr: with a tqdm bar when stderr is a terminal (lines printed meanwhile, such as
``LossMonitor``'s, go above the bar), else with one line when the epoch ends::

    [graphcell] epoch 2/10: 1875 steps in 3.2 s (585.9 steps/s), loss 0.0512

``GRAPHCELL_PROGRESS=0`` turns both off (the same switch silences the compile progress line).
MindSpore prints neither; its own callbacks (``LossMonitor``, ``TimeMonitor``) print to stdout as
they do there.

Example::

    >>> import io
    >>> p = EpochProgress(epochs=2, stream=io.StringIO(), enabled=True, terminal=False)
    >>> p.start_epoch(1, steps=3)
    >>> for loss in (0.9, 0.7, 0.5): p.step(loss)
    >>> p.end_epoch(); p.stream.getvalue().startswith("[graphcell] epoch 1/2: 3 steps in")
    True
"""
from __future__ import annotations

import contextlib
import sys
import time

from graphcell_ir import switches

__all__ = ["EpochProgress", "progress_enabled"]


def progress_enabled() -> bool:
    """False when ``GRAPHCELL_PROGRESS=0``."""
    return switches.on("GRAPHCELL_PROGRESS")


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class EpochProgress:
    """Progress of one training call: ``start_epoch``, ``step`` per step, ``end_epoch``,
    ``close`` (also a context manager). ``enabled``/``terminal``/``stream`` default to the
    environment switch, whether stderr is a terminal, and stderr."""

    def __init__(self, epochs: int, stream=None, enabled: bool | None = None,
                 terminal: bool | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = progress_enabled() if enabled is None else enabled
        self.terminal = _is_terminal(self.stream) if terminal is None else terminal
        self.epochs = epochs
        self._bar = None
        self._redirect = None
        self._epoch = 0
        self._steps = 0
        self._loss = None
        self._start = 0.0

    def __enter__(self) -> "EpochProgress":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def start_epoch(self, epoch: int, steps: int) -> None:
        if not self.enabled:
            return
        self._epoch, self._steps, self._loss = epoch, 0, None
        self._start = time.perf_counter()
        if self.terminal:
            self._open_bar(epoch, steps)

    def step(self, loss) -> None:
        """One step done; ``loss`` is a float, or None when the output carries none."""
        if not self.enabled:
            return
        self._steps += 1
        self._loss = loss
        if self._bar is not None:
            if loss is not None:
                self._bar.set_postfix_str(f"loss={loss:.4f}", refresh=False)
            self._bar.update(1)

    def end_epoch(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._close_bar()
            return
        seconds = time.perf_counter() - self._start
        rate = self._steps / seconds if seconds > 0 else float("inf")
        loss = "" if self._loss is None else f", loss {self._loss:.4f}"
        print(f"[graphcell] epoch {self._epoch}/{self.epochs}: {self._steps} steps in "
              f"{seconds:.1f} s ({rate:.1f} steps/s){loss}", file=self.stream, flush=True)

    def close(self) -> None:
        self._close_bar()

    # --- the terminal bar (tqdm) ---------------------------------------------------------------

    def _open_bar(self, epoch: int, steps: int) -> None:
        from tqdm import tqdm
        from tqdm.contrib import DummyTqdmFile
        self._bar = tqdm(total=steps, desc=f"epoch {epoch}/{self.epochs}", unit=" steps",
                         file=self.stream, leave=True, dynamic_ncols=True,
                         bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
                                    "[{elapsed}<{remaining}, {rate_fmt}{postfix}]")
        # print() from callbacks and the network goes above the bar instead of through it
        self._redirect = contextlib.redirect_stdout(DummyTqdmFile(sys.stdout))
        self._redirect.__enter__()

    def _close_bar(self) -> None:
        if self._redirect is not None:
            redirect, self._redirect = self._redirect, None
            redirect.__exit__(None, None, None)
        if self._bar is not None:
            bar, self._bar = self._bar, None
            bar.close()

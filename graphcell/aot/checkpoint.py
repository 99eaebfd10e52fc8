"""Export with trained weights: a checkpoint loaded into the network for the time of an export.

``graphcell.export(net, x, file_name=..., ckpt_file_name="net.ckpt")`` and
``graphcell export net.py:Net --ckpt net.ckpt`` compile the network and write the checkpoint's
values as its weights, so the artifact carries what was trained, not a fresh initialisation.
The checkpoint is MindSpore's ``.ckpt`` or ``.safetensors`` (``graphcell.train.serialization``;
the suffix picks the format). Every parameter of the network must get a value from it: a
checkpoint of another network, or one saved under other names, is an error naming the missing
parameters (a silently half-loaded export is the mistake this argument exists to prevent).
Entries the network has no parameter for (an optimizer's moments, ``epoch_num``) are ignored.

The network itself is left as it was: its parameters get their own values back after the export,
whether it succeeded or not.

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> import graphcell as ms
    >>> d = tempfile.mkdtemp()
    >>> trained = ms.nn.Dense(3, 2)
    >>> ms.save_checkpoint(trained, os.path.join(d, "dense.ckpt"))
    >>> fresh = ms.nn.Dense(3, 2)
    >>> x = ms.Tensor(np.ones((1, 3), np.float32))
    >>> path = ms.export(fresh, x, file_name=os.path.join(d, "dense"),
    ...                  ckpt_file_name=os.path.join(d, "dense.ckpt"))
    >>> bool(np.allclose(ms.load(path)(x).asnumpy(), trained(x).asnumpy()))
    True
"""
from __future__ import annotations

import contextlib
import os
import warnings
from typing import Iterator

__all__ = ["checkpoint_loaded", "cell_of"]

_SHOWN = 8   # names listed in an error before "..."


@contextlib.contextmanager
def checkpoint_loaded(net, ckpt_file_name) -> Iterator[None]:
    """Within the block, ``net``'s parameters hold the values of the checkpoint
    ``ckpt_file_name`` (nothing happens when it is None); afterwards, their own again."""
    if ckpt_file_name is None:
        yield
        return
    from graphcell.train.serialization import load_checkpoint, load_param_into_net
    cell = cell_of(net)
    path = os.fspath(ckpt_file_name)
    fmt = "safetensors" if path.endswith(".safetensors") else "ckpt"
    values = {k: v for k, v in load_checkpoint(path, format=fmt).items() if not isinstance(v, str)}
    saved = [(p, p._data) for _, p in cell.parameters_and_names()]
    try:
        with warnings.catch_warnings():   # the missing names are raised below, not warned
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                not_loaded, _ = load_param_into_net(cell, values)
            except RuntimeError as e:   # a shape or dtype that does not fit: say which file
                raise ValueError(f"export: the checkpoint {path!r} does not fit "
                                 f"{type(cell).__name__}: {e}") from None
        if not_loaded:
            raise ValueError(
                f"export: the checkpoint {path!r} has no value for {len(not_loaded)} parameter(s) "
                f"of {type(cell).__name__}: {_names(not_loaded)}; it holds {_names(list(values))}. "
                "Is it a checkpoint of this network?")
        yield
    finally:
        for p, data in saved:
            p._data = data


def cell_of(net):
    """The Cell whose parameters ``net`` (a Cell, a ``@jit`` method or a bound method) uses."""
    from graphcell.nn.cell import Cell
    owner = net if isinstance(net, Cell) else getattr(net, "__self__", None)
    if not isinstance(owner, Cell):
        raise TypeError(f"export: ckpt_file_name needs a Cell (or a method of one) to load the "
                        f"checkpoint into, got {type(net).__name__}")
    return owner


def _names(names: list[str]) -> str:
    shown = ", ".join(map(repr, names[:_SHOWN]))
    return shown + (f", ... ({len(names)} in all)" if len(names) > _SHOWN else "") or "nothing"

"""Mixed precision: ``auto_mixed_precision``, ``custom_mixed_precision`` and
``build_train_network`` with MindSpore 2.10's levels (``mindspore.train.amp``, also in
``mindspore.amp``).

What each level does to a network (``dtype`` float16):

- ``"O0"``: nothing (float32);
- ``"O1"``: the cells of the white list (``get_white_list()``: convolutions, ``Dense``, the
  recurrent cells) run in float16, their outputs cast back to float32, the rest in float32;
- ``"O2"``: everything in float16 but the black list (``get_black_list()``: the BatchNorms,
  ``LayerNorm``), which runs in float32 with its output cast to float16; the network's output is
  cast to float32;
- ``"O3"``: everything in float16, the output cast to float32;
- ``"auto"``: graphcell applies ``"O1"`` (MindSpore decides op by op from lists of Primitives).

A cell "runs in float16" as ``Cell.to_float(float16)`` makes it: its float inputs and the
trainable Parameters it reads are cast (the Parameters stay float32 masters, their gradients
float32). Where MindSpore's ``"O1"`` also casts white-listed Primitives written directly in a
``construct`` (``ops.matmul``...), graphcell casts at cell granularity only.

``build_train_network(network, optimizer, loss_fn=None, level='O0', boost_level='O0',
**kwargs)`` applies the level (``kwargs``: ``cast_model_type``, ``keep_batchnorm_fp32``,
``loss_scale_manager``), adds the loss (computed in float32) and returns a
``TrainOneStepCell`` — or a ``TrainOneStepWithLossScaleCell`` when the loss scale manager has an
update cell (``"O2"``'s default ``DynamicLossScaleManager``). MindSpore 2.10's CPU build refuses
the latter; graphcell runs it.

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import amp, nn
    >>> net = amp.auto_mixed_precision(nn.Dense(3, 2), "O3")
    >>> net(ms.Tensor(np.ones((1, 3), np.float32))).dtype
    Float32
"""
from __future__ import annotations

import inspect
import warnings

from graphcell import nn, ops
from graphcell.dtype import float16, float32
from graphcell.train.loss_scale_manager import DynamicLossScaleManager, LossScaleManager

__all__ = ["auto_mixed_precision", "custom_mixed_precision", "build_train_network",
           "get_white_list", "get_black_list", "LEVELS", "BOOST_LEVELS", "check_levels",
           "casts_outputs"]

LEVELS = ("O0", "O1", "O2", "O3", "auto")
BOOST_LEVELS = ("O0", "O1", "O2")

_WHITE = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose",
          "Dense", "LSTMCell", "RNNCell", "GRUCell")
_BLACK = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm")


def _classes(names: tuple) -> list:
    """The nn classes of ``names`` that graphcell has."""
    return [getattr(nn, n) for n in names if hasattr(nn, n)]


def get_white_list() -> list:
    """The cell classes ``"O1"`` runs in float16 (a new list each call)."""
    return _classes(_WHITE)


def get_black_list() -> list:
    """The cell classes ``"O2"`` keeps in float32 (a new list each call)."""
    return _classes(_BLACK)


class _OutputTo16(nn.Cell):
    """``backbone``'s output cast to float16 (a float32 cell inside a float16 network)."""

    def __init__(self, backbone, dtype=float16):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype

    def construct(self, *args, **kwargs):
        return ops.cast(self._backbone(*args, **kwargs), self.dtype)


class _OutputTo32(nn.Cell):
    """``backbone``'s float outputs cast to float32 (``ops.mixed_precision_cast``)."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return ops.mixed_precision_cast(float32, self._backbone(*args, **kwargs))


def _replace(network, classes: tuple, wrap) -> bool:
    """Replace, below ``network``, every sub-cell of ``classes`` by ``wrap(sub-cell)``."""
    changed = False
    for name, sub in list(network._cells.items()):
        if sub is None or sub is network:
            continue
        if isinstance(sub, classes):
            network._cells[name] = wrap(sub)
            changed = True
        else:
            changed = _replace(sub, classes, wrap) or changed
    return changed


def _white_list_o1(network, white_list: list, dtype):
    if isinstance(network, tuple(white_list)):
        return _OutputTo32(network.to_float(dtype))
    _replace(network, tuple(white_list), lambda c: _OutputTo32(c.to_float(dtype)))
    return network


def _black_list_o2(network, black_list: list, dtype):
    network.to_float(dtype)
    _replace(network, tuple(black_list), lambda c: _OutputTo16(c.to_float(float32), dtype))
    return _OutputTo32(network)


def _check_dtype(dtype) -> None:
    if dtype != float16:
        raise ValueError(f"the mixed-precision dtype must be float16 (graphcell has no bfloat16), "
                         f"got {dtype!r}")


def auto_mixed_precision(network, amp_level="O0", dtype=float16):
    """Give ``network`` the precision of ``amp_level`` (see the module docstring) and return it
    (wrapped when its output is cast).

    Example::

        >>> from graphcell import amp, nn
        >>> net = nn.SequentialCell([nn.Dense(3, 4), nn.BatchNorm1d(4)])
        >>> net = amp.auto_mixed_precision(net, "O2")
        >>> type(net).__name__, type(net._backbone[1]).__name__
        ('_OutputTo32', '_OutputTo16')
    """
    if amp_level not in LEVELS:
        raise ValueError(f"auto_mixed_precision: 'amp_level' must be one of {list(LEVELS)}, got "
                         f"{amp_level!r}")
    if not isinstance(network, nn.Cell):
        kind = "a function" if inspect.isfunction(network) or inspect.ismethod(network) else \
            type(network).__name__
        raise TypeError(f"auto_mixed_precision: the network must be a Cell, got {kind} (graphcell "
                        "applies mixed precision to cells)")
    _check_dtype(dtype)
    if amp_level == "O0":
        return network
    previous = getattr(network, "_amp_level", None)
    if previous in ("O1", "O2", "O3", "auto"):
        warnings.warn(f"auto_mixed_precision: the network's level changes from {previous} to "
                      f"{amp_level}; applying mixed precision twice stacks the casts",
                      UserWarning, stacklevel=2)
    if amp_level in ("O1", "auto"):
        network = _white_list_o1(network, get_white_list(), dtype)
    elif amp_level == "O2":
        network = _black_list_o2(network, get_black_list(), dtype)
    else:
        network = _OutputTo32(network.to_float(dtype))
    network._amp_level = amp_level
    return network


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=float16):
    """Mixed precision from your own lists of cell classes: exactly one of ``white_list`` (those
    cells in float16, as ``"O1"``) and ``black_list`` (everything else in float16, as
    ``"O2"``)."""
    if not isinstance(network, nn.Cell):
        raise TypeError(f"custom_mixed_precision: the network must be a Cell, got "
                        f"{type(network).__name__}")
    if (white_list is None) == (black_list is None):
        raise ValueError("custom_mixed_precision: give exactly one of 'white_list' and "
                         "'black_list'")
    _check_dtype(dtype)
    given, which = (white_list, "white_list") if white_list is not None else (black_list,
                                                                              "black_list")
    if not isinstance(given, list) or not all(isinstance(c, type) and issubclass(c, nn.Cell)
                                              for c in given):
        raise TypeError(f"custom_mixed_precision: '{which}' must be a list of Cell classes, got "
                        f"{given!r}")
    if white_list is not None:
        return _white_list_o1(network, white_list, dtype)
    return _black_list_o2(network, black_list, dtype)


# --- build_train_network ---------------------------------------------------------------------

_CONFIGS = {
    "O0": dict(keep_batchnorm_fp32=False, cast_model_type=float32, loss_scale_manager=None),
    "O1": dict(keep_batchnorm_fp32=False, cast_model_type=float32, loss_scale_manager=None),
    "O2": dict(keep_batchnorm_fp32=True, cast_model_type=float16, loss_scale_manager="dynamic"),
    "O3": dict(keep_batchnorm_fp32=False, cast_model_type=float16, loss_scale_manager=None),
    "auto": dict(keep_batchnorm_fp32=False, cast_model_type=float32, loss_scale_manager=None),
}
_OPTIONS = ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager")


def check_levels(level, boost_level, where: str) -> None:
    """``level`` and ``boost_level`` are MindSpore's."""
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(f"{where}: 'amp_level' must be one of {list(LEVELS)}, got {level!r}")
    if not isinstance(boost_level, str) or boost_level not in BOOST_LEVELS:
        raise ValueError(f"{where}: 'boost_level' must be one of {list(BOOST_LEVELS)}, got "
                         f"{boost_level!r}")


def casts_outputs(level: str) -> bool:
    """Whether ``Model``'s evaluation network casts float16 outputs to float32 (MindSpore: O2,
    O3, auto)."""
    return level in ("O2", "O3", "auto")


def _check_options(kwargs: dict, where: str) -> None:
    unknown = sorted(set(kwargs) - set(_OPTIONS))
    if unknown:
        raise ValueError(f"{where}: unknown options {unknown}; expected some of {list(_OPTIONS)}")
    if "cast_model_type" in kwargs and kwargs["cast_model_type"] not in (float16, float32):
        raise TypeError(f"{where}: 'cast_model_type' must be float16 or float32, got "
                        f"{kwargs['cast_model_type']!r}")
    if "keep_batchnorm_fp32" in kwargs and not isinstance(kwargs["keep_batchnorm_fp32"], bool):
        raise TypeError(f"{where}: 'keep_batchnorm_fp32' must be a bool, got "
                        f"{kwargs['keep_batchnorm_fp32']!r}")
    manager = kwargs.get("loss_scale_manager")
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise TypeError(f"{where}: 'loss_scale_manager' must be a LossScaleManager, got "
                        f"{type(manager).__name__}")


def _keep_batchnorm_fp32(network) -> None:
    _replace(network, tuple(get_black_list()), lambda c: _OutputTo16(c.to_float(float32)))


def _apply_level(network, config: dict, level: str):
    """MindSpore's order of decisions (``_auto_mixed_precision_process``)."""
    if config["cast_model_type"] is float16:
        network.to_float(float16)
        if config["keep_batchnorm_fp32"]:
            _keep_batchnorm_fp32(network)
        return network
    if not config["keep_batchnorm_fp32"] and level == "O2":
        return network.to_float(float16)
    if level in ("O2", "O3"):   # cast_model_type=float32 asked for: no mixed precision
        return network
    return auto_mixed_precision(network, level)


class _WithLossCell(nn.Cell):
    """``loss_fn(network(data), label)`` with the output and the label cast to float32."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        label = ops.mixed_precision_cast(float32, label)
        return self._loss_fn(ops.mixed_precision_cast(float32, out), label)


def _add_loss(network, loss_fn, cast_model_type):
    if not isinstance(loss_fn, nn.Cell):
        raise TypeError(f"build_train_network: 'loss_fn' must be a Cell, got "
                        f"{type(loss_fn).__name__}")
    if cast_model_type is float16 or getattr(network, "_amp_level", None) in ("O2", "O3",
                                                                              "auto"):
        return _WithLossCell(network, loss_fn)
    return nn.WithLossCell(network, loss_fn)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """The training network of ``level`` (see the module docstring), in training mode.

    Example::

        >>> from graphcell import amp, nn
        >>> net = nn.Dense(3, 2)
        >>> step = amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.1, 0.9),
        ...                                nn.MSELoss(), level="O2")
        >>> type(step).__name__, float(step.scale_sense)
        ('TrainOneStepWithLossScaleCell', 16777216.0)
    """
    where = "build_train_network"
    if not isinstance(optimizer, nn.Optimizer):
        raise TypeError(f"{where}: 'optimizer' must be an nn.Optimizer, got "
                        f"{type(optimizer).__name__}")
    check_levels(level, boost_level, where)
    _check_options(kwargs, where)
    if boost_level != "O0":
        warnings.warn(f"{where}: boost_level={boost_level!r} has no effect in graphcell (it has "
                      "none of MindSpore's boost algorithms)", UserWarning, stacklevel=2)
    config = dict(_CONFIGS[level], **kwargs)
    if config["loss_scale_manager"] == "dynamic":
        config["loss_scale_manager"] = DynamicLossScaleManager()
    network = _apply_level(network, config, level)
    if loss_fn is not None:
        network = _add_loss(network, loss_fn, config["cast_model_type"])
    manager = config["loss_scale_manager"]
    sens = None
    if manager is not None:
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return nn.TrainOneStepWithLossScaleCell(network, optimizer,
                                                    scale_sense=update_cell).set_train()
        sens = float(manager.get_loss_scale())
    return nn.TrainOneStepCell(network, optimizer, sens).set_train()

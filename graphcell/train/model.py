"""``Model``: MindSpore's high-level training API — ``train``, ``eval``, ``predict``, ``fit``.

``Model(network, loss_fn, optimizer, metrics)`` builds the networks MindSpore builds: the training
network ``TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)`` (with ``amp_level``, what
``amp.build_train_network`` builds), the evaluation network ``WithEvalCell(network, loss_fn)``
(when ``metrics`` are given and no ``eval_network``), and ``network`` itself for prediction. Each step calls one of them
like any cell, so the context decides how it runs: in ``GRAPH_MODE`` the whole training step —
forward, gradients and the optimizer's update — is one compiled function (compiled at the first
step, then reused), in ``PYNATIVE_MODE`` it runs op by op, as in MindSpore.

Datasets are ``mindspore.dataset`` objects: ``get_dataset_size()`` and
``create_tuple_iterator(num_epochs=...)`` are what Model uses (one iterator for all epochs of a
call, each ``for`` over it one epoch). ``dataset_sink_mode=True`` is accepted and runs as normal
mode, with ``sink_size > 0`` meaning ``sink_size`` steps per epoch drawn from a continuing pass
over the data. A progress bar shows on a terminal (``progress.py``; ``GRAPHCELL_PROGRESS=0`` turns
it off).

Example::

    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> from graphcell.train import Model
    >>> class Pairs:                      # the dataset protocol Model reads
    ...     def __init__(self, x, y, batch): self.x, self.y, self.batch = x, y, batch
    ...     def get_dataset_size(self): return len(self.x) // self.batch
    ...     def create_tuple_iterator(self, num_epochs=-1, output_numpy=False):
    ...         return _Epochs(self)
    >>> class _Epochs:
    ...     def __init__(self, ds): self.ds = ds
    ...     def __iter__(self):
    ...         b = self.ds.batch
    ...         return iter([[ms.Tensor(self.ds.x[i:i + b]), ms.Tensor(self.ds.y[i:i + b])]
    ...                      for i in range(0, len(self.ds.x), b)])
    >>> x = np.random.default_rng(0).standard_normal((32, 4)).astype(np.float32)
    >>> y = (x.sum(axis=1) > 0).astype(np.int32)
    >>> net = nn.Dense(4, 2)
    >>> model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'),
    ...               nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={'acc'})
    >>> model.train(20, Pairs(x, y, 8))
    >>> model.eval(Pairs(x, y, 8))['acc'] > 0.9
    True
"""
from __future__ import annotations

import itertools
import numbers
import warnings

import numpy as np

from graphcell.tensor import Tensor
from graphcell.train import amp as _amp
from graphcell.train.callback._callback import (CallbackList, InternalCallbackParam, RunContext,
                                                as_callback_list, old_style_methods)
from graphcell.train.callback._time_monitor import TimeMonitor
from graphcell.train.metrics import Loss, get_metrics
from graphcell.train.progress import EpochProgress

__all__ = ["Model"]

_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "acc_level")


class Model:
    """``Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
    eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs)``; see the module docstring.

    ``loss_fn``: a loss cell; with it each dataset element must be ``(data, label)``. Without it,
    ``network`` computes its own loss from all the element's columns (with an optimizer), or is
    run as it is. ``metrics``: a set of names (``{'acc', 'loss'}``, see
    ``graphcell.train.names()``) or a dict of name to Metric. ``eval_network`` replaces the built
    evaluation network; ``eval_indexes`` ``[loss, prediction, label]`` says which of its outputs the
    metrics read. ``kwargs``: ``loss_scale_manager``, ``keep_batchnorm_fp32``,
    ``boost_config_dict``, ``acc_level``. ``boost_level`` is accepted and has no effect (graphcell
    has none of MindSpore's boost algorithms).
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs):
        from graphcell.nn import Cell, GraphCell, Optimizer
        if not isinstance(network, Cell):
            raise TypeError(f"Model: 'network' must be a Cell, got {type(network).__name__}")
        unknown = sorted(set(kwargs) - set(_KWARGS))
        if unknown:
            raise ValueError(f"Model: unknown keyword arguments {unknown}; Model takes "
                             f"{list(_KWARGS)}")
        boost_level = kwargs.get("acc_level", boost_level)
        _amp.check_levels(amp_level, boost_level, "Model")
        for value, name, kind in ((loss_fn, "loss_fn", Cell), (optimizer, "optimizer", Optimizer),
                                  (eval_network, "eval_network", Cell)):
            if value is not None and not isinstance(value, kind):
                raise TypeError(f"Model: '{name}' must be a {kind.__name__} or None, got "
                                f"{type(value).__name__}")
        if optimizer is None and amp_level != "O0":
            raise ValueError(f"Model: amp_level={amp_level!r} needs an optimizer (mixed precision "
                             "applies to training); pass one, or amp_level='O0'")
        if isinstance(network, GraphCell) and (loss_fn is not None or optimizer is not None
                                               or kwargs):
            raise ValueError("Model: with a GraphCell network, 'loss_fn', 'optimizer' and the "
                             "keyword arguments must be left out (a loaded graph is run as it is)")
        if boost_level != "O0":
            warnings.warn(f"Model: boost_level={boost_level!r} has no effect in graphcell",
                          UserWarning, stacklevel=2)
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._amp_level = amp_level
        self._boost_level = boost_level
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._keep_bn_fp32 = kwargs.get("keep_batchnorm_fp32")
        self._metric_fns = get_metrics(metrics)
        self._eval_indexes = None
        self._eval_network = eval_network
        self._build_eval_network(eval_network, eval_indexes)
        self._train_network = self._build_train_network()
        self._predict_network = network
        self._backbone_is_train = True
        self.batch_num = -1

    # --- the networks --------------------------------------------------------------------------

    def _build_train_network(self):
        from graphcell.nn import WithLossCell
        if self._optimizer is not None:
            options = {k: v for k, v in (("loss_scale_manager", self._loss_scale_manager),
                                         ("keep_batchnorm_fp32", self._keep_bn_fp32))
                       if v is not None}
            # boost_level: Model has already said it has no effect
            return _amp.build_train_network(self._network, self._optimizer, self._loss_fn,
                                            self._amp_level, "O0", **options)
        if self._loss_fn is not None:
            return WithLossCell(self._network, self._loss_fn)
        return self._network

    def _build_eval_network(self, eval_network, eval_indexes) -> None:
        from graphcell.nn import WithEvalCell
        if not self._metric_fns:
            return
        if eval_network is not None:
            if eval_indexes is not None and not (
                    isinstance(eval_indexes, list) and len(eval_indexes) == 3
                    and all(isinstance(i, int) and not isinstance(i, bool) for i in eval_indexes)):
                raise ValueError("Model: 'eval_indexes' must be None or a list of three ints "
                                 f"(loss, prediction, label), got {eval_indexes!r}")
            self._eval_indexes = eval_indexes
            return
        if self._loss_fn is None:
            raise ValueError("Model: 'metrics' need an evaluation network: pass 'eval_network', "
                             "or 'loss_fn' (then Model evaluates WithEvalCell(network, loss_fn) "
                             "on (data, label) elements)")
        self._eval_network = WithEvalCell(self._network, self._loss_fn,
                                          _amp.casts_outputs(self._amp_level))
        self._eval_indexes = [0, 1, 2]

    @property
    def train_network(self):
        """The network a training step calls (``TrainOneStepCell`` when there is an optimizer)."""
        return self._train_network

    @property
    def predict_network(self):
        """The network ``predict`` calls: the user's network."""
        return self._predict_network

    @property
    def eval_network(self):
        """The network ``eval`` calls (``WithEvalCell`` unless given; None without metrics)."""
        return self._eval_network

    def _check_network_mode(self, network, is_train: bool) -> None:
        """Switch the backbone between training and inference when the phase changes."""
        if self._backbone_is_train != is_train:
            network.set_train(is_train)
            self._backbone_is_train = is_train
        if not is_train:
            network.set_grad(False)

    # --- train and fit -------------------------------------------------------------------------

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0):
        """Train for epochs ``initial_epoch + 1 .. epoch`` over ``train_dataset``.

        Callbacks see MindSpore's run context (``graphcell.train.RunContext``) at each step and
        epoch; a callback may stop training with ``run_context.request_stop()``.
        """
        sink_size = self._check_train_args("Model.train", epoch, train_dataset, dataset_sink_mode,
                                           sink_size, initial_epoch)
        callbacks = as_callback_list(callbacks, "Model.train")
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch,
                    valid=None)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1,
            initial_epoch=0):
        """``train`` that also evaluates ``valid_dataset`` after the epochs ``valid_frequency``
        selects (an int: every that many epochs; a list: those epochs), before the epoch's
        ``on_train_epoch_end``. The results reach the callbacks as ``metrics`` and
        ``eval_results`` (the metrics plus ``eval_loss``). Evaluation runs the user's own
        callbacks and ``TimeMonitor``, not graphcell's other built-in ones."""
        sink_size = self._check_train_args("Model.fit", epoch, train_dataset, dataset_sink_mode,
                                           sink_size, initial_epoch)
        _check_bool(valid_dataset_sink_mode, "valid_dataset_sink_mode", "Model.fit")
        if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, (int, list)):
            raise TypeError(f"Model.fit: 'valid_frequency' must be an int or a list of epochs, "
                            f"got {type(valid_frequency).__name__}")
        if isinstance(valid_frequency, int) and valid_frequency <= 0:
            raise ValueError(f"Model.fit: 'valid_frequency' must be positive, got "
                             f"{valid_frequency}")
        if valid_dataset is not None:
            if not self._metric_fns:
                raise ValueError("Model.fit: a 'valid_dataset' needs Model(metrics=...) to "
                                 "evaluate")
            _check_dataset(valid_dataset, "valid_dataset", "Model.fit")
        callbacks = as_callback_list(callbacks, "Model.fit")
        for cb in callbacks:
            old = old_style_methods(cb)
            if old:
                raise ValueError(f"Model.fit: callback {type(cb).__name__} defines "
                                 f"{sorted(old)}, MindSpore 1.x's names, which fit does not "
                                 "call; define the on_train_*/on_eval_* methods instead")
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch,
                    valid=(valid_dataset, valid_frequency) if valid_dataset is not None else None)

    def _check_train_args(self, where, epoch, dataset, sink_mode, sink_size, initial_epoch) -> int:
        _check_bool(sink_mode, "dataset_sink_mode", where)
        _check_int(sink_size, "sink_size", where)
        _check_int(epoch, "epoch", where)
        _check_int(initial_epoch, "initial_epoch", where)
        if epoch <= 0:
            raise ValueError(f"{where}: 'epoch' must be positive, got {epoch}")
        if initial_epoch < 0 or initial_epoch >= epoch:
            raise ValueError(f"{where}: 'initial_epoch' must be in [0, epoch), got "
                             f"{initial_epoch} with epoch={epoch}")
        size = _check_dataset(dataset, "train_dataset", where)
        if size == 0:
            raise ValueError(f"{where}: the dataset is empty (get_dataset_size() is 0)")
        if sink_size == -1:
            return size
        if sink_size <= 0:
            raise ValueError(f"{where}: 'sink_size' must be -1 or positive, got {sink_size}")
        return sink_size

    def _train(self, epoch, dataset, callbacks, sink_mode, sink_size, initial_epoch, valid):
        cb = InternalCallbackParam()
        cb.cur_step_num = 0
        cb.train_network = self._train_network
        cb.epoch_num = epoch - initial_epoch
        cb.batch_num = sink_size if sink_mode else dataset.get_dataset_size()
        self.batch_num = cb.batch_num
        cb.mode = "train"
        cb.loss_fn = self._loss_fn
        cb.optimizer = self._optimizer
        cb.parallel_mode = "stand_alone"
        cb.device_number = 1
        cb.train_dataset = dataset
        cb.list_callback = callbacks
        cb.train_dataset_element = None
        cb.network = self._network
        cb.last_save_ckpt_step = None
        cb.latest_ckpt_file = None
        cb.loss_scale_mananger = self._loss_scale_manager  # (sic) MindSpore's field name
        cb.initial_step = None
        cb.dataset_sink_mode = False  # sink mode runs as normal mode, as on MindSpore's CPU
        epochs = _epochs(dataset, epoch - initial_epoch, sink_size if sink_mode else None,
                         "Model.train")
        run_context = RunContext(cb)
        network = self._train_network
        network.set_train(True)
        network.phase = "train"
        self._backbone_is_train = True
        with CallbackList(callbacks) as cbs, EpochProgress(epochs=epoch) as progress:
            cbs.call("on_train_begin", run_context)
            for cur_epoch, elements in zip(range(initial_epoch + 1, epoch + 1), epochs):
                cb.cur_epoch_num = cur_epoch
                cbs.call("on_train_epoch_begin", run_context)
                progress.start_epoch(cur_epoch, cb.batch_num)
                for element in elements:
                    element = _as_tuple(element)
                    if self._loss_fn is not None and len(element) != 2:
                        raise ValueError(f"Model.train: with a loss_fn each dataset element must "
                                         f"be (data, label), got {len(element)} columns")
                    cb.cur_step_num += 1
                    cb.train_dataset_element = element
                    cbs.call("on_train_step_begin", run_context)
                    self._check_network_mode(network, True)
                    outputs = network(*element)
                    cb.net_outputs = outputs
                    cbs.call("on_train_step_end", run_context)
                    if progress.enabled:
                        progress.step(_scalar_loss(outputs))
                    if run_context.get_stop_requested():
                        break
                progress.end_epoch()
                if valid is not None and _should_eval(cur_epoch, valid[1]):
                    self._eval_during_train(valid[0], cb, cbs)
                cbs.call("on_train_epoch_end", run_context)
                cb.pop("metrics", None)
                cb.pop("eval_results", None)
                if run_context.get_stop_requested():
                    break
            cbs.call("on_train_end", run_context)

    def _eval_during_train(self, valid_dataset, cb, cbs) -> None:
        """Evaluate inside ``fit``, then put the training fields back."""
        saved = {k: cb[k] for k in ("cur_step_num", "batch_num", "dataset_sink_mode",
                                    "net_outputs", "mode")}
        eval_callbacks = [c for c in cbs.callbacks
                          if isinstance(c, TimeMonitor) or not _is_builtin(c)]
        cb.eval_network = self._eval_network
        cb.valid_dataset = valid_dataset
        cb.batch_num = valid_dataset.get_dataset_size()
        cb.mode = "eval"
        cb.cur_step_num = 0
        self._clear_metrics()
        with CallbackList(eval_callbacks) as eval_cbs:
            self._eval_process(valid_dataset, eval_cbs, cb, add_eval_loss=True)
        cb.update(saved)

    # --- eval and predict ------------------------------------------------------------------------

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Run the evaluation network over ``valid_dataset``; returns ``{metric name: value}``."""
        _check_bool(dataset_sink_mode, "dataset_sink_mode", "Model.eval")
        if not self._metric_fns:
            raise ValueError("Model.eval: Model(metrics=...) is empty; give the metrics to "
                             "evaluate (e.g. metrics={'acc'})")
        _check_dataset(valid_dataset, "valid_dataset", "Model.eval")
        callbacks = as_callback_list(callbacks, "Model.eval")
        cb = InternalCallbackParam()
        cb.eval_network = self._eval_network
        cb.valid_dataset = valid_dataset
        cb.batch_num = valid_dataset.get_dataset_size()
        cb.mode = "eval"
        cb.cur_step_num = 0
        cb.list_callback = callbacks
        cb.network = self._network
        self._clear_metrics()
        with CallbackList(callbacks) as cbs:
            return self._eval_process(valid_dataset, cbs, cb)

    def _eval_process(self, valid_dataset, cbs, cb, add_eval_loss=False) -> dict:
        run_context = RunContext(cb)
        cb.dataset_sink_mode = False
        cbs.call("on_eval_begin", run_context)
        iterator = valid_dataset.create_tuple_iterator(num_epochs=1)
        network = self._eval_network
        network.set_train(False)
        network.phase = "eval"
        self._backbone_is_train = False
        eval_loss = Loss() if add_eval_loss and self._eval_indexes is not None else None
        cbs.call("on_eval_epoch_begin", run_context)
        for element in iterator:
            cb.cur_step_num += 1
            element = _as_tuple(element)
            cb.eval_dataset_element = element
            cbs.call("on_eval_step_begin", run_context)
            self._check_network_mode(network, False)
            outputs = network(*element)
            cb.net_outputs = outputs
            cbs.call("on_eval_step_end", run_context)
            self._update_metrics(outputs)
            if eval_loss is not None:
                eval_loss.update(outputs[self._eval_indexes[0]])
            if run_context.get_stop_requested():
                break
        cbs.call("on_eval_epoch_end", run_context)
        metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
        cb.metrics = metrics
        if add_eval_loss:
            cb.eval_results = dict(metrics)
            if eval_loss is not None and eval_loss._total_num:
                cb.eval_results["eval_loss"] = eval_loss.eval()
        cbs.call("on_eval_end", run_context)
        return metrics

    def _clear_metrics(self) -> None:
        for metric in self._metric_fns.values():
            metric.clear()

    def _update_metrics(self, outputs) -> None:
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, tuple):
            raise ValueError(f"Model.eval: the evaluation network must return a Tensor or a "
                             f"tuple, got {type(outputs).__name__}")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"Model.eval: eval_indexes {self._eval_indexes} need an evaluation "
                             f"network returning (loss, prediction, label), got {len(outputs)} "
                             "outputs")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    def predict(self, *predict_data, backend=None, config=None):
        """``network(*predict_data)`` in inference mode (``set_train(False)``), compiled in
        GRAPH_MODE. ``backend='lite'`` (MindSpore Lite) is accepted and runs the same way."""
        if backend not in (None, "lite"):
            raise ValueError(f"Model.predict: 'backend' must be None or 'lite', got {backend!r}")
        for i, item in enumerate(predict_data):
            if isinstance(item, Tensor) and item.size == 0:
                raise ValueError(f"Model.predict: input {i} is an empty Tensor")
            if isinstance(item, np.ndarray):
                raise TypeError(f"Model.predict: input {i} is a numpy array; pass "
                                "graphcell.Tensor(array)")
        self._check_network_mode(self._predict_network, False)
        result = self._predict_network(*predict_data)
        if result is None:
            raise ValueError("Model.predict: the network returned None")
        return result


# --- helpers -------------------------------------------------------------------------------------

def _check_bool(value, name: str, where: str) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{where}: '{name}' must be a bool, got {type(value).__name__} {value!r}")


def _check_int(value, name: str, where: str) -> None:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{where}: '{name}' must be an int, got {type(value).__name__} {value!r}")


def _check_dataset(dataset, name: str, where: str) -> int:
    """The dataset's size; a TypeError unless it follows MindSpore's dataset protocol."""
    missing = [m for m in ("get_dataset_size", "create_tuple_iterator")
               if not callable(getattr(dataset, m, None))]
    if missing:
        raise TypeError(f"{where}: '{name}' must be a mindspore.dataset Dataset (with "
                        f"get_dataset_size() and create_tuple_iterator()), got "
                        f"{type(dataset).__name__} without {', '.join(missing)}")
    size = dataset.get_dataset_size()
    if not isinstance(size, numbers.Integral) or size < 0:
        raise ValueError(f"{where}: {name}.get_dataset_size() must give a non-negative int, got "
                         f"{size!r}")
    return int(size)


def _epochs(dataset, count: int, sink_size: int | None, where: str):
    """``count`` iterables, one per epoch. Normal mode: the passes of one iterator made for
    ``count`` epochs. Sink mode with ``sink_size``: ``sink_size`` elements each, from one stream
    that starts the data again whenever a pass ends."""
    if sink_size is None:
        iterator = dataset.create_tuple_iterator(num_epochs=count)
        for _ in range(count):
            yield _one_pass(iterator, where)
        return
    stream = _stream(dataset.create_tuple_iterator(num_epochs=-1), where)
    for _ in range(count):
        yield itertools.islice(stream, sink_size)


def _one_pass(iterator, where: str):
    """One epoch of ``iterator``; an epoch without data is an error (a dataset whose iterator
    cannot start another pass)."""
    empty = True
    for element in iterator:
        empty = False
        yield element
    if empty:
        raise RuntimeError(f"{where}: the dataset's iterator gave no data for this epoch (it must "
                           "give one pass per epoch, as create_tuple_iterator's iterators do)")


def _stream(iterator, where: str):
    while True:
        yield from _one_pass(iterator, where)


def _as_tuple(element) -> tuple:
    if isinstance(element, Tensor):
        return (element,)
    return tuple(element)


def _scalar_loss(outputs) -> float | None:
    """The step's loss for the progress bar: a Tensor output's mean, or a tuple's first item's."""
    if isinstance(outputs, (tuple, list)) and outputs:
        outputs = outputs[0]
    if isinstance(outputs, Tensor):
        return float(np.mean(outputs.asnumpy()))
    return None


def _should_eval(epoch: int, frequency) -> bool:
    return epoch % frequency == 0 if isinstance(frequency, int) else epoch in frequency


def _is_builtin(callback) -> bool:
    return type(callback).__module__.startswith("graphcell.train.callback")

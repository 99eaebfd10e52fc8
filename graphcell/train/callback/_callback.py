"""``Callback``, ``RunContext`` and the machinery ``Model`` drives them with.

A callback is an object with one method per point of the training or evaluation loop. Model calls
them through :class:`CallbackList` in the order the user gave them, each with the same
:class:`RunContext`; ``run_context.original_args()`` is the loop's state, a dict whose keys are also
attributes (``cb_params.cur_step_num``), with MindSpore's names (see :class:`RunContext`).

The ``on_train_*`` and ``on_eval_*`` methods call the old names (``begin``, ``epoch_begin``,
``step_begin``, ``step_end``, ``epoch_end``, ``end``) by default, as MindSpore's do, so a callback
written against either generation works.

Example::

    >>> from graphcell.train import Callback, RunContext
    >>> class Steps(Callback):
    ...     def on_train_step_end(self, run_context):
    ...         print("step", run_context.original_args().cur_step_num)
    >>> Steps().on_train_step_end(RunContext(InternalCallbackParam(cur_step_num=3)))
    step 3
"""
from __future__ import annotations

from collections.abc import Iterable
from contextlib import ExitStack

__all__ = ["Callback", "RunContext", "InternalCallbackParam", "CallbackList", "as_callback_list"]

_OLD_NAMES = frozenset({"begin", "end", "epoch_begin", "epoch_end", "step_begin", "step_end"})
HOOKS = ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
         "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin",
         "on_eval_step_begin", "on_eval_step_end", "on_eval_epoch_end", "on_eval_end")
"""The methods Model calls, in the order a training run with one evaluation meets them."""


class Callback:
    """Base class of the training and evaluation callbacks; override the methods you need.

    ``on_train_begin``/``on_train_epoch_begin``/``on_train_step_begin``/``on_train_step_end``/
    ``on_train_epoch_end``/``on_train_end`` and their ``on_eval_*`` twins each take the
    ``RunContext``; by default they call ``begin``/``epoch_begin``/``step_begin``/``step_end``/
    ``epoch_end``/``end`` (MindSpore 1.x's names, still honoured by ``Model.train`` and
    ``Model.eval``; ``Model.fit`` refuses user callbacks that define them). A callback is also a
    context manager: Model enters every callback before the loop and exits it after.

    Example::

        >>> from graphcell.train import Callback
        >>> class StopAfter(Callback):
        ...     def __init__(self, steps):
        ...         self.steps = steps
        ...     def on_train_step_end(self, run_context):
        ...         if run_context.original_args().cur_step_num >= self.steps:
        ...             run_context.request_stop()
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return None

    # MindSpore 1.x's names: called for both training and evaluation
    def begin(self, run_context):
        """Once before training or evaluation (1.x name)."""

    def epoch_begin(self, run_context):
        """Before each epoch (1.x name)."""

    def epoch_end(self, run_context):
        """After each epoch (1.x name)."""

    def step_begin(self, run_context):
        """Before each step (1.x name)."""

    def step_end(self, run_context):
        """After each step (1.x name)."""

    def end(self, run_context):
        """Once after training or evaluation (1.x name)."""

    # MindSpore 2.x's names
    def on_train_begin(self, run_context):
        """Once before training."""
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        """Before each training epoch."""
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        """After each training epoch (after the epoch's evaluation in ``Model.fit``)."""
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        """Before each training step."""
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        """After each training step; ``net_outputs`` holds the step's output (the loss)."""
        self.step_end(run_context)

    def on_train_end(self, run_context):
        """Once after training."""
        self.end(run_context)

    def on_eval_begin(self, run_context):
        """Once before evaluation."""
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        """Before the evaluation pass over the dataset."""
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        """After the evaluation pass over the dataset."""
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        """Before each evaluation step."""
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        """After each evaluation step; ``net_outputs`` holds the eval network's output."""
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        """Once after evaluation; ``metrics`` holds the results."""
        self.end(run_context)


class InternalCallbackParam(dict):
    """The loop's state: a dict whose keys are also attributes (``cb_params.cur_epoch_num``).

    Example::

        >>> p = InternalCallbackParam(mode="train")
        >>> p.cur_step_num = 1
        >>> p.mode, p["cur_step_num"]
        ('train', 1)
    """

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"the run context has no field {key!r} now (it has: "
                                 f"{', '.join(sorted(self))})") from None

    def __setattr__(self, key, value):
        self[key] = value


class RunContext:
    """What a callback receives: ``original_args()`` (the loop's state) and ``request_stop()``.

    The fields, as MindSpore names them. Training: ``train_network`` (the network the step runs:
    ``TrainOneStepCell`` when Model has an optimizer), ``network`` (the user's network),
    ``epoch_num`` (epochs of this call), ``batch_num`` (steps per epoch), ``cur_epoch_num``
    (1-based), ``cur_step_num`` (steps so far in this call), ``net_outputs`` (the step's output),
    ``train_dataset``, ``train_dataset_element`` (the step's inputs), ``loss_fn``, ``optimizer``,
    ``list_callback``, ``mode`` (``"train"``/``"eval"``), ``dataset_sink_mode``,
    ``parallel_mode``, ``device_number``, ``last_save_ckpt_step``, ``latest_ckpt_file``,
    ``initial_step``, ``loss_scale_mananger`` (MindSpore's spelling). Evaluation adds
    ``eval_network``, ``valid_dataset``, ``eval_dataset_element`` and, at the end, ``metrics``
    (and in ``Model.fit`` also ``eval_results``: the metrics plus ``eval_loss``).

    Example::

        >>> from graphcell.train import RunContext
        >>> rc = RunContext({"cur_step_num": 2})
        >>> rc.request_stop(); rc.get_stop_requested()
        True
    """

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"RunContext: original_args must be a dict, got "
                            f"{type(original_args).__name__}")
        if not isinstance(original_args, InternalCallbackParam):
            original_args = InternalCallbackParam(original_args)
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self) -> InternalCallbackParam:
        """The loop's state (see the class docstring for its fields)."""
        return self._original_args

    def request_stop(self) -> None:
        """Ask the loop to stop: training stops after this step (or this epoch, when asked at
        the epoch's end); evaluation stops after this step."""
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        """Whether a callback asked to stop."""
        return self._stop_requested


class CallbackList:
    """Calls a list of callbacks in order; a context manager that enters and exits each."""

    def __init__(self, callbacks: list[Callback]):
        self.callbacks = list(callbacks)
        self._stack: ExitStack | None = None

    def __enter__(self) -> "CallbackList":
        self._stack = ExitStack().__enter__()
        entered = []
        for cb in self.callbacks:
            target = self._stack.enter_context(cb)
            entered.append(target if isinstance(target, Callback) else cb)
        self.callbacks = entered
        return self

    def __exit__(self, *exc_info):
        stack, self._stack = self._stack, None
        return stack.__exit__(*exc_info) if stack is not None else None

    def call(self, hook: str, run_context: RunContext) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(run_context)


def as_callback_list(callbacks, where: str) -> list[Callback]:
    """``callbacks`` (None, a Callback, or an iterable of them) as a list; anything else is a
    TypeError naming ``where`` and the offending item."""
    if callbacks is None:
        return []
    if isinstance(callbacks, Callback):
        return [callbacks]
    if not isinstance(callbacks, Iterable) or isinstance(callbacks, (str, bytes, dict)):
        raise TypeError(f"{where}: 'callbacks' must be a Callback or a list of Callbacks, got "
                        f"{type(callbacks).__name__}")
    items = list(callbacks)
    for i, cb in enumerate(items):
        if not isinstance(cb, Callback):
            raise TypeError(f"{where}: 'callbacks' must hold Callback objects (subclasses of "
                            f"graphcell.train.Callback), got {type(cb).__name__} at index {i}")
    return items


def old_style_methods(cb: Callback) -> set[str]:
    """The MindSpore 1.x method names a user's callback class defines itself (graphcell's own
    callbacks are exempt, as MindSpore exempts its own)."""
    if type(cb).__module__.startswith(__name__.rsplit(".", 1)[0]):
        return set()
    return set(vars(type(cb))) & _OLD_NAMES

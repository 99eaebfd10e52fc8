"""``ModelCheckpoint`` and ``CheckpointConfig``: save the training network's parameters during
training, in MindSpore's checkpoint format and file naming, keeping the newest few.

Files are ``<directory>/<prefix>-<epoch>_<step in epoch>.ckpt`` (``.safetensors`` with
``format='safetensors'``); a prefix whose files are already in the directory becomes
``<prefix>_1`` (then ``_2``, ...), as in MindSpore, so a second run never overwrites the first.
MindSpore also writes ``<prefix>-graph.meta`` (its compiled graph); graphcell does not.

Example::

    >>> import os, tempfile
    >>> from graphcell.train import CheckpointConfig, ModelCheckpoint
    >>> config = CheckpointConfig(save_checkpoint_steps=10, keep_checkpoint_max=3)
    >>> ckpt = ModelCheckpoint(prefix="lenet", directory=tempfile.mkdtemp(), config=config)
    >>> config.keep_checkpoint_max, ckpt.latest_ckpt_file_name
    (3, '')
"""
from __future__ import annotations

import os
import time

from graphcell.tensor import Tensor
from graphcell.train.callback._callback import Callback
from graphcell.train.callback._checks import boolean, non_negative_int
from graphcell.train.serialization import save_checkpoint

__all__ = ["CheckpointConfig", "ModelCheckpoint"]

_FORMATS = ("ckpt", "safetensors")
_INFO = ("epoch_num", "step_num")


class CheckpointConfig:
    """``CheckpointConfig(save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
    keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
    append_info=None, enc_key=None, enc_mode='AES-GCM', exception_save=False, crc_check=False,
    remove_redundancy=False, format='ckpt', **kwargs)``.

    When to save: every ``save_checkpoint_steps`` steps, else (when that is 0/None) every
    ``save_checkpoint_seconds``; the last step is always saved when training ends. What to keep:
    the newest ``keep_checkpoint_max`` files, else (when that is 0/None) one file per
    ``keep_checkpoint_per_n_minutes``. ``saved_network`` saves that cell instead of the training
    network; ``append_info`` is a list of ``'epoch_num'``, ``'step_num'`` and at most one dict of
    extra values stored in each file. Encrypted checkpoints (``enc_key``) are not supported.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, crc_check=False, remove_redundancy=False, format="ckpt",
                 **kwargs):  # noqa: A002
        from graphcell.nn.cell import Cell
        owner = "CheckpointConfig"
        steps, seconds, keep_max, keep_minutes = (
            None if v is None else non_negative_int(v, name, owner)
            for v, name in ((save_checkpoint_steps, "save_checkpoint_steps"),
                            (save_checkpoint_seconds, "save_checkpoint_seconds"),
                            (keep_checkpoint_max, "keep_checkpoint_max"),
                            (keep_checkpoint_per_n_minutes, "keep_checkpoint_per_n_minutes")))
        if not (steps or seconds or keep_max or keep_minutes):
            raise ValueError(f"{owner}: 'save_checkpoint_steps', 'save_checkpoint_seconds', "
                             "'keep_checkpoint_max' and 'keep_checkpoint_per_n_minutes' cannot "
                             "all be 0 or None")
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError(f"{owner}: 'saved_network' must be None or a Cell, got "
                            f"{type(saved_network).__name__}")
        if enc_key is not None:
            raise ValueError(f"{owner}: encrypted checkpoints (enc_key) are not supported by "
                             "graphcell; leave enc_key=None")
        if format not in _FORMATS:
            raise ValueError(f"{owner}: 'format' must be one of {list(_FORMATS)}, got {format!r}")
        crc_check = boolean(crc_check, "crc_check", owner)
        if format == "safetensors" and (crc_check or exception_save):
            raise ValueError(f"{owner}: with format='safetensors' the other options (crc_check, "
                             "exception_save) must keep their defaults")
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = None if steps else seconds
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = None if keep_max else keep_minutes
        if not keep_max and not keep_minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = boolean(integrated_save, "integrated_save", owner)
        self._async_save = async_save
        self._saved_network = saved_network
        self._append_dict = _append_info(append_info)
        self._enc_key = enc_key
        self._enc_mode = enc_mode
        self.exception_save = boolean(exception_save, "exception_save", owner)
        self._crc_check = crc_check
        self.remove_redundancy = boolean(remove_redundancy, "remove_redundancy", owner)
        self._format = format
        self._map_param_inc = kwargs.get("incremental", False)

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps,
                                     doc="Save every this many steps (None/0: by time).")
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds,
                                       doc="Save every this many seconds (when not by steps).")
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max,
                                   doc="Keep at most this many files (None: by minutes).")
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes,
                                             doc="Keep one file per this many minutes.")
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network)
    append_dict = property(lambda self: self._append_dict)
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)
    crc_check = property(lambda self: self._crc_check)
    format = property(lambda self: self._format)
    map_param_inc = property(lambda self: self._map_param_inc)

    def get_checkpoint_policy(self) -> dict:
        """When to save and what to keep, as a dict."""
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
                "saved_network": self.saved_network}


def _append_info(append_info) -> dict | None:
    owner = "CheckpointConfig"
    if append_info is None or append_info == []:
        return None
    if not isinstance(append_info, list):
        raise TypeError(f"{owner}: 'append_info' must be a list, got {type(append_info).__name__}")
    out = {name: 0 for name in _INFO if name in append_info}
    dicts = [e for e in append_info if isinstance(e, dict)]
    if len(dicts) > 1:
        raise TypeError(f"{owner}: 'append_info' may hold one dict, got {len(dicts)}")
    for element in append_info:
        if isinstance(element, str):
            if element not in _INFO:
                raise ValueError(f"{owner}: a str in 'append_info' must be one of {list(_INFO)}, "
                                 f"got {element!r}")
        elif isinstance(element, dict):
            for key, value in element.items():
                if not isinstance(key, str) or not isinstance(value, (int, float, bool, str,
                                                                      Tensor)):
                    raise TypeError(f"{owner}: the dict in 'append_info' must map str keys to "
                                    f"int, float, bool, str or Tensor values, got {key!r}: "
                                    f"{type(value).__name__}")
                out[key] = value
        else:
            raise TypeError(f"{owner}: 'append_info' must hold str or dict items, got "
                            f"{type(element).__name__}")
    return out


class ModelCheckpoint(Callback):
    """``ModelCheckpoint(prefix='CKP', directory=None, config=None)``: save checkpoints while
    training, by ``config`` (a :class:`CheckpointConfig`; default: every step, keep 5).

    ``directory`` (default: the current directory) is created if missing. ``prefix`` and
    ``directory`` may also be functions of the run context's fields (``cb_params``) returning the
    name to use; a callable prefix names the file ``<prefix>.ckpt`` alone.
    ``latest_ckpt_file_name`` is the last file written. In a data-parallel job of several
    processes only rank 0 writes (the weights are the same on every process); the others
    write nothing.
    """

    def __init__(self, prefix="CKP", directory=None, config=None):
        super().__init__()
        if not callable(prefix) and (not isinstance(prefix, str) or "/" in prefix):
            raise ValueError("ModelCheckpoint: 'prefix' must be a str without '/' (or a function "
                             f"returning one), got {prefix!r}")
        if config is None:
            config = CheckpointConfig()
        elif not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: 'config' must be a CheckpointConfig, got "
                            f"{type(config).__name__}")
        self._config = config
        self._prefix_func = prefix if callable(prefix) else None
        self._directory_func = directory if callable(directory) else None
        self._prefix = None if callable(prefix) else prefix
        self._directory = None
        if not callable(directory):
            self._directory = _make_directory(os.getcwd() if directory is None else directory)
        if self._prefix is not None and self._directory is not None:
            self._prefix = _unused_prefix(self._directory, self._prefix)
        self._latest_ckpt_file_name = ""
        self._last_triggered_step = 0
        self._last_time = time.time()
        self._last_time_for_keep = time.time()
        append = config.append_dict or {}
        self._append_dict = dict(append)
        self._append_epoch_num = append.get("epoch_num", 0)
        self._append_step_num = append.get("step_num", 0)

    @property
    def latest_ckpt_file_name(self) -> str:
        """The path of the last checkpoint written ('' before the first)."""
        return self._latest_ckpt_file_name

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        if self._prefix_func is not None:
            self._prefix = self._prefix_func(cb)
            if not isinstance(self._prefix, str) or "/" in self._prefix:
                raise ValueError("ModelCheckpoint: the 'prefix' function must return a str "
                                 f"without '/', got {self._prefix!r}")
        if self._directory_func is not None:
            self._directory = _make_directory(self._directory_func(cb))
        self._save(cb, force=False)

    def on_train_end(self, run_context):
        self._save(run_context.original_args(), force=True)

    # --- saving ----------------------------------------------------------------------------------

    def _due(self, cb, force: bool) -> bool:
        config = self._config
        if config.save_checkpoint_steps:
            return force or cb.cur_step_num >= self._last_triggered_step + \
                config.save_checkpoint_steps
        if config.save_checkpoint_seconds:
            now = time.time()
            if force or now - self._last_time > config.save_checkpoint_seconds:
                self._last_time = now
                return True
        return False

    def _save(self, cb, force: bool) -> None:
        if cb.cur_step_num == self._last_triggered_step or not self._due(cb, force):
            return
        if _replica():
            self._last_triggered_step = cb.cur_step_num
            return
        config = self._config
        step_in_epoch = (cb.cur_step_num - 1) % cb.batch_num + 1
        name = (f"{self._prefix}.{config.format}" if self._prefix_func is not None else
                f"{self._prefix}-{cb.cur_epoch_num}_{step_in_epoch}.{config.format}")
        self._rotate()
        path = os.path.join(self._directory, name)
        self._last_time_for_keep = time.time()
        self._last_triggered_step = cb.cur_step_num
        if "epoch_num" in self._append_dict:
            self._append_dict["epoch_num"] = self._append_epoch_num + cb.cur_epoch_num
        if "step_num" in self._append_dict:
            self._append_dict["step_num"] = self._append_step_num + cb.cur_step_num
        network = config.saved_network if config.saved_network is not None else cb.train_network
        save_checkpoint(network, path, config.integrated_save, config.async_save,
                        self._append_dict or None, crc_check=config.crc_check,
                        format=config.format)
        self._latest_ckpt_file_name = path

    def _rotate(self) -> None:
        """Make room by the config's keep policy before the next file is written."""
        config = self._config
        files = _checkpoint_files(self._directory, self._prefix, config.format)
        if config.keep_checkpoint_max and len(files) >= config.keep_checkpoint_max:
            _remove(min(files, key=_age_key))
        elif config.keep_checkpoint_per_n_minutes:
            now, window = time.time(), config.keep_checkpoint_per_n_minutes * 60
            if now - self._last_time_for_keep < window:
                recent = [f for f in files if now - os.path.getmtime(f) < window]
                for f in sorted(recent, key=_age_key)[1:]:   # keep the oldest of the window
                    _remove(f)


def _replica() -> bool:
    """Whether this process is a data-parallel replica of rank 0, whose weights rank 0 writes
    (the processes hold identical weights; N processes writing one path would clash)."""
    from graphcell.parallel._utils import is_data_parallel
    from graphcell_ir import comm
    world = comm.world()
    return world.size > 1 and world.rank != 0 and is_data_parallel()


def _age_key(path: str):
    return (os.path.getmtime(path), path)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass  # already gone: nothing to make room for


def _checkpoint_files(directory: str, prefix: str, fmt: str) -> list[str]:
    """This prefix's checkpoint files: ``<prefix>-<digits and _>.<fmt>``."""
    out = []
    suffix = "." + fmt
    for filename in os.listdir(directory):
        if filename.startswith(prefix + "-") and filename.endswith(suffix):
            middle = filename[len(prefix):-len(suffix)]
            if not any(c.isalpha() for c in middle):
                out.append(os.path.join(directory, filename))
    return out


def _unused_prefix(directory: str, prefix: str) -> str:
    """``prefix``, or ``prefix_<n>`` when checkpoint files of ``prefix`` (or ``prefix_<k>``, k < n)
    are already in ``directory``."""
    taken = 0
    for filename in os.listdir(directory):
        stem, ext = os.path.splitext(filename)
        if ext not in (".ckpt", ".safetensors") or not filename.startswith(prefix):
            continue
        rest = stem[len(prefix):]
        if rest.startswith("-"):
            taken = max(taken, 1)
        elif rest.startswith("_") and "-" in rest and rest[1:rest.index("-")].isdigit():
            taken = max(taken, int(rest[1:rest.index("-")]) + 1)
    return f"{prefix}_{taken}" if taken else prefix


def _make_directory(path) -> str:
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise ValueError(f"ModelCheckpoint: 'directory' must be a non-empty path, got {path!r}")
    path = os.path.realpath(os.fspath(path))
    os.makedirs(path, exist_ok=True)
    return path

"""``mindspore.log``: the framework's logger, configured by MindSpore's environment variables.

Scripts log through it (``from mindspore import log as logger; logger.info(...)``) and read its
configuration (``ms.get_level()``, ``ms.get_log_config()``). The variables are MindSpore's and
are read once, when the first message is logged:

- ``GLOG_v``: the level, ``0`` DEBUG, ``1`` INFO, ``2`` WARNING (the default), ``3`` ERROR,
  ``4`` CRITICAL;
- ``GLOG_logtostderr``: ``1`` (the default) writes to stderr; ``0`` writes to the rotating file
  ``$GLOG_log_dir/rank_<RANK_ID>/logs/mindspore.log.<pid>`` (``logger_maxBytes``, default 50 MiB,
  ``logger_backupCount``, default 30), and messages at ``GLOG_stderrthreshold`` (default
  ``2``) or above also go to stderr.

A line reads as MindSpore's does::

    [WARNING] ME(1234:139871,MainProcess):2026-11-25-19:58:52.552.000 [/home/me/train.py:3] message

Example::

    >>> from graphcell import log as logger
    >>> logger.get_level()
    '2'
    >>> logger.info("not shown at the default level")
"""
from __future__ import annotations

import logging
import os
import sys
import threading
import time
from logging.handlers import RotatingFileHandler

__all__ = ["debug", "info", "warning", "error", "critical", "get_level", "get_log_config"]

_LEVELS = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING, "3": logging.ERROR,
           "4": logging.CRITICAL}
_GLOG_OF = {level: glog for glog, level in _LEVELS.items()}
_MAX_BYTES, _BACKUP_COUNT = 52428800, 30
_FORMAT = ("[%(levelname)s] ME(%(process)d:%(thread)d,%(processName)s):%(asctime)s "
           "[%(pathname)s:%(lineno)d] %(message)s")


class _Formatter(logging.Formatter):
    """MindSpore's time stamp: ``2026-11-25-19:58:52.552.000`` (milliseconds, microseconds)."""

    def formatTime(self, record, datefmt=None):  # noqa: N802 - logging's name
        micros = f"{round(record.msecs * 1000):06d}"
        stamp = time.strftime("%Y-%m-%d-%H:%M:%S", self.converter(record.created))
        return f"{stamp}.{micros[:3]}.{micros[3:]}"


class _Logger:
    """The one logger of the process, built from the environment on first use."""

    lock = threading.Lock()
    logger: logging.Logger | None = None


def _env_level(var: str, default: str) -> int:
    value = os.environ.get(var, default).strip() or default
    if value not in _LEVELS:
        raise ValueError(f"Incorrect log level, the value of {var} must be one of "
                         f"{list(_LEVELS)}, but got {value!r}")
    return _LEVELS[value]


def _env_count(var: str, default: int) -> int:
    value = os.environ.get(var, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) <= 0:
        raise ValueError(f"Incorrect value, the value of {var} must be a positive integer, but "
                         f"got {value!r}")
    return int(value)


def _file_handler() -> logging.Handler:
    log_dir = os.environ.get("GLOG_log_dir", "").strip()
    if not log_dir:
        raise ValueError("When GLOG_logtostderr is set to 0, the directory of saving log "
                         "GLOG_log_dir must be set, but got it empty.")
    directory = os.path.join(os.path.realpath(log_dir), f"rank_{os.environ.get('RANK_ID', '0')}",
                             "logs")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    handler = RotatingFileHandler(os.path.join(directory, f"mindspore.log.{os.getpid()}"),
                                  maxBytes=_env_count("logger_maxBytes", _MAX_BYTES),
                                  backupCount=_env_count("logger_backupCount", _BACKUP_COUNT))
    handler.name = "FileHandler"
    return handler


def _build() -> logging.Logger:
    to_stderr = os.environ.get("GLOG_logtostderr", "1").strip() or "1"
    if to_stderr not in ("0", "1"):
        raise ValueError("Incorrect value, the value of GLOG_logtostderr must be 0 or 1, but got "
                         f"{to_stderr!r}")
    logger = logging.getLogger(f"ME.mindspore.log.{os.getpid()}")
    logger.setLevel(_env_level("GLOG_v", "2"))
    logger.propagate = False  # the root logger's handlers would print every line twice
    logger.handlers.clear()
    handlers = [logging.StreamHandler(sys.stderr)]
    if to_stderr == "0":
        handlers = [_file_handler(), logging.StreamHandler(sys.stderr)]
        handlers[1].setLevel(_env_level("GLOG_stderrthreshold", "2"))
    for handler in handlers:
        handler.setFormatter(_Formatter(_FORMAT))
        logger.addHandler(handler)
    return logger


def _logger() -> logging.Logger:
    if _Logger.logger is None:
        with _Logger.lock:
            if _Logger.logger is None:
                _Logger.logger = _build()
    return _Logger.logger


def _log(level: int, msg, args, kwargs) -> None:
    logger = _logger()
    if logger.isEnabledFor(level):
        kwargs.setdefault("stacklevel", 3)  # the line that called debug()/info()/..., not this one
        logger.log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs) -> None:
    """Log ``msg % args`` at DEBUG level (shown with ``GLOG_v=0``)."""
    _log(logging.DEBUG, msg, args, kwargs)


def info(msg, *args, **kwargs) -> None:
    """Log ``msg % args`` at INFO level (shown with ``GLOG_v`` 0 or 1)."""
    _log(logging.INFO, msg, args, kwargs)


def warning(msg, *args, **kwargs) -> None:
    """Log ``msg % args`` at WARNING level (shown by default)."""
    _log(logging.WARNING, msg, args, kwargs)


def error(msg, *args, **kwargs) -> None:
    """Log ``msg % args`` at ERROR level."""
    _log(logging.ERROR, msg, args, kwargs)


def critical(msg, *args, **kwargs) -> None:
    """Log ``msg % args`` at CRITICAL level."""
    _log(logging.CRITICAL, msg, args, kwargs)


def get_level() -> str:
    """The level as ``GLOG_v`` spells it: ``'0'`` (DEBUG) to ``'4'`` (CRITICAL).

    Example::

        >>> import graphcell as ms
        >>> ms.get_level() in ("0", "1", "2", "3", "4")
        True
    """
    return _GLOG_OF[_logger().getEffectiveLevel()]


def get_log_config() -> dict:
    """The logger's configuration, keyed by MindSpore's environment variables.

    Example::

        >>> import graphcell as ms
        >>> sorted(ms.get_log_config())[:2]
        ['GLOG_logtostderr', 'GLOG_v']
    """
    logger = _logger()
    config = {"GLOG_v": get_level(), "GLOG_logtostderr": "1"}
    handler = logger.handlers[0]
    if isinstance(handler, RotatingFileHandler):
        log_dir, _ = os.path.split(handler.baseFilename)
        config.update(GLOG_logtostderr="0", GLOG_log_dir=log_dir,
                      logger_maxBytes=handler.maxBytes, logger_backupCount=handler.backupCount,
                      GLOG_stderrthreshold=_GLOG_OF[logger.handlers[1].level])
    return config

"""``graphcell.log`` (MindSpore's logger and its environment variables) and
``graphcell.device_context``. Each case that configures the process runs in a fresh one: the
logger reads the environment once and ``threads_num`` can be set once."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import graphcell as ms

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^\[(?P<level>[A-Z]+)\] ME\(\d+:\d+,MainProcess\):"
                  r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} \[(?P<file>[^:\]]+):(?P<line>\d+)\] "
                  r"(?P<msg>.*)$")


def run(code: str, tmp_path, **env) -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(code)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GLOG_", "logger_"))}
    environ.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=environ, cwd=tmp_path, timeout=120)


LOG_ALL = """\
from graphcell import log as logger
logger.debug("d %d", 0)
logger.info("i %d", 1)
logger.warning("w %d", 2)
logger.error("e")
logger.critical("c")
import graphcell as ms
print(ms.get_level(), sorted(ms.get_log_config().items()))
"""


def messages(stderr: str) -> list[tuple[str, str, int]]:
    found = [LINE.match(line) for line in stderr.splitlines()]
    return [(m["level"], m["msg"], int(m["line"])) for m in found if m]


@pytest.mark.parametrize("glog_v, first", [(None, "w 2"), ("0", "d 0"), ("1", "i 1"),
                                           ("3", "e"), ("4", "c")])
def test_the_level_comes_from_glog_v_and_lines_read_as_mindspores(tmp_path, glog_v, first):
    env = {} if glog_v is None else {"GLOG_v": glog_v}
    out = run(LOG_ALL, tmp_path, **env)
    assert out.returncode == 0, out.stderr
    got = messages(out.stderr)
    assert got[0][1] == first and got[-1] == ("CRITICAL", "c", 6)
    assert all(LINE.match(line) for line in out.stderr.splitlines())  # nothing else printed
    assert str(tmp_path / "script.py") in out.stderr  # the caller's file, not graphcell's
    assert out.stdout.split()[0] == (glog_v or "2")


def test_a_log_file_per_rank_with_the_stderr_threshold(tmp_path):
    out = run(LOG_ALL, tmp_path, GLOG_v="1", GLOG_logtostderr="0", GLOG_log_dir=str(tmp_path),
              GLOG_stderrthreshold="3", logger_maxBytes="1000", logger_backupCount="2")
    assert out.returncode == 0, out.stderr
    assert [m[0] for m in messages(out.stderr)] == ["ERROR", "CRITICAL"]
    (log_file,) = (tmp_path / "rank_0" / "logs").glob("mindspore.log.*")
    assert [m[0] for m in messages(log_file.read_text())] == ["INFO", "WARNING", "ERROR",
                                                             "CRITICAL"]
    config = dict(eval(out.stdout.split(" ", 1)[1]))  # noqa: S307 - our own printed list
    assert config == {"GLOG_v": "1", "GLOG_logtostderr": "0",
                      "GLOG_log_dir": str(tmp_path / "rank_0" / "logs"),
                      "logger_maxBytes": 1000, "logger_backupCount": 2,
                      "GLOG_stderrthreshold": "3"}


@pytest.mark.parametrize("env, message", [
    ({"GLOG_v": "5"}, "GLOG_v must be one of"),
    ({"GLOG_logtostderr": "2"}, "GLOG_logtostderr must be 0 or 1"),
    ({"GLOG_logtostderr": "0"}, "GLOG_log_dir must be set"),
])
def test_bad_settings_are_named(tmp_path, env, message):
    out = run("from graphcell import log\nlog.warning('x')\n", tmp_path, **env)
    assert out.returncode != 0 and message in out.stderr


def test_device_queries():
    cpu = ms.device_context.cpu
    assert cpu.is_available() and cpu.device_count() == 1 and cpu.threads_num is \
        cpu.op_tuning.threads_num
    for device, name in ((ms.device_context.gpu, "GPU"), (ms.device_context.ascend, "Ascend")):
        assert device.is_available() is False
        with pytest.raises(RuntimeError, match=f"Device_target {name} not exist"):
            device.device_count()
    with pytest.raises(ValueError, match="positive"):
        cpu.op_tuning.threads_num(0)
    with pytest.raises(TypeError, match="int"):
        cpu.op_tuning.threads_num(2.0)


def test_threads_num_limits_the_kernel_threads_once(tmp_path):
    code = """\
import numba
import numpy as np
import graphcell as ms
from graphcell.device_context.cpu import op_tuning
op_tuning.threads_num(1)
try:
    op_tuning.threads_num(1)
except RuntimeError as e:
    print(e)
x = ms.Tensor(np.ones((64, 64), np.float32))
print(numba.get_num_threads(), float((x @ x).sum()))
"""
    out = run(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["The 'threads_num' can not be set repeatedly.",
                                       "1 262144.0"]

"""Compiles are thread-safe: several threads compiling and training different and identical
networks at once, repeatedly, give what one thread gives alone (issue 22, defect 3: four threads
calling one Cell with four batch sizes locked the process up for good).

The threads run in a child process with a time limit, so a hang fails the test instead of
blocking the suite; the child dumps every thread's stack when it is about to be stopped."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
RUN = """
import faulthandler, sys, warnings
faulthandler.dump_traceback_later({limit}, exit=True)
sys.path.insert(0, {here!r})
before = (warnings.showwarning, getattr(warnings, "_showwarnmsg_impl", None))
import concurrent_compiles
concurrent_compiles.main({rounds})
# a compile records warnings with catch_warnings, which swaps process-wide state: interleaved
# compiles must leave it as it was (not captured by a recorder, not "always")
after = (warnings.showwarning, getattr(warnings, "_showwarnmsg_impl", None))
assert after == before and ("always", None, Warning, None, 0) not in warnings.filters, \
    "concurrent compiles left the process's warnings captured"
"""


def _run(tmp_path, rounds: int, limit: int = 240):
    env = {**os.environ, "PYTHONPATH": ROOT, "GRAPHCELL_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-c", RUN.format(limit=limit, here=HERE,
                                                            rounds=rounds)],
                          env=env, capture_output=True, text=True, timeout=limit + 60)


def test_threads_compiling_and_training_at_once(tmp_path):
    """Cold (every kernel compiled), then warm: a second process links every kernel from the
    disk cache the first one left — other timings, other races."""
    for rounds in (3, 2):
        done = _run(tmp_path, rounds)
        assert done.returncode == 0 and done.stdout.strip().endswith("ok"), \
            done.stdout[-2000:] + done.stderr[-6000:]

"""The seam between the PyNative layer and graph mode (runtime/graph_mode.py), and graph mode's
process-wide records, which compiles in several threads share."""
import threading

import pytest

import graphcell
from graphcell.graph.log import CacheLog, LiveSet, all_logs
from graphcell.runtime import graph_mode


def test_the_seam_is_graphcell_graph_provided_once():
    assert graph_mode.graph() is graphcell.graph
    graph_mode.provide(graphcell.graph)            # the same package again: nothing changes
    with pytest.raises(RuntimeError, match="provided already"):
        graph_mode.provide(object())
    assert graph_mode.graph() is graphcell.graph


def test_live_sets_can_be_listed_while_other_threads_add():
    live, keep, errors = LiveSet(), [], []

    class Item:
        pass

    def add():
        for _ in range(2000):
            item = Item()
            keep.append(item)
            live.add(item)

    def snapshot():
        try:
            for _ in range(2000):
                live.snapshot()
        except RuntimeError as e:   # "set changed size during iteration"
            errors.append(e)
    threads = [threading.Thread(target=add), threading.Thread(target=snapshot)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(live.snapshot()) == len(keep)


def test_logs_are_listed_by_name():
    logs = [CacheLog("zz.test_seam"), CacheLog("aa.test_seam")]
    names = [log.name for log in all_logs() if log.name.endswith(".test_seam")]
    assert names == ["aa.test_seam", "zz.test_seam"] and logs

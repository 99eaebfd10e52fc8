"""Training progress on stderr: a tqdm bar on a terminal, plain lines otherwise, nothing with
``GRAPHCELL_PROGRESS=0``; MindSpore's own callback lines stay on stdout, whole."""
import io
import re
import sys

import numpy as np

from graphcell import nn
from graphcell.train import LossMonitor, Model
from graphcell.train.progress import EpochProgress
from train_datasets import ArrayDataset


def small_model():
    rng = np.random.default_rng(0)
    net = nn.Dense(4, 2)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.SGD(net.trainable_params(), 0.1))
    data = ArrayDataset({"x": rng.standard_normal((12, 4)).astype(np.float32),
                         "y": rng.integers(0, 2, 12).astype(np.int32)}, 4)
    return model, data


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_plain_lines_when_stderr_is_not_a_terminal(capsys, monkeypatch):
    monkeypatch.delenv("GRAPHCELL_PROGRESS", raising=False)
    model, data = small_model()
    model.train(2, data, callbacks=[LossMonitor(3)])
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 2
    for epoch, line in enumerate(lines, start=1):
        assert re.fullmatch(rf"\[graphcell\] epoch {epoch}/2: 3 steps in \d+\.\d s "
                            r"\((\d+\.\d|inf) steps/s\), loss \d\.\d{4}", line), line
    assert captured.out.splitlines() == [line for line in captured.out.splitlines()
                                         if line.startswith("epoch: ")]
    assert len(captured.out.splitlines()) == 2


def test_graphcell_progress_0_turns_it_off(capsys, monkeypatch):
    monkeypatch.setenv("GRAPHCELL_PROGRESS", "0")
    model, data = small_model()
    model.train(2, data)
    assert capsys.readouterr().err == ""


def test_a_bar_on_a_terminal_with_callback_lines_above_it(capsys, monkeypatch):
    monkeypatch.delenv("GRAPHCELL_PROGRESS", raising=False)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    model, data = small_model()
    model.train(2, data, callbacks=[LossMonitor(1)])
    bar = terminal.getvalue()
    for epoch in (1, 2):
        assert re.search(rf"epoch {epoch}/2: 100%\|.*\| 3/3 \[.*steps/s, loss=\d\.\d{{4}}\]",
                         bar), bar
    out = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in out] == [
        f"epoch: {e} step: {s}" for e in (1, 2) for s in (1, 2, 3)]
    assert sys.stdout is not None and not type(sys.stdout).__name__.startswith("DummyTqdm")


def test_epoch_progress_without_a_loss():
    stream = io.StringIO()
    progress = EpochProgress(epochs=1, stream=stream, enabled=True, terminal=False)
    progress.start_epoch(1, steps=2)
    progress.step(None)
    progress.step(None)
    progress.end_epoch()
    assert re.fullmatch(r"\[graphcell\] epoch 1/1: 2 steps in \d+\.\d s \((\d+\.\d|inf) "
                        r"steps/s\)\n", stream.getvalue())


def test_a_failing_step_closes_the_bar_and_gives_stdout_back(monkeypatch):
    import pytest
    from graphcell.train import Callback
    monkeypatch.delenv("GRAPHCELL_PROGRESS", raising=False)
    monkeypatch.setattr(sys, "stderr", Terminal())
    stdout = sys.stdout

    class Fail(Callback):
        def on_train_step_end(self, run_context):
            raise KeyError("stop here")

    model, data = small_model()
    with pytest.raises(KeyError, match="stop here"):
        model.train(1, data, callbacks=[Fail()])
    assert sys.stdout is stdout

"""Record MindSpore 2.10's run of ``tests/graphcell/nn/user_training_cases.py`` (a user-defined
optimizer, loss and containers trained by ``TrainOneStepCell``) for graphcell's test.

    /opt/msvenv/bin/python tools/record_user_training_goldens.py

The case file is written against ``graphcell``; this tool maps that module name to ``mindspore``
before importing it (``record_model_goldens.use_mindspore_as_graphcell``), so MindSpore runs the file unchanged. Writes
``tests/graphcell/nn/goldens/user_training.npz``: ``<mode>/<case>/<key>`` for each of MindSpore's
modes (``pynative``, ``graph``), each case of ``CASES`` and each array ``train`` returns.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from record_model_goldens import use_mindspore_as_graphcell

mindspore = use_mindspore_as_graphcell()
TESTS = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "nn"
sys.path.insert(0, str(TESTS))
import user_training_cases as U  # noqa: E402


def main() -> None:
    arrays = {}
    for mode, flag in (("pynative", mindspore.PYNATIVE_MODE), ("graph", mindspore.GRAPH_MODE)):
        mindspore.set_context(mode=flag)
        for cid, kwargs in U.CASES.items():
            for key, value in U.train(**kwargs).items():
                arrays[f"{mode}/{cid}/{key}"] = value
    out = TESTS / "goldens" / "user_training.npz"
    np.savez_compressed(out, **arrays)
    print(f"wrote {out} ({len(arrays)} arrays)")


if __name__ == "__main__":
    main()

"""Run a MindSpore tutorial (a Markdown page of MindSpore's docs) on graphcell, renamed.

    python tools/run_tutorial.py path/to/autograd.md [--mode graph] [--keep DIR]

The tutorials are MindSpore's, not this project's: get them from MindSpore's docs repository
(``tutorials/source_en/beginner/*.md``); nothing of them is stored here. The tool takes the page's
``python`` code blocks in order, renames the package in the import lines (``import mindspore`` →
``import graphcell as mindspore``, ``from mindspore.x import y`` → ``from graphcell.x import y``),
and runs the result as one script in a fresh process in an empty directory. The ``download``
package the data tutorials import is replaced by a stand-in that writes small MNIST-format files
(random digits, the real file layout) where the page expects ``MNIST_Data``, so no network is
needed. Plots are not looked at: with matplotlib installed the script draws with the headless
``Agg`` backend (``plt.show()`` returns at once); without it a stand-in ``matplotlib.pyplot``
accepts every call and draws nothing. It prints the script's output and exits with the script's
status.
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_RENAMES = [
    (re.compile(r"^(\s*)import mindspore as (\w+)", re.M), r"\1import graphcell as \2"),
    (re.compile(r"^(\s*)import mindspore\.([\w.]+) as (\w+)", re.M), r"\1import graphcell.\2 as \3"),
    (re.compile(r"^(\s*)import mindspore\b(?!\.)", re.M), r"\1import graphcell as mindspore"),
    (re.compile(r"^(\s*)from mindspore\b", re.M), r"\1from graphcell"),
]

_DOWNLOAD_STUB = '''
"""Stand-in for the `download` package: writes MNIST-format files instead of downloading."""
import os
import struct

import numpy as np


def _idx(path, array):
    codes = {np.uint8: 0x08}
    with open(path, "wb") as f:
        f.write(struct.pack(">HBB", 0, codes[array.dtype.type], array.ndim))
        f.write(struct.pack(">" + "I" * array.ndim, *array.shape))
        f.write(array.tobytes())


def _digits(n, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n).astype(np.uint8)
    images = np.zeros((n, 28, 28), np.uint8)
    for i, d in enumerate(labels):  # a bar per digit: learnable, so the loss falls
        images[i, 2 + 2 * d: 5 + 2 * d, 4:24] = 255
    images = np.clip(images + rng.integers(0, 40, images.shape), 0, 255).astype(np.uint8)
    return images, labels


def download(url, path="./", kind="file", replace=False, **kwargs):
    root = os.path.join(path, "MNIST_Data")
    for usage, prefix, n, seed in (("train", "train", 600, 1), ("test", "t10k", 200, 2)):
        os.makedirs(os.path.join(root, usage), exist_ok=True)
        images, labels = _digits(n, seed)
        _idx(os.path.join(root, usage, f"{prefix}-images-idx3-ubyte"), images)
        _idx(os.path.join(root, usage, f"{prefix}-labels-idx1-ubyte"), labels)
    return path
'''

_PYPLOT_STUB = '''
"""Stand-in for matplotlib.pyplot when matplotlib is not installed: every call draws nothing."""


class _Nothing:
    def __call__(self, *args, **kwargs):
        return _Nothing()

    def __getattr__(self, name):
        return _Nothing()

    def __iter__(self):
        return iter(())


def __getattr__(name):
    return _Nothing()
'''


def code_blocks(markdown: str) -> list[str]:
    """The page's ``python`` code blocks, in order (shell lines starting with ``!`` dropped)."""
    blocks = re.findall(r"^```python\n(.*?)^```", markdown, flags=re.S | re.M)
    return ["\n".join(line for line in b.splitlines() if not line.lstrip().startswith("!"))
            for b in blocks]


def renamed(source: str) -> str:
    for pattern, replacement in _RENAMES:
        source = pattern.sub(replacement, source)
    return source


def script(markdown: str, mode: str) -> str:
    head = "import graphcell\n"
    if mode == "graph":
        head += "graphcell.set_context(mode=graphcell.GRAPH_MODE)\n"
    return head + "\n\n".join(renamed(b) for b in code_blocks(markdown)) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path, help="a MindSpore tutorial page (.md)")
    parser.add_argument("--mode", choices=("pynative", "graph"), default="pynative")
    parser.add_argument("--keep", type=Path, help="run in this directory and keep the script")
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args(argv)
    text = script(args.page.read_text(encoding="utf-8"), args.mode)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        stubs = work / "_stubs"
        (stubs / "download").mkdir(parents=True, exist_ok=True)
        (stubs / "download" / "__init__.py").write_text(textwrap.dedent(_DOWNLOAD_STUB))
        if importlib.util.find_spec("matplotlib") is None:
            (stubs / "matplotlib").mkdir(exist_ok=True)
            (stubs / "matplotlib" / "__init__.py").write_text("")
            (stubs / "matplotlib" / "pyplot.py").write_text(_PYPLOT_STUB)
        (work / "tutorial.py").write_text(text)
        env_path = f"{stubs}{':' + str(ROOT)}"
        run = subprocess.run([sys.executable, "tutorial.py"], cwd=work, timeout=args.timeout,
                             env={**__import__("os").environ, "PYTHONPATH": env_path,
                                  "MPLBACKEND": "Agg"})
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())

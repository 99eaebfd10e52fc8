"""Record checkpoint files for the interoperability tests with MindSpore 2.10 (both directions).

    python tools/checkpoint_interop.py write-graphcell            # graphcell writes its files
    /opt/msvenv/bin/python tools/checkpoint_interop.py record-mindspore
        # MindSpore writes its files and records what it read from graphcell's

Everything lands in ``tests/graphcell/train/checkpoints``: ``from_<writer>.ckpt``,
``from_<writer>_crc.ckpt``, ``from_<writer>.safetensors`` for writer graphcell and mindspore, and
``read_by_mindspore.npz`` (the values MindSpore read from graphcell's files). The test
``tests/graphcell/train/test_checkpoint_interop.py`` loads MindSpore's files with graphcell, checks
that graphcell still writes byte-identical files, and compares what MindSpore read. The values are
the same on both sides: :func:`values`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "train" / "checkpoints"
APPEND = {"epoch_num": 3, "lr": 0.5, "net_name": "lenet5"}


def values() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(20261125)
    return {
        "conv1.weight": rng.standard_normal((2, 1, 3, 3)).astype(np.float32),
        "fc.bias": rng.standard_normal(4).astype(np.float16),
        "fc.weight64": rng.standard_normal((2, 2)),
        "steps": np.array([1, -2, 3], np.int32),
        "global_step": np.array(7, np.int64),
        "mask": np.array([True, False]),
        "codes": np.array([0, 255], np.uint8),
        "empty": np.zeros((0, 3), np.float32),
    }


def files(writer: str) -> dict[str, tuple[Path, dict]]:
    return {"ckpt": (HERE / f"from_{writer}.ckpt", {}),
            "crc": (HERE / f"from_{writer}_crc.ckpt", {"crc_check": True}),
            "safetensors": (HERE / f"from_{writer}.safetensors", {"format": "safetensors"})}


def _write(ms, writer: str) -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    entries = [{"name": k, "data": ms.Tensor(v)} for k, v in values().items()]
    for kind, (path, options) in files(writer).items():
        extra = {} if kind == "safetensors" else {"append_dict": dict(APPEND)}
        ms.save_checkpoint(entries, str(path), **options, **extra)
        print(f"wrote {path.relative_to(HERE.parent.parent.parent.parent)}")


def write_graphcell() -> None:
    import graphcell as ms
    _write(ms, "graphcell")


def record_mindspore() -> None:
    import mindspore as ms
    _write(ms, "mindspore")
    read = {}
    for kind, (path, options) in files("graphcell").items():
        loaded = ms.load_checkpoint(str(path), **options)
        for name, value in loaded.items():
            if isinstance(value, str):
                read[f"{kind}/{name}/str"] = np.array(value)
            else:
                read[f"{kind}/{name}"] = value.asnumpy()
                read[f"{kind}/{name}/dtype"] = np.array(str(value.dtype))
    np.savez(HERE / "read_by_mindspore.npz", **read)
    print(f"recorded what MindSpore read from graphcell's files: {len(read)} entries")


if __name__ == "__main__":
    commands = {"write-graphcell": write_graphcell, "record-mindspore": record_mindspore}
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        sys.exit(f"usage: {sys.argv[0]} {{{'|'.join(commands)}}}")
    commands[sys.argv[1]]()

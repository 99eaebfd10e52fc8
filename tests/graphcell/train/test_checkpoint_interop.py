"""Checkpoints move between graphcell and MindSpore 2.10, both ways, with identical values.

The files were recorded by ``tools/checkpoint_interop.py``: MindSpore's own files, and what
MindSpore read from graphcell's files (``read_by_mindspore.npz``).
"""
import numpy as np
import pytest

import graphcell as ms
from tools.checkpoint_interop import APPEND, HERE, files, values

KINDS = ("ckpt", "crc", "safetensors")


@pytest.mark.parametrize("kind", KINDS)
def test_graphcell_reads_mindspores_files(kind):
    path, options = files("mindspore")[kind]
    loaded = ms.load_checkpoint(str(path), **options)
    for name, want in values().items():
        if want.size == 0 and kind != "safetensors":
            assert name not in loaded  # MindSpore 2.10's .ckpt writer drops empty tensors
            continue
        got = loaded[name]
        assert isinstance(got, ms.Parameter) and got.name == name
        assert got.dtype.np_dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.asnumpy(), want)
    if kind != "safetensors":
        assert loaded["net_name"] == APPEND["net_name"]
        assert loaded["epoch_num"].dtype == ms.int64 and int(loaded["epoch_num"]) == 3
        assert loaded["lr"].dtype == ms.float32 and float(loaded["lr"]) == 0.5


@pytest.mark.parametrize("kind", KINDS)
def test_graphcell_still_writes_the_files_mindspore_read(kind, tmp_path):
    """The recording of what MindSpore read stays valid only while graphcell writes the same bytes."""
    path, options = files("graphcell")[kind]
    fresh = tmp_path / path.name
    entries = [{"name": k, "data": ms.Tensor(v)} for k, v in values().items()]
    extra = {} if kind == "safetensors" else {"append_dict": dict(APPEND)}
    ms.save_checkpoint(entries, str(fresh), **options, **extra)
    assert fresh.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("kind", KINDS)
def test_mindspore_read_graphcells_files_exactly(kind):
    read = np.load(HERE / "read_by_mindspore.npz")
    for name, want in values().items():
        got = read[f"{kind}/{name}"]
        assert str(read[f"{kind}/{name}/dtype"]) == ms.Tensor(want).dtype.ms_name
        assert got.shape == want.shape  # empty and 0-d tensors keep their shapes
        np.testing.assert_array_equal(got, want)
    if kind != "safetensors":
        assert str(read[f"{kind}/net_name/str"]) == APPEND["net_name"]


def test_a_truncated_or_foreign_file_is_a_clear_error(tmp_path):
    good = files("mindspore")["ckpt"][0].read_bytes()
    truncated = tmp_path / "truncated.ckpt"
    truncated.write_bytes(good[:len(good) // 2])
    with pytest.raises(ValueError, match="truncated.ckpt"):
        ms.load_checkpoint(str(truncated))
    foreign = tmp_path / "foreign.ckpt"
    foreign.write_bytes(b"PK\x03\x04 not a checkpoint at all" * 10)
    with pytest.raises(ValueError, match="foreign.ckpt"):
        ms.load_checkpoint(str(foreign))
    with pytest.raises(ValueError, match="not a regular file"):
        ms.load_checkpoint("/dev/zero")
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "missing.ckpt"))


def test_a_damaged_crc_file_is_refused(tmp_path):
    data = bytearray(files("mindspore")["crc"][0].read_bytes())
    data[40] ^= 0xFF  # inside a tensor's bytes: still parses, the CRC catches it
    damaged = tmp_path / "damaged.ckpt"
    damaged.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="CRC check"):
        ms.load_checkpoint(str(damaged), crc_check=True)

"""Checkpoints in MindSpore's formats: ``save_checkpoint``, ``load_checkpoint``,
``load_param_into_net``.

Two formats, both MindSpore 2.10's, so that files move between graphcell and MindSpore:

- ``.ckpt`` (``format="ckpt"``, the default): MindSpore's protobuf ``Checkpoint`` messages (schema in
  ``_checkpoint_proto.py``), one serialized message per tensor, concatenated; with
  ``crc_check=True`` the file ends in ``b"crc_num"`` and the CRC-32 of the messages as 10 big-endian
  bytes, as MindSpore writes it. Strings (``append_dict`` values) are stored as MindSpore stores
  them: type ``"str"``, dims ``[0]``, UTF-32 code units. An empty tensor is written with its shape
  (MindSpore 2.10 drops it silently when it writes; it reads graphcell's entry back correctly).
- ``.safetensors`` (``format="safetensors"``): the safetensors library's format with MindSpore's
  metadata (``{"format": "ms"}``, and ``"crc_num"`` with ``crc_check=True``).

Reading a file never executes anything from it: protobuf and safetensors only decode data. A
file that is not a checkpoint, or is truncated, is a ``ValueError`` naming the file.

Example::

    >>> import os, tempfile
    >>> import graphcell as ms
    >>> net = ms.nn.Dense(3, 2)
    >>> path = os.path.join(tempfile.mkdtemp(), "dense.ckpt")
    >>> ms.save_checkpoint(net, path)
    >>> sorted(ms.load_checkpoint(path))
    ['bias', 'weight']
    >>> ms.load_param_into_net(ms.nn.Dense(3, 2), ms.load_checkpoint(path))
    ([], [])
"""
from __future__ import annotations

import binascii
import os
import stat
import warnings
from collections.abc import Callable, Mapping

import numpy as np

from graphcell.parameter import Parameter
from graphcell.tensor import Tensor
from graphcell_ir.ir.types import DType, bool_, float32, int64

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]

_CRC_TAG = b"crc_num"
_CRC_BYTES = 10
_STR = "str"
_BY_MS_NAME = {d.ms_name: d for d in DType}
MAX_CHECKPOINT_BYTES = 1 << 34
"""Files larger than this (16 GiB) are refused before reading (protobuf's own limit is 2 GiB per
message; MindSpore writes one message per tensor)."""


# --- saving ------------------------------------------------------------------------------------------

def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    crc_check=False, format="ckpt", **kwargs) -> None:  # noqa: A002
    """Save the parameters of ``save_obj`` to ``ckpt_file_name`` in MindSpore's format.

    ``save_obj`` is a Cell (its parameters, by name), a list of ``{"name": ..., "data": ...}``
    dicts, or a dict of name to Parameter/Tensor. ``append_dict`` adds int, float, bool, str or
    Tensor values; ``choice_func(name)`` returning False leaves a parameter out. The file name
    gets the format's suffix (``.ckpt``, ``.safetensors``) when it has none. ``async_save`` and
    ``integrated_save`` are accepted (the file is written at once, whole). Encrypted checkpoints
    (``enc_key``) are not supported: graphcell ships no AES implementation.
    """
    if enc_key is not None:
        raise ValueError("save_checkpoint: encrypted checkpoints (enc_key) are not supported by "
                         "graphcell; save without enc_key")
    if format not in ("ckpt", "safetensors"):
        raise ValueError(f"save_checkpoint: format must be 'ckpt' or 'safetensors', got {format!r}")
    entries = _entries(save_obj, choice_func) + _appended(append_dict)
    path = _with_suffix(os.fspath(ckpt_file_name), format)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if format == "ckpt":
        _write_ckpt(path, entries, crc_check)
    else:
        _write_safetensors(path, entries, crc_check)


def _with_suffix(path: str, format: str) -> str:  # noqa: A002
    suffix = "." + format
    return path if path.endswith(suffix) else path + suffix


def _entries(save_obj, choice_func: Callable | None) -> list[tuple[str, object]]:
    """``(name, array or str)`` for every value to save, in order."""
    from graphcell.nn.cell import Cell
    if isinstance(save_obj, Cell):
        pairs = [(p.name, p) for _, p in save_obj.parameters_and_names()]
    elif isinstance(save_obj, Mapping):
        pairs = list(save_obj.items())
    elif isinstance(save_obj, (list, tuple)):
        pairs = []
        for item in save_obj:
            if not (isinstance(item, Mapping) and {"name", "data"} <= set(item)):
                raise TypeError("save_checkpoint: a list must hold {'name': ..., 'data': ...} "
                                f"dicts, got {item!r}")
            pairs.append((item["name"], item["data"]))
    else:
        raise TypeError("save_checkpoint: save_obj must be a Cell, a list of {'name', 'data'} "
                        f"dicts or a dict, got {type(save_obj).__name__}")
    out = []
    for name, value in pairs:
        if choice_func is not None and not choice_func(name):
            continue
        out.append((str(name), _array(name, value)))
    return out


def _appended(append_dict) -> list[tuple[str, object]]:
    if append_dict is None:
        return []
    if not isinstance(append_dict, Mapping):
        raise TypeError(f"save_checkpoint: append_dict must be a dict, got "
                        f"{type(append_dict).__name__}")
    return [(str(k), _array(k, v)) for k, v in append_dict.items()]


def _array(name, value):
    """A value as MindSpore stores it: numbers as 0-d tensors (int Int64, float Float32)."""
    if isinstance(value, str):
        return value
    if isinstance(value, Tensor):
        return np.require(value.asnumpy(), requirements="C")  # (ascontiguousarray makes 0-d 1-d)
    if isinstance(value, (bool, np.bool_)):
        return np.asarray(value, bool_.np_dtype)
    if isinstance(value, (int, np.integer)):
        return np.asarray(value, int64.np_dtype)
    if isinstance(value, (float, np.floating)):
        return np.asarray(value, float32.np_dtype)
    if isinstance(value, np.ndarray):
        return np.require(value, requirements="C")
    raise TypeError(f"save_checkpoint: cannot save {name!r} of type {type(value).__name__}; "
                    "expected a Parameter, Tensor, number or str")


def _tensor_message(name: str, value):
    from graphcell.train._checkpoint_proto import Checkpoint
    message = Checkpoint()
    entry = message.value.add()
    entry.tag = name
    if isinstance(value, str):
        entry.tensor.dims.append(0)
        entry.tensor.tensor_type = _STR
        entry.tensor.tensor_content = np.array(value).tobytes()  # UTF-32, as MindSpore's numpy
    else:
        entry.tensor.dims.extend(value.shape)
        entry.tensor.tensor_type = _dtype_name(name, value)
        entry.tensor.tensor_content = value.tobytes()
    return message.SerializeToString()


def _dtype_name(name: str, value: np.ndarray) -> str:
    from graphcell_ir.ir.types import dtype_from_numpy
    try:
        return dtype_from_numpy(value.dtype).ms_name
    except TypeError:
        raise TypeError(f"save_checkpoint: {name!r} has dtype {value.dtype}, which a MindSpore "
                        "checkpoint cannot hold") from None


def _write_ckpt(path: str, entries, crc_check: bool) -> None:
    crc = 0
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        for name, value in entries:
            data = _tensor_message(name, value)
            crc = binascii.crc32(data, crc)
            f.write(data)
        if crc_check:
            f.write(_CRC_TAG + crc.to_bytes(_CRC_BYTES, "big"))
    _publish(tmp, path)


def _write_safetensors(path: str, entries, crc_check: bool) -> None:
    from safetensors.numpy import save_file
    tensors = {}
    for name, value in entries:
        if isinstance(value, str):
            raise TypeError(f"save_checkpoint: {name!r} is a str; the safetensors format holds "
                            "tensors only")
        tensors[name] = value
    crc = _safetensors_crc(tensors)
    metadata = {"format": "ms"}
    if crc_check:
        metadata["crc_num"] = str(crc)
    tmp = path + ".tmp"
    save_file(tensors, tmp, metadata=metadata)
    _publish(tmp, path)


def _publish(tmp: str, path: str) -> None:
    """Move the finished file to its name (a failed save never leaves half a checkpoint under
    the real name) and make it read-only for its owner, as MindSpore leaves its checkpoints."""
    os.replace(tmp, path)
    os.chmod(path, stat.S_IRUSR)


# --- loading -----------------------------------------------------------------------------------------

def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    crc_check=False, remove_redundancy=False, format="ckpt") -> dict:  # noqa: A002
    """Read a MindSpore checkpoint into ``{name: Parameter}`` (str entries stay str).

    ``filter_prefix`` (a str or tuple of str) drops names that start with it, ``specify_prefix``
    keeps only names that do, ``choice_func(name)`` returning False drops a name. With ``net``,
    the parameters are also loaded into it (:func:`load_param_into_net` with ``strict_load``).
    ``crc_check=True`` verifies the CRC the file carries.
    """
    if dec_key is not None:
        raise ValueError("load_checkpoint: encrypted checkpoints (dec_key) are not supported by "
                         "graphcell")
    if format not in ("ckpt", "safetensors"):
        raise ValueError(f"load_checkpoint: format must be 'ckpt' or 'safetensors', got {format!r}")
    path = _checked_file(os.fspath(ckpt_file_name), format)
    raw = _read_ckpt(path, crc_check) if format == "ckpt" else _read_safetensors(path, crc_check)
    keep = _name_filter(filter_prefix, specify_prefix, choice_func)
    params = {name: (value if isinstance(value, str) else Parameter(Tensor(value), name=name))
              for name, value in raw.items() if keep(name)}
    if net is not None:
        load_param_into_net(net, params, strict_load=strict_load)
    return params


def _checked_file(path: str, format: str) -> str:  # noqa: A002
    if not os.path.exists(path):
        raise ValueError(f"load_checkpoint: the checkpoint file {path!r} does not exist")
    real = os.path.realpath(path)
    if not os.path.isfile(real):  # a directory, a device (/dev/zero), a FIFO: never read it
        raise ValueError(f"load_checkpoint: {path!r} is not a regular file")
    if os.path.getsize(real) > MAX_CHECKPOINT_BYTES:
        raise ValueError(f"load_checkpoint: {path!r} is larger than {MAX_CHECKPOINT_BYTES} bytes")
    return real


def _read_ckpt(path: str, crc_check: bool) -> dict:
    from google.protobuf.message import DecodeError

    from graphcell.train._checkpoint_proto import Checkpoint
    with open(path, "rb") as f:
        content = f.read()
    tail = content[-(len(_CRC_TAG) + _CRC_BYTES):]
    if tail[:len(_CRC_TAG)] == _CRC_TAG:
        content = content[:-len(tail)]
        if crc_check and binascii.crc32(content) != int.from_bytes(tail[len(_CRC_TAG):], "big"):
            raise ValueError(f"load_checkpoint: the CRC check of {path!r} failed: the file is "
                             "damaged")
    elif crc_check:
        warnings.warn(f"load_checkpoint: {path!r} carries no CRC to check", RuntimeWarning,
                      stacklevel=3)
    message = Checkpoint()
    try:
        message.ParseFromString(content)
    except DecodeError as e:
        raise ValueError(f"load_checkpoint: failed to read {path!r}: it is not a MindSpore "
                         f"checkpoint, or it is truncated or corrupted ({e})") from None
    return _values(message, path)


def _values(message, path: str) -> dict:
    """Name -> array (or str), joining the slices MindSpore writes for large tensors."""
    chunks: dict[str, list] = {}
    meta: dict[str, tuple] = {}
    for entry in message.value:
        if entry.WhichOneof("value") != "tensor":
            raise ValueError(f"load_checkpoint: {path!r} holds a map tensor ({entry.tag!r}), which "
                             "graphcell does not support")
        t = entry.tensor
        chunks.setdefault(entry.tag, []).append(t.tensor_content)
        meta[entry.tag] = (tuple(t.dims), t.tensor_type)
    out = {}
    for name, parts in chunks.items():
        dims, type_name = meta[name]
        data = b"".join(parts)
        if type_name == _STR:
            out[name] = str(np.frombuffer(data, f"U{len(data) // 4}")[0]) if data else ""
            continue
        dtype = _BY_MS_NAME.get(type_name)
        if dtype is None:
            raise ValueError(f"load_checkpoint: {name!r} in {path!r} has type {type_name!r}, which "
                             "graphcell does not support")
        shape = () if dims == (0,) and len(data) == dtype.itemsize else dims
        want = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if len(data) != want:
            raise ValueError(f"load_checkpoint: {name!r} in {path!r} has {len(data)} bytes of data "
                             f"where shape {list(shape)} of {type_name} needs {want}: the file is "
                             "corrupted")
        out[name] = np.frombuffer(data, dtype.np_dtype).reshape(shape).copy()
    return out


def _read_safetensors(path: str, crc_check: bool) -> dict:
    from safetensors import SafetensorError, safe_open
    out = {}
    try:
        with safe_open(path, "np") as f:
            metadata = f.metadata() or {}
            for name in f.keys():
                out[name] = f.get_tensor(name)
    except (SafetensorError, OSError) as e:
        raise ValueError(f"load_checkpoint: failed to read {path!r} as safetensors: {e}") from None
    crc = _safetensors_crc(out)
    if crc_check:
        if "crc_num" not in metadata:
            warnings.warn(f"load_checkpoint: {path!r} carries no CRC to check", RuntimeWarning,
                          stacklevel=3)
        elif int(metadata["crc_num"]) != crc:
            raise ValueError(f"load_checkpoint: the CRC check of {path!r} failed: the file is "
                             "damaged")
    return out


def _safetensors_crc(tensors: dict) -> int:
    """MindSpore's CRC of a safetensors checkpoint: over name and bytes, in sorted name order."""
    crc = 0
    for name in sorted(tensors):
        crc = binascii.crc32(name.encode(), crc)
        crc = binascii.crc32(np.require(tensors[name], requirements="C").tobytes(), crc)
    return crc


def _name_filter(filter_prefix, specify_prefix, choice_func) -> Callable[[str], bool]:
    drop = _prefixes(filter_prefix, "filter_prefix")
    only = _prefixes(specify_prefix, "specify_prefix")

    def keep(name: str) -> bool:
        if drop and name.startswith(drop):
            return False
        if only and not name.startswith(only):
            return False
        return choice_func is None or bool(choice_func(name))
    return keep


def _prefixes(value, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    values = (value,) if isinstance(value, str) else tuple(value)
    if not all(isinstance(v, str) and v for v in values):
        raise TypeError(f"load_checkpoint: {what} must be a non-empty str or a tuple of them, got "
                        f"{value!r}")
    return values


# --- into a network ------------------------------------------------------------------------------

def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Set ``net``'s parameters from ``parameter_dict``; returns ``(param_not_load,
    ckpt_not_load)``: the net's parameter names that got no value, and the dict's names no
    parameter took.

    Shapes must agree (RuntimeError otherwise). Without ``strict_load`` a value of another float
    type (or another int type) is converted to the parameter's dtype; other dtype differences
    are errors. As in MindSpore, when some parameters found no value, names that differ by a
    common prefix (a checkpoint of ``WithLossCell(net)`` holds ``_backbone.fc.weight``) are tried.
    Nothing is changed when an error is raised.
    """
    from graphcell.nn.cell import Cell
    if not isinstance(net, Cell):
        raise TypeError(f"load_param_into_net: net must be a Cell, got {type(net).__name__}")
    if not isinstance(parameter_dict, Mapping):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, got "
                        f"{type(parameter_dict).__name__}")
    if not isinstance(strict_load, bool):
        raise TypeError(f"load_param_into_net: strict_load must be a bool, got {strict_load!r}")
    params = [p for _, p in net.parameters_and_names()]
    updates = {}
    param_not_load, ckpt_not_load = [], list(parameter_dict)
    for p in params:
        if p.name in parameter_dict:
            updates[p.name] = (p, _new_value(p, parameter_dict[p.name], strict_load))
            ckpt_not_load.remove(p.name)
        else:
            param_not_load.append(p.name)
    if param_not_load and not strict_load:
        _match_prefix(params, parameter_dict, param_not_load, updates, strict_load)
    for p, value in updates.values():  # all checked: now write, so a failure changes nothing
        p.set_data(value)
    if param_not_load:
        warnings.warn(f"load_param_into_net: {len(param_not_load)} parameter(s) of the net are not "
                      f"in parameter_dict and were not loaded: {param_not_load}", RuntimeWarning,
                      stacklevel=2)
    return param_not_load, ckpt_not_load


def _new_value(param: Parameter, value, strict_load: bool) -> Tensor:
    if isinstance(value, str) or not isinstance(value, (Tensor, np.ndarray, int, float)):
        raise RuntimeError(f"load_param_into_net: the value of {param.name!r} in parameter_dict "
                           f"is a {type(value).__name__}, not a tensor")
    t = value if isinstance(value, Tensor) else Tensor(value)
    if tuple(t.shape) != tuple(param.shape):
        raise RuntimeError(f"load_param_into_net: {param.name!r} has shape {tuple(param.shape)} in "
                           f"the net and {tuple(t.shape)} in parameter_dict; check that the "
                           "checkpoint matches the network")
    if t.dtype != param.dtype:
        same_kind = (t.dtype.is_float and param.dtype.is_float) or \
                    (t.dtype.is_int and param.dtype.is_int)
        if strict_load or not same_kind:
            raise RuntimeError(f"load_param_into_net: {param.name!r} is {param.dtype} in the net "
                               f"and {t.dtype} in parameter_dict")
        t = Tensor(t.asnumpy().astype(param.dtype.np_dtype))
    return Tensor(t.asnumpy().copy())


def _match_prefix(params, parameter_dict, param_not_load, updates, strict_load) -> None:
    """MindSpore's second pass: a prefix that turns missing net names into checkpoint names."""
    prefix = next((key[:-len(name)] for name in param_not_load for key in parameter_dict
                   if key.endswith(name) and key != name), None)
    if not prefix:
        return
    for p in params:
        key = prefix + p.name
        if p.name in param_not_load and key in parameter_dict:
            updates[p.name] = (p, _new_value(p, parameter_dict[key], strict_load))
            param_not_load.remove(p.name)

"""The manifest of an artifact (``manifest.json``): building it, and checking one read from a file.

A manifest is plain JSON (``format_version`` 1)::

    {
      "format": "graphcell-artifact", "format_version": 1,
      "kind": "inference" | "train_step",      train_step: some parameters are written back
      "function": "LeNet5.construct",           the IR function to run
      "inputs":  [{"name": "x", "dtype": "float32", "shape": [32, 1, 32, 32]}, ...],
      "params":  [{"name": "conv1.weight", "dtype": "float32", "shape": [...],
                   "requires_grad": true}, ...],   in argument order (after the inputs)
      "mutated": ["moments.fc1.weight", ...],       written back from the results after the outputs
      "n_outputs": 1,
      "output": {"result": 0},                       the Python structure of what a call returns
      "pipeline": ["inline", ...],                   the passes the IR went through
      "created_by": {"graphcell": "0.1.0", "numpy": ..., "numba": ..., "llvmlite": ..., "python": ...},
      "cpu": {"machine": "x86_64", "name": "...", "cores": 8},
      "members": {"model.gcir": {"sha256": "...", "size": 1234}, ...},
      "native": {"abi": ..., "target": ..., "kernels": [...], "skipped": [...]}
    }

``native`` (optional: absent when exported with ``native=False``) describes the members
``native/<id>.o``, the kernels' object code; ``graphcell/aot/native.py`` has its form.

The output structure: ``{"result": i}`` (the i-th result, a Tensor), ``{"static": v}`` (a
constant Python value: None, bool, int, float, str), ``{"seq": [...], "kind": "tuple"|"list"}``,
``{"dict": [[key, item], ...]}``.

Example::

    >>> from graphcell_ir.frontend.output import OutResult, OutSeq, OutStatic
    >>> spec = OutSeq((OutResult(0), OutStatic(None)))
    >>> encode_output(spec)
    {'seq': [{'result': 0}, {'static': None}], 'kind': 'tuple'}
    >>> decode_output(encode_output(spec), 1) == spec
    True
"""
from __future__ import annotations

import json
import os
import platform
import re
import sys
from importlib import metadata
from typing import Any

import numpy as np

from graphcell_ir.errors import ArtifactError
from graphcell_ir.frontend.output import OutDict, OutResult, OutSeq, OutStatic

__all__ = ["FORMAT", "FORMAT_VERSION", "KINDS", "encode_output", "decode_output", "environment",
           "check_manifest", "parse_manifest", "DTYPES"]

FORMAT = "graphcell-artifact"
FORMAT_VERSION = 1
KINDS = ("inference", "train_step")
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64")
_STATIC_TYPES = (type(None), bool, int, float, str)
_HEX24 = re.compile(r"^[0-9a-f]{24}$")
_STEP_KEY = re.compile(r"^[0-9a-f]{24}(\.[A-Za-z_][A-Za-z0-9_]*)?$")   # a kernel's, a loop's
_MAX_DEPTH = 64


# --- the output structure ------------------------------------------------------------------------

def encode_output(spec) -> dict:
    """The JSON form of the frontend's output structure; ArtifactError for what JSON cannot say
    (a returned Python object that is not None/bool/int/float/str, a namedtuple...)."""
    if isinstance(spec, OutResult):
        return {"result": spec.index}
    if isinstance(spec, OutStatic):
        if not isinstance(spec.value, _STATIC_TYPES):
            raise ArtifactError(f"the function returns the Python value {spec.value!r} "
                                f"({type(spec.value).__name__}); an artifact can only return "
                                "tensors, None, bool, int, float and str")
        return {"static": spec.value}
    if isinstance(spec, OutDict):
        for k in spec.keys:
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise ArtifactError(f"the function returns a dict with key {k!r}; an artifact "
                                    "can only use str and int keys")
        return {"dict": [[k, encode_output(v)] for k, v in zip(spec.keys, spec.items)]}
    if isinstance(spec, OutSeq) and spec.kind in (tuple, list):
        return {"seq": [encode_output(s) for s in spec.items], "kind": spec.kind.__name__}
    raise ArtifactError(f"the function returns a {getattr(spec, 'kind', type(spec)).__name__}; "
                        "an artifact can only return tensors, tuples, lists, dicts and constants")


def decode_output(obj, n_outputs: int, depth: int = 0):
    """The output structure from its JSON form, checked (result indices below ``n_outputs``)."""
    if depth > _MAX_DEPTH:
        raise ArtifactError("the output structure nests too deeply", member="manifest.json")
    if isinstance(obj, dict) and len(obj) == 1 and "result" in obj:
        i = obj["result"]
        if not _is_int(i) or not 0 <= i < n_outputs:
            raise _bad(f"output result index {i!r} is not in [0, {n_outputs})")
        return OutResult(i)
    if isinstance(obj, dict) and len(obj) == 1 and "static" in obj:
        if not isinstance(obj["static"], _STATIC_TYPES):
            raise _bad(f"output constant {obj['static']!r} is not a plain value")
        return OutStatic(obj["static"])
    if isinstance(obj, dict) and set(obj) == {"seq", "kind"} and isinstance(obj["seq"], list):
        kind = {"tuple": tuple, "list": list}.get(obj["kind"])
        if kind is None:
            raise _bad(f"output sequence kind {obj['kind']!r} is not tuple or list")
        return OutSeq(tuple(decode_output(s, n_outputs, depth + 1) for s in obj["seq"]), kind)
    if isinstance(obj, dict) and set(obj) == {"dict"} and isinstance(obj["dict"], list):
        pairs = obj["dict"]
        if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], (str, int))
                   for p in pairs):
            raise _bad("output dict entries must be [key, structure] pairs")
        return OutDict(tuple(p[0] for p in pairs),
                       tuple(decode_output(p[1], n_outputs, depth + 1) for p in pairs))
    raise _bad(f"unknown output structure {json.dumps(obj)[:80]}")


# --- the environment -----------------------------------------------------------------------------

def environment() -> tuple[dict, dict]:
    """``(created_by, cpu)``: the versions of what compiled the artifact, and the CPU."""
    from graphcell._version import __version__
    created_by = {"graphcell": __version__, "python": platform.python_version()}
    for dist in ("numpy", "numba", "llvmlite"):
        try:
            created_by[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            created_by[dist] = None
    cpu = {"machine": platform.machine(), "name": cpu_name(), "cores": os.cpu_count(),
           "byteorder": sys.byteorder}
    return created_by, cpu


def cpu_name() -> str:
    """The CPU's model name (the manifest records it; `graphcell info` prints it)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# --- checking a manifest read from a file --------------------------------------------------------

def parse_manifest(data: bytes, path) -> dict:
    """The manifest's JSON, checked by :func:`check_manifest`."""
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ArtifactError(f"is not valid UTF-8 JSON ({e})", path, "manifest.json") from None
    try:
        check_manifest(obj)
    except ArtifactError as e:
        raise ArtifactError(e.reason, path, "manifest.json") from None
    return obj


def check_manifest(m: Any) -> None:
    """Raise ArtifactError unless ``m`` has every field of the format, with the right types."""
    if not isinstance(m, dict):
        raise _bad("is not a JSON object")
    if m.get("format") != FORMAT:
        raise _bad(f"format is {m.get('format')!r}, not {FORMAT!r}: not a graphcell artifact")
    if m.get("format_version") != FORMAT_VERSION:
        raise _bad(f"format_version {m.get('format_version')!r} is not supported (this graphcell "
                   f"reads version {FORMAT_VERSION}); export the network again")
    _field(m, "kind", str)
    if m["kind"] not in KINDS:
        raise _bad(f"kind {m['kind']!r} is not one of {', '.join(KINDS)}")
    _field(m, "function", str)
    for key in ("inputs", "params"):
        for i, t in enumerate(_field(m, key, list)):
            _tensor_entry(t, f"{key}[{i}]")
    names = [p["name"] for p in m["params"]]
    if len(set(names)) != len(names):
        raise _bad("params has duplicate names")
    for name in _field(m, "mutated", list):
        if name not in names:
            raise _bad(f"mutated parameter {name!r} is not among the params")
    if not _is_int(_field(m, "n_outputs", int)) or m["n_outputs"] < 0:
        raise _bad("n_outputs must be a non-negative integer")
    _field(m, "output", dict)
    _field(m, "members", dict)
    if "native" in m:
        _check_native(m["native"])
    for name, entry in m["members"].items():
        if not (isinstance(entry, dict) and isinstance(entry.get("sha256"), str)
                and _is_int(entry.get("size"))):
            raise _bad(f"members[{name!r}] must be {{'sha256': str, 'size': int}}")


def _check_native(section) -> None:
    """The ``native`` section (graphcell/aot/native.py documents it)."""
    if not isinstance(section, dict):
        raise _bad("native must be an object")
    if not isinstance(section.get("abi"), str):
        raise _bad("native.abi must be a str")
    target = section.get("target")
    if target is not None and not (isinstance(target, dict)
                                   and set(target) == {"triple", "cpu", "features"}
                                   and all(isinstance(v, str) for v in target.values())):
        raise _bad("native.target must be {'triple': str, 'cpu': str, 'features': str}")
    kernels = section.get("kernels")
    if not isinstance(kernels, list):
        raise _bad("native.kernels must be a list")
    for i, k in enumerate(kernels):
        if not (isinstance(k, dict) and set(k) == {"id", "key", "args"}
                and all(isinstance(k[f], str) and _HEX24.match(k[f]) for f in ("id", "key"))
                and isinstance(k["args"], list)):
            raise _bad(f"native.kernels[{i}] must be {{'id': hex, 'key': hex, 'args': list}}")
        for a in k["args"]:
            if not (isinstance(a, list) and len(a) == 2 and a[0] in DTYPES
                    and isinstance(a[1], list) and all(_is_int(d) and d >= 0 for d in a[1])):
                raise _bad(f"native.kernels[{i}].args holds {a!r}, not [dtype, shape]")
    loops = section.get("loops")
    functions = _check_loops(loops) if loops is not None else []
    step = section.get("step", [])
    if not isinstance(step, list):
        raise _bad("native.step must be a list")
    for i, e in enumerate(step):
        if not (isinstance(e, dict) and set(e) == {"id", "key", "args"}
                and isinstance(e["id"], str) and _HEX24.match(e["id"])
                and isinstance(e["key"], str) and _STEP_KEY.match(e["key"])
                and isinstance(e["args"], list) and all(map(_loop_arg, e["args"]))):
            raise _bad(f"native.step[{i}] must be {{'id': hex, 'key': hex or 'hex.name', "
                       "'args': [['array', dtype, ndim] | ['scalar', dtype], ...]}")
    if (kernels or functions or step) and target is None:
        raise _bad("native code without native.target")
    skipped = section.get("skipped", [])
    if not isinstance(skipped, list) or not all(
            isinstance(s, dict) and isinstance(s.get("key"), str)
            and isinstance(s.get("reason"), str) and isinstance(s.get("ops", []), list)
            and all(isinstance(o, str) for o in s.get("ops", [])) for s in skipped):
        raise _bad("native.skipped must be a list of {'key': str, 'ops': list, 'reason': str}")


def _check_loops(loops) -> list:
    if not (isinstance(loops, dict) and isinstance(loops.get("source"), str)
            and _HEX24.match(loops["source"]) and isinstance(loops.get("functions"), list)):
        raise _bad("native.loops must be {'source': hex, 'functions': list}")
    for i, f in enumerate(loops["functions"]):
        if not (isinstance(f, dict) and set(f) == {"id", "name", "args"}
                and isinstance(f["id"], str) and _HEX24.match(f["id"])
                and isinstance(f["name"], str) and f["name"].isidentifier()
                and isinstance(f["args"], list) and all(map(_loop_arg, f["args"]))):
            raise _bad(f"native.loops.functions[{i}] must be {{'id': hex, 'name': str, 'args': "
                       "[['array', dtype, ndim] | ['scalar', dtype], ...]}")
    return loops["functions"]


def _loop_arg(a) -> bool:
    if not isinstance(a, list) or not a or a[0] not in ("array", "scalar"):
        return False
    if a[0] == "array":
        return len(a) == 3 and a[1] in DTYPES and _is_int(a[2]) and 0 <= a[2] <= 32
    return len(a) == 2 and a[1] in ("int64", "float64", "float32")


def _tensor_entry(t, where: str) -> None:
    if not isinstance(t, dict) or not isinstance(t.get("name"), str):
        raise _bad(f"{where} must be an object with a str name")
    if t.get("dtype") not in DTYPES:
        raise _bad(f"{where} has dtype {t.get('dtype')!r}, not one of {', '.join(DTYPES)}")
    shape = t.get("shape")
    if not isinstance(shape, list) or not all(_is_int(d) and d >= 0 for d in shape):
        raise _bad(f"{where} has shape {shape!r}; expected a list of non-negative integers")


def _field(m: dict, key: str, kind: type):
    if key not in m:
        raise _bad(f"has no {key!r} field")
    if not isinstance(m[key], kind):
        raise _bad(f"field {key!r} must be a {kind.__name__}, got {type(m[key]).__name__}")
    return m[key]


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _bad(message: str) -> ArtifactError:
    return ArtifactError(message, member="manifest.json")


def dtype_name(dtype) -> str:
    """The manifest's spelling of a numpy dtype (``float32``, ``bool``)."""
    name = np.dtype(dtype).name
    return "bool" if name == "bool" else name

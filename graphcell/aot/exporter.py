"""``graphcell.export``: compile a network as graph mode does and write it as one artifact file.

The network (a Cell, a function, a ``@jit`` function or method) is compiled by the graph-mode
bridge (``graphcell.graph``: frontend, then the optimizing pipeline) for the example inputs. The
compiled program becomes the members of ``container.py``: the IR text, the parameters' values, the
constant table and the manifest (``manifest.py``). Before writing, the text is parsed back and
verified, so export never writes an artifact that ``load`` would reject.

A training step — a ``TrainOneStepCell``, or any function that updates Parameters — exports the
same way: the parameters it writes back are listed as ``mutated`` and are updated in place by each
call of the loaded ``GraphCell``.

Every kernel of the program is also compiled for this CPU and stored as object code
(``native.py``; ``native=False`` leaves it out), which ``load(native=True)`` links instead of
compiling. When a signing key is configured (``set_context(artifact_key=...)`` or
``GRAPHCELL_ARTIFACT_KEY``: ``trust.py``) the artifact is signed, so that ``load(native=True)``
where the same key is configured trusts its native code.

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> net = nn.Dense(3, 2)
    >>> path = ms.export(net, ms.Tensor(np.ones((4, 3), np.float32)),
    ...                  file_name=os.path.join(tempfile.mkdtemp(), "dense"))
    >>> os.path.basename(path)
    'dense.gcpkg'
"""
from __future__ import annotations

import io
import json
import os
import zipfile
from typing import Any

import numpy as np

from graphcell_ir.errors import ArtifactError, ExportFormatError, GraphcellError
from graphcell_ir.ir.walk import walk
from graphcell_ir.text.values import HostRef
from graphcell.aot import container as C
from graphcell.aot.checkpoint import checkpoint_loaded
from graphcell.aot.files import write_atomically
from graphcell.aot.manifest import (FORMAT, FORMAT_VERSION, dtype_name, encode_output,
                                    environment)
from graphcell.aot.native import emit_native
from graphcell.aot.trust import configured_key, sign

__all__ = ["export", "build_members", "compile_for_export", "SUFFIX", "FORMATS"]

SUFFIX = ".gcpkg"
FORMATS = {"GCIR": SUFFIX, "ONNX": ".onnx"}
"""The ``file_format`` values graphcell writes, with the suffix added to a ``file_name`` that lacks
it: ``"GCIR"`` (graphcell's artifact, what ``graphcell.load`` reads) and ``"ONNX"``
(``graphcell.aot.onnx``; needs the optional ``onnx`` package)."""
NOT_WRITTEN = {
    "MINDIR": "MindIR is MindSpore's own graph format, built from MindSpore's primitives; "
              "graphcell's IR is not written as MindIR and MindSpore cannot load a .gcpkg",
    "AIR": "AIR is the Ascend intermediate representation (deprecated in MindSpore 2.10)",
}
IR_LOCS = "full"   # every inlined frame: the text round-trips exactly


def export(net, *inputs, file_name: str, file_format: str = "GCIR", native: bool = True,
           ckpt_file_name=None, **kwargs) -> str:
    """Compile ``net`` for ``inputs`` and write it to ``file_name`` in ``file_format``; returns the
    path written (the format's suffix is added when missing).

    ``net`` is a Cell (its ``construct``), a function or a ``@jit`` function/method; ``inputs``
    are example Tensors (their dtypes and shapes are the artifact's input signature; Python
    values among them are compiled in as constants). Formats:

    - ``"GCIR"`` (default): a ``.gcpkg`` artifact, the optimized IR + weights + manifest, which
      ``graphcell.load`` reads. ``native``: also store the kernels' object code for this CPU
      (needs numba; takes a compile per kernel the first time, then the kernel cache answers).
      The artifact is signed when a key is configured (see the module docstring).
    - ``"ONNX"``: an ``.onnx`` model of the inference graph (``pip install graphcell[onnx]``),
      which onnxruntime runs; an op without an ONNX equivalent is an ``OnnxExportError`` naming it
      and its source line.

    ``"MINDIR"`` and ``"AIR"`` (MindSpore's formats) are refused with an ``ExportFormatError``:
    graphcell cannot write files MindSpore loads as graphs. ``ckpt_file_name``: a MindSpore
    checkpoint (``.ckpt`` or ``.safetensors``) whose values the artifact gets as its weights
    (``graphcell.aot.checkpoint``; the network itself is left unchanged). MindSpore's other
    keywords are accepted and ignored. Raises ArtifactError when the compiled program cannot be
    written (it returns a Python object JSON cannot say, or calls back into Python).

    Example::

        >>> import os, tempfile
        >>> import numpy as np
        >>> import graphcell as ms
        >>> x = ms.Tensor(np.ones((1, 3), np.float32))
        >>> try:
        ...     ms.export(ms.nn.Dense(3, 2), x, file_name=os.path.join(tempfile.mkdtemp(), "d"),
        ...               file_format="MINDIR")
        ... except ValueError as e:
        ...     print(type(e).__name__, str(e).split(":")[0])
        ExportFormatError export
    """
    fmt = _checked_format(file_format)
    if not isinstance(file_name, (str, os.PathLike)) or not str(file_name):
        raise TypeError(f"export: file_name must be a non-empty path, got {file_name!r}")
    path = os.fspath(file_name)
    if not path.endswith(FORMATS[fmt]):
        path += FORMATS[fmt]
    if fmt == "ONNX":
        from graphcell.aot.onnx_export import require_onnx, write_onnx
        require_onnx()   # before compiling: a missing extra is said at once
    with checkpoint_loaded(net, ckpt_file_name):
        compiled = compile_for_export(net, inputs)
        if fmt == "ONNX":
            write_onnx(compiled, path)
            return path
        members = build_members(compiled, native=bool(native))
    write_atomically(path, lambda f: C.write_members(f, members), ".gcpkg-")
    return path


def _checked_format(file_format) -> str:
    fmt = str(file_format).upper()
    if fmt in FORMATS:
        return fmt
    why = NOT_WRITTEN.get(fmt, "graphcell does not know this format")
    raise ExportFormatError(
        f"export: file_format={file_format!r} is not written by graphcell: {why}. graphcell "
        "writes file_format='GCIR' (a .gcpkg artifact that graphcell.load reads) and "
        "file_format='ONNX' (an .onnx model for onnxruntime and other ONNX tools)")


def compile_for_export(net, inputs: tuple, jit_level: str = "O1"):
    """The bridge's ``Compiled`` of ``net`` for ``inputs``, optimized (not cached on ``net``)."""
    staged = staged_of(net, jit_level)
    return staged.lower(tuple(inputs), {})


def staged_of(net, jit_level: str | None):
    """A fresh ``graphcell.graph.cache.Staged`` for ``net`` (Cell, function, ``@jit``)."""
    from graphcell.graph.cache import Staged
    from graphcell.graph.jit import BoundJit, JitFunction
    from graphcell.graph.resolver import construct_of
    from graphcell.nn.cell import Cell
    if isinstance(net, Cell):
        fn = construct_of(net)
        return Staged(fn, net, f"{type(net).__name__}.{fn.__name__}", call_cell=True,
                      jit_level=jit_level)
    if isinstance(net, BoundJit):
        fn = net.__graphcell_jit__
        return Staged(fn, net.__self__, f"{type(net.__self__).__name__}.{fn.__name__}",
                      jit_level=jit_level)
    fn = net.__graphcell_jit__ if isinstance(net, JitFunction) else net
    if not callable(fn):
        raise TypeError(f"export: expected a Cell or a function, got {type(net).__name__}")
    bound = getattr(fn, "__self__", None)
    if bound is not None and hasattr(fn, "__func__"):   # a plain bound method
        return Staged(fn.__func__, bound, f"{type(bound).__name__}.{fn.__name__}",
                      jit_level=jit_level)
    name = (getattr(fn, "__qualname__", None) or fn.__name__).split("<locals>.")[-1]
    return Staged(fn, None, name, jit_level=jit_level)


# --- the members ---------------------------------------------------------------------------------

def build_members(compiled, native: bool = True) -> dict[str, bytes]:
    """The artifact's members (name -> bytes) for a bridge ``Compiled``; with ``native``, the
    kernels' object code too."""
    from graphcell_ir.passes.pipelines import DEFAULT
    from graphcell_ir.text.printer import print_module
    program = compiled.program
    _check_params(program)
    text = print_module(program.module, locs=IR_LOCS)
    module = _check_text(text, program.module.consts)
    ir = text.encode("utf-8")
    weights = npz_bytes({p.name: p._data for p in program.params})
    consts = npz_bytes(dict(program.module.consts))
    members = {C.IR: ir, C.WEIGHTS: weights, C.CONSTS: consts}
    section = None
    if native:   # from the IR read back: the kernels load() will find, with the same keys
        section, objects = emit_native(module)
        members.update(objects)
    manifest = _manifest(program, DEFAULT, members, section)
    key = configured_key()
    signature = {C.SIGNATURE: sign(manifest, key)} if key is not None else {}
    return {C.MANIFEST: manifest, **members, **signature}


def _manifest(program, pipeline, members: dict[str, bytes], native: dict | None) -> bytes:
    created_by, cpu = environment()
    n_inputs = len(program.inputs) - len(program.params)
    inputs = [_tensor_entry(a.name_hint or f"input{i}", a.type.dtype.np_dtype, a.type.shape)
              for i, a in enumerate(program.function.args[:n_inputs])]
    params = [dict(_tensor_entry(p.name, p._data.dtype, p._data.shape),
                   requires_grad=bool(p.requires_grad)) for p in program.params]
    m = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "kind": "train_step" if program.mutated else "inference",
        "function": program.function.name,
        "inputs": inputs, "params": params,
        "mutated": [p.name for p in program.mutated],
        "n_outputs": program.n_outputs,
        "output": encode_output(program.output),
        "pipeline": list(pipeline),
        "created_by": created_by, "cpu": cpu,
        "members": {name: {"sha256": C.sha256(data), "size": len(data)}
                    for name, data in members.items()},
    }
    if native is not None:
        m["native"] = native
    return (json.dumps(m, indent=1, sort_keys=False) + "\n").encode("utf-8")


def _tensor_entry(name: str, dtype, shape) -> dict:
    return {"name": name, "dtype": dtype_name(dtype), "shape": [int(d) for d in shape]}


def _check_params(program) -> None:
    names = [p.name for p in program.params]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ArtifactError(f"several parameters are named {', '.join(map(repr, dup))}; give "
                            "each Parameter a unique name before exporting")
    ids = {id(p) for p in program.params}
    for p in program.mutated:
        if id(p) not in ids:
            raise ArtifactError(f"the function writes parameter {p.name!r} without taking it "
                                "as an argument")
    if any(not isinstance(a, int) for a in program.inputs[:len(program.inputs) - len(ids)]):
        raise ArtifactError("the compiled function interleaves inputs and parameters")


def _check_text(text: str, consts: dict):
    """Parse the text back and verify it: what ``load`` will do; the module read back. Host
    callbacks (``@name`` attributes) cannot be exported."""
    from graphcell_ir.ir.verify import verify
    from graphcell_ir.text.parser import parse_module
    try:
        module = parse_module(text, consts=consts)
        verify(module)
    except GraphcellError as e:
        raise ArtifactError(f"the compiled IR does not read back ({e}); this is a graphcell bug, "
                            "please report it") from e
    for op in walk(module):
        for key, value in op.attrs.items():
            if _has_host_ref(value):
                raise ArtifactError(f"op {op.opdef.name!r} calls back into Python ({key}="
                                    f"@{_has_host_ref(value)}); such a network cannot be "
                                    "exported (no Python runs from an artifact)")
    return module


def _has_host_ref(value) -> str | None:
    if isinstance(value, HostRef):
        return value.name
    if isinstance(value, tuple):
        return next((n for n in map(_has_host_ref, value) if n), None)
    return None


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """``arrays`` as the bytes of an ``.npz`` (no pickled objects; any key, even ``file``)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for key, arr in arrays.items():
            if arr.dtype.hasobject:
                raise ArtifactError(f"array {key!r} holds Python objects; it cannot be exported")
            info = zipfile.ZipInfo(key + ".npy", date_time=(2020, 1, 1, 0, 0, 0))
            with z.open(info, "w", force_zip64=arr.nbytes > (1 << 30)) as f:
                np.lib.format.write_array(f, arr, allow_pickle=False)
    return buf.getvalue()


def describe(members: dict[str, Any]) -> str:
    """One line per member: name and size (for the CLI)."""
    return "\n".join(f"  {name}: {len(data)} bytes" for name, data in members.items())

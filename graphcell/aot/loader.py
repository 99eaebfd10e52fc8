"""``graphcell.load``: read an artifact, check everything in it, and return an ``nn.GraphCell``.

The checks, in order; the first that fails raises ``ArtifactError`` naming the file, the member
and the problem, and nothing has run:

1. the archive: a regular file within the size limit, a zip holding the four members (and
   native object files), each stored or deflated (``container.py``);
2. the manifest, read first: JSON with every field of the format (``manifest.py``);
3. the other members, each read only when its size is the manifest's (and within its limit,
   and not a zip bomb), then its CRC and SHA-256 checked;
4. the arrays: ``weights.npz`` and ``consts.npz`` read with ``allow_pickle=False``;
5. the IR: it parses and verifies; the function named by the manifest exists and its arguments
   and results are the manifest's inputs, params and mutated params, with their types;
6. the weights: one array per parameter, of the parameter's dtype and shape; every constant the
   IR refers to is in the table;
7. native code: the manifest's kernel and loop tables and the ``native/<id>.o`` members are
   one-to-one, each id the hash of its kernel's key and argument types.

Nothing from the file is unpickled or executed: the IR is data that graphcell's executor runs
with the installed op registry. Only ``load(native=True)`` runs machine code from the file (its
kernels' object code, linked by llvmlite: ``native.py``), and only when the artifact is trusted
— signed with the configured key, or ``trust_native_code=True`` (``trust.py``): the hashes catch
a corrupted file, not a malicious author. docs/artifact_threat_model.md says what an artifact
may and may not do.

Example::

    >>> import os, tempfile
    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import nn
    >>> x = ms.Tensor(np.ones((4, 3), np.float32))
    >>> net = nn.Dense(3, 2)
    >>> path = ms.export(net, x, file_name=os.path.join(tempfile.mkdtemp(), "dense"))
    >>> cell = ms.load(path)
    >>> bool(np.allclose(cell(x).asnumpy(), net(x).asnumpy()))
    True
"""
from __future__ import annotations

import io
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphcell_ir.errors import ArtifactError, GraphcellError
from graphcell_ir.ir.core import Function, Module
from graphcell_ir.ir.structural import CONST
from graphcell_ir.ir.types import TensorType, to_dtype
from graphcell_ir.ir.walk import walk
from graphcell.aot import container as C
from graphcell.aot.manifest import decode_output, parse_manifest
from graphcell.aot.native import NativeCodeWarning, check_native, link_native, warn_missed

__all__ = ["load", "read_artifact", "ArtifactGraph", "NativeCodeWarning"]


@dataclass
class ArtifactGraph:
    """What an artifact holds, checked: the IR module and function to run, the manifest, the
    parameter values by name, and the output structure. ``nn.GraphCell(graph)`` runs it."""

    path: str
    module: Module
    function: Function
    manifest: dict
    weights: dict[str, np.ndarray]
    output: Any
    native_objects: dict[str, bytes] = field(default_factory=dict)   # id -> object file
    native: Any = None   # the linked kernels (graphcell_ir.backend.native), load(native=True)
    manifest_bytes: bytes = b""        # as read: what a signature signs
    signature: bytes | None = None     # the manifest.sig member (trust.py), None: unsigned

    @property
    def kind(self) -> str:
        return self.manifest["kind"]

    @property
    def inputs(self) -> list[dict]:
        return self.manifest["inputs"]

    @property
    def params(self) -> list[dict]:
        return self.manifest["params"]

    @property
    def mutated(self) -> list[str]:
        return self.manifest["mutated"]

    @property
    def n_outputs(self) -> int:
        return self.manifest["n_outputs"]


def load(path, native: bool = False, *, trust_native_code: bool = False, **kwargs):
    """Load the artifact at ``path`` (written by ``graphcell.export``) as an ``nn.GraphCell``.

    Without ``native``, nothing from the file is executed: the IR runs on graphcell's own
    kernels, compiled here. Raises ArtifactError when the file is not a sound artifact.

    ``native=True`` links the kernels' machine code stored in the artifact (llvmlite, no numba)
    and runs it in this process, where it can do anything this process can. It is used only
    when the artifact is trusted: signed with the key configured by
    ``set_context(artifact_key=...)`` (or ``GRAPHCELL_ARTIFACT_KEY``), or loaded with
    ``trust_native_code=True`` — **which executes code from the file**: pass it only for a
    file you would run as a program. Otherwise it raises :class:`ArtifactTrustError` saying
    why. Objects graphcell could not have emitted (other imports, relocations, sections) are an
    ArtifactError even when trusted. The artifact's kernels serve the returned cell only. When
    the code cannot run here (CPU features or triple this machine lacks, no native code in the
    artifact, a symbol that does not resolve) the kernels concerned are compiled from the IR
    instead, with a :class:`NativeCodeWarning`. MindSpore's other keywords (``dec_key``,
    ``obf_func``...) are accepted and ignored.
    """
    from graphcell.nn.graph_cell import GraphCell
    graph = read_artifact(path)
    if native:
        try:
            graph.native = link_native(graph, trust_native_code)
        except (KeyError, TypeError, IndexError, ValueError) as e:
            if isinstance(e, ArtifactError):
                raise
            raise ArtifactError(f"its native section cannot be used ({type(e).__name__}: {e})",
                                graph.path, C.MANIFEST) from e
    cell = GraphCell(graph)
    warn_missed(graph)
    return cell


def read_artifact(path) -> ArtifactGraph:
    """Read and check the artifact at ``path`` (or a binary file object); see the module doc."""
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else getattr(path, "name", "<file>")
    try:
        return _read(path, name)
    except ArtifactError:
        raise
    except (GraphcellError, ValueError, TypeError, KeyError, IndexError, OSError, EOFError,
            zipfile.BadZipFile, zlib.error, RecursionError, OverflowError, MemoryError) as e:
        # a check above missed a way the file can be wrong: still refuse it, and say what broke
        raise ArtifactError(f"cannot be loaded ({type(e).__name__}: {e})", name) from e


_FOREIGN = {
    ".mindir": "is a MindIR file (MindSpore's own graph format), which graphcell does not read; "
               "export the network with graphcell.export (a .gcpkg), or move its weights with a "
               "checkpoint (MindSpore's save_checkpoint, then graphcell.load_checkpoint)",
    ".onnx": "is an ONNX model; run it with onnxruntime (graphcell.load reads the .gcpkg "
             "artifacts that graphcell.export writes)",
    ".air": "is an AIR file (Ascend's format), which graphcell does not read",
}


def _refuse_foreign(source, path: str) -> None:
    """A MindIR/ONNX/AIR file is refused by name, not as a corrupted artifact."""
    reason = _FOREIGN.get(os.path.splitext(path)[1].lower())
    if reason and isinstance(source, (str, os.PathLike)) and os.path.isfile(source) \
            and not zipfile.is_zipfile(source):
        raise ArtifactError(reason, path)


def _read(source, path: str) -> ArtifactGraph:
    _refuse_foreign(source, path)
    with C.Archive(source, path) as archive:
        raw = archive.manifest()
        manifest = parse_manifest(raw, path)
        members = archive.read_listed(manifest["members"])
        signature = archive.signature()
    consts = read_npz(members[C.CONSTS], path, C.CONSTS)
    weights = read_npz(members[C.WEIGHTS], path, C.WEIGHTS)
    module, fn = _read_ir(members[C.IR], manifest, consts, path)
    _check_signature(fn, manifest, path)
    _check_weights(weights, manifest, path)
    _check_consts(module, consts, path)
    native = check_native(manifest, members, path)
    try:
        output = decode_output(manifest["output"], manifest["n_outputs"])
    except ArtifactError as e:
        raise ArtifactError(e.reason, path, C.MANIFEST) from None
    return ArtifactGraph(path, module, fn, manifest, weights, output, native, None, raw,
                         signature)


def read_npz(data: bytes, path: str, member: str) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` member, read with ``allow_pickle=False``."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            return {key: z[key] for key in z.files}
    except Exception as e:  # numpy raises many kinds on bad bytes; none of them is trusted
        raise ArtifactError(f"cannot be read as arrays without pickle ({type(e).__name__}: {e})",
                            path, member) from None


def _read_ir(data: bytes, manifest: dict, consts: dict, path: str) -> tuple[Module, Function]:
    from graphcell_ir.ir.verify import verify
    from graphcell_ir.text.parser import parse_module
    try:
        module = parse_module(data, filename=f"{path}!{C.IR}", consts=consts)
    except (GraphcellError, RecursionError) as e:
        raise ArtifactError(f"the IR does not parse: {e}", path, C.IR) from None
    try:
        verify(module)
    except (GraphcellError, RecursionError) as e:
        raise ArtifactError(f"the IR does not verify: {e}", path, C.IR) from None
    fn = module.get(manifest["function"])
    if fn is None:
        raise ArtifactError(f"has no function @{manifest['function']} (the manifest's "
                            f"function); it has {', '.join('@' + f.name for f in module)}",
                            path, C.IR)
    return module, fn


def _tensor_type(entry: dict) -> TensorType:
    return TensorType(to_dtype(np.dtype(entry["dtype"])), tuple(entry["shape"]))


def _check_signature(fn: Function, manifest: dict, path: str) -> None:
    inputs, params = manifest["inputs"], manifest["params"]
    args = fn.args
    if len(args) != len(inputs) + len(params):
        raise ArtifactError(f"@{fn.name} takes {len(args)} arguments; the manifest has "
                            f"{len(inputs)} inputs and {len(params)} params", path, C.IR)
    for i, (arg, entry) in enumerate(zip(args, inputs + params)):
        is_param = i >= len(inputs)
        what = f"param {entry['name']!r}" if is_param else f"input {entry['name']!r}"
        if arg.param != is_param or arg.type != _tensor_type(entry):
            raise ArtifactError(f"argument {i} of @{fn.name} is {arg.type}"
                                f"{' param' if arg.param else ''}; the manifest's {what} is "
                                f"{_tensor_type(entry)}", path, C.IR)
    by_name = {p["name"]: p for p in params}
    results = fn.result_types or ()
    n_out, mutated = manifest["n_outputs"], manifest["mutated"]
    if len(results) != n_out + len(mutated):
        raise ArtifactError(f"@{fn.name} has {len(results)} results; the manifest has "
                            f"{n_out} outputs and {len(mutated)} mutated params", path, C.IR)
    for name, t in zip(mutated, results[n_out:]):
        if t != _tensor_type(by_name[name]):
            raise ArtifactError(f"the new value of param {name!r} is {t}, the param is "
                                f"{_tensor_type(by_name[name])}", path, C.IR)


def _check_weights(weights: dict, manifest: dict, path: str) -> None:
    names = [p["name"] for p in manifest["params"]]
    missing = [n for n in names if n not in weights]
    extra = sorted(set(weights) - set(names))
    if missing or extra:
        raise ArtifactError(f"has no value for param(s) {missing}" if missing else
                            f"holds arrays for unknown param(s) {extra}", path, C.WEIGHTS)
    for p in manifest["params"]:
        arr = weights[p["name"]]
        if arr.dtype != np.dtype(p["dtype"]) or list(arr.shape) != p["shape"]:
            raise ArtifactError(f"param {p['name']!r} is {arr.dtype}{list(arr.shape)}; the "
                                f"IR and the manifest say {p['dtype']}{p['shape']}", path,
                                C.WEIGHTS)


def _check_consts(module: Module, consts: dict, path: str) -> None:
    for op in walk(module):
        if op.opdef is CONST and "ref" in op.attrs and op.attrs["ref"] not in consts:
            raise ArtifactError(f"has no constant {op.attrs['ref']!r}, which the IR uses", path,
                                C.CONSTS)

"""The native code of an artifact: emitting it at export, checking and linking it at load.

At export every kernel the executable of the IR runs (fused groups, lone elementwise ops) is
compiled by graphcell's code generator for its operand types and emitted as an object file for
this CPU, and so is every convolution/pooling loop the IR's ops call, for the argument types they
call it with, and every kernel and loop the function's native step calls
(``graphcell_ir.backend.aot`` finds them; the object store keeps them). Each object is the member
``native/<id>.o`` of the artifact, hashed like the others; the manifest's ``native`` section
says what they are::

    "native": {"abi": "graphcell-native-1",
               "target": {"triple": "x86_64-unknown-linux-gnu", "cpu": "znver4",
                          "features": "+64bit,+adx,...,-amx-tile,..."},
               "kernels": [{"id": "...", "key": "...", "args": [["float32", [32, 10]], ...]}],
               "loops": {"source": "<hash of nn_loops.py>",
                         "functions": [{"id": "...", "name": "im2col",
                                        "args": [["array", "float32", 4], ...]}]},
               "step": [{"id": "...", "key": "...", "args": [["array", "float32", 2], ...]}],
               "skipped": [{"key": "...", "ops": ["mul", ...], "reason": "a scalar operand"}]}

``id`` is the hash of the ABI, the kernel's key and its argument types, so an entry cannot be
paired with another object or signature without the load noticing. Loops are valid for the
``nn_loops`` text they were compiled from only. ``step`` (optional) lists the other objects:
the native step's kernels' shape-generic entries (the arrays' dimensions passed as arguments;
``key`` the kernel's source key) and loops of other sources than ``nn_loops`` (``key``
``"<source hash>.<name>"``: ``step/layout.py``'s transposes, and the direct convolutions'
hand-written kernels, ``codegen/direct_conv.py`` and ``direct_filter.py``, which the step and
the Python runner both call: a loaded runner takes them from its loops namespace,
``hand_written``), with argument kinds as the loops'. A graphcell older than this table
refuses such an artifact (members the manifest does not list: ArtifactError), never runs it
wrongly.

``load(native=True)`` links the objects with llvmlite and the loaded GraphCell calls them
instead of compiling: through its native step (``graphcell_ir/backend/step``, emitted here
calling only these objects) when the function has one, else through the Python runner. What
the code generator refused has no object (``skipped``) and is compiled at load. The artifact
must be trusted first (signed with the configured key, or ``trust_native_code=True``:
``trust.py``), else ArtifactTrustError.
Every object is checked before LLVM sees it (``objfile.check_linkable``: one entry, only libm's
imports, graphcell's relocations and sections); an object graphcell could not have emitted, or
that is not what the manifest says, is an ArtifactError. The linked code serves the loaded
GraphCell only: its kernels and its convolution/pooling loops never replace the process's own.
When the artifact's code cannot run here (no native section, another ABI, a triple or CPU
features this machine lacks, or that this process's target leaves out — ``NUMBA_CPU_FEATURES``
narrowed, ``native.process_target`` —, a symbol it cannot resolve) the IR path runs instead,
compiled for this process's target, with a :class:`NativeCodeWarning` saying why.

Example::

    >>> import os, tempfile, warnings
    >>> import numpy as np
    >>> import graphcell as ms
    >>> from graphcell import ops
    >>> def f(x):
    ...     return ops.tanh(x * 2.0) + 1.0
    >>> x = ms.Tensor(np.linspace(-1, 1, 6, dtype=np.float32))
    >>> path = ms.export(f, x, file_name=os.path.join(tempfile.mkdtemp(), "f"))
    >>> cell = ms.load(path, native=True, trust_native_code=True)   # we just made it
    >>> len(cell.graph.native)   # the kernel's fixed-shape entry (the runner's) and the step's
    2
    >>> bool(np.allclose(cell(x).asnumpy(), np.tanh(x.asnumpy() * 2) + 1))
    True
"""
from __future__ import annotations

import logging
import warnings

from graphcell_ir.errors import ArtifactError
from graphcell.aot import container as C
from graphcell.aot.trust import require_trust

__all__ = ["NativeCodeWarning", "emit_native", "check_native", "link_native", "warn_missed"]

log = logging.getLogger("graphcell.aot")


class NativeCodeWarning(UserWarning):
    """``load(native=True)`` runs (some of) the artifact through the IR path instead of its
    native code; the message says which kernels and why."""


def member_name(id_: str) -> str:
    return f"native/{id_}.o"


# --- export --------------------------------------------------------------------------------------

def emit_native(module) -> tuple[dict, dict[str, bytes]]:
    """The manifest's ``native`` section and the object-file members for every kernel and loop
    of ``module`` (the IR exactly as ``load`` will read it): ``graphcell_ir.backend.aot``."""
    from graphcell_ir.backend import aot
    from graphcell_ir.backend import native as N
    found = aot.native_objects(module)
    section = {"abi": N.ABI, "kernels": [], "skipped": found.skipped}
    members: dict[str, bytes] = {}
    for kind, obj in found.objects:
        if member_name(obj.id) in members:
            continue   # the same kernel twice in the IR
        members[member_name(obj.id)] = obj.data
        if kind == "loop" and obj.key.startswith(f"{found.loops_source}."):
            loops = section.setdefault("loops", {"source": found.loops_source, "functions": []})
            loops["functions"].append({"id": obj.id, "name": obj.key.split(".", 1)[1],
                                       "args": [list(k) for k in obj.args]})
        elif kind == "kernel" and all(len(a) == 2 for a in obj.args):   # fixed shapes
            section["kernels"].append({"id": obj.id, "key": obj.key,
                                       "args": [[d, list(s)] for d, s in obj.args]})
        else:   # the native step's shape-generic kernels, loops of other sources (transposes)
            section.setdefault("step", []).append({"id": obj.id, "key": obj.key,
                                                   "args": [list(k) for k in obj.args]})
        t = obj.target
        section["target"] = {"triple": t.triple, "cpu": t.cpu, "features": t.features}
    return section, dict(sorted(members.items()))


# --- checking (every load) -----------------------------------------------------------------------

def check_native(manifest: dict, members: dict[str, bytes], path) -> dict[str, bytes]:
    """The object files by id, after checking that the manifest's tables and the native members
    are one-to-one and that each id is its key's and arguments'. ArtifactError if not."""
    from graphcell_ir.backend.native import native_id
    present = {n[len("native/"):-len(".o")]: data for n, data in members.items()
               if C.NATIVE.match(n)}
    section = manifest.get("native")
    if section is None:
        if present:
            raise ArtifactError("holds native object files but no native section",
                                path, "manifest.json")
        return {}
    entries = _entries(section)
    for id_, key, args in entries:
        if native_id(key, args) != id_:
            raise ArtifactError(f"native code {id_} is not the code of {key} with those "
                                "arguments", path, "manifest.json")
    listed = [id_ for id_, _, _ in entries]
    if len(set(listed)) != len(listed):
        raise ArtifactError("lists a native object twice", path, "manifest.json")
    if sorted(listed) != sorted(present):
        extra = sorted(set(present) - set(listed))
        raise ArtifactError(f"native member(s) {', '.join(map(member_name, extra))} are not in "
                            "the manifest" if extra else
                            f"the manifest lists native code "
                            f"{', '.join(sorted(set(listed) - set(present)))} it does not hold",
                            path, "manifest.json")
    return present


def _entries(section) -> list[tuple[str, str, tuple]]:
    """(id, key, args) of every kernel and loop the section lists."""
    from graphcell_ir.backend.native import loop_key
    out = [(k["id"], k["key"], tuple((d, tuple(s)) for d, s in k["args"]))
           for k in section["kernels"]]
    loops = section.get("loops")
    if loops is not None:
        out += [(f["id"], loop_key(loops["source"], f["name"]), tuple(map(tuple, f["args"])))
                for f in loops["functions"]]
    out += [(e["id"], e["key"], tuple(map(tuple, e["args"]))) for e in section.get("step", ())]
    return out


# --- linking (load(native=True)) -----------------------------------------------------------------

def link_native(graph, trust_native_code: bool = False):
    """Link ``graph``'s object files for its own executable; the linked kernels (with the
    artifact's convolution/pooling loops as ``nn_loops``), or None (with a warning) when the IR
    path must run instead. ArtifactTrustError when the artifact is not trusted (``trust.py``),
    ArtifactError for an object file graphcell could not have emitted or that is not what it
    claims — both before anything is linked."""
    from graphcell_ir.backend import native as N
    section = graph.manifest.get("native")
    reason = _unusable(section, N)
    if reason is not None:
        _warn(f"{graph.path}: {reason}; the IR path runs instead (kernels compiled here)")
        return None
    entries = _entries(section)
    if entries:
        require_trust(graph.path, graph.manifest_bytes, graph.signature, trust_native_code)
    _warn_skipped(graph.path, section.get("skipped", []))
    if not entries:
        return N.NativeKernels()   # nothing to link (no kernel in the IR): llvmlite not needed
    target = N.Target(**section["target"])
    objects = []
    for id_, key, args in entries:
        obj = N.NativeObject(key, id_, args, graph.native_objects[id_], target)
        try:
            N.check_linkable(obj.data, obj.symbol, target.triple)
        except N.NativeError as e:
            raise ArtifactError(f"is not the object file of native code {id_}: {e}",
                                graph.path, member_name(id_)) from None
        objects.append(obj)
    kernels = N.link(objects)
    if kernels.failed:
        _warn(f"{graph.path}: {len(kernels.failed)} native object(s) could not be linked and "
              f"are compiled instead: " + "; ".join(f"{i}: {r}" for i, r in kernels.failed.items()))
    if section.get("loops"):
        kernels.nn_loops = _private_loops(graph.path, section["loops"]["source"], kernels)
    return kernels


def _private_loops(path, source_sha: str, kernels):
    """The artifact's convolution/pooling loops as a loops namespace for its own executable
    (argument kinds it has no code for run the process's loops), or None when they were
    compiled from another ``nn_loops.py``. Never installed process-wide: one artifact's code
    must not serve every later network."""
    from graphcell_ir.backend import loops
    from graphcell_ir.backend import native as N
    source = loops.source()
    if N.source_hash(source) != source_sha:
        _warn(f"{path}: its convolution/pooling loops were compiled from another version of "
              "graphcell_ir/backend/nn_loops.py; this one's are compiled instead")
        return None
    return kernels.loops(source, lambda: loops.namespace(True))


def _warn_skipped(path, skipped: list) -> None:
    if skipped:
        _warn(f"{path}: {len(skipped)} kernel(s) or loop(s) have no native code and are "
              "compiled when first used: " +
              "; ".join(f"{', '.join(s.get('ops') or [s['key']])}: {s['reason']}"
                        for s in skipped))


def _unusable(section, N) -> str | None:
    if section is None:
        return "the artifact holds no native code (exported with native=False)"
    if section["abi"] != N.ABI:
        return f"its native code uses ABI {section['abi']!r}; this graphcell links {N.ABI!r}"
    if not _entries(section):
        return None
    try:
        host, here = N.host_target(), N.process_target()
    except ImportError as e:
        return f"llvmlite cannot be imported ({e})"
    target = N.Target(**section["target"])
    reason = target.runs_on(host)
    if reason is None and here != host:   # NUMBA_CPU_NAME/NUMBA_CPU_FEATURES narrowed it
        missing = sorted(target.required() - here.required())
        if missing:
            more = " ..." if len(missing) > 8 else ""
            reason = (f"the code uses CPU feature(s) this process's target leaves out "
                      f"(NUMBA_CPU_NAME/NUMBA_CPU_FEATURES): {', '.join(missing[:8])}{more}")
    if reason is None and not N.checkable(target.triple):
        reason = (f"graphcell cannot check native code for {target.triple} before linking it, "
                  "so it does not link it")
    return reason


def warn_missed(graph) -> None:
    """Warn when the loaded GraphCell compiled kernels the artifact has no native code for."""
    kernels = getattr(graph, "native", None)
    if kernels is not None and kernels.missed:
        _warn(f"{graph.path}: {len(kernels.missed)} kernel(s) have no native code in the artifact "
              f"and are compiled here: {', '.join(sorted(set(kernels.missed)))}")


def _warn(message: str) -> None:
    log.info("%s", message)
    warnings.warn(message, NativeCodeWarning, stacklevel=4)

"""Native code from an artifact runs only when it is trusted (issue 22, defects 1 and 2).

- trusted = signed with the configured key (``set_context(artifact_key=...)`` or
  ``GRAPHCELL_ARTIFACT_KEY``), or ``load(..., trust_native_code=True)``; otherwise
  ``native=True`` is an ArtifactTrustError saying why, and ``load(path)`` still works;
- even trusted, an object graphcell could not have emitted (it imports ``system``, it was built
  for another code model) is an ArtifactError before anything is linked;
- an artifact's convolution/pooling loops serve the loaded cell only, never the process.
"""
import os
import platform
import subprocess
import sys
import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell.aot import ArtifactError, ArtifactTrustError, NativeCodeWarning
from graphcell.aot import container as C
from graphcell.aot.trust import KEY_ENV
from graphcell_ir.backend import native as N
from graphcell_ir.backend import loops, nnkernels
from graphcell_ir.backend.native.abi import ObjectEntry, PointerLoop

import aot_nets as nets
import forged

KEY = b"a signing key for the tests, 32b"
OTHER = b"someone else's key, also 32 byte"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
x86_64 = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                            reason="the forged objects' relocations are x86-64's")


@pytest.fixture(scope="module")
def step():
    """(net, step, x, y): an MLP training step and its inputs (its kernels: fused groups)."""
    x, y = nets.inputs()
    net, step = nets.train_step(seed=5)
    return net, step, x, y


def _export(step, x, y, path, key=None):
    ms.set_context(artifact_key=key)
    try:
        return ms.export(step, x, y, file_name=str(path))
    finally:
        ms.set_context(artifact_key=None)


def _write(tmp_path, members, name="a.gcpkg") -> str:
    path = tmp_path / name
    path.write_bytes(C.to_bytes(members))
    return str(path)


def _natively_linked(cell) -> bool:
    return any(isinstance(k.fn, N.PointerKernel) for k in cell._executable._run.kernels)


# --- trust ---------------------------------------------------------------------------------------

def test_unsigned_native_code_is_refused_unless_the_caller_trusts_it(tmp_path, step):
    _, s, x, y = step
    path = _export(s, x, y, tmp_path / "plain")
    assert C.SIGNATURE not in forged.members_of(path)
    with pytest.raises(ArtifactTrustError, match="native=True would run machine code from this "
                                                 "file, and it is not trusted: it is not signed "
                                                 "and no key is configured"):
        ms.load(path, native=True)
    assert not _natively_linked(ms.load(path))          # the IR path always works
    assert _natively_linked(ms.load(path, native=True, trust_native_code=True))


def test_signed_native_code_runs_where_the_key_is_configured(tmp_path, step):
    _, s, x, y = step
    path = _export(s, x, y, tmp_path / "signed", key=KEY)
    members = forged.members_of(path)
    assert list(members)[-1] == C.SIGNATURE
    assert open(_export(s, x, y, tmp_path / "again", key=KEY), "rb").read() == \
        open(path, "rb").read()                         # signing keeps exports reproducible
    ms.set_context(artifact_key=KEY)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeCodeWarning)
        cell = ms.load(path, native=True)
    assert _natively_linked(cell)
    np.testing.assert_array_equal(cell(x, y).asnumpy(), ms.load(path)(x, y).asnumpy())


@pytest.mark.parametrize("trust_flag", [False, True])
def test_a_signature_that_does_not_match_is_refused(tmp_path, step, trust_flag):
    _, s, x, y = step
    path = _export(s, x, y, tmp_path / "signed", key=OTHER)
    ms.set_context(artifact_key=KEY)
    with pytest.raises(ArtifactTrustError, match="signature does not match the configured key"):
        ms.load(path, native=True, trust_native_code=trust_flag)
    ms.load(path)


def test_a_signed_artifact_changed_after_signing_is_refused(tmp_path, step):
    _, s, x, y = step
    members = forged.members_of(_export(s, x, y, tmp_path / "signed", key=KEY))
    id_ = forged.first_kernel(members)
    bad = _write(tmp_path, forged.with_object(members, id_, forged.calling_system(
        id_, f"touch {tmp_path / 'pwned'}")))   # hashes recomputed, signature kept
    ms.set_context(artifact_key=KEY)
    with pytest.raises(ArtifactTrustError, match="signature does not match"):
        ms.load(bad, native=True)
    assert not (tmp_path / "pwned").exists()


def test_a_signed_artifact_without_a_key_here(tmp_path, step):
    _, s, x, y = step
    path = _export(s, x, y, tmp_path / "signed", key=KEY)
    with pytest.raises(ArtifactTrustError, match="no key is configured to check its signature"):
        ms.load(path, native=True)
    assert _natively_linked(ms.load(path, native=True, trust_native_code=True))


def test_the_key_from_the_environment(tmp_path, step, monkeypatch):
    _, s, x, y = step
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    path = ms.export(s, x, y, file_name=str(tmp_path / "env"))
    assert C.SIGNATURE in forged.members_of(path)
    assert _natively_linked(ms.load(path, native=True))
    monkeypatch.setenv(KEY_ENV, "short")
    with pytest.raises(ValueError, match=f"{KEY_ENV} must be at least 16 bytes"):
        ms.export(s, x, y, file_name=str(tmp_path / "short"))


def test_keys_are_checked_when_set():
    with pytest.raises(ValueError, match="artifact_key must be at least 16 bytes"):
        ms.set_context(artifact_key="short")
    with pytest.raises(TypeError, match="artifact_key must be bytes or str"):
        ms.set_context(artifact_key=12345678901234567890)
    ms.set_context(artifact_key="a str key is UTF-8 encoded")
    assert ms.get_context("artifact_key") == b"a str key is UTF-8 encoded"


# --- what trusted code may be (defects 1 and 2) --------------------------------------------------

def test_an_object_that_calls_system_never_runs(tmp_path, step):
    """A replaced object calling libc's system(), every hash recomputed: the old loader ran it
    (defect 1). Untrusted it is not even looked at; trusted, its import is refused."""
    _, s, x, y = step
    members = forged.members_of(_export(s, x, y, tmp_path / "plain"))
    id_ = forged.first_kernel(members)
    marker = tmp_path / "pwned"
    bad = _write(tmp_path, forged.with_object(members, id_, forged.calling_system(
        id_, f"touch {marker}")))
    with pytest.raises(ArtifactTrustError):
        ms.load(bad, native=True)(x, y)
    with pytest.raises(ArtifactError, match=rf"\[native/{id_}.o\]: is not the object file of "
                                            r"native code .*: it imports system, which "
                                            "graphcell's kernels never call"):
        ms.load(bad, native=True, trust_native_code=True)(x, y)
    ms.load(bad)(x, y)                                  # the IR path never reads the objects
    assert not marker.exists()


LOAD_FORGED = """
import sys
import graphcell as ms
from graphcell.aot import ArtifactError
x, y = [ms.Tensor(a) for a in __import__("numpy").load(sys.argv[2]).values()]
try:
    ms.load(sys.argv[1], native=True, trust_native_code=True)(x, y)
    print("linked and ran")
except ArtifactError as e:
    print(e)
"""


@x86_64
def test_an_object_for_another_code_model_is_refused_before_linking(tmp_path, step):
    """Built with LLVM's default code model, such an object passed the old checks and LLVM's
    linker could abort the process on it (defect 2); it runs in a child process here, so that
    the old behaviour fails this test instead of ending the test run."""
    _, s, x, y = step
    members = forged.members_of(_export(s, x, y, tmp_path / "plain"))
    id_ = forged.first_kernel(members)
    bad = _write(tmp_path, forged.with_object(members, id_, forged.small_code_model(id_)))
    np.savez(tmp_path / "xy.npz", x=x.asnumpy(), y=y.asnumpy())
    done = subprocess.run([sys.executable, "-c", LOAD_FORGED, bad, str(tmp_path / "xy.npz")],
                          env={**os.environ, "PYTHONPATH": ROOT}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "has a relocation graphcell's code never uses (R_X86_64_" in done.stdout
    assert "built for another code model or by another compiler" in done.stdout


# --- an artifact's code serves its own cell ------------------------------------------------------

def _conv_artifact(tmp_path):
    from export_and_load import LeNet5
    ms.set_seed(0)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 1, 32, 32)).astype(np.float32))
    return ms.export(LeNet5(), x, file_name=str(tmp_path / "lenet")), x


def test_an_artifacts_loops_never_replace_the_processs(tmp_path, monkeypatch):
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        path, x = _conv_artifact(tmp_path)
    finally:
        sys.path.remove(os.path.join(ROOT, "examples"))
    before = loops.namespace(True)
    # the Python runner, which calls loops from Python (the native step calls LeNet's by
    # address: test_loaded_step.py checks those are the artifact's)
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    seen = []   # the ids of the linked entries called: an artifact's loops are called
    for entry in (PointerLoop, ObjectEntry):   # through checked object entries (or pointers)
        monkeypatch.setattr(entry, "__call__", lambda self, *a, real=entry.__call__:
                            (seen.append(self.id), real(self, *a))[1])
    cell = ms.load(path, native=True, trust_native_code=True)
    assert cell.graph.native.nn_loops is not None
    ids = {obj.id for entries in cell.graph.native.by_key.values() for obj, _, _ in entries}
    calls = lambda: [i for i in seen if i in ids]   # noqa: E731
    assert loops.namespace(True) is before              # the process's loops are its own
    want = ms.load(path)(x).asnumpy()
    assert not calls()                                  # another cell: not the artifact's code
    np.testing.assert_array_equal(cell(x).asnumpy(), want)
    assert calls()                                      # its own cell: the artifact's loops
    n = len(calls())
    ms.ops.conv2d(x, ms.Tensor(np.ones((6, 1, 5, 5), np.float32)))
    assert len(calls()) == n

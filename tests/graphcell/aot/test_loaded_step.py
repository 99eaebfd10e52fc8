"""A loaded artifact runs the native step (``graphcell_ir/backend/step``) as the in-process
compile does: the export stores the kernels and loops the step calls beside the runner's, and
``load(native=True)`` builds the step from the artifact's own linked code (``step/code.py``,
``LinkedCode``) — the same bits as in-process, step after step. An artifact without them (one
exported before, or one that lost them) loads and runs the Python runner; a step kernel that is
not what the manifest says is an ArtifactError like any other object; untrusted code builds no
step."""
import json
import os
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import pytest

import graphcell as ms
from graphcell.aot import ArtifactError, ArtifactTrustError, NativeCodeWarning
from graphcell.aot import container as C
from graphcell_ir.backend import aot, codegen, objects
from graphcell_ir.backend import executable as E
from graphcell_ir.backend.step import emit

import aot_nets as nets

pytestmark = pytest.mark.skipif(not codegen.available(),
                                reason="this llvmlite cannot run the code generator")
KEY = b"a signing key for the tests, 32b"


@pytest.fixture
def built(monkeypatch):
    """The executables built while the test ran (in-process and loaded)."""
    seen = []
    real = E._build

    def recording(fn, opts, done):
        exe = real(fn, opts, done)
        seen.append(exe)
        return exe
    monkeypatch.setattr(E, "_build", recording)
    return seen


def _members(path) -> dict:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def _write(tmp_path, members, name) -> str:
    m = json.loads(members[C.MANIFEST])
    m["members"] = {n: {"sha256": C.sha256(d), "size": len(d)}
                    for n, d in members.items() if n != C.MANIFEST}
    path = tmp_path / name
    path.write_bytes(C.to_bytes({**members, C.MANIFEST: json.dumps(m).encode()}))
    return str(path)


def _step_only_ids(tmp_path, monkeypatch, x, y) -> set:
    """The native objects an export stores for the step alone (the runner does not call them)."""
    _, step = nets.train_step(seed=5)
    with_step = ms.export(step, x, y, file_name=str(tmp_path / "with"))
    with monkeypatch.context() as m:
        m.setattr(aot, "_step_objects", lambda module: [])
        _, step = nets.train_step(seed=5)
        without = ms.export(step, x, y, file_name=str(tmp_path / "without"))
    ids = set(_members(with_step)) - set(_members(without))
    return {n[len("native/"):-len(".o")] for n in ids}, with_step, without


def _in_process(x, y, n):
    _, step = nets.train_step(seed=5)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        losses = [step(x, y).asnumpy() for _ in range(n)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, {p.name: p.asnumpy() for p in step.get_parameters()}


def _loaded(cell, x, y, n):
    losses = [cell(x, y).asnumpy() for _ in range(n)]
    return losses, {p.name: p.asnumpy() for p in cell.get_parameters()}


def _fallbacks(exes) -> list:
    return [e.step_fallback for e in exes if e.function.name.startswith("TrainOneStepCell")]


def test_the_loaded_step_is_native_and_bit_equal_to_in_process(tmp_path, built, monkeypatch):
    x, y = nets.inputs()
    _, step = nets.train_step(seed=5)
    path = ms.export(step, x, y, file_name=str(tmp_path / "train"))
    built.clear()
    losses, params = _in_process(x, y, 4)
    assert _fallbacks(built) == [None]          # in-process: the native step
    built.clear()
    monkeypatch.setattr(objects, "emit_kernel",   # the loaded step compiles no kernel
                        lambda *a: pytest.fail("a loaded step compiled a kernel"))
    monkeypatch.setattr(objects, "emit_loop", lambda *a: pytest.fail("a loop was compiled"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeCodeWarning)
        cell = ms.load(path, native=True, trust_native_code=True)
    kept = {p.name: p.asnumpy() for p in cell.get_parameters()}
    got, got_params = _loaded(cell, x, y, 4)
    assert _fallbacks(built) == [None]          # loaded: the native step too
    for name in ("fc1.weight", "moments.fc1.weight"):   # updated in place, as in-process
        assert got_params[name] is kept[name]
    assert cell._executable._run.run.step is not None
    for a, b in zip(got, losses):
        np.testing.assert_array_equal(a, b)
    assert set(got_params) == set(params) and "moments.fc1.weight" in got_params
    for name, value in got_params.items():
        np.testing.assert_array_equal(value, params[name], err_msg=name)


def test_the_export_stores_the_steps_kernels_and_loops(tmp_path, monkeypatch):
    x, y = nets.inputs()
    step_only, with_step, _ = _step_only_ids(tmp_path, monkeypatch, x, y)
    assert step_only   # batch 5: lone ops below the runner's kernel size, the softmax loops
    section = json.loads(_members(with_step)[C.MANIFEST])["native"]
    loops = {f["name"] for f in section["loops"]["functions"]}
    assert "sparse_softmax_cross_entropy_rows" in loops


def test_an_artifact_without_the_steps_code_loads_and_runs_the_runner(tmp_path, built,
                                                                       monkeypatch):
    """The format before the step's objects were exported (read as it is: no version bump)."""
    x, y = nets.inputs()
    _, _, without = _step_only_ids(tmp_path, monkeypatch, x, y)
    losses, params = _in_process(x, y, 3)
    built.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeCodeWarning)   # the runner's kernels are all there
        cell = ms.load(without, native=True, trust_native_code=True)
    got, got_params = _loaded(cell, x, y, 3)
    (why,) = _fallbacks(built)
    assert "the artifact has no native code" in why
    np.testing.assert_allclose(got, losses, rtol=1e-6)   # the runner may round otherwise
    for name, value in got_params.items():
        np.testing.assert_allclose(value, params[name], rtol=1e-5, atol=1e-7, err_msg=name)


def test_a_step_object_that_is_not_what_the_manifest_says(tmp_path, monkeypatch):
    x, y = nets.inputs()
    step_only, path, _ = _step_only_ids(tmp_path, monkeypatch, x, y)
    members = _members(path)
    mine = sorted(f"native/{i}.o" for i in step_only)[0]
    other = next(n for n in sorted(members) if n.startswith("native/") and n != mine)
    data = bytearray(members[mine])
    data[len(data) // 2] ^= 0x40
    changed = tmp_path / "changed.gcpkg"
    changed.write_bytes(C.to_bytes({**members, mine: bytes(data)}))   # hashes not updated
    with pytest.raises(ArtifactError, match=rf"\[{mine}\]: SHA-256 does not match"):
        ms.load(str(changed), native=True, trust_native_code=True)
    for case, message in [({**members, mine: members[mine][:100]}, "is not the object file"),
                          ({**members, mine: members[other], other: members[mine]},
                           "does not define")]:
        bad = _write(tmp_path, case, "bad.gcpkg")
        with pytest.raises(ArtifactError, match=message):
            ms.load(bad, native=True, trust_native_code=True)
        x_, y_ = nets.inputs()
        ms.load(bad)(x_, y_)   # the IR path never reads object files
    m = json.loads(members[C.MANIFEST])
    m["native"]["step"] = [dict(k, args=[[a[0], "float64", *a[2:]] for a in k["args"]])
                           for k in m["native"]["step"]]   # the step's shape-generic kernels
    with pytest.raises(ArtifactError, match="is not the code of .* with those arguments"):
        ms.load(_write(tmp_path, {**members, C.MANIFEST: json.dumps(m).encode()}, "m.gcpkg"),
                native=True, trust_native_code=True)


def test_a_step_kernel_that_does_not_link_leaves_the_runner(tmp_path, built, monkeypatch):
    """A step kernel the linker refuses at load (here: dropped as llvmlite would report it)
    leaves the Python runner, with the runner's kernels from the artifact: no crash."""
    from graphcell_ir.backend import native as N
    x, y = nets.inputs()
    step_only, path, _ = _step_only_ids(tmp_path, monkeypatch, x, y)
    real = N.link

    def failing(objs, host=None):
        kernels = real([o for o in objs if o.id not in step_only], host)
        kernels.failed.update({i: "llvmlite could not link it: test" for i in step_only})
        return kernels
    monkeypatch.setattr(N, "link", failing)
    built.clear()
    with pytest.warns(NativeCodeWarning, match="could not be linked"):
        cell = ms.load(path, native=True, trust_native_code=True)
    losses, _ = _loaded(cell, x, y, 2)
    assert "the artifact has no native code" in _fallbacks(built)[0]
    expected, _ = _in_process(x, y, 2)
    np.testing.assert_allclose(losses, expected, rtol=1e-6)


def test_untrusted_step_code_builds_no_step(tmp_path, built, monkeypatch):
    x, y = nets.inputs()
    _, step = nets.train_step(seed=5)
    ms.set_context(artifact_key=KEY)
    try:
        signed = ms.export(step, x, y, file_name=str(tmp_path / "signed"))
    finally:
        ms.set_context(artifact_key=None)
    steps = []
    real = emit.build
    monkeypatch.setattr(emit, "build", lambda fn, **kw: steps.append(fn) or real(fn, **kw))
    with pytest.raises(ArtifactTrustError):
        ms.load(signed, native=True)   # no key here, no flag
    assert steps == []
    ms.set_context(artifact_key=KEY)
    try:
        built.clear()
        cell = ms.load(signed, native=True)   # signed with the configured key: trusted
    finally:
        ms.set_context(artifact_key=None)
    assert steps and _fallbacks(built) == [None]
    cell(x, y)


# --- the Python runner's calls of an artifact's kernels (no native step) -------------------------

def _runner_cell(tmp_path, monkeypatch, x, y):
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    _, step = nets.train_step(seed=5)
    path = ms.export(step, x, y, file_name=str(tmp_path / "runner"))
    return ms.load(path, native=True, trust_native_code=True)


def test_the_runner_calls_the_artifacts_kernels_through_checked_entries(tmp_path, monkeypatch):
    from graphcell_ir.backend import native as N
    x, y = nets.inputs()
    cell = _runner_cell(tmp_path, monkeypatch, x, y)
    exe = cell._executable._run
    assert exe.step_fallback == "not asked for"
    kernels = [k.fn for k in exe.kernels]
    assert kernels and all(isinstance(k, N.PointerKernel) and k.entry is None for k in kernels)
    got = _loaded(cell, x, y, 3)
    assert all(k.entry is not None for k in kernels)   # built at the first call
    expected = _in_process(x, y, 3)                    # the runner in-process too
    for a, b in zip(got[0], expected[0]):
        np.testing.assert_array_equal(a, b)
    for name, value in got[1].items():
        np.testing.assert_array_equal(value, expected[1][name], err_msg=name)


def test_a_checked_entry_refuses_what_it_was_not_compiled_for(tmp_path, monkeypatch):
    x, y = nets.inputs()
    cell = _runner_cell(tmp_path, monkeypatch, x, y)
    kernel = next(k.fn for k in cell._executable._run.kernels
                  if len(k.fn.args[0][1]) == 2 and min(k.fn.args[0][1]) > 1)
    arrays = [np.random.default_rng(0).standard_normal(s).astype(d) for d, s in kernel.args]
    outs = [np.zeros_like(a) for a in arrays[kernel.n_inputs:]]
    kernel(*arrays[:kernel.n_inputs], *outs)
    assert kernel.entry is not None
    (d0, s0) = kernel.args[0]
    with pytest.raises(TypeError, match="argument 0 is float64"):
        kernel(arrays[0].astype(np.float64), *arrays[1:kernel.n_inputs], *outs)
    for shape in [(1,) + tuple(s0), (s0[0] + 1, s0[1])]:   # another rank, another dimension
        with pytest.raises(TypeError, match="argument 0 is"):
            kernel(np.zeros(shape, d0), *arrays[1:kernel.n_inputs], *outs)
    with pytest.raises(TypeError, match="argument 0 is"):
        kernel(1.0, *arrays[1:kernel.n_inputs], *outs)
    again = [np.zeros_like(o) for o in outs]   # an operand in Fortran order: copied
    kernel(np.asfortranarray(arrays[0]), *arrays[1:kernel.n_inputs], *again)
    for a, b in zip(outs, again):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match="is not C-contiguous"):
        kernel(*arrays[:kernel.n_inputs], np.asfortranarray(outs[0]), *outs[1:])


def test_without_checked_entries_the_python_checks_run(tmp_path, monkeypatch):
    from graphcell_ir.backend.native import linking
    x, y = nets.inputs()
    monkeypatch.setattr(linking, "checked_calls", lambda kernels: {})
    cell = _runner_cell(tmp_path, monkeypatch, x, y)
    got = _loaded(cell, x, y, 2)
    expected = _in_process(x, y, 2)
    assert all(k.fn.entry is None for k in cell._executable._run.kernels)
    for a, b in zip(got[0], expected[0]):
        np.testing.assert_array_equal(a, b)


FRESH = """
import sys
class NoNumba:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ImportError("numba is blocked in this process")
sys.meta_path.insert(0, NoNumba())
import warnings
warnings.simplefilter("error")
import numpy as np
import graphcell as ms
from graphcell_ir.backend import executable as E
built = []
real = E._build
E._build = lambda fn, opts, done: built.append(real(fn, opts, done)) or built[-1]
cell = ms.load(sys.argv[1], native=True, trust_native_code=True)
data = np.load(sys.argv[2])
losses = [cell(ms.Tensor(data["x"]), ms.Tensor(data["y"])).asnumpy() for _ in range(3)]
assert [e.step_fallback for e in built] == [None], [e.step_fallback for e in built]
np.testing.assert_array_equal(np.stack(losses), data["losses"])
assert "numba" not in sys.modules
print("ok")
"""


def test_a_fresh_process_runs_the_loaded_step_without_numba(tmp_path):
    x, y = nets.inputs()
    _, step = nets.train_step(seed=5)
    path = ms.export(step, x, y, file_name=str(tmp_path / "train"))
    losses, _ = _in_process(x, y, 3)
    np.savez(tmp_path / "data.npz", x=x.asnumpy(), y=y.asnumpy(), losses=np.stack(losses))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    out = subprocess.run([sys.executable, "-c", FRESH, path, str(tmp_path / "data.npz")],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": root})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_threads_calling_an_artifacts_kernel_first_get_one_checked_entry(tmp_path, monkeypatch):
    import threading
    from graphcell_ir.backend.native import linking
    x, y = nets.inputs()
    cell = _runner_cell(tmp_path, monkeypatch, x, y)
    asked = []
    real = linking.checked_calls
    monkeypatch.setattr(linking, "checked_calls", lambda kernels: asked.append(1) or real(kernels))
    kernel = cell._executable._run.kernels[0].fn
    arrays = [np.random.default_rng(1).standard_normal(s).astype(d) for d, s in kernel.args]
    ins = arrays[:kernel.n_inputs]
    outs = [[np.zeros_like(a) for a in arrays[kernel.n_inputs:]] for _ in range(4)]
    threads = [threading.Thread(target=kernel, args=(*ins, *o)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert asked == [1] and kernel.entry is not None
    for o in outs[1:]:
        for a, b in zip(o, outs[0]):
            np.testing.assert_array_equal(a, b)


def test_an_emitter_failure_at_export_leaves_an_artifact_without_the_step(tmp_path, built,
                                                                         monkeypatch):
    def broken(fn, code=None):
        raise ZeroDivisionError("a bug of the emitter")
    x, y = nets.inputs()
    _, step = nets.train_step(seed=5)
    with monkeypatch.context() as m:
        m.setattr(emit, "build", broken)
        path = ms.export(step, x, y, file_name=str(tmp_path / "train"))
    built.clear()
    cell = ms.load(path, native=True, trust_native_code=True)
    losses, _ = _loaded(cell, x, y, 2)
    assert "the artifact has no native code" in _fallbacks(built)[0]
    np.testing.assert_allclose(losses, _in_process(x, y, 2)[0], rtol=1e-6)



# what shows each net's step kind: the convolutions' and pools' loops (no host op left), batch
# norm's loops, a transpose's loop
STEP_CALLS = {"lenet": "im2col", "conv_bn": "bn_apply", "transposing": ".transpose",
              "direct": ".conv_direct"}


@pytest.mark.parametrize("name", sorted(nets.SEGMENTED))
def test_a_loaded_step_with_native_segments_is_bit_equal_to_in_process(tmp_path, built,
                                                                       monkeypatch, name):
    """What the step does not lower (a padded pool, a grouped wide convolution) runs in Python
    between native segments, by the loaded executable's own callables (the artifact's loops); the
    segments call only the artifact's kernels and loops (the convolutions' and pools', batch
    norm's, the layout transposes: the export recorded them), and nothing is compiled at
    load."""
    from graphcell_ir.backend import loops
    x, y = nets.segmented_inputs(name)
    path = ms.export(nets.segmented_train_step(name, seed=3), x, y,
                     file_name=str(tmp_path / name))
    section = json.loads(_members(path)[C.MANIFEST])["native"]
    called = [f["name"] for f in section.get("loops", {}).get("functions", [])] + \
        [e["key"] for e in section.get("step", [])]
    built.clear()
    step = nets.segmented_train_step(name, seed=3)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        losses = [step(x, y).asnumpy() for _ in range(4)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    params = {p.name: p.asnumpy() for p in step.get_parameters()}
    assert _fallbacks(built) == [None]
    (exe,) = [e for e in built if e.function.name.startswith("TrainOneStepCell")]
    host_ops = exe.run.step.host_ops
    assert any(c.endswith(STEP_CALLS[name]) for c in called + list(host_ops)), (called, host_ops)
    assert "batch_norm" not in host_ops and "transpose" not in host_ops   # the step's own
    if name == "lenet":   # LeNet's convolutions and pools are the step's own too
        names = {c.rsplit(".", 1)[-1] for c in called}   # a step's own loop: "<source>.name"
        assert host_ops == () and {"im2col", "filter_taps", "max_pool", "max_pool_grad",
                                   "filter_total"} <= names, (called, host_ops)
    if name == "conv_bn":   # its 6x6 convolution (the wide layout) is the step's own too
        names = {c.rsplit(".", 1)[-1] for c in called}
        assert host_ops == () and {"im2col_wide", "swap_first"} <= names, (called, host_ops)
    built.clear()
    for fn in ("emit_kernel", "emit_loop"):
        monkeypatch.setattr(objects, fn, lambda *a, **k: pytest.fail("compiled at load"))
    monkeypatch.setattr(codegen, "lower_module", lambda *a, **k: pytest.fail("compiled at load"))
    monkeypatch.setattr(loops, "namespace", lambda *a, **k: pytest.fail("the process's loops"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeCodeWarning)
        cell = ms.load(path, native=True, trust_native_code=True)
    got, got_params = _loaded(cell, x, y, 4)
    assert _fallbacks(built) == [None]
    assert cell._executable._run.run.step.host_ops == exe.run.step.host_ops
    for a, b in zip(got, losses):
        np.testing.assert_array_equal(a, b)
    assert set(got_params) == set(params) and len(got_params) > 4
    for p, value in got_params.items():
        np.testing.assert_array_equal(value, params[p], err_msg=p)


def _compiles_nothing(monkeypatch):
    """Fail the test at any compile (a kernel, a loop, a hand-written kernel) from now on."""
    from graphcell_ir.backend import loops
    for fn in ("emit_kernel", "emit_loop", "jit_function"):
        monkeypatch.setattr(objects, fn, lambda *a, **k: pytest.fail("compiled at load"))
    monkeypatch.setattr(codegen, "lower_module", lambda *a, **k: pytest.fail("compiled at load"))
    monkeypatch.setattr(loops, "namespace", lambda *a, **k: pytest.fail("the process's loops"))


def _direct_exported_and_run(tmp_path, monkeypatch, steps: int):
    """``(x, y, path, step, losses)``: the direct convolutions' train step exported to
    ``path``, then a fresh one run ``steps`` times in this process by its Python runner (the
    native step switched off from here on)."""
    x, y = nets.segmented_inputs("direct", batch=2)
    path = ms.export(nets.segmented_train_step("direct", seed=3), x, y,
                     file_name=str(tmp_path / "direct"))
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    step = nets.segmented_train_step("direct", seed=3)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        losses = [step(x, y).asnumpy() for _ in range(steps)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return x, y, path, step, losses


def test_a_loaded_artifact_without_a_step_compiles_no_direct_kernel(tmp_path, built,
                                                                   monkeypatch):
    """The Python runner of a loaded artifact (its native step switched off here, as for a
    function the step refuses) asks its loops namespace for the direct convolutions'
    hand-written kernels (forward, forward of dy as the input gradient, both filter
    gradients): the export recorded them, so they are the artifact's own, nothing is compiled
    at load, and the results are the runner's in-process bits."""
    x, y, path, step, losses = _direct_exported_and_run(tmp_path, monkeypatch, 3)
    params = {p.name: p.asnumpy() for p in step.get_parameters()}
    _compiles_nothing(monkeypatch)
    built.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeCodeWarning)
        cell = ms.load(path, native=True, trust_native_code=True)
    asked = []
    real = cell.graph.native.nn_loops.hand_written
    monkeypatch.setattr(cell.graph.native.nn_loops, "hand_written",
                        lambda *a: asked.append(a[1]) or real(*a))
    got, got_params = _loaded(cell, x, y, 3)
    assert _fallbacks(built) == ["not asked for"]   # the runner ran it
    assert {"conv_direct", "pad_image", "filter_direct", "filter_lanes"} <= set(asked)
    for a, b in zip(got, losses):
        np.testing.assert_array_equal(a, b)
    for name, value in got_params.items():
        np.testing.assert_array_equal(value, params[name], err_msg=name)


def test_an_artifact_exported_before_it_held_the_direct_kernels_compiles_them(tmp_path,
                                                                            monkeypatch):
    """Without the hand-written kernels in the artifact (exported before they were recorded,
    and no step recording them), the runner takes the process's (compiled here, as before):
    the same results."""
    from graphcell_ir.backend import loops
    from graphcell_ir.backend.codegen import direct_conv as D
    from graphcell_ir.backend.native import LoopRecorder
    x, y = nets.segmented_inputs("direct", batch=2)
    with monkeypatch.context() as m:
        m.setattr(aot, "_step_objects", lambda module: [])
        m.setattr(LoopRecorder, "hand_written",
                  lambda self, module, name, dtype: self.inner.hand_written(module, name, dtype))
        path = ms.export(nets.segmented_train_step("direct", seed=3), x, y,
                         file_name=str(tmp_path / "before"))
    monkeypatch.setenv("GRAPHCELL_NATIVE_STEP", "0")
    cell = ms.load(path, native=True, trust_native_code=True)
    got, _ = _loaded(cell, x, y, 2)
    assert cell.graph.native.nn_loops.hand_written(D, D.NAME, "float32") is \
        loops.namespace(True).hand_written(D, D.NAME, "float32")
    step = nets.segmented_train_step("direct", seed=3)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        want = [step(x, y).asnumpy() for _ in range(2)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(got, want)


FRESH_RUNNER = """
import os, sys
import numpy as np
import graphcell as ms
from graphcell_ir.backend import objects
assert not os.listdir(os.environ["GRAPHCELL_CACHE_DIR"])
cell = ms.load(sys.argv[1], native=True, trust_native_code=True)
data = np.load(sys.argv[2])
losses = [cell(ms.Tensor(data["x"]), ms.Tensor(data["y"])).asnumpy() for _ in range(2)]
assert objects.cache_stats().misses == [], objects.cache_stats()
np.testing.assert_array_equal(np.stack(losses), data["losses"])
print("ok")
"""


def test_a_fresh_process_running_a_loaded_artifact_without_a_step_compiles_nothing(tmp_path,
                                                                                  monkeypatch):
    """The runner of an artifact loaded in a fresh process with an empty kernel cache (its
    step switched off): the direct convolutions' kernels are the artifact's, no compile."""
    x, y, path, _, losses = _direct_exported_and_run(tmp_path, monkeypatch, 2)
    np.savez(tmp_path / "data.npz", x=x.asnumpy(), y=y.asnumpy(), losses=np.stack(losses))
    (tmp_path / "cache").mkdir()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    out = subprocess.run([sys.executable, "-c", FRESH_RUNNER, path, str(tmp_path / "data.npz")],
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": root,
                              "GRAPHCELL_CACHE_DIR": str(tmp_path / "cache")})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]

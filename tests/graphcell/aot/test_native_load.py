"""Native kernels in artifacts: ``export`` stores every kernel's object code, ``load(native=True)``
links it (in a fresh process without numba: numba is never imported) and gives the in-process
compiled results; a CPU it cannot run on falls back to the IR path with a warning; an object
that is not what the manifest says is an ArtifactError; a fuzzer mutates native artifacts.

Native code runs only from trusted artifacts (``test_native_trust.py``): the tests here that
are about linking pass ``trust_native_code=True``."""
import json
import os
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import pytest
from fuzzing import fuzz
from hypothesis import given, strategies as st

import graphcell as ms
from graphcell.aot import ArtifactError, NativeCodeWarning
from graphcell.aot import container as C
from graphcell_ir.backend import native as N

import aot_nets as nets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def members_of(path):
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def rehashed(members):
    m = json.loads(members[C.MANIFEST])
    m["members"] = {n: {"sha256": C.sha256(d), "size": len(d)}
                    for n, d in members.items() if n != C.MANIFEST}
    return {**members, C.MANIFEST: json.dumps(m).encode()}


def with_native(members, **changes):
    m = json.loads(members[C.MANIFEST])
    m["native"].update(changes)
    return {**members, C.MANIFEST: json.dumps(m).encode()}


def write(tmp_path, members, name="a.gcpkg"):
    path = tmp_path / name
    path.write_bytes(C.to_bytes(members))
    return str(path)


def graph_mode_steps(seed, x, y, n=3):
    """The in-process compiled training step's losses and final fc1.weight."""
    net, step = nets.train_step(seed=seed)
    ms.set_context(mode=ms.GRAPH_MODE)
    losses = [step(x, y).asnumpy() for _ in range(n)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, net.fc1.weight.asnumpy()


def loaded_steps(cell, x, y, n=3):
    losses = [cell(x, y).asnumpy() for _ in range(n)]
    return losses, dict(cell.parameters_and_names())["fc1.weight"].asnumpy()


@pytest.fixture(scope="module")
def train_artifact(artifact_dir):
    """(path, x, y, losses, fc1.weight): an exported MLP training step and graph mode's run."""
    x, y = nets.inputs()
    _, step = nets.train_step(seed=5)
    path = ms.export(step, x, y, file_name=str(artifact_dir / "native_train"))
    return (path, x, y, *graph_mode_steps(5, x, y))


def test_export_stores_the_object_code_of_every_kernel(train_artifact):
    path = train_artifact[0]
    members = members_of(path)
    m = json.loads(members[C.MANIFEST])
    section = m["native"]
    native = sorted(n for n in members if n.startswith("native/"))
    ids = [k["id"] for k in section["kernels"]]
    ids += [f["id"] for f in section.get("loops", {}).get("functions", [])]
    ids += [k["id"] for k in section.get("step", [])]   # the native step's shape-generic entries
    assert native and native == sorted(f"native/{i}.o" for i in ids)
    assert set(m["members"]) == set(members) - {C.MANIFEST}    # hashed like the others
    for name in native:
        assert m["members"][name]["sha256"] == C.sha256(members[name])
    host = N.host_target()
    assert section["abi"] == N.ABI and section["target"]["triple"] == host.triple
    keys = {k["key"] for k in section["kernels"]} | {s["key"] for s in section["skipped"]}
    run = ms.load(path)._executable._run   # the IR path: what it compiles, the artifact holds
    assert run.kernels and {k.ks.key for k in run.kernels} <= keys


def test_native_load_compiles_nothing_and_equals_graph_mode(train_artifact):
    path, x, y, losses, weight = train_artifact
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeCodeWarning)
        cell = ms.load(path, native=True, trust_native_code=True)
    run = cell._executable._run
    assert run.kernels and all(isinstance(k.fn, N.PointerKernel) for k in run.kernels)
    got, w = loaded_steps(cell, x, y)
    for a, b in zip(got, losses):
        np.testing.assert_array_equal(a, b)   # the same code as graph mode runs: the same bits
    np.testing.assert_array_equal(w, weight)


NO_NUMBA = """
import sys
class NoNumba:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ImportError("numba is blocked in this process")
sys.meta_path.insert(0, NoNumba())
"""
EXPORT_LENET = NO_NUMBA + """
import numpy as np
import graphcell as ms
from graphcell import nn
sys.path.insert(0, sys.argv[2])
from export_and_load import LeNet5
out = sys.argv[1]
ms.set_seed(0)
rng = np.random.default_rng(0)
x = ms.Tensor(rng.standard_normal((8, 1, 32, 32)).astype(np.float32))
y = ms.Tensor(rng.integers(0, 10, 8).astype(np.int32))
net = LeNet5()
ms.export(net, x, file_name=out + "/inf")
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
ms.export(step, x, y, file_name=out + "/train")
ms.set_context(mode=ms.GRAPH_MODE)
np.savez(out + "/expected.npz", x=x.asnumpy(), y=y.asnumpy(), inf=net(x).asnumpy(),
         loss=np.stack([step(x, y).asnumpy() for _ in range(2)]), w=net.fc3.weight.asnumpy())
assert "numba" not in sys.modules   # export and graph mode: graphcell's code generator only
"""
LOAD_NATIVE = NO_NUMBA + """
import warnings
warnings.simplefilter("error")
import numpy as np
import graphcell as ms
out = sys.argv[1]
e = np.load(out + "/expected.npz")
inf = ms.load(out + "/inf.gcpkg", native=True, trust_native_code=True)(e["x"]).asnumpy()
train = ms.load(out + "/train.gcpkg", native=True, trust_native_code=True)
loss = np.stack([train(e["x"], e["y"]).asnumpy() for _ in range(2)])
assert "numba" not in sys.modules
w = dict(train.parameters_and_names())["fc3.weight"].asnumpy()
np.testing.assert_array_equal(inf, e["inf"])
np.testing.assert_array_equal(loss, e["loss"])
np.testing.assert_array_equal(w, e["w"])
print("native ok")
"""


def test_lenet5_in_a_fresh_process_without_numba(tmp_path):
    """Exported, run in graph mode and loaded natively, each in a process where numba cannot be
    imported: the code generator compiles everything the export and graph mode need."""
    env = {**os.environ, "PYTHONPATH": ROOT, "GRAPHCELL_CACHE_DIR": str(tmp_path / "cache")}
    subprocess.run([sys.executable, "-c", EXPORT_LENET, str(tmp_path),
                    os.path.join(ROOT, "examples")], check=True, env=env, timeout=600)
    done = subprocess.run([sys.executable, "-c", LOAD_NATIVE, str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "native ok" in done.stdout, done.stderr


@pytest.mark.parametrize("target, message", [
    ({"features": "+64bit,+graphcell-imaginary-feature"}, "lacks: graphcell-imaginary-feature"),
    ({"triple": "riscv64-unknown-linux-gnu"}, "the code is for riscv64"),
])
def test_code_for_another_cpu_warns_and_runs_the_ir(tmp_path, train_artifact, target, message):
    path, x, y, losses, weight = train_artifact
    members = members_of(path)
    m = json.loads(members[C.MANIFEST])
    m["native"]["target"].update(target)   # the manifest is the root of the hashes: no rehash
    bad = write(tmp_path, {**members, C.MANIFEST: json.dumps(m).encode()})
    with pytest.warns(NativeCodeWarning, match=message):
        cell = ms.load(bad, native=True, trust_native_code=True)
    assert cell.graph.native is None
    assert not any(isinstance(k.fn, N.PointerKernel) for k in cell._executable._run.kernels)
    got, w = loaded_steps(cell, x, y)
    for a, b in zip(got, losses):
        np.testing.assert_array_equal(a, b)


def test_artifact_without_native_code(tmp_path):
    x, y = nets.inputs()
    _, step = nets.train_step(seed=5)
    path = ms.export(step, x, y, file_name=str(tmp_path / "plain"), native=False)
    members = members_of(path)
    assert not any(n.startswith("native/") for n in members)
    assert "native" not in json.loads(members[C.MANIFEST])
    with pytest.warns(NativeCodeWarning, match="holds no native code"):
        ms.load(path, native=True)


def test_a_changed_object_fails_its_hash(tmp_path, train_artifact):
    members = members_of(train_artifact[0])
    name = next(n for n in members if n.startswith("native/"))
    data = bytearray(members[name])
    data[len(data) // 2] ^= 0x40
    bad = write(tmp_path, {**members, name: bytes(data)})
    for native in (False, True):
        with pytest.raises(ArtifactError, match=rf"\[{name}\]: SHA-256 does not match"):
            ms.load(bad, native=native)


def test_objects_that_are_not_what_the_manifest_says(tmp_path, train_artifact):
    members = members_of(train_artifact[0])
    a, b = sorted(n for n in members if n.startswith("native/"))[:2]
    cases = [({**members, a: members[a][:100]}, "is not the object file"),      # truncated
             ({**members, a: members[b], b: members[a]}, "does not define")]    # swapped
    for case, message in cases:
        bad = write(tmp_path, rehashed(case))
        with pytest.raises(ArtifactError, match=message):
            ms.load(bad, native=True, trust_native_code=True)
        ms.load(bad)   # the IR path never reads the object files


def test_a_native_table_that_does_not_match(tmp_path, train_artifact):
    members = members_of(train_artifact[0])
    kernels = json.loads(members[C.MANIFEST])["native"]["kernels"]
    changed = [dict(kernels[0], args=[["float64", s] for _, s in kernels[0]["args"]])] + kernels[1:]
    with pytest.raises(ArtifactError, match="is not the code of .* with those arguments"):
        ms.load(write(tmp_path, with_native(members, kernels=changed)))
    with pytest.raises(ArtifactError, match="are not in the manifest"):
        ms.load(write(tmp_path, with_native(members, kernels=kernels[1:])))
    extra = {**members, "native/" + "0" * 24 + ".o": b"\x7fELF"}
    with pytest.raises(ArtifactError, match="are not in the manifest"):
        ms.load(write(tmp_path, rehashed(extra)))
    with pytest.raises(ArtifactError, match=r"native.kernels\[0\] must be"):
        ms.load(write(tmp_path, with_native(members, kernels=[{"id": "x"}])))
    with pytest.raises(ArtifactError, match="unexpected member.*'native/evil.so'"):
        ms.load(write(tmp_path, {**members, "native/evil.so": b""}))


def test_a_step_table_that_does_not_match(tmp_path, train_artifact):
    """``native.step`` (the step's shape-generic kernels) is checked as the kernels table is."""
    members = members_of(train_artifact[0])
    step = json.loads(members[C.MANIFEST])["native"]["step"]
    first = step[0]
    for bad, message in [
            ([{"id": first["id"], "key": "not a key", "args": first["args"]}], r"native.step\[0\]"),
            ([dict(first, args=[["array", "float32", -1]])], r"native.step\[0\] must be"),
            ([dict(first, key="0" * 24)] + step[1:], "is not the code of .* with those arguments"),
            (step[1:], "are not in the manifest")]:
        with pytest.raises(ArtifactError, match=message):
            ms.load(write(tmp_path, with_native(members, step=bad)))


def test_precompile_says_whether_the_native_kernels_run_here(tmp_path, train_artifact):
    from graphcell.aot.tools import precompile
    from graphcell.aot.trust import sign
    line = precompile(train_artifact[0])[-1]
    assert "native kernels:" in line and "not trusted (it is not signed and no key" in line
    key = b"precompile test key, 16+ bytes"
    members = members_of(train_artifact[0])
    signed = write(tmp_path, {**members, C.SIGNATURE: sign(members[C.MANIFEST], key)})
    ms.set_context(artifact_key=key)
    line = precompile(signed)[-1]
    assert "native kernels:" in line and "they link here" in line


# --- the fuzzer ----------------------------------------------------------------------------------

@fuzz(60)
@given(data=st.data())
def test_fuzz_native_artifacts_load_identically_or_raise_artifact_error(tmp_path_factory, data,
                                                                       train_artifact):
    path, x, y, losses, _ = train_artifact
    tmp = tmp_path_factory.mktemp("fuzz")
    raw = open(path, "rb").read()
    members = members_of(path)
    natives = sorted(n for n in members if n.startswith("native/"))
    kind = data.draw(st.sampled_from(["flip", "flip_native", "truncate", "splice"]))
    if kind == "flip":
        buf = bytearray(raw)
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i] ^= 1 << data.draw(st.integers(0, 7))
        mutated = bytes(buf)
    elif kind == "flip_native":   # inside an object file, hashes recomputed: a consistent tamperer
        name = data.draw(st.sampled_from(natives))
        buf = bytearray(members[name])
        i = data.draw(st.integers(0, min(len(buf), 64) - 1))   # the ELF header
        buf[i] ^= 1 << data.draw(st.integers(0, 7))
        mutated = C.to_bytes(rehashed({**members, name: bytes(buf)}))
    elif kind == "truncate":
        mutated = raw[:data.draw(st.integers(0, len(raw) - 1))]
    else:   # a native member replaced by a prefix of another member, hashes recomputed
        a = data.draw(st.sampled_from(natives))
        b = data.draw(st.sampled_from(sorted(members)))
        cut = data.draw(st.integers(0, len(members[b])))
        mutated = C.to_bytes(rehashed({**members, a: members[b][:cut]}))
    _loads_identically_or_refuses(tmp / "fuzz.gcpkg", mutated, (x, y), losses[0])


def test_a_kernel_without_native_code_is_compiled_with_a_warning(tmp_path, train_artifact):
    path, x, y, losses, weight = train_artifact
    members = members_of(path)
    kernels = json.loads(members[C.MANIFEST])["native"]["kernels"]
    dropped = kernels[0]
    rest = {n: d for n, d in members.items() if n != f"native/{dropped['id']}.o"}
    bad = write(tmp_path, rehashed(with_native(rest, kernels=kernels[1:])))
    with pytest.warns(NativeCodeWarning, match=f"no native code in the artifact and are "
                                               f"compiled here: {dropped['key']}"):
        cell = ms.load(bad, native=True, trust_native_code=True)
    fns = [k.fn for k in cell._executable._run.kernels]
    assert sum(not isinstance(f, N.PointerKernel) for f in fns) == 1
    got, w = loaded_steps(cell, x, y)
    for a, b in zip(got, losses):
        np.testing.assert_array_equal(a, b)


def test_another_abi_warns_and_runs_the_ir(tmp_path, train_artifact):
    path, x, y, losses, _ = train_artifact
    bad = write(tmp_path, with_native(members_of(path), abi="graphcell-native-0"))
    with pytest.warns(NativeCodeWarning, match="uses ABI 'graphcell-native-0'"):
        cell = ms.load(bad, native=True, trust_native_code=True)
    np.testing.assert_array_equal(cell(x, y).asnumpy(), losses[0])


def _leaves(obj, path=()):
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in _leaves(v, path + (k,))] or [path]
    if isinstance(obj, list):
        return [p for i, v in enumerate(obj) for p in _leaves(v, path + (i,))] or [path]
    return [path]


def _loads_identically_or_refuses(p, data: bytes, args, want) -> None:
    """Artifact bytes ``data`` written to ``p``: ``load(native=True)`` raises ArtifactError, or
    the loaded cell computes ``want`` exactly (a warning may say it took the IR path)."""
    p.write_bytes(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NativeCodeWarning)
            cell = ms.load(p, native=True, trust_native_code=True)
    except ArtifactError:
        return
    np.testing.assert_array_equal(cell(*args).asnumpy(), want)


@fuzz(60)
@given(data=st.data())
def test_fuzz_the_native_section(tmp_path_factory, data, train_artifact):
    """Any value anywhere in the manifest's native section: a clear error or the same result
    (the manifest is the root of the hashes, so nothing else notices)."""
    path, x, y, losses, _ = train_artifact
    members = members_of(path)
    m = json.loads(members[C.MANIFEST])
    where = data.draw(st.sampled_from(_leaves(m["native"])))
    value = data.draw(st.one_of(st.none(), st.booleans(), st.integers(-3, 40), st.text(max_size=30),
                                st.lists(st.integers(0, 3), max_size=3), st.just({})))
    node = m["native"]
    for k in where[:-1]:
        node = node[k]
    if where:
        node[where[-1]] = value
    else:
        m["native"] = value
    _loads_identically_or_refuses(tmp_path_factory.mktemp("fuzz_native") / "n.gcpkg",
                                  C.to_bytes({**members, C.MANIFEST: json.dumps(m).encode()}),
                                  (x, y), losses[0])


def _table_regions(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of an object's section headers, symbol, string and relocation tables: what
    the checks read (not its code, whose bytes only matter when it runs)."""
    import struct
    from graphcell_ir.backend.native.objfile import read_elf
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shnum, = struct.unpack_from("<H", data, 60)
    regions = [(0, 64), (e_shoff, e_shoff + 64 * e_shnum)]
    regions += [(s.offset, s.offset + s.size) for s in read_elf(data).sections
                if s.type in (2, 3, 4) and s.size]
    return regions


@fuzz(120)
@given(data=st.data())
def test_fuzz_object_tables_are_refused_or_linked_never_a_crash(data, train_artifact):
    """Bit flips anywhere in an object's tables (a consistent tamperer: the artifact's hashes
    do not matter here): check_linkable refuses the object, or LLVM links it — or fails to, as
    a Python error. Nothing runs: a changed table may point the code anywhere."""
    members = members_of(train_artifact[0])
    name = data.draw(st.sampled_from(sorted(n for n in members if n.startswith("native/"))))
    buf = bytearray(members[name])
    start, end = data.draw(st.sampled_from(_table_regions(bytes(buf))))
    for _ in range(data.draw(st.integers(1, 3))):
        buf[data.draw(st.integers(start, end - 1))] ^= 1 << data.draw(st.integers(0, 7))
    id_ = name[len("native/"):-len(".o")]
    obj = N.NativeObject("fuzz", id_, (("float32", (1,)),), bytes(buf))
    try:
        N.check_linkable(obj.data, obj.symbol, N.host_target().triple)
    except N.NativeError:
        return
    N.link([obj])   # linked or listed in .failed; never raises, never aborts


NARROWED = """
import glob, json, os, sys, warnings
import numpy as np
import graphcell as ms
from graphcell.aot import NativeCodeWarning
from graphcell_ir.backend import codegen
targets = []
real = codegen.object_code
def recorded(text, target, optimize=True):
    targets.append(target.features)
    return real(text, target, optimize)
codegen.object_code = recorded
data = np.load(sys.argv[2])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", NativeCodeWarning)
    cell = ms.load(sys.argv[1], native=True, trust_native_code=True)
    losses = [cell(ms.Tensor(data["x"]), ms.Tensor(data["y"])).asnumpy() for _ in range(2)]
(why,) = [str(w.message) for w in caught if issubclass(w.category, NativeCodeWarning)]
assert "this process's target leaves out" in why and "avx512f" in why, why
def header(path):   # a stored object: a magic line, its JSON header line, its bytes
    return json.loads(open(path, "rb").read().split(b"\\n", 2)[1])
stored = [header(p) for p in glob.glob(os.path.join(os.environ["GRAPHCELL_CACHE_DIR"],
                                                    "objects", "*.o"))]
features = targets + [s["target"][2] for s in stored]
assert targets and stored and not any("+avx512" in f for f in features), features
np.testing.assert_allclose(np.stack(losses), data["losses"], rtol=1e-5)
print("ok")
"""


@pytest.mark.skipif("avx512f" not in N.host_target().required(),
                    reason="the host has no AVX-512 to leave out")
def test_a_process_with_narrowed_cpu_features_runs_none_of_an_artifacts_wider_code(tmp_path):
    """An artifact exported here (AVX-512 code: the direct convolutions' tiles of 3 vectors of
    16 lanes, LLVM's vectors) loaded in a process whose NUMBA_CPU_FEATURES leave AVX-512 out:
    its code is refused with a NativeCodeWarning naming the features, and what runs instead is
    compiled for the narrowed target (every object compiled and stored), with the same results
    up to rounding."""
    x, y = nets.segmented_inputs("direct", batch=2)
    path = ms.export(nets.segmented_train_step("direct", seed=3), x, y,
                     file_name=str(tmp_path / "direct"))
    features = json.loads(members_of(path)[C.MANIFEST])["native"]["target"]["features"]
    assert "+avx512f" in features.split(",")
    step = nets.segmented_train_step("direct", seed=3)
    ms.set_context(mode=ms.GRAPH_MODE)
    losses = [step(x, y).asnumpy() for _ in range(2)]
    np.savez(tmp_path / "data.npz", x=x.asnumpy(), y=y.asnumpy(), losses=np.stack(losses))
    narrow = ",".join("-" + f[1:] if f[1:].startswith("avx512") else f
                      for f in N.host_target().features.split(",") if f)
    (tmp_path / "cache").mkdir()
    out = subprocess.run([sys.executable, "-c", NARROWED, path, str(tmp_path / "data.npz")],
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": ROOT, "NUMBA_CPU_FEATURES": narrow,
                              "GRAPHCELL_CACHE_DIR": str(tmp_path / "cache"),
                              "GRAPHCELL_COMPILE_WORKER": "0"})   # every compile seen here
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]

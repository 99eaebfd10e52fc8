"""Record MindSpore 2.10's answers to the golden cases: ``tests/graphcell/api/goldens/<family>.npz``.

Runs in a separate virtualenv with MindSpore (never a dependency of graphcell or of its tests)::

    python3 -m venv /opt/msvenv && /opt/msvenv/bin/pip install mindspore==2.10.0 "numpy<2"
    /opt/msvenv/bin/python tools/record_goldens.py            # every family
    /opt/msvenv/bin/python tools/record_goldens.py array math  # some families

For each case of ``tests/graphcell/api/cases/<family>.py`` it stores the inputs, the output (values,
dtypes and structure) and the values of its Parameter inputs after the call, or the error
MindSpore raised (confirmed by recording the case again alone in a fresh process, since MindSpore's
PyNative mode can carry an error over to later calls), and — for differentiable cases — a cotangent
per float output and MindSpore's gradients of ``sum(output * cotangent)`` with respect to every
float input. The call is evaluated from the same source text graph mode compiles
(``Case.source_call``), so both sides run exactly the same call.
"""
from __future__ import annotations

import argparse
import sys
import traceback
import zlib
from pathlib import Path

import numpy as np

API = Path(__file__).resolve().parent.parent / "tests" / "graphcell" / "api"
sys.path.insert(0, str(API))
import golden_cases as G  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import Tensor, nn, ops  # noqa: E402


def namespaces() -> dict:
    import mindspore.mint.linalg  # noqa: F401 - mint's sub-namespaces, reached as attributes
    import mindspore.mint.nn.functional  # noqa: F401
    import mindspore.mint.optim  # noqa: F401
    import mindspore.mint.special  # noqa: F401
    import mindspore.numpy as mnp
    from mindspore import mint
    from mindspore.ops import functional, operations
    return {"ops": ops, "Tensor": Tensor, "numpy": mnp, "nn": nn, "F": functional,
            "P": operations, "ms": ms, "mint": mint}


def resolve(target: str):
    space, attr = target.split(".", 1)
    obj = namespaces()[space]
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def evaluate(c: G.Case, tensors: list, params: dict | None = None):
    """The case's call; ``params`` maps the slots of ``P`` inputs to their Parameters."""
    params = params or {}
    env = {"ms": ms, **{f"t{i}": t for i, t in enumerate(tensors) if i not in params},
           **{f"p{i}": p for i, p in params.items()}}
    if not c.is_method:
        env["target"] = resolve(c.target)
    return eval(c.source_call("target"), env)  # noqa: S307 - our own generated call text


def describe(out, key: str, arrays: dict):
    """The output as a JSON-able structure; tensors go to ``arrays`` under ``key``."""
    if isinstance(out, Tensor):
        arrays[key] = out.asnumpy()
        return {"t": "tensor", "dtype": str(out.dtype), "key": key}
    if isinstance(out, np.ndarray):  # asnumpy() and friends
        arrays[key] = out
        return {"t": "ndarray", "dtype": str(out.dtype), "key": key}
    if isinstance(out, (tuple, list)):
        return {"t": type(out).__name__,
                "items": [describe(o, f"{key}.{i}", arrays) for i, o in enumerate(out)]}
    if isinstance(out, (bool, np.bool_)):
        return {"t": "bool", "v": bool(out)}
    if isinstance(out, (int, np.integer)):
        return {"t": "int", "v": int(out)}
    if isinstance(out, (float, np.floating)):
        return {"t": "float", "v": float(out)}
    if out is None:
        return {"t": "none"}
    if isinstance(out, str):
        return {"t": "str", "v": out}
    if isinstance(out, ms.dtype.Type):
        return {"t": "dtype", "v": str(out)}
    raise TypeError(f"cannot record an output of type {type(out).__name__}")


def float_leaves(desc) -> list[dict]:
    if desc["t"] == "tensor":
        return [desc] if desc["dtype"].startswith("Float") else []
    if desc["t"] in ("tuple", "list"):
        return [leaf for item in desc["items"] for leaf in float_leaves(item)]
    return []


def pick(out, key: str, root: str):
    """The leaf of ``out`` at ``key`` (``root.1.0`` is ``out[1][0]``)."""
    for part in key[len(root) + 1:].split(".") if key != root else []:
        out = out[int(part)]
    return out


def _flush_pending_error() -> None:
    """MindSpore's PyNative executor keeps some errors pending after raising them (a shape
    mismatch in ``Greater``), and raises them again at the next call: the next case would record
    the previous case's error. Synchronising the executor raises (and drops) it here."""
    from mindspore.common.api import _pynative_executor
    try:
        _pynative_executor.sync()
    except Exception:  # noqa: BLE001 - the pending error we are dropping
        pass


def record_case(c: G.Case, arrays: dict) -> dict:
    inputs = [t.make(c.cid) for t in c.tensors()]
    for i, a in enumerate(inputs):
        arrays[f"{c.cid}/in/{i}"] = a
    rec: dict = {"fingerprint": c.fingerprint()}
    if c.is_cell:
        return record_cell_case(c, inputs, arrays, rec)

    def fresh_params() -> dict:
        return {i: ms.Parameter(Tensor(inputs[i].copy()), name=f"p{i}") for i in c.params()}
    try:
        params = fresh_params()
        out = evaluate(c, [Tensor(a.copy()) for a in inputs], params)
        rec["out"] = describe(out, f"{c.cid}/out", arrays)
        for i, p in params.items():  # the Parameters' values after the call
            arrays[f"{c.cid}/param/{i}"] = p.asnumpy()
    except Exception as e:  # noqa: BLE001 - MindSpore refusing the call is the recorded answer
        rec["error"] = {"type": type(e).__name__, "message": str(e).strip().splitlines()[0][:300]
                        if str(e).strip() else ""}
        _flush_pending_error()
        return rec
    fixed = set(c.params()) | set(c.init_slots())  # Parameters and constructor arguments
    floats = [i for i, a in enumerate(inputs) if a.dtype.kind == "f" and i not in fixed]
    leaves = float_leaves(rec["out"])
    wanted = c.grad if c.grad is not None else bool(floats and leaves)
    if not (wanted and floats and leaves):
        return rec
    cots = make_cotangents(c, leaves, arrays)

    def loss(*xs):
        tensors = [Tensor(a) for a in inputs]
        for i, x in zip(floats, xs):
            tensors[i] = x
        out = evaluate(c, tensors, fresh_params())
        total = 0
        for key, cot in cots.items():
            total = total + (pick(out, key, f"{c.cid}/out") * Tensor(cot)).sum()
        return total

    try:
        grads = ms.grad(loss, grad_position=tuple(range(len(floats))))(
            *[Tensor(inputs[i]) for i in floats])
        grads = grads if isinstance(grads, tuple) else (grads,)
        values = {f"{c.cid}/grad/{i}": g.asnumpy() for i, g in zip(floats, grads)}
        arrays.update(values)  # only once every gradient was read: a late failure records none
        rec["grad"] = {"positions": floats}
    except Exception as e:  # noqa: BLE001
        rec["grad_error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}"
    return rec


def make_cell(c: G.Case, inputs: list):
    """A fresh layer of a cell case: its ``init`` tensors are the initial weights, and the
    Parameters named in ``param_values`` are set to theirs."""
    env = {"ms": ms, "target": resolve(c.target),
           **{f"t{i}": Tensor(inputs[i].copy()) for i in c.init_slots()}}
    cell = eval(c.constructor_call("target"), env)  # noqa: S307 - our own generated call text
    by_path = dict(cell.parameters_and_names())
    for path, slot in c.param_value_slots().items():
        by_path[path].set_data(Tensor(inputs[slot].copy()))
    if c.train:
        cell.set_train()
    return cell


def record_cell_case(c: G.Case, inputs: list, arrays: dict, rec: dict) -> dict:
    """A layer (``nn.X`` with ``init``): its output and parameters after one call, then the
    gradients of ``sum(output * cotangent)`` with respect to the float arguments and the
    trainable parameters of a second, fresh cell (keys ``grad/<slot>``, ``grad/<path>``)."""
    skip = set(c.init_slots())

    def call(cell, tensors):
        env = {"ms": ms, "cell": cell, **{f"t{i}": t for i, t in tensors.items()}}
        return eval(c.source_call("target", callee="cell"), env)  # noqa: S307
    try:
        cell = make_cell(c, inputs)
        out = call(cell, {i: Tensor(a.copy()) for i, a in enumerate(inputs) if i not in skip})
        rec["out"] = describe(out, f"{c.cid}/out", arrays)
        for path, p in cell.parameters_and_names():
            arrays[f"{c.cid}/param/{path}"] = p.asnumpy()
        rec["params"] = [path for path, _ in cell.parameters_and_names()]
    except Exception as e:  # noqa: BLE001 - MindSpore refusing the call is the recorded answer
        rec["error"] = {"type": type(e).__name__, "message": str(e).strip().splitlines()[0][:300]
                        if str(e).strip() else ""}
        _flush_pending_error()
        return rec
    floats = [i for i, a in enumerate(inputs) if a.dtype.kind == "f" and i not in skip]
    leaves = float_leaves(rec["out"])
    cell = make_cell(c, inputs)
    trainable = [(path, p) for path, p in cell.parameters_and_names() if p.requires_grad]
    wanted = c.grad if c.grad is not None else bool((floats or trainable) and leaves)
    if not (wanted and (floats or trainable) and leaves):
        return rec
    cots = make_cotangents(c, leaves, arrays)

    def loss(*xs):
        tensors = {i: Tensor(a) for i, a in enumerate(inputs) if i not in skip}
        tensors.update(zip(floats, xs))
        out = call(cell, tensors)
        total = 0
        for key, cot in cots.items():
            total = total + (pick(out, key, f"{c.cid}/out") * Tensor(cot)).sum()
        return total

    try:
        positions = tuple(range(len(floats))) if floats else None
        weights = [p for _, p in trainable] or None
        grads = ms.grad(loss, grad_position=positions, weights=weights)(
            *[Tensor(inputs[i]) for i in floats])
        if floats and weights:
            input_grads, param_grads = grads
        elif floats:
            input_grads, param_grads = grads, ()
        else:
            input_grads, param_grads = (), grads
        input_grads = input_grads if isinstance(input_grads, tuple) else (input_grads,)
        values = {f"{c.cid}/grad/{i}": g.asnumpy() for i, g in zip(floats, input_grads)}
        values.update({f"{c.cid}/grad/{path}": g.asnumpy()
                       for (path, _), g in zip(trainable, param_grads)})
        arrays.update(values)
        rec["grad"] = {"positions": floats, "params": [path for path, _ in trainable]}
    except Exception as e:  # noqa: BLE001
        first = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
        rec["grad_error"] = f"{type(e).__name__}: {first}"
    return rec


def make_cotangents(c: G.Case, leaves: list, arrays: dict) -> dict:
    """A cotangent per float output (seeded by the case id), stored beside the output."""
    rng = np.random.default_rng(zlib.crc32(f"{c.cid}/cot".encode()))
    cots = {}
    for leaf in leaves:
        cot = rng.uniform(-1, 1, np.shape(arrays[leaf["key"]])).astype(arrays[leaf["key"]].dtype)
        cots[leaf["key"]] = cot
        arrays[f"{leaf['key']}/cot"] = cot
    return cots


def record_family(name: str) -> None:
    cases = G.load_cases(API / "cases" / f"{name}.py")
    arrays: dict = {}
    records = {}
    for c in cases:
        try:
            records[c.cid] = record_case(c, arrays)
        except Exception:
            print(f"{c.cid}: the recorder failed:\n{traceback.format_exc()}", file=sys.stderr)
            raise
        if "error" in records[c.cid] or "grad_error" in records[c.cid]:
            records[c.cid] = record_alone(name, c.cid, arrays)
    G.write_goldens(API / "goldens" / f"{name}.npz", records, arrays)
    errors = sum("error" in r for r in records.values())
    print(f"{name}: {len(records)} cases ({errors} refused by MindSpore) -> goldens/{name}.npz")


def record_alone(family: str, cid: str, arrays: dict) -> dict:
    """Record one case again in a fresh MindSpore process: MindSpore 2.10's PyNative mode keeps
    some errors (a primitive that failed once keeps failing; a pending error surfaces at the next
    call), so an error met in the shared process is only believed when it happens alone."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "case.npz"
        subprocess.run([sys.executable, __file__, family, "--case", cid, "--out", str(out)],
                       check=True, capture_output=True)
        records, data = G.read_goldens(out)
        for key in data.files:
            if key != "__meta__":
                arrays[key] = np.array(data[key])
    return records[cid]


def record_one(family: str, cid: str, out: str) -> None:
    (c,) = [c for c in G.load_cases(API / "cases" / f"{family}.py") if c.cid == cid]
    arrays: dict = {}
    G.write_goldens(out, {cid: record_case(c, arrays)}, arrays)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("families", nargs="*", help="case files to record (default: all)")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # record_alone's child: one case
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    if args.case:
        record_one(args.families[0], args.case, args.out)
        return
    names = args.families or sorted(p.stem for p in (API / "cases").glob("*.py"))
    for name in names:
        record_family(name)


if __name__ == "__main__":
    main()

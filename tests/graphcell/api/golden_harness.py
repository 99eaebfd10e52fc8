"""Run a golden case on graphcell (PyNative or graph mode) and compare with MindSpore's record.

Graph mode compiles the case's call as the source of a small function (registered with
``linecache``, so the frontend reads it as it reads any user function)::

    def golden(t0, t1, c0):
        def loss(t0, t1):
            out = target([t0, t1], axis=1)
            return (out * c0).sum()
        return target([t0, t1], axis=1), ms.grad(loss, grad_position=(0, 1))(t0, t1)

so one compile checks the output and the gradients. PyNative runs the same text with ``eval``.
A case's ``P`` inputs are Parameters ``p<slot>`` made fresh for each run; graph mode reads them
as globals of the compiled function (so an op may write them), and their values after the call
are compared with MindSpore's.
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass

import numpy as np

import graphcell as ms
from graphcell import Parameter, Tensor
from graphcell_ir.errors import GraphcellError

import golden_cases as G

REFUSALS = (TypeError, ValueError, RuntimeError, IndexError, KeyError, ZeroDivisionError,
            GraphcellError)
"""What graphcell may raise where MindSpore refuses a call (its C++ errors are RuntimeErrors
where graphcell's are often ValueError or TypeError)."""

GRAD_RTOL, GRAD_ATOL = 1e-4, 1e-5


def namespace(space: str):
    """The graphcell object a case's target starts from (``ops``, ``Tensor``, ``numpy``...)."""
    import importlib
    modules = {"ops": "graphcell.ops", "numpy": "graphcell.numpy", "nn": "graphcell.nn",
               "F": "graphcell.ops.functional", "P": "graphcell.ops.operations", "ms": "graphcell"}
    return Tensor if space == "Tensor" else importlib.import_module(modules[space])


def resolve(target: str):
    space, attr = target.split(".", 1)
    obj = namespace(space)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass
class Golden:
    """One case with its record: inputs, expected output structure, cotangents, gradients."""

    case: G.Case
    record: dict
    data: object

    @property
    def inputs(self) -> list[np.ndarray]:
        return [np.array(self.data[f"{self.case.cid}/in/{i}"])
                for i in range(len(self.case.tensors()))]

    def make_params(self) -> dict[int, Parameter]:
        """Fresh Parameters for the case's ``P`` inputs (slot -> Parameter named ``p<slot>``)."""
        inputs = self.inputs
        return {i: Parameter(Tensor(inputs[i].copy()), name=f"p{i}") for i in self.case.params()}

    @property
    def grad_positions(self) -> list[int]:
        return self.record.get("grad", {}).get("positions", [])

    def cotangents(self) -> dict[str, np.ndarray]:
        return {leaf["key"]: np.array(self.data[f"{leaf['key']}/cot"])
                for leaf in float_leaves(self.record["out"])} if self.grad_positions else {}


def float_leaves(desc) -> list[dict]:
    if desc["t"] == "tensor":
        return [desc] if desc["dtype"].startswith("Float") else []
    if desc["t"] in ("tuple", "list"):
        return [leaf for item in desc["items"] for leaf in float_leaves(item)]
    return []


def _path(key: str, root: str) -> str:
    """``root.1.0`` -> ``[1][0]``: the leaf's place in the output, as source text."""
    return "".join(f"[{p}]" for p in key[len(root) + 1:].split(".")) if key != root else ""


# --- running -------------------------------------------------------------------------------------

def run_pynative(g: Golden, params: dict | None = None):
    """``(output, gradients or None)`` of the case in PyNative mode; ``params`` are the
    Parameters of its ``P`` inputs (made by ``g.make_params()``), updated in place."""
    c, inputs = g.case, g.inputs
    params = g.make_params() if params is None else params
    env = _env(c, [Tensor(a.copy()) for a in inputs], params)
    out = eval(c.source_call("target"), env)  # noqa: S307 - the case's own call text
    if not g.grad_positions:
        return out, None
    pos, cots, root = g.grad_positions, g.cotangents(), f"{c.cid}/out"

    def loss(*xs):
        tensors = [Tensor(a.copy()) for a in inputs]
        for i, x in zip(pos, xs):
            tensors[i] = x
        o = eval(c.source_call("target"), _env(c, tensors, g.make_params()))  # noqa: S307
        total = 0
        for key, cot in cots.items():
            total = total + (eval("o" + _path(key, root), {"o": o}) * Tensor(cot)).sum()  # noqa: S307
        return total

    grads = ms.grad(loss, grad_position=tuple(range(len(pos))))(*[Tensor(inputs[i]) for i in pos])
    return out, grads if isinstance(grads, tuple) else (grads,)


def run_graph(g: Golden, params: dict | None = None):
    """``(output, gradients or None)`` of the case compiled in graph mode (``ms.jit``); the
    Parameters of its ``P`` inputs are globals of the compiled function, updated in place."""
    c, inputs = g.case, g.inputs
    params = g.make_params() if params is None else params
    fn = _graph_function(g, params)
    cots = list(g.cotangents().values())
    res = fn(*[Tensor(a.copy()) for i, a in enumerate(inputs) if i not in _outside(g, params)],
             *[Tensor(x) for x in cots])
    if not g.grad_positions:
        return res, None
    out, grads = res
    return out, grads if isinstance(grads, tuple) else (grads,)


def _env(c: G.Case, tensors: list, params: dict | None = None) -> dict:
    params = params or {}
    env = {"ms": ms, **{f"t{i}": t for i, t in enumerate(tensors) if i not in params},
           **{f"p{i}": p for i, p in params.items()}}
    if not c.is_method:
        env["target"] = resolve(c.target)
    return env


def _builds_cell(c: G.Case) -> bool:
    """A class case whose class is a Cell: graph mode builds it outside the compiled function."""
    if not c.is_class:
        return False
    cls = resolve(c.target)
    return isinstance(cls, type) and issubclass(cls, ms.nn.Cell)


def _outside(g: Golden, parameters: dict) -> set[int]:
    """The slots whose tensors are not arguments of the compiled function: the Parameters and,
    for a cell case, the constructor's tensors."""
    init = set(g.case.init_slots()) if _builds_cell(g.case) else set()
    return set(parameters) | init


def _graph_function(g: Golden, parameters: dict | None = None):
    c = g.case
    parameters = parameters or {}
    outside = _outside(g, parameters)
    names = [f"t{i}" for i in range(len(c.tensors())) if i not in outside]
    keys = list(g.cotangents())
    cot_names = [f"c{i}" for i in range(len(keys))]
    env = {"ms": ms, **{f"p{i}": p for i, p in parameters.items()}}
    if not c.is_method:
        env["target"] = resolve(c.target)
    call = c.source_call("target")
    if _builds_cell(c):  # built here, as a network builds its cells in __init__
        inputs = g.inputs
        init_env = {**env, **{f"t{i}": Tensor(inputs[i].copy()) for i in c.init_slots()}}
        env["cell"] = eval(c.constructor_call("target"), init_env)  # noqa: S307 - case's own text
        call = c.source_call("target", callee="cell")
    lines = [f"def golden({', '.join(names + cot_names)}):"]
    if g.grad_positions:
        params = ", ".join(f"t{i}" for i in g.grad_positions)
        root = f"{c.cid}/out"
        total = " + ".join(f"(out{_path(k, root)} * {n}).sum()" for k, n in zip(keys, cot_names))
        lines += [f"    def loss({params}):",
                  f"        out = {call}",
                  f"        return {total}",
                  f"    return {call}, ms.grad(loss, grad_position="
                  f"{tuple(range(len(g.grad_positions)))})({params})"]
    else:
        lines.append(f"    return {call}")
    source = "\n".join(lines) + "\n"
    filename = f"<golden {c.cid}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), env)  # noqa: S102 - the case's own generated text
    return ms.jit(env["golden"])


# --- comparing -------------------------------------------------------------------------------------

def compare(out, desc: dict, g: Golden, where: str = "output") -> None:
    """Assert that graphcell's ``out`` matches MindSpore's recorded ``desc``."""
    t = desc["t"]
    if t == "tensor":
        assert isinstance(out, Tensor), f"{where}: expected a Tensor, got {type(out).__name__}"
        assert str(out.dtype) == desc["dtype"], \
            f"{where}: dtype {out.dtype}, MindSpore gives {desc['dtype']}"
        want = np.array(g.data[desc["key"]])
        got = out.asnumpy()
        assert got.shape == want.shape, f"{where}: shape {list(got.shape)}, MindSpore gives " \
                                        f"{list(want.shape)}"
        if g.case.values:
            assert_values(got, want, g.case.rtol, g.case.atol, where)
    elif t == "ndarray":
        assert isinstance(out, np.ndarray), f"{where}: expected a numpy array, got " \
                                            f"{type(out).__name__}"
        want = np.array(g.data[desc["key"]])
        assert out.dtype == want.dtype and out.shape == want.shape, \
            f"{where}: {out.dtype}{list(out.shape)}, MindSpore gives {want.dtype}{list(want.shape)}"
        assert_values(out, want, g.case.rtol, g.case.atol, where)
    elif t in ("tuple", "list"):
        assert isinstance(out, (tuple, list)), f"{where}: expected a {t}, got {type(out).__name__}"
        assert len(out) == len(desc["items"]), \
            f"{where}: {len(out)} items, MindSpore gives {len(desc['items'])}"
        for i, (o, d) in enumerate(zip(out, desc["items"])):
            compare(o, d, g, f"{where}[{i}]")
    elif t == "none":
        assert out is None, f"{where}: expected None, got {out!r}"
    elif t == "dtype":
        assert str(out) == desc["v"], f"{where}: {out}, MindSpore gives {desc['v']}"
    else:
        kinds = {"bool": (bool, np.bool_), "int": (int, np.integer), "float": (float, int),
                 "str": (str,)}[t]
        assert isinstance(out, kinds) and not (t == "int" and isinstance(out, bool)), \
            f"{where}: expected a Python {t}, got {out!r}"
        if not g.case.values:
            pass
        elif t == "float":
            assert_values(np.float64(out), np.float64(desc["v"]), g.case.rtol, g.case.atol, where)
        else:
            assert out == desc["v"], f"{where}: {out!r}, MindSpore gives {desc['v']!r}"


def assert_values(got: np.ndarray, want: np.ndarray, rtol: float, atol: float, where: str) -> None:
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def compare_params(params: dict, g: Golden) -> None:
    """The ``P`` inputs after the call against MindSpore's Parameters after its call — by value
    even with ``values=False``, which is about the outputs (an update is deterministic where an
    op's outputs may not be comparable)."""
    for i, p in params.items():
        want = np.array(g.data[f"{g.case.cid}/param/{i}"])
        got = p.asnumpy()
        assert got.dtype == want.dtype and got.shape == want.shape, \
            f"Parameter p{i} after the call: {got.dtype}{list(got.shape)}, MindSpore gives " \
            f"{want.dtype}{list(want.shape)}"
        assert_values(got, want, g.case.rtol, g.case.atol, f"Parameter p{i} after the call")


def compare_grads(grads, g: Golden) -> None:
    for k, (i, grad) in enumerate(zip(g.grad_positions, grads)):
        want = np.array(g.data[f"{g.case.cid}/grad/{i}"])
        got = grad.asnumpy()
        assert got.shape == want.shape, f"gradient of t{i}: shape {list(got.shape)}, MindSpore " \
                                        f"gives {list(want.shape)}"
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        np.testing.assert_allclose(got, want, rtol=GRAD_RTOL, atol=GRAD_ATOL * scale,
                                   equal_nan=True, err_msg=f"gradient of t{i}")


# --- finite differences ----------------------------------------------------------------------------

def fd_function(g: Golden):
    """``sum(output * cotangent)`` as a PyNative function of the float inputs (the others held
    fixed): what the finite-difference checks differentiate, in float64."""
    c, inputs, pos = g.case, g.inputs, g.grad_positions
    cots = {k: Tensor(v.astype(np.float64)) for k, v in g.cotangents().items()}
    root = f"{c.cid}/out"

    def loss(*xs):
        tensors = [Tensor(a.copy()) for a in inputs]  # copies: an in-place op writes its input
        for i, x in zip(pos, xs):
            tensors[i] = x
        out = eval(c.source_call("target"), _env(c, tensors, g.make_params()))  # noqa: S307
        total = 0
        for key, cot in cots.items():
            total = total + (eval("o" + _path(key, root), {"o": out}) * cot).sum()  # noqa: S307
        return total
    loss.__qualname__ = f"golden {c.cid}"
    return loss


def fd_inputs(g: Golden) -> tuple:
    return tuple(Tensor(g.inputs[i].astype(np.float64)) for i in g.grad_positions)


def graph_grads_float64(g: Golden) -> tuple:
    """The compiled gradient (``ms.grad`` inside ``ms.jit``) at the float inputs cast to float64."""
    params = g.make_params()
    inputs = [a.astype(np.float64) if i in g.grad_positions else a
              for i, a in enumerate(g.inputs) if i not in _outside(g, params)]
    fn = _graph_function(g, params)
    cots = [Tensor(x.astype(np.float64)) for x in g.cotangents().values()]
    _, grads = fn(*[Tensor(a) for a in inputs], *cots)
    return grads if isinstance(grads, tuple) else (grads,)


def central_differences(loss, xs: tuple, eps: float = 1e-6) -> list[np.ndarray]:
    """d loss / d x for every element of every x, by float64 central differences."""
    out = []
    for k, x in enumerate(xs):
        base = x.asnumpy()
        grad = np.zeros(base.shape)
        for idx in np.ndindex(base.shape):
            values = []
            for step in (eps, -eps):
                moved = base.copy()
                moved[idx] += step
                args = [Tensor(x.asnumpy().copy()) for x in xs]  # an in-place op writes its input
                args[k] = Tensor(moved)
                values.append(float(loss(*args).asnumpy()))
            grad[idx] = (values[0] - values[1]) / (2 * eps)
        out.append(grad)
    return out

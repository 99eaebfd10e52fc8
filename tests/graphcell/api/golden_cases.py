"""Golden cases: calls of MindSpore API names, described once, run by MindSpore and by graphcell.

A case file (``cases/<family>.py``) holds ``CASES``, a list of :func:`case` calls. This module
imports nothing but numpy, so the same files are read by ``tools/record_goldens.py`` (in a venv
with MindSpore 2.10, which records the inputs, outputs and gradients into ``goldens/<family>.npz``)
and by ``test_goldens.py`` (which runs graphcell on the recorded inputs in PyNative and in graph
mode and compares).

``case(target, *args, init=..., **kwargs)`` calls ``target``:

- ``"ops.stack"``, ``"numpy.mean"``, ``"nn.functional_name"``: ``target(*args, **kwargs)``;
- ``"Tensor.argmax"``: ``args[0].argmax(*args[1:], **kwargs)``;
- ``"ops.Stack"`` (a class): ``Stack(*init)(*args, **kwargs)``, ``init`` a tuple or a dict;
- ``"mint.sum"``, ``"mint.nn.functional.gelu"``: as ``ops`` (``mint.nn.X`` classes are layers);
- ``"nn.Dense"``, ``"nn.MSELoss"`` (a Cell: an ``nn`` class with ``init``): the cell
  ``Dense(**init)`` is made outside the compiled function (its ``T`` arguments are its initial
  weights, never differentiated), set to training mode when ``train=True``, and called on the
  arguments. Its parameters after the call are compared by their paths (``moving_mean``), and
  the gradients are taken with respect to the float arguments and the cell's trainable
  parameters (on a second, fresh cell, so a layer that updates its statistics does so once per
  run). ``param_values={"weight_ih_l0": T(...), ...}`` sets the named Parameters of a layer whose
  constructor takes no initial weights (``nn.LSTM``) to those tensors once it is made; like
  ``init``'s tensors they are never differentiated.

Arguments are Python values, :class:`T` (a tensor input: random values of a shape and dtype, or
given values), :class:`P` (a Parameter made from a ``T`` outside the compiled function, for ops
that update Parameters in place: its value after the call is compared too), :class:`D` (a dtype)
and :class:`N` (a Cell given to a layer's constructor). Options: ``grad`` (False: do not
differentiate; default: differentiate when a float tensor goes in and a float tensor comes out; the
gradient is compared with MindSpore's and, unless ``fd=False``, with float64 finite differences),
``rtol``/``atol``, ``modes`` (the modes the case runs in, with ``why`` saying why one is left out),
``id`` (a label), ``values=False`` (compare the outputs' structure, shapes and dtypes only: random
ops, whose values no two generators share — their distributions are tested separately; the values
of ``P`` inputs after the call are still compared), ``ms_grad=False`` (MindSpore's gradient is
wrong for this call: the gradient is checked against finite differences only), ``train=True`` (a
layer is called in training mode). A layer's gradients are compared with MindSpore's only: the
functions it calls have their own finite-difference checks.

Example::

    >>> c = case("ops.stack", [T((2, 3)), T((2, 3))], axis=1)
    >>> c.source_call("target"), [s.shape for s in c.tensors()]
    ('target([t0, t1], axis=1)', [(2, 3), (2, 3)])
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MODES = ("pynative", "graph")


@dataclass(frozen=True)
class D:
    """A dtype argument, by MindSpore's attribute name (``D("float32")`` is ``ms.float32``)."""

    name: str

    def __repr__(self) -> str:
        return f"D({self.name!r})"


@dataclass(eq=False)
class T:
    """A tensor input: ``T((2, 3))`` (uniform in [lo, hi), float32 by default), ``T((4,), "int32",
    lo=0, hi=5)``, ``T([[1, 2]], "float32")`` (given values; a list or array as first argument)."""

    spec: Any
    dtype: str = "float32"
    lo: float = -2.0
    hi: float = 2.0
    slot: int = -1  # set by case(): the index among the case's tensors
    is_param: bool = False  # set by case() when the tensor is wrapped in P

    def __post_init__(self):
        if isinstance(self.spec, np.ndarray) and self.dtype == "float32" and \
                self.spec.dtype != np.float64:
            self.dtype = str(self.spec.dtype)  # an explicit array keeps its dtype

    @property
    def given(self) -> bool:
        return not (isinstance(self.spec, tuple) and all(isinstance(s, int) for s in self.spec))

    @property
    def shape(self) -> tuple[int, ...]:
        return np.shape(self.spec) if self.given else tuple(self.spec)

    def make(self, seed_text: str) -> np.ndarray:
        """The input array (deterministic: seeded by the case id and the slot)."""
        if self.given:
            return np.asarray(self.spec).astype(self.dtype)
        rng = np.random.default_rng(zlib.crc32(f"{seed_text}/{self.slot}".encode()))
        kind = np.dtype(self.dtype).kind
        if kind == "b":
            return rng.random(self.shape) < 0.5
        if kind in "iu":
            return rng.integers(int(self.lo), int(self.hi), size=self.shape).astype(self.dtype)
        return rng.uniform(self.lo, self.hi, size=self.shape).astype(self.dtype)

    def key(self) -> str:
        values = (hashlib.sha1(np.ascontiguousarray(np.asarray(self.spec)).tobytes()).hexdigest()[:12]
                  if self.given else f"{self.lo},{self.hi}")
        return f"T({list(self.shape)},{self.dtype},{values})"

    def __repr__(self) -> str:
        return self.key()


class N:
    """A Cell argument of a layer's constructor, built the same way on both sides:
    ``N("nn.LayerNorm", (8,), epsilon=1e-5)`` is ``ms.nn.LayerNorm((8,), epsilon=1e-05)``
    (numbers, strings, tuples, ``T`` — initial weights — and other ``N`` as arguments)."""

    def __init__(self, target: str, *args, **kwargs):
        self.target, self.args, self.kwargs = target, args, kwargs

    def __repr__(self) -> str:
        return _src(self)


@dataclass(eq=False)
class P:
    """A Parameter input: ``P(T((3,)))``. Made fresh (named ``p<slot>``) for each run, outside
    the compiled function, so ops that write Parameters (``Assign``, ``ApplyMomentum``...) work
    on it in both modes; its value after the call is recorded and compared. It is never
    differentiated."""

    tensor: T

    def __repr__(self) -> str:
        return f"P({self.tensor.key()})"


@dataclass
class Case:
    target: str
    args: tuple
    kwargs: dict
    init: tuple | dict | None = None
    grad: bool | None = None
    rtol: float = 1e-5
    atol: float = 1e-6
    modes: tuple[str, ...] = MODES
    why: str = ""
    label: str = ""
    fd: bool = True
    values: bool = True
    ms_grad: bool = True
    attribute: bool = False
    train: bool = False
    param_values: dict | None = None  # a layer's Parameters set by path (the module docstring)
    cid: str = ""  # set by the file loader: "<target>[<n>]" or "<target>[<label>]"
    _tensors: list = field(default_factory=list, repr=False)

    # -- structure --
    @property
    def space(self) -> str:
        return self.target.split(".", 1)[0]

    @property
    def attr(self) -> str:
        return self.target.split(".", 1)[1]

    @property
    def is_method(self) -> bool:
        return self.space == "Tensor"

    @property
    def is_class(self) -> bool:
        return self.init is not None

    @property
    def is_cell(self) -> bool:
        """An ``nn`` (or ``mint.nn``) layer: made once outside the call, then called (see the
        module docstring)."""
        return (self.space == "nn" or self.target.startswith("mint.nn.")) and self.init is not None

    def init_slots(self) -> list[int]:
        """The slots of the tensors given to the constructor (``init``) and set as a layer's
        ``param_values``: they configure the object (a layer's initial weights, a loss's class
        weights), so they are never differentiated."""
        found: list[int] = []

        def walk(v):
            if isinstance(v, P):
                walk(v.tensor)
            elif isinstance(v, T):
                found.append(v.slot)
            elif isinstance(v, N):
                walk(v.args)
                walk(v.kwargs)
            elif isinstance(v, (tuple, list)):
                for x in v:
                    walk(x)
            elif isinstance(v, dict):
                for x in v.values():
                    walk(x)
        walk(self.init)
        walk(self.param_values)
        return found

    def param_value_slots(self) -> dict[str, int]:
        """``param_values``: Parameter path -> the slot of the tensor it is set to."""
        return {path: t.slot for path, t in (self.param_values or {}).items()}

    def tensors(self) -> list[T]:
        return self._tensors

    def params(self) -> list[int]:
        """The slots of the tensors that are Parameters (``P``)."""
        return [t.slot for t in self._tensors if t.is_param]

    def fingerprint(self) -> str:
        """What the recorded goldens depend on; a test fails when a case changes after recording."""
        parts = (self.target, _canon(self.args), _canon(self.kwargs), _canon(self.init))
        if self.attribute:
            parts += ("attribute",)
        if self.param_values is not None:
            parts += (_canon(self.param_values),)
        text = repr(parts)
        if self.train:
            text += ",train"
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    # -- the call as source text (graph mode compiles it; the recorder evaluates the same) --
    def constructor_call(self, target_name: str) -> str:
        """``target(<init>)``: the object a class case calls."""
        init = self.init
        parts = ([_src(v) for v in init] if isinstance(init, (tuple, list))
                 else [f"{k}={_src(v)}" for k, v in init.items()])
        return f"{target_name}({', '.join(parts)})"

    def source_call(self, target_name: str, callee: str | None = None) -> str:
        """The call with tensor inputs named ``t0, t1, ...``; ``callee`` names an object built
        beforehand from :meth:`constructor_call` (a layer, built as a network builds its cells
        in ``__init__``)."""
        args = [_src(a) for a in self.args]
        kwargs = [f"{k}={_src(v)}" for k, v in self.kwargs.items()]
        if self.is_method and self.attribute:
            return f"{args[0]}.{self.attr}"  # a property (x.shape), read, not called
        if self.is_method:
            return f"{args[0]}.{self.attr}({', '.join(args[1:] + kwargs)})"
        if callee is None:
            callee = self.constructor_call(target_name) if self.is_class else target_name
        return f"{callee}({', '.join(args + kwargs)})"


def case(target: str, *args, init=None, grad=None, rtol=1e-5, atol=1e-6, modes=MODES, why="",
         id="", fd=True, values=True, ms_grad=True, attribute=False, train=False,
         param_values=None, **kwargs) -> Case:  # noqa: A002 - pytest's word
    """One call of ``target`` (see the module docstring); ``attribute=True`` reads a Tensor
    property (``case("Tensor.shape", T((2, 3)), attribute=True)``) instead of calling it."""
    if param_values is not None and (init is None or not target.startswith("nn.")):
        raise ValueError(f"{target}: param_values= is for layers (an nn. class with init=)")
    c = Case(target, args, kwargs, init, grad, rtol, atol, tuple(modes), why, id, fd, values,
             ms_grad, attribute, train, param_values)
    _number_tensors(c)
    return c


def _number_tensors(c: Case) -> None:
    def walk(v):
        if isinstance(v, P):
            walk(v.tensor)
            v.tensor.is_param = True
        elif isinstance(v, T):
            if any(v is t for t in c._tensors):
                return  # the same tensor given twice (self-attention's query, key and value)
            v.slot = len(c._tensors)
            c._tensors.append(v)
        elif isinstance(v, N):
            walk(v.args)
            walk(v.kwargs)
        elif isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
    walk(c.init)
    walk(c.param_values)
    walk(c.args)
    walk(c.kwargs)


def _src(v) -> str:
    if isinstance(v, P):
        return f"p{v.tensor.slot}"
    if isinstance(v, T):
        return f"t{v.slot}"
    if isinstance(v, D):
        return f"ms.{v.name}"
    if isinstance(v, N):
        parts = [_src(a) for a in v.args] + [f"{k}={_src(a)}" for k, a in v.kwargs.items()]
        return f"ms.{v.target}({', '.join(parts)})"
    if isinstance(v, tuple):
        inner = ", ".join(_src(x) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(_src(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_src(x)}" for k, x in v.items()) + "}"
    if isinstance(v, float) and not np.isfinite(v):
        return f"float({str(v)!r})"
    if v is None or isinstance(v, (bool, int, float, str)) or v is Ellipsis:
        return repr(v)
    if isinstance(v, slice):
        return f"slice({v.start!r}, {v.stop!r}, {v.step!r})"
    raise TypeError(f"golden cases take numbers, strings, None, tuples, lists, dicts, slices, T, "
                    f"P, D and N as arguments, got {type(v).__name__}")


def _canon(v):
    if isinstance(v, (tuple, list)):
        return type(v).__name__, [_canon(x) for x in v]
    if isinstance(v, dict):
        return sorted((k, _canon(x)) for k, x in v.items())
    return repr(v)


# --- loading case files --------------------------------------------------------------------------

def load_cases(path) -> list[Case]:
    """The ``CASES`` of a case file, with ids (``target[n]`` numbered per target, or the label)."""
    spec = importlib.util.spec_from_file_location(f"golden_cases_{_stem(path)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cases = module.CASES
    counts: dict[str, int] = {}
    seen = set()
    for c in cases:
        if c.label:
            c.cid = f"{c.target}[{c.label}]"
        else:
            n = counts.get(c.target, 0)
            counts[c.target] = n + 1
            c.cid = f"{c.target}[{n}]"
        if c.cid in seen:
            raise ValueError(f"{path}: two cases are called {c.cid}")
        seen.add(c.cid)
    return cases


def _stem(path) -> str:
    return str(path).replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".py")


# --- the golden file -----------------------------------------------------------------------------

def write_goldens(path, records: dict[str, dict], arrays: dict[str, np.ndarray]) -> None:
    """``records``: case id -> JSON-able record; ``arrays``: key -> array (no pickle)."""
    meta = np.frombuffer(json.dumps(records, sort_keys=True).encode(), dtype=np.uint8)
    np.savez_compressed(path, __meta__=meta, **arrays)


def read_goldens(path) -> tuple[dict, Any]:
    data = np.load(path, allow_pickle=False)
    return json.loads(bytes(data["__meta__"]).decode()), data
